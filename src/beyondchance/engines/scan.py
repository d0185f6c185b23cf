r"""A table or files scanned by an engine into a task's statistics: ``evaluate(..., data=...)``.

The engine (:func:`~beyondchance.engines.get_runner`: ``"duckdb"`` over CSV / Parquet
files, glob patterns, tables and relations, ``"spark"`` through a SparkSession,
``"memory"`` over columns in memory) reads the columns once and aggregates the rows into
the task's :class:`~beyondchance.statistics.task_statistics.TaskStatistics`; the report is
built from them alone, by the same function as memory's
(:func:`~beyondchance.report.from_statistics.report_from_statistics`).

Intervals that cannot come from cells — the losses of probabilities, the regression
measures, and the labeling metrics of weighted data — come from the grouped Poisson
bootstrap (:mod:`beyondchance.inference.poisson_bootstrap`): one more aggregation sums the task's
quantities per group of rows (the group a hash of the row's position in the files, or
in the data frame), and the replicates are drawn on those sums with the report's seed.
Weighted binary scores also count the rows of positive weight per score (the units of
the score bootstrap).  So every interval, weighted or not, equals
:func:`~beyondchance.report.evaluate` on the rows with the same seed, to rounding.  A
DuckDB relation has no row order: its intervals of those measures are not computed (a
note says so).

The p-values against chance that permute the rows (weighted data, class probabilities,
the absolute and pinball losses of a regression: :mod:`beyondchance.report.pvalues`) need
the rows: when they fit the row-draw budget of memory
(:func:`~beyondchance.inference.permutation.rows.permutation_draws`) the report fetches the columns
of the test from the source — one query, in the rows' order — and runs memory's test on
them (:mod:`beyondchance.engines.row_source`), so they too equal
:func:`~beyondchance.report.evaluate`'s with the same seed; the source stays open until the
report is built.  Beyond the budget nothing is fetched: the permutation CLT of the weighted
cells, or the size limit named in ``pvalue_method``.

The report modules (:mod:`beyondchance.report.tasks`) are the ones
:func:`~beyondchance.report.evaluate` uses on the memory engine's statistics.

Detection without the rows follows the column *types* (regression when both y_true and
y_pred are floating point; a text or integer y_pred labels), except for a numeric score
column of a numeric y_true, read by its values (``beyondchance.engines.detect._detect``, the
one detector, of arrays too): predicted labels when each value is a class of y_true (one query
for some values outside them, ``Scan.values_outside``), else scores. ``task=`` overrides both.
Probability columns are matched to the classes by their names
(:func:`~beyondchance._validation.class_column_order`).
"""

from __future__ import annotations


import dataclasses
from collections.abc import Mapping
from typing import Any, Callable, Sequence

import numpy as np

from .._summary_display import _fmt_label, _label
from .._validation import (as_1d, as_array, check_aligned, check_n_classes, check_probabilities, check_quantile_option,
                           class_column_order, score_column_names)
from .._warnings import InvalidInputError
from ..inference.poisson_bootstrap import DEFAULT_GROUPS, check_row_offset
from ..measures.losses import PinballLoss
from ..measures.task_metrics import TASKS
from ..statistics.file_format import MAX_FILE_BYTES, encoded_bytes, is_statistics_file
from ..statistics.task_statistics import TaskStatistics, _resolve_positive, read_statistics
from . import SOURCE_ENGINE, detect_engine
from .detect import _detect, _score_values_outside
from .memory import CheckedColumns, MemoryScan
from .row_source import RowSource
from .spec import check_column_roles

__all__ = ["detect_task", "profile", "typed_labels"]


def _open(source: Any, engine: str, *, session: Any = None, name: str | None = None,
          delimiter: str | None = None) -> Any:
    """The :class:`~beyondchance.engines.runner.Scan` of one source on ``engine``: the needed columns
    are read once (``open``) and every statistic of the report is computed from that one read."""
    from . import engine_names, get_runner

    try:
        runner = get_runner(engine)
    except InvalidInputError:
        names = engine_names()
        raise InvalidInputError(f"engine must be {', '.join(names[:-1])} or {names[-1]}, got {engine!r}") from None
    return runner.open(source, session=session, name=name, delimiter=delimiter)


