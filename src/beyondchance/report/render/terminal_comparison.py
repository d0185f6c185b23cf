"""Terminal rendering of a comparison with rich: one screen by default.

One table with a row per window (the headline metric observed against its expected value,
the classifier effect, ▲/▼, "estimated" for a window without labels) and three lines at
most per flagged window; ``details=True`` (``beyondchance compare --details``,
``Comparison.details()``) gives the side-by-side tables of every metric.  The table layout
(no column narrower than its longest word) is :mod:`.terminal`'s.
"""

from __future__ import annotations

import io
import math
from typing import Any

from ..compare_tasks import AUC_TEST, TEST_QUANTITIES
from ..formatting import fmt_interval, fmt_value, shorten
from .terminal import _and_the_method, _Col, _TASK_WORDS, _console, _fit, _left_out, _ops_text, _style, _styled, _task_text, _text, _threshold_text

__all__ = ["render_comparison", "render_comparison_text", "describe_comparison", "headline_metric"]


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


def has_prevalence(comparison: Any) -> bool:
    """Whether a test set of the comparison has a prevalence (not in regression)."""
    return any(r.prevalence is not None and math.isfinite(r.prevalence) for r in comparison.reports)


def has_ops(comparison: Any) -> bool:
    """Whether a metric of the comparison has an OPS (not in regression)."""
    return any(m.ops is not None for r in comparison.reports for m in r.metrics.values())


def _comparison_cells(comparison: Any, report: Any) -> list[str]:
    """The cells of one test set's column: n, prevalence (where a set has one), then one cell
    per metric (its OPS where a metric has one)."""
    prevalence = report.prevalence
    cells = [f"{report.n:,}"]
    if has_prevalence(comparison):
        cells.append("-" if prevalence is None or not math.isfinite(prevalence) else f"{100 * prevalence:.2f}%")
    ops = has_ops(comparison)
    for name in comparison.metric_names:
        cell = comparison.cell(report, name, missing="-")
        if cell is None:
            cells.append("-")
            continue
        m, adv, _, flag = cell
        lines = [_styled(_style(m), fmt_value(m.value)), f"adv {adv}"]
        if ops:
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

    titles = ["n", *(["prevalence"] if has_prevalence(comparison) else [])] + [
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
        return fmt_interval(lo, hi, lambda x: f"{100 * x:.1f}%") if pct else fmt_interval(lo, hi)

    table.add_row("n", *[f"{e.n_window:,}" for e in ests])
    table.add_row("prevalence (est.)", *[
        f"{100 * e.prevalence:.1f}%" + (f"\n{ci(e.prevalence_ci.low, e.prevalence_ci.high, pct=True)}" if e.prevalence_ci else "") for e in ests])
    # the p-values are Monte Carlo: their number of draws is said (the windows share it)
    table.add_row(f"label shift rejected?\n(p from {ests[0].n_resamples} draws)", *[
        f"no, p = {e.assumption_pvalue:.2g}" if e.assumption_holds
        else f"[bold red]yes, p = {e.assumption_pvalue:.2g}[/bold red]" for e in ests], end_section=True)
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
        return ("Each cell: the value and its advantage over the best constant prediction; Δ: the difference "
                "from the reference with its interval. ▼/▲: this measure's difference is significant after Holm's "
                "correction over the measures and the test sets, worse/better.")
    if comparison.classifier_changes and task.startswith("multiclass"):
        return ("Each cell: the nominal value, its advantage over the best constant prediction and its OPS; exp: what "
                "the reference classifier (its confusion rates P(predicted | true class)"
                + ("; for the one-vs-rest ROC AUCs and the losses, its class-conditional distributions of the "
                   "probabilities" if task == "multiclass-probabilities" else "")
                + ") would score at that test "
                "set's class distribution, with its interval; clf: the classifier effect, observed − exp (the rest "
                "of the change is the prevalence effect, exp − reference). ▼/▲: evidence that the classifier changed on that set "
                "(Holm-corrected tests of each true class's predicted-class distribution"
                + (" and of the one-vs-rest ROC AUCs' classifier effects"
                   if any(t.quantity.startswith(AUC_TEST) for c in comparison.classifier_changes for t in c.tests)
                   else "")
                + ") and this metric's classifier effect interval lies below/above 0.")
    if comparison.classifier_changes:
        return ("Each cell: the nominal value, its advantage over the best constant prediction and its OPS at that "
                "test set's prevalence; exp: what the reference classifier (its error rates, or its ROC curve) "
                "would score at that prevalence, with its interval; clf: the classifier effect, observed − exp "
                "(the rest of the change is the prevalence effect, exp − reference). ▼/▲: evidence that the "
                "classifier changed on that set (Holm-corrected tests of its error rates and ROC AUC) and this metric's classifier "
                "effect interval lies below/above 0.")
    if not has_ops(comparison):
        return ("Each cell: the value and its advantage over the best constant prediction (the metric's "
                "prediction advantage).")
    return ("Each cell: the nominal value, its advantage over the best constant prediction (the metric's "
            "prediction advantage) and its OPS at that test set's prevalence. ▼/▲: the OPS interval lies "
            "entirely below/above the reference's.")


# --- the comparison's one screen: one row per window ------------------------------------------

#: where the short comparison points for the rest (the command line's flag by default)
COMPARE_DETAILS_HINT = "--details"


def headline_metric(comparison: Any) -> str | None:
    """The metric of the short comparison's table: the comparison's focus (the one its verdict
    uses), else the first metric whose change is decomposed, else the first metric."""
    if comparison.focus is not None and comparison.focus in comparison.metric_names:
        return comparison.focus
    for name in comparison.metric_names:
        if any(c.metric == name and c.decomposition is not None for c in comparison.changes):
            return name
    return comparison.metric_names[0] if comparison.metric_names else None


def _metric_title(comparison: Any, name: str) -> str:
    m = comparison.reports[0].metrics.get(name)
    return m.title if m is not None else name


def _pct(x: Any) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.2f}%"


