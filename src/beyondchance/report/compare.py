r"""``compare``: several test sets (files, months, segments) side by side.

The monitoring use of the OPS paper (section 4): nominal metrics move with the test
set's prevalence even when the model does not change, so a dashboard of F1 or
precision cannot tell a drifting population from a degrading model.  For every test
set the comparison shows the nominal value next to its advantage over the constant
prediction and its outperformance score (OPS) at that set's prevalence, and flags the
sets whose OPS interval lies entirely below (▼) or above (▲) the reference set's.

Why OPS separates the two: under a pure change of prevalence (the class-conditional
score distributions stay the same — class-wise resampling) the Type-I and Type-II
errors (α, β) of a fixed classifier do not change, while precision
π(1−β)/(π(1−β) + (1−π)α) does.  The OPS of precision depends on (α, β) only through
α/(1−β) — the level line {precision = μ} through the classifier's point is the same
line for every π — so OPS(precision) (= OPS(lift)) is *exactly* invariant under a
change of prevalence and moves only when the classifier's errors move.  Other
metrics' OPS are only approximately invariant.

>>> import numpy as np
>>> from beyondchance.report.compare import compare
>>> rng = np.random.default_rng(0)
>>> def test_set(pi, n=4000):
...     y = (rng.random(n) < pi).astype(int)
...     return y, np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.2, n), 0, 1)
>>> c = compare({"5%": test_set(0.05), "30%": test_set(0.3)}, metrics=["precision", "f1"], ci=False)
>>> p5, p30 = (r["precision"] for r in c.reports)
>>> bool(p30.value - p5.value > 0.3), bool(abs(p30.ops - p5.ops) < 0.02)
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

import numpy as np

from .._validation import _check_label_values, as_1d, as_float, check_sample_weight, encode_labels
from .._summary_display import terminal_width
from .._warnings import InvalidInputError
from ..inference.significance import rejects
from ..monitoring.label_free import LabelFreeEstimate
from ..engines import SOURCE_ENGINE, detect_engine
from ..statistics.sufficient import BinnedScoreCounts, LabelCounts
from ..statistics.values import ValueHistogram
from ..monitoring.probabilities import ProbabilityStatistics
from ..monitoring.decomposition import DECOMPOSABLE, Decomposition, decompose
from ..monitoring.set_statistics import SetStatistics, check_reference
from ..monitoring.classifier_change import ClassifierChange, compare_classifiers
from .compare_tasks import (MULTICLASS_TASKS, UNDECOMPOSED_NOTE, bearing_tests, undecomposed_note, WEIGHTED_NOTE, TargetShift, multiclass_parts, regression_parts,
                             target_shifts)
from .compare_sources import (_Prepared, _check_scanned, _resolve_binary_sets, _scan_bootstrap_groups, _scan_sources,
                              _scanned_score_columns, _source_reports, _task_given_once)
from .compare_verdict import FOCUS_METRICS, Change, _decomposed_verdict, _direction, _title, _verdict
from .export import Exportable
from .formatting import fmt_interval, fmt_value, shorten
from .metric_rows import MetricResult
from .render.html import comparison_html, comparison_section
from .render.markdown import comparison_markdown
from .render.terminal_comparison import render_comparison_text
from .report import Report
from ..engines.detect import _resolve_positive, check_inputs
from .evaluate import evaluate

if TYPE_CHECKING:
    from ..measures.task_metrics import Task
from ..engines.scan import _as_columns, _column_names, _is_statistics, detect_task
from .tasks.binary_scores import _threshold_choice

__all__ = ["Comparison", "Change", "compare"]

@dataclass(frozen=True, eq=False)
class Comparison(Exportable):
    """Reports of several test sets and how their metrics moved (see :func:`compare`)."""

    reports: tuple[Report, ...]
    reference: str
    metric_names: tuple[str, ...]
    focus: str | None
    changes: tuple[Change, ...]
    verdict: tuple[str, ...]
    notes: tuple[str, ...] = ()
    classifier_changes: tuple[ClassifierChange, ...] = ()
    label_free: tuple[tuple[str, LabelFreeEstimate], ...] = ()
    target_shifts: tuple[TargetShift, ...] = ()

    def __repr__(self) -> str:
        names = ", ".join(repr(shorten(r.name)) for r in self.reports)
        return (f"<Comparison of {len(self.reports)} test sets ({names}), reference {shorten(self.reference)!r}; "
                "print() it, or show it in a notebook>")

    def _text(self) -> str:
        return render_comparison_text(self, width=terminal_width(), hint="comparison.details()")

    def details(self, *, width: int = 160) -> str:
        """The full account as plain text, ``width`` columns wide: the verdict for every test
        set, every metric's value, advantage, OPS, expected value and classifier effect, the
        windows without labels, the method and the notes. ``str(comparison)`` (and
        ``print(comparison)``) is the short one: a table with a row per window."""
        return render_comparison_text(self, width=width, details=True)

    def _html_fragment(self, plots: bool = False) -> str:
        return comparison_section(self, plots=plots)

    def _html_page(self, plots: bool = True) -> str:
        return comparison_html(self, plots=plots)

    def _markdown(self) -> str:
        return comparison_markdown(self)

    def report(self, name: str) -> Report:
        for r in self.reports:
            if r.name == name:
                return r
        raise InvalidInputError(f"no test set {name!r}; test sets: {', '.join(str(r.name) for r in self.reports)}")

    def change(self, test_set: str, metric: str) -> Change | None:
        for c in self.changes:
            if c.test_set == test_set and c.metric == metric:
                return c
        return None

    def cell(self, report: Report, metric: str, *, missing: str = "–") -> tuple[Any, str, str, str] | None:
        """One cell of the side-by-side table: (the metric's row, its advantage and OPS as
        text, the flag); None when the test set has no such metric."""
        m = report.metrics.get(metric)
        if m is None:
            return None
        adv = missing if not math.isfinite(m.advantage) else f"{m.advantage:+.3f}"
        ops = missing if m.ops is None else f"{m.ops:.3f}"
        assert report.name is not None  # the reports of a comparison are named after their test sets
        return m, adv, ops, self.flag(report.name, metric)

    def classifier_change(self, test_set: str) -> ClassifierChange | None:
        """The test of the classifier on ``test_set`` (None for the reference / no test)."""
        return next((c for c in self.classifier_changes if c.test_set == test_set), None)

    def decomposition_lines(self, test_set: str, metric: str) -> list[str]:
        """``["exp 0.858 [0.800, 0.900]", "clf +0.012"]``: the expected value and the classifier
        effect, the lines of a table cell (``[]`` if none; regression: ``["Δ …"]``)."""
        c = self.change(test_set, metric)
        if c is None or c.decomposition is None or not math.isfinite(c.expected_value):
            return []
        if not math.isfinite(c.prevalence_effect):  # regression: the difference from the reference
            ci = c.classifier_effect_ci
            return [f"Δ {c.classifier_effect:+.4g}" + ("" if ci is None else f" ({ci[0]:+.4g} to {ci[1]:+.4g})")]
        text = f"exp {fmt_value(c.expected_value)}"
        if c.expected_ci is not None:
            text += f" {fmt_interval(*c.expected_ci)}"
        return [text, f"clf {c.classifier_effect:+.3f}"]

    def decomposition_text(self, test_set: str, metric: str) -> str:
        """The :meth:`decomposition_lines` on one line, ``"exp 0.858 [0.800, 0.900], clf +0.012"``."""
        return ", ".join(self.decomposition_lines(test_set, metric))

    def flag(self, test_set: str, metric: str) -> str:
        """``"▼"`` / ``"▲"``: the tests found evidence that the classifier changed on this set
        and this metric's classifier effect is worse / better (see ``Change``)."""
        c = self.change(test_set, metric)
        if c is None:
            return ""
        return {"worse": "▼", "better": "▲"}.get(c.direction, "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "focus_metric": self.focus,
            "verdict": list(self.verdict),
            "metrics": list(self.metric_names),
            "test_sets": [r.to_dict() for r in self.reports],
            "changes": [c.to_dict() for c in self.changes],
            "classifier_changes": [c.to_dict() for c in self.classifier_changes],
            "label_free": [{"test_set": name, **est.to_dict()} for name, est in self.label_free],
            "target_shifts": [t.to_dict() for t in self.target_shifts],
            "notes": list(self.notes),
        }

    def to_frame(self):
        """Long :class:`pandas.DataFrame`: one row per (test set, metric)."""
        import pandas as pd

        frames = []
        for r in self.reports:
            f = r.to_frame().reset_index()
            f.insert(0, "test_set", r.name)
            f.insert(1, "prevalence", r.prevalence)
            frames.append(f)
        return pd.concat(frames, ignore_index=True)