def typed_labels(labels: Any, kind: str | None) -> Any:
    """``labels`` given as text (the command line's ``--labels``) of a numeric y_true column
    (``kind`` ``"int"`` or ``"float"``): the column's numbers, so that the classes have
    y_true's type whichever engine read the column; other labels as given.

    >>> typed_labels(["0", "1", "2"], "int"), typed_labels(["0", "0.5"], "float"), typed_labels(["a"], "string")
    ([0, 1, 2], [0.0, 0.5], ['a'])
    """
    if labels is None or kind not in ("int", "float") or not all(isinstance(v, str) for v in labels):
        return labels
    try:
        values = [float(v) for v in labels]
    except ValueError:
        raise InvalidInputError(f"labels {','.join(labels)} are not numbers but y_true is numeric") from None
    if kind == "float":
        return values
    if not all(v.is_integer() for v in values):
        raise InvalidInputError(f"labels {','.join(labels)} are not integers but y_true holds integers")
    return [int(t) if t.strip().lstrip("+-").isdigit() else int(v) for t, v in zip(labels, values)]  # exact


def _prepare(
    src: Any, *, y_true: str, y_score: Sequence[str], y_pred: str | None, weight: str | None,
    task: str | None, labels: Any, score_bins: int | None, quantile: float | None = None, ci: bool = False,
    score_names: Any = True,
) -> tuple[TaskStatistics, Any, tuple[str, ...]]:
    """Detect the task and scan the labels (one cheap ``GROUP BY y_true``); ``ci``: keep the
    row order for the grouped bootstrap of the tasks that need it.  Returns the statistics,
    ``labels`` typed like y_true's column (:func:`typed_labels`) and the ``y_score`` columns of
    class probabilities in the order of the classes, for the later scans.  ``score_names``: the
    names that those columns carry (True: their column names; None: none, the columns of an
    array), matched to the classes by :func:`~beyondchance._validation.class_column_order`."""
    if not y_score and not y_pred:
        raise InvalidInputError("give y_score (scores or probability columns) or y_pred")
    if y_score and y_pred and len(y_score) != 1:  # scores with predicted labels: a binary-scores report
        raise InvalidInputError("predicted labels (y_pred) go with one score column of a binary task, "
                                f"got {len(y_score)} score columns")
    cols = [y_true, *y_score, *([y_pred] if y_pred else []), *([weight] if weight else [])]
    # the tasks whose intervals need the row positions (others need not pay for keeping them)
    needs_rows = ci and (weight is not None or len(y_score) > 1 or y_pred is not None or task == "regression")
    kinds = src.open(cols, [*y_score, *([weight] if weight else [])], row_index=needs_rows)
    for c in [*y_score, *([weight] if weight else [])]:
        if kinds[c] not in ("float", "int"):
            raise InvalidInputError(f"{src.name or 'input'}: column {c!r} is not numeric ({kinds[c]})")
    labels = typed_labels(labels, kinds.get(y_true))
    ordered = [tuple(y_score)]
    p = _task_statistics(src, kinds, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=weight, task=task,
                         labels=labels, score_bins=score_bins, quantile=quantile,
                         score_names=list(y_score) if score_names is True else score_names, ordered=ordered)
    return p, labels, ordered[0]


def _task_statistics(
    src: Any, kinds: dict[str, str], *, y_true: str, y_score: Sequence[str], y_pred: str | None, weight: str | None,
    task: str | None, labels: Any, score_bins: int | None, quantile: float | None, score_names: Any,
    ordered: list[tuple[str, ...]],
) -> TaskStatistics:
    """The task detected from the column ``kinds`` and its statistics (:func:`_prepare`; the
    probability columns in the order of the classes put in ``ordered[0]``)."""
    both = bool(y_score) and bool(y_pred)
    if task == "regression":  # y_true holds targets: not scanned as labels (nor checked as labels), as in memory
        return _prepare_regression(src, y_true=y_true, y_pred=y_pred if y_pred is not None else y_score[0],
                                   weight=weight, quantile=quantile)
    lc = src.statistics(y_true=y_true, y_pred=y_true, task="multiclass-labels", statistics=("label_counts",),
                        labels=labels if y_pred is None else None).label_counts
    classes, counts0 = lc.labels, lc.counts
    detected, reason, how = _task_of(src, kinds, y_true=y_true, y_score=y_score, y_pred=y_pred, task=task,
                                     classes=classes, both=both)
    if detected != "regression":  # before any k × k matrix
        check_n_classes(int(classes.size), what="y_true holds")
    elif how == "detected":
        _check_exact_targets(kinds.get(y_true), classes)
    n_rows = int(round(float(counts0.sum())))
    p = TaskStatistics(detected, how, reason, n_rows, weight is not None, classes, counts0, classes)
    _check_score_columns(detected, y_score, classes, labels)
    if len(y_score) > 1:
        order = class_column_order(score_names, classes if labels is None else np.asarray(labels, dtype=object),
                                   labels_given=labels is not None)  # in the order the statistics read them
        y_score = ordered[0] = tuple(y_score) if order is None else tuple(y_score[j] for j in order)
    _add_task_statistics(p, src, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=weight, labels=labels,
                         score_bins=score_bins, quantile=quantile, both=both)
    return p


