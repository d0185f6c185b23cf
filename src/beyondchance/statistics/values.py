r"""Statistics of real values: the predictor's loss sums (:class:`LossSums`), the target's
moments (:class:`Moments`, the BMP of the squared loss) and its histogram of values or bins
(:class:`ValueHistogram`, the BMP of the absolute and pinball losses, exact or bounded).

Binned targets (absolute / pinball BMP): the risk R(c) = Σ w ℓ_α(c, y)/W is convex
and piecewise linear; it is known exactly at every bin's min and max (all other
values of the bin lie on one side), and between them its slope lies in
[(1−α)W_{<b} − αW_{≥b}, (1−α)W_{≤b} − αW_{>b}]/W.  The smallest exact value is an
achievable baseline risk (upper bound of R(f₀)); the supporting lines give a lower
bound; the gap is at most w_b·h_b/(4W), w_b the weight and h_b the value range of
the bin holding the α-quantile.  With ``bin_width=None`` every distinct value is its
own bin and the BMP is exact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import as_float_1d, check_sample_weight, merge_from_zero
from .._warnings import InvalidInputError
from ..measures.losses import (
    AbsoluteLoss,
    BayesMarginalPrediction,
    Loss,
    PinballLoss,
    baseline_risk_is_zero,
    bayes_marginal_prediction,
    get_loss,
)
from .._summary_display import SummaryDisplay
from ._checks import _get_loss, _nonneg_counts, _readonly

__all__ = ["LossSums", "Moments", "ValueHistogram"]


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
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

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
    def from_values(cls, y_true: Any, *, sample_weight: Any = None) -> "Moments":
        """Two passes over y_true: the weighted mean, then Σ w (y − ȳ)²."""
        arr = as_float_1d(y_true, "y_true")
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
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

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
    def from_values(cls, y_true: Any, *, sample_weight: Any = None, bin_width: Any = None) -> "ValueHistogram":
        """Group the values (or their bins) in one sort."""
        arr = as_float_1d(y_true, "y_true")
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
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

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