def _as_sets(test_sets: Any) -> list[tuple[str, Any, Any, Any]]:
    items: list[tuple[str, Any, Any, Any]] = []
    pairs = test_sets.items() if isinstance(test_sets, Mapping) else test_sets
    for entry in pairs:
        if isinstance(test_sets, Mapping):
            name, data = entry
        else:
            name, *data = entry
            data = tuple(data)
        data = tuple(data)
        if len(data) not in (2, 3):
            raise InvalidInputError(
                f"test set {name!r} must be (y_true, y_score) or (y_true, y_score, sample_weight), got {len(data)} items"
            )
        items.append((str(name), data[0], data[1], data[2] if len(data) == 3 else None))
    if len(items) < 1:
        raise InvalidInputError("compare needs at least one test set")
    names = [n for n, *_ in items]
    if len(set(names)) != len(names):
        raise InvalidInputError(f"test set names must be unique, got {names}")
    return items


def _refuse_column_options(**values: Any) -> None:
    """Refuse the options of tables or files (``y_score``, ``engine``, ...) given with arrays."""
    for option, value in values.items():
        if value is not None:
            raise InvalidInputError(f"{option} applies to test sets that are tables or files: give y_true as the "
                                    "name of their label column")


def _labelled_and_windows(test_sets: Any) -> tuple[list[tuple[str, Any, Any, Any]], list[tuple[str, Any, Any, Any]]]:
    """(the test sets with labels, the windows without labels: y_true None), refusing a comparison without
    a set with labels."""
    items = _as_sets(test_sets)
    windows = [it for it in items if it[1] is None]
    items = [it for it in items if it[1] is not None]
    if not items:
        raise InvalidInputError("compare needs a test set with labels (y_true) as the reference")
    return items, windows


