r"""The confusion matrix: the sufficient statistic of every labeling measure.

:class:`ConfusionMatrix` holds (weighted) counts ``C[i, j]`` = total weight of the
samples whose true label is ``labels[i]`` and predicted label is ``labels[j]``
(scikit-learn's orientation).  It is built in one pass over the data
(``numpy.bincount``), merges with another matrix by addition, and exposes the
re-parametrisation (n, π, α, β, q) of the OPS paper and every metric of
:mod:`beyondchance.metrics`.

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

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ._validation import check_label_pair, check_sample_weight, encode_labels
from ._warnings import InvalidInputError, warn_undefined
from .metrics import METRICS, LabelingMetric, _div, get_metric

__all__ = ["ConfusionMatrix", "metric_from_matrices"]

Average = Literal["binary", "macro", "weighted", "micro"] | None


def _weighted_bincount(codes: np.ndarray, weights: np.ndarray | None, size: int) -> np.ndarray:
    out = np.bincount(codes, weights=weights, minlength=size)
    return out.astype(np.float64, copy=False)


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
class ConfusionMatrix:
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

        >>> ConfusionMatrix.from_predictions(["a", "b", "b"], ["a", "a", "b"], pos_label="b").matrix
        array([[1., 0.],
               [1., 1.]])
        """
        yt, yp = check_label_pair(y_true, y_pred)
        w = check_sample_weight(sample_weight, yt.shape[0])
        if labels is None and w is None:
            fast = _count_zero_one_labels(yt, yp)
            if fast is not None:
                matrix, classes = fast
                return cls(matrix, classes, pos_label=_default_pos_label(classes, pos_label))
        ct, cp, classes = encode_labels(yt, yp, labels=labels)
        k = classes.shape[0]
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

    # --- derived counts ---------------------------------------------------------

    @property
    def n(self) -> float:
        """Total count (sum of weights)."""
        return float(self.matrix.sum())

    @property
    def n_classes(self) -> int:
        return int(self.labels.shape[0])

    @property
    def true_counts(self) -> np.ndarray:
        """Count of each true label (row sums)."""
        return self.matrix.sum(axis=1)

    @property
    def pred_counts(self) -> np.ndarray:
        """Count of each predicted label (column sums)."""
        return self.matrix.sum(axis=0)

    @property
    def prior(self) -> np.ndarray:
        """Empirical label distribution p_k of the true labels."""
        return self.true_counts / self.n

    def per_class_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One-vs-rest (tp, fp, fn, tn) for each class, as arrays of length k."""
        return _per_class_counts(self.matrix)

    def _pos_index(self) -> int | None:
        hits = np.flatnonzero(self.labels == self.pos_label)
        if hits.size:
            return int(hits[0])
        if self.n_classes == 1 and self.pos_label is not None:
            return None  # the only label is the negative one
        raise InvalidInputError(
            f"pos_label={self.pos_label!r} is not one of the labels {self.labels.tolist()}; "
            "pass pos_label= the positive class"
        )

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
        """Value of a labeling metric (see :data:`beyondchance.metrics.METRICS`).

        Parameters
        ----------
        name : metric name or alias
        average : as in scikit-learn. ``"binary"`` (default; at most two classes)
            scores ``pos_label`` against the rest; for per-class metrics
            ``"macro"`` (mean over classes), ``"weighted"`` (weighted by true
            counts), ``"micro"`` (from the summed one-vs-rest counts) or ``None``
            (one value per class).  Metrics with a native multi-class definition
            (accuracy, balanced accuracy, κ, MCC, pure accuracy, PA) ignore it.
        zero_division : what to return when the metric is undefined: ``"warn"``
            (nan and an :class:`UndefinedMeasureWarning`), ``"nan"`` (silently), or
            a number.
        **options : metric options, e.g. ``beta`` for ``fbeta``.
        """
        m = get_metric(name)
        needs_pos = m.multiclass != "native" and average == "binary"
        value = metric_from_matrices(
            self.matrix, m, average=average, pos_index=self._pos_index() if needs_pos else None, **options
        )
        return _apply_zero_division(value, zero_division, m.name)

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


def _per_class_counts(c: np.ndarray) -> tuple[np.ndarray, ...]:
    """One-vs-rest counts of every class, each of shape (..., k)."""
    counts = [_one_vs_rest_counts(c, i) for i in range(c.shape[-1])]
    return tuple(np.stack([cls[j] for cls in counts], axis=-1) for j in range(4))


def metric_from_matrices(
    matrices: np.ndarray,
    metric: str | LabelingMetric,
    *,
    average: Average = "binary",
    pos_index: int | None = None,
    **options: Any,
) -> Any:
    """A labeling metric on one confusion matrix or a stack of them, shape (..., k, k).

    The single definition behind :meth:`ConfusionMatrix.metric` and the bootstrap
    (which evaluates thousands of resampled matrices at once).  ``pos_index`` is the
    row of the positive class for binary per-class metrics (None: no positive class
    present, all counts are negatives).  Undefined values are nan (no warning).

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
            return m.compute(*_one_vs_rest_counts(c, 1), **options)
        return _native_multiclass(m.name, c)
    if average == "binary":
        if k > 2:
            raise InvalidInputError(
                f"average='binary' needs two classes, found {k}; "
                "pass average='macro', 'weighted', 'micro' or None"
            )
        if pos_index is None:
            n = c.sum(axis=(-2, -1))
            zero = np.zeros_like(n)
            return m.compute(zero, zero, zero, n, **options)
        return m.compute(*_one_vs_rest_counts(c, pos_index), **options)
    if average not in (None, "macro", "weighted", "micro"):
        raise InvalidInputError(
            f"average must be one of None, 'binary', 'macro', 'weighted', 'micro'; got {average!r}"
        )
    tp, fp, fn, tn = _per_class_counts(c)
    if average == "micro":
        return m.compute(tp.sum(axis=-1), fp.sum(axis=-1), fn.sum(axis=-1), tn.sum(axis=-1), **options)
    per_class = np.asarray(m.compute(tp, fp, fn, tn, **options), dtype=np.float64)
    if average is None:
        return per_class
    if average == "macro":
        out = per_class.mean(axis=-1)
    else:  # weighted by the true counts
        support = tp + fn
        out = _div((per_class * support).sum(axis=-1), support.sum(axis=-1))
    return float(out) if np.ndim(out) == 0 else out


