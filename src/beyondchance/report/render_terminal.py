"""Terminal rendering with rich: the verdict first, then one table.

>>> from beyondchance.report import evaluate
>>> r = evaluate([0, 0, 0, 1, 1, 0, 0, 1], [0, 0, 1, 1, 0, 0, 0, 1], ci=False)
>>> text = render_report_text(r, width=120)
>>> text.splitlines()[0].startswith("Verdict")
True
"""

from __future__ import annotations

import io
import math
from typing import Any

from .compare_tasks import AUC_TEST
from .formatting import _fmt_label, fmt_value, shorten
from .metric_rows import MetricResult
from .per_class import confusion_rates

__all__ = ["render_report", "render_report_text", "render_comparison", "render_comparison_text", "describe_task",
           "describe_comparison"]

_TASK_WORDS = {
    "binary-scores": "binary classification with scores",
    "binary-labels": "binary classification with predicted labels",
    "multiclass-labels": "multi-class classification with predicted labels",
    "multiclass-probabilities": "multi-class classification with class probabilities",
    "regression": "regression",
}


def _task_text(report: Any) -> str:
    return (f"{_TASK_WORDS[report.task]} ({report.task_source}"
            + (f": {report.task_reason})" if report.task_source == "detected" else ")"))


def _threshold_text(report: Any) -> str:
    return (f"threshold {report.threshold:g} ({report.threshold_reason}; "
            f"a score ≥ {report.threshold:g} is predicted positive)")


def describe_task(report: Any) -> str:
    """One line: task (and why), size, positive class, prevalence, threshold."""
    parts = [_task_text(report)]
    parts.append(f"n = {report.n:,}" + (f" (total weight {report.total_weight:,.6g})" if report.total_weight else ""))
    if report.positive_label is not None:
        parts.append(f"positive class {_fmt_label(report.positive_label)} ({report.positive_reason})")
    if report.prevalence is not None and math.isfinite(report.prevalence):
        parts.append(f"prevalence {100 * report.prevalence:.2f}%")
    elif report.classes is not None and report.task.startswith("multiclass"):
        parts.append(f"{len(report.classes)} classes")
    if report.threshold is not None:
        parts.append(_threshold_text(report))
    elif report.threshold_reason:  # labels given with the scores
        parts.append(report.threshold_reason)
    return "; ".join(parts) + "."


def describe_comparison(comparison: Any) -> str:
    """One line: how many test sets, the task (and why), the threshold, the reference."""
    first = comparison.reports[0]
    n, windows = len(comparison.reports), len(comparison.label_free)
    sets = f"{n} test set{'s' if n != 1 else ''}" + (f" with labels, {windows} without" if windows else "")
    parts = [sets, _task_text(first)]
    if first.threshold is not None:
        parts.append(_threshold_text(first))
    parts.append(f"reference: {shorten(comparison.reference)}")
    return "; ".join(parts) + "."


def _ci_text(m: MetricResult) -> str:
    if m.ci is None or not (math.isfinite(m.ci.low) and math.isfinite(m.ci.high)):
        return "-"
    return f"{fmt_value(m.ci.low)} – {fmt_value(m.ci.high)}"


def _bound_text(m: MetricResult) -> str:
    """The one-sided confidence bound on the side of "better" (≥ for higher-is-better)."""
    b = m.confidence_bound
    if b is None or not math.isfinite(b):
        return "-"
    return f"{'≥' if m.greater_is_better else '≤'} {fmt_value(b)}"


def _pvalue_text(m: MetricResult) -> str:
    """The p-value against chance: 3 decimals, scientific notation below 0.001."""
    if m.pvalue is None:
        return "-"
    return f"{m.pvalue:.3f}" if m.pvalue >= 0.001 else f"{m.pvalue:.1e}"


def _ops_text(m: MetricResult) -> str:
    if m.ops is None:
        return "-"
    return f"{m.ops:.3f}" if m.ops < 0.9995 else f"{m.ops:.4f}"


def _style(m: MetricResult) -> str:
    beats = m.beats_baseline
    if beats is None:
        return "yellow"
    return "green" if beats else "red"


