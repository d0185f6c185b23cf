"""The in-memory engine: numpy arrays (or columns of an in-memory table) to statistics.

Every statistic is built by the constructors of :mod:`beyondchance.statistics.sufficient` and the
measure modules (``ConfusionMatrix.from_predictions``, ``threshold_counts``, the loss
objects' per-sample losses), with the package's one set of input checks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import (
    as_narwhals,
    column_values,
    is_lazy,
    as_1d,
    as_float,
    as_float_1d,
    binary_target,
    check_consistent_length,
    check_n_classes,
    check_probabilities,
    check_sample_weight,
    encode_labels,
)
from .._validation.labels import _check_label_values, _encode
from .._warnings import InvalidInputError
from ..measures.losses import get_loss
from ..measures.confusion import ConfusionMatrix, _default_pos_label, _weighted_bincount
from ..inference.permutation.clt import PermutationCells
from ..inference.permutation.loss import MAX_LOSS_CLASSES, PermutationLossSums
from ..inference.permutation.rows import SquaredErrorSums
from ..measures.threshold_counts import ThresholdCounts, _counts_unweighted, _counts_weighted, threshold_counts
from ..statistics.sufficient import LABEL_TASKS, PROBABILITY_LOSSES, SufficientStatistics, _binary_confusion
from ..statistics.labels import LabelCounts
from ..statistics.values import LossSums, Moments, ValueHistogram
from ..statistics.scores import BinnedScoreCounts, ClassScoreCounts
from .spec import Spec, make_spec, resolve_task
from .files import decimal_as_float, read_file_columns
from .groups import Group, check_group_count

__all__ = [
    "statistics_from_arrays", "statistics_from_table", "read_columns",
    "confusion_counts", "score_counts", "probability_statistics", "class_score_counts", "regression_statistics",
]


def _wsum(w: np.ndarray | None, values: np.ndarray) -> float:
    return float(np.sum(values)) if w is None else float(np.sum(np.multiply(w, values)))


def _total(w: np.ndarray | None, n: int) -> float:
    return float(n) if w is None else float(np.sum(w))


def _is_float(x: Any) -> bool:
    return np.asarray(x).dtype.kind == "f" if x is not None else False


def statistics_from_arrays(
    y_true: Any,
    *,
    y_score: Any = None,
    y_pred: Any = None,
    y_proba: Any = None,
    sample_weight: Any = None,
    task: str = "auto",
    statistics: Any = None,
    threshold: Any = 0.5,
    pos_label: Any = None,
    labels: Any = None,
    score_bins: Any = None,
    target_bin_width: Any = None,
    pinball_alphas: Any = (),
    normalize: bool = False,
) -> SufficientStatistics:
    """The sufficient statistics of in-memory arrays (the ``"memory"`` engine).

    Parameters
    ----------
    y_true : (n,) true labels or real targets
    y_score : (n,) scores of the positive class (binary-scores task)
    y_pred : (n,) predicted labels (label tasks) or real predictions (regression)
    y_proba : (n, k) class probabilities, columns in the order of ``labels`` (or of
        the sorted labels of ``y_true``)
    sample_weight : (n,) non-negative weights
    task : ``"auto"`` (from the prediction given: y_score → binary-scores, y_proba →
        multiclass-probabilities, y_pred → regression if y_true and y_pred are floating
        point, else multiclass-labels) or one of ``"binary-scores"``, ``"binary-labels"``,
        ``"multiclass-labels"``, ``"multiclass-probabilities"``, ``"regression"``
        (:data:`beyondchance.statistics.sufficient.TASKS`; the two label tasks compute the
        same statistics, binary-labels checks that there are at most two classes)
    statistics : subset of the task's statistics (:data:`beyondchance.statistics.sufficient.STATISTICS`)
    threshold : binary-scores: a score ≥ threshold is predicted positive
    pos_label : binary-scores: the positive label (default 1 for {0, 1} / {-1, 1} labels)
    labels : label / multiclass-probabilities tasks: the class set, in order
    score_bins : None (exact score counts) or bins per unit score (binned counts)
    target_bin_width : None (exact value histogram) or the width of the target bins
    pinball_alphas : regression: quantile levels whose pinball losses are summed too
    normalize : probabilities: rescale rows that do not sum to 1

    >>> st = statistics_from_arrays([0, 1, 1, 0], y_score=[0.2, 0.7, 0.4, 0.1])
    >>> st.task, st.metric("accuracy"), st.auc("roc")
    ('binary-scores', 0.75, 1.0)
    """
    t = resolve_task(
        task,
        has_score=y_score is not None,
        has_pred=y_pred is not None,
        has_proba=y_proba is not None,
        true_is_float=_is_float(y_true),
        pred_is_float=_is_float(y_pred),
    )
    spec = make_spec(
        t,
        statistics=statistics,
        threshold=threshold,
        pos_label=pos_label,
        labels=labels,
        score_bins=score_bins,
        target_bin_width=target_bin_width,
        pinball_alphas=pinball_alphas,
        normalize=normalize,
    )
    return compute(spec, y_true, y_score=y_score, y_pred=y_pred, y_proba=y_proba, sample_weight=sample_weight)


def compute(
    spec: Spec, y_true: Any, *, y_score: Any = None, y_pred: Any = None, y_proba: Any = None, sample_weight: Any = None
) -> SufficientStatistics:
    """Statistics of arrays for a checked :class:`~._common.Spec`."""
    if spec.task == "binary-scores":
        return _binary(spec, y_true, y_score, sample_weight)
    if spec.task in LABEL_TASKS:
        return _labels(spec, y_true, y_pred, sample_weight)
    if spec.task == "multiclass-probabilities":
        return _probabilities(spec, y_true, y_proba, sample_weight)
    return _regression(spec, y_true, y_pred, sample_weight)


def _binary(spec: Spec, y_true: Any, y_score: Any, sample_weight: Any) -> SufficientStatistics:
    yb, pos_label = binary_target(y_true, pos_label=spec.pos_label)
    s = as_float_1d(y_score, "y_score")
    n = check_consistent_length(y_true=yb, y_score=s)
    w = check_sample_weight(sample_weight, n)
    out: dict[str, Any] = {}
    if spec.wants("confusion"):
        out["confusion"] = _binary_confusion(yb, s >= spec.threshold, w)
    if spec.wants("label_counts"):
        out["label_counts"] = LabelCounts.from_labels(y_true, sample_weight=w)
    if spec.wants("loss_sums") and s.min() >= 0 and s.max() <= 1:
        proba = np.column_stack([1.0 - s, s])
        codes = yb.astype(np.intp)
        sums = {name: _wsum(w, get_loss(name).sample_losses_proba(proba, codes)) for name in PROBABILITY_LOSSES}
        out["loss_sums"] = LossSums(_total(w, n), sums)
    if spec.wants("permutation_cells") and w is not None and spec.score_bins is None:
        out["permutation_cells"] = PermutationCells.of_scores(yb, s, w)
    if spec.wants("permutation_loss_sums") and s.min() >= 0 and s.max() <= 1:
        out["permutation_loss_sums"] = PermutationLossSums.of_scores(yb, s, w)
    if spec.wants("scores"):
        if spec.score_bins is None:
            out["scores"] = threshold_counts(y_true, s, sample_weight=w, pos_label=pos_label)
        else:
            out["scores"] = BinnedScoreCounts.from_scores(
                y_true, s, sample_weight=w, pos_label=pos_label, bins=spec.score_bins
            )
    return SufficientStatistics("binary-scores", threshold=spec.threshold, pos_label=pos_label, **out)


def _labels(spec: Spec, y_true: Any, y_pred: Any, sample_weight: Any) -> SufficientStatistics:
    out: dict[str, Any] = {}
    pos = 1 if spec.pos_label is None else spec.pos_label
    if spec.wants("confusion"):
        cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=sample_weight, labels=spec.labels, pos_label=pos)
        out["confusion"] = cm
        if spec.wants("label_counts"):
            out["label_counts"] = LabelCounts(cm.labels, cm.true_counts)
        if spec.wants("permutation_cells") and sample_weight is not None:
            codes, pred_codes, _ = encode_labels(y_true, y_pred, labels=cm.labels)
            out["permutation_cells"] = PermutationCells.from_codes(
                pred_codes, codes, check_sample_weight(sample_weight, codes.shape[0]), keys=cm.labels,
                classes=cm.labels)
    else:
        yt = as_1d(y_true, "y_true")
        check_consistent_length(y_true=yt, y_pred=as_1d(y_pred, "y_pred"))
        # y_true alone: its distinct values, also a regression's targets (the task's detection counts them)
        codes, _, classes = encode_labels(yt, labels=spec.labels, allow_continuous=True)
        w = check_sample_weight(sample_weight, codes.shape[0])
        out["label_counts"] = LabelCounts(classes, np.bincount(codes, weights=w, minlength=classes.shape[0]))
    return SufficientStatistics(spec.task, **out)


# =====================================================================================
# fast paths for checked arrays (the report validates its inputs once, then calls these)
# =====================================================================================


def confusion_counts(codes_true: np.ndarray, codes_pred: np.ndarray, k: int, w: np.ndarray | None) -> np.ndarray:
    """The (k, k) matrix of weighted (true, predicted) code pairs in one ``bincount`` pass.

    >>> confusion_counts(np.array([0, 1, 1]), np.array([0, 0, 1]), 2, None)
    array([[1., 0.],
           [1., 1.]])
    """
    if k == 2 and w is None:  # two classes: three counting passes, no array of pair codes
        return _two_class_confusion(codes_true, codes_pred)
    return _weighted_bincount(codes_true * k + codes_pred, w, k * k).reshape(k, k)


def _two_class_confusion(codes_true: np.ndarray, codes_pred: np.ndarray) -> np.ndarray:
    """The 2 × 2 matrix of unweighted 0/1 codes from the rows true 1, predicted 1 and both.

    >>> _two_class_confusion(np.array([0, 1, 1, 0]), np.array([0, 0, 1, 1]))
    array([[1., 1.],
           [1., 1.]])
    """
    n = codes_true.shape[0]
    t1, p1 = np.count_nonzero(codes_true), np.count_nonzero(codes_pred)
    both = np.count_nonzero(codes_true & codes_pred)
    return np.array([[n - t1 - p1 + both, p1 - both], [t1 - both, both]], dtype=np.float64)


def class_counts(codes: np.ndarray, k: int) -> np.ndarray:
    """The rows of each of ``k`` classes from their codes (two classes: one counting pass).

    >>> class_counts(np.array([0, 1, 1]), 2).tolist()
    [1, 2]
    """
    if k == 2:
        ones = np.count_nonzero(codes)
        return np.array([codes.shape[0] - ones, ones])
    return np.bincount(codes, minlength=k)


def score_counts(is_pos: np.ndarray, s: np.ndarray, w: np.ndarray | None) -> ThresholdCounts:
    """:func:`~beyondchance.measures.curves.threshold_counts` of checked arrays: booleans "is
    positive", finite float64 scores and checked weights (or None); positive label True."""
    return _counts_unweighted(is_pos, s, True) if w is None else _counts_weighted(is_pos, s, w, True)


