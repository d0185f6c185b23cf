"""Readable text, HTML and Markdown for every result object, and the one way they are
written out: ``print(r)`` and a notebook cell show a short summary of what was computed —
its verdict first, within 80 columns — instead of a dataclass dump, and
``to_json`` / ``to_html`` / ``to_markdown`` / ``save`` write it (:class:`Writable`).
:class:`SummaryDisplay` renders a result from its verdict, ``(name, value)`` rows and
small tables; the measures in them go by their display names (:func:`display_name`).

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
import json
import os
import re
import shutil
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence, overload

import numpy as np

from ._json import jsonable, write_atomic
from ._warnings import InvalidInputError

if TYPE_CHECKING:
    import rich.progress

__all__ = ["Writable", "SummaryDisplay", "GridDisplay", "format_number", "format_interval", "printable",
           "markdown_text", "html_text", "display_name", "text_table", "html_page", "TITLES", "SUFFIXES", "WIDTH",
           "Progress", "terminal_width"]

#: the columns of a summary's text (``print(result)``), narrower in a narrower terminal
WIDTH = 80


def terminal_width(fallback: int = 100) -> int:
    """The columns of ``str(result)``: those of the terminal it runs in, as rich reads them
    for the command line — ``COLUMNS`` when set, else the size of the terminal of stdout,
    else ``fallback`` (a pipe, a notebook); at least 20.

    >>> import os; os.environ["COLUMNS"] = "72"; terminal_width()
    72
    >>> del os.environ["COLUMNS"]
    """
    return max(shutil.get_terminal_size((fallback, 24)).columns, 20)

#: the display names of the measures, used by every rendering: the report's rows, the
#: comparisons' tables and verdicts, the small results' summaries
TITLES: dict[str, str] = {
    "accuracy": "Accuracy",
    "balanced_accuracy": "Balanced accuracy",
    "precision": "Precision",
    "recall": "Recall",
    "specificity": "Specificity",
    "f1": "F1",
    "mcc": "MCC",
    "kappa": "Cohen's kappa",
    "pure_accuracy": "Pure accuracy",
    "prediction_advantage": "Prediction advantage",
    "roc_auc": "ROC AUC",
    "pr_auc": "PR AUC (avg. precision)",
    "roc_auc_weighted": "ROC AUC (one-vs-rest, weighted)",
    "pr_auc_weighted": "Avg. precision (one-vs-rest, weighted)",
    "lift_auc": "Lift AUC",
    "log_loss": "Log loss",
    "brier": "Brier score",
    "mse": "Mean squared error",
    "mae": "Mean absolute error",
    "r2": "R² (PA, squared loss)",
    "d2_absolute_error": "D² (PA, absolute loss)",
    "pinball_loss": "Pinball loss",
    "d2_pinball_score": "D² (PA, pinball loss)",
}


def display_name(name: Any, *, short: bool = False) -> str:
    """The display name of a measure: its title in :data:`TITLES`, else the name with spaces
    for underscores; ``short`` drops the title's parenthesis (for a narrow column).

    >>> display_name("balanced_accuracy"), display_name("pr_auc", short=True), display_name("false_omission_rate")
    ('Balanced accuracy', 'PR AUC', 'false omission rate')
    """
    title = TITLES.get(name) if isinstance(name, str) else None
    if title is None:
        return str(name).replace("_", " ")
    return title.split(" (")[0] if short else title

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


def _label(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


#: labels and names longer than this are shortened with an ellipsis in text meant to be
#: read (verdicts, reasons, renderings); the data fields keep them whole
MAX_NAME_CHARS = 40


def shorten(text: Any, limit: int = MAX_NAME_CHARS) -> str:
    """``text`` as a string of at most ``limit`` characters, an ellipsis marking a cut, its
    control characters (newlines and tabs too) as escapes (``printable``).

    >>> shorten("x" * 50)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
    >>> print(shorten("\\x1b]0;PWNED\\x07"))
    \\x1b]0;PWNED\\x07
    """
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fmt_label(x: Any) -> str:
    x = _label(x)
    return f"'{shorten(x)}'" if isinstance(x, str) else shorten(x)


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


def format_interval(ci: Any, fmt: Any = None) -> str:
    """An interval ``(low, high)`` as text in the reports' one form, ``[low, high]`` (each end
    by ``fmt``, by default 4 significant digits; "–" when None or undefined).

    >>> format_interval((-0.1234567, 0.5)), format_interval(None)
    ('[-0.1235, 0.5]', '–')
    >>> format_interval((0.1, 0.25), lambda x: f"{x:+.3f}")
    '[+0.100, +0.250]'
    """
    if ci is None or not all(np.isfinite([ci[0], ci[1]])):
        return "–"
    fmt = fmt or format_number
    return f"[{fmt(float(ci[0]))}, {fmt(float(ci[1]))}]"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def text_table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, width: int = WIDTH,
               indent: int = 2, wrap_first: Sequence[int] = ()) -> list[str]:
    """The lines of a plain-text table at most ``width`` columns wide, each text sealed
    (:func:`printable`): the columns of words (the first and those of ``wrap_first``) to
    the left, the others to the right.  When the table is too wide its widest columns are
    narrowed, their cells wrapped on spaces: first those of ``wrap_first``, then the others,
    down to their longest word; then, if still too wide, further (a word is then cut).

    >>> print("\\n".join(text_table(["measure", "value"], [["Balanced accuracy", "0.81"]], width=20)))
      measure   value
      Balanced   0.81
      accuracy
    """
    cells = [[printable(c) for c in header], *([printable(c) for c in row] for row in rows)]
    ncol = len(header)
    widths = [max(len(r[j]) for r in cells) for j in range(ncol)]
    words = [max(len(w) for r in cells for w in r[j].split() or [""]) for j in range(ncol)]
    room = width - indent - 2 * (ncol - 1)
    for columns, floor in ((wrap_first, words), (range(ncol), words), (range(ncol), [1] * ncol)):
        while sum(widths) > room:
            wide = [j for j in columns if widths[j] > floor[j]]
            if not wide:
                break
            widths[max(wide, key=lambda j: widths[j])] -= 1
    lines = []
    for r in cells:
        wrapped = [textwrap.wrap(c, widths[j]) or [""] for j, c in enumerate(r)]
        for k in range(max(map(len, wrapped))):
            parts = [(w[k] if k < len(w) else "") for w in wrapped]
            text = "  ".join(p.ljust(widths[j]) if j == 0 or j in wrap_first else p.rjust(widths[j])
                             for j, p in enumerate(parts))
            lines.append((" " * indent + text).rstrip())
    return lines


#: file suffix -> format of :meth:`Writable.save`
SUFFIXES = {".html": "html", ".htm": "html", ".json": "json", ".md": "markdown", ".markdown": "markdown",
            ".txt": "text"}

_PAGE_CSS = ("body{font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;margin:2em auto;"
             "max-width:1180px;padding:0 1em;color:#222}table{border-collapse:collapse;margin:.8em 0}"
             "caption{text-align:left;font-weight:bold;padding:.3em 0}"
             "th,td{border-bottom:1px solid #ddd;padding:.3em .6em;text-align:right}th{background:#f0f0f0}")


def html_page(title: str, body: str) -> str:
    """A self-contained HTML page around ``body`` (``title`` escaped; ``body`` is HTML)."""
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html_text(title)}</title><style>{_PAGE_CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def _written(text: str, path: str | os.PathLike | None) -> str | None:
    """``text``, or None once written to ``path`` whole (:func:`write_atomic`: a failure
    leaves the previous file as it was)."""
    if path is None:
        return text
    write_atomic(path, text)
    return None


class Writable:
    """Mixin of every result: ``print(r)``, the notebook's ``_repr_html_`` and
    ``_repr_markdown_``, and ``to_json`` / ``to_html`` / ``to_markdown`` / ``save``.  The
    subclass defines ``to_dict`` and the renderings ``_text``, ``_html_fragment`` and
    ``_markdown`` (``_html_page``: the fragment on a page of its own)."""

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - defined by the subclasses
        raise NotImplementedError

    def _text(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def _html_fragment(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def _markdown(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def _html_page(self) -> str:
        return html_page(self._text().split("\n", 1)[0], self._html_fragment())

    def __str__(self) -> str:
        return self._text()

    def _repr_html_(self) -> str:
        return self._html_fragment()

    def _repr_markdown_(self) -> str:
        return self._markdown()

    @overload
    def to_json(self, path: None = ..., *, indent: int | None = ...) -> str: ...
    @overload
    def to_json(self, path: str | os.PathLike, *, indent: int | None = ...) -> None: ...
    def to_json(self, path: str | os.PathLike | None = None, *, indent: int | None = 2) -> str | None:
        """The JSON of :meth:`to_dict` (strict JSON: NaN and infinities as null); written to
        ``path`` when given (then None is returned), else returned."""
        return _written(json.dumps(jsonable(self.to_dict()), indent=indent, allow_nan=False) + "\n", path)

    @overload
    def to_html(self, path: None = ...) -> str: ...
    @overload
    def to_html(self, path: str | os.PathLike) -> None: ...
    def to_html(self, path: str | os.PathLike | None = None) -> str | None:
        """A self-contained HTML page; written to ``path`` when given (then None is
        returned), else returned."""
        return _written(self._html_page(), path)

    @overload
    def to_markdown(self, path: None = ...) -> str: ...
    @overload
    def to_markdown(self, path: str | os.PathLike) -> None: ...
    def to_markdown(self, path: str | os.PathLike | None = None) -> str | None:
        """Markdown; written to ``path`` when given (then None is returned), else returned."""
        return _written(self._markdown(), path)

    def save(self, path: str | os.PathLike) -> Path | None:  # None here; a subclass may return the path written
        """Write to ``path`` in the format of its suffix: ``.html``/``.htm``, ``.json``,
        ``.md``/``.markdown`` or ``.txt`` (the text of ``print``), whole or not at all."""
        kind = SUFFIXES.get(Path(path).suffix.lower())
        if kind is None:
            raise InvalidInputError(
                f"cannot tell the format of {printable(os.fspath(path))!r}: use a file name ending in "
                f"{', '.join(SUFFIXES)}"
            )
        if kind == "html":
            self.to_html(path)
        elif kind == "json":
            self.to_json(path)
        elif kind == "markdown":
            self.to_markdown(path)
        else:
            text = self._text()
            _written(text if text.endswith("\n") else text + "\n", path)
        return None


#: a small table of a summary: (caption, header, rows of cells)
Table = tuple[str, Sequence[str], Sequence[Sequence[Any]]]


class SummaryDisplay(Writable):
    """Mixin: the subclass gives its verdict (or title) in ``_summary_title`` (one line per
    line of text), ``(name, value)`` rows in ``_summary_rows``, and optionally small tables
    in ``_summary_tables`` (:data:`Table`) and closing lines in ``_summary_notes``; the text
    (at most :data:`WIDTH` columns, the verdict first), the HTML and the Markdown follow,
    every text from the data sealed (:func:`printable`, :func:`html.escape`,
    :func:`markdown_text`)."""

    def _summary_title(self) -> str:  # pragma: no cover - defined by the subclasses
        raise NotImplementedError

    def _summary_rows(self) -> list[tuple[str, Any]]:  # pragma: no cover
        raise NotImplementedError

    def _summary_tables(self) -> list[Table]:
        return []

    def _summary_notes(self) -> list[str]:
        return []

    def _html_page(self) -> str:
        return html_page((self._summary_title().splitlines() or [""])[0], self._html_fragment())

    def _text(self) -> str:
        full = min(WIDTH, terminal_width())
        lines = [w for t in self._summary_title().splitlines()
                 for w in textwrap.wrap(printable(t), full, subsequent_indent="  ") or [""]]
        rows = [(printable(k), printable(format_number(v))) for k, v in self._summary_rows()]
        width = min(max((len(k) for k, _ in rows), default=0), full // 2)
        lines += [_clip(f"  {_clip(k, width).ljust(width)}  {v}", full) for k, v in rows]
        for caption, header, cells in self._summary_tables():
            lines += ["", _clip(printable(caption), full),
                      *text_table(header, cells, width=full, wrap_first=(0, len(header) - 1))]
        lines += [w for t in self._summary_notes() for w in textwrap.wrap(printable(t), full, subsequent_indent="  ")]
        return "\n".join(lines)

    def _html_fragment(self) -> str:
        e, left = html_text, " style='text-align:left'"
        caption = "<br>".join(e(t) for t in self._summary_title().splitlines())
        cells = "".join(f"<tr><th style='text-align:left'>{e(k)}</th>"
                        f"<td style='text-align:left'>{e(format_number(v))}</td></tr>"
                        for k, v in self._summary_rows())
        parts = [f"<table><caption>{caption}</caption>{cells}</table>"]
        for title, header, rows in self._summary_tables():
            head = "".join(f"<th>{e(str(h))}</th>" for h in header)
            body = "".join("<tr>" + "".join(f"<td{left if j == 0 else ''}>{e(str(c))}</td>" for j, c in enumerate(row))
                           + "</tr>" for row in rows)
            parts.append(f"<table><caption>{e(title)}</caption><tr>{head}</tr>{body}</table>")
        parts += [f"<p>{e(t)}</p>" for t in self._summary_notes()]
        return "\n".join(parts)

    def _markdown(self) -> str:
        title = "\n".join(f"**{markdown_text(t)}**  " for t in self._summary_title().splitlines()).rstrip()
        rows = "\n".join(f"| {markdown_text(k)} | {markdown_text(format_number(v))} |" for k, v in self._summary_rows())
        parts = [title, f"| | |\n|:--|:--|\n{rows}" if rows else ""]
        for caption, header, cells in self._summary_tables():
            lines = ["| " + " | ".join(markdown_text(h) for h in header) + " |", "|:--|" + "--:|" * (len(header) - 1)]
            lines += ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in cells]
            parts.append(f"*{markdown_text(caption)}*\n\n" + "\n".join(lines))
        parts += [markdown_text(t) for t in self._summary_notes()]
        return "\n\n".join(p for p in parts if p) + "\n"


class GridDisplay(Writable):
    """Mixin for a labelled grid (a confusion matrix): the subclass gives ``_summary_title``
    and ``_grid`` -> (corner, column labels, [(row label, cells)]); the text, HTML and
    Markdown (and so ``print``, the notebook's display and :class:`Writable`'s files) follow.

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

    def _text(self) -> str:
        corner, columns, rows = self._grid()
        corner, columns = printable(corner), [printable(c) for c in columns]
        rows = [(printable(r), [printable(v) for v in cells]) for r, cells in rows]
        first = max([len(corner), *(len(r) for r, _ in rows)])
        widths = [max([len(c), *(len(cells[j]) for _, cells in rows)]) for j, c in enumerate(columns)]
        lines = [printable(self._summary_title()),
                 "  " + corner.ljust(first) + "".join("  " + c.rjust(w) for c, w in zip(columns, widths))]
        lines += ["  " + r.ljust(first) + "".join("  " + v.rjust(w) for v, w in zip(cells, widths)) for r, cells in rows]
        return "\n".join(lines)

    def _html_fragment(self) -> str:
        corner, columns, rows = self._grid()
        e = html_text
        head = f"<tr><th>{e(corner)}</th>" + "".join(f"<th>{e(c)}</th>" for c in columns) + "</tr>"
        body = "".join(f"<tr><th style='text-align:left'>{e(r)}</th>" + "".join(f"<td>{e(v)}</td>" for v in cells)
                       + "</tr>" for r, cells in rows)
        return f"<table><caption>{e(self._summary_title())}</caption>{head}{body}</table>"

    def _markdown(self) -> str:
        corner, columns, rows = self._grid()
        cell = markdown_text
        lines = ["| " + " | ".join(cell(c) for c in [corner, *columns]) + " |",
                 "|:--|" + "--:|" * len(columns)]
        lines += ["| " + " | ".join(cell(c) for c in [r, *cells]) + " |" for r, cells in rows]
        return f"**{markdown_text(self._summary_title())}**\n\n" + "\n".join(lines) + "\n"


class Progress:
    """The command line's progress: a spinner with the current step on stderr (only on an
    interactive terminal), its messages sealed by :func:`printable`."""

    def __init__(self, enabled: bool | None = None, console: Any = None) -> None:
        from rich.console import Console

        self.console = console if console is not None else Console(stderr=True)
        self.enabled = self.console.is_terminal if enabled is None else enabled
        self._progress: rich.progress.Progress | None = None
        self._task: rich.progress.TaskID | None = None

    def __enter__(self) -> "Progress":
        if self.enabled:
            from rich.progress import Progress as Spinner
            from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Spinner(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                      console=self.console, transient=True)
            self._progress.start()
            self._task = self._progress.add_task("starting", total=None)
        return self

    def __call__(self, message: str) -> None:
        if self._progress is not None:
            from rich.markup import escape

            # the message names files and test sets: literal text, control characters as escapes
            assert self._task is not None  # set with self._progress in __enter__
            self._progress.update(self._task, description=escape(printable(message)))

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()