def _text(x: Any) -> str:
    """Text from the data (labels, names, verdicts quoting them) as literal rich markup, its
    control characters as visible escapes (line breaks and tabs kept: labels come shortened,
    which escapes those too)."""
    from rich.markup import escape

    from .._summary_display import printable

    return escape(printable(x, layout=True))


def _styled(style: str, text: str) -> str:
    return f"[{style}]{_text(text)}[/{style}]"


#: below this console width the verdicts are listed under the table instead of in it
_WIDE = 130


def _table(report: Any, *, with_verdict: bool = True):
    from rich.table import Table

    level = int(round(report.confidence_level * 100))
    table = Table(show_header=True, header_style="bold", expand=False, title=None, pad_edge=False)
    # names wrap on a narrow terminal; numbers (and headers) are never cut: "fold", not "…"
    table.add_column("metric", overflow="fold")
    # the bound and p (chance) columns on a wide terminal; a narrow one lists them with the verdicts
    chance = ((f"{level}% bound", "p (chance)") if with_verdict else ())
    for header in ("value", f"{level}% CI", *chance, "constant", "advantage", "OPS"):
        table.add_column(header, justify="right", no_wrap=True, overflow="fold")
    if with_verdict:
        table.add_column("verdict", overflow="fold", ratio=1)
    for m in report.metrics.values():
        style = _style(m)
        adv = "-" if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}"
        cells = [_text(m.title), _styled(style, fmt_value(m.value)), _ci_text(m),
                 *((_bound_text(m), _pvalue_text(m)) if with_verdict else ()), fmt_value(m.baseline), adv, _ops_text(m)]
        if with_verdict:
            cells.append(_styled(style, m.verdict))
        table.add_row(*cells)
    return table