def _reference_of(items: list[tuple[str, Any, Any, Any]], windows: list[tuple[str, Any, Any, Any]],
                  reference: str | None) -> str:
    """The reference: the one given, which must be a set with labels, else the first set with labels."""
    names = [n for n, *_ in items]
    if reference is None:
        return names[0]
    if reference not in names:
        known = names + [f"{n} (no labels)" for n, *_ in windows]
        raise InvalidInputError(f"reference {reference!r} is not a test set with labels; test sets: {', '.join(known)}")
    return reference


def _pooled_positive_of_arrays(items: list[tuple[str, Any, Any, Any]]) -> Any:
    """The positive class of binary sets from their pooled labels (labels that cannot be pooled refused,
    naming the test set and its row)."""
    pooled = np.concatenate([as_1d(yt, f"y_true of {n}") for n, yt, _, _ in items])
    try:
        codes, _, classes = encode_labels(pooled)
    except InvalidInputError:
        _check_labels_per_set(items)  # names the test set and its row
        raise
    return _resolve_positive(classes, np.bincount(codes, minlength=classes.size), None)[0]


def _default_threshold_of_arrays(items: list[tuple[str, Any, Any, Any]]) -> tuple[float, str, str | None]:
    """(threshold, why, note): the default threshold of binary scores from every set's score range."""
    scores = [as_float(y, f"the scores of test set {n!r}") for n, _, y, _ in items]
    scores = [a for a in scores if a.size] or [np.zeros(1)]
    return _threshold_choice(None, min(a.min() for a in scores), max(a.max() for a in scores))


def _binary_choices(items: list[tuple[str, Any, Any, Any]], task: str, pos_label: Any, threshold: float | None
                    ) -> tuple[Any, float | None, tuple[float, str, str | None] | None]:
    """(pos_label, threshold, the default threshold's (threshold, why, note) or None) resolved once for
    every set: the positive class from the pooled labels, the threshold from every set's scores."""
    assumed = None
    if task.startswith("binary"):
        if pos_label is None:
            pos_label = _pooled_positive_of_arrays(items)
        if task == "binary-scores" and threshold is None:
            assumed = _default_threshold_of_arrays(items)
            threshold = assumed[0]
    return pos_label, threshold, assumed


def _evaluate_arrays(items: list[tuple[str, Any, Any, Any]], *, task: str, pos_label: Any,
                     threshold: float | None, metrics: Sequence[str] | None, step: Callable[[str], None],
                     options: dict[str, Any]) -> list[Report]:
    """Each set's report, evaluated with the settings resolved once."""
    reports = []
    for name, yt, y, w in items:
        step(f"evaluating {name}")
        try:
            reports.append(evaluate(
                yt, y, sample_weight=w, task=cast("Task", task), pos_label=pos_label, threshold=threshold,
                metrics=metrics, name=name, **options,
            ))
        except InvalidInputError as exc:
            raise InvalidInputError(f"test set {name!r}: {exc}") from None
    return reports


def _window_histograms(windows: list[tuple[str, Any, Any, Any]]) -> list[tuple[str, Any, int]]:
    """(name, exact histogram of its scores, rows) of each window without labels."""
    hists = []
    for name, _, y, w in windows:
        s = as_float(y, f"the scores of test set {name!r}")
        hists.append((name, ValueHistogram.of_checked(s, check_sample_weight(w, s.shape[0])), s.shape[0]))
    return hists