def _band(value: float, ci: Any, stacked: bool = False) -> str:
    """``0.942 [0.864, 0.979]`` (``stacked``: the interval on a line of its own, never broken
    inside), or the value alone without an interval."""
    if value is None or not math.isfinite(value):
        return "-"
    if ci is None or not (math.isfinite(ci[0]) and math.isfinite(ci[1])):
        return fmt_value(value)
    return f"{fmt_value(value)}{chr(10) if stacked else ' '}{fmt_interval(*ci)}"


def _window_rows(comparison: Any, metric: str | None, stacked: bool = False) -> list[tuple[dict[str, str], bool]]:
    """One row per window: the windows with labels (the reference marked), then those without;
    ``stacked``: each interval under its value (for a console too narrow for both on a line)."""
    rows = []
    for r in comparison.reports:
        ref = r.name == comparison.reference
        name = _text(shorten(r.name))
        m = r.metrics.get(metric) if metric else None
        c = None if ref or metric is None else comparison.change(r.name, metric)
        cells = {"window": name, "n": f"{r.n:,}", "prevalence": _pct(r.prevalence),
                 "observed": "-" if m is None else _styled(_style(m), fmt_value(m.value)),
                 "expected": "-", "effect": "-"}
        if ref:
            cells["effect"] = "reference"
        elif c is not None and c.decomposition is not None and c.expected_value is not None \
                and math.isfinite(c.expected_value):
            cells["expected"] = _band(c.expected_value, c.expected_ci, stacked)
            effect = c.classifier_effect
            text = "-" if effect is None or not math.isfinite(effect) else f"{effect:+.3f}"
            flag = comparison.flag(r.name, metric)
            if flag:
                style = "bold green" if flag == "▲" else "bold red"
                text = f"[{style}]{text} {flag}[/{style}]"
            cells["effect"] = text
        rows.append((cells, False))
    for name, e in comparison.label_free:
        pm = e.metrics.get(metric) if metric else None
        prevalence = _pct(e.prevalence)
        rows.append(({"window": _text(shorten(name)), "n": f"{e.n_window:,}", "prevalence": prevalence + " est.",
                      "observed": "no labels",
                      "expected": "-" if pm is None else _band(pm.value, pm.ci, stacked),
                      "effect": "[yellow]estimated[/yellow]" if e.assumption_holds else
                      "[bold red]estimated; label shift doubtful[/bold red]"}, False))
    return rows


