r"""Sufficient statistics: small, mergeable summaries from which every measure is computed.

Every measure of the package is a function of a few small statistics of the data
(SPEC §5).  They are made explicit here, each with ``merge`` (also ``+``):
``a.merge(b)`` is the statistic of the concatenated data — exactly, for the counts —
so that the data can be summarised in chunks, in a stream, out of core (DuckDB) or on
a cluster (Spark) and the pieces added up (:mod:`beyondchance.engines`,
:mod:`beyondchance.engines.accumulator`).

=========================  ===========================================  ==============================
statistic                  what it holds                                measures
=========================  ===========================================  ==============================
:class:`ConfusionMatrix`   weighted counts of (true, predicted) labels  labeling metrics, PA (0/1,
                           (from :mod:`beyondchance.measures.confusion`)         cost matrices), pure accuracy
:class:`LabelCounts`       weighted count of each true label            BMP of every label /
                                                                        probability loss
:class:`LossSums`          total weight and Σ w·ℓ per loss              the predictor's risk R(f)
:class:`Moments`           weight, mean, Σ w (y − ȳ)² of the target     BMP of the squared loss
                                                                        (R² with LossSums)
:class:`ValueHistogram`    per value (or bin): Σ w, Σ w y, min, max     BMP of the absolute / pinball
                                                                        loss (exact or bounded)
:class:`ThresholdCounts`   cumulative (positive, negative) weight at    every curve, AUC and point
                           each distinct score (:mod:`~.curves`)        metric, exactly
:class:`BinnedScoreCounts` the same per score bin (fixed size)          every curve, with a stated
                                                                        AUC error bound
=========================  ===========================================  ==============================

:class:`SufficientStatistics` bundles the ones a task needs and computes the
measures by calling the measure modules — one formula per measure:

* labeling metrics: :meth:`ConfusionMatrix.metric`;
* PA of label losses (0/1, cost matrices, label callables): the cells of the
  confusion matrix are passed as weighted rows to
  :meth:`PredictionAdvantageResult.from_predictions <beyondchance.PredictionAdvantageResult.from_predictions>`;
* BMPs of probability / absolute / pinball losses: the label counts or the exact
  value counts are passed as weighted rows to
  :func:`~beyondchance.bayes_marginal_prediction`;
* curves: the methods of :class:`~beyondchance.ThresholdCounts`;
* OPS: :func:`~beyondchance.outperformance_score` of the value computed above.

Binned scores: the bin of a score s is ``floor(s · bins)`` and the bin's threshold
is its smallest score, so every point of the binned curve is a point of the exact
curve (the cumulative counts at that threshold are exact); only the path between
consecutive points is lost.  Bounds (all computed from the binned counts alone):

* ROC AUC (trapezoid): inside a bin with P_b positives and N_b negatives the exact
  path is a monotone staircase between the same two corners, the binned curve is the
  diagonal, so |AUC_binned − AUC_exact| ≤ Σ_b P_b N_b / (2 P N) (ties within a bin
  count one half, the pairs of different bins are ordered exactly);
* gain AUC = π/2 + (1 − π)·ROC AUC: the ROC bound times (1 − π);
* average precision: inside bin b every exact step has precision between
  TP_{b−1}/(TP_{b−1} + FP_b) and TP_b/(TP_b + FP_{b−1}), and the binned step uses a
  precision in the same range, so |AP_binned − AP_exact| ≤
  Σ_b (P_b/P)·[TP_b/(TP_b + FP_{b−1}) − TP_{b−1}/(TP_{b−1} + FP_b)].

Binned targets (absolute / pinball BMP): the risk R(c) = Σ w ℓ_α(c, y)/W is convex
and piecewise linear; it is known exactly at every bin's min and max (all other
values of the bin lie on one side), and between them its slope lies in
[(1−α)W_{<b} − αW_{≥b}, (1−α)W_{≤b} − αW_{>b}]/W.  The smallest exact value is an
achievable baseline risk (upper bound of R(f₀)); the supporting lines give a lower
bound; the gap is at most w_b·h_b/(4W), w_b the weight and h_b the value range of
the bin holding the α-quantile.  With ``bin_width=None`` every distinct value is its
own bin and the BMP is exact.

Examples
--------
>>> import numpy as np
>>> from beyondchance.engines.memory import statistics_from_arrays
>>> y = np.array([0, 0, 1, 1, 0, 1]); s = np.array([.1, .4, .35, .8, .2, .9])
>>> a = statistics_from_arrays(y[:3], y_score=s[:3])
>>> b = statistics_from_arrays(y[3:], y_score=s[3:])
>>> both = a + b
>>> both.auc("roc") == statistics_from_arrays(y, y_score=s).auc("roc")
True
>>> both.metric("accuracy"), both.n
(0.8333333333333334, 6.0)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .._validation import (
    as_1d,
    as_float_1d,
    binary_target,
    check_consistent_length,
    check_sample_weight,
    encode_labels,
)
from .._warnings import InvalidInputError
from ..measures.advantage import (
    _advantage,
    PredictionAdvantageResult,
)
from ..measures.losses import (
    AbsoluteLoss,
    BayesMarginalPrediction,
    Loss,
    PinballLoss,
    SquaredLoss,
    baseline_risk_is_zero,
    bayes_marginal_prediction,
    get_loss,
)
from ..measures.confusion import ConfusionMatrix
from ..measures.curves import ThresholdCounts
from .._summary_display import SummaryDisplay
from .._json import jsonable as _jsonable

__all__ = [
    "ConfusionMatrix",
    "ThresholdCounts",
    "LabelCounts",
    "LossSums",
    "Moments",
    "ValueHistogram",
    "BinnedScoreCounts",
    "ClassScoreCounts",
    "SufficientStatistics",
    "STATISTICS",
    "TASKS",
]

Task = Literal["binary", "labels", "probabilities", "regression"]
#: the tasks a :class:`SufficientStatistics` can describe
TASKS: tuple[str, ...] = ("binary", "labels", "probabilities", "regression")
#: the statistics of each task (the names of :class:`SufficientStatistics` fields)
STATISTICS: dict[str, tuple[str, ...]] = {
    "binary": ("confusion", "label_counts", "loss_sums", "scores", "permutation_cells", "permutation_loss_sums"),
    "labels": ("confusion", "label_counts", "permutation_cells"),
    "probabilities": ("confusion", "label_counts", "loss_sums", "class_scores", "permutation_cells",
                      "permutation_loss_sums"),
    "regression": ("loss_sums", "moments", "targets", "prediction_moments", "squared_error_sums"),
}
#: losses summed for probability predictions
PROBABILITY_LOSSES: tuple[str, ...] = ("cross_entropy", "brier")


def _get_loss(loss: Any) -> Loss:
    """:func:`get_loss`, also reading the names of pinball losses, ``"pinball(alpha=0.9)"``."""
    if isinstance(loss, str):
        m = re.fullmatch(r"\s*(?:pinball|quantile)\(alpha=([^)]+)\)\s*", loss)
        if m:
            try:
                return PinballLoss(float(m.group(1)))
            except ValueError as exc:
                raise InvalidInputError(f"cannot read the pinball loss {loss!r}") from exc
    return get_loss(loss)




def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def _nonneg_counts(values: Any, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    arr = np.array(values, dtype=np.float64)
    if shape is not None and arr.shape != shape:
        raise InvalidInputError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise InvalidInputError(f"{name} must be finite and non-negative")
    return _readonly(arr)


def _union_index(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted union of two label arrays and the position of each array's labels in it."""
    try:
        union = np.unique(np.concatenate([a, b]))
    except TypeError as exc:
        raise InvalidInputError(f"cannot merge statistics with labels of incompatible types: {exc}") from exc
    return union, np.searchsorted(union, a), np.searchsorted(union, b)