def _probabilities(spec: Spec, y_true: Any, y_proba: Any, sample_weight: Any) -> SufficientStatistics:
    yt = as_1d(y_true, "y_true")
    codes, _, classes = encode_labels(yt, labels=spec.labels)
    k = classes.shape[0]
    if k < 2:
        raise InvalidInputError(
            f"class probabilities need at least two classes; y_true has {k} ({classes.tolist()}): pass labels="
        )
    proba = _as_proba(y_proba, k, spec.normalize)
    n = check_consistent_length(y_true=yt, y_proba=proba)
    w = check_sample_weight(sample_weight, n)
    pos = 1 if spec.pos_label is None else spec.pos_label
    return probability_statistics(codes, proba, classes, w, statistics=spec.statistics, pos_label=pos,
                                  score_bins=spec.score_bins)


def probability_statistics(
    codes: np.ndarray, proba: np.ndarray, classes: np.ndarray, w: np.ndarray | None, *,
    statistics: Any = None, pos_label: Any = 1, score_bins: int | None = None,
) -> SufficientStatistics:
    """The multiclass-probabilities task's statistics of checked arrays (no validation).

    ``codes`` (n,) in 0..k−1, ``proba`` (n, k) valid probability rows, ``w`` checked
    weights or None: the confusion matrix of the arg-max class, the label counts and
    the sums of the log and Brier losses, each in one pass, and the one-vs-rest score
    counts of every class (:func:`class_score_counts`).
    """
    def wants(name: str) -> bool:
        return statistics is None or name in statistics

    n, k = proba.shape
    out: dict[str, Any] = {}
    if wants("confusion"):
        m = confusion_counts(codes, np.argmax(proba, axis=1), k, w)
        out["confusion"] = ConfusionMatrix(m, classes, pos_label=pos_label)
    if wants("label_counts"):
        out["label_counts"] = LabelCounts(classes, np.bincount(codes, weights=w, minlength=k))
    if wants("loss_sums"):
        sums = {name: _wsum(w, get_loss(name).sample_losses_proba(proba, codes)) for name in PROBABILITY_LOSSES}
        out["loss_sums"] = LossSums(_total(w, n), sums)
    if wants("class_scores"):
        out["class_scores"] = class_score_counts(codes, proba, classes, w, score_bins=score_bins)
    if wants("permutation_cells") and w is not None:
        out["permutation_cells"] = PermutationCells.from_codes(np.argmax(proba, axis=1), codes, w, keys=classes,
                                                               classes=classes)
    if wants("permutation_loss_sums") and k <= MAX_LOSS_CLASSES:
        out["permutation_loss_sums"] = PermutationLossSums.of_proba(codes, proba, w, classes)
    return SufficientStatistics("multiclass-probabilities", **out)


