"""Readable text, HTML and Markdown for the small result objects (OPS, bootstrap
intervals, prediction advantages): ``print(r)`` and a notebook cell show a short table
of what was computed instead of a dataclass dump.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

__all__ = ["SummaryDisplay", "GridDisplay", "format_number"]


def format_number(x: Any) -> str:
    """A number in 4 significant digits; an array as its shape and first values.

    >>> format_number(0.123456), format_number(12345.678), format_number(np.arange(7) / 3)
    ('0.1235', '1.235e+04', 'array of 7: 0, 0.3333, 0.6667, 1, 1.333, …')
    """
    if x is None:
        return "–"
    if isinstance(x, str):
        return x
    a = np.asarray(x)
    if a.ndim == 0:
        v = a.item()
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    shown = ", ".join(format_number(v) for v in a.ravel()[:5])
    return f"array of {a.size}: {shown}{', …' if a.size > 5 else ''}"


class SummaryDisplay:
    """Mixin: the subclass lists ``(name, value)`` rows in ``_summary_rows`` and a title in
    ``_summary_title``; ``__str__``, ``_repr_html_`` and ``_repr_markdown_`` follow."""

    def _summary_title(self) -> str:  # pragma: no cover - defined by the subclasses
        raise NotImplementedError

    def _summary_rows(self) -> list[tuple[str, Any]]:  # pragma: no cover
        raise NotImplementedError

    def __str__(self) -> str:
        rows = [(k, format_number(v)) for k, v in self._summary_rows()]
        width = max((len(k) for k, _ in rows), default=0)
        return "\n".join([self._summary_title(), *(f"  {k.ljust(width)}  {v}" for k, v in rows)])

    def _repr_html_(self) -> str:
        cells = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                        f"<td style='text-align:left'>{html.escape(format_number(v))}</td></tr>"
                        for k, v in self._summary_rows())
        return f"<table><caption>{html.escape(self._summary_title())}</caption>{cells}</table>"

    def _repr_markdown_(self) -> str:
        rows = "\n".join(f"| {k} | {format_number(v).replace('|', chr(92) + '|')} |" for k, v in self._summary_rows())
        return f"**{self._summary_title()}**\n\n| | |\n|:--|:--|\n{rows}\n"


class GridDisplay:
    """Mixin for a labelled grid (a confusion matrix): the subclass gives ``_summary_title``
    and ``_grid`` -> (corner, column labels, [(row label, cells)]); ``__str__``,
    ``_repr_html_`` and ``_repr_markdown_`` follow.

    >>> from beyondchance import ConfusionMatrix
    >>> print(ConfusionMatrix(np.array([[5, 1], [2, 2]]), np.array(["no", "yes"]), pos_label="yes"))
    Confusion matrix (n = 10; rows: true class, columns: predicted; count and share of the row)
      true \\ predicted           no          yes
      no                  5 (83.3%)    1 (16.7%)
      yes                 2 (50.0%)    2 (50.0%)
    """

    def _summary_title(self) -> str:  # pragma: no cover - defined by the subclasses
        raise NotImplementedError

    def _grid(self) -> tuple[str, list[str], list[tuple[str, list[str]]]]:  # pragma: no cover
        raise NotImplementedError

    def __str__(self) -> str:
        corner, columns, rows = self._grid()
        first = max([len(corner), *(len(r) for r, _ in rows)])
        widths = [max([len(c), *(len(cells[j]) for _, cells in rows)]) for j, c in enumerate(columns)]
        lines = [self._summary_title(),
                 "  " + corner.ljust(first) + "".join("  " + c.rjust(w) for c, w in zip(columns, widths))]
        lines += ["  " + r.ljust(first) + "".join("  " + v.rjust(w) for v, w in zip(cells, widths)) for r, cells in rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        corner, columns, rows = self._grid()
        e = html.escape
        head = f"<tr><th>{e(corner)}</th>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>"
        body = "".join(f"<tr><th style='text-align:left'>{e(r)}</th>" + "".join(f"<td>{e(v)}</td>" for v in cells)
                       + "</tr>" for r, cells in rows)
        return f"<table><caption>{e(self._summary_title())}</caption>{head}{body}</table>"

    def _repr_markdown_(self) -> str:
        corner, columns, rows = self._grid()

        def cell(x: str) -> str:
            return x.replace("\\", "\\\\").replace("|", "\\|")

        lines = ["| " + " | ".join(cell(c) for c in [corner, *columns]) + " |",
                 "|:--|" + "--:|" * len(columns)]
        lines += ["| " + " | ".join(cell(c) for c in [r, *cells]) + " |" for r, cells in rows]
        return f"**{self._summary_title()}**\n\n" + "\n".join(lines) + "\n"
