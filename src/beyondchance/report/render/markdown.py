"""Markdown renderings of a report and of a comparison (notebooks, issues, pull requests).

The same content as the terminal table: the verdict, then one row per metric with its
value, interval, best constant prediction, advantage, OPS and verdict.
"""

from __future__ import annotations

import math
from typing import Any

from ..._summary_display import markdown_text
from ..formatting import fmt_interval, fmt_value, shorten
from ..per_class import MAX_SHOWN_CLASSES, confusion_rates
from .terminal import _bound_text, _has_ops, _pvalue_text, chance_legend, columns_legend, describe_task
from .terminal_comparison import describe_comparison, has_ops, has_prevalence

__all__ = ["report_markdown", "comparison_markdown"]


def _cell(x: Any) -> str:
    """Text for a table cell or a list item: line breaks as spaces, control characters as
    escapes, Markdown and HTML markup (``< > & | ` * _ [ ] ~ $`` and backslash) escaped, so
    that a label such as ``<img src=x onerror=...>`` shows as text in a notebook."""
    return markdown_text(x)


def _table(head: list[str], rows: list[list[str]], align: list[str]) -> str:
    lines = ["| " + " | ".join(map(_cell, head)) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(map(_cell, row)) + " |" for row in rows]
    return "\n".join(lines)


def report_markdown(report: Any) -> str:
    """The report as Markdown.

    >>> from beyondchance.report import evaluate
    >>> md = evaluate([0, 0, 0, 1, 1, 0, 1, 0], [0, 0, 1, 1, 1, 0, 0, 0], ci=False)._repr_markdown_()
    >>> md.splitlines()[0]
    '**beyondchance report**'
    >>> [line.split(" | ")[:2] for line in md.splitlines() if line.startswith("| Accuracy")]
    [['| Accuracy', '0.750']]
    """
    title = "**beyondchance report" + (f" — {_cell(shorten(report.name))}" if report.name else "") + "**"
    level = int(round(report.confidence_level * 100))
    ops = _has_ops(report)  # no OPS column where no row has one (regression)
    rows = []
    for m in report.metrics.values():
        rows.append([
            m.title, fmt_value(m.value),
            "–" if m.ci is None else fmt_interval(m.ci.low, m.ci.high),
            "–" if m.confidence_bound is None else _bound_text(m), "–" if m.pvalue is None else _pvalue_text(m),
            f"{fmt_value(m.baseline)} ({m.baseline_prediction})",
            "–" if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}",
            *(["–" if m.ops is None else f"{m.ops:.3f}"] if ops else []),
            m.verdict,
        ])
    parts = [title, "", _cell(describe_task(report)), "", "Verdict:", ""]
    parts += [f"- {_cell(line)}" for line in report.verdict]
    parts += ["", _table(["metric", "value", f"{level}% CI", f"{level}% bound", "p (chance)", "constant", "advantage",
                          *(["OPS"] if ops else []), "verdict"], rows,
                         [":--", "--:", "--:", "--:", "--:", ":--", "--:", *(["--:"] if ops else []), ":--"])]
    parts += ["", _cell(columns_legend(report, constant="constant")) + "."]
    parts += ["", f"Confidence intervals: {_cell(report.ci_description)}."]
    parts += _per_class_markdown(report)
    if any(m.pvalue is not None for m in report.metrics.values()):
        parts += ["", _cell(chance_legend(report))]
    parts += [f"- note: {_cell(note)}" for note in report.notes]
    return "\n".join(parts) + "\n"


def _per_class_markdown(report: Any) -> list[str]:
    """The per-class table (one row per class and metric) and the confusion matrix."""
    parts: list[str] = []
    t = report.per_class
    if t is not None:
        level = int(round(t.confidence_level * 100))
        rows = []
        for i, c in enumerate(t.classes):
            for col in t.columns.values():
                ci = "–" if col.ci_low is None or not math.isfinite(col.ci_low[i]) else (
                    fmt_interval(col.ci_low[i], col.ci_high[i]))
                adv, ops = float(col.advantage[i]), float(col.ops[i])
                rows.append([shorten(c), f"{t.support[i]:,.6g}", col.title, fmt_value(col.value[i]), ci,
                             fmt_value(col.baseline[i]), "–" if not math.isfinite(adv) else f"{adv:+.3f}",
                             "–" if not math.isfinite(ops) else f"{ops:.3f}"])
        parts += ["", "Per class (each class against the rest):", "",
                  _table(["class", "support", "metric", "value", f"{level}% CI", "constant", "advantage", "OPS"],
                         rows, [":--", "--:", ":--", "--:", "--:", "--:", "--:", "--:"])]
    cm = report.confusion
    if cm is not None and cm.n_classes > MAX_SHOWN_CLASSES:
        parts += ["", f"The confusion matrix of {cm.n_classes:,} classes is not shown (at most {MAX_SHOWN_CLASSES} "
                  "classes); the JSON report gives its non-empty cells."]
    elif cm is not None:
        rates = confusion_rates(cm)
        labels = cm.labels.tolist()
        rows = [[shorten(c), *(f"{cm.matrix[i, j]:,.6g} ({'–' if not math.isfinite(rates[i, j]) else f'{100 * rates[i, j]:.1f}%'})"
                               for j in range(len(labels)))] for i, c in enumerate(labels)]
        parts += ["", "Confusion matrix (rows: true class, columns: predicted; count and share of the row):", "",
                  _table(["true \\ predicted", *(shorten(c) for c in labels)], rows,
                         [":--", *("--:" for _ in labels)])]
    return parts


def comparison_markdown(comparison: Any) -> str:
    """The comparison as Markdown: one column per test set (value, advantage, OPS, flag)."""
    reports = comparison.reports
    rows = [["n", *(f"{r.n:,}" for r in reports)]]
    if has_prevalence(comparison):
        rows.append(["prevalence", *("–" if r.prevalence is None else f"{100 * r.prevalence:.2f}%" for r in reports)])
    for name in comparison.metric_names:
        cells = []
        for r in reports:
            cell = comparison.cell(r, name)
            if cell is None:
                cells.append("–")
                continue
            m, adv, ops, flag = cell
            decomposed = comparison.decomposition_text(r.name, name)
            cells.append(f"{fmt_value(m.value)} (adv {adv}{f', OPS {ops}' if has_ops(comparison) else ''}"
                         f"{'; ' + decomposed if decomposed else ''})"
                         f"{' ' + flag if flag else ''}")
        title = reports[0].metrics[name].title if name in reports[0].metrics else name
        rows.append([title, *cells])
    parts = ["**beyondchance compare**", "", _cell(describe_comparison(comparison)), "", "Verdict:", ""]
    parts += [f"- {_cell(line)}" for line in comparison.verdict]
    parts += ["", _table(["metric", *(shorten(r.name) for r in reports)], rows,
                         [":--", *("--:" for _ in reports)])]
    parts += [f"- note: {_cell(note)}" for note in comparison.notes]
    return "\n".join(parts) + "\n"