def compare(
    test_sets: Mapping[str, Any] | Sequence[tuple],
    *,
    y_true: str | None = None,
    y_score: str | Sequence[str] = (),
    y_pred: str | None = None,
    sample_weight: str | None = None,
    engine: str | None = None,
    score_bins: int | None = None,
    session: Any = None,
    delimiter: str | None = None,
    reference: str | None = None,
    task: str | None = None,
    pos_label: Any = None,
    threshold: float | None = None,
    metrics: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
) -> Comparison:
    """Evaluate several test sets with the same settings and compare them.

    Parameters
    ----------
    test_sets : mapping name -> (y_true, y_score) or (y_true, y_score, sample_weight), or a
        sequence of (name, y_true, y_score[, sample_weight]).  ``y_true=None`` marks a window
        without labels (binary scores): its prevalence is estimated from its scores and
        every metric projected there (:func:`~beyondchance.estimate_performance`).  With
        ``y_true`` given (a column name): a mapping name -> table or files, each read as
        ``data=`` of :func:`~beyondchance.evaluate` is; a source without the ``y_true``
        column is a window without labels
    y_true, y_score, y_pred, sample_weight, engine, score_bins, session, delimiter : optional
        The column names and the engine of tables or files, as in
        :func:`~beyondchance.evaluate` with ``data=``
    reference : the test set the others are compared with (default: the first with labels)
    task, pos_label, threshold, metrics : as in :func:`~beyondchance.evaluate`,
        resolved once for all sets (the task and positive class from the first set /
        the pooled labels; the default threshold 0.5 if every set's scores lie in
        [0, 1], else 0).  The reports say which were detected or assumed rather than
        given, as :func:`~beyondchance.evaluate` does
    progress : called with a short description before each test set
    **options : passed to :func:`~beyondchance.evaluate` (``confidence_level``,
        ``n_resamples``, ``ci``, ``random_state``, ``labels``, ``normalize`` ...)

    Any test set may be the statistics of its rows kept by :func:`~beyondchance.profile` (a
    :class:`~beyondchance.TaskStatistics` or the path of its file), with the report and tests of
    those rows; arrays beside it are aggregated as columns by the memory engine (the task
    detected from the column types, as ``profile`` does).  The decomposition of the AUCs and
    losses of class probabilities needs every set's rows: a note says it is left out.

    Returns
    -------
    Comparison
        Binary tasks: every metric's change split into the prevalence effect and the
        classifier effect, and the tests of the classifier's error rates and ROC AUC.
        Multi-class tasks: the same on the class distribution (the reference's confusion
        rates P(predicted | true class); ``beyondchance.monitoring.decomposition_multiclass``).
        Regression: the Holm-corrected tests of each error measure's difference and the
        Kolmogorov–Smirnov test of a shift of the target (``target_shifts``), stated and
        not attributed.
    """
    kept = isinstance(test_sets, Mapping) and any(_is_statistics(v) for v in test_sets.values())
    if y_true is None and kept:  # statistics beside arrays: the arrays as columns of the memory engine
        assert isinstance(test_sets, Mapping)  # kept: a mapping
        y_true, y_score, sample_weight, test_sets, options["score_names"] = _as_columns(test_sets)
        engine = detect_engine(None) if engine is None else engine  # the engine of arrays
    if y_true is not None:
        if not isinstance(test_sets, Mapping):
            raise InvalidInputError("with y_true naming a column, test_sets maps each name to a table or files")
        return _compare_sources(test_sets, y_true=y_true, y_score=y_score, y_pred=y_pred,
                                sample_weight=sample_weight, engine=engine, score_bins=score_bins, session=session,
                                delimiter=delimiter, reference=reference, task=task, pos_label=pos_label,
                                threshold=threshold, metrics=metrics, progress=progress, **options)
    _refuse_column_options(y_score=y_score or None, y_pred=y_pred, sample_weight=sample_weight, engine=engine,
                           score_bins=score_bins, session=session, delimiter=delimiter)
    items, windows = _labelled_and_windows(test_sets)
    reference = _reference_of(items, windows, reference)
    step = progress or (lambda message: None)
    detected = None  # (task, reason) when the task is detected rather than given
    if task is None:
        task, reason = detect_task(items[0][1], items[0][2])
        detected = (task, reason)
    # assumed: (threshold, reason, note) when the threshold is a default
    pos_label, threshold, assumed = _binary_choices(items, task, pos_label, threshold)
    reports = _evaluate_arrays(items, task=task, pos_label=pos_label, threshold=threshold, metrics=metrics,
                               step=step, options=options)
    targets = probabilities = None
    if task == "regression":  # the targets' histograms, for the test of a shift of the target
        targets = {name: ValueHistogram.from_values(yt, sample_weight=w) for name, yt, _, w in items}
    if reports[0].task == "multiclass-probabilities":  # for the decomposition of the AUCs and losses
        probabilities = {name: _probability_statistics(yt, y, w, options) for name, yt, y, w in items}
    comparison = compare_reports(_resolved_once(reports, detected, assumed), reference=reference,
                                 random_state=options.get("random_state", 0), targets=targets,
                                 probabilities=probabilities)
    if windows:
        _check_window_task(windows[0][0], task)
        comparison = _with_windows(comparison, _window_histograms(windows), threshold, step, options)
    return comparison


#: the decomposition's resamples when every interval of the reference's report is closed-form
#: (``evaluate``'s default number of resamples)
CLOSED_FORM_RESAMPLES = 2000


def _roc_auc_effect_from_tests(decompositions: dict[str, dict[str, Decomposition]],
                               changes: Sequence[ClassifierChange]) -> None:
    """The ROC AUC's classifier-effect interval of each set is its ROC AUC test's interval of
    the same comparison (the Holm family's permutations, not the decomposition's own draws),
    so the decomposition and the test shown beside it never disagree."""
    for change in changes:
        test = next((t for t in change.tests if t.quantity == "roc_auc"), None)
        part = decompositions.get(change.test_set, {}).get("roc_auc")
        if test is not None and part is not None and part.classifier_effect_ci is not None:
            decompositions[change.test_set]["roc_auc"] = replace(
                part, classifier_effect_ci=test.difference_ci)


