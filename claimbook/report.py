"""What a chapter shows readers: tables and verdict blocks as escaped HTML with a text twin.

Text from a results file (system names, organizations) reaches these pages; every value is
escaped here so that markup in the data shows as text and never runs.
"""

from __future__ import annotations

import html
import math
from urllib.parse import quote

import pandas as pd

from claimbook.verdict import Verdict

# Readable column headings for the tidy and derived columns chapters show.
HEADINGS = {
    "claim": "Claim",
    "model": "Benchmark",
    "claimed": "Claimed",
    "scenario": "Scenario",
    "ratio": "Ratio (own baseline)",
    "ratio_vs_best_any": "Ratio (best baseline by anyone)",
    "best_any_submitter": "Best baseline by",
    "per_gpu_ratio": "Ratio per GPU",
    "per_watt_ratio": "Ratio per watt",
    "organization": "Submitter",
    "system": "System (results folder)",
    "system_name": "System name",
    "accelerator": "Accelerator",
    "total_accelerators": "GPUs",
    "result": "Result",
    "units": "Units",
    "per_accelerator": "Per GPU",
    "availability": "Availability",
    "gpu_watts": "GPU power (W)",
    "location": "Provenance",
    "statement": "The claim, paraphrased",
    "figure": "Figure",
    "result_ids": "Result IDs cited",
    "small_gpus": "GPUs (smaller)",
    "large_gpus": "GPUs (larger)",
    "small_result": "Result (smaller)",
    "large_result": "Result (larger)",
    "small_per_gpu": "Per GPU (smaller)",
    "large_per_gpu": "Per GPU (larger)",
    "efficiency_percent": "Scaling efficiency (%)",
    "definition": "Field compared against",
    "leader": "Best other pair",
    "round": "Round",
    "source_type": "Source of the figure",
    "source": "Source",
    "meaning": "What it means",
    "from_round": "From",
    "to_round": "To",
    "from_result": "Result before",
    "to_result": "Result after",
    "gain": "Gain (x)",
    "evidence": "Weakest source used",
    "verdict": "Verdict",
    "matching_results": "Published results that are the claimed figure",
    "throughput": "Throughput",
    "latency": "Latency",
    "throughput_ratio": "Rack throughput / node (x)",
    "latency_ratio": "Node latency / rack (x)",
    "usd_per_gpu_hour": "USD per GPU-hour",
    "provider": "Provider",
    "pricing": "Pricing kind",
    "price_kind": "Pricing kind",
    "as_of": "Price as of",
    "tokens_per_second": "Tokens/s",
    "usd_per_million_tokens": "USD per million tokens",
    "joules_per_token": "Joules per token (GPU board)",
    "speedup": "Speedup",
    "baseline_usd_per_gpu_hour": "Baseline USD per GPU-hour (assumed)",
    "break_even_usd_per_gpu_hour": "Break-even USD per GPU-hour",
    "assumed_usd_per_gpu_hour": "Assumed USD per GPU-hour",
    "lowers_cost_at_assumed_price": "Cheaper per token at the assumed price",
    "partner": "Named partner",
    "organizations": "Organizations in the data",
    "announcement_name": "Name in the announcement",
    "count": "Count",
    "organization_reference": "Reference submitter",
    "system_reference": "Reference system",
    "total_accelerators_reference": "Reference GPUs",
    "per_accelerator_reference": "Reference per GPU",
}
EVIDENCE_COLUMNS = (
    "organization", "system", "accelerator", "total_accelerators", "scenario", "result", "units",
    "per_accelerator", "gpu_watts", "availability", "location",
)
RESULTS_REPOSITORY = "https://github.com/mlcommons/inference_results_{round}/tree/main/{path}"


def provenance_url(round_name: str, location: str) -> str:
    """The public folder of a result: MLCommons publishes each round in its own repository."""
    path = quote(location.removeprefix("./"), safe="/")
    return RESULTS_REPOSITORY.format(round=quote(round_name, safe=""), path=path)


def _cell(value) -> str:
    """An escaped table cell in which long paths and system names may wrap at / and _."""
    text = html.escape(_format(value))
    return text.replace("/", "/<wbr>").replace("_", "_<wbr>")


def _format(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value.is_integer() and abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:,.2f}" if abs(value) >= 0.1 else f"{value:.4g}"
    return str(value)


def table(frame: pd.DataFrame, caption: str, links: pd.Series | None = None):
    """Display a frame as an HTML table with header cells, a caption and every value escaped.

    With ``links`` (URLs aligned with the rows), the last column's cells become links to them,
    labelled "published logs" with the cell's text as the link's title (the text twin keeps it).
    """
    from IPython.display import display

    shown = frame.rename(columns=HEADINGS)
    head = "".join(f'<th scope="col">{html.escape(str(name))}</th>' for name in shown.columns)
    urls = list(links) if links is not None else [None] * len(shown)
    rows = []
    for values, url in zip(shown.itertuples(index=False, name=None), urls):
        cells = [f"<td>{_cell(value)}</td>" for value in values]
        if url is not None:
            cells[-1] = (
                f'<td><a href="{html.escape(url)}" title="{html.escape(_format(values[-1]))}">'
                "published logs</a></td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body = "".join(rows)
    markup = (
        f'<table class="claimbook-table"><caption>{html.escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    text = caption + "\n" + shown.map(_format).to_string(index=False)
    display({"text/html": markup, "text/plain": text}, raw=True)


def evidence(rows: pd.DataFrame, caption: str):
    """The exact tidy rows a chapter uses, each linked to its folder of published logs."""
    urls = [provenance_url(round_name, location) for round_name, location in zip(rows["round"], rows["location"])]
    table(rows[list(EVIDENCE_COLUMNS)], caption, links=pd.Series(urls, index=rows.index))


def verdict(claim_id: str, statement: str, outcome: Verdict):
    """A verdict block: the claim, the verdict in words, and why."""
    from IPython.display import display

    reason = html.escape(outcome.text())
    markup = (
        f'<div class="claimbook-verdict" data-verdict="{html.escape(outcome.verdict)}">'
        f"<p><strong>{html.escape(claim_id)}</strong>: {html.escape(statement)}</p>"
        f"<p>Verdict: <strong>{html.escape(outcome.verdict)}</strong>. {reason}</p></div>"
    )
    text = f"{claim_id}: {outcome.verdict}. {outcome.text()}"
    display({"text/html": markup, "text/plain": text}, raw=True)
