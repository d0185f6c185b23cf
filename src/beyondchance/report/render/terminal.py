"""Terminal rendering with rich: the verdict first, then one table.

A report fits one screen by default: the verdict, the task, one table (value, interval,
best constant, advantage, OPS and a one-word verdict), a legend and a line saying what the
details add. ``details=True`` (``beyondchance report --details``, ``Report.details()``)
adds each metric's verdict with its bound and p-value, the per-class table, the confusion
matrix, the method and the notes. Tables never cut a word (see the layout section below).
Comparisons: :mod:`.terminal_comparison`, with the same table layout.

>>> from beyondchance.report import evaluate
>>> r = evaluate([0, 0, 0, 1, 1, 0, 0, 1], [0, 0, 1, 1, 0, 0, 0, 1], ci=False)
>>> text = render_report_text(r, width=120)
>>> text.splitlines()[0].startswith("Verdict")
True
>>> "Confusion matrix" in text, "Confusion matrix" in render_report_text(r, width=120, details=True)
(False, True)
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from rich.text import JustifyMethod

from ..formatting import MAX_NAME_CHARS, _fmt_label, fmt_interval, fmt_value, shorten
from ..metric_rows import MetricResult, word_of
from ..per_class import MAX_SHOWN_CLASSES, confusion_rates

__all__ = ["render_report", "render_report_text", "describe_task"]

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
    """The row's colour, its verdict word's (:data:`_WORD_STYLES`)."""
    return _WORD_STYLES[verdict_word(m)]


def _text(x: Any) -> str:
    """Text from the data (labels, names, verdicts quoting them) as literal rich markup, its
    control characters as visible escapes (line breaks and tabs kept: labels come shortened,
    which escapes those too)."""
    from rich.markup import escape

    from ..._summary_display import printable

    return escape(printable(x, layout=True))


def _styled(style: str, text: str) -> str:
    return f"[{style}]{_text(text)}[/{style}]"


#: below this console width the details list the verdicts under the table instead of in it
_WIDE = 130


# --- layout: tables that fit the console without cutting a word ------------------------------
#
# Every table of a report is drawn in the light style (a rule under the header, no boxes: two
# cells between columns) and every column gets a minimum width: its longest word where the
# text may wrap (metric names, class labels, headers), its widest line where it may not (the
# numbers). rich never draws a column narrower than its minimum, so no word is ever cut into
# pieces. When the minimums do not fit the console, whole columns of low priority are left out
# (and a line under the table names them), class labels are shortened with an ellipsis, and the
# confusion matrix's predicted classes are split over several tables.


def _words_width(markup: str) -> int:
    """The widest word of a rich-markup text, in terminal cells."""
    from rich.cells import cell_len
    from rich.text import Text

    return max((cell_len(w) for w in Text.from_markup(markup).plain.split()), default=0)


def _lines_width(markup: str) -> int:
    """The widest line of a rich-markup text, in terminal cells."""
    from rich.cells import cell_len
    from rich.text import Text

    return max((cell_len(line) for line in Text.from_markup(markup).plain.split("\n")), default=0)


class _Col:
    """A column of a fitted table: its key, header, alignment and whether its text wraps."""

    def __init__(self, key: str, header: str, *, justify: JustifyMethod = "right", wrap: bool = False) -> None:
        self.key, self.header, self.justify, self.wrap = key, header, justify, wrap


def _build(cols: list[_Col], rows: list[tuple[dict[str, str], bool]], console: Any = None):
    """A light table whose columns are never narrower than their longest word (wrapping
    columns) or their widest line (the others); ``rows``: (cells by key, ends a section).
    With ``console``: the columns' widths are set to fit its width (see :func:`_sized`)."""
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True,
                  header_style="bold", expand=False)
    tall = max((h.count("\n") for h in (c.header for c in cols)), default=0)
    widest = []
    for c in cols:
        cells = [c.header] + [r.get(c.key, "") for r, _ in rows]
        measure = _words_width if c.wrap else _lines_width
        # headers stand on the header rule: a one-line header under a two-line one
        header = "\n" * (tall - c.header.count("\n")) + c.header
        table.add_column(header, justify=c.justify, no_wrap=not c.wrap, overflow="fold",
                         min_width=max(1, max(measure(x) for x in cells)))
        widest.append(max(1, max(_lines_width(x) for x in cells)))
    for row, end in rows:
        table.add_row(*[row.get(c.key, "") for c in cols], end_section=end)
    if console is not None:
        _sized(console, table, widest)
    return table