def class_score_counts(
    codes: np.ndarray, proba: np.ndarray, classes: np.ndarray, w: np.ndarray | None, *, score_bins: int | None = None,
) -> ClassScoreCounts:
    """The one-vs-rest score counts of each class's probability column (checked arrays):
    exact (one sort per class) or ``floor(p · score_bins)`` bins."""
    counts: list[ThresholdCounts | BinnedScoreCounts] = []
    for j in range(classes.shape[0]):
        is_j = codes == j
        col = np.ascontiguousarray(proba[:, j], dtype=np.float64)
        if score_bins is None:
            counts.append(score_counts(is_j, col, w))
        else:
            counts.append(BinnedScoreCounts.from_groups(np.floor(col * score_bins), col, is_j,
                                                        np.ones(col.shape[0]) if w is None else w,
                                                        bins=score_bins, pos_label=True))
    return ClassScoreCounts(classes, tuple(counts))


def _as_proba(y_proba: Any, k: int, normalize: bool) -> np.ndarray:
    """(n, k) probabilities; a 1-D array is the probability of the second of two classes."""
    arr = np.asarray(y_proba)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    p = check_probabilities(arr, "y_proba", n_classes=k if arr.ndim == 2 else None, normalize=normalize)
    if p.ndim == 1:
        if k != 2:
            raise InvalidInputError(f"y_proba holds one probability per sample but there are {k} classes")
        p = np.column_stack([1.0 - p, p])
    return p


def _regression(spec: Spec, y_true: Any, y_pred: Any, sample_weight: Any) -> SufficientStatistics:
    # integers beyond 2**53 rounded to float64 as the SQL engines cast them (a detected regression
    # of such targets is refused before, naming task=: scan._check_exact_targets)
    y = as_float(as_1d(y_true, "y_true"), "y_true", exact=False)
    f = as_float(as_1d(y_pred, "y_pred"), "y_pred", exact=False)
    n = check_consistent_length(y_true=y, y_pred=f)
    w = check_sample_weight(sample_weight, n)
    return regression_statistics(y, f, w, losses=spec.regression_losses(), statistics=spec.statistics,
                                 target_bin_width=spec.target_bin_width)