def _add_task_statistics(p: TaskStatistics, src: Any, *, y_true: str, y_score: Sequence[str], y_pred: str | None,
                         weight: str | None, labels: Any, score_bins: int | None, quantile: float | None,
                         both: bool) -> None:
    """Puts in ``p`` the statistics of its task (``p.task``) over the rows of ``src``."""
    detected, reason, classes, counts0 = p.task, p.reason, p.classes, p.counts0
    if detected == "multiclass-probabilities":
        if len(y_score) < 2:
            raise InvalidInputError("a multiclass-probabilities report needs one probability column per class")
        p.stats = src.statistics(y_true=y_true, y_proba=list(y_score), weight=weight, task="multiclass-probabilities",
                                 labels=labels, score_bins=score_bins)
        return
    p.quantile = check_quantile_option(quantile, detected)
    if detected == "regression":
        p.stats = src.statistics(y_true=y_true, y_pred=y_pred if y_pred is not None else y_score[0], weight=weight,
                                 task="regression", pinball_alphas=() if p.quantile is None else (p.quantile,))
        return
    if detected == "binary-scores" and classes.size > 2:
        raise InvalidInputError(
            f"a binary report needs two classes; y_true has {classes.size} "
            f"({', '.join(map(_fmt_label, classes[:5]))} ...)"
        )
    if both:
        assert y_pred is not None  # both: y_score and y_pred
        if detected != "binary-scores":
            raise InvalidInputError(f"predicted labels (y_pred) go with the scores of a binary task; y_score makes a "
                                    f"{detected} report ({reason})")
        p.given, p.given_counts0, p.cells = _union_confusion(src, classes, counts0, y_true=y_true, y_pred=y_pred,
                                                             weight=weight, labels=labels)
        return
    if detected in ("labels", "binary-labels", "multiclass-labels"):
        # y_pred given, or a score column holding labels (an integer column: as evaluate() reads it)
        _add_label_statistics(p, src, y_true=y_true, y_pred=y_score[0] if y_pred is None else y_pred,
                              weight=weight, labels=labels)


def _task_of(src: Any, kinds: dict[str, str], *, y_true: str, y_score: Sequence[str], y_pred: str | None,
             task: str | None, classes: np.ndarray, both: bool) -> tuple[str, str, str]:
    """(task, reason, how): the task given (checked), or detected from the columns and classes."""
    if task is not None:
        if task not in TASKS:
            raise InvalidInputError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
        return task, "given", "given"
    shown = ", ".join(map(_fmt_label, classes[:2]))
    # a floating-point y_pred alone is read as a score column is: labels when each value is a class
    score = y_score[0] if len(y_score) == 1 else y_pred if not y_score and y_pred is not None and kinds.get(y_pred) == "float" else None
    outside = _score_values_outside(src, kinds, y_true, score, classes)
    detected, reason = _detect(kinds, y_true, y_score, None if both else y_pred, classes, shown, outside)
    return detected, reason, "detected"


def _check_score_columns(detected: str, y_score: Sequence[str], classes: np.ndarray, labels: Any) -> None:
    """Refuses score columns whose number does not fit the task and the classes."""
    if detected == "binary-scores" and len(y_score) > 2:
        raise InvalidInputError(f"a binary-scores report takes one score column or two probability columns "
                                f"(y_score), got {len(y_score)}: several columns are class probabilities "
                                "(task='multiclass-probabilities')")
    if detected == "binary-scores" and len(y_score) == 2 and classes.size != 2:
        raise InvalidInputError("two probability columns need two classes in y_true (pass labels=)")
    if detected == "multiclass-probabilities" and labels is None and len(y_score) != classes.size:
        # every engine's line, as for arrays (engines.detect), before the columns' names are read
        raise InvalidInputError(f"y_score has {len(y_score)} probability column(s) but y_true has {classes.size} "
                                f"classes ({', '.join(map(_fmt_label, classes[:6]))}); pass labels= naming the "
                                "class of each column")