def _window_table(console: Any, comparison: Any, metric: str | None):
    level = int(round(comparison.reports[0].confidence_level * 100))
    has_ci = any(r.metrics.get(metric) is not None and r.metrics[metric].ci is not None for r in comparison.reports)
    cols = [_Col("window", "window", justify="left", wrap=True), _Col("n", "n")]
    if any(r.prevalence is not None and math.isfinite(r.prevalence) for r in comparison.reports):
        cols.append(_Col("prevalence", "prevalence", wrap=True))
    regression = comparison.reports[0].task == "regression"
    expected = "reference" if regression else "expected"
    cols += [_Col("observed", "observed", wrap=True),
             _Col("expected", f"{expected}\n({level}% CI)" if has_ci else expected, wrap=True),
             _Col("effect", "difference" if regression else "classifier\neffect", wrap=True)]
    table, dropped = _fit(console, cols, _window_rows(comparison, metric), drop=("n", "prevalence"))
    column = next((c for c in table.columns if "expected" in str(c.header) or "reference" in str(c.header)), None)
    widest = max((len(str(cell)) for cell in column.cells), default=0) if column is not None else 0
    if column is not None and column.width is not None and column.width < widest:
        # sized narrower than its bands: rich would break an interval inside; each under its value
        table, dropped = _fit(console, cols, _window_rows(comparison, metric, stacked=True), drop=("n", "prevalence"))
    return table, dropped


def _test_name(t: Any, titles: dict[str, str]) -> str:
    """What a test of the classifier is of, in a flag's words ("recall of true class 2", a metric's title ...)."""
    if t.quantity.startswith("class:"):
        return f"recall of true class {t.quantity[6:]}"
    if t.quantity.startswith(AUC_TEST):
        return titles.get(t.quantity[len(AUC_TEST):], t.quantity[len(AUC_TEST):])
    return TEST_QUANTITIES.get(t.quantity) or titles.get(t.quantity, t.quantity)


def _test_change(t: Any) -> str:
    """A test's reference value → value (rates in percent)."""
    if t.quantity in ("fpr", "fnr") or t.quantity.startswith("class:"):
        return f"{100 * t.reference_value:.2f}% → {100 * t.value:.2f}%"
    return f"{fmt_value(t.reference_value)} → {fmt_value(t.value)}"


def _flag_mark(flag: str, worse: list[str], better: list[str]) -> str:
    """The mark of a flagged window: the headline's flag, else ▼ / ▲ when its metrics moved one way only, else •."""
    return flag or ("▼" if worse and not better else "▲" if better and not worse else "•")


def _beyond_prevalence(worse: list[str], better: list[str]) -> str:
    """The metrics worse and better beyond the prevalence effect, as sentences ("" when none)."""
    text = ""
    for label, group in (("worse", worse), ("better", better)):
        if group:
            text += (f" {label.capitalize()} beyond the prevalence effect"
                     + (f" in {len(group)} metrics: " if len(group) > 1 else ": ") + ", ".join(group) + ".")
    return text


def _changed_window_text(comparison: Any, r: Any, cc: Any, metric: str | None, titles: dict[str, str]) -> str:
    """The flag of a window whose classifier changed: its mark, the tests that reject, the metrics that moved."""
    own = [c for c in comparison.changes if c.test_set == r.name]
    worse = [titles.get(c.metric, c.metric) for c in own if c.direction == "worse"]
    better = [titles.get(c.metric, c.metric) for c in own if c.direction == "better"]
    mark = _flag_mark(comparison.flag(r.name, metric) if metric else "", worse, better)
    moved = [t for t in cc.tests if t.pvalue_adjusted <= cc.level]
    parts = [f"{_test_name(t, titles)} {_test_change(t)} (adjusted p = {t.pvalue_adjusted:.2g})" for t in moved]
    what = ("evidence that the error measures changed" if r.task == "regression"
            else "evidence that the classifier changed")
    return f"{mark} {shorten(r.name)}: {what} — " + "; ".join(parts) + "." + _beyond_prevalence(worse, better)


def _flag_lines(comparison: Any, metric: str | None, width: int) -> list[str]:
    """At most three plain lines per flagged window: a window whose classifier changed (the
    headline flag, or another metric's), or without labels where label shift is doubtful."""
    import textwrap

    out: list[str] = []
    titles = {n: _metric_title(comparison, n) for n in comparison.metric_names}
    for r in comparison.reports:
        cc = comparison.classifier_change(r.name)
        if cc is None or not cc.changed:
            continue
        out += _three_lines(_changed_window_text(comparison, r, cc, metric, titles), width, textwrap)
    for name, e in comparison.label_free:
        if not e.assumption_holds:
            text = (f"! {shorten(name)}: the scores do not look like the reference's classes mixed anew "
                    f"({e.assumption_pvalue_text}): its estimated prevalence and metrics may be off.")
            out += _three_lines(text, width, textwrap)
    return out