def regression_statistics(
    y: np.ndarray, f: np.ndarray, w: np.ndarray | None, *, losses: Any = None, statistics: Any = None,
    target_bin_width: float | None = None,
) -> SufficientStatistics:
    """The regression task's statistics of checked finite float64 arrays (no validation).

    The loss sums Σ w·ℓ(f, y) of ``losses`` (default squared and absolute), the
    :class:`~beyondchance.statistics.values.Moments` and the :class:`~beyondchance.statistics.values.ValueHistogram`
    of y (exact when ``target_bin_width`` is None: its weighted median is exact).
    """
    def wants(name: str) -> bool:
        return statistics is None or name in statistics

    losses = [get_loss("squared"), get_loss("absolute")] if losses is None else losses
    out: dict[str, Any] = {}
    if wants("loss_sums"):
        sums = {lo.name: _wsum(w, lo.pointwise(f, y)) for lo in losses}
        out["loss_sums"] = LossSums(_total(w, y.shape[0]), sums)
    if wants("moments"):
        out["moments"] = Moments.of_checked(y, w)
    if wants("prediction_moments"):
        out["prediction_moments"] = Moments.of_checked(f, w)
    if wants("squared_error_sums") and w is not None:
        out["squared_error_sums"] = SquaredErrorSums.of_rows(y, f, w)
    if wants("targets"):
        out["targets"] = ValueHistogram.of_checked(y, w, target_bin_width)
    return SufficientStatistics("regression", **out)


# =====================================================================================
# in-memory tables and files
# =====================================================================================


def _table(source: Any, names: list[Any]) -> Any:
    """A mapping of columns as it is, or ``source`` as a narwhals eager table (any library
    narwhals knows, :func:`~beyondchance._validation.as_narwhals`) whose ``names`` are checked:
    of a lazy frame only the named columns are collected (``select`` runs where it lives)."""
    for name in names:
        if not isinstance(name, str):
            raise InvalidInputError(f"column names must be strings, got {name!r}")
    frame: Any
    if isinstance(source, Mapping):
        frame, available = source, list(source.keys())
    else:
        frame = as_narwhals(source, keep_lazy=True)
        if frame is None or not hasattr(frame, "collect_schema"):
            raise InvalidInputError(f"engine 'memory' reads a mapping of columns, a data frame (eager or lazy) or "
                                    f"CSV / Parquet files, got a {type(source).__name__}")
        available = frame.collect_schema().names()
    missing = [c for c in names if c not in available]
    if missing:
        raise InvalidInputError(f"column {missing[0]!r} not found; available columns: {[str(c) for c in available]}")
    return frame.select(*dict.fromkeys(names)).collect() if is_lazy(frame) else frame


def _column(table: Any, name: str) -> np.ndarray:
    """One column of :func:`_table` as numpy (decimals as the nearest doubles, as DuckDB and Spark cast them)."""
    if isinstance(table, Mapping):
        return column_values(table[name])
    col = table.get_column(name)
    if col.dtype.is_decimal():
        return np.asarray(decimal_as_float(col.to_arrow()).to_numpy(zero_copy_only=False))
    return column_values(col)


def _is_files(source: Any) -> bool:
    """A path, a glob pattern, ``"-"`` (stdin) or a list of paths: files the engine reads itself."""
    return isinstance(source, (str, os.PathLike)) or (
        isinstance(source, (list, tuple)) and bool(source) and all(isinstance(p, (str, os.PathLike)) for p in source))


def read_columns(source: Any, names: list[str], delimiter: str | None = None,
                 numeric: Any = ()) -> dict[str, np.ndarray]:
    """The named columns of an in-memory table or lazy frame (through narwhals: :func:`_table`), or
    of CSV / Parquet files, glob patterns, lists of files or stdin (``"-"``) read with pyarrow by
    :func:`.files.read_file_columns` (its checks: a missing value or a non-numeric ``numeric``
    value is refused naming its data row)."""
    if _is_files(source):
        return read_file_columns(source, list(dict.fromkeys(names)), numeric=numeric, delimiter=delimiter).columns
    table = _table(source, names)
    return {name: _column(table, name) for name in names}


def statistics_from_table(
    source: Any,
    *,
    y_true: str,
    y_score: str | None = None,
    y_pred: str | None = None,
    y_proba: Any = None,
    weight: str | None = None,
    delimiter: str | None = None,
    **options: Any,
) -> SufficientStatistics:
    """:func:`statistics_from_arrays` on the named columns of a table (or a file read with pyarrow)."""
    proba_cols = _proba_columns(y_proba)
    names = [c for c in (y_true, y_score, y_pred, weight) if c is not None] + proba_cols
    cols = read_columns(source, names, delimiter)
    proba = None if not proba_cols else np.column_stack([cols[c] for c in proba_cols])
    return statistics_from_arrays(
        cols[y_true],
        y_score=None if y_score is None else cols[y_score],
        y_pred=None if y_pred is None else cols[y_pred],
        y_proba=proba,
        sample_weight=None if weight is None else cols[weight],
        **options,
    )


def _proba_columns(y_proba: Any) -> list[str]:
    if y_proba is None:
        return []
    cols = [y_proba] if isinstance(y_proba, str) else list(y_proba)
    if not all(isinstance(c, str) for c in cols):
        raise InvalidInputError("y_proba must be a list of column names, one per class")
    if len(cols) < 2:
        raise InvalidInputError(
            "y_proba needs one column per class (at least two columns); "
            "for the probability of the positive class alone use y_score"
        )
    return cols


