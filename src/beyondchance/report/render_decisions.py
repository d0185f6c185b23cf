"""Terminal rendering of the decisions: a model comparison and the requirements of a gate.

Plain text (rich tables recorded without colours), the verdict first.
"""

from __future__ import annotations

import io
import math
from typing import Any

from .._summary_display import printable
from .formatting import fmt_interval, fmt_value, shorten

__all__ = ["model_comparison_text", "check_text"]


def _console(width: int):
    from rich.console import Console

    return Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False, highlight=False,
                   emoji=False)


def _text(x: Any) -> str:
    """Text from the data as literal rich markup, its control characters as escapes."""
    from rich.markup import escape

    return escape(printable(x, layout=True))


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def model_comparison_text(c: Any, *, width: int = 120) -> str:
    """The verdict lines, the values of every model, and one row per (pair, measure)."""
    from rich.table import Table

    console = _console(width)
    console.print("[bold]Verdict[/bold]")
    for line in c.verdict:
        console.print(f"  • {_text(line)}")
    console.print()
    values = Table(show_header=True, header_style="bold", pad_edge=False)
    values.add_column("metric")
    for m in c.models:
        values.add_column(_text(shorten(m)), justify="right")
    for k in c.metrics:
        values.add_row(_text(k), *(fmt_value(c.values[m][k]) for m in c.models))
    console.print(values)
    level = int(round(100 * c.confidence_level))
    table = Table(show_header=True, header_style="bold", pad_edge=False)
    for header, justify in (("metric", "left"), ("b − a", "left"), ("difference", "right"),
                            (f"{level}% CI", "right"), ("p", "right"), (f"p ({c.correction})", "right"),
                            ("test", "left"), ("", "left")):
        table.add_column(header, justify=justify)
    for d in c.differences:
        ci = "-" if not math.isfinite(d.ci[0]) else fmt_interval(*d.ci, lambda x: f"{x:+.3f}")
        table.add_row(_text(d.metric), _text(f"{shorten(d.model_b, 20)} − {shorten(d.model_a, 20)}"),
                      f"{d.difference:+.3f}" if math.isfinite(d.difference) else "n/a", ci, _p(d.pvalue),
                      _p(d.pvalue_adjusted), d.test, "significant" if d.significant else "")
    console.print(table)
    console.print(f"n = {c.n:,}; {c.kind}" + (f" at threshold {c.threshold:g}" if c.threshold is not None else "")
                  + f"; paired bootstrap with {c.n_resamples} resamples (the same rows for every model).")
    for note in c.notes:
        console.print(f"note: {_text(note)}")
    return console.file.getvalue()


def check_text(result: Any, *, width: int = 120) -> str:
    """The requirements of a gate, one row each: expression, measured value, pass/fail."""
    from rich.table import Table

    console = _console(width)
    failed = [r for r in result.requirements if not r.passed]
    console.print(f"[bold]{'PASS' if not failed else 'FAIL'}[/bold]: "
                  f"{len(result.requirements) - len(failed)} of {len(result.requirements)} requirements hold.")
    table = Table(show_header=True, header_style="bold", pad_edge=False)
    for header, justify in (("requirement", "left"), ("measured", "right"), ("result", "left")):
        table.add_column(header, justify=justify)
    for r in result.requirements:
        shown = "n/a" if r.measured is None else (f"{r.measured:.3g}" if r.function == "pvalue"
                                                  else fmt_value(r.measured))
        table.add_row(_text(r.expression), shown,
                      _text("pass" if r.passed else f"FAIL{': ' + r.reason if r.reason else ''}"))
    console.print(table)
    return console.file.getvalue()
