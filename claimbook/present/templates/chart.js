{#- The script of a chart (chart.html), its lines kept: ``spec`` is written by templating.script_json,
``element`` is the chart's id (a digest and a counter, no text of the data). -#}
{% macro draw(element, spec) -%}
(function () {
  var spec = {{ spec }};
  {#- An axis title that follows the chart's controls (Vega-Lite has none): the spec's
  usermeta.axis_titles gives an expression per axis side, set on the compiled Vega. #}
  function titled(vega) {
    var titles = (spec.usermeta || {}).axis_titles || {};
    (vega.axes || []).forEach(function (axis) {
      if (titles[axis.orient] && axis.title !== undefined) { axis.title = {signal: titles[axis.orient]}; }
    });
    return vega;
  }
  function draw() {
    var target = document.getElementById("{{ element }}");
    if (!window.vegaEmbed) {
      target.textContent = "This chart is drawn by the book's own scripts; open it in the built book.";
      return;
    }
    window.vegaEmbed(target, spec, {renderer: "svg", patch: titled, actions: {export: true, source: false, compiled: false, editor: false}});
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); } else { draw(); }
})();
{%- endmacro %}