def _sized(console: Any, table: Any, widest: list[int]) -> None:
    """Fix the widths of a table wider than the console whose minimums fit: each column gets
    its minimum, and the room left goes to the columns that wrap, in proportion to what they
    lack. (rich itself would narrow the widest columns first, under their minimum width, and
    then draw the table wider than the console.)"""
    width = console.width
    mins = [c.min_width for c in table.columns]
    overhead = _min_width(console, table) - sum(mins)
    if sum(widest) + overhead <= width or sum(mins) + overhead > width:
        return  # rich draws it at its natural width, or nothing fits: the caller leaves columns out
    sizes = list(mins)
    room = width - overhead - sum(sizes)
    while room > 0:
        lacking = [i for i, (w, top) in enumerate(zip(sizes, widest)) if w < top]
        if not lacking:
            break
        need = sum(widest[i] - sizes[i] for i in lacking)
        given = 0
        for i in lacking:
            share = min(widest[i] - sizes[i], max(1, (room * (widest[i] - sizes[i])) // need))
            share = min(share, room - given)
            sizes[i] += share
            given += share
            if given >= room:
                break
        room -= given
        if not given:
            break
    for column, size in zip(table.columns, sizes):
        column.width = size


def _short_words(label: Any, limit: int) -> str:
    """A label for a column that wraps: shortened as everywhere (:func:`shorten`), and each
    word longer than ``limit`` cut to ``limit`` characters with an ellipsis."""
    return " ".join(shorten(word, limit) for word in _fmt_label(label).split(" "))


def _min_width(console: Any, table: Any) -> int:
    """The narrowest the table can be drawn (measured unconstrained: rich caps a measurement
    at the width it is given)."""
    from rich.measure import Measurement

    return Measurement.get(console, console.options.update_width(1 << 16), table).minimum


def _fit(console: Any, cols: list[_Col], rows: list[tuple[dict[str, str], bool]], drop: tuple[str, ...] = ()):
    """The table of ``cols`` that fits the console: the columns named in ``drop`` are left
    out, in that order, until the others' minimum widths fit. Returns (table, headers left out)."""
    width = console.width
    cols = list(cols)
    dropped: list[str] = []
    table = _build(cols, rows, console)
    for key in drop:
        if _min_width(console, table) <= width:
            break
        gone = next((c for c in cols if c.key == key), None)
        if gone is None:
            continue
        cols.remove(gone)
        dropped.append(" ".join(gone.header.split()))
        table = _build(cols, rows, console)
    return table, dropped


def _left_out(console: Any, dropped: list[str], what: str = "the table") -> None:
    if dropped:
        names = ", ".join(dropped[:-1]) + " and " + dropped[-1] if len(dropped) > 1 else dropped[0]
        console.print(f"({_text(names)} left out of {what} at this width; a wider terminal shows "
                      f"{'them' if len(dropped) > 1 else 'it'})", style="dim", highlight=False)


# --- the main table ----------------------------------------------------------------------------

#: the one-word verdicts of the main table, as the legend under the table explains them
_WORDS = {
    "better": "better (than the best constant)",
    "unclear": "unclear (the interval reaches the constant, or p (chance) does not reject)",
    "worse": "worse (than the best constant)",
    "equal": "equal (to the best constant)",
    "moot": "moot (a constant reaches the best value: the metric alone cannot show an advantage)",
    "too few": "too few (rows of the rarer class for an interval and a verdict)",
    "undefined": "undefined (on this test set)",
    "n/a": "n/a (no best constant to compare with)",
}


def _words_legend(report: Any) -> str:
    shown = {verdict_word(m) for m in report.metrics.values()}
    return "verdict: " + ", ".join(text for w, text in _WORDS.items() if w in shown)


def verdict_word(m: MetricResult) -> str:
    """The row's verdict in one word: the one the report decided (:attr:`MetricResult.word`),
    else :func:`~.metric_rows.word_of` of its value and interval."""
    return m.word or word_of(m.value, m.baseline, m.ideal, m.ci, greater_is_better=m.greater_is_better)


#: the colour of a row's value and verdict: green only for an advantage the interval shows,
#: red only for a shortfall it shows, no colour where it shows neither (unclear, equal), dim
#: where the metric cannot show one (moot), yellow where the value is undefined
_WORD_STYLES = {"better": "green", "unclear": "none", "worse": "red", "equal": "none", "moot": "dim", "too few": "dim",
                "undefined": "yellow", "n/a": "yellow"}


def _interval(m: MetricResult) -> str:
    if m.ci is None or not (math.isfinite(m.ci.low) and math.isfinite(m.ci.high)):
        return "-"
    return fmt_interval(m.ci.low, m.ci.high)


def _has_ops(report: Any) -> bool:
    return any(m.ops is not None for m in report.metrics.values())


def _has_ci(report: Any) -> bool:
    return any(_interval(m) != "-" for m in report.metrics.values())


def _main_table(console: Any, report: Any):
    """The metrics: value, interval, best constant, advantage, OPS and a one-word verdict.
    On a narrow console the interval, then the OPS, then the constant are left out."""
    level = int(round(report.confidence_level * 100))
    cols = [_Col("metric", "metric", justify="left", wrap=True), _Col("value", "value")]
    if _has_ci(report):
        cols.append(_Col("ci", f"{level}% CI"))
    cols += [_Col("constant", "best\nconstant"), _Col("advantage", "advantage")]
    if _has_ops(report):
        cols.append(_Col("ops", "OPS"))
    cols.append(_Col("verdict", "verdict", justify="left"))
    rows = []
    for m in report.metrics.values():
        word = verdict_word(m)
        rows.append(({
            "metric": _text(m.title), "value": _styled(_style(m), fmt_value(m.value)), "ci": _interval(m),
            "constant": fmt_value(m.baseline),
            "advantage": "-" if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}",
            "ops": _ops_text(m), "verdict": _styled(_WORD_STYLES[word], word),
        }, False))
    return _fit(console, cols, rows, drop=("ci", "ops", "constant"))


def _legend(report: Any, dropped: Sequence[str] = ()) -> str:
    """What the short report's columns and words mean (no abbreviation left unexplained);
    ``dropped``: the headers left out of the table (not explained)."""
    level = int(round(report.confidence_level * 100))
    parts = ["best constant: the best constant prediction's value"
             + (" (for accuracy: always the majority class)" if "accuracy" in report.metrics else ""),
             "advantage: (value − constant) / (perfect − constant), the prediction advantage"]
    if _has_ops(report) and "OPS" not in dropped:
        where = "at this prevalence" if report.prevalence is not None else "one-vs-rest at each class's prevalence"
        parts.append(f"OPS: outperformance score, the share of all possible classifiers {where} that the value "
                     "beats")
    if _has_ci(report) and f"{level}% CI" not in dropped:
        parts.append(f"{level}% CI: {level}% confidence interval")
    return "; ".join(parts + [_words_legend(report)]) + "."


# --- the details: the metrics' verdicts, the per-class view, the method ---------------------


def _wide_table(console: Any, report: Any):
    """The details' metric table on a wide console: the main table's columns with the one-sided
    bound and p (chance), and each metric's verdict in full."""
    level = int(round(report.confidence_level * 100))
    cols = [_Col("metric", "metric", justify="left", wrap=True), _Col("value", "value")]
    if _has_ci(report):
        cols += [_Col("ci", f"{level}% CI"), _Col("bound", f"{level}%\nbound")]
    if any(m.pvalue is not None for m in report.metrics.values()):
        cols.append(_Col("p", "p\n(chance)"))
    cols += [_Col("constant", "best\nconstant"), _Col("advantage", "advantage")]
    if _has_ops(report):
        cols.append(_Col("ops", "OPS"))
    cols.append(_Col("verdict", "verdict", justify="left", wrap=True))
    rows = []
    for m in report.metrics.values():
        rows.append(({
            "metric": _text(m.title), "value": _styled(_style(m), fmt_value(m.value)), "ci": _interval(m),
            "bound": _bound_text(m), "p": _pvalue_text(m), "constant": fmt_value(m.baseline),
            "advantage": "-" if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}",
            "ops": _ops_text(m), "verdict": _styled(_style(m), m.verdict),
        }, False))
    return _build(cols, rows, console)


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


