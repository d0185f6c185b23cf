r"""The confusion matrix: the sufficient statistic of every labeling measure.

:class:`ConfusionMatrix` holds (weighted) counts ``C[i, j]`` = total weight of the
samples whose true label is ``labels[i]`` and predicted label is ``labels[j]``
(scikit-learn's orientation).  It is built in one pass over the data
(``numpy.bincount``), merges with another matrix by addition, and exposes the
re-parametrisation (n, π, α, β, q) of the OPS paper and every metric of
:mod:`beyondchance.measures.registry`.

>>> from beyondchance import ConfusionMatrix
>>> cm = ConfusionMatrix.from_predictions([0, 0, 1, 1, 1], [0, 1, 1, 1, 0])
>>> cm.tp, cm.fp, cm.fn, cm.tn
(2.0, 1.0, 1.0, 1.0)
>>> cm.prevalence, cm.alpha, cm.beta, cm.q
(0.6, 0.5, 0.3333333333333333, 0.6)
>>> cm.metric("f1")
0.6666666666666666
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Literal, NamedTuple

import numpy as np

from .._summary_display import GridDisplay
from .._validation import (check_aligned, check_label_pair, check_n_classes, check_sample_weight, encode_labels,
                           merge_from_zero)
from .._warnings import InvalidInputError, warn_undefined
from .registry import METRICS, LabelingMetric, _div, get_metric, undefined_case

__all__ = ["CellTotals", "ConfusionMatrix", "MatrixTotals", "metric_from_matrices", "metric_from_totals",
           "zero_division_value"]

Average = Literal["binary", "macro", "weighted", "micro"] | None


def _weighted_bincount(codes: np.ndarray, weights: np.ndarray | None, size: int) -> np.ndarray:
    """``bincount(codes, weights, minlength=size)`` as float64, the same sums in the same
    order; when the codes are few against the cells (a confusion matrix of many classes),
    only the occupied cells are written: the others stay the untouched zero pages of a fresh
    array (10⁵ pairs over 10⁸ cells: 0.1 s instead of 5 s)."""
    if codes.shape[0] * 4 < size:
        occupied, where = np.unique(codes, return_inverse=True)
        out = np.zeros(size)
        out[occupied] = np.bincount(where.reshape(-1), weights=weights, minlength=occupied.shape[0])
        return out
    return np.bincount(codes, weights=weights, minlength=size).astype(np.float64, copy=False)


def _count_zero_one_labels(yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Unweighted 0/1 (or boolean) labels: the 2 x 2 counts from three popcounts.

    About 3x faster than a joint ``bincount`` on 10⁷ labels; returns None when the
    labels are not all 0/1 so that the general path takes over.
    """
    if yt.dtype.kind not in "biu" or yp.dtype.kind not in "biu":
        return None
    if yt.dtype.kind != "b" and not (yt.min() >= 0 and yt.max() <= 1):
        return None
    if yp.dtype.kind != "b" and not (yp.min() >= 0 and yp.max() <= 1):
        return None
    a = yt if yt.dtype.kind == "b" else yt.astype(bool)
    b = yp if yp.dtype.kind == "b" else yp.astype(bool)
    n = a.shape[0]
    t, p = np.count_nonzero(a), np.count_nonzero(b)
    tp = np.count_nonzero(a & b)
    fn, fp = t - tp, p - tp
    tn = n - tp - fn - fp
    matrix = np.array([[tn, fp], [fn, tp]], dtype=np.float64)
    present = np.array([tn + fp + fn > 0, tp + fn + fp > 0])  # label occurs in truth or prediction
    if yt.dtype.kind == "b" and yp.dtype.kind == "b":
        classes = np.array([False, True])
    else:
        classes = np.array([0, 1], dtype=np.result_type(yt.dtype, yp.dtype))
    if present.all():
        return matrix, classes
    keep = np.flatnonzero(present)
    return matrix[np.ix_(keep, keep)], classes[keep]