# =====================================================================================
# label counts
# =====================================================================================


@dataclass(frozen=True, eq=False)
class LabelCounts(SummaryDisplay):
    r"""Weighted count of each true label: the label distribution P(Y).

    The Bayesian marginal prediction (BMP) of every label or probability loss is a
    function of these counts alone (PA paper, section 2; :func:`baseline`).

    Attributes
    ----------
    labels : (k,) the distinct labels (stored sorted)
    counts : (k,) total weight of each label

    Examples
    --------
    >>> lc = LabelCounts.from_labels(["a", "b", "b", "b"])
    >>> lc.labels.tolist(), lc.counts.tolist()
    (['a', 'b'], [1.0, 3.0])
    >>> lc.baseline("zero_one").prediction, lc.baseline("zero_one").risk
    ('b', 0.25)
    >>> (lc + LabelCounts.from_labels(["c"])).counts.tolist()
    [1.0, 3.0, 1.0]
    """

    labels: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        labels = as_1d(self.labels, "labels", allow_empty=True)
        counts = _nonneg_counts(self.counts, "counts", labels.shape)
        try:
            order = np.argsort(labels, kind="stable")
        except TypeError as exc:
            raise InvalidInputError(f"labels of incompatible types: {exc}") from exc
        labels, counts = labels[order], counts[order]
        if labels.size > 1 and (labels[1:] == labels[:-1]).any():
            raise InvalidInputError("labels contains duplicates")
        object.__setattr__(self, "labels", _readonly(labels))
        object.__setattr__(self, "counts", _readonly(counts))

    @classmethod
    def from_labels(cls, y_true: Any, *, sample_weight: Any = None) -> "LabelCounts":
        """Count the (weighted) labels in one pass (``numpy.bincount``)."""
        codes, _, classes = encode_labels(y_true)
        w = check_sample_weight(sample_weight, codes.shape[0])
        return cls(classes, np.bincount(codes, weights=w, minlength=classes.shape[0]).astype(np.float64))

    def merge(self, other: "LabelCounts") -> "LabelCounts":
        """The label counts of the concatenated data."""
        if not isinstance(other, LabelCounts):
            raise InvalidInputError(f"cannot merge LabelCounts with {type(other).__name__}")
        if self.labels.shape == other.labels.shape and np.array_equal(self.labels, other.labels):
            return LabelCounts(self.labels, self.counts + other.counts)
        union, ia, ib = _union_index(self.labels, other.labels)
        out = np.zeros(union.shape[0])
        np.add.at(out, ia, self.counts)
        np.add.at(out, ib, other.counts)
        return LabelCounts(union, out)

    __add__ = merge

    @property
    def n(self) -> float:
        """Total weight."""
        return float(self.counts.sum())

    @property
    def prior(self) -> np.ndarray:
        """The empirical label distribution p_k."""
        return self.counts / self.n

    def baseline(self, loss: str | Loss = "zero_one") -> BayesMarginalPrediction:
        """The BMP of a label or probability loss for this label distribution.

        :func:`~beyondchance.bayes_marginal_prediction` on the labels weighted by their
        counts (the same code as for the raw labels).
        """
        lo = _get_loss(loss)
        if lo.prediction == "real":
            raise InvalidInputError(f"loss {lo.name!r} takes real targets; use Moments or ValueHistogram")
        return bayes_marginal_prediction(self.labels, loss=lo, sample_weight=self.counts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {"labels": _jsonable(self.labels), "counts": self.counts.tolist()}

    def __repr__(self) -> str:
        return f"LabelCounts(labels={self.labels.tolist()}, counts={self.counts.tolist()})"

    def _summary_title(self) -> str:
        return f"Label counts (total weight {self.n:,.6g})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [(str(_jsonable(c))[:40], f"{v:,.6g} ({100 * p:.2f}%)")
                for c, v, p in zip(self.labels.tolist(), self.counts, self.prior)]


# =====================================================================================
# loss sums
# =====================================================================================


@dataclass(frozen=True, eq=False)
class LossSums(SummaryDisplay):
    r"""Total weight W and Σ_i w_i ℓ(f(x_i), y_i) for several losses: the risks R(f).

    Keys are loss names as :func:`~beyondchance.get_loss` spells them
    (``"cross_entropy"``, ``"brier"``, ``"squared"``, ``"absolute"``,
    ``"pinball(alpha=0.9)"`` …).

    >>> ls = LossSums(4.0, {"squared": 2.0}) + LossSums(1.0, {"squared": 3.0})
    >>> ls.weight, ls.risk("squared"), ls.risk("mse")
    (5.0, 1.0, 1.0)
    """

    weight: float
    sums: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        w = float(self.weight)
        if not math.isfinite(w) or w < 0:
            raise InvalidInputError(f"weight must be finite and non-negative, got {self.weight!r}")
        sums = {str(k): float(v) for k, v in dict(self.sums).items()}
        for k, v in sums.items():
            if not math.isfinite(v) or v < 0:
                raise InvalidInputError(f"the loss sum of {k!r} must be finite and non-negative, got {v!r}")
        object.__setattr__(self, "weight", w)
        object.__setattr__(self, "sums", sums)

    def merge(self, other: "LossSums") -> "LossSums":
        """The loss sums of the concatenated data (the same losses on both sides)."""
        if not isinstance(other, LossSums):
            raise InvalidInputError(f"cannot merge LossSums with {type(other).__name__}")
        if set(self.sums) != set(other.sums):
            raise InvalidInputError(
                f"cannot merge sums of different losses: {sorted(self.sums)} and {sorted(other.sums)}"
            )
        return LossSums(self.weight + other.weight, {k: self.sums[k] + other.sums[k] for k in self.sums})

    __add__ = merge

    def _key(self, loss: str | Loss) -> str:
        name = _get_loss(loss).name
        if name not in self.sums:
            raise InvalidInputError(
                f"no loss sum for {name!r}; available: {', '.join(sorted(self.sums)) or 'none'}"
            )
        return name

    def risk(self, loss: str | Loss) -> float:
        """R(f) = Σ w ℓ / W."""
        key = self._key(loss)
        if self.weight <= 0:
            raise InvalidInputError("the total weight is 0: there is nothing to evaluate")
        return self.sums[key] / self.weight

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {"weight": self.weight, "sums": dict(self.sums)}

    def __repr__(self) -> str:
        return f"LossSums(weight={self.weight:g}, sums={dict(self.sums)})"

    def _summary_title(self) -> str:
        return f"Loss sums (total weight {self.weight:,.6g})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [(f"mean {name}", total / self.weight if self.weight > 0 else float("nan"))
                for name, total in self.sums.items()]


# =====================================================================================
# moments
# =====================================================================================


