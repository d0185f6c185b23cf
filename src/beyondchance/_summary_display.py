"""Readable text, HTML and Markdown for the small result objects (OPS, bootstrap
intervals, prediction advantages): ``print(r)`` and a notebook cell show a short table
of what was computed instead of a dataclass dump.

Text from the data (labels, names) is sealed on its way out: :func:`printable` shows its
control characters as escapes, so that a label cannot clear, colour or retitle a
terminal, and :func:`markdown_text` also shows Markdown and HTML markup as text.  Every
renderer of the package (the report's terminal and Markdown renderings, the command
line's tables and messages) uses these two, which sit here, at the bottom of the
package, so that the small results' own renderings below :mod:`beyondchance.report` use
them too.
"""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np

__all__ = ["SummaryDisplay", "GridDisplay", "format_number", "printable", "markdown_text", "html_text"]

#: the format characters (Unicode category Cf: bidi embeddings, overrides and isolates
#: U+202A-U+202E, U+2066-U+2069, marks U+200E, U+200F, U+061C, invisible U+200B, U+2060-U+2064,
#: U+FEFF, tags, …) but the joiners U+200C and U+200D (Persian words, emoji sequences), and
#: the line and paragraph separators U+2028, U+2029: they reorder, hide or break the text
#: shown around them ("Trojan Source")
_FORMAT = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u2028-\u202e"
           "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
           "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
#: C0 controls, DEL, C1 controls (U+0080-U+009F: 8-bit CSI, OSC ... in some terminals) and _FORMAT
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f" + _FORMAT + "]")
#: the same but tab and newline, the layout of a multi-line text
_CONTROL_BUT_LAYOUT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _FORMAT + "]")
_NAMED_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape_control(match: re.Match) -> str:
    c = match.group()
    code = ord(c)
    return _NAMED_ESCAPES.get(c) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                                     else f"\\U{code:08x}")


def printable(text: Any, *, layout: bool = False) -> str:
    """``str(text)`` with every control character shown as a visible escape: C0 controls
    (ESC as ``\\x1b``, tab ``\\t``, newline ``\\n``, carriage return ``\\r``), DEL, the C1
    controls U+0080-U+009F, and the format characters that reorder or hide text (a
    right-to-left override as ``\\u202e``: bidi controls, zero-width spaces, line separators;
    not the joiners ZWJ, ZWNJ).  ``layout=True`` keeps tab and newline (a multi-line message
    whose line breaks are its own); a label or a name escapes them too.

    >>> printable("\\x1b[2J\\x1b[31mRED")
    '\\\\x1b[2J\\\\x1b[31mRED'
    >>> print(printable("a\\tb\\x9b\\x07"), printable("line 1\\nline 2", layout=True))
    a\\tb\\x9b\\x07 line 1
    line 2
    >>> print(printable("invoice\\u202efdp.exe"))
    invoice\\u202efdp.exe
    """
    text = str(text)
    return (_CONTROL_BUT_LAYOUT if layout else _CONTROL).sub(_escape_control, text)


#: what Markdown (CommonMark, GitHub's tables, a notebook's math) or HTML would read as markup
_MARKDOWN_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", **{c: "\\" + c for c in "\\`*_[]~$|"}}
_MARKDOWN = re.compile("[" + re.escape("".join(_MARKDOWN_ESCAPES)) + "]")


def markdown_text(text: Any) -> str:
    """Text for one line of Markdown (a table cell, a list item): line breaks as spaces,
    control characters as escapes (:func:`printable`), and Markdown and HTML markup
    (``< > & | \\ ` * _ [ ] ~ $``) escaped so that it shows as typed.

    >>> markdown_text("<img src=x onerror=alert(1)> | *a*")
    '&lt;img src=x onerror=alert(1)&gt; \\\\| \\\\*a\\\\*'
    """
    return _MARKDOWN.sub(lambda m: _MARKDOWN_ESCAPES[m.group()], printable(" ".join(str(text).split())))


def html_text(text: Any) -> str:
    """Text for HTML: its control and format characters as escapes (:func:`printable`,
    tab and newline kept), then HTML-escaped (quotes too: safe in an attribute).

    >>> html_text("<b>\\u202eRED</b>")
    '&lt;b&gt;\\\\u202eRED&lt;/b&gt;'
    """
    return html.escape(printable(text, layout=True), quote=True)


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
        rows = [(printable(k), printable(format_number(v))) for k, v in self._summary_rows()]
        width = max((len(k) for k, _ in rows), default=0)
        return "\n".join([printable(self._summary_title()), *(f"  {k.ljust(width)}  {v}" for k, v in rows)])

    def _repr_html_(self) -> str:
        cells = "".join(f"<tr><th style='text-align:left'>{html_text(k)}</th>"
                        f"<td style='text-align:left'>{html_text(format_number(v))}</td></tr>"
                        for k, v in self._summary_rows())
        return f"<table><caption>{html_text(self._summary_title())}</caption>{cells}</table>"

    def _repr_markdown_(self) -> str:
        rows = "\n".join(f"| {markdown_text(k)} | {markdown_text(format_number(v))} |" for k, v in self._summary_rows())
        return f"**{markdown_text(self._summary_title())}**\n\n| | |\n|:--|:--|\n{rows}\n"


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
        corner, columns = printable(corner), [printable(c) for c in columns]
        rows = [(printable(r), [printable(v) for v in cells]) for r, cells in rows]
        first = max([len(corner), *(len(r) for r, _ in rows)])
        widths = [max([len(c), *(len(cells[j]) for _, cells in rows)]) for j, c in enumerate(columns)]
        lines = [printable(self._summary_title()),
                 "  " + corner.ljust(first) + "".join("  " + c.rjust(w) for c, w in zip(columns, widths))]
        lines += ["  " + r.ljust(first) + "".join("  " + v.rjust(w) for v, w in zip(cells, widths)) for r, cells in rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        corner, columns, rows = self._grid()
        e = html_text
        head = f"<tr><th>{e(corner)}</th>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>"
        body = "".join(f"<tr><th style='text-align:left'>{e(r)}</th>" + "".join(f"<td>{e(v)}</td>" for v in cells)
                       + "</tr>" for r, cells in rows)
        return f"<table><caption>{e(self._summary_title())}</caption>{head}{body}</table>"

    def _repr_markdown_(self) -> str:
        corner, columns, rows = self._grid()
        cell = markdown_text
        lines = ["| " + " | ".join(cell(c) for c in [corner, *columns]) + " |",
                 "|:--|" + "--:|" * len(columns)]
        lines += ["| " + " | ".join(cell(c) for c in [r, *cells]) + " |" for r, cells in rows]
        return f"**{markdown_text(self._summary_title())}**\n\n" + "\n".join(lines) + "\n"
