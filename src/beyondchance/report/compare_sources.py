"""The scan of test sets that are tables or files, for :func:`beyondchance.report.compare.compare`
(``compare(sources, y_true="label", …)``): each source's statistics from its engine (kept statistics as
they are), or its exact score histogram when it has no labels; the checks of what was scanned; the task
given once; each binary set's positive class checked and its scores scanned; the default threshold from
every set's score range; the grouped bootstrap's sums; and each set's report from its statistics — all
while the sources are open.  The comparison of the reports is :mod:`beyondchance.report.compare`'s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Sequence

from .._warnings import InvalidInputError
from ..engines.detect import _resolve_positive
from ..engines.row_source import RowSource
from ..engines.scan import _as_source, _is_statistics, _kept, _prepare, _scan_replicates, _scan_scores, score_column
from ..measures.curves import ThresholdCounts
from ..statistics.sufficient import BinnedScoreCounts
from ..statistics.task_statistics import TaskStatistics
from .formatting import _label
from .from_statistics import report_from_statistics
from .report import Report
from .tasks.binary_scores import _threshold_choice


#: a source's name, its open source (None: kept statistics) and its statistics
_Prepared = tuple[str, Any, TaskStatistics]


def _window_of_source(src: Any, nm: str, *, y_score: tuple[str, ...], sample_weight: str | None, engine: str,
                      step: Callable[[str], None]) -> tuple[str, Any, int]:
    """(name, exact score histogram, rows) of a source without labels, aggregated by the engine."""
    step(f"aggregating the scores of {nm} ({engine}; no labels)")
    try:
        return (nm, *src.score_histogram(y_score=y_score[0], weight=sample_weight))
    except InvalidInputError as exc2:
        raise InvalidInputError(f"test set {nm!r} (no labels): {exc2}") from None


def _scan_sources(sources: Mapping[str, Any], opened: list[Any], *, y_true: str, y_score: tuple[str, ...],
                  y_pred: str | None, sample_weight: str | None, engine: str, score_bins: int | None, session: Any,
                  delimiter: str | None, task: str | None, labels: Any, ci: bool, quantile: Any, score_names: Any,
                  step: Callable[[str], None]
                  ) -> tuple[list[_Prepared], list[tuple[str, Any, int]], list[str], set[tuple[str, ...]], Any]:
    """Each source's statistics (kept, or from the engine's scan of its labels; every source opened is added
    to ``opened``), or its score histogram when it has no ``y_true`` column: (prepared, windows, why each
    window has no labels, each set's probability columns in the order of its classes, the labels typed)."""
    prepared: list[_Prepared] = []
    windows: list[tuple[str, Any, int]] = []  # (name, score histogram, rows) of the sources without labels
    no_labels: list[str] = []  # why each of those has none (the column not found, with the columns it has)
    orders: set[tuple[str, ...]] = set()  # each set's probability columns in the order of its classes
    for nm in list(sources):
        if _is_statistics(sources[nm]):
            prepared.append((nm, None, _kept(nm, sources[nm], task if not prepared else prepared[0][2].task)))
            continue
        step(f"scanning {nm} ({engine})")
        src = _as_source(sources[nm], engine, session, nm, delimiter)
        opened.append(src)
        try:
            p, labels, ordered = _prepare(src, y_true=y_true, y_score=y_score, y_pred=y_pred,
                                          weight=sample_weight, score_names=score_names,
                                          task=task if not prepared else prepared[0][2].task, labels=labels,
                                          score_bins=score_bins, ci=ci, quantile=quantile)
            orders.add(ordered)
        except InvalidInputError as exc:
            if not (f"column {y_true!r} not found" in str(exc) and len(y_score) == 1 and y_pred is None):
                raise InvalidInputError(f"test set {nm!r}: {exc}") from None
            no_labels.append(str(exc))
            windows.append(_window_of_source(src, nm, y_score=y_score, sample_weight=sample_weight, engine=engine,
                                             step=step))
            continue
        prepared.append((nm, src, p))
    return prepared, windows, no_labels, orders, labels


def _check_scanned(prepared: list[_Prepared], windows: list[tuple[str, Any, int]], no_labels: list[str],
                   orders: set[tuple[str, ...]], reference: str | None, y_true: str) -> None:
    """Refuse sources of which none has labels, a reference without labels, and probability columns that
    name different classes in different sets."""
    if not prepared:
        raise InvalidInputError(f"compare needs a test set with labels as the reference, and none has the "
                                f"column {y_true!r}: {no_labels[0]}")
    labelled = [nm for nm, _, _ in prepared]
    if reference is not None and reference not in labelled:
        known = labelled + [f"{nm} (no labels)" for nm, _, _ in windows]
        raise InvalidInputError(f"reference {reference!r} is not a test set with labels; test sets: "
                                f"{', '.join(known)}")
    if len(orders) > 1:
        raise InvalidInputError("the test sets' probability columns name different classes: give labels=")


def _scanned_score_columns(orders: set[tuple[str, ...]], y_score: tuple[str, ...], y_pred: str | None,
                           task: str) -> tuple[tuple[str, ...], str | None]:
    """(y_score, y_pred) once the sources are scanned: the probability columns in the order of the classes,
    and predictions of binary scores taken as the scores."""
    y_score = orders.pop() if orders else y_score
    if task == "binary-scores" and not y_score and y_pred is not None:  # predictions that are scores
        y_score, y_pred = (y_pred,), None
    return y_score, y_pred


def _task_given_once(prepared: list[_Prepared]) -> tuple[str, str] | None:
    """The first set's (task, reason) when it was detected (else None), each set's task then marked as given:
    as compare(), the task is resolved once, then given to every set."""
    first = prepared[0][2]
    detected = (first.task, first.reason) if first.source == "detected" else None
    for _, _, p in prepared:
        p.source, p.reason = "given", "given"
    return detected


def _positive_of_set(nm: str, src: Any, p: TaskStatistics, pl: Any, *, first_task: str, y_true: str,
                     y_score: tuple[str, ...], sample_weight: str | None, engine: str, score_bins: int | None,
                     step: Callable[[str], None]) -> None:
    """Check that one set can take the positive class ``pl`` (kept statistics: the one they counted as
    positive), and scan its scores of binary scores with it."""
    try:
        resolved = _resolve_positive(p.classes, p.counts0, pl)
    except InvalidInputError as exc:
        raise InvalidInputError(f"test set {nm!r}: {exc}") from None
    if src is None and p.positive is not None and _label(p.positive[0]) != _label(resolved[0]):
        raise InvalidInputError(f"test set {nm!r}: these statistics count {p.positive[0]!r} as the "
                                f"positive class, not {resolved[0]!r}: profile again with pos_label=")
    if src is not None and first_task == "binary-scores":
        step(f"aggregating the scores of {nm} ({engine})")
        _scan_scores(src, p, y_true=y_true, y_score=y_score[0], weight=sample_weight, pos=resolved[0],
                     score_bins=score_bins)


def _default_threshold_of_sets(prepared: list[_Prepared]) -> tuple[float, str, str | None]:
    """(threshold, why, note): the default threshold of binary scores from every set's score range."""
    ranges = []
    for _, _, p in prepared:
        tc = p.stats.threshold_counts() if isinstance(p.stats, BinnedScoreCounts) else p.stats
        assert isinstance(tc, ThresholdCounts)
        if tc.thresholds.size:
            ranges.append((float(tc.thresholds[-1]), float(tc.thresholds[0])))
    ranges = ranges or [(0.0, 0.0)]
    return _threshold_choice(None, min(r[0] for r in ranges), max(r[1] for r in ranges))


def _resolve_binary_sets(prepared: list[_Prepared], pl: Any, *, threshold: float | None, y_true: str,
                         y_score: tuple[str, ...], y_pred: str | None, sample_weight: str | None, engine: str,
                         score_bins: int | None, step: Callable[[str], None]
                         ) -> tuple[tuple[str, ...], float | None, tuple[float, str, str | None] | None]:
    """The score column and threshold resolved once for binary sets of the positive class ``pl``, their
    scores scanned: (y_score, threshold, the default threshold's (threshold, why, note) or None)."""
    first = prepared[0][2]
    if first.task == "binary-scores":  # two probability columns: the positive class's
        y_score = score_column(y_score, first.classes, pl)
    for nm, src, p in prepared:
        _positive_of_set(nm, src, p, pl, first_task=first.task, y_true=y_true, y_score=y_score,
                         sample_weight=sample_weight, engine=engine, score_bins=score_bins, step=step)
    assumed = None
    if first.task == "binary-scores" and threshold is None and y_pred is None:
        assumed = _default_threshold_of_sets(prepared)
        threshold = assumed[0]
    return y_score, threshold, assumed


def _scan_bootstrap_groups(prepared: list[_Prepared], *, y_true: str, y_score: tuple[str, ...], y_pred: str | None,
                           sample_weight: str | None, labels: Any, threshold: float | None, pos_label: Any,
                           score_bins: int | None, engine: str, step: Callable[[str], None],
                           options: dict[str, Any]) -> None:
    """Scan each open source's per-group sums of the grouped bootstrap and give it the source of its rows."""
    for nm, src, p in [x for x in prepared if x[1] is not None]:  # kept statistics hold their sums
        step(f"summing the bootstrap groups of {nm} ({engine})")
        pos = _resolve_positive(p.classes, p.counts0, pos_label) if p.task == "binary-scores" else None
        try:
            _scan_replicates(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight,
                             labels=labels, seed=options.get("random_state", 0), threshold=threshold,
                             pos=pos, score_bins=score_bins)
        except InvalidInputError as exc:
            raise InvalidInputError(f"test set {nm!r}: {exc}") from None
        p.row_source = RowSource(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight,
                                 labels=labels, score_bins=score_bins)


def _source_reports(prepared: list[_Prepared], *, pos_label: Any, threshold: float | None,
                    metrics: Sequence[str] | None, progress: Callable[[str], None] | None,
                    step: Callable[[str], None], options: dict[str, Any]) -> list[Report]:
    """Each set's report from its statistics (while the sources are open: their row permutation tests
    fetch the rows)."""
    reports = []
    for nm, src, p in prepared:
        step(f"evaluating {nm}")
        try:
            reports.append(report_from_statistics(p, engine=getattr(src, "engine", None), pos_label=pos_label,
                                                  threshold=threshold, metrics=metrics, name=nm,
                                                  progress=progress, **options))
        except InvalidInputError as exc:
            raise InvalidInputError(f"test set {nm!r}: {exc}") from None
    return reports
