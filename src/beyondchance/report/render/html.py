"""One self-contained HTML page: the verdict, the table and the plots.

No network access is needed to view it: the style sheet is inline and every plot is a
base64 PNG in an ``<img src="data:...">``.  A few lines of inline script count the
plots the browser has decoded and record it on ``<body data-plots-rendered="k/n">``
(used by the headless-browser test; the page needs no script to display).
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any, Callable

from ..._summary_display import html_text
from ..._version import __version__
from ..formatting import fmt_interval, fmt_value, shorten
from ..metric_rows import word_of
from ..per_class import MAX_SHOWN_CLASSES, confusion_rates
from .plots import compare_figure, figure_png_base64, report_figures
from .terminal import (_bound_text, _class_ci, _has_ops, _pvalue_text, chance_legend, columns_legend, describe_task,
                              verdict_word)
from .terminal_comparison import _comparison_legend, describe_comparison, has_ops, has_prevalence

__all__ = ["report_html", "comparison_html", "page", "report_section", "comparison_section"]

_CSS = """
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1180px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
.context { color: #555; }
.verdict { background: #f4f7fb; border-left: 5px solid #1f5fa8; padding: 0.6em 1em; }
.verdict li { margin: 0.3em 0; }
table { border-collapse: collapse; font-size: 0.88em; margin: 0.8em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.6em; text-align: right; vertical-align: top; }
th { background: #f0f0f0; } td.name, th.name, td.verdict-cell { text-align: left; }
td { white-space: nowrap; } td.verdict-cell { white-space: normal; }
.good { color: #1e7b45; } .bad { color: #b03a2e; } .undef { color: #9a7d0a; } .moot { color: #777; }
.neutral { color: #555; }
.flag-better { color: #1e7b45; font-weight: bold; } .flag-worse { color: #b03a2e; font-weight: bold; }
.decomposed { color: #555; font-size: 90%; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
.legend, .notes, footer { color: #666; font-size: 0.85em; }
.flag { color: #b03a2e; font-weight: bold; }
"""

_SCRIPT = """
<script>
(function () {
  function count() {
    var imgs = document.querySelectorAll('img.plot');
    var ok = 0;
    for (var i = 0; i < imgs.length; i++) {
      if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; }
    }
    document.body.setAttribute('data-plots-rendered', ok + '/' + imgs.length);
  }
  if (document.readyState === 'complete') { count(); } else { window.addEventListener('load', count); }
})();
</script>
"""


def _e(x: Any) -> str:
    return html_text(x)


#: the class of a row's verdict word (``verdict_word``): good (green) only for an advantage the
#: interval shows, bad (red) only for a shortfall it shows, neutral where it shows neither,
#: moot (grey) where a constant reaches the best value — the metric cannot show an advantage,
#: which is no fault of the classifier — and undef where the value is undefined
_WORD_CLASSES = {"better": "good", "worse": "bad", "unclear": "neutral", "equal": "neutral", "moot": "moot",
                 "too few": "moot",
                 "undefined": "undef", "n/a": "undef"}


def _cls(m: Any) -> str:
    """The row's colour class (:data:`_WORD_CLASSES`)."""
    return _WORD_CLASSES[verdict_word(m)]


def _img(fig: Any, alt: str, caption: str, key: str) -> str:
    data = figure_png_base64(fig)
    return (f'<figure id="plot-{_e(key)}"><img class="plot" alt="{_e(alt)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{_e(caption)}</figcaption></figure>')


def _metrics_table(report: Any) -> str:
    level = int(round(report.confidence_level * 100))
    ops_columns = _has_ops(report)  # no OPS columns where no row has one (regression)
    head = ("<tr><th class='name'>metric</th><th>value</th><th>" + f"{level}% CI" +
            f"</th><th>{level}% bound</th><th>p (chance)</th>"
            "<th>constant</th><th>advantage</th>" + ("<th>OPS</th><th>OPS at CI ends</th>" if ops_columns else "")
            + "<th class='name'>verdict</th></tr>")
    rows = []
    for m in report.metrics.values():
        ci = "–" if m.ci is None else fmt_interval(m.ci.low, m.ci.high)
        adv = "–" if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}"
        ops = "–" if m.ops is None else f"{m.ops:.4f}"
        ops_ci = "–" if m.ops_ci is None else fmt_interval(m.ops_ci[0], m.ops_ci[1], lambda x: f"{x:.3f}")
        rows.append(
            f"<tr data-metric='{_e(m.name)}'><td class='name'>{_e(m.title)}</td>"
            f"<td class='{_cls(m)}'>{_e(fmt_value(m.value))}</td><td>{_e(ci)}</td>"
            f"<td>{_e(_bound_text(m))}</td><td title='{_e(m.pvalue_method or '')}'>{_e(_pvalue_text(m))}</td>"
            f"<td title='{_e(m.baseline_prediction)}'>{_e(fmt_value(m.baseline))}</td><td>{_e(adv)}</td>"
            + (f"<td>{_e(ops)}</td><td>{_e(ops_ci)}</td>" if ops_columns else "")
            + f"<td class='verdict-cell {_cls(m)}'>{_e(m.verdict)}</td></tr>"
        )
    return f"<table id='metrics'>{head}{''.join(rows)}</table>"


def _per_class_html(report: Any) -> str:
    """The per-class table: for each class its support, then one row per metric with its
    value, interval, constant, advantage and OPS."""
    t = report.per_class
    level = int(round(t.confidence_level * 100))
    head = (f"<tr><th class='name'>class</th><th>support</th><th class='name'>metric</th><th>value</th>"
            f"<th>{level}% CI</th><th>constant</th><th>advantage</th><th>OPS</th></tr>")
    rows = []
    span = len(t.columns)
    for i, c in enumerate(t.classes):
        for j, col in enumerate(t.columns.values()):
            value, base, adv, ops = (float(col.value[i]), float(col.baseline[i]), float(col.advantage[i]),
                                     float(col.ops[i]))
            cls = _WORD_CLASSES[word_of(value, base, float(col.ideal[i]), _class_ci(col, i))]
            ci = "–" if col.ci_low is None or not math.isfinite(col.ci_low[i]) else (
                fmt_interval(col.ci_low[i], col.ci_high[i]))
            lead = (f"<tr data-class='{_e(shorten(c))}'><td class='name' rowspan='{span}'>{_e(shorten(c))}</td>"
                    f"<td rowspan='{span}'>{t.support[i]:,.6g}</td>") if j == 0 else "<tr>"
            rows.append(f"{lead}<td class='name'>{_e(col.title)}</td><td class='{cls}'>{_e(fmt_value(value))}</td>"
                        f"<td>{_e(ci)}</td><td title='{_e(col.baseline_prediction[i])}'>{_e(fmt_value(base))}</td>"
                        f"<td>{'–' if not math.isfinite(adv) else f'{adv:+.3f}'}</td>"
                        f"<td>{'–' if not math.isfinite(ops) else f'{ops:.3f}'}</td></tr>")
    note = (f"Each class against the rest; constant = the better of always and never predicting the class "
            f"(a constant score for the AUCs); OPS at the class's prevalence. Intervals: "
            f"{t.ci_method or 'not computed'}.")
    return (f"<h3>Per class</h3><table id='per-class'>{head}{''.join(rows)}</table>"
            f"<p class='legend'>{_e(note)}</p>")


def _confusion_html(report: Any) -> str:
    """The confusion matrix: counts and row shares, each cell shaded by its share; of more than
    ``MAX_SHOWN_CLASSES`` classes (k² cells) a note pointing to the JSON instead."""
    cm = report.confusion
    if cm.n_classes > MAX_SHOWN_CLASSES:
        return (f"<h3>Confusion matrix</h3><p class='legend'>The confusion matrix of {cm.n_classes:,} classes "
                f"({cm.n_classes ** 2:,} cells) is not shown (at most {MAX_SHOWN_CLASSES} classes); the JSON report "
                "(--format json) gives its non-empty cells, and the per-class table above every class.</p>")
    rates = confusion_rates(cm)
    labels = cm.labels.tolist()
    head = ("<tr><th class='name'>true \\ predicted</th>"
            + "".join(f"<th>{_e(shorten(c))}</th>" for c in labels) + "</tr>")
    rows = []
    for i, c in enumerate(labels):
        cells = []
        for j in range(len(labels)):
            r = rates[i, j]
            shade = f" style='background: rgba(31, 95, 168, {0.6 * r:.3f})'" if math.isfinite(r) else ""
            rate = "–" if not math.isfinite(r) else f"{100 * r:.1f}%"
            cells.append(f"<td{shade}>{cm.matrix[i, j]:,.6g}<br><small>{rate}</small></td>")
        rows.append(f"<tr><th class='name'>{_e(shorten(c))}</th>{''.join(cells)}</tr>")
    return ("<h3>Confusion matrix</h3><table id='confusion'>" + head + "".join(rows) + "</table>"
            "<p class='legend'>Rows: the true class; columns: the predicted class; each cell its count "
            "(weight) and its share of the row.</p>")


def report_section(report: Any, *, heading: str | None = None, level: int = 2,
                   progress: Callable[[str], None] | None = None, plots: bool = True) -> str:
    """The verdict, the table and (``plots``) the plots of one report, as an HTML fragment."""
    step = progress or (lambda message: None)
    h = f"h{level}"
    parts = []
    if heading:
        parts.append(f"<{h}>{_e(heading)}</{h}>")
    parts.append("<div class='verdict' id='verdict'><strong>Verdict</strong><ul>"
                 + "".join(f"<li>{_e(line)}</li>" for line in report.verdict) + "</ul></div>")
    parts.append(f"<p class='context'>{_e(describe_task(report))}</p>")
    parts.append(_metrics_table(report))
    parts.append(f"<p class='legend'>{_e(columns_legend(report, constant='constant'))}. Confidence intervals: "
                 f"{_e(report.ci_description)}.</p>")
    if report.per_class is not None:
        parts.append(_per_class_html(report))
    if report.confusion is not None:
        parts.append(_confusion_html(report))
    if any(m.pvalue is not None for m in report.metrics.values()):
        parts.append(f"<p class='legend'>{_e(chance_legend(report))}</p>")
    if plots:
        step("drawing the plots")
        figs = report_figures(report)
        parts.append("<div class='plots'>" + "".join(
            _img(fig, key.replace("_", " "), caption, key) for key, caption, fig in figs) + "</div>")
    if report.notes:
        parts.append("<div class='notes'><strong>Notes</strong><ul>"
                     + "".join(f"<li>{_e(n)}</li>" for n in report.notes) + "</ul></div>")
    return "\n".join(parts)


def _comparison_table(comparison: Any) -> str:
    reports = comparison.reports
    head = "<tr><th class='name'>metric</th>" + "".join(
        f"<th>{_e(shorten(r.name))}{' (ref)' if r.name == comparison.reference else ''}</th>" for r in reports) + "</tr>"
    rows = ["<tr><td class='name'>n</td>" + "".join(f"<td>{r.n:,}</td>" for r in reports) + "</tr>"]
    if has_prevalence(comparison):
        rows.append("<tr><td class='name'>prevalence</td>" + "".join(
            "<td>–</td>" if r.prevalence is None else f"<td>{100 * r.prevalence:.2f}%</td>" for r in reports) + "</tr>")
    ops_line = has_ops(comparison)
    for name in comparison.metric_names:
        cells = []
        for r in reports:
            cell = comparison.cell(r, name)
            if cell is None:
                cells.append("<td>–</td>")
                continue
            m, adv, ops, flag = cell
            kind = "flag-better" if flag == "▲" else "flag-worse"
            flag_html = f" <span class='flag {kind}'>{_e(flag)}</span>" if flag else ""
            decomposed = "".join(f"<br><span class='decomposed'>{_e(line)}</span>"
                                 for line in comparison.decomposition_lines(r.name, name))
            cells.append(f"<td><span class='{_cls(m)}'>{_e(fmt_value(m.value))}</span><br>"
                         f"adv {_e(adv)}{f'<br>OPS {_e(ops)}' if ops_line else ''}{flag_html}{decomposed}</td>")
        title = reports[0].metrics[name].title if name in reports[0].metrics else name
        rows.append(f"<tr data-metric='{_e(name)}'><td class='name'>{_e(title)}</td>{''.join(cells)}</tr>")
    return f"<table id='comparison'>{head}{''.join(rows)}</table>"


def _label_free_html(comparison: Any) -> str:
    """Windows without labels: estimated prevalence, projected metrics, the assumption test."""
    ests = comparison.label_free
    head = "<tr><th class='name'>metric</th>" + "".join(f"<th>{_e(shorten(n))}</th>" for n, _ in ests) + "</tr>"
    rows = ["<tr><td class='name'>n</td>" + "".join(f"<td>{e.n_window:,}</td>" for _, e in ests) + "</tr>"]
    rows.append("<tr><td class='name'>prevalence (est.)</td>" + "".join(
        f"<td>{100 * e.prevalence:.1f}%" + ("" if e.prevalence_ci is None else
                                           f"<br><span class='decomposed'>"
                                           f"{fmt_interval(e.prevalence_ci.low, e.prevalence_ci.high, lambda x: f'{100 * x:.1f}%')}</span>") + "</td>" for _, e in ests)
        + "</tr>")
    # a test can reject the assumption, never show that it holds: the row says which
    # the p-values are Monte Carlo: their number of draws is said (the windows share it)
    rows.append(f"<tr><td class='name'>label shift rejected?<br><span class='decomposed'>(p from "
                f"{ests[0][1].n_resamples} draws)</span></td>" + "".join(
        f"<td>no, p = {e.assumption_pvalue:.2g}</td>" if e.assumption_holds
        else f"<td class='flag-worse'>yes, p = {e.assumption_pvalue:.2g}</td>" for _, e in ests) + "</tr>")
    for metric in ests[0][1].metrics:
        cells = []
        for _, e in ests:
            m = e.metrics[metric]
            band = f"<br><span class='decomposed'>{_e(fmt_interval(*m.ci))}</span>" if m.ci else ""
            cells.append(f"<td>{_e(fmt_value(m.value))}{band}</td>")
        first = comparison.reports[0].metrics
        title = first[metric].title if metric in first else metric
        rows.append(f"<tr data-metric='{_e(metric)}'><td class='name'>{_e(title)}</td>{''.join(cells)}</tr>")
    return ("<h3>Windows without labels</h3><p class='legend'>Label shift assumed: the prevalence estimated from the "
            "scores, every metric the reference classifier's at that prevalence; where the test of the assumption "
            "rejects, the scores changed otherwise and the estimates are not to be trusted.</p>"
            f"<table id='label-free'>{head}{''.join(rows)}</table>")


def comparison_section(comparison: Any, *, heading: str | None = None, level: int = 2, plots: bool = True) -> str:
    """Verdict, side-by-side table and (``plots``) plot of a comparison, as an HTML fragment."""
    h = f"h{level}"
    parts = []
    if heading:
        parts.append(f"<{h}>{_e(heading)}</{h}>")
    parts.append("<div class='verdict' id='verdict'><strong>Verdict</strong><ul>"
                 + "".join(f"<li>{_e(line)}</li>" for line in comparison.verdict) + "</ul></div>")
    parts.append(f"<p class='context'>{_e(describe_comparison(comparison))}</p>")
    parts.append(_comparison_table(comparison))
    parts.append(f"<p class='legend'>{_e(_comparison_legend(comparison))} Reference: "
                 f"{_e(shorten(comparison.reference))}.</p>")
    if comparison.label_free:
        parts.append(_label_free_html(comparison))
    if plots:
        parts.append(_img(compare_figure(comparison), "comparison plot",
                          "Prevalence, nominal values and OPS (with its interval at the CI ends) across the test sets."
                          if has_prevalence(comparison)
                          else "Nominal values across the test sets.",
                          "compare"))
    if comparison.notes:
        parts.append("<div class='notes'><strong>Notes</strong><ul>"
                     + "".join(f"<li>{_e(n)}</li>" for n in comparison.notes) + "</ul></div>")
    return "\n".join(parts)


#: the papers a page cites (its footer), by key
_REFERENCES = {"pa": "Prediction Advantage (El-Yaniv, Geifman &amp; Wiener)",
               "pure": "Pure Accuracy (Wang, Qian &amp; Li)",
               "ops": "Outperformance Score (Zhao, Bui, Yu &amp; Dzieciolowski)"}


def page(title: str, body: str, *, subtitle: str | None = None, references: tuple[str, ...] = tuple(_REFERENCES)) -> str:
    """Wrap HTML fragments into one self-contained page; ``references``: the keys of the
    papers its footer cites (default: all three)."""
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    sub = f"<p class='context'>{_e(subtitle)}</p>" if subtitle else ""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        f"<header><h1>{_e(title)}</h1>{sub}</header>\n{body}\n"
        f"<footer><p>Generated by beyondchance {_e(__version__)} on {_e(stamp)}. "
        + ", ".join(_REFERENCES[key] for key in references) + ".</p></footer>\n"
        f"{_SCRIPT}</body></html>\n"
    )


def report_html(report: Any, *, title: str | None = None, progress: Callable[[str], None] | None = None,
                plots: bool = True) -> str:
    """A complete page for one report."""
    title = title or (f"beyondchance report — {shorten(report.name)}" if report.name else "beyondchance report")
    # a regression report cites only the paper it uses: no classifier measure is on it
    references = ("pa",) if report.task == "regression" else tuple(_REFERENCES)
    return page(title, report_section(report, progress=progress, plots=plots), references=references)


def comparison_html(comparison: Any, *, title: str | None = None, plots: bool = True) -> str:
    """A complete page for a comparison of test sets."""
    n = len(comparison.reports) + len(comparison.label_free)
    title = title or f"beyondchance compare — {n} test set{'s' if n != 1 else ''}"
    references = ("pa",) if comparison.reports[0].task == "regression" else tuple(_REFERENCES)
    return page(title, comparison_section(comparison, plots=plots), references=references)