def group_totals_from_table(source: Any, *, kind: str, y_true: str, y_pred: str | None = None, proba: Any = None,
                            weight: str | None = None, labels: Any = None, seed: int = 0, groups: int,
                            delimiter: str | None = None, **options: Any) -> Any:
    """:func:`~beyondchance.inference.poisson_bootstrap.group_totals_from_arrays` on the named columns of
    a table (or a file read with pyarrow)."""
    from ..inference.poisson_bootstrap import group_totals_from_arrays

    cols = _proba_columns(proba)
    y_score = options.get("y_score")
    names = [c for c in (y_true, y_pred, y_score, weight, *cols) if c is not None]
    for col in names:
        if not isinstance(col, str):
            raise InvalidInputError(f"column names must be strings, got {col!r}")
    data = read_columns(source, names, delimiter)
    return group_totals_from_arrays(
        kind, data[y_true], y_pred=None if y_pred is None else data[y_pred],
        proba=None if proba is None else np.column_stack([data[c] for c in cols]),
        weight=None if weight is None else data[weight], labels=labels, seed=seed, groups=groups,
        **{**options, **({"y_score": data[y_score]} if y_score is not None else {})},
    )


def _numpy_kind(a: np.ndarray) -> str:
    k = np.asarray(a).dtype.kind
    return {"f": "float", "i": "int", "u": "int", "b": "bool", "U": "string", "O": "string"}.get(k, "other")


def check_columns(kinds: dict[str, str], columns: Any, name: str) -> None:
    """InvalidInputError naming the columns there are when one of ``columns`` is not in ``kinds``."""
    for c in columns:
        if c not in kinds:
            raise InvalidInputError(f"{name}: column {c!r} not found; available columns: {', '.join(kinds)}")


#: rows per chunk of :meth:`MemoryScan.values_outside`
_CHUNK = 1 << 16


class CheckedColumns(dict):
    """Columns of arrays that their door checked 1-D already (``scan._array_columns``): the
    memory engine reads them as they are, not through :func:`~beyondchance._validation.as_1d` again."""


#: the statistics of binary scores that :meth:`MemoryScan.statistics` computes from its checked columns
_SCORE_STATISTICS = frozenset({"scores", "permutation_cells", "permutation_loss_sums"})


def _integers_within(values: np.ndarray, known: np.ndarray) -> bool:
    """Whether an integer column's values all lie in ``known`` because every integer from its
    minimum to its maximum is known (predicted labels 0/1 of classes 0/1: a min and a max,
    not a membership test of every row)."""
    if values.dtype.kind not in "iu" or values.size == 0:
        return False
    low, high = int(values.min()), int(values.max())
    return high - low < known.size and bool(np.isin(np.arange(low, high + 1, dtype=np.float64), known).all())


def _is_label_counts_request(task: str, y_true: str, y_pred: str | None, statistics: Any, weight: str | None) -> bool:
    """Whether the scan asks for the unweighted row counts of y_true's classes alone."""
    return task == "multiclass-labels" and y_pred == y_true and statistics == ("label_counts",) and weight is None


def _is_confusion_request(task: str, y_true: str, y_score: str | None, y_pred: str | None, statistics: Any,
                          options: dict[str, Any]) -> bool:
    """Whether the scan asks for the confusion matrix (and cells) of predicted labels alone."""
    return bool(task == "multiclass-labels" and y_pred is not None and y_pred != y_true and y_score is None
                and statistics is not None and set(statistics) <= {"confusion", "permutation_cells"} and not options)


def _is_probabilities_request(task: str, y_score: str | None, y_pred: str | None, options: dict[str, Any]) -> bool:
    """Whether the scan asks for the statistics of class probability columns alone."""
    return bool(task == "multiclass-probabilities" and options.keys() <= {"y_proba"} and options.get("y_proba")
                and y_score is None and y_pred is None)


def _is_scores_request(task: str, y_score: str | None, y_pred: str | None, score_bins: Any, statistics: Any,
                       options: dict[str, Any]) -> bool:
    """Whether the scan asks for the unbinned statistics of a binary score column alone."""
    return bool(task == "binary-scores" and y_score is not None and score_bins is None and y_pred is None
                and statistics is not None and set(statistics) <= _SCORE_STATISTICS
                and not options.keys() - {"threshold"})