@dataclass(frozen=True, eq=False)
class Moments(SummaryDisplay):
    r"""Weight, mean and centred sum of squares of a real target: the squared-loss BMP.

    W = Σ w_i, ȳ = Σ w_i y_i / W, M₂ = Σ w_i (y_i − ȳ)².  The BMP of the squared loss is
    ȳ with risk M₂/W = Var(Y) (PA paper, Lemma 2.4), so R² = 1 − SSE/M₂.  Merged by
    the pairwise update of Chan, Golub & LeVeque (1979), which never subtracts large
    uncentred sums:

    .. math::

        \delta = \bar y_b - \bar y_a,\quad W = W_a + W_b,\quad
        \bar y = \bar y_a + \delta W_b / W,\quad
        M_2 = M_{2,a} + M_{2,b} + \delta^2 W_a W_b / W.

    >>> m = Moments.from_values([1.0, 2.0]) + Moments.from_values([6.0])
    >>> m.weight, m.mean, m.m2, m.variance
    (3.0, 3.0, 14.0, 4.666666666666667)
    """

    weight: float
    mean: float
    m2: float

    def __post_init__(self) -> None:
        vals = [float(self.weight), float(self.mean), float(self.m2)]
        if not all(math.isfinite(v) for v in vals) or vals[0] < 0 or vals[2] < 0:
            raise InvalidInputError("Moments need a finite non-negative weight and m2 and a finite mean")
        object.__setattr__(self, "weight", vals[0])
        object.__setattr__(self, "mean", vals[1])
        object.__setattr__(self, "m2", vals[2])

    @classmethod
    def from_values(cls, y: Any, *, sample_weight: Any = None) -> "Moments":
        """Two passes over y: the weighted mean, then Σ w (y − ȳ)²."""
        arr = as_float_1d(y, "y_true")
        return cls.of_checked(arr, check_sample_weight(sample_weight, arr.shape[0]))

    @classmethod
    def of_checked(cls, arr: np.ndarray, w: np.ndarray | None) -> "Moments":
        """:meth:`from_values` of an already checked finite float64 array and weights."""
        ww = np.ones_like(arr) if w is None else w
        total = float(np.sum(ww))
        mean = float(np.sum(np.multiply(ww, arr))) / total
        d = arr - mean
        return cls(total, mean, float(np.sum(np.multiply(ww, d * d))))

    def merge(self, other: "Moments") -> "Moments":
        """The moments of the concatenated data (Chan et al.'s pairwise update)."""
        if not isinstance(other, Moments):
            raise InvalidInputError(f"cannot merge Moments with {type(other).__name__}")
        if other.weight == 0:
            return self
        if self.weight == 0:
            return other
        w = self.weight + other.weight
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.weight / w)
        m2 = self.m2 + other.m2 + delta * delta * (self.weight * other.weight / w)
        return Moments(w, mean, m2)

    __add__ = merge

    @property
    def variance(self) -> float:
        """Var(Y) = M₂ / W, the BMP risk of the squared loss."""
        return self.m2 / self.weight

    def baseline(self) -> BayesMarginalPrediction:
        """The squared-loss BMP: the mean, with risk Var(Y).

        The risk is 0 where ``beyondchance.measures.losses.baseline_risk_is_zero`` says
        so, with the root mean square of y standing for the targets' scale ``max |y|`` (the
        two agree to 10 digits wherever the rule can hold), as on the rows.
        """
        scale = math.sqrt(self.variance + self.mean * self.mean)
        zero = bool(baseline_risk_is_zero(self.variance, get_loss("squared"), scale))
        return BayesMarginalPrediction("squared", self.mean, 0.0 if zero else self.variance, None, "sample",
                                       "closed_form")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {"weight": self.weight, "mean": self.mean, "m2": self.m2}

    def __repr__(self) -> str:
        return f"Moments(weight={self.weight:g}, mean={self.mean:g}, m2={self.m2:g})"

    def _summary_title(self) -> str:
        return "Moments of the target"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("weight", self.weight), ("mean", self.mean), ("variance", self.variance)]


# =====================================================================================
# value histogram (absolute / pinball BMP)
# =====================================================================================


def _check_bin_width(bin_width: Any) -> float | None:
    if bin_width is None:
        return None
    try:
        h = float(bin_width)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"bin_width must be a positive number or None, got {bin_width!r}") from exc
    if not math.isfinite(h) or h <= 0:
        raise InvalidInputError(f"bin_width must be a positive number or None, got {bin_width!r}")
    return h


def _pinball_alpha(loss: Loss) -> tuple[float, float]:
    """(α, scale): the loss is scale × pinball_α (the absolute loss is twice pinball_0.5)."""
    if isinstance(loss, AbsoluteLoss):
        return 0.5, 2.0
    if isinstance(loss, PinballLoss):
        return loss.alpha, 1.0
    raise InvalidInputError(f"a ValueHistogram gives the BMP of the absolute and pinball losses, not {loss.name!r}")