def _three_lines(text: str, width: int, textwrap: Any) -> list[str]:
    """The text wrapped to ``width``, at most three lines (cut between words, with " …")."""
    return textwrap.wrap(text, width=width, subsequent_indent="  ", break_on_hyphens=False, max_lines=3,
                         placeholder=" …")


def _short_legend(comparison: Any, metric: str | None) -> str:
    task = comparison.reports[0].task
    level = next((c.level for c in comparison.classifier_changes), 1 - comparison.reports[0].confidence_level)
    pct = f"{100 * level:g}%"
    where = ("that window's class distribution" if task.startswith("multiclass")
             else "that window's prevalence")
    if task == "regression":
        parts = ["reference: the reference window's value", "difference: observed − reference"]
    else:
        parts = [f"expected: what the reference classifier would score at {where}",
                 "classifier effect: observed − expected (the rest of the change is the prevalence effect)"]
    if comparison.changes and all(c.direction == "no interval" for c in comparison.changes):
        parts.append("confidence intervals are off: no window is flagged")
    elif task == "regression":
        parts.append(f"▼ evidence that the error changed for the worse (Holm-adjusted p ≤ {pct}), ▲ for the better")
    else:
        parts.append(f"▼ evidence that the classifier changed for the worse (Holm-adjusted p ≤ {pct}), "
                     f"▲ for the better")
    if comparison.label_free:
        parts.append("estimated: a window without labels, its prevalence estimated from its scores and the "
                     "reference classifier projected there (label shift assumed)")
    return "; ".join(parts) + "."


def _compare_details_text(comparison: Any) -> str:
    extra = ["the verdict for every window", "every metric's value, advantage, OPS, expected value and "
             "classifier effect" if has_ops(comparison) else "every metric's value, advantage and difference from "
             "the reference"]
    if comparison.label_free:
        extra.append("the windows without labels in full")
    return _and_the_method(extra, len(comparison.notes))


def _print_comparison_short(console: Any, comparison: Any, hint: str = COMPARE_DETAILS_HINT) -> None:
    """One table (a row per window), three lines at most per flagged window, a legend and a
    line saying what the details add."""
    metric = headline_metric(comparison)
    n_sets = len(comparison.reports) + len(comparison.label_free)
    title = _metric_title(comparison, metric) if metric else "the metrics"
    first = comparison.reports[0]
    windows = len(comparison.label_free)
    sets = f"{n_sets} windows" + (f" ({windows} without labels)" if windows else "")
    head = [f"{_TASK_WORDS[first.task]} ({first.task_source})", sets]
    if first.threshold is not None:
        head.append(_threshold_text(first))
    console.print(f"[bold]beyondchance compare[/bold]: {_text('; '.join(head))}.", highlight=False)
    console.print(f"[bold]{_text(title)} by window[/bold], against the reference "
                  f"{_text(shorten(comparison.reference))}:", highlight=False)
    table, dropped = _window_table(console, comparison, metric)
    console.print(table)
    _left_out(console, dropped)
    for line in _flag_lines(comparison, metric, console.width):
        console.print(_text(line), highlight=False, soft_wrap=False, overflow="ignore", crop=True)
    console.print(_short_legend(comparison, metric), style="dim", highlight=False)
    console.print(f"[bold]{_text(hint)}[/bold]: {_text(_compare_details_text(comparison))}.", highlight=False)


def render_comparison(comparison: Any, *, console: Any = None, details: bool = False,
                      hint: str = COMPARE_DETAILS_HINT) -> None:
    """Print a comparison of test sets to the terminal: by default one table, a row per window
    (the headline metric observed against its expected value, the classifier effect, ▲/▼);
    ``details=True``: the full account (the verdict, every metric for every window, the
    windows without labels, the method and the notes)."""
    console = console or _console()
    if details:
        _print_comparison(console, comparison)
    else:
        _print_comparison_short(console, comparison, hint)


def render_comparison_text(comparison: Any, *, width: int = 160, details: bool = False,
                           hint: str = COMPARE_DETAILS_HINT) -> str:
    """The comparison as plain text; ``details`` as in :func:`render_comparison`."""
    buf = io.StringIO()
    render_comparison(comparison, console=_console(buf, width, force_terminal=False), details=details, hint=hint)
    return buf.getvalue()