def _add_label_statistics(p: TaskStatistics, src: Any, *, y_true: str, y_pred: str, weight: str | None,
                          labels: Any) -> None:
    """Puts in ``p`` the confusion matrix of predicted labels over the union of the labels (the
    task of detected labels then binary or multi-class by their number)."""
    classes, counts0 = p.classes, p.counts0
    cm, full, p.cells = _union_confusion(src, classes, counts0, y_true=y_true, y_pred=y_pred, weight=weight,
                                         labels=labels)
    union = np.asarray(cm.labels)
    p.classes, p.counts0, p.stats = union, full, cm
    if p.task == "labels":
        p.task = "binary-labels" if union.size <= 2 else "multiclass-labels"
        p.reason = f"y_true and y hold {union.size} labels ({', '.join(map(_fmt_label, union[:5]))})" \
            if union.size <= 2 else f"y_true has {classes.size} classes and y holds labels"
    elif p.task == "binary-labels" and union.size > 2:
        raise InvalidInputError(
            f"a binary report needs two classes; y_true and y hold {union.size} "
            f"({', '.join(map(_fmt_label, union[:5]))}); use task='multiclass-labels'"
        )


def score_column(y_score: tuple[str, ...], classes: np.ndarray, positive: Any) -> tuple[str, ...]:
    """The score column of binary scores: the one given, or of two probability columns in the
    order of the ``classes``, the ``positive`` class's."""
    if len(y_score) != 2:
        return y_score
    return (y_score[[_label(c) for c in classes.tolist()].index(_label(positive))],)


def _check_exact_targets(kind: str | None, classes: np.ndarray) -> None:
    """Integer targets of a detected regression are exact in float64 (within 2**53), or
    refused naming ``task=``, as :func:`~beyondchance.evaluate` refuses them."""
    big = [c for c in classes.tolist() if kind == "int" and abs(c) > 2**53]
    if big:
        raise InvalidInputError(f"y_true holds an integer float64 cannot represent exactly (beyond 2**53): {big[0]!r}; "
                                "pass task='regression' (--task regression) if they are targets")


def _prepare_regression(src: Any, *, y_true: str, y_pred: str, weight: str | None,
                        quantile: float | None) -> TaskStatistics:
    """The statistics of a regression given as the task, without the scan of y_true as labels:
    its targets are numbers, so no label check (a label beyond 2**53 …) applies to them, as
    in memory; the rows are counted by the statistics' own scan (weighted: one more, unweighted)."""
    q = check_quantile_option(quantile, "regression")
    stats = src.statistics(y_true=y_true, y_pred=y_pred, weight=weight, task="regression",
                           pinball_alphas=() if q is None else (q,))
    rows = stats if weight is None else src.statistics(y_true=y_true, y_pred=y_pred, task="regression",
                                                       statistics=("loss_sums",))
    none = np.array([])
    p = TaskStatistics("regression", "given", "given", int(round(rows.loss_sums.weight)), weight is not None, none,
                       none, none)
    p.stats, p.quantile = stats, q
    return p


def _union_confusion(src: Any, classes: np.ndarray, counts0: np.ndarray, *, y_true: str, y_pred: str,
                     weight: str | None, labels: Any) -> tuple[Any, np.ndarray, Any]:
    """The confusion matrix of (y_true, y_pred) over the union of their labels, the row
    counts of y_true over that union (0 for a label only predicted) and, weighted, the
    PermutationCells of the predicted labels (from the same scan)."""
    st = src.statistics(y_true=y_true, y_pred=y_pred, weight=weight, task="multiclass-labels",
                        statistics=("confusion", "permutation_cells"), labels=labels)
    cm = st.confusion
    idx = {(_label(c)): i for i, c in enumerate(np.asarray(cm.labels).tolist())}
    full = np.zeros(len(idx))
    for c, n in zip(classes.tolist(), counts0.tolist()):
        if _label(c) in idx:
            full[idx[_label(c)]] = n
    return cm, full, st.permutation_cells