@dataclass(frozen=True, eq=False)
class ValueHistogram(SummaryDisplay):
    r"""Per distinct value (``bin_width=None``) or per bin ``floor(y / bin_width)``: Σ w, Σ w y, min, max.

    The sufficient statistic of the absolute- and pinball-loss BMPs (the weighted
    median / α-quantile and the risk around it): exact with distinct values, within a
    stated bound with bins (module docstring).  Bins are keyed by an integer, so
    histograms built separately with the same ``bin_width`` merge exactly.

    Attributes
    ----------
    keys : (m,) bin keys, increasing (the values themselves when exact)
    weight, wsum : (m,) Σ w and Σ w y per bin
    vmin, vmax : (m,) smallest and largest value of each bin
    bin_width : None (exact) or the width h of the bins

    >>> h = ValueHistogram.from_values([1.0, 2.0, 10.0])
    >>> h.baseline("absolute").prediction, h.baseline("absolute").risk
    (2.0, 3.0)
    >>> hb = ValueHistogram.from_values([1.0, 2.0, 10.0], bin_width=5.0)
    >>> hb.baseline_risk_bounds("absolute")   # the exact risk, 3.0, lies in between
    (2.8333333333333335, 3.0)
    """

    keys: np.ndarray
    weight: np.ndarray
    wsum: np.ndarray
    vmin: np.ndarray
    vmax: np.ndarray
    bin_width: float | None = None

    def __post_init__(self) -> None:
        keys = np.array(self.keys, dtype=np.float64)
        m = keys.shape
        if keys.ndim != 1:
            raise InvalidInputError("keys must be 1-D")
        weight = _nonneg_counts(self.weight, "weight", m)
        arrays = []
        for name in ("wsum", "vmin", "vmax"):
            arr = np.array(getattr(self, name), dtype=np.float64)
            if arr.shape != m or not np.isfinite(arr).all():
                raise InvalidInputError(f"{name} must be finite with shape {m}")
            arrays.append(_readonly(arr))
        if not np.isfinite(keys).all() or (np.diff(keys) <= 0).any():
            raise InvalidInputError("keys must be finite and strictly increasing")
        object.__setattr__(self, "keys", _readonly(keys))
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "wsum", arrays[0])
        object.__setattr__(self, "vmin", arrays[1])
        object.__setattr__(self, "vmax", arrays[2])
        object.__setattr__(self, "bin_width", _check_bin_width(self.bin_width))

    @classmethod
    def from_values(cls, y: Any, *, sample_weight: Any = None, bin_width: Any = None) -> "ValueHistogram":
        """Group the values (or their bins) in one sort."""
        arr = as_float_1d(y, "y_true")
        return cls.of_checked(arr, check_sample_weight(sample_weight, arr.shape[0]), _check_bin_width(bin_width))

    @classmethod
    def of_checked(cls, arr: np.ndarray, w: np.ndarray | None, h: float | None = None) -> "ValueHistogram":
        """:meth:`from_values` of an already checked finite float64 array, weights and bin width."""
        ww = np.ones_like(arr) if w is None else w
        arr = arr + 0.0  # -0.0 -> 0.0, as the SQL engines group
        key = arr if h is None else np.floor(arr / h)
        order = np.argsort(key, kind="stable")
        ks, ys, ws = key[order], arr[order], ww[order]
        starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        return cls(
            ks[starts],
            np.add.reduceat(ws, starts),
            np.add.reduceat(ws * ys, starts),
            np.minimum.reduceat(ys, starts),
            np.maximum.reduceat(ys, starts),
            h,
        )

    @classmethod
    def from_groups(
        cls, keys: Any, weight: Any, wsum: Any, vmin: Any, vmax: Any, *, bin_width: Any = None
    ) -> "ValueHistogram":
        """From per-group sums in any order, with repeated keys (e.g. an engine's output)."""
        k = np.asarray(keys, dtype=np.float64) + 0.0
        uniq, inv = np.unique(k, return_inverse=True)
        m = uniq.shape[0]
        vmin_out = np.full(m, np.inf)
        vmax_out = np.full(m, -np.inf)
        np.minimum.at(vmin_out, inv, np.asarray(vmin, dtype=np.float64))
        np.maximum.at(vmax_out, inv, np.asarray(vmax, dtype=np.float64))
        return cls(
            uniq,
            np.bincount(inv, weights=np.asarray(weight, dtype=np.float64), minlength=m),
            np.bincount(inv, weights=np.asarray(wsum, dtype=np.float64), minlength=m),
            vmin_out,
            vmax_out,
            bin_width,
        )

    def merge(self, other: "ValueHistogram") -> "ValueHistogram":
        """The histogram of the concatenated data (same ``bin_width`` on both sides)."""
        if not isinstance(other, ValueHistogram):
            raise InvalidInputError(f"cannot merge ValueHistogram with {type(other).__name__}")
        if self.bin_width != other.bin_width:
            raise InvalidInputError(
                f"cannot merge histograms of different bin widths ({self.bin_width} and {other.bin_width})"
            )
        cat = lambda name: np.concatenate([getattr(self, name), getattr(other, name)])  # noqa: E731
        return ValueHistogram.from_groups(
            cat("keys"), cat("weight"), cat("wsum"), cat("vmin"), cat("vmax"), bin_width=self.bin_width
        )

    __add__ = merge

    @property
    def n(self) -> float:
        """Total weight."""
        return float(self.weight.sum())

    @property
    def is_exact(self) -> bool:
        """Every bin holds a single value (always true with ``bin_width=None``)."""
        return bool(np.all(self.vmin == self.vmax))

    def _occupied(self) -> tuple[np.ndarray, ...]:
        keep = self.weight > 0
        if not keep.any():
            raise InvalidInputError("the histogram's total weight is 0: there is nothing to evaluate")
        return self.weight[keep], self.wsum[keep], self.vmin[keep], self.vmax[keep]

    def _bounds(self, alpha: float) -> tuple[float, float, float]:
        """(achievable constant, its risk = upper bound, lower bound) of min_c R(c)."""
        w, s, lo, hi = self._occupied()
        total = float(w.sum())
        wb = np.cumsum(w) - w  # weight of the bins below
        sb = np.cumsum(s) - s
        wa = total - wb - w  # weight of the bins above
        sa = float(s.sum()) - sb - s

        def risk(c: np.ndarray, w_above: np.ndarray, s_above: np.ndarray, w_below: np.ndarray, s_below: np.ndarray):
            return (alpha * (s_above - c * w_above) + (1 - alpha) * (c * w_below - s_below)) / total

        r_lo = risk(lo, wa + w, sa + s, wb, sb)  # c = bin min: the whole bin is >= c
        r_hi = risk(hi, wa, sa, wb + w, sb + s)  # c = bin max: the whole bin is <= c
        cand = np.concatenate([lo, hi])
        rc = np.maximum(np.concatenate([r_lo, r_hi]), 0.0)
        i = int(np.argmin(rc))
        upper = float(rc[i])
        # lower bound on [lo, hi] from the supporting lines at both ends
        s_l = ((1 - alpha) * wb - alpha * (wa + w)) / total
        s_r = ((1 - alpha) * (wb + w) - alpha * wa) / total
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(s_r > s_l, (r_hi - r_lo + s_l * lo - s_r * hi) / (s_l - s_r), lo)
        c = np.clip(c, lo, hi)
        line = np.maximum(r_lo + s_l * (c - lo), r_hi + s_r * (c - hi))
        line = np.where(hi > lo, line, np.minimum(r_lo, r_hi))
        lower = float(max(min(float(line.min()), upper), 0.0))
        return float(cand[i]), upper, lower

    def baseline(self, loss: str | Loss = "absolute") -> BayesMarginalPrediction:
        """The BMP of the absolute or a pinball loss.

        Exact histograms: :func:`~beyondchance.bayes_marginal_prediction` on the values
        weighted by their weights (the same weighted quantile as for raw targets).
        Binned: the best bin edge value and its exact risk — an achievable constant
        whose risk exceeds the optimum by at most the gap of
        :meth:`baseline_risk_bounds`.
        """
        lo = _get_loss(loss)
        alpha, scale = _pinball_alpha(lo)
        if self.is_exact:
            w, _, values, _ = self._occupied()
            return bayes_marginal_prediction(values, loss=lo, sample_weight=w)
        const, upper, _ = self._bounds(alpha)
        return BayesMarginalPrediction(lo.name, const, scale * upper, None, "sample", "binned")

    def baseline_risk_bounds(self, loss: str | Loss = "absolute") -> tuple[float, float]:
        """(lower, upper) bounds of the BMP risk min_c R(c); equal when exact."""
        lo = _get_loss(loss)
        alpha, scale = _pinball_alpha(lo)
        if self.is_exact:
            r = float(self.baseline(lo).risk)
            return r, r
        _, upper, lower = self._bounds(alpha)
        return scale * lower, scale * upper

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "bin_width": self.bin_width,
            "keys": self.keys.tolist(),
            "weight": self.weight.tolist(),
            "wsum": self.wsum.tolist(),
            "vmin": self.vmin.tolist(),
            "vmax": self.vmax.tolist(),
        }

    def __repr__(self) -> str:
        return f"ValueHistogram(n_bins={self.keys.shape[0]}, n={self.n:g}, bin_width={self.bin_width})"

    def _summary_title(self) -> str:
        return "Histogram of the target" + (" (exact: one bin per distinct value)" if self.is_exact else "")

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("occupied bins", self.keys.shape[0]), ("bin width", self.bin_width or "none (exact)"),
                ("weight", self.n), ("median", self.baseline("absolute").prediction)]


# =====================================================================================
# binned score counts
# =====================================================================================


def _check_bins(bins: Any) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise InvalidInputError(f"bins must be a positive integer (bins per unit score), got {bins!r}")
    return int(bins)


def _scores_from_groups(
    scores: np.ndarray, is_pos: np.ndarray, weight: np.ndarray, pos_label: Any
) -> ThresholdCounts:
    """Exact ThresholdCounts from (score, is_positive, weight) groups in any order."""
    s = np.asarray(scores, dtype=np.float64) + 0.0
    w = np.asarray(weight, dtype=np.float64)
    pos = np.asarray(is_pos, dtype=bool)
    uniq, inv = np.unique(s, return_inverse=True)
    m = uniq.shape[0]
    p = np.bincount(inv, weights=np.where(pos, w, 0.0), minlength=m)
    n = np.bincount(inv, weights=np.where(pos, 0.0, w), minlength=m)
    return _threshold_counts_desc(uniq, p, n, pos_label)


def _threshold_counts_desc(
    thresholds_asc: np.ndarray, pos: np.ndarray, neg: np.ndarray, pos_label: Any
) -> ThresholdCounts:
    keep = (pos + neg) > 0  # zero-weight thresholds are dropped, as threshold_counts does
    if not keep.any():
        raise InvalidInputError("the scores carry no weight: there is nothing to evaluate")
    thr = thresholds_asc[keep][::-1]
    return ThresholdCounts(thr, np.cumsum(pos[keep][::-1]), np.cumsum(neg[keep][::-1]), pos_label)