@dataclass(frozen=True, eq=False)
class ConfusionMatrix(GridDisplay):
    """Weighted confusion counts; rows are true labels, columns predicted labels.

    Parameters
    ----------
    matrix : (k, k) array of non-negative counts or weight sums
    labels : the k class labels in the order of the rows/columns
    pos_label : the positive class for binary measures (default 1, or ``True``)

    Notes
    -----
    Binary quantities (``tp``, ``prevalence``, ``alpha`` …) treat ``pos_label`` as
    positive and every other class as negative; for more than two classes they are
    the one-vs-rest counts of ``pos_label``.
    """

    matrix: np.ndarray
    labels: np.ndarray
    pos_label: Any = 1

    def __post_init__(self) -> None:
        m = np.asarray(self.matrix, dtype=np.float64)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise InvalidInputError(f"a confusion matrix must be square, got shape {m.shape}")
        if not np.isfinite(m).all() or (m < 0).any():
            raise InvalidInputError("confusion counts must be finite and non-negative")
        labels = np.asarray(self.labels)
        if labels.shape != (m.shape[0],):
            raise InvalidInputError(
                f"{m.shape[0]} x {m.shape[0]} matrix needs {m.shape[0]} labels, got {labels.shape}"
            )
        m.setflags(write=False)
        object.__setattr__(self, "matrix", m)
        object.__setattr__(self, "labels", labels)

    # --- construction -----------------------------------------------------------

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        sample_weight: Any = None,
        labels: Any = None,
        pos_label: Any = 1,
    ) -> "ConfusionMatrix":
        """Count (weighted) pairs of true and predicted labels in one pass.

        Labels that are not whole numbers (scores such as 0.731) are refused with an
        :class:`~beyondchance.InvalidInputError` naming ``y_true`` or ``y_pred``; whole floats (0.0,
        1.0) are labels.

        >>> ConfusionMatrix.from_predictions(["a", "b", "b"], ["a", "a", "b"], pos_label="b").matrix
        array([[1., 0.],
               [1., 1.]])
        """
        check_aligned(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
        yt, yp = check_label_pair(y_true, y_pred)
        w = check_sample_weight(sample_weight, yt.shape[0])
        if labels is None and w is None:
            fast = _count_zero_one_labels(yt, yp)
            if fast is not None:
                matrix, classes = fast
                return cls(matrix, classes, pos_label=_default_pos_label(classes, pos_label))
        ct, cp, classes = encode_labels(yt, yp, labels=labels)
        k = check_n_classes(classes.shape[0])
        flat = ct * k + cp
        m = _weighted_bincount(flat, w, k * k).reshape(k, k)
        return cls(m, classes, pos_label=_default_pos_label(classes, pos_label))

    @classmethod
    def from_counts(
        cls, *, tp: float, fp: float, fn: float, tn: float, labels: Any = (0, 1)
    ) -> "ConfusionMatrix":
        """A binary matrix from its four counts (``labels`` = (negative, positive)).

        >>> ConfusionMatrix.from_counts(tp=81, fp=0, fn=0, tn=225).prevalence
        0.2647058823529412
        """
        labels = np.asarray(labels)
        if labels.shape != (2,):
            raise InvalidInputError("labels must be (negative label, positive label)")
        return cls(np.array([[tn, fp], [fn, tp]], dtype=np.float64), labels, pos_label=labels[1])

    def merge(self, other: "ConfusionMatrix") -> "ConfusionMatrix":
        """The confusion matrix of the concatenated data (labels are aligned)."""
        if not isinstance(other, ConfusionMatrix):
            raise InvalidInputError(f"cannot merge a ConfusionMatrix with {type(other).__name__}")
        if self.labels.shape == other.labels.shape and np.array_equal(self.labels, other.labels):
            return ConfusionMatrix(self.matrix + other.matrix, self.labels, self.pos_label)
        union = np.unique(np.concatenate([self.labels, other.labels]))
        out = np.zeros((union.size, union.size))
        for cm in (self, other):
            idx = np.searchsorted(union, cm.labels)
            out[np.ix_(idx, idx)] += cm.matrix
        return ConfusionMatrix(out, union, self.pos_label)

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    # --- derived counts ---------------------------------------------------------

    # the sums and one-vs-rest counts of the (read-only) matrix, computed once: a report
    # reads them for every metric, and each is a pass over the k² cells

    @cached_property
    def _sums(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(total, row sums, column sums, diagonal) as :func:`_native_multiclass` computes them."""
        c = self.matrix
        return (c.sum(axis=(-2, -1)), c.sum(axis=-1), c.sum(axis=-2), np.diagonal(c, axis1=-2, axis2=-1).copy())

    @cached_property
    def _counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return _per_class_counts(self.matrix)

    @property
    def n(self) -> float:
        """Total count (sum of weights)."""
        return float(self._sums[0])

    @property
    def n_classes(self) -> int:
        return int(self.labels.shape[0])

    @property
    def true_counts(self) -> np.ndarray:
        """Count of each true label (row sums)."""
        return self._sums[1].copy()

    @property
    def pred_counts(self) -> np.ndarray:
        """Count of each predicted label (column sums)."""
        return self._sums[2].copy()

    @property
    def prior(self) -> np.ndarray:
        """Empirical label distribution p_k of the true labels."""
        return self.true_counts / self.n

    def per_class_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One-vs-rest (tp, fp, fn, tn) for each class, as arrays of length k."""
        return tuple(x.copy() for x in self._counts)  # type: ignore[return-value]

    def _pos_index(self) -> int | None:
        return pos_index_of(self.labels, self.pos_label)

    def binary_counts(self) -> tuple[float, float, float, float]:
        """(tp, fp, fn, tn) with ``pos_label`` positive and all other labels negative."""
        i = self._pos_index()
        if i is None:
            return 0.0, 0.0, 0.0, self.n
        return tuple(float(x) for x in _one_vs_rest_counts(self.matrix, i))  # type: ignore[return-value]

    tp = property(lambda self: self.binary_counts()[0], doc="True positives.")
    fp = property(lambda self: self.binary_counts()[1], doc="False positives.")
    fn = property(lambda self: self.binary_counts()[2], doc="False negatives.")
    tn = property(lambda self: self.binary_counts()[3], doc="True negatives.")

    @property
    def prevalence(self) -> float:
        """π = (TP + FN) / n."""
        tp, fp, fn, tn = self.binary_counts()
        return (tp + fn) / self.n

    @property
    def alpha(self) -> float:
        """Type-I error α = FP / (FP + TN) (nan when there are no negatives)."""
        tp, fp, fn, tn = self.binary_counts()
        return fp / (fp + tn) if fp + tn > 0 else float("nan")

    @property
    def beta(self) -> float:
        """Type-II error β = FN / (TP + FN) (nan when there are no positives)."""
        tp, fp, fn, tn = self.binary_counts()
        return fn / (tp + fn) if tp + fn > 0 else float("nan")

    @property
    def q(self) -> float:
        """Predicted-positive rate q = (TP + FP) / n."""
        tp, fp, fn, tn = self.binary_counts()
        return (tp + fp) / self.n

    # --- metrics ----------------------------------------------------------------

    def metric(
        self,
        name: str | LabelingMetric,
        *,
        average: Average = "binary",
        zero_division: Literal["warn", "nan"] | float = "warn",
        **options: Any,
    ) -> Any:
        """Value of a labeling metric (see :data:`beyondchance.measures.METRICS`).

        Parameters
        ----------
        name : metric name or alias
        average : as in scikit-learn. ``"binary"`` (default; at most two classes)
            scores ``pos_label`` against the rest; for per-class metrics
            ``"macro"`` (mean over classes), ``"weighted"`` (weighted by true
            counts), ``"micro"`` (from the summed one-vs-rest counts) or ``None``
            (one value per class).  Metrics with a native multi-class definition
            (accuracy, balanced accuracy, κ, MCC, pure accuracy, PA) ignore it.
        zero_division : the value of an undefined (0/0) quantity, as in
            scikit-learn.  With ``average`` None, ``"macro"`` or ``"weighted"`` it
            applies to each class before averaging: ``"warn"`` (default) counts an
            undefined class as 0 and warns (:class:`UndefinedMeasureWarning`), a
            number counts it as that number, ``"nan"`` (or ``np.nan``) leaves it
            out of the average.  An undefined single value (``"binary"``,
            ``"micro"``, native metrics) is nan with a warning under ``"warn"``,
            nan under ``"nan"``, or the number given.
        **options : metric options, e.g. ``beta`` for ``fbeta``.

        >>> cm = ConfusionMatrix.from_predictions([0, 1, 2, 2], [0, 1, 1, 1])
        >>> round(cm.metric("precision", average="macro", zero_division=0), 6)  # class 2 never predicted
        0.444444
        >>> round(cm.metric("precision", average="macro", zero_division="nan"), 6)  # class 2 left out
        0.666667
        """
        m = get_metric(name)
        needs_pos = m.multiclass != "native" and average == "binary"
        fill = zero_division_value(zero_division, m, average)
        if m.multiclass != "native" and average in (None, "macro", "weighted", "micro"):
            value = average_per_class(m, *self._counts, average=average, zero_division=fill, **options)
        elif m.multiclass == "native" and self.n_classes != 2 and m.name in _NATIVE_NAMES:
            value = _fill(_native_from_sums(m.name, *self._sums, self.matrix), fill)
        else:
            value = metric_from_matrices(
                self.matrix, m, average=average, pos_index=self._pos_index() if needs_pos else None,
                zero_division=fill, **options,
            )
        if zero_division == "warn":
            _warn_zero_division(self, m, average, value, options)
        return value

    def metrics(self, names: Any = None, **kwargs: Any) -> dict[str, Any]:
        """Several metrics at once (all registered ones by default) as a dict."""
        names = list(METRICS) if names is None else list(names)
        out = {}
        for name in names:
            m = get_metric(name)
            if m.options:
                continue
            out[m.name] = self.metric(m, **kwargs)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "labels": self.labels.tolist(),
            "matrix": self.matrix.tolist(),
            "pos_label": self.pos_label.item() if hasattr(self.pos_label, "item") else self.pos_label,
        }

    def __repr__(self) -> str:
        return f"ConfusionMatrix(labels={self.labels.tolist()}, n={self.n:g}, matrix={self.matrix.tolist()})"

    def _summary_title(self) -> str:
        return (f"Confusion matrix (n = {self.n:,.6g}; rows: true class, columns: predicted; "
                "count and share of the row)")

    def _grid(self) -> tuple[str, list[str], list[tuple[str, list[str]]]]:
        names = [str(c.item() if isinstance(c, np.generic) else c)[:24] for c in self.labels.tolist()]
        rows = []
        for i, name in enumerate(names):
            total = self.matrix[i].sum()
            cells = [f"{v:,.6g} ({100 * v / total:.1f}%)" if total > 0 else f"{v:,.6g}" for v in self.matrix[i]]
            rows.append((name, cells))
        return "true \\ predicted", names, rows


def pos_index_of(labels: np.ndarray, pos_label: Any) -> int | None:
    """The position of ``pos_label`` among ``labels`` (None: a single label, the negative one)."""
    hits = np.flatnonzero(labels == pos_label)
    if hits.size:
        return int(hits[0])
    if labels.shape[0] == 1 and pos_label is not None:
        return None  # the only label is the negative one
    raise InvalidInputError(
        f"pos_label={pos_label!r} is not one of the labels {labels.tolist()}; "
        "pass pos_label= the positive class"
    )


def _default_pos_label(classes: np.ndarray, pos_label: Any) -> Any:
    """``pos_label=1`` means ``True`` for boolean labels; checked lazily by the binary view."""
    if classes.dtype.kind == "b" and pos_label is not None and pos_label == 1:
        return True
    return pos_label


def _one_vs_rest_counts(c: np.ndarray, i: int) -> tuple[np.ndarray, ...]:
    """(tp, fp, fn, tn) of class ``i`` against the rest for a stack (..., k, k).

    Every count is a direct sum of cells, never a difference of totals, so that tiny
    weights next to large ones do not cancel.
    """
    tp = c[..., i, i]
    fn = np.delete(c[..., i, :], i, axis=-1).sum(axis=-1)
    fp = np.delete(c[..., :, i], i, axis=-1).sum(axis=-1)
    tn = np.delete(np.delete(c, i, axis=-2), i, axis=-1).sum(axis=(-2, -1))
    return tp, fp, fn, tn


#: below this many classes, matrices of fractional counts take the per-class direct sums
#: (k³ cell reads per matrix); from it on, the totals (k² reads, :func:`_per_class_counts`)
DIRECT_SUMS_BELOW = 17

#: a true-negative count below this share of the matrix's total, got as a difference of
#: totals from fractional counts, is summed again cell by cell (at most two classes of a
#: matrix can be so small: each holds more than 99.6% of the total in its row and column)
_RESUM_SHARE = 2.0**-8


def _whole_counts(c: np.ndarray, totals: np.ndarray) -> bool:
    """Every cell a whole number and every matrix's total below 2⁵³: then every partial sum
    of cells is exact, in any order, and a difference of totals is the direct sum (checked
    in blocks: no temporary of the matrix's size)."""
    if c.size == 0:
        return True
    if not np.all(totals < 2.0**53):
        return False
    flat = c.reshape(-1)
    step = 2**20
    return all(np.array_equal(b, np.floor(b)) for b in (flat[i:i + step] for i in range(0, flat.shape[0], step)))


def _per_class_counts(c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One-vs-rest counts of every class, each of shape (..., k), in O(k²) per matrix.

    Whole counts (unweighted data, whole weights): from the row, column and grand totals,
    every sum exact, so the result is that of summing each class's cells
    (:func:`_one_vs_rest_counts`) exactly.  Fractional counts: few classes are summed cell
    by cell; many have FN and FP summed from the off-diagonal cells of their row and column
    and TN from the totals, a TN that is a small share of the total (where a difference of
    totals could cancel: tiny weights next to large ones) summed again from its cells.
    """
    c = np.asarray(c, dtype=np.float64)
    k = c.shape[-1]
    total = c.sum(axis=(-2, -1))[..., None]
    diag = np.arange(k)
    tp = c[..., diag, diag].copy()
    if _whole_counts(c, total):
        rows, cols = c.sum(axis=-1), c.sum(axis=-2)
        return tp, cols - tp, rows - tp, total - rows - cols + tp
    if k < DIRECT_SUMS_BELOW:
        counts = [_one_vs_rest_counts(c, i) for i in range(k)]
        tp, fp, fn, tn = (np.stack([cls[j] for cls in counts], axis=-1) for j in range(4))
        return tp, fp, fn, tn
    off = c.copy()
    off[..., diag, diag] = 0.0
    fn = off.sum(axis=-1)
    fp = off.sum(axis=-2)
    total_off = off.sum(axis=(-2, -1))[..., None]
    del off
    tn = (tp.sum(axis=-1, keepdims=True) - tp) + (total_off - fn - fp)
    for idx in np.argwhere(tn < _RESUM_SHARE * total):  # at most two classes per matrix
        *stack, i = (int(x) for x in idx)
        m = c[tuple(stack)]
        tn[tuple(stack) + (i,)] = np.delete(np.delete(m, i, axis=-2), i, axis=-1).sum()
    return tp, fp, fn, tn


def metric_from_matrices(
    matrices: np.ndarray,
    metric: str | LabelingMetric,
    *,
    average: Average = "binary",
    pos_index: int | None = None,
    zero_division: float = np.nan,
    **options: Any,
) -> Any:
    """A labeling metric on one confusion matrix or a stack of them, shape (..., k, k).

    The single definition behind :meth:`ConfusionMatrix.metric` and the bootstrap
    (which evaluates thousands of resampled matrices at once).  ``pos_index`` is the
    row of the positive class for binary per-class metrics (None: no positive class
    present, all counts are negatives).  ``zero_division`` (a number; no warning) is
    the value of an undefined (0/0) per-class value before averaging and of an
    undefined single value; with nan, undefined classes are left out of the macro and
    weighted averages (scikit-learn's ``zero_division=np.nan``).

    >>> import numpy as np
    >>> stack = np.array([[[5, 1], [2, 2]], [[3, 3], [0, 4]]], dtype=float)
    >>> metric_from_matrices(stack, "f1", pos_index=1)
    array([0.57142857, 0.72727273])
    """
    m = get_metric(metric)
    c = np.asarray(matrices, dtype=np.float64)
    k = c.shape[-1]
    if m.multiclass == "native":
        if k == 2:  # symmetric in the labels: either class may play the positive one
            return _fill(m.compute(*_one_vs_rest_counts(c, 1), **options), zero_division)
        return _fill(_native_multiclass(m.name, c), zero_division)
    return _of_one_vs_rest(m, lambda i: _per_class_counts(c) if i is None else _one_vs_rest_counts(c, i),
                           lambda: c.sum(axis=(-2, -1)), k, average=average, pos_index=pos_index,
                           zero_division=zero_division, **options)


def _of_one_vs_rest(m: LabelingMetric, counts: Callable[[int | None], tuple[np.ndarray, ...]],
                    total: Callable[[], np.ndarray], k: int, *, average: Average, pos_index: int | None,
                    zero_division: float, **options: Any) -> Any:
    """A per-class metric by ``average`` from the one-vs-rest counts (tp, fp, fn, tn) of class
    i, ``counts(i)``, or of every class, ``counts(None)`` (arrays (..., k)); ``total()``: the
    rows, all negatives when no positive class is present (``pos_index`` None)."""
    if average == "binary":
        if k > 2:
            raise InvalidInputError(
                f"average='binary' needs two classes, found {k}; "
                "pass average='macro', 'weighted', 'micro' or None"
            )
        if pos_index is None:
            n = total()
            zero = np.zeros_like(n)
            return _fill(m.compute(zero, zero, zero, n, **options), zero_division)
        return _fill(m.compute(*counts(pos_index), **options), zero_division)
    if average not in (None, "macro", "weighted", "micro"):
        raise InvalidInputError(
            f"average must be one of None, 'binary', 'macro', 'weighted', 'micro'; got {average!r}"
        )
    return average_per_class(m, *counts(None), average=average, zero_division=zero_division, **options)


#: the metrics that read every cell, not only the totals (the weighted κ's distances |i − j|)
CELL_METRICS = frozenset({"kappa_linear", "kappa_quadratic"})


class MatrixTotals(NamedTuple):
    """The totals of a stack of confusion matrices of whole counts, shape (..., k, k): the
    grand total ``n`` (...), the true counts ``t`` (row sums), the predicted counts ``p``
    (column sums) and the diagonal, each (..., k).  Every labeling metric but the weighted
    κ (:data:`CELL_METRICS`) is a function of them: per class, tp = diag, fp = p − diag,
    fn = t − diag, tn = n − t − p + diag, exact for whole counts.  A resample of a matrix's
    cells holds at most n non-empty cells, so its totals cost O(n + k), not O(k²).

    >>> import numpy as np
    >>> c = np.array([[5, 1, 0], [2, 2, 1], [0, 0, 4]], dtype=float)
    >>> MatrixTotals.of(c).p
    array([7., 3., 5.])
    """

    n: np.ndarray
    t: np.ndarray
    p: np.ndarray
    diag: np.ndarray

    @classmethod
    def of(cls, matrices: np.ndarray) -> "MatrixTotals":
        c = np.asarray(matrices, dtype=np.float64)
        return cls(c.sum(axis=(-2, -1)), c.sum(axis=-1), c.sum(axis=-2), np.diagonal(c, axis1=-2, axis2=-1).copy())


class CellTotals:
    """Sums weights given per non-empty cell into :class:`MatrixTotals`: ``cells`` the
    sorted flat indices ``i·k + j`` of G pools (a cell may hold several), ``__call__(w)``
    the totals of the (b, G) weights' matrices in O(G + k) per matrix (sums by row, by
    column and on the diagonal), never the b k² matrices themselves.

    >>> import numpy as np
    >>> CellTotals(np.array([0, 1, 4, 6]), 3)(np.array([[5.0, 1.0, 2.0, 3.0]])).t
    array([[6., 2., 3.]])
    """

    def __init__(self, cells: np.ndarray, k: int) -> None:
        cells = np.asarray(cells, dtype=np.int64)
        self.k = int(k)
        self.rows, self.cols = cells // self.k, cells % self.k
        by_col = np.argsort(self.cols, kind="stable")
        on_diag = np.flatnonzero(self.rows == self.cols)
        # (pools in the order of their groups or None when already so, group of each pool)
        self._groups = ((None, self.rows), (by_col, self.cols[by_col]), (on_diag, self.rows[on_diag]))

    def __call__(self, w: np.ndarray) -> MatrixTotals:
        w = np.asarray(w, dtype=np.float64)
        sums = []
        for pools, group in self._groups:
            out = np.zeros((w.shape[0], self.k))
            if group.size:
                starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
                out[:, group[starts]] = np.add.reduceat(w if pools is None else w[:, pools], starts, axis=1)
            sums.append(out)
        return MatrixTotals(w.sum(axis=1), *sums)


def metric_from_totals(
    totals: MatrixTotals,
    metric: str | LabelingMetric,
    *,
    average: Average = "binary",
    pos_index: int | None = None,
    zero_division: float = np.nan,
    **options: Any,
) -> Any:
    """:func:`metric_from_matrices` of matrices of whole counts from their
    :class:`MatrixTotals` alone (equal to it: every count is an exact sum); the weighted κ
    (:data:`CELL_METRICS`) needs the cells and is refused.

    >>> import numpy as np
    >>> stack = np.array([[[5, 1], [2, 2]], [[3, 3], [0, 4]]], dtype=float)
    >>> metric_from_totals(MatrixTotals.of(stack), "f1", pos_index=1)
    array([0.57142857, 0.72727273])
    """
    m = get_metric(metric)
    if m.name in CELL_METRICS:
        raise InvalidInputError(f"{m.name} reads every cell of the confusion matrix, not only its totals")
    n, t, p, diag = (np.asarray(a, dtype=np.float64) for a in totals)
    k = t.shape[-1]
    if m.multiclass == "native" and k != 2:
        return _fill(_native_from_sums(m.name, n, t, p, diag, None), zero_division)
    tp, fp, fn = diag, p - diag, t - diag
    tn = n[..., None] - t - p + diag
    if m.multiclass == "native":  # two classes: symmetric, class 1 plays the positive one
        return _fill(m.compute(tp[..., 1], fp[..., 1], fn[..., 1], tn[..., 1], **options), zero_division)
    return _of_one_vs_rest(m, lambda i: (tp, fp, fn, tn) if i is None else (tp[..., i], fp[..., i], fn[..., i],
                                                                              tn[..., i]),
                           lambda: n, k, average=average, pos_index=pos_index, zero_division=zero_division, **options)


def average_per_class(metric: LabelingMetric, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray, *,
                      average: Average, zero_division: float, **options: Any) -> Any:
    """A per-class metric from the one-vs-rest counts of every class (arrays (..., k)):
    the values of the classes (``average`` None) or their ``"micro"``, ``"macro"`` or
    ``"weighted"`` average, as :func:`metric_from_matrices` defines them."""
    m = metric
    if average == "micro":
        return _fill(m.compute(tp.sum(axis=-1), fp.sum(axis=-1), fn.sum(axis=-1), tn.sum(axis=-1), **options),
                     zero_division)
    per_class = _fill(np.asarray(m.compute(tp, fp, fn, tn, **options), dtype=np.float64), zero_division)
    if average is None:
        return per_class
    return _nanaverage(per_class, None if average == "macro" else tp + fn)


def _fill(value: Any, zero_division: float) -> Any:
    """``value`` with its undefined (nan) entries replaced by ``zero_division``."""
    if np.isnan(zero_division):
        return value
    out = np.where(np.isnan(value), zero_division, value)
    return float(out) if out.ndim == 0 else out


def _nanaverage(values: np.ndarray, weights: np.ndarray | None) -> Any:
    """Weighted mean over the last axis of the defined (non-nan) values.

    scikit-learn's ``_nanaverage``: nan when no value is defined, and the plain mean
    of the defined values when their weights sum to 0.
    """
    defined = ~np.isnan(values)
    v = np.where(defined, values, 0.0)
    w = defined.astype(np.float64) if weights is None else np.where(defined, weights, 0.0)
    wsum, count = w.sum(axis=-1), defined.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(wsum > 0, (v * w).sum(axis=-1) / wsum, v.sum(axis=-1) / count)
    return float(out) if out.ndim == 0 else out


def zero_division_value(zero_division: Any, metric: LabelingMetric, average: Any) -> float:
    """The number :func:`metric_from_matrices` substitutes for an undefined value.

    The package's one statement of the ``zero_division`` policy (scikit-learn's):
    ``"warn"`` counts an undefined class of a per-class average (``average`` None,
    ``"macro"``, ``"weighted"``) as 0 and leaves an undefined single value nan (the
    caller warns); ``"nan"`` / ``np.nan`` leave both undefined; a number replaces both.
    """
    if isinstance(zero_division, str) and zero_division in ("warn", "nan"):
        per_class = metric.multiclass != "native" and average in (None, "macro", "weighted")
        return 0.0 if zero_division == "warn" and per_class else np.nan
    if isinstance(zero_division, (bool, np.bool_)) or not isinstance(zero_division, (numbers.Real, np.floating)):
        raise InvalidInputError(
            f"zero_division must be 'warn', 'nan' or a number, got {zero_division!r}"
        )
    return float(zero_division)


def _warn_zero_division(cm: ConfusionMatrix, m: LabelingMetric, average: Any, value: Any, options: dict) -> None:
    """The warning of ``zero_division="warn"``: which classes counted as 0, or that the value is nan."""
    if m.multiclass != "native" and average in (None, "macro", "weighted"):
        raw = average_per_class(m, *cm._counts, average=None, zero_division=np.nan, **options)
        undefined = cm.labels[np.isnan(raw)]
        if undefined.size:
            shown = ", ".join(repr(x.item() if isinstance(x, np.generic) else x) for x in undefined[:5])
            more = f" and {undefined.size - 5} more" if undefined.size > 5 else ""
            where = "set to 0" if average is None else f"counted as 0 in the {average} average"
            first = int(np.flatnonzero(np.isnan(raw))[0])
            case = undefined_case(m.name, *(float(np.asarray(c)[first]) for c in cm._counts))
            case = "0/0" if case == "0/0" else (case if undefined.size == 1 else f"class {shown.split(', ')[0]}: {case}")
            warn_undefined(
                f"{m.name} is undefined ({case}) for class {shown}{more}: {where}, as in scikit-learn "
                "(zero_division='warn'; pass 0 to silence this, or 'nan' to leave such classes out)",
                stacklevel=4,
            )
    elif np.any(np.isnan(value)):
        case = undefined_case(m.name, *cm.binary_counts()) if m.multiclass != "native" and average == "binary" else "0/0"
        warn_undefined(f"{m.name} is undefined for this confusion matrix ({case}); returning nan", stacklevel=4)


def _beyond_rounding(difference: Any, scale: Any) -> Any:
    """``difference`` of two sums of size ``scale``, with what rounding can leave of an exact
    zero (at most 1e-12 of the scale: one class in the truth or the predictions under
    fractional weights) set to 0, so that the measure is undefined, not noise."""
    return np.where(difference > 1e-12 * scale, difference, 0.0)


#: the metrics of :func:`_native_multiclass`
_NATIVE_NAMES = frozenset({"accuracy", "error", "balanced_accuracy", "kappa", "pure_accuracy", "kappa_linear",
                           "kappa_quadratic", "mcc", "prediction_advantage"})


def _native_multiclass(name: str, c: np.ndarray) -> Any:
    """Multi-class definitions from the full (..., k, k) matrices (k ≠ 2)."""
    return _native_from_sums(name, c.sum(axis=(-2, -1)), c.sum(axis=-1), c.sum(axis=-2),
                             np.diagonal(c, axis1=-2, axis2=-1), c)


def _native_from_sums(name: str, n: Any, t: np.ndarray, p: np.ndarray, diag: np.ndarray, c: np.ndarray | None) -> Any:
    """:func:`_native_multiclass` from the matrices' totals ``n``, true counts ``t``, predicted
    counts ``p`` and diagonals (the cells ``c`` are read by the weighted κ only)."""
    correct = diag.sum(axis=-1)
    if name == "accuracy":
        out = _div(correct, n)
    elif name == "error":
        out = _div(n - correct, n)
    elif name == "balanced_accuracy":  # mean recall over the classes present in the truth
        present = t > 0
        recall = np.where(present, diag / np.where(present, t, 1.0), 0.0)
        out = _div(recall.sum(axis=-1), present.sum(axis=-1))
    elif name in ("kappa", "pure_accuracy"):
        # RA = Σ_k p_k q_k (Pure Accuracy paper, multi-class form) — equals Cohen's κ;
        # (A − RA)/(1 − RA) multiplied through by n² to avoid cancellation
        chance = (t * p).sum(axis=-1)
        out = _div(n * correct - chance, _beyond_rounding(n * n - chance, n * n))
    elif name in ("kappa_linear", "kappa_quadratic"):
        # weighted κ (Cohen 1968) on ordinal classes in label order, as scikit-learn's
        # cohen_kappa_score(weights=...): 1 − Σ w C / Σ w E with E = t pᵀ / n, times n;
        # both sums have non-negative terms (no cancellation): Σ w E = 0 exactly when undefined
        assert c is not None  # the cells are given: metric_from_totals refuses CELL_METRICS
        k = c.shape[-1]
        d = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(np.float64)
        w = d if name == "kappa_linear" else d * d
        observed = n * (w * c).sum(axis=(-2, -1))
        expected = (w * (t[..., :, None] * p[..., None, :])).sum(axis=(-2, -1))
        out = 1 - _div(observed, expected)
    elif name == "mcc":  # Gorodkin's R_K, as scikit-learn
        cov_ytyp = correct * n - (t * p).sum(axis=-1)
        cov_ypyp = _beyond_rounding(n**2 - (p * p).sum(axis=-1), n**2)
        cov_ytyt = _beyond_rounding(n**2 - (t * t).sum(axis=-1), n**2)
        den = np.sqrt(cov_ytyt * cov_ypyp)
        out = _div(cov_ytyp, den)
    elif name == "prediction_advantage":  # 1 − err / (1 − max_k p_k)
        out = 1 - _div(n - correct, n - t.max(axis=-1))
    else:  # pragma: no cover
        raise AssertionError(name)
    return float(out) if np.ndim(out) == 0 else out