def _verdict_list(report: Any):
    """The metrics' verdicts under the table (narrow terminals): wrapped lines stay indented."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 1), pad_edge=True)
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    level = int(round(report.confidence_level * 100))
    for m in report.metrics.values():
        chance = ""
        if m.pvalue is not None or m.confidence_bound is not None:
            chance = f"[{level}% bound {_bound_text(m)}, p (chance) {_pvalue_text(m)}] "
        grid.add_row(_text(f"{m.title}:"), _text(chance) + _styled(_style(m), m.verdict))
    return grid


# --- the per-class view: the per-class table and the confusion matrix --------------------

#: the terminal shows the confusion matrix of at most this many classes (JSON and HTML: all)
MAX_MATRIX_CLASSES = 10


def _count(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.4g}"


def _per_class_table(report: Any):
    """One row per (class, metric): value, interval, constant, advantage, OPS."""
    from rich.table import Table

    t = report.per_class
    level = int(round(t.confidence_level * 100))
    table = Table(show_header=True, header_style="bold", pad_edge=False)
    table.add_column("class", overflow="fold", max_width=24)
    table.add_column("support", justify="right", no_wrap=True)
    table.add_column("metric", no_wrap=True)
    for header in ("value", f"{level}% CI", "constant", "advantage", "OPS"):
        table.add_column(header, justify="right", no_wrap=True)
    for i, c in enumerate(t.classes):
        for j, col in enumerate(t.columns.values()):
            value, base, adv = float(col.value[i]), float(col.baseline[i]), float(col.advantage[i])
            ok = math.isfinite(value) and math.isfinite(base)
            style = "yellow" if not ok else ("green" if value > base else "red")
            ci = "-" if col.ci_low is None or not math.isfinite(col.ci_low[i]) else (
                f"{fmt_value(col.ci_low[i])} – {fmt_value(col.ci_high[i])}")
            table.add_row(
                _text(_fmt_label(c)) if j == 0 else "", _count(t.support[i]) if j == 0 else "", col.title,
                _styled(style, fmt_value(value)), ci, fmt_value(base),
                "-" if not math.isfinite(adv) else f"{adv:+.3f}",
                "-" if not math.isfinite(col.ops[i]) else f"{col.ops[i]:.3f}",
                end_section=j == len(t.columns) - 1,
            )
    return table


def _confusion_table(report: Any):
    """Rows: true class, columns: predicted class; each cell its count and its share of the row."""
    from rich.table import Table

    cm = report.confusion
    rates = confusion_rates(cm)
    table = Table(show_header=True, header_style="bold", pad_edge=False)
    table.add_column("true \\ predicted", overflow="fold", max_width=20)
    for c in cm.labels.tolist():
        table.add_column(_text(shorten(_fmt_label(c), 12)), justify="right", overflow="fold")
    for i, c in enumerate(cm.labels.tolist()):
        cells = []
        for j in range(cm.n_classes):
            rate = "-" if not math.isfinite(rates[i, j]) else f"{100 * rates[i, j]:.1f}%"
            text = f"{_count(cm.matrix[i, j])}\n{rate}"
            cells.append(f"[bold]{text}[/bold]" if i == j else text)
        table.add_row(_text(_fmt_label(c)), *cells, end_section=True)
    return table


def _print_per_class(console: Any, report: Any) -> None:
    t = report.per_class
    if t is not None:
        console.print("[bold]Per class[/bold] (each class against the rest; constant = the better of always "
                      "and never predicting the class)", highlight=False)
        console.print(_per_class_table(report))
        console.print(f"Per-class intervals: {_text(t.ci_method or 'not computed')}; OPS at each class's "
                      "prevalence.", style="dim", highlight=False)
    if report.confusion is not None:
        if report.confusion.n_classes <= MAX_MATRIX_CLASSES:
            console.print("[bold]Confusion matrix[/bold] (rows: true class, columns: predicted class; "
                          "the count and its share of the row)", highlight=False)
            console.print(_confusion_table(report))
        else:
            console.print(f"note: the confusion matrix of {report.confusion.n_classes} classes is in the JSON and "
                          "HTML reports", style="yellow", highlight=False)


def _print_report(console: Any, report: Any, *, title: str | None = None) -> None:
    name = shorten(report.name) if report.name else None
    heading = title or (f"beyondchance report — {name}" if name else "beyondchance report")
    console.print("[bold]Verdict[/bold]" + (f" ({_text(name)})" if name else ""))
    for line in report.verdict:
        console.print(f"  • {_text(line)}", highlight=False)
    console.print()
    console.print(f"[bold]{_text(heading)}[/bold]: {_text(describe_task(report))}", highlight=False)
    wide = console.width >= _WIDE
    console.print(_table(report, with_verdict=wide))
    if not wide:
        console.print(_verdict_list(report), highlight=False)
    _print_per_class(console, report)
    console.print(
        "constant = the value of the best constant prediction (for accuracy: the majority class); "
        "advantage = (value − constant) / (perfect − constant), the prediction advantage of the metric "
        "(for accuracy exactly PA = 1 − error / error of the majority class); OPS = share of all possible "
        "classifiers at this prevalence that the value beats (Zhao et al.).",
        style="dim", highlight=False,
    )
    console.print(f"Confidence intervals: {_text(report.ci_description)}.", style="dim", highlight=False)
    if any(m.pvalue is not None for m in report.metrics.values()):
        console.print(_CHANCE_LEGEND, style="dim", highlight=False)
    for note in report.notes:
        console.print(f"note: {_text(note)}", style="yellow", highlight=False)


#: what the bound and p (chance) columns mean (terminal and HTML)
_CHANCE_LEGEND = ("bound = one-sided confidence bound on the side of better (≥ when higher is better); "
                  "p (chance) = one-sided p-value of no better than chance: for accuracy and the prediction "
                  "advantage McNemar's exact test against always predicting the majority class (= no better than the "
                  "constant), the exact tests' mid-p-value (P(better) + P(equal) / 2), "
                  "for the others the permutation test (labels shuffled against the predictions, from the counts: "
                  "exact for labeling metrics, Monte Carlo for the AUCs and losses; weighted rows, class "
                  "probabilities and regression: Monte Carlo permutations of the rows, MSE and R² asymptotic from "
                  "the moments).")


def _console(file: Any = None, width: int | None = None, force_terminal: bool | None = None):
    """A rich console whose closed pipe raises :class:`BrokenPipeError` (the command line
    then stops quietly) instead of rich's own ``SystemExit(1)``."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    # force_jupyter=False: in a notebook rich would display the rendering itself and write
    # nothing to ``file`` (str(report) would be empty)
    return _Console(file=file, width=width, force_terminal=force_terminal, soft_wrap=False, emoji=False,
                    force_jupyter=False if file is not None else None)