def _probability_statistics(y_true: Any, y: Any, w: Any, options: dict[str, Any]) -> ProbabilityStatistics:
    """The ``ProbabilityStatistics`` (:mod:`beyondchance.monitoring.probabilities`) of a test set of
    class probabilities, its inputs checked as :func:`~beyondchance.evaluate` checks them."""
    inp = check_inputs(y_true, y, w, task="multiclass-probabilities", labels=options.get("labels"),
                       normalize=options.get("normalize", False))
    assert inp.codes is not None and inp.proba is not None and inp.classes is not None  # class probabilities
    return ProbabilityStatistics.from_codes(inp.codes, inp.proba, tuple(inp.classes.tolist()), inp.weight,
                                            seed=groups_seed(options.get("random_state", 0)))


def groups_seed(random_state: Any) -> int:
    """The seed of the groups of rows of the probabilities' bootstrap: the report's seed when
    it is a non-negative integer, else 0."""
    return int(random_state) if isinstance(random_state, (int, np.integer)) and random_state >= 0 else 0


def _check_window_task(name: str, task: str) -> None:
    if task != "binary-scores":
        raise InvalidInputError(f"test set {name!r} has no labels: estimating a window's metrics from its scores "
                                f"needs binary scores, not a {task} task")


def _with_windows(comparison: Comparison, windows: Sequence[tuple[str, Any, int]], threshold: float | None,
                  step: Callable[[str], None], options: dict[str, Any]) -> Comparison:
    """The comparison with the label-free estimates of the windows without labels: (name, exact
    :class:`~beyondchance.statistics.values.ValueHistogram` of its scores, number of rows) each, estimated
    from the reference report's counts (so every engine gives the same numbers)."""
    from ..monitoring.label_free import estimate_from_statistics

    ref = comparison.report(comparison.reference)
    _check_window_task(windows[0][0], ref.task)
    names = [m for m in comparison.metric_names if m in DECOMPOSABLE]
    ci = options.get("ci", True)
    estimates = []
    lines = []
    for name, hist, n_rows in windows:
        step(f"estimating {name} without labels")
        try:
            binned = (ref.score_statistic or {}).get("bins")  # the reference's binned scores state their bound
            assert ref.counts is not None  # a reference of binary scores (_check_window_task)
            est = estimate_from_statistics(
                ref.counts if binned is None else BinnedScoreCounts.from_threshold_counts(ref.counts, binned),
                hist, n_window_rows=n_rows, n_reference_rows=ref.n, threshold=threshold, metrics=names,
                confidence_level=ref.confidence_level, n_resamples=options.get("n_resamples", 2000) if ci else 200,
                random_state=options.get("random_state", 0),
            )
        except InvalidInputError as exc:
            raise InvalidInputError(f"test set {name!r} (no labels): {exc}") from None
        estimates.append((name, est))
        line = f"{shorten(name)} (no labels): {est.verdict}"
        focus = next((m for m in FOCUS_METRICS if m in est.metrics), None)
        if est.assumption_holds and focus is not None:
            pm = est.metrics[focus]
            band = f" {fmt_interval(*pm.ci)}" if pm.ci is not None else ""
            line += (f" There the reference classifier would score {_title(ref, focus)} {fmt_value(pm.value)}"
                     f"{band}.")
        lines.append(line)
        lines += [f"{shorten(name)} (no labels): {c}." for c in est.caveats if "not a mixture" not in c]
    return replace(comparison, verdict=comparison.verdict + tuple(lines), label_free=tuple(estimates))


def _check_labels_per_set(items: list[tuple[str, Any, Any, Any]]) -> None:
    """Refuse labels of each test set, then labels whose kinds differ between sets."""
    _check_label_kinds({name: as_1d(yt, f"y_true of test set {name!r}") for name, yt, _, _ in items})


def _check_label_kinds(labels: Mapping[str, Any]) -> None:
    """Refuse test sets whose labels (each set's y_true, or its classes) differ in kind."""
    kinds = {name: _check_label_values(np.asarray(values), f"y_true of test set {name!r}")
             for name, values in labels.items()}
    if len(set(kinds.values())) > 1:
        shown = ", ".join(f"{name!r}: {kind}" for name, kind in kinds.items())
        raise InvalidInputError(f"the test sets' labels are not of one kind ({shown}); give them the same labels")


def _resolved_once(reports: list[Report], detected: tuple[str, str] | None,
                   assumed: tuple[float, str, str | None] | None) -> list[Report]:
    """The reports of test sets evaluated with a task and threshold that compare resolved once
    and passed on, saying that they were detected / assumed (not given), as one report would."""
    changes: dict[str, Any] = {}
    if detected is not None:
        changes.update(task_source="detected", task_reason=f"{detected[1]} (in the first test set)")
    note = None
    if assumed is not None:
        changes["threshold_reason"] = assumed[1]
        note = assumed[2]
    return [replace(r, **changes, notes=((note,) if note else ()) + r.notes) for r in reports]


