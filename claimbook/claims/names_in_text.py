"""What a sentence of an announcement names that the results know: benchmarks (by the names
MLCommons and vendors use), scenarios, organizations and accelerator families, matched as
selectors match names (``claimbook.inputs.names``: whole words, whatever the case, spacing and
punctuation), and the sentence's checkable figures and superlatives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from claimbook.inputs import announcement_text
from claimbook.inputs.announcement_text import Figure
from claimbook.inputs.earlier import round_order
from claimbook.inputs.names import contains_name, name_span, squash

# The names vendors write for a benchmark besides those of data/reference/benchmarks.csv (its
# model, benchmark and display names): one row per benchmark of the book's reference.
ALIASES = {
    "deepseek-r1": ("DeepSeek-R1", "DSR1", "DeepSeek R1"),
    "qwen3-vl-235b-a22b": ("Qwen3-VL", "Qwen3 VL"),
    "wan-2.2-t2v-a14b": ("WAN 2.2", "WAN2.2", "text-to-video"),
    "gpt-oss-120b": ("GPT-OSS-120B", "gpt-oss"),
    "llama2-70b-99.9": ("Llama 2 70B", "llama2-70b", "Llama2 70B"),
    "llama3.1-8b": ("Llama 3.1 8B", "llama3.1-8b"),
    "dlrm-v3": ("DLRMv3", "DLRM-v3", "DLRM v3"),
    "qwen3.6-27b": ("Qwen3.6-27B", "Edge-Agentic"),
    "whisper": ("Whisper",),
    "resnet50": ("ResNet-50", "ResNet50"),
    "rgat": ("R-GAT", "RGAT"),
}
SCENARIO_ALIASES = {"SingleStream": ("single stream", "single-stream"), "MultiStream": ("multi-stream",)}
# Units that describe the systems compared rather than what is claimed of them.
DESCRIPTIVE = ("GPUs", "racks", "nodes")
_ROUND = re.compile(r"(?<![\w.])v(\d+\.\d+)\b")
# "over the previous round", "than in the last submission": an earlier round the text does not name.
_UNNAMED_EARLIER_ROUND = re.compile(
    r"\b(?:previous|prior|preceding|last|earlier)[\s-]+(?:MLPerf\s+(?:Inference\s+)?)?(?:round|submission)s?\b"
    r"(?!\s+of\s+(?!MLPerf\b))",  # "the last round of funding" is no round of MLPerf
    re.IGNORECASE,
)
# Scenario names that are also words of prose ("a new server", "interactive use", "offline
# inference"): a scenario in lower case only in a sentence that speaks of scenarios.
_PROSE_WORDS = frozenset({"Server", "Interactive", "Offline"})


@dataclass(frozen=True)
class Names:
    """The names the results (and the reviewed tables) know, to find them in a sentence."""

    round: str
    benchmarks: dict  # benchmark -> the names it goes by
    scenarios: dict  # scenario -> its names
    organizations: tuple[str, ...]
    families: dict  # family -> the names of its accelerators
    accelerators: frozenset  # those names squashed: a number before one counts GPUs


@dataclass(frozen=True)
class Statement:
    """A checkable statement of the text: a sentence with a figure or a superlative, and what it names."""

    line: int
    text: str
    figures: tuple[Figure, ...]
    superlatives: tuple[str, ...]
    benchmarks: tuple[str, ...]
    scenarios: tuple[str, ...]
    organizations: tuple[str, ...]
    families: tuple[str, ...]
    rounds: tuple[str, ...]  # rounds named other than the data's ("over v6.0")
    unnamed_earlier_round: bool = False  # "over the previous round": an earlier round, not named

    @property
    def gpus(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(int(f.value) for f in self.figures if f.unit == "GPUs" and f.value))

    @property
    def claimed(self) -> tuple[Figure, ...]:
        """The figures claimed (a GPU count describes a system, unless nothing else is claimed)."""
        measured = tuple(figure for figure in self.figures if figure.unit not in DESCRIPTIVE)
        return measured or self.figures


def known_names(results: pd.DataFrame, reference) -> Names:
    """The names of ``results`` (annotated) and of the reference tables."""
    benchmarks = {}
    for benchmark in dict.fromkeys(results["benchmark"].astype(str)):
        rows = reference.benchmarks[reference.benchmarks["benchmark"] == benchmark]
        spelled = [benchmark, *rows["model"].astype(str), *rows["display_name"].astype(str)]
        spelled += [re.sub(r"\s*\(.*\)$", "", name) for name in spelled]
        benchmarks[benchmark] = tuple(dict.fromkeys([*spelled, *ALIASES.get(benchmark, ())]))
    families = {}
    for row in reference.accelerators.itertuples():
        if "&" in row.names or row.names.startswith("="):
            continue  # a mixed system or "no accelerator": never named by one word
        families[row.family] = tuple(dict.fromkeys([*row.names.split("|"), row.short_name]))
    scenarios = {name: (name, *SCENARIO_ALIASES.get(name, ())) for name in dict.fromkeys(results["scenario"])}
    rounds = sorted(set(results["round"].astype(str)), key=round_order)  # v5.1 < v6.0 < v10.0
    return Names(
        round=rounds[-1] if rounds else "",
        benchmarks=benchmarks,
        scenarios=scenarios,
        organizations=tuple(sorted(set(results["organization"].astype(str)))),
        families=families,
        accelerators=frozenset(squash(name) for names in families.values() for name in names),
    )


def named_in(sentence: str, table: dict) -> tuple[str, ...]:
    """The keys of ``table`` one of whose names is in the sentence, in the order they appear; a
    name inside a longer one found ("llama3.1-8b" in "llama3.1-8b-edge") does not count."""
    found = []
    for key, names in table.items():
        spans = [span for name in names if name.strip() for span in [name_span(sentence, name)] if span]
        if spans:
            found.append((min(spans), key))
    kept = [
        (span, key)
        for index, (span, key) in enumerate(found)
        if not any(
            (other != span and other[0] <= span[0] and span[1] <= other[1])
            or (other == span and earlier < index)
            for earlier, (other, _) in enumerate(found)
        )
    ]
    return tuple(key for _, key in sorted(kept))


def statement(sentence, names: Names, every: bool = False) -> Statement | None:
    """The sentence as a checkable statement, or None if it has neither a figure nor a superlative
    (``every``: the sentence as a statement however it reads, for coverage by statement)."""
    text = sentence.text
    figures = tuple(announcement_text.figures(text, names.accelerators))
    superlatives = tuple(announcement_text.superlatives(text))
    if not figures and not superlatives and not every:
        return None
    organizations = tuple(name for name in names.organizations if contains_name(text, name))
    return Statement(
        line=sentence.line,
        text=text,
        figures=figures,
        superlatives=superlatives,
        benchmarks=named_in(text, names.benchmarks),
        scenarios=scenarios_in(text, names.scenarios),
        organizations=organizations,
        families=named_in(text, names.families),
        rounds=tuple(
            dict.fromkeys(f"v{found}" for found in _ROUND.findall(text) if f"v{found}" != names.round)
        ),
        unnamed_earlier_round=_UNNAMED_EARLIER_ROUND.search(text) is not None,
    )


def scenarios_in(sentence: str, scenarios: dict) -> tuple[str, ...]:
    """The scenarios a sentence names (``named_in``); "server", "interactive" and "offline" in
    lower case count only in a sentence that says "scenario" (else they are the prose's words)."""
    speaks_of_scenarios = "scenario" in sentence.lower()
    return tuple(
        name
        for name in named_in(sentence, scenarios)
        if name not in _PROSE_WORDS or speaks_of_scenarios or re.search(rf"\b{name}\b", sentence)
    )


def statements(text: str, names: Names) -> list[Statement]:
    """Every checkable statement of an announcement's text, in order."""
    found = (statement(sentence, names) for sentence in announcement_text.sentences(text))
    return [item for item in found if item is not None]


def every_statement(text: str, names: Names) -> list[Statement]:
    """Every sentence of an announcement's text as a statement, in order (coverage by statement)."""
    return [statement(sentence, names, every=True) for sentence in announcement_text.sentences(text)]