@dataclass(frozen=True, eq=False)
class BinnedScoreCounts(SummaryDisplay):
    r"""Weighted positives and negatives per score bin ``floor(score · bins)``: fixed size.

    The binned variant of :class:`~beyondchance.ThresholdCounts`.  Each bin keeps its
    smallest score as its threshold, so the binned curve's points are exact points of
    the exact curve; :meth:`auc_error_bound` states how far any AUC can be from the
    exact one (module docstring).  Bins of any two chunks with the same ``bins``
    line up, so the merge is exact.

    Attributes
    ----------
    keys : (m,) integer bin keys, increasing
    smin : (m,) smallest score of each bin
    pos, neg : (m,) weight of the positives / negatives of each bin
    bins : bins per unit of score (1000: bins of width 0.001)
    pos_label : the positive label

    >>> b = BinnedScoreCounts.from_scores([0, 1, 0, 1], [0.12, 0.14, 0.5, 0.9], bins=10)
    >>> b.keys.tolist(), b.pos.tolist(), b.neg.tolist()
    ([1, 5, 9], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0])
    >>> b.auc("roc"), b.auc_error_bound("roc")
    (0.625, 0.125)
    """

    keys: np.ndarray
    smin: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    bins: int = 1000
    pos_label: Any = 1

    def __post_init__(self) -> None:
        keys = np.array(self.keys)
        if keys.ndim != 1 or keys.dtype.kind not in "iuf" or (keys.dtype.kind == "f" and not np.all(keys == np.floor(keys))):
            raise InvalidInputError("keys must be a 1-D array of integers")
        keys = keys.astype(np.int64)
        if (np.diff(keys) <= 0).any():
            raise InvalidInputError("keys must be strictly increasing")
        smin = np.array(self.smin, dtype=np.float64)
        if smin.shape != keys.shape or not np.isfinite(smin).all():
            raise InvalidInputError("smin must be finite, one per key")
        object.__setattr__(self, "keys", _readonly(keys))
        object.__setattr__(self, "smin", _readonly(smin))
        object.__setattr__(self, "pos", _nonneg_counts(self.pos, "pos", keys.shape))
        object.__setattr__(self, "neg", _nonneg_counts(self.neg, "neg", keys.shape))
        object.__setattr__(self, "bins", _check_bins(self.bins))

    @classmethod
    def from_scores(
        cls, y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, bins: int = 1000
    ) -> "BinnedScoreCounts":
        """Bin the scores (one ``floor``, one grouping pass)."""
        yb, pos_label = binary_target(y_true, pos_label=pos_label)
        s = as_float_1d(y_score, "y_score")
        n = check_consistent_length(y_true=yb, y_score=s)
        w = check_sample_weight(sample_weight, n)
        bins = _check_bins(bins)
        key = np.floor(s * bins)
        return cls.from_groups(key, s, yb, np.ones(n) if w is None else w, bins=bins, pos_label=pos_label)

    @classmethod
    def from_groups(
        cls, keys: Any, smin: Any, is_pos: Any, weight: Any, *, bins: int, pos_label: Any
    ) -> "BinnedScoreCounts":
        """From (key, min score, is positive, weight) rows in any order, keys repeated.

        Rows of zero weight are dropped (their min score is not used).
        """
        k = np.asarray(keys, dtype=np.float64)
        w = np.asarray(weight, dtype=np.float64)
        pos = np.asarray(is_pos, dtype=bool)
        smin = np.asarray(smin, dtype=np.float64)
        keep = w > 0  # zero-weight samples are dropped (as threshold_counts does)
        if not keep.all():
            k, w, pos, smin = k[keep], w[keep], pos[keep], smin[keep]
        if not np.isfinite(k).all() or np.abs(k).max(initial=0) >= 2.0**62:
            raise InvalidInputError("score bins out of range: scores * bins must stay below 2**62 in magnitude")
        k = k.astype(np.int64)
        lo, hi = (int(k.min()), int(k.max())) if k.size else (0, -1)
        if k.size and hi - lo < 4 * k.size + (1 << 16):  # dense keys: bincount, no sort
            idx = k - lo
            m = hi - lo + 1
            p = np.bincount(idx, weights=np.where(pos, w, 0.0), minlength=m)
            ng = np.bincount(idx, weights=np.where(pos, 0.0, w), minlength=m)
            sm = np.full(m, np.inf)
            np.minimum.at(sm, idx, np.asarray(smin, dtype=np.float64))
            used = np.isfinite(sm)
            return cls(np.arange(lo, hi + 1)[used], sm[used], p[used], ng[used], bins, pos_label)
        uniq, inv = np.unique(k, return_inverse=True)
        m = uniq.shape[0]
        sm = np.full(m, np.inf)
        np.minimum.at(sm, inv, np.asarray(smin, dtype=np.float64))
        return cls(
            uniq,
            sm,
            np.bincount(inv, weights=np.where(pos, w, 0.0), minlength=m),
            np.bincount(inv, weights=np.where(pos, 0.0, w), minlength=m),
            bins,
            pos_label,
        )

    def merge(self, other: "BinnedScoreCounts") -> "BinnedScoreCounts":
        """The binned counts of the concatenated data (same ``bins`` and positive label)."""
        if not isinstance(other, BinnedScoreCounts):
            raise InvalidInputError(f"cannot merge BinnedScoreCounts with {type(other).__name__}")
        if self.bins != other.bins:
            raise InvalidInputError(f"cannot merge score bins of different sizes ({self.bins} and {other.bins})")
        if self.pos_label != other.pos_label:
            raise InvalidInputError(
                f"cannot merge statistics of different positive labels ({self.pos_label!r} and {other.pos_label!r})"
            )
        k = np.concatenate([self.keys, other.keys])
        sm = np.concatenate([self.smin, other.smin])
        w = np.concatenate([self.pos, other.pos, self.neg, other.neg])
        isp = np.r_[np.ones(k.size, bool), np.zeros(k.size, bool)]
        return BinnedScoreCounts.from_groups(np.r_[k, k], np.r_[sm, sm], isp, w, bins=self.bins, pos_label=self.pos_label)

    __add__ = merge

    @property
    def n_pos(self) -> float:
        return float(self.pos.sum())

    @property
    def n_neg(self) -> float:
        return float(self.neg.sum())

    @property
    def n(self) -> float:
        return self.n_pos + self.n_neg

    @property
    def prevalence(self) -> float:
        return self.n_pos / self.n

    def threshold_counts(self) -> ThresholdCounts:
        """The curve statistic of the binned scores (one threshold per occupied bin)."""
        cached = self.__dict__.get("_tc")
        if cached is None:
            cached = _threshold_counts_desc(self.smin, self.pos, self.neg, self.pos_label)
            self.__dict__["_tc"] = cached
        return cached

    def auc_error_bound(self, kind: str = "roc") -> float:
        """Largest possible ``|AUC_binned − AUC_exact|`` for the ROC, gain or PR (average precision) AUC.

        ``kind``: ``"roc"`` (trapezoid), ``"gain"`` (trapezoid) or ``"pr"`` (average
        precision); the formulas are in the module docstring.  nan when a class is absent.
        """
        P, N = self.n_pos, self.n_neg
        if not (P > 0 and N > 0):
            return float("nan")
        if kind in ("roc", "gain"):
            roc = float(np.sum(self.pos * self.neg)) / (2.0 * P * N)
            return roc if kind == "roc" else roc * (1.0 - P / (P + N))
        if kind == "pr":
            p, ng = self.pos[::-1], self.neg[::-1]  # decreasing threshold
            tp = np.cumsum(p)
            fp = np.cumsum(ng)
            tp0 = tp - p
            fp0 = fp - ng
            with np.errstate(divide="ignore", invalid="ignore"):
                hi = np.where(tp + fp0 > 0, tp / (tp + fp0), 0.0)
                lo = np.where(tp0 + fp > 0, tp0 / (tp0 + fp), 0.0)
            return float(np.sum((p / P) * (hi - lo)))
        raise InvalidInputError(f"an AUC error bound is stated for kind 'roc', 'gain' or 'pr', not {kind!r}")

    # curve measures: those of the ThresholdCounts of the binned scores
    def curve(self, kind: str = "roc", *, strict: bool = False):
        return self.threshold_counts().curve(kind, strict=strict)  # type: ignore[arg-type]

    def auc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        return self.threshold_counts().auc(kind, method=method, strict=strict)  # type: ignore[arg-type]

    def nauc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        return self.threshold_counts().nauc(kind, method=method, strict=strict)  # type: ignore[arg-type]

    def value_at(self, kind: str, at: Any, *, strict: bool = False) -> Any:
        return self.threshold_counts().value_at(kind, at, strict=strict)  # type: ignore[arg-type]

    def recall_at_precision(self, precision: Any, *, strict: bool = False) -> Any:
        return self.threshold_counts().recall_at_precision(precision, strict=strict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "bins": self.bins,
            "keys": self.keys.tolist(),
            "smin": self.smin.tolist(),
            "pos": self.pos.tolist(),
            "neg": self.neg.tolist(),
            "pos_label": _jsonable(self.pos_label),
        }

    def __repr__(self) -> str:
        return (
            f"BinnedScoreCounts(n_bins={self.keys.shape[0]}, bins={self.bins}, n_pos={self.n_pos:g}, "
            f"n_neg={self.n_neg:g}, pos_label={self.pos_label!r})"
        )

    def _summary_title(self) -> str:
        return f"Binned score counts: floor(score * {self.bins}) (positive class {self.pos_label!r})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("occupied bins", self.keys.shape[0]), ("positives", self.n_pos),
                                       ("negatives", self.n_neg), ("prevalence", self.prevalence)]
        if self.n_pos > 0 and self.n_neg > 0:
            rows += [("ROC AUC", self.auc("roc")), ("|ROC AUC - exact| at most", self.auc_error_bound("roc"))]
        return rows


