import altair as alt
import pandas as pd

from claimbook import charts


def test_renderer_output_depends_only_on_the_spec():
    spec = {"mark": "bar", "title": "t", "data": {"values": [{"a": 1}]}}
    first, second = charts.embed_html(spec), charts.embed_html(dict(reversed(list(spec.items()))))
    digest = first.split('id="')[1].split('"')[0].rsplit("-", 1)[0]
    assert digest == second.split('id="')[1].split('"')[0].rsplit("-", 1)[0]
    assert "cdn" not in first.lower() and "http" not in first


def test_text_from_the_data_cannot_close_the_script():
    spec = {"title": "</script><script>alert(1)</script>", "mark": "bar"}
    markup = charts.embed_html(spec)
    assert "</script><script>" not in markup
    assert markup.count("</script>") == 1
    assert "\\u003c/script>" in markup


def test_book_style_enables_theme_and_renderer():
    charts.use_book_style()
    assert alt.renderers.active == charts.RENDERER
    assert alt.theme.active == charts.THEME
    bundle = alt.Chart(pd.DataFrame({"a": [1]})).mark_point().encode(x="a").properties(title="x")._repr_mimebundle_()
    assert isinstance(bundle, dict) and "text/html" in bundle and "<chart: x>" == bundle["text/plain"]


def test_speedup_chart_has_title_and_description():
    spread = pd.DataFrame(
        {"claim": ["c"], "model": ["m"], "claimed": [2.5], "scenario": ["Offline"], "ratio": [2.0],
         "ratio_vs_best_any": [1.9], "best_any_submitter": ["B"]}
    )
    spec = charts.speedup_chart(spread, title="T", description="D").to_dict()
    assert spec["title"] == "T" and spec["description"] == "D"