def _native_multiclass(name: str, c: np.ndarray) -> Any:
    """Multi-class definitions from the full (..., k, k) matrices (k ≠ 2)."""
    n = c.sum(axis=(-2, -1))
    t = c.sum(axis=-1)  # true counts
    p = c.sum(axis=-2)  # predicted counts
    diag = np.diagonal(c, axis1=-2, axis2=-1)
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
        out = _div(n * correct - chance, np.where(n * n - chance > 0, n * n - chance, 0.0))
    elif name == "mcc":  # Gorodkin's R_K, as scikit-learn
        cov_ytyp = correct * n - (t * p).sum(axis=-1)
        cov_ypyp = n**2 - (p * p).sum(axis=-1)
        cov_ytyt = n**2 - (t * t).sum(axis=-1)
        den = np.sqrt(np.maximum(cov_ytyt * cov_ypyp, 0.0))
        out = _div(cov_ytyp, den)
    elif name == "prediction_advantage":  # 1 − err / (1 − max_k p_k)
        out = 1 - _div(n - correct, n - t.max(axis=-1))
    else:  # pragma: no cover
        raise AssertionError(name)
    return float(out) if np.ndim(out) == 0 else out


def _apply_zero_division(value: Any, zero_division: Any, name: str) -> Any:
    undefined = np.isnan(value)
    if not np.any(undefined):
        return value
    if zero_division == "warn":
        warn_undefined(f"{name} is undefined for this confusion matrix (0/0); returning nan")
        return value
    if zero_division == "nan":
        return value
    if isinstance(zero_division, (int, float)):
        return np.where(undefined, float(zero_division), value)[()] if np.ndim(value) else float(zero_division)
    raise InvalidInputError(f"zero_division must be 'warn', 'nan' or a number, got {zero_division!r}")