def _default_resamples(ref: Report) -> int:
    """The decomposition's resamples: the reports' bootstrap; a closed-form interval (few rows: n_resamples 0)
    does not mean the intervals are off, so with only those the bootstrap's default count (0: intervals off)."""
    cis = [m.ci for m in ref.metrics.values() if m.ci is not None]
    return max((ci.n_resamples for ci in cis), default=0) or (CLOSED_FORM_RESAMPLES if cis else 0)


def _binary_parts(reports: list[Report], ref: Report, reference: str, stats: dict[str, SetStatistics],
                  metric_names: tuple[str, ...], *, level: float, n_resamples: int, random_state: int
                  ) -> tuple[dict[str, dict[str, Decomposition]], tuple[ClassifierChange, ...], list[str]]:
    """(each set's decomposition of every metric, the tests of the classifier, notes) of binary sets: the
    sets of a single class decomposed without resamples and not tested."""
    notes: list[str] = []
    decompositions: dict[str, dict[str, Decomposition]] = {}
    if any(r.total_weight is not None for r in reports):
        notes.append(WEIGHTED_NOTE)
    base = stats[str(ref.name)]
    check_reference(base, f"the reference set {shorten(ref.name)!r}")
    testable = {}
    for r in reports:
        if r.name == reference:
            continue
        new = stats[str(r.name)]
        if not (new.pos.sum() > 0 and new.neg.sum() > 0):
            notes.append(f"{shorten(r.name)}: a single class, so its error rates are undefined and the "
                         "classifier is not tested there")
            decompositions[str(r.name)] = decompose(base, new, metric_names, n_resamples=0)
            continue
        testable[str(r.name)] = new
        decompositions[str(r.name)] = decompose(base, new, metric_names, confidence_level=level,
                                                n_resamples=n_resamples, random_state=random_state)
    classifier_changes = compare_classifiers(base, testable, confidence_level=level, random_state=random_state)
    _roc_auc_effect_from_tests(decompositions, classifier_changes)
    return decompositions, classifier_changes, notes


def _ops_direction(a: MetricResult, b: MetricResult) -> str | None:
    """How a metric's OPS interval lies against the reference's ("worse", "better", ...; None: no OPS)."""
    if a.ops is None or b.ops is None:
        return None
    if a.ops_ci is None or b.ops_ci is None:
        return "no interval"
    if a.ops_ci[1] < b.ops_ci[0]:
        return "worse"
    if a.ops_ci[0] > b.ops_ci[1]:
        return "better"
    return "no significant change"


def _tested_direction(d: Decomposition, a: MetricResult, test_set: str, metric: str, task: str,
                      classifier_changes: Sequence[ClassifierChange], changed_sets: set[str]) -> str:
    """The direction of a decomposed metric's classifier effect, flagged only where a rejected test bears
    on what the metric reads."""
    changed = test_set in changed_sets
    if changed:  # a flag rests on a rejected test of what the metric reads
        cc = next(c for c in classifier_changes if c.test_set == test_set)
        changed = any(rejects(t.pvalue_adjusted, cc.level) for t in bearing_tests(task, metric, cc.tests))
    return _direction(d, a.greater_is_better, changed)


def _metric_change(r: Report, ref: Report, m: str, decompositions: Mapping[str, Mapping[str, Decomposition]],
                   classifier_changes: Sequence[ClassifierChange], changed_sets: set[str],
                   set_statistics: bool) -> Change | None:
    """How metric ``m`` moved on set ``r`` against the reference (None: not in both, or nothing to compare);
    ``set_statistics``: the sets are binary (their statistics decomposed)."""
    a, b = r.metrics.get(m), ref.metrics.get(m)
    if a is None or b is None:
        return None
    d = decompositions.get(str(r.name), {}).get(m)
    direction: str | None
    if d is not None:
        direction = _tested_direction(d, a, str(r.name), m, ref.task, classifier_changes, changed_sets)
    elif not set_statistics and ref.task not in ("binary-scores", "binary-labels") and decompositions:
        direction = "not decomposed"  # no OPS-interval verdict beside a decomposition
    else:
        direction = _ops_direction(a, b)
        if direction is None:
            return None
    return Change(str(r.name), m, a.value, b.value, a.ops, b.ops, a.ops_ci, b.ops_ci, direction, d)


def _changes(reports: list[Report], ref: Report, reference: str, metric_names: tuple[str, ...],
             decompositions: Mapping[str, Mapping[str, Decomposition]],
             classifier_changes: Sequence[ClassifierChange], set_statistics: bool) -> list[Change]:
    """How every metric moved on every set against the reference."""
    changed_sets = {c.test_set for c in classifier_changes if c.changed}
    changes = []
    for r in reports:
        if r.name == reference:
            continue
        for m in metric_names:
            change = _metric_change(r, ref, m, decompositions, classifier_changes, changed_sets, set_statistics)
            if change is not None:
                changes.append(change)
    return changes