@dataclass(frozen=True, eq=False)
class ClassScoreCounts(SummaryDisplay):
    r"""One-vs-rest score counts of (n, K) class probabilities: the AUCs of every class.

    ``counts[j]`` holds the counts of column j of the probabilities with the rows of
    class j as positives (:class:`~beyondchance.ThresholdCounts`, exact, or
    :class:`BinnedScoreCounts`), so that

    .. math::

        \mathrm{AUC}_{\text{macro}} = \frac1K\sum_j \mathrm{AUC}_j,\qquad
        \mathrm{AUC}_{\text{weighted}} = \sum_j \frac{P_j}{\sum_k P_k}\,\mathrm{AUC}_j,

    P_j the weight of class j: scikit-learn's ``roc_auc_score(multi_class="ovr")`` and
    ``average_precision_score`` of the binarized labels.  Mergeable (class by class).

    >>> from beyondchance.measures.curves import threshold_counts
    >>> y, P = [0, 1, 2, 2], [[.6, .3, .1], [.2, .5, .3], [.1, .3, .6], [.3, .2, .5]]
    >>> c = ClassScoreCounts([0, 1, 2], [threshold_counts([t == j for t in y], [r[j] for r in P])
    ...                                  for j in range(3)])
    >>> c.auc("roc"), c.auc("roc", average=None).tolist()
    (1.0, [1.0, 1.0, 1.0])
    """

    classes: np.ndarray
    counts: tuple

    def __post_init__(self) -> None:
        classes = np.asarray(self.classes)
        counts = tuple(self.counts)
        if classes.ndim != 1 or classes.shape[0] != len(counts) or len(counts) < 2:
            raise InvalidInputError("ClassScoreCounts needs one score statistic per class, and two classes or more")
        kinds = {type(c) for c in counts}
        if len(kinds) != 1 or not kinds <= {ThresholdCounts, BinnedScoreCounts}:
            raise InvalidInputError("the score statistics of the classes must all be exact or all binned")
        object.__setattr__(self, "classes", _readonly(classes))
        object.__setattr__(self, "counts", counts)

    @property
    def n(self) -> float:
        return float(self.counts[0].n)

    @property
    def support(self) -> np.ndarray:
        """Weight of each class (the positives of its one-vs-rest problem)."""
        return np.array([c.n_pos for c in self.counts])

    @property
    def prevalences(self) -> np.ndarray:
        """Share of each class in the total weight."""
        return self.support / self.n

    @property
    def exact(self) -> bool:
        return isinstance(self.counts[0], ThresholdCounts)

    def merge(self, other: "ClassScoreCounts") -> "ClassScoreCounts":
        """The counts of the concatenated data (same classes, in the same order)."""
        if not isinstance(other, ClassScoreCounts):
            raise InvalidInputError(f"cannot merge ClassScoreCounts with {type(other).__name__}")
        if self.classes.shape != other.classes.shape or not np.array_equal(self.classes, other.classes):
            raise InvalidInputError("cannot merge class score counts of different classes")
        return ClassScoreCounts(self.classes, [a.merge(b) for a, b in zip(self.counts, other.counts)])

    __add__ = merge

    def auc(self, kind: str = "roc", *, average: Any = "macro", method: str = "default") -> Any:
        """The one-vs-rest AUC of ``kind`` per class (``average=None``), its mean
        (``"macro"``) or its support-weighted mean (``"weighted"``); ``kind="pr"`` with
        ``method="default"`` is the average precision.  Every class must occur, and not alone."""
        if average not in ("macro", "weighted", None):
            raise InvalidInputError(f"average must be 'macro', 'weighted' or None, got {average!r}")
        support = self.support
        if (support <= 0).any() or (support >= self.n).any():
            raise InvalidInputError("the one-vs-rest AUCs need every class among the rows, and more than one class")
        if kind == "pr" and method == "default":
            method = "ap"
        values = np.array([c.auc(kind, method=method) for c in self.counts])
        if average is None:
            return values
        return float(np.mean(values) if average == "macro" else np.average(values, weights=support))

    def auc_error_bound(self, kind: str = "roc", *, average: Any = "macro") -> float:
        """0 for exact counts; for binned ones the (average of the) classes' bounds."""
        if self.exact:
            return 0.0
        bounds = np.array([c.auc_error_bound(kind) for c in self.counts])
        return float(np.mean(bounds) if average == "macro" else np.average(bounds, weights=self.support))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {"classes": [_jsonable(c) for c in self.classes.tolist()],
                "counts": [c.to_dict() for c in self.counts]}

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "binned"
        return f"ClassScoreCounts(n_classes={self.classes.shape[0]}, {kind}, n={self.n:g})"

    def _summary_title(self) -> str:
        return (f"One-vs-rest score counts of {self.classes.shape[0]} classes "
                f"({'exact' if self.exact else 'binned'}; total weight {self.n:,.6g})")

    def _summary_rows(self) -> list[tuple[str, Any]]:
        prev = self.prevalences
        defined = bool(((prev > 0) & (prev < 1)).all())
        roc = self.auc("roc", average=None) if defined else np.full(prev.shape, np.nan)
        return [(f"class {str(_jsonable(c))[:40]}", f"prevalence {p:.4g}, ROC AUC {a:.4g}")
                for c, p, a in zip(self.classes.tolist(), prev, roc)]