def _scan_scores(src: Any, p: TaskStatistics, *, y_true: str, y_score: str, weight: str | None, pos: Any,
                 score_bins: int | None) -> None:
    # the loss sums of the losses' permutation CLT only where nothing else tests the losses beyond
    # the budget: weighted scores in bins (unweighted: the score cells; weighted exact: the weighted cells)
    wanted = ("scores", "permutation_cells") + (("permutation_loss_sums",) if weight and score_bins else ())
    stats = src.statistics(y_true=y_true, y_score=y_score, weight=weight, task="binary-scores", pos_label=pos,
                           statistics=wanted, score_bins=score_bins)
    p.stats, p.score_cells, p.loss_sums = stats.scores, stats.permutation_cells, stats.permutation_loss_sums


def _scan_replicates(src: Any, p: TaskStatistics, *, y_true: str, y_score: Sequence[str], y_pred: str | None,
                     weight: str | None, labels: Any, seed: int, threshold: Any, pos: tuple | None,
                     score_bins: int | None, row_offset: int = 0) -> None:
    """The per-group sums of the grouped bootstrap (:mod:`beyondchance.inference.poisson_bootstrap`) that the
    report's intervals need, while the source is open: regression and probabilities
    always, labels and binary scores when weighted (unweighted ones resample cells); the
    rows numbered from ``row_offset``."""
    from ..measures.threshold_counts import _threshold_choice
    from ..statistics.scores import BinnedScoreCounts

    common = dict(y_true=y_true, weight=weight, seed=seed, row_offset=row_offset)
    if p.task == "regression":
        median = p.stats.prediction_advantage("absolute").baseline.prediction
        quantile = {} if p.quantile is None else dict(
            quantile=p.quantile,
            quantile_value=p.stats.prediction_advantage(PinballLoss(p.quantile)).baseline.prediction)
        p.totals = src.group_totals(kind="regression", y_pred=y_pred if y_pred is not None else y_score[0],
                                    median=median, **quantile, **common)
    elif p.task == "multiclass-probabilities":
        p.totals = src.group_totals(kind="probabilities", proba=list(y_score), labels=labels, **common)
    elif not p.weighted:
        return
    elif p.task == "binary-scores" and p.given is not None:  # predicted labels given: the labels' totals
        assert pos is not None  # resolved for a binary task
        p.totals = src.group_totals(kind="labels", y_pred=y_pred, labels=labels, **common)
        p.units = src.unit_counts(y_true=y_true, y_score=y_score[0], weight=weight, pos_label=pos[0],
                                  score_bins=score_bins)
    elif p.task == "binary-scores":
        if pos is None or pos[1] is None:
            return
        tc = p.stats.threshold_counts() if isinstance(p.stats, BinnedScoreCounts) else p.stats
        if tc.thresholds.size == 0:
            return
        thr = _threshold_choice(threshold, float(tc.thresholds[-1]), float(tc.thresholds[0]))[0]
        p.totals = src.group_totals(kind="labels", y_score=y_score[0], threshold=thr, pos_label=pos[0],
                                    labels=(pos[1], pos[0]), **common)
        if p.totals is not None:
            p.totals.info["threshold"] = thr
        p.units = src.unit_counts(y_true=y_true, y_score=y_score[0], weight=weight, pos_label=pos[0],
                                  score_bins=score_bins)
    else:
        p.totals = src.group_totals(kind="labels", y_pred=y_pred if y_pred is not None else y_score[0],
                                    labels=labels, **common)


def _check_totals_fit_a_file(p: TaskStatistics) -> None:
    """Refuse, before they are summed, the grouped bootstrap's sums of a profile that no statistics
    file may hold (:func:`~beyondchance.statistics.file_format.size_refusal`, the reader's rule):
    labels and class probabilities keep k² confusion cells per group, so 400 weighted classes
    take 1,024 groups × 160,000 cells, 1.75 GB in a file (and some 8 GB to build and write)."""
    k = int(np.asarray(p.given.labels if p.given is not None else p.classes).size)
    columns = {"regression": 8, "multiclass-probabilities": k * k + k + 2}.get(p.task, k * k)
    if p.task not in ("regression", "multiclass-probabilities") and not p.weighted:
        return  # no sums: unweighted labels resample their cells
    size = encoded_bytes(DEFAULT_GROUPS * columns * 8)
    if size > MAX_FILE_BYTES:
        raise InvalidInputError(
            f"the grouped bootstrap's sums of {k:,} classes take {DEFAULT_GROUPS:,} groups x {columns:,} cells, "
            f"{size:,} bytes in a statistics file, more than it may hold ({MAX_FILE_BYTES:,}): profile with "
            "ci=False (--no-ci), or fewer classes")