def _shared_notes(reports: list[Report]) -> list[str]:
    """Each report's notes once, led by the sets that have it ("all test sets" when every one does)."""
    where: dict[str, list[str]] = {}
    for r in reports:
        for note in r.notes:
            where.setdefault(note, []).append(str(r.name))
    notes = []
    for note, sets_ in where.items():
        which = "all test sets" if len(sets_) == len(reports) > 1 else ", ".join(map(shorten, sets_))
        notes.append(f"{which}: {note}")
    return notes


def compare_reports(reports: Sequence[Report], *, reference: str | None = None, n_resamples: int | None = None,
                    random_state: int = 0, targets: Mapping[str, Any] | None = None,
                    probabilities: Mapping[str, ProbabilityStatistics] | None = None,
                    undecomposed: str = UNDECOMPOSED_NOTE) -> Comparison:
    """The :class:`Comparison` of reports already computed with the same settings (named, unique).

    Binary tasks get the decomposition of every metric's change and the test of the
    classifier (:mod:`beyondchance.monitoring.decomposition`), with ``n_resamples`` bootstrap resamples of
    both sets (default: the reports' own; 0 when their intervals are off); multi-class
    tasks the same on the class distribution (:mod:`beyondchance.monitoring.decomposition_multiclass`);
    regression the test of each error measure's difference and, given ``targets`` (set
    name -> :class:`~beyondchance.statistics.values.ValueHistogram` of its target), the test of a
    shift of the target (:mod:`beyondchance.report.compare_tasks`); given ``probabilities``
    (set name -> ``ProbabilityStatistics`` (:mod:`beyondchance.monitoring.probabilities`)), multi-class
    probabilities also the decomposition of the one-vs-rest ROC AUCs and of the losses (without
    them, the note ``undecomposed`` says why not and what to keep instead).
    """
    reports = list(reports)
    names = [str(r.name) for r in reports]
    if reference is None:
        reference = names[0]
    metric_names = tuple(reports[0].metrics)
    ref = reports[names.index(reference)]
    level = ref.confidence_level
    if n_resamples is None:
        n_resamples = _default_resamples(ref)
    stats = _set_statistics(reports)
    extra_notes: list[str] = []
    decompositions: dict[str, dict[str, Decomposition]] = {}
    classifier_changes: tuple[ClassifierChange, ...] = ()
    if stats is not None:
        decompositions, classifier_changes, extra_notes = _binary_parts(
            reports, ref, reference, stats, metric_names, level=level, n_resamples=n_resamples, random_state=random_state)
    task = ref.task
    shifts: tuple = ()
    if task in MULTICLASS_TASKS and all(r.confusion is not None for r in reports):
        decompositions, classifier_changes, more = multiclass_parts(
            reports, ref, metric_names, level=level, n_resamples=n_resamples, random_state=random_state,
            probabilities=probabilities, undecomposed=undecomposed)
        extra_notes += more
    elif task == "regression":
        decompositions, classifier_changes = regression_parts(reports, ref, metric_names, level=level)
        if targets is not None:
            shifts = target_shifts(reports, ref, targets)
    changes = _changes(reports, ref, reference, metric_names, decompositions, classifier_changes, stats is not None)
    focus = next((m for m in FOCUS_METRICS if m in metric_names
                  and all(r.metrics[m].ops is not None for r in reports)), None)
    if stats is not None or decompositions:
        verdict = _decomposed_verdict(reports, ref, changes, classifier_changes, level, shifts)
    else:
        verdict = _verdict(reports, ref, focus, changes)
    notes = _shared_notes(reports)
    return Comparison(tuple(reports), str(reference), metric_names, focus, tuple(changes), verdict,
                      tuple(notes + extra_notes), classifier_changes, target_shifts=shifts)


def _set_statistics(reports: list[Report]) -> dict[str, SetStatistics] | None:
    """Each binary report's :class:`~beyondchance.monitoring.set_statistics.SetStatistics` (None: not a binary task)."""
    out = {}
    for r in reports:
        if r.task == "binary-scores" and r.counts is not None and r.threshold is not None:
            out[str(r.name)] = SetStatistics.from_counts(r.counts, threshold=float(r.threshold), n_rows=r.n)
        elif r.task == "binary-labels" and r.confusion is not None:
            out[str(r.name)] = SetStatistics.from_confusion(*r.confusion.binary_counts(), n_rows=r.n)
        else:
            return None
    return out


def _pooled_positive(prepared: list[_Prepared], pos_label: Any) -> Any:
    """The positive class of binary sets: the one given, else resolved from the pooled label counts (after
    refusing labels whose kinds differ between sets)."""
    _check_label_kinds({nm: p.classes for nm, _, p in prepared})
    pooled = LabelCounts(prepared[0][2].classes, prepared[0][2].counts0)
    for _, _, p in prepared[1:]:
        pooled = pooled.merge(LabelCounts(p.classes, p.counts0))
    return pos_label if pos_label is not None else _resolve_positive(pooled.labels, pooled.counts, None)[0]