def _class_ci(col: Any, i: int) -> tuple[float, float] | None:
    """The interval of class ``i`` in a per-class column, or None."""
    if col.ci_low is None or not (math.isfinite(col.ci_low[i]) and math.isfinite(col.ci_high[i])):
        return None
    return float(col.ci_low[i]), float(col.ci_high[i])


#: the terminal shows the confusion matrix of at most this many classes (HTML: per_class.MAX_SHOWN_CLASSES)
MAX_MATRIX_CLASSES = 10


def _count(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.4g}"


def _per_class_table(console: Any, report: Any):
    """One block per class: a row naming the class and its support, then one row per metric
    (value, interval, best constant, advantage, OPS). The class names its own row, so a long
    label is never squeezed into a narrow column; it is shortened when even a row is too narrow."""
    t = report.per_class
    level = int(round(t.confidence_level * 100))
    cols = [_Col("metric", "class / metric", justify="left", wrap=True), _Col("value", "value")]
    has_ci = any(col.ci_low is not None for col in t.columns.values())
    if has_ci:
        cols.append(_Col("ci", f"{level}% CI"))
    cols += [_Col("constant", "best\nconstant"), _Col("advantage", "advantage"), _Col("ops", "OPS")]

    def rows(limit: int) -> list[tuple[dict[str, str], bool]]:
        out: list[tuple[dict[str, str], bool]] = []
        for i, c in enumerate(t.classes):
            out.append(({"metric": f"[bold]{_text(_short_words(c, limit))}[/bold] (support {_count(t.support[i])})"},
                        False))
            for j, col in enumerate(t.columns.values()):
                value, base, adv = float(col.value[i]), float(col.baseline[i]), float(col.advantage[i])
                style = _WORD_STYLES[word_of(value, base, float(col.ideal[i]), _class_ci(col, i))]
                ci = "-" if col.ci_low is None or not math.isfinite(col.ci_low[i]) else (
                    fmt_interval(col.ci_low[i], col.ci_high[i]))
                out.append(({
                    "metric": "  " + _text(col.title), "value": _styled(style, fmt_value(value)), "ci": ci,
                    "constant": fmt_value(base), "advantage": "-" if not math.isfinite(adv) else f"{adv:+.3f}",
                    "ops": "-" if not math.isfinite(col.ops[i]) else f"{col.ops[i]:.3f}",
                }, j == len(t.columns) - 1))
        return out

    # long labels are shortened (to 20 characters) before any column is left out
    drop = ("ci", "ops", "constant")
    for limit, allowed in ((MAX_NAME_CHARS, ()), (30, ()), (20, drop), (12, drop), (8, drop)):
        table, dropped = _fit(console, cols, rows(limit), drop=allowed)
        if _min_width(console, table) <= console.width:
            break
    return table, dropped