# =====================================================================================
# the bundle
# =====================================================================================

_FIELDS = ("confusion", "label_counts", "loss_sums", "scores", "class_scores", "moments", "targets",
           "prediction_moments", "permutation_cells", "squared_error_sums", "permutation_loss_sums")


def _merge_optional(a: Any, b: Any, name: str) -> Any:
    if a is None and b is None:
        return None
    if a is None or b is None:
        raise InvalidInputError(f"cannot merge statistics: {name!r} is present on one side only")
    if type(a) is not type(b):
        raise InvalidInputError(f"cannot merge {type(a).__name__} with {type(b).__name__} ({name!r})")
    return a.merge(b)


def _binary_confusion(is_pos_true: np.ndarray, is_pos_pred: np.ndarray, weight: np.ndarray | None) -> ConfusionMatrix:
    """The 2 x 2 matrix with labels (False, True) = (negative, positive)."""
    t = is_pos_true.astype(np.intp)
    p = is_pos_pred.astype(np.intp)
    m = np.bincount(2 * t + p, weights=weight, minlength=4).astype(np.float64).reshape(2, 2)
    return ConfusionMatrix(m, np.array([False, True]), pos_label=True)


@dataclass(frozen=True, eq=False)
class SufficientStatistics(SummaryDisplay):
    r"""The statistics of one evaluation task, mergeable, with every measure as a method.

    Built by :func:`beyondchance.compute_statistics` (any engine), by
    ``beyondchance.engines.memory.statistics_from_arrays`` (in memory) or by a
    :class:`~beyondchance.engines.accumulator.StatisticsAccumulator`.

    Attributes
    ----------
    task : ``"binary"`` (labels and scores of the positive class), ``"labels"``
        (predicted labels), ``"probabilities"`` (a probability per class) or
        ``"regression"`` (real predictions)
    confusion : :class:`ConfusionMatrix` — predicted labels; for ``"binary"`` the
        scores ≥ ``threshold``, labels (False, True) = (negative, positive); for
        ``"probabilities"`` the arg-max class
    label_counts : :class:`LabelCounts` of the true labels
    loss_sums : :class:`LossSums` — ``"cross_entropy"`` and ``"brier"`` for
        probabilities (binary scores: only when every score lies in [0, 1]);
        ``"squared"``, ``"absolute"`` and pinball losses for regression
    scores : :class:`ThresholdCounts` (exact) or :class:`BinnedScoreCounts`
    class_scores : ``ClassScoreCounts`` — the one-vs-rest score counts of each
        class's probability (``"probabilities"``), for the AUCs
    moments : :class:`Moments` of the target (regression)
    targets : :class:`ValueHistogram` of the target (regression)
    prediction_moments : :class:`Moments` of the predictions (regression; with the
        target's and the squared-error sum, the permutation test of the squared error)
    permutation_cells : ``beyondchance.inference.permutation.clt.PermutationCells`` of weighted
        data (None when unweighted: the exact tests need no more): rows, Σw per (distinct
        score, class) (``"binary"``, exact scores only) or per (predicted class, class)
        (``"labels"``; ``"probabilities"``: the arg-max class) and Σw² per class — the
        permutation CLT test of the weighted rows
    squared_error_sums : ``beyondchance.inference.permutation.rows.SquaredErrorSums`` of weighted
        regression data (None when unweighted: the moments give the test) — the permutation
        CLT test of the weighted squared error
    permutation_loss_sums : ``beyondchance.inference.permutation.loss.PermutationLossSums`` — rows,
        Σw and Σw² per class, and over the rows the sums and K × K cross moments of the
        per-class log and Brier losses (``"probabilities"`` up to
        ``MAX_LOSS_CLASSES`` classes; ``"binary"``: scores in [0, 1]) — the permutation CLT
        test of the log loss and Brier score, weighted or not
    threshold : the decision threshold of a binary task's confusion matrix
    pos_label : the positive label of a binary task
    """

    task: str
    confusion: ConfusionMatrix | None = None
    label_counts: LabelCounts | None = None
    loss_sums: LossSums | None = None
    scores: ThresholdCounts | BinnedScoreCounts | None = None
    class_scores: ClassScoreCounts | None = None
    moments: Moments | None = None
    targets: ValueHistogram | None = None
    threshold: float | None = None
    pos_label: Any = None
    prediction_moments: Moments | None = None
    permutation_cells: Any = None
    squared_error_sums: Any = None
    permutation_loss_sums: Any = None

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise InvalidInputError(f"task must be one of {', '.join(TASKS)}, got {self.task!r}")

    def merge(self, other: "SufficientStatistics") -> "SufficientStatistics":
        """The statistics of the concatenated data."""
        if not isinstance(other, SufficientStatistics):
            raise InvalidInputError(f"cannot merge SufficientStatistics with {type(other).__name__}")
        if self.task != other.task:
            raise InvalidInputError(f"cannot merge statistics of tasks {self.task!r} and {other.task!r}")
        if self.threshold != other.threshold:
            raise InvalidInputError(
                f"cannot merge statistics of different thresholds ({self.threshold} and {other.threshold})"
            )
        if self.pos_label != other.pos_label:
            raise InvalidInputError(
                f"cannot merge statistics of different positive labels ({self.pos_label!r} and {other.pos_label!r})"
            )
        parts = {name: _merge_optional(getattr(self, name), getattr(other, name), name) for name in _FIELDS}
        return SufficientStatistics(self.task, threshold=self.threshold, pos_label=self.pos_label, **parts)

    __add__ = merge

    def _need(self, name: str, what: str) -> Any:
        value = getattr(self, name)
        if value is None:
            raise InvalidInputError(
                f"{what} needs the {name!r} statistic, which was not computed for this "
                f"{self.task!r} task (statistics= ... or another kind of prediction)"
            )
        return value

    # --- totals ------------------------------------------------------------------

    @property
    def n(self) -> float:
        """Total weight."""
        for name in ("label_counts", "moments", "loss_sums", "confusion", "scores"):
            value = getattr(self, name)
            if value is not None:
                return float(value.n if hasattr(value, "n") else value.weight)
        return float("nan")

    @property
    def prevalence(self) -> float:
        """π of a binary task (weight of the positives / total weight)."""
        if self.scores is not None:
            return float(self.scores.prevalence)
        return float(self._need("confusion", "the prevalence").prevalence)

    # --- labeling measures ---------------------------------------------------------

    def metric(self, name: Any, **kwargs: Any) -> Any:
        """A labeling metric of the confusion matrix (:meth:`ConfusionMatrix.metric`)."""
        return self._need("confusion", f"metric {name!r}").metric(name, **kwargs)

    # --- prediction advantage ------------------------------------------------------

    def default_loss(self) -> str:
        """zero_one for classification, squared for regression."""
        return "squared" if self.task == "regression" else "zero_one"

    def prediction_advantage(self, loss: str | Loss | None = None, *, strict: bool = False) -> PredictionAdvantageResult:
        r"""PA = 1 − R(f)/R(f₀) from the statistics (baseline: this sample's label distribution).

        * label losses (0/1, cost matrices, label callables): the confusion matrix's
          cells as weighted rows through :meth:`PredictionAdvantageResult.from_predictions <beyondchance.PredictionAdvantageResult.from_predictions>`;
        * probability losses (cross-entropy, Brier): R(f) from :class:`LossSums`,
          R(f₀) from :meth:`LabelCounts.baseline`;
        * squared: R(f) from :class:`LossSums`, R(f₀) = Var(Y) from :class:`Moments` (R²);
        * absolute / pinball: R(f₀) from :class:`ValueHistogram` (binned: the
          achievable upper bound; see :meth:`prediction_advantage_bounds`).
        """
        lo = _get_loss(self.default_loss() if loss is None else loss)
        if lo.prediction == "label":
            cm = self._need("confusion", f"the {lo.name} prediction advantage")
            extra = lo.extra_labels()
            if self.task == "binary" and extra is not None and extra.dtype.kind != "b":
                raise InvalidInputError(
                    "the binary confusion matrix has labels (False, True) = (negative, positive); "
                    "give the cost matrix labels=[False, True]"
                )
            k = cm.n_classes
            t = np.repeat(cm.labels, k)
            p = np.tile(cm.labels, k)
            return PredictionAdvantageResult.from_predictions(t, p, loss=lo, sample_weight=cm.matrix.ravel(), strict=strict)
        risk = self._need("loss_sums", f"the {lo.name} prediction advantage").risk(lo)
        if lo.prediction == "probability":
            bmp = self._need("label_counts", f"the {lo.name} prediction advantage").baseline(lo)
        elif isinstance(lo, SquaredLoss):
            bmp = self._need("moments", "the squared-loss prediction advantage").baseline()
        else:
            bmp = self._need("targets", f"the {lo.name} prediction advantage").baseline(lo)
        r0 = float(bmp.risk)
        what = "the evaluated labels have a single class / value"
        value = float(_advantage(np.array([risk]), np.array([r0]), strict=strict, what=what)[0])
        return PredictionAdvantageResult(value, risk, r0, bmp, lo.name)

    def prediction_advantage_bounds(self, loss: str | Loss = "absolute") -> tuple[float, float]:
        """(lower, upper) PA of the absolute / pinball loss from a binned target histogram."""
        lo = _get_loss(loss)
        risk = self._need("loss_sums", f"the {lo.name} prediction advantage").risk(lo)
        r_low, r_high = self._need("targets", f"the {lo.name} prediction advantage").baseline_risk_bounds(lo)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (float(1 - risk / r_low) if r_low > 0 else float("nan"),
                    float(1 - risk / r_high) if r_high > 0 else float("nan"))

    # --- curves ----------------------------------------------------------------------

    def _scores(self, what: str) -> Any:
        return self._need("scores", what)

    def curve(self, kind: str = "roc", *, strict: bool = False):
        """The ROC / PR / lift / gain :class:`~beyondchance.Curve`."""
        return self._scores(f"the {kind} curve").curve(kind, strict=strict)

    def auc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        """Area under a curve (:meth:`ThresholdCounts.auc`)."""
        return self._scores(f"the {kind} AUC").auc(kind, method=method, strict=strict)

    def nauc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        """AUC / ideal AUC."""
        return self._scores(f"the {kind} NAUC").nauc(kind, method=method, strict=strict)

    def value_at(self, kind: str, at: Any, *, strict: bool = False) -> Any:
        """A curve's y at x = ``at`` (OPS paper eq. 9)."""
        return self._scores(f"the {kind} curve").value_at(kind, at, strict=strict)

    def auc_error_bound(self, kind: str = "roc") -> float:
        """0 for exact score counts; the stated bound for binned ones."""
        sc = self._scores(f"the {kind} AUC")
        return 0.0 if isinstance(sc, ThresholdCounts) else sc.auc_error_bound(kind)

    # --- outperformance score ----------------------------------------------------------

    def outperformance_score(self, metric: str, *, value: Any = None, **options: Any):
        """OPS of a labeling metric of the confusion matrix, or of a scoring metric
        (``"roc_auc"``, ``"pr_auc"``, …) of the scores, at this sample's prevalence."""
        from ..measures.registry import ALIASES, METRICS
        from ..outperformance import outperformance_score

        key = str(metric).strip().lower().replace("-", "_").replace(" ", "_")
        if key in METRICS or key in ALIASES:
            cm = self._need("confusion", f"the OPS of {metric!r}")
            if value is None:
                value = cm.metric(metric, **{k: v for k, v in options.items() if k == "beta"})
            return outperformance_score(metric, value, cm.prevalence, **options)
        if value is None:
            curve_of = {"roc_auc": ("roc", "default"), "pr_auc": ("pr", "default"),
                        "lift_auc": ("lift", "default"), "gain_auc": ("gain", "default")}
            if key not in curve_of:
                raise InvalidInputError(f"give value= for the scoring metric {metric!r}")
            value = self.auc(curve_of[key][0])
        return outperformance_score(metric, value, self.prevalence, **options)

    # --- output ----------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Headline measures of the task as a dict (nan where undefined, silently)."""
        import warnings

        out: dict[str, Any] = {"task": self.task, "n": self.n}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.confusion is not None:
                for name in ("accuracy", "balanced_accuracy", "kappa", "mcc"):
                    out[name] = float(self.metric(name, zero_division="nan"))
                if self.task == "binary" or self.confusion.n_classes == 2:
                    try:
                        out["f1"] = float(self.metric("f1", zero_division="nan"))
                    except InvalidInputError:
                        pass
                out["prediction_advantage"] = self.prediction_advantage("zero_one").value
            if self.loss_sums is not None:
                for key in self.loss_sums.sums:
                    out[f"{key}_risk"] = self.loss_sums.risk(key)
                    try:
                        out[f"prediction_advantage_{key}"] = self.prediction_advantage(key).value
                    except InvalidInputError:
                        pass
            if self.scores is not None:
                out["prevalence"] = self.prevalence
                for kind in ("roc", "pr", "lift", "gain"):
                    out[f"{kind}_auc"] = self.auc(kind)
                if isinstance(self.scores, BinnedScoreCounts):
                    out["roc_auc_error_bound"] = self.auc_error_bound("roc")
                    out["pr_auc_error_bound"] = self.auc_error_bound("pr")
            if self.class_scores is not None:
                for kind in ("roc", "pr"):
                    try:
                        out[f"{kind}_auc_ovr_macro"] = self.class_scores.auc(kind)
                    except InvalidInputError:
                        out[f"{kind}_auc_ovr_macro"] = float("nan")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation of every statistic."""
        out: dict[str, Any] = {"task": self.task, "threshold": self.threshold, "pos_label": _jsonable(self.pos_label)}
        for name in _FIELDS:
            value = getattr(self, name)
            out[name] = None if value is None else value.to_dict()
        if isinstance(self.scores, ThresholdCounts):
            out["scores"]["kind"] = "exact"
        elif self.scores is not None:
            out["scores"]["kind"] = "binned"
        return out

    def __repr__(self) -> str:
        parts = [f"{name}={getattr(self, name)!r}" for name in _FIELDS if getattr(self, name) is not None]
        return f"SufficientStatistics(task={self.task!r}, " + ", ".join(parts) + ")"

    def _summary_title(self) -> str:
        return f"Sufficient statistics of a {self.task} task"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("n (weight)", self.n)]
        for name in _FIELDS:
            value = getattr(self, name)
            if isinstance(value, ConfusionMatrix):
                k = value.n_classes
                rows.append((name, f"{k} x {k} matrix of the labels {', '.join(map(str, value.labels.tolist()[:6]))}"))
            elif value is not None:
                rows += [(f"{name}: {key}", v) for key, v in value._summary_rows()]
        return rows


__all__ += ["PROBABILITY_LOSSES"]
