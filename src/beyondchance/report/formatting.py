"""The formatting of a report's values and labels: JSON-safe numbers (``_num``), plain
labels (``_label``), display text (:func:`fmt_value`, :func:`fmt_interval`, :func:`shorten`,
``_fmt_label``).

Display text from the data is sealed: :func:`shorten` shows a label's control characters
as escapes (``printable`` of ``beyondchance._summary_display``, which the renderers use
on every other string from the data)."""

from __future__ import annotations

import math
from typing import Any, Callable

from .._summary_display import MAX_NAME_CHARS, _fmt_label, _label, printable, shorten  # noqa: F401  (the report's names)


def _num(x: Any) -> float | None:
    """JSON-safe float (nan/inf -> None)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def fmt_value(x: float | None) -> str:
    """A metric value for display: 3 decimals (4 significant digits when large)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.3f}" if abs(x) < 100 else f"{x:.4g}"


def fmt_interval(low: float | None, high: float | None, fmt: Callable[[Any], str] = fmt_value) -> str:
    """An interval for display, the one form of every rendering (terminal, Markdown, HTML):
    ``[low, high]``, each end by ``fmt`` (:func:`fmt_value` by default). A dash between the
    ends would read badly beside a negative end ("-0.088–0.442"); the brackets never do.

    >>> fmt_interval(-0.0881, 0.4423)
    '[-0.088, 0.442]'
    >>> fmt_interval(0.031, 0.062, lambda x: f"{100 * x:.1f}%")
    '[3.1%, 6.2%]'
    """
    return f"[{fmt(low)}, {fmt(high)}]"
