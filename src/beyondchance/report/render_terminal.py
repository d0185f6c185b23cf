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

from .evaluate import MetricResult, Report, fmt_value

__all__ = ["render_report", "render_report_text", "render_comparison", "render_comparison_text", "describe_task"]

_TASK_WORDS = {
    "binary-scores": "binary classification with scores",
    "binary-labels": "binary classification with predicted labels",
    "multiclass-labels": "multi-class classification with predicted labels",
    "multiclass-probabilities": "multi-class classification with class probabilities",
    "regression": "regression",
}


def _lbl(x: Any) -> str:
    x = x.item() if hasattr(x, "item") else x
    return f"'{x}'" if isinstance(x, str) else str(x)


def describe_task(report: Report) -> str:
    """One line: task (and why), size, positive class, prevalence, threshold."""
    parts = [f"{_TASK_WORDS[report.task]} ({report.task_source}"
             + (f": {report.task_reason})" if report.task_source == "detected" else ")")]
    parts.append(f"n = {report.n:,}" + (f" (total weight {report.total_weight:,.6g})" if report.total_weight else ""))
    if report.positive_label is not None:
        parts.append(f"positive class {_lbl(report.positive_label)} ({report.positive_reason})")
    if report.prevalence is not None and math.isfinite(report.prevalence):
        parts.append(f"prevalence {100 * report.prevalence:.2f}%")
    elif report.classes is not None and report.task.startswith("multiclass"):
        parts.append(f"{len(report.classes)} classes")
    if report.threshold is not None:
        parts.append(f"threshold {report.threshold:g} ({report.threshold_reason}; "
                     f"a score ≥ {report.threshold:g} is predicted positive)")
    return "; ".join(parts) + "."


def _ci_text(m: MetricResult) -> str:
    if m.ci is None or not (math.isfinite(m.ci.low) and math.isfinite(m.ci.high)):
        return "-"
    return f"{fmt_value(m.ci.low)} – {fmt_value(m.ci.high)}"


def _ops_text(m: MetricResult) -> str:
    if m.ops is None:
        return "-"
    return f"{m.ops:.3f}" if m.ops < 0.9995 else f"{m.ops:.4f}"


def _style(m: MetricResult) -> str:
    beats = m.beats_baseline
    if beats is None:
        return "yellow"
    return "green" if beats else "red"


#: below this console width the verdicts are listed under the table instead of in it
_WIDE = 130


def _table(report: Report, *, with_verdict: bool = True):
    from rich.table import Table

    level = int(round(report.confidence_level * 100))
    table = Table(show_header=True, header_style="bold", expand=False, title=None, pad_edge=False)
    table.add_column("metric", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column(f"{level}% CI", justify="right", no_wrap=True)
    table.add_column("constant", justify="right", no_wrap=True)
    table.add_column("advantage", justify="right", no_wrap=True)
    table.add_column("OPS", justify="right", no_wrap=True)
    if with_verdict:
        table.add_column("verdict", overflow="fold", ratio=1)
    for m in report.metrics.values():
        style = _style(m)
        adv = "-" if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}"
        cells = [m.title, f"[{style}]{fmt_value(m.value)}[/{style}]", _ci_text(m), fmt_value(m.baseline), adv,
                 _ops_text(m)]
        if with_verdict:
            cells.append(f"[{style}]{m.verdict}[/{style}]")
        table.add_row(*cells)
    return table


def _print_report(console: Any, report: Report, *, title: str | None = None) -> None:
    heading = title or (f"beyondchance report — {report.name}" if report.name else "beyondchance report")
    console.print("[bold]Verdict[/bold]" + (f" ({report.name})" if report.name else ""))
    for line in report.verdict:
        console.print(f"  • {line}", highlight=False)
    console.print()
    console.print(f"[bold]{heading}[/bold]: {describe_task(report)}", highlight=False)
    wide = console.width >= _WIDE
    console.print(_table(report, with_verdict=wide))
    if not wide:
        for m in report.metrics.values():
            style = _style(m)
            console.print(f"  {m.title}: [{style}]{m.verdict}[/{style}]", highlight=False)
    console.print(
        "constant = the value of the best constant prediction (for accuracy: the majority class); "
        "advantage = (value − constant) / (perfect − constant), the prediction advantage of the metric "
        "(for accuracy exactly PA = 1 − error / error of the majority class); OPS = share of all possible "
        "classifiers at this prevalence that the value beats (Zhao et al.).",
        style="dim", highlight=False,
    )
    console.print(f"Confidence intervals: {report.ci_description}.", style="dim", highlight=False)
    for note in report.notes:
        console.print(f"note: {note}", style="yellow", highlight=False)


def _console(file: Any = None, width: int | None = None, force_terminal: bool | None = None):
    from rich.console import Console

    return Console(file=file, width=width, force_terminal=force_terminal, soft_wrap=False)


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
        table.add_column(str(r.name), justify="right", no_wrap=True)
    table.add_row("n", *[f"{r.n:,}" for r in reports])
    table.add_row("prevalence", *[
        "-" if r.prevalence is None or not math.isfinite(r.prevalence) else f"{100 * r.prevalence:.2f}%"
        for r in reports
    ], end_section=True)
    for name in comparison.metric_names:
        cells = []
        for r in reports:
            m = r.metrics.get(name)
            if m is None:
                cells.append("-")
                continue
            style = _style(m)
            adv = "-" if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}"
            lines = [f"[{style}]{fmt_value(m.value)}[/{style}]", f"adv {adv}"]
            lines.append(f"OPS {_ops_text(m)}" if m.ops is not None else "OPS -")
            flag = comparison.flag(r.name, name)
            if flag:
                lines[-1] = f"[bold magenta]{lines[-1]} {flag}[/bold magenta]"
            cells.append("\n".join(lines))
        title = comparison.reports[0].metrics[name].title if name in comparison.reports[0].metrics else name
        table.add_row(title, *cells, end_section=True)
    return table


def _print_comparison(console: Any, comparison: Any) -> None:
    console.print("[bold]Verdict[/bold]")
    for line in comparison.verdict:
        console.print(f"  • {line}", highlight=False)
    console.print()
    first = comparison.reports[0]
    console.print(f"[bold]beyondchance compare[/bold]: {len(comparison.reports)} test sets; "
                  f"{describe_task(first).split(';')[0]}; reference: {comparison.reference}.", highlight=False)
    console.print(_comparison_table(comparison))
    console.print(
        "Each cell: the nominal value, its advantage over the best constant prediction (the metric's "
        "prediction advantage) and its OPS at that test set's prevalence. ▼/▲: the OPS interval lies "
        "entirely below/above the reference's. For precision, recall, specificity and balanced accuracy "
        "the OPS does not depend on the prevalence at fixed error rates, so a flag there means the model "
        "changed; the OPS of F1, MCC, kappa and accuracy also drifts with the prevalence.",
        style="dim", highlight=False,
    )
    console.print(f"Confidence intervals: {first.ci_description}.", style="dim", highlight=False)
    for note in comparison.notes:
        console.print(f"note: {note}", style="yellow", highlight=False)


def render_comparison(comparison: Any, *, console: Any = None) -> None:
    """Print a comparison of test sets to the terminal."""
    _print_comparison(console or _console(), comparison)


def render_comparison_text(comparison: Any, *, width: int = 160) -> str:
    """The comparison as plain text."""
    buf = io.StringIO()
    _print_comparison(_console(buf, width, force_terminal=False), comparison)
    return buf.getvalue()