def _as_source(source: Any, engine: str, session: Any, name: str | None, delimiter: str | None = None) -> Any:
    """``source`` itself when it is a scan already opened (a group of ``compare --by``), else its scan."""
    from . import Scan

    if isinstance(source, Scan):
        return source
    return _open(source, engine, session=session, name=name, delimiter=delimiter)


def _column_names(y_true: Any, y_score: Any, y_pred: Any, sample_weight: Any) -> tuple[str, tuple[str, ...]]:
    """``y_true`` and ``y_score`` (as a tuple) checked as column names of ``data`` (one column in two
    roles: :func:`~beyondchance.engines.spec.check_column_roles`)."""
    y_score = (y_score,) if isinstance(y_score, str) else tuple(y_score)
    for option, value in (("y_true", y_true), *(("y_score", c) for c in y_score), ("y_pred", y_pred),
                          ("sample_weight", sample_weight)):
        if value is not None and not isinstance(value, str):
            raise InvalidInputError(f"with data=, {option} names a column of data; got {type(value).__name__}")
    if y_true is None:
        raise InvalidInputError("with data=, y_true names the column of the true labels or targets")
    check_column_roles(y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight)
    return y_true, y_score


def _scan(
    src: Any, *, engine: str, y_true: str, y_score: Sequence[str], y_pred: str | None, weight: str | None,
    score_bins: int | None, task: str | None, pos_label: Any, threshold: Any, labels: Any, quantile: float | None,
    ci: bool, random_state: int, progress: Callable[[str], None] | None, keep_rows: bool, row_offset: int = 0,
    for_file: bool = False, score_names: Any = True,
) -> TaskStatistics:
    """The :class:`TaskStatistics` of an opened source: the labels, the task, its statistics and,
    when ``ci``, the grouped bootstrap's sums (seed ``random_state``; the rows numbered from
    ``row_offset``, recorded in their ``rows``); ``keep_rows``: the rows stay reachable for the
    row permutation tests (the source must then stay open); ``for_file``: statistics to keep (a
    profile), refused before their bootstrap sums when a statistics file could not hold those;
    ``score_names``: as :func:`_prepare`'s."""
    step = progress or (lambda message: None)
    step(f"scanning the labels ({engine})")
    p, labels, y_score = _prepare(src, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=weight, task=task,
                                  labels=labels, score_bins=score_bins, ci=ci, quantile=quantile,
                                  score_names=score_names)
    if score_bins is not None and p.task not in ("binary-scores", "multiclass-probabilities"):
        raise InvalidInputError(f"score_bins applies to scores and class probabilities, not to a {p.task} report")
    pos = None
    if p.task == "binary-scores" and not y_score and y_pred is not None:  # predictions that are scores
        y_score, y_pred = (y_pred,), None
    if p.task == "binary-scores":
        pos = p.positive = _resolve_positive(p.classes, p.counts0, pos_label)
        y_score = score_column(y_score, p.classes, pos[0])
        step(f"aggregating the scores ({engine})")
        _scan_scores(src, p, y_true=y_true, y_score=y_score[0], weight=weight, pos=pos[0], score_bins=score_bins)
    if ci:
        if for_file:
            _check_totals_fit_a_file(p)
        step(f"summing the bootstrap groups ({engine})")
        _scan_replicates(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=weight, labels=labels,
                         seed=random_state, threshold=threshold, pos=pos, score_bins=score_bins, row_offset=row_offset)
        if p.totals is not None:
            p.totals = dataclasses.replace(p.totals, rows=((row_offset, row_offset + p.n_rows),))
    if isinstance(src, MemoryScan):  # the statistics are computed: the report is built without the checked columns
        src.release_checked()
    if keep_rows:
        p.row_source = RowSource(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=weight,
                                 labels=labels, score_bins=score_bins)
    return p