def render_report(report: Any, *, console: Any = None) -> None:
    """Print the report to the terminal (stdout by default)."""
    _print_report(console or _console(), report)


def render_report_text(report: Any, *, width: int = 100) -> str:
    """The terminal rendering as plain text (no colours)."""
    buf = io.StringIO()
    _print_report(_console(buf, width, force_terminal=False), report)
    return buf.getvalue()


# --- comparisons ---------------------------------------------------------------------------


def _comparison_cells(comparison: Any, report: Any) -> list[str]:
    """The cells of one test set's column: n, prevalence, then one cell per metric."""
    prevalence = report.prevalence
    cells = [f"{report.n:,}",
             "-" if prevalence is None or not math.isfinite(prevalence) else f"{100 * prevalence:.2f}%"]
    for name in comparison.metric_names:
        cell = comparison.cell(report, name, missing="-")
        if cell is None:
            cells.append("-")
            continue
        m, adv, _, flag = cell
        lines = [_styled(_style(m), fmt_value(m.value)), f"adv {adv}"]
        lines.append(f"OPS {_ops_text(m)}" if m.ops is not None else "OPS -")
        lines += [_text(line) for line in comparison.decomposition_lines(report.name, name)]
        if flag:
            style = "bold green" if flag == "▲" else "bold red"
            lines[-1] = f"[{style}]{lines[-1]} {flag}[/{style}]"
        cells.append("\n".join(lines))
    return cells


def _cell_width(markup: str) -> int:
    """Width in terminal cells of the widest line of a rich-markup cell."""
    from rich.text import Text

    return max(Text.from_markup(line).cell_len for line in markup.split("\n"))


def _comparison_tables(comparison: Any, width: int) -> list:
    """The comparison as tables of at most ``width`` terminal cells.

    One column per test set; when the sets do not fit side by side they are split over
    several tables, each repeating the metric names and the reference's column, so that
    no value is ever cut to fit.
    """
    from rich.table import Table

    titles = ["n", "prevalence"] + [
        _text(comparison.reports[0].metrics[name].title if name in comparison.reports[0].metrics else name)
        for name in comparison.metric_names]
    columns = []
    for r in comparison.reports:
        header = _text(shorten(r.name)) + (" (ref)" if r.name == comparison.reference else "")
        cells = _comparison_cells(comparison, r)
        columns.append((header, cells, max(_cell_width(c) for c in [header, *cells]) + 3))  # padding and rule
    ref = next((i for i, r in enumerate(comparison.reports) if r.name == comparison.reference), None)
    fixed = max(_cell_width(t) for t in ["metric", *titles]) + 2
    if ref is not None:
        fixed += columns[ref][2]
    chunks: list[list[int]] = []
    for i in range(len(columns)):
        if i == ref:
            continue
        if chunks and fixed + sum(columns[j][2] for j in chunks[-1]) + columns[i][2] <= width:
            chunks[-1].append(i)
        else:
            chunks.append([i])
    tables = []
    for chunk in chunks or [[]]:
        shown = sorted(chunk + ([] if ref is None else [ref]))
        table = Table(show_header=True, header_style="bold", pad_edge=False)
        table.add_column("metric", no_wrap=True)
        for i in shown:
            table.add_column(columns[i][0], justify="right", no_wrap=True)
        for row, title in enumerate(titles):
            table.add_row(title, *[columns[i][1][row] for i in shown], end_section=row >= 1)
        tables.append(table)
    return tables