def _confusion_split(console: Any, report: Any, limit: int) -> list:
    """The confusion matrix with labels shortened to ``limit`` characters, its predicted
    classes split over as few tables (of near-equal size) as fit the console."""
    cm = report.confusion
    rates = confusion_rates(cm)
    width = console.width
    names = [_text(_short_words(c, limit)) for c in cm.labels.tolist()]
    first = _Col("true", "true \\\npredicted", justify="left", wrap=True)
    rows = []
    for i in range(cm.n_classes):
        row = {"true": names[i]}
        for j in range(cm.n_classes):
            rate = "-" if not math.isfinite(rates[i, j]) else f"{100 * rates[i, j]:.1f}%"
            text = f"{_count(cm.matrix[i, j])}\n{rate}"
            row[f"p{j}"] = f"[bold]{text}[/bold]" if i == j else text
        rows.append((row, True))
    cols = [_Col(f"p{j}", names[j], wrap=True) for j in range(cm.n_classes)]

    def fits(chunk: list[_Col]) -> bool:
        return _min_width(console, _build([first, *chunk], rows)) <= width

    chunks: list[list[_Col]] = [[]]  # greedy: as many predicted classes per table as fit
    for col in cols:
        if chunks[-1] and not fits(chunks[-1] + [col]):
            chunks.append([col])
        else:
            chunks[-1].append(col)
    if len(chunks) > 1:  # the same number of tables, of near-equal size (5 + 5, not 8 + 2)
        size = -(-len(cols) // len(chunks))
        even = [cols[k:k + size] for k in range(0, len(cols), size)]
        if len(even) == len(chunks) and all(fits(chunk) for chunk in even):
            chunks = even
    return [_build([first, *chunk], rows, console) for chunk in chunks]


def _confusion_tables(console: Any, report: Any) -> list:
    """Rows: true class, columns: predicted class; each cell its count and its share of the row.
    The predicted classes that do not fit side by side are split over several tables, each
    repeating the true classes; long labels are shortened when that saves a table."""
    best: tuple | None = None
    for limit in (MAX_NAME_CHARS, 20, 12, 8):
        tables = _confusion_split(console, report, limit)
        key = (any(_min_width(console, t) > console.width for t in tables), len(tables))
        if best is None or key < best[0]:
            best = (key, tables)
    assert best is not None  # the loop ran
    return best[1]


def _print_per_class(console: Any, report: Any) -> None:
    t = report.per_class
    if t is not None:
        console.print("[bold]Per class[/bold] (each class against the rest; best constant = the better of always "
                      "and never predicting the class)", highlight=False)
        table, dropped = _per_class_table(console, report)
        console.print(table)
        _left_out(console, dropped, "the per-class table")
        console.print(f"Per-class intervals: {_text(t.ci_method or 'not computed')}; OPS at each class's "
                      "prevalence.", style="dim", highlight=False)
    if report.confusion is not None:
        if report.confusion.n_classes <= MAX_MATRIX_CLASSES:
            console.print("[bold]Confusion matrix[/bold] (rows: true class, columns: predicted class; "
                          "the count and its share of the row)", highlight=False)
            for table in _confusion_tables(console, report):
                console.print(table)
        else:
            where = "JSON and HTML reports" if report.confusion.n_classes <= MAX_SHOWN_CLASSES else "JSON report"
            console.print(f"note: the confusion matrix of {report.confusion.n_classes} classes is in the {where}",
                          style="yellow", highlight=False)


# --- the report --------------------------------------------------------------------------------

#: where the short report points for the rest: the command line's flag (the default) ...
DETAILS_HINT = "--details"


def _print_verdict(console: Any, report: Any) -> None:
    """The verdict's lines as bullets whose wrapped lines stay indented."""
    from rich.table import Table

    name = shorten(report.name) if report.name else None
    console.print("[bold]Verdict[/bold]" + (f" ({_text(name)})" if name else ""), highlight=False)
    grid = Table.grid(padding=(0, 1), pad_edge=False)
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for line in report.verdict:
        grid.add_row("  •", _text(line))
    console.print(grid, highlight=False)


def _print_report(console: Any, report: Any, *, title: str | None = None, details: bool = False,
                  hint: str = DETAILS_HINT) -> None:
    """The verdict, the task and one table; with ``details`` also each metric's verdict with its
    bound and p-value, the per-class table, the confusion matrix, the method and the notes.
    ``hint``: how the reader asks for the details (the short report's last line)."""
    name = shorten(report.name) if report.name else None
    heading = title or (f"beyondchance report — {name}" if name else "beyondchance report")
    _print_verdict(console, report)
    console.print()
    console.print(f"[bold]{_text(heading)}[/bold]: {_text(describe_task(report))}", highlight=False)
    if details:
        _print_details(console, report)
        return
    table, dropped = _main_table(console, report)
    console.print(table)
    _left_out(console, dropped)
    console.print(_legend(report, dropped), style="dim", highlight=False)
    console.print(f"[bold]{_text(hint)}[/bold]: {_details_text(report)}.", highlight=False)


def _details_text(report: Any) -> str:
    """What the details add (the short report's last line)."""
    extra = ["each metric's verdict"]
    if report.per_class is not None:
        extra.append("the per-class table")
    if report.confusion is not None:
        extra.append("the confusion matrix")
    return _and_the_method(extra, len(report.notes))


def _and_the_method(extra: list[str], n_notes: int) -> str:
    """What the details add, as one phrase: ``extra``, the method and the notes."""
    extra = [*extra, "the method"] + ([f"the {n_notes} note{'s' if n_notes != 1 else ''}"] if n_notes else [])
    return ", ".join(extra[:-1]) + " and " + extra[-1]


def _print_details(console: Any, report: Any) -> None:
    wide = console.width >= _WIDE
    if wide:
        console.print(_wide_table(console, report))
    else:
        table, dropped = _main_table(console, report)
        console.print(table)
        _left_out(console, dropped)
        console.print(_verdict_list(report), highlight=False)
    _print_per_class(console, report)
    console.print(columns_legend(report) + ("" if wide else "; " + _words_legend(report)) + ".",
                  style="dim", highlight=False)
    console.print(f"Confidence intervals: {_text(report.ci_description)}.", style="dim", highlight=False)
    if any(m.pvalue is not None for m in report.metrics.values()):
        console.print(chance_legend(report), style="dim", highlight=False)
    for note in report.notes:
        console.print(f"note: {_text(note)}", style="yellow", highlight=False)


def columns_legend(report: Any, *, constant: str = "best constant") -> str:
    """What the constant, advantage and OPS columns mean (the details, Markdown and HTML),
    in the report's own words: accuracy and the majority class only where accuracy is a row,
    the OPS only where a row has one (no class wording in a regression report).
    ``constant``: the constant column's header."""
    accuracy = "accuracy" in report.metrics
    parts = [f"{constant} = the value of the best constant prediction"
             + (" (for accuracy: always the majority class)" if accuracy else ""),
             "advantage = (value − constant) / (perfect − constant), the prediction advantage of the metric"
             + (" (for accuracy exactly PA = 1 − error / error of the majority class, El-Yaniv et al.)" if accuracy
                else " (El-Yaniv et al.)")]
    if _has_ops(report):
        where = "at this prevalence" if report.prevalence is not None else "one-vs-rest at each class's prevalence"
        parts.append(f"OPS = outperformance score, the share of all possible classifiers {where} that the value "
                     "beats (Zhao et al.)")
    return "; ".join(parts)


def chance_legend(report: Any) -> str:
    """What the bound and p (chance) columns mean (terminal details, Markdown and HTML), in the
    report's own words: McNemar's test only where accuracy or the prediction advantage of
    labels is a row, the permutation of the targets in a regression report."""
    head = ("bound = one-sided confidence bound on the side of better (≥ when higher is better); "
            "p (chance) = one-sided p-value of no better than chance: ")
    if report.task == "regression":
        return head + ("the permutation test (the targets shuffled against the predictions: Monte Carlo "
                       "permutations of the rows; for the mean squared error and R² a normal approximation from "
                       "the moments).")
    mcnemar = any(name in report.metrics for name in ("accuracy", "prediction_advantage"))
    return head + (("for accuracy and the prediction advantage McNemar's exact test against always predicting the "
                    "majority class (= no better than the constant), the exact tests' mid-p-value (P(better) + "
                    "P(equal) / 2), for the others ") if mcnemar else "") + (
        "the permutation test (labels shuffled against the predictions, from the counts: exact for labeling "
        "metrics, Monte Carlo for the AUCs and losses; weighted rows and class probabilities: Monte Carlo "
        "permutations of the rows).")


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


def render_report(report: Any, *, console: Any = None, details: bool = False, hint: str = DETAILS_HINT) -> None:
    """Print the report to the terminal (stdout by default): the verdict, the task and one
    table; ``details=True``: the full account (each metric's verdict, the per-class table,
    the confusion matrix, the method, the notes)."""
    _print_report(console or _console(), report, details=details, hint=hint)


def render_report_text(report: Any, *, width: int = 100, details: bool = False, hint: str = DETAILS_HINT) -> str:
    """The terminal rendering as plain text (no colours); ``details`` as in :func:`render_report`."""
    buf = io.StringIO()
    _print_report(_console(buf, width, force_terminal=False), report, details=details, hint=hint)
    return buf.getvalue()