def _array_columns(y_true: Any, y_score: Any, y_pred: Any, sample_weight: Any,
                   normalize: bool = False) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
    """(columns in memory, checked 1-D here once (:class:`~.memory.CheckedColumns`: the engine does
    not re-read them), the names of the columns of each role, the names that the columns of
    y_score carry) for arrays, each read by the rules of :mod:`beyondchance._validation`: y_score
    of two dimensions is one column of probabilities per class (``y_score[j]``), checked as
    probabilities (``normalize``: rows rescaled to sum to 1), named by the columns of a table
    (None: an array, matched by position)."""
    check_aligned(y_true=y_true, y_score=y_score, y_pred=y_pred, sample_weight=sample_weight)
    cols = CheckedColumns() if y_true is None else CheckedColumns(y_true=as_1d(y_true, "y_true"))  # None: a window
    names: dict[str, Any] = {"y_true": "y_true", "y_score": (), "y_pred": None, "sample_weight": None}
    score_names = None
    if y_score is not None:
        s = as_array(y_score, "y_score", squeeze=True)
        if s.ndim == 2 and s.shape[1] > 1:
            score_names = score_column_names(y_score)
            s = check_probabilities(s, "y_score", normalize=normalize)
            names["y_score"] = tuple(f"y_score[{j}]" for j in range(s.shape[1]))
            cols.update({c: s[:, j] for j, c in enumerate(names["y_score"])})
        elif y_pred is None and (s := as_1d(s, "y_score")).dtype.kind not in "iuf":  # labels: text, booleans
            names["y_pred"], cols["y_pred"] = "y_pred", s
        else:
            names["y_score"] = ("y_score",)
            cols["y_score"] = s if y_pred is None else as_1d(s, "y_score")  # 1-D already without y_pred
    for role, value in (("y_pred", y_pred), ("sample_weight", sample_weight)):
        if value is not None:
            names[role] = role
            cols[role] = as_1d(value, role)
    return cols, names, score_names


def profile(
    y_true: Any = None, y_score: Any = None, *, y_pred: Any = None, sample_weight: Any = None, data: Any = None,
    engine: str | None = None, score_bins: int | None = None, session: Any = None, delimiter: str | None = None,
    task: str | None = None, pos_label: Any = None, threshold: float | None = None, labels: Any = None,
    quantile: float | None = None, ci: bool = True, random_state: int = 0, row_offset: int = 0,
) -> TaskStatistics:
    """The statistics of a report, without the rows: save them (:meth:`TaskStatistics.save`),
    merge them (``a + b``) and report from them (:func:`report_from_statistics`) anywhere.

    The arguments are :func:`~beyondchance.evaluate`'s: arrays, or ``data=`` a table or files
    with the columns named (aggregated by ``engine``).  Arrays go to the memory engine as
    columns, so the task is detected as an engine detects it, from the column types (regression
    when y_true and y_pred are floating point; a numeric y_score of a numeric y_true holds
    scores unless each value is a class of y_true): give ``task=`` to be sure.  ``ci``: also the sums of the grouped Poisson bootstrap
    (seed ``random_state``) that the intervals of probabilities, regression and weighted data
    need, each row in the group of a hash of its position: ``row_offset`` + its position in
    these rows.  Profile the later part of the rows with ``row_offset`` = the rows before it
    (the earlier part's :attr:`~TaskStatistics.next_row_offset`), and the parts merge to the
    statistics of all the rows, intervals included (:meth:`TaskStatistics.merge`; not a
    regression's).  Weighted binary scores count those sums at the threshold
    (``threshold``, default as in the report), the report's.

    >>> st = profile([0, 1, 1, 0, 1, 0], [0.1, 0.8, 0.35, 0.4, 0.9, 0.2], ci=False)
    >>> st.task, st.n_rows, st.positive[0], round(st.stats.auc("roc"), 4)
    ('binary-scores', 6, 1, 0.8889)
    """
    score_names: list[Any] | bool | None
    if data is None:
        if y_true is None or (y_score is None and y_pred is None):
            raise InvalidInputError("profile needs y_true and y_score (scores or class probabilities) or y_pred, "
                                    "or data= with their column names")
        for option, value in (("engine", engine), ("session", session), ("delimiter", delimiter)):
            if value is not None:
                raise InvalidInputError(f"{option} applies to data= (a table or files that an engine aggregates)")
        source, names, score_names = _array_columns(y_true, y_score, y_pred, sample_weight)
        engine = detect_engine(source)  # columns in memory: the engine of arrays
    else:
        yt, ys = _column_names(y_true, () if y_score is None else y_score, y_pred, sample_weight)
        source, names = data, {"y_true": yt, "y_score": ys, "y_pred": y_pred, "sample_weight": sample_weight}
        score_names = True
        engine = SOURCE_ENGINE if engine is None else engine
    src = _as_source(source, engine, session, None, delimiter)
    try:
        p = _scan(src, engine=engine, y_true=names["y_true"], y_score=names["y_score"], y_pred=names["y_pred"],
                  weight=names["sample_weight"], score_bins=score_bins, task=task, pos_label=pos_label,
                  threshold=threshold, labels=labels, quantile=quantile, ci=ci, random_state=random_state,
                  progress=None, keep_rows=False, row_offset=check_row_offset(row_offset), for_file=True,
                  score_names=score_names)
    finally:
        src.close()
    if p.task == "regression":  # the engine's label scan counted each distinct target: not the report's
        p.classes = p.true_classes = np.zeros(0)
        p.counts0 = np.zeros(0)
    if data is not None:
        p.columns = {role: (list(c) if isinstance(c, tuple) else c) for role, c in names.items()
                     if c is not None and c != ()}
    return p