def _label_free_table(comparison: Any):
    """Windows without labels: estimated prevalence and projected metrics (label shift)."""
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", pad_edge=False,
                  title="Windows without labels (label shift assumed; the reference classifier at the estimated "
                        "prevalence)")
    table.add_column("metric", no_wrap=True)
    for name, _ in comparison.label_free:
        table.add_column(_text(shorten(name)), justify="right", no_wrap=True)
    ests = [e for _, e in comparison.label_free]

    def ci(lo: float, hi: float, pct: bool = False) -> str:
        return f"{100 * lo:.1f}%–{100 * hi:.1f}%" if pct else f"{fmt_value(lo)}–{fmt_value(hi)}"

    table.add_row("n", *[f"{e.n_window:,}" for e in ests])
    table.add_row("prevalence (est.)", *[
        f"{100 * e.prevalence:.1f}%" + (f"\n{ci(*e.prevalence_ci, pct=True)}" if e.prevalence_ci else "") for e in ests])
    table.add_row("label shift holds?", *[
        f"p = {e.assumption_pvalue:.2g}" if e.assumption_holds else f"[bold red]no, p = {e.assumption_pvalue:.2g}[/bold red]"
        for e in ests], end_section=True)
    for metric in ests[0].metrics:
        cells = []
        for e in ests:
            m = e.metrics[metric]
            cells.append(fmt_value(m.value) + (f"\n{ci(*m.ci)}" if m.ci else ""))
        title = comparison.reports[0].metrics[metric].title if metric in comparison.reports[0].metrics else metric
        table.add_row(_text(title), *cells)
    return table


def _print_comparison(console: Any, comparison: Any) -> None:
    console.print("[bold]Verdict[/bold]")
    for line in comparison.verdict:
        console.print(f"  • {_text(line)}", highlight=False)
    console.print()
    console.print(f"[bold]beyondchance compare[/bold]: {_text(describe_comparison(comparison))}", highlight=False)
    for table in _comparison_tables(comparison, console.width):
        console.print(table)
    console.print(
        _comparison_legend(comparison),
        style="dim", highlight=False,
    )
    if comparison.label_free:
        console.print(_label_free_table(comparison))
    console.print(f"Confidence intervals: {_text(comparison.reports[0].ci_description)}.", style="dim",
                  highlight=False)
    for note in comparison.notes:
        console.print(f"note: {_text(note)}", style="yellow", highlight=False)


def _comparison_legend(comparison: Any) -> str:
    """What a cell of the comparison says (shared by the terminal and HTML)."""
    task = comparison.reports[0].task
    if comparison.classifier_changes and task == "regression":
        return ("Each cell: the value, its advantage over the best constant prediction and its OPS; Δ: the difference "
                "from the reference with its interval. ▼/▲: this measure's difference is significant after Holm's "
                "correction over the measures and the test sets, worse/better.")
    if comparison.classifier_changes and task.startswith("multiclass"):
        return ("Each cell: the nominal value, its advantage over the best constant prediction and its OPS; exp: what "
                "the reference classifier (its confusion rates P(predicted | true class)"
                + ("; for the one-vs-rest ROC AUCs and the losses, its class-conditional distributions of the "
                   "probabilities" if task == "multiclass-probabilities" else "")
                + ") would score at that test "
                "set's class distribution, with its interval; clf: the classifier effect, observed − exp (the rest "
                "of the change is the prevalence effect, exp − reference). ▼/▲: the classifier changed on that set "
                "(Holm-corrected tests of each true class's predicted-class distribution"
                + (" and of the one-vs-rest ROC AUCs' classifier effects"
                   if any(t.quantity.startswith(AUC_TEST) for c in comparison.classifier_changes for t in c.tests)
                   else "")
                + ") and this metric's classifier effect interval lies below/above 0.")
    if comparison.classifier_changes:
        return ("Each cell: the nominal value, its advantage over the best constant prediction and its OPS at that "
                "test set's prevalence; exp: what the reference classifier (its error rates, or its ROC curve) "
                "would score at that prevalence, with its interval; clf: the classifier effect, observed − exp "
                "(the rest of the change is the prevalence effect, exp − reference). ▼/▲: the classifier changed "
                "on that set (Holm-corrected tests of its error rates and ROC AUC) and this metric's classifier "
                "effect interval lies below/above 0.")
    return ("Each cell: the nominal value, its advantage over the best constant prediction (the metric's "
            "prediction advantage) and its OPS at that test set's prevalence. ▼/▲: the OPS interval lies "
            "entirely below/above the reference's.")


def render_comparison(comparison: Any, *, console: Any = None) -> None:
    """Print a comparison of test sets to the terminal."""
    _print_comparison(console or _console(), comparison)


def render_comparison_text(comparison: Any, *, width: int = 160) -> str:
    """The comparison as plain text."""
    buf = io.StringIO()
    _print_comparison(_console(buf, width, force_terminal=False), comparison)
    return buf.getvalue()