class MemoryScan:
    """One source of the memory engine: the columns in memory (a mapping of columns, or a data
    frame, pyarrow Table or CSV / Parquet files whose needed columns :meth:`open` reads once).
    ``engine``: the name of the engine it computes for (an engine that reads its source into
    columns may use it)."""

    in_memory = True
    sql = None

    def __init__(self, source: Any, *, engine: str = "memory", name: str | None = None,
                 delimiter: str | None = None):
        self.source = source
        self.engine = engine
        self.name = name
        self.delimiter = delimiter
        self._checked: dict[tuple[str, str], Any] = {}  # (what, column): checked or encoded once per scan

    def release_checked(self) -> None:
        """Drop the columns checked or encoded once (:meth:`_once`: the labels' codes, the scores as
        float64, the weights) once the scan's statistics are computed (``scan._scan``), so that the
        report is built without them (the codes of 10 million labels are 80 MB); the row tests
        read their rows from the source (:meth:`rows`).  A later statistic checks its columns again."""
        self._checked.clear()

    def open(self, columns: Any, numeric: Any, row_index: bool = False) -> dict[str, str]:
        if not isinstance(self.source, Mapping):  # a data frame (eager or lazy), CSV / Parquet files, stdin
            self.source = read_columns(self.source, list(dict.fromkeys(columns)), self.delimiter, numeric)
        kinds = {str(k): _numpy_kind(np.asarray(v)) for k, v in self.source.items()}
        check_columns(kinds, columns, self.name or "input")
        return kinds

    def statistics(self, **kwargs: Any) -> SufficientStatistics:
        """The statistics of the columns (:func:`statistics_from_table`); the scan's label counts,
        binary scores and regression read each column checked once (:meth:`_once`: the labels
        encoded once, the scores and weights checked once), whichever statistic asks first."""
        if isinstance(self.source, Mapping):
            fast = self._from_checked(**kwargs)
            if fast is not None:
                return fast
        return statistics_from_table(self.source, **kwargs)

    def _once(self, what: str, column: str, make: Any) -> Any:
        """``make(column values)`` computed once per scan (``what``: its kind)."""
        key = (what, column)
        if key not in self._checked:
            self._checked[key] = make(self.source[column])
        return self._checked[key]

    def _vector(self, column: str, role: str) -> np.ndarray:
        """A column 1-D (as it is when its door checked it: :class:`CheckedColumns`)."""
        return self._once("1d", column, lambda v: v if isinstance(self.source, CheckedColumns) else as_1d(v, role))

    def _labels(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """(codes, classes) of a label column (also a regression's targets: their distinct values)."""
        return self._once("labels", column, lambda v: encode_labels(
            self._vector(column, "y_true"), labels=None, allow_continuous=True)[::2])

    def _numbers(self, column: str, role: str, exact: bool = True) -> np.ndarray:
        """A column as finite float64 (``exact``: integers beyond 2**53 refused)."""
        return self._once(f"float{exact}", column, lambda v: as_float(self._vector(column, role), role, exact=exact))

    def _weight(self, column: str | None, n: int) -> np.ndarray | None:
        return None if column is None else self._once("weight", column,
                                                      lambda v: check_sample_weight(self._vector(column, "sample_weight"), n))

    def _from_checked(self, *, y_true: str, y_score: str | None = None, y_pred: str | None = None,
                      weight: str | None = None, task: str = "auto", statistics: Any = None, labels: Any = None,
                      score_bins: Any = None, pos_label: Any = None, **options: Any) -> SufficientStatistics | None:
        """The statistics of the scan's common requests from the columns checked once, or None
        (any other request: :func:`statistics_from_table` checks its columns itself)."""
        if labels is not None:
            return None
        if _is_label_counts_request(task, y_true, y_pred, statistics, weight):
            return self._label_counts(y_true)
        if _is_confusion_request(task, y_true, y_score, y_pred, statistics, options):
            assert y_pred is not None  # a confusion request names y_pred
            return self._confusion(y_true, y_pred, weight, statistics)
        if _is_probabilities_request(task, y_score, y_pred, options):
            return self._probabilities(y_true, list(options["y_proba"]), weight, statistics, score_bins)
        if _is_scores_request(task, y_score, y_pred, score_bins, statistics, options):
            assert y_score is not None  # a scores request names y_score
            return self._scores(y_true, y_score, weight, pos_label, statistics, **options)
        if task == "regression" and y_pred is not None and not options.keys() - {"pinball_alphas", "target_bin_width"}:
            return self._regression(y_true, y_pred, weight, statistics, options)
        return None

    def _label_counts(self, y_true: str) -> SufficientStatistics:
        """The row counts of the classes of y_true (encoded once)."""
        codes, classes = self._labels(y_true)
        return SufficientStatistics("multiclass-labels",
                                    label_counts=LabelCounts(classes, class_counts(codes, classes.shape[0])))

    def _regression(self, y_true: str, y_pred: str, weight: str | None, statistics: Any,
                    options: dict[str, Any]) -> SufficientStatistics:
        """:func:`regression_statistics` of the target and prediction columns (checked once)."""
        y, f = self._numbers(y_true, "y_true", exact=False), self._numbers(y_pred, "y_pred", exact=False)
        n = check_consistent_length(y_true=y, y_pred=f)
        spec = make_spec("regression", statistics=statistics, **options)
        return regression_statistics(y, f, self._weight(weight, n), losses=spec.regression_losses(),
                                     statistics=spec.statistics, target_bin_width=spec.target_bin_width)


    def _whole_labels(self, y_true: str) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`_labels` when they are labels (whole numbers, text …), else None (the checks of
        :func:`statistics_from_table` then name the row of a value that is not)."""
        codes, classes = self._labels(y_true)
        return None if classes.dtype.kind == "f" and not np.all(classes % 1 == 0) else (codes, classes)

    def _confusion(self, y_true: str, y_pred: str, weight: str | None, statistics: Any) -> SufficientStatistics | None:
        """The confusion matrix (and weighted, the PermutationCells) over the union of the labels
        of y_true (encoded once) and y_pred, as :meth:`ConfusionMatrix.from_predictions` counts it."""
        true = self._whole_labels(y_true)
        if true is None:
            return None
        (ct, classes_t), yp = true, self._vector(y_pred, "y_pred")
        n = check_consistent_length(y_true=ct, y_pred=yp)
        cp, _, classes_p = encode_labels(yp, names=("y_pred", "y_true"))
        if "string" in (kinds := {_check_label_values(classes_t, "y_true"), _check_label_values(classes_p, "y_pred")}) \
                and len(kinds) > 1:
            raise InvalidInputError(f"y_true and y_pred mix string and numeric labels "
                                    f"({self._vector(y_true, 'y_true').dtype} and {yp.dtype})")
        to_t, to_p, classes = _encode(classes_t, classes_p, None, ("y_true", "y_pred"))
        k = check_n_classes(classes.shape[0])
        # the codes are already the union's where a side holds every class in order (no remap pass)
        ct = ct if np.array_equal(to_t, np.arange(to_t.shape[0])) else to_t[ct]
        cp = cp if np.array_equal(to_p, np.arange(to_p.shape[0])) else to_p[cp]
        w = self._weight(weight, n)
        out: dict[str, Any] = {"confusion": ConfusionMatrix(confusion_counts(ct, cp, k, w), classes,
                                                            pos_label=_default_pos_label(classes, 1))}
        if "permutation_cells" in statistics and w is not None:
            out["permutation_cells"] = PermutationCells.from_codes(cp, ct, w, keys=classes, classes=classes)
        return SufficientStatistics("multiclass-labels", **out)

    def _probabilities(self, y_true: str, proba: list[str], weight: str | None, statistics: Any,
                       score_bins: Any) -> SufficientStatistics | None:
        """:func:`statistics_from_arrays`'s class probabilities from the labels encoded once."""
        true = self._whole_labels(y_true)
        if true is None or true[1].shape[0] < 2:
            return None
        (codes, classes), k = true, true[1].shape[0]
        spec = make_spec("multiclass-probabilities", statistics=statistics, score_bins=score_bins)
        y_proba = _as_proba(np.column_stack([self.source[c] for c in proba]), k, False)
        w = self._weight(weight, check_consistent_length(y_true=codes, y_proba=y_proba))
        return probability_statistics(codes, y_proba, classes, w, statistics=spec.statistics, pos_label=1,
                                      score_bins=spec.score_bins)

    def _scores(self, y_true: str, y_score: str, weight: str | None, pos_label: Any, statistics: Any,
                **options: Any) -> SufficientStatistics | None:
        """:func:`statistics_from_arrays`'s binary scores from the encoded labels: None when they are
        not two whole-number classes, or ``pos_label`` is not one of them (its checks then say why)."""
        codes, classes = self._labels(y_true)
        if classes.size > 2 or pos_label is None or (classes.dtype.kind == "f" and not np.all(classes % 1 == 0)):
            return None
        try:
            hit = np.flatnonzero(classes == pos_label)
        except (TypeError, ValueError):  # pragma: no cover - incomparable types
            return None
        if hit.size == 0 and classes.size == 2:
            return None
        spec = make_spec("binary-scores", statistics=statistics, pos_label=pos_label, **options)
        is_pos = codes == hit[0] if hit.size else np.zeros(codes.shape[0], dtype=bool)
        s = self._numbers(y_score, "y_score")
        w = self._weight(weight, check_consistent_length(y_true=codes, y_score=s))
        out: dict[str, Any] = {}
        if spec.wants("scores"):
            out["scores"] = _counts_unweighted(is_pos, s, pos_label) if w is None else \
                _counts_weighted(is_pos, s, w, pos_label)
        if spec.wants("permutation_cells") and w is not None:
            out["permutation_cells"] = PermutationCells.of_scores(is_pos, s, w)
        if spec.wants("permutation_loss_sums") and s.min() >= 0 and s.max() <= 1:
            out["permutation_loss_sums"] = PermutationLossSums.of_scores(is_pos, s, w)
        return SufficientStatistics("binary-scores", threshold=spec.threshold, pos_label=pos_label, **out)

    def group_totals(self, **kwargs: Any) -> Any:
        from ..inference.poisson_bootstrap import DEFAULT_GROUPS

        return group_totals_from_table(self.source, groups=DEFAULT_GROUPS, **kwargs)

    def probability_statistics(self, *, y_true: str, proba: Any, weight: str | None, classes: Any,
                               normalize: bool = False, score_bins: int | None = None, seed: int = 0) -> Any:
        """The ProbabilityStatistics of the columns, as the SQL engines'
        (:func:`~beyondchance.engines.sql_replicates.sql_probability_statistics`: also of binned scores)."""
        from ..monitoring.probabilities import ProbabilityStatistics

        cols = read_columns(self.source, [y_true, *proba, *([weight] if weight else [])], self.delimiter)
        classes = as_1d(classes, "classes")
        codes = encode_labels(as_1d(cols[y_true], "y_true"), labels=classes)[0]
        y_proba = _as_proba(np.column_stack([cols[c] for c in proba]), classes.shape[0], normalize)
        w = None if weight is None else check_sample_weight(cols[weight], codes.shape[0])
        return ProbabilityStatistics.from_codes(codes, y_proba, tuple(classes.tolist()), w, seed=seed,
                                                score_bins=score_bins)

    def unit_counts(self, *, y_true: str, y_score: str, weight: str, pos_label: Any, score_bins: int | None) -> Any:
        data = read_columns(self.source, [y_true, y_score, weight], self.delimiter)
        unit = "\0unit"  # a name no column has (the weight column may be the score's or the labels')
        units = {y_true: data[y_true], y_score: data[y_score],
                 unit: (np.asarray(data[weight], dtype=np.float64) > 0).astype(np.float64)}
        return statistics_from_table(units, y_true=y_true, y_score=y_score, weight=unit, task="binary-scores",
                                     pos_label=pos_label, statistics=("scores",), score_bins=score_bins).scores

    def rows(self, labels: Any, numbers: Any) -> tuple[dict[str, np.ndarray], bool]:
        return read_columns(self.source, list(dict.fromkeys([*labels, *numbers])), self.delimiter), True

    def score_histogram(self, *, y_score: str, weight: str | None) -> tuple[Any, int]:
        from .._validation import as_float, check_sample_weight
        from ..statistics.sufficient import ValueHistogram

        numbers = [y_score, *([weight] if weight else [])]  # a window without labels: read here, not by open
        data = read_columns(self.source, numbers, self.delimiter, numbers)
        scores = as_float(data[y_score], "y_score")
        w = check_sample_weight(data[weight] if weight else None, scores.shape[0])
        return ValueHistogram.of_checked(scores, w), int(scores.shape[0])

    def values_outside(self, column: str, values: Any, limit: int = 5) -> list[float]:
        """The first ``limit`` distinct values outside ``values`` met in the rows' order, sorted: scores
        show some at once, so the rows are read in chunks until ``limit`` are found (no sort of them all)."""
        column_values = np.asarray(read_columns(self.source, [column], self.delimiter)[column])
        known, found = np.asarray(values, dtype=np.float64), np.zeros(0)
        if _integers_within(column_values, known):  # 0/1 predictions: two passes, no float copy
            return []
        scores = column_values.astype(np.float64, copy=False)
        for start in range(0, scores.shape[0], _CHUNK):
            chunk = scores[start:start + _CHUNK]
            found = np.unique(np.concatenate([found, chunk[~np.isin(chunk, known) & ~np.isnan(chunk)]]))
            if found.size >= limit:
                break
        return found[:limit].tolist()

    def absolute_histograms(self, *, y_true: str, y_pred: str, weight: str | None) -> Any:
        from ..inference.permutation.absolute_error import AbsoluteErrorHistograms

        data = self.rows([], [y_true, y_pred, *([weight] if weight else [])])[0]
        return AbsoluteErrorHistograms.of_rows(np.asarray(data[y_true], dtype=np.float64),
                                               np.asarray(data[y_pred], dtype=np.float64),
                                               None if weight is None else np.asarray(data[weight], dtype=np.float64))

    def close(self) -> None:
        self.release_checked()


class MemoryEngine:
    """The runner of the memory engine (:mod:`.runner`): numpy on columns in memory."""

    name = "memory"
    reads_files = False  # files by path, and stdin ("-"), pipes and devices, read once into memory
    reads_directories = False
    splits_by_column = True

    def session(self, options: Any) -> Any:
        return None

    def statistics(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                   **kwargs: Any) -> SufficientStatistics:
        return statistics_from_table(source, delimiter=delimiter, **kwargs)

    def group_totals(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                     **kwargs: Any) -> Any:
        return group_totals_from_table(source, delimiter=delimiter, **kwargs)

    def open(self, source: Any, *, session: Any = None, name: str | None = None,
             delimiter: str | None = None) -> MemoryScan:
        return MemoryScan(source, name=name, delimiter=delimiter)

    def split_by(self, source: Any, by: str, *, session: Any = None, delimiter: str | None = None,
                 columns: Any, numeric: Any, label: str) -> "MemorySplit":
        return MemorySplit(source, by, delimiter=delimiter, columns=columns, numeric=numeric, label=label)


class MemorySplit:
    """One source's rows in memory split by the values of column ``by`` (``compare --by``,
    ``profile --by``; the SQL engines': :class:`.groups.GroupSplit`): ``groups`` (:class:`.groups.Group`,
    the label column ``label`` counted where present), ``scan(group, labelled=, name=)`` a
    :class:`MemoryScan` of a group's rows, in their order (so a group's grouped bootstrap numbers
    its rows from 0), ``close()``.  Files are read once; a missing label is allowed (a group
    without labels is a window), a missing value elsewhere is refused naming its data row."""

    def __init__(self, source: Any, by: str, *, delimiter: str | None, columns: Any, numeric: Any, label: str):
        self.label = label
        wanted = list(dict.fromkeys([*columns, by]))
        if _is_files(source):
            table = read_file_columns(source, wanted, numeric=numeric, delimiter=delimiter, nullable=[label])
            cols, missing = table.columns, table.missing.get(label)
        else:
            cols, missing = read_columns(source, wanted), None
        values, inverse = np.unique(cols[by], return_inverse=True)
        check_group_count(by, values.size)
        self.columns = {c: v for c, v in cols.items() if c != by}
        self.rows = [np.flatnonzero(inverse == i) for i in range(values.size)]
        self.groups = [Group(values[i].item() if hasattr(values[i], "item") else values[i], int(idx.size),
                             int(idx.size - (0 if missing is None else missing[idx].sum())), i)
                       for i, idx in enumerate(self.rows)]

    def scan(self, group: Group, *, labelled: bool, name: str | None = None) -> MemoryScan:
        idx = self.rows[group.index]
        return MemoryScan({c: v[idx] for c, v in self.columns.items() if labelled or c != self.label}, name=name)

    def close(self) -> None:
        pass


RUNNER = MemoryEngine()