def detect_task(y_true: Any, y_score: Any) -> tuple[str, str]:
    """The task of a (y_true, y_score) pair and the reason, in words (``y_score``: the
    predictions as :func:`~beyondchance.evaluate` takes them positionally — scores, class
    probabilities, labels or values): the task of their report, by the one detector of every
    door (``beyondchance.engines.detect._detect``, on the columns of the memory engine).

    >>> detect_task([0, 1, 1, 0], [0.2, 0.8, 0.6, 0.1])
    ('binary-scores', 'y_true has 2 classes (0, 1) and y is a floating-point column: scores')
    >>> detect_task(["a", "b", "c"], ["a", "c", "c"])[0]
    'multiclass-labels'
    >>> detect_task([1.5, 2.0, 3.1], [1.4, 2.2, 2.9])[0]
    'regression'
    """
    p = profile(y_true, y_score, ci=False)
    return p.task, p.reason


# =====================================================================================
# the test sets of compare() that are kept statistics, or arrays beside them
# =====================================================================================


def _is_statistics(value: Any) -> bool:
    """A test set given as kept statistics: a TaskStatistics or the path of a statistics file."""
    return isinstance(value, TaskStatistics) or is_statistics_file(value)


def _as_columns(test_sets: Mapping[str, Any]) -> tuple[str, tuple[str, ...], str | None, dict[str, Any], Any]:
    """(y_true, y_score, sample_weight column names, the test sets, the names that the probability
    columns carry) with each (y_true, y[, w]) of arrays as a mapping of columns
    (``scan._array_columns``); y_true None: a window without labels."""
    out: dict[str, Any] = {}
    names: dict[str, Any] = {}
    score_names = None
    for name, value in test_sets.items():
        if _is_statistics(value):
            out[name] = value
            continue
        data = tuple(value) if isinstance(value, (tuple, list)) else (value,)
        if len(data) not in (2, 3):
            raise InvalidInputError(f"test set {name!r} must be statistics, (y_true, y_score) or "
                                    f"(y_true, y_score, sample_weight), got {len(data)} items")
        cols, these, score_names = _array_columns(data[0], data[1], None, data[2] if len(data) == 3 else None)
        if names and (names["y_score"], names["sample_weight"]) != (these["y_score"], these["sample_weight"]):
            raise InvalidInputError(f"test set {name!r}: every test set of arrays needs the same columns (scores or "
                                    "probabilities of the same classes, weights everywhere or nowhere)")
        names, out[name] = these, cols
    return "y_true", names.get("y_score", ()), names.get("sample_weight"), out, score_names


def _kept(name: str, value: Any, task: str | None) -> TaskStatistics:
    """A test set's kept statistics (read from their file), checked against the task (a copy:
    compare marks the task as resolved once)."""
    p = read_statistics(value) if not isinstance(value, TaskStatistics) else value
    if task is not None and p.task != task:
        raise InvalidInputError(f"test set {name!r}: these statistics are of a {p.task} task, not {task}")
    if p.inputs is not None or callable(p.totals):
        raise InvalidInputError(f"test set {name!r}: statistics of a report in memory; make them with "
                                "beyondchance.profile")
    return dataclasses.replace(p)
