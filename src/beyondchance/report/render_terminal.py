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

from ._results import MetricResult, Report, _fmt_label, fmt_value, shorten

__all__ = ["render_report", "render_report_text", "render_comparison", "render_comparison_text", "describe_task",
           "describe_comparison"]

_TASK_WORDS = {
    "binary-scores": "binary classification with scores",
    "binary-labels": "binary classification with predicted labels",
    "multiclass-labels": "multi-class classification with predicted labels",
    "multiclass-probabilities": "multi-class classification with class probabilities",
    "regression": "regression",
}


def _task_text(report: Report) -> str:
    return (f"{_TASK_WORDS[report.task]} ({report.task_source}"
            + (f": {report.task_reason})" if report.task_source == "detected" else ")"))


def _threshold_text(report: Report) -> str:
    return (f"threshold {report.threshold:g} ({report.threshold_reason}; "
            f"a score ≥ {report.threshold:g} is predicted positive)")


def describe_task(report: Report) -> str:
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
    return "; ".join(parts) + "."


def describe_comparison(comparison: Any) -> str:
    """One line: how many test sets, the task (and why), the threshold, the reference."""
    first = comparison.reports[0]
    parts = [f"{len(comparison.reports)} test sets", _task_text(first)]
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
    """Text from the data (labels, names, verdicts quoting them) as literal rich markup."""
    from rich.markup import escape

    return escape(str(x))


def _styled(style: str, text: str) -> str:
    return f"[{style}]{_text(text)}[/{style}]"


#: below this console width the verdicts are listed under the table instead of in it
_WIDE = 130


def _table(report: Report, *, with_verdict: bool = True):
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


def _verdict_list(report: Report):
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


def _print_report(console: Any, report: Report, *, title: str | None = None) -> None:
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
                  "constant), "
                  "for the others the permutation test (labels shuffled against the predictions, from the counts: "
                  "exact for labeling metrics, Monte Carlo for the AUCs and losses).")


def _console(file: Any = None, width: int | None = None, force_terminal: bool | None = None):
    """A rich console whose closed pipe raises :class:`BrokenPipeError` (the command line
    then stops quietly) instead of rich's own ``SystemExit(1)``."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _Console(file=file, width=width, force_terminal=force_terminal, soft_wrap=False)


def render_report(report: Report, *, console: Any = None) -> None:
    """Print the report to the terminal (stdout by default)."""
    _print_report(console or _console(), report)


def render_report_text(report: Report, *, width: int = 100) -> str:
    """The terminal rendering as plain text (no colours)."""
    buf = io.StringIO()
    _print_report(_console(buf, width, force_terminal=False), report)
    return buf.getvalue()


# --- comparisons ---------------------------------------------------------------------------


def _comparison_table(comparison: Any):
    from rich.table import Table

    reports = comparison.reports
    table = Table(show_header=True, header_style="bold", pad_edge=False)
    table.add_column("metric", no_wrap=True)
    for r in reports:
        table.add_column(_text(shorten(r.name)), justify="right", no_wrap=True)
    table.add_row("n", *[f"{r.n:,}" for r in reports])
    table.add_row("prevalence", *[
        "-" if r.prevalence is None or not math.isfinite(r.prevalence) else f"{100 * r.prevalence:.2f}%"
        for r in reports
    ], end_section=True)
    for name in comparison.metric_names:
        cells = []
        for r in reports:
            cell = comparison.cell(r, name, missing="-")
            if cell is None:
                cells.append("-")
                continue
            m, adv, _, flag = cell
            lines = [_styled(_style(m), fmt_value(m.value)), f"adv {adv}"]
            lines.append(f"OPS {_ops_text(m)}" if m.ops is not None else "OPS -")
            if flag:
                lines[-1] = f"[bold magenta]{lines[-1]} {flag}[/bold magenta]"
            cells.append("\n".join(lines))
        title = comparison.reports[0].metrics[name].title if name in comparison.reports[0].metrics else name
        table.add_row(_text(title), *cells, end_section=True)
    return table


def _print_comparison(console: Any, comparison: Any) -> None:
    console.print("[bold]Verdict[/bold]")
    for line in comparison.verdict:
        console.print(f"  • {_text(line)}", highlight=False)
    console.print()
    console.print(f"[bold]beyondchance compare[/bold]: {_text(describe_comparison(comparison))}", highlight=False)
    console.print(_comparison_table(comparison))
    console.print(
        "Each cell: the nominal value, its advantage over the best constant prediction (the metric's "
        "prediction advantage) and its OPS at that test set's prevalence. ▼/▲: the OPS interval lies "
        "entirely below/above the reference's. For precision, recall, specificity and balanced accuracy "
        "the OPS does not depend on the prevalence at fixed error rates, so a flag there means the model "
        "changed; the OPS of F1, MCC, kappa and accuracy also drifts with the prevalence.",
        style="dim", highlight=False,
    )
    console.print(f"Confidence intervals: {_text(comparison.reports[0].ci_description)}.", style="dim",
                  highlight=False)
    for note in comparison.notes:
        console.print(f"note: {_text(note)}", style="yellow", highlight=False)


def render_comparison(comparison: Any, *, console: Any = None) -> None:
    """Print a comparison of test sets to the terminal."""
    _print_comparison(console or _console(), comparison)


def render_comparison_text(comparison: Any, *, width: int = 160) -> str:
    """The comparison as plain text."""
    buf = io.StringIO()
    _print_comparison(_console(buf, width, force_terminal=False), comparison)
    return buf.getvalue()