def _source_probabilities(prepared: list[_Prepared], *, y_true: str, y_score: tuple[str, ...],
                          sample_weight: str | None, labels: Any, score_bins: int | None, engine: str,
                          step: Callable[[str], None], options: dict[str, Any]) -> dict[str, Any] | None:
    """Each source's ``ProbabilityStatistics`` of class probabilities, aggregated by its engine (None: some
    source cannot give them)."""
    probabilities = {}
    for nm, src, p in prepared:
        step(f"aggregating the class scores of {nm} ({engine})")
        probabilities[nm] = src.probability_statistics(
            y_true=y_true, proba=list(y_score), weight=sample_weight,
            classes=p.classes if labels is None else labels, normalize=bool(options.get("normalize", False)),
            score_bins=score_bins, seed=groups_seed(options.get("random_state", 0)))
    if any(v is None for v in probabilities.values()):
        return None
    return probabilities


def _compare_sources(
    sources: Mapping[str, Any],
    *,
    y_true: str,
    y_score: str | Sequence[str] = (),
    y_pred: str | None = None,
    sample_weight: str | None = None,
    engine: str | None = None,
    score_bins: int | None = None,
    session: Any = None,
    delimiter: str | None = None,
    reference: str | None = None,
    task: str | None = None,
    pos_label: Any = None,
    threshold: float | None = None,
    labels: Any = None,
    metrics: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
):
    """:func:`compare` of tables or files scanned by an engine (``compare(sources, y_true="label", …)``).

    The task comes from the first source; the positive class from the pooled label
    counts and the default threshold from every set's score range, as for arrays.  A
    source without the ``y_true`` column (binary scores: one ``y_score`` column) is a
    window whose labels have not arrived: the engine aggregates its exact score histogram
    (one ``GROUP BY score``), and its prevalence and metrics are estimated under label
    shift from that and the reference's statistics
    (:func:`~beyondchance.monitoring.label_free.estimate_from_statistics`) — the same numbers on
    every engine.
    """
    y_true, scores = _column_names(y_true, y_score, y_pred, sample_weight)
    if task == "binary-scores" and not scores and y_pred is not None:  # the predictions are the scores
        scores, y_pred = (y_pred,), None
    engine = SOURCE_ENGINE if engine is None else engine
    ci = bool(options.get("ci", True))
    quantile = options.pop("quantile", None)  # of every set's scan (the rows follow from it)
    score_names = options.pop("score_names", True)  # what the probability columns are named by (scan._prepare)
    step = progress or (lambda message: None)
    opened: list[Any] = []
    try:
        prepared, windows, no_labels, orders, labels = _scan_sources(
            sources, opened, y_score=scores, y_pred=y_pred, session=session, delimiter=delimiter, task=task,
            labels=labels, ci=ci, quantile=quantile, score_names=score_names, y_true=y_true,
            sample_weight=sample_weight, engine=engine, score_bins=score_bins, step=step)
        _check_scanned(prepared, windows, no_labels, orders, reference, y_true)
        first = prepared[0][2]
        scores, y_pred = _scanned_score_columns(orders, scores, y_pred, first.task)
        detected = _task_given_once(prepared)
        assumed = None
        if first.task.startswith("binary"):
            pos_label = _pooled_positive(prepared, pos_label)
            scores, threshold, assumed = _resolve_binary_sets(
                prepared, pos_label, threshold=threshold, y_true=y_true, y_score=scores, y_pred=y_pred,
                sample_weight=sample_weight, engine=engine, score_bins=score_bins, step=step)
        if ci:
            _scan_bootstrap_groups(prepared, y_true=y_true, y_score=scores, y_pred=y_pred,
                                   sample_weight=sample_weight, labels=labels, threshold=threshold,
                                   pos_label=pos_label, score_bins=score_bins, engine=engine, step=step,
                                   options=options)
        probabilities: dict[str, Any] | None = None  # for the decomposition of the AUCs and losses of class probabilities
        kept = [nm for nm, src, _ in prepared if src is None]
        if first.task == "multiclass-probabilities" and not kept:
            probabilities = _source_probabilities(prepared, y_true=y_true, y_score=scores,
                                                  sample_weight=sample_weight, labels=labels,
                                                  score_bins=score_bins, engine=engine, step=step, options=options)
        reports = _source_reports(prepared, pos_label=pos_label, threshold=threshold, metrics=metrics,
                                  progress=progress, step=step, options=options)
    finally:
        for src in opened:
            src.close()
    targets = {nm: p.stats.targets for nm, _, p in prepared} if first.task == "regression" else None
    comparison = compare_reports(_resolved_once(reports, detected, assumed), reference=reference, targets=targets,
                                 probabilities=probabilities, random_state=options.get("random_state", 0),
                                 undecomposed=undecomposed_note(kept))
    if windows:
        comparison = _with_windows(comparison, windows, threshold, step, options)
    return comparison
