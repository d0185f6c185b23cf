r"""Curves in rate space: the :class:`Curve` type, and the areas and values of batches of
(alpha, beta) curves (OPS paper, Table 3 and eq. 9), vectorised over the batch.

The conventions (point order, AUC methods, the end point) are those of
:mod:`beyondchance.measures.curves`; the Monte Carlo reference distribution of curves
(the Directed Binary Tree) and a classifier's own curve share these functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._validation import (
    check_prevalence,
    check_rate_curves,
    check_unit_interval,
)
from .._warnings import InvalidInputError
from .._summary_display import SummaryDisplay, format_number
from .._json import jsonable as _jsonable

CurveKind = Literal["roc", "pr", "lift", "gain"]
AucMethod = Literal["default", "ap", "step", "trapezoid", "interpolated"]

#: The four curves, with their axes (OPS paper, Table 3).
CURVES: dict[str, dict[str, str]] = {
    "roc": {"x": "false positive rate (alpha)", "y": "recall (1 - beta)", "ideal_auc": "1"},
    "pr": {"x": "recall (1 - beta)", "y": "precision", "ideal_auc": "1"},
    "lift": {"x": "predicted-positive rate q", "y": "lift = recall / q", "ideal_auc": "1 - ln(prevalence)"},
    "gain": {"x": "predicted-positive rate q", "y": "recall (1 - beta)", "ideal_auc": "1 - prevalence/2"},
}

_DEFAULT_METHOD = {"roc": "trapezoid", "pr": "ap", "lift": "interpolated", "gain": "trapezoid"}

#: Tolerance on precision in :func:`recall_at_precision_from_rates`.
_PRECISION_TOL = 1e-12


# =====================================================================================
# rate space
# =====================================================================================


def _check_curve(curve: Any) -> CurveKind:
    if curve not in CURVES:
        raise InvalidInputError(f"curve must be one of {sorted(CURVES)}, got {curve!r}")
    return curve


def _resolve_method(curve: str, method: Any) -> AucMethod:
    if method == "default":
        return _resolve_method(curve, _DEFAULT_METHOD[curve])
    if method not in ("ap", "step", "trapezoid", "interpolated"):
        raise InvalidInputError(
            "method must be one of 'default', 'ap', 'step', 'trapezoid', 'interpolated', "
            f"got {method!r}"
        )
    if method == "ap":
        if curve != "pr":
            raise InvalidInputError(
                f"method='ap' (average precision) applies to curve='pr' only, not {curve!r}; "
                "use method='step' for the step-wise sum on other curves"
            )
        return "step"
    return method


def _prepare_rates(
    alpha: Any, beta: Any, prevalence: Any, validate: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated (alpha, beta) of shape (..., m) and π of shape (..., 1), broadcast."""
    if validate:
        a, b = check_rate_curves(alpha, beta)
        pi = check_prevalence(prevalence)
    else:
        a, b = np.broadcast_arrays(np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64))
        pi = np.asarray(prevalence, dtype=np.float64)
    batch = a.shape[:-1]
    try:
        out_batch = np.broadcast_shapes(batch, pi.shape)
    except ValueError as exc:
        raise InvalidInputError(
            f"prevalence of shape {pi.shape} does not broadcast to the batch shape {batch}"
        ) from exc
    if out_batch != batch:
        a = np.broadcast_to(a, out_batch + a.shape[-1:])
        b = np.broadcast_to(b, out_batch + b.shape[-1:])
    return a, b, pi[..., None]


def _pred_rate(alpha: np.ndarray, tpr: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """q = π(1−β) + (1−π)α, written α + π(tpr − α) so that q = 0 at (0, 1) and 1 at (1, 0)."""
    q = np.subtract(tpr, alpha)
    if q.shape != np.broadcast_shapes(q.shape, pi.shape):
        q = q * pi
    else:
        q *= pi
    q += alpha
    return q


def _leading_origin_points(alpha: np.ndarray, tpr: np.ndarray) -> int:
    """Number of leading points at the end point (α, tpr) = (0, 0), where q = 0 (1-D curves)."""
    return int(min(np.searchsorted(alpha, 0.0, side="right"), np.searchsorted(tpr, 0.0, side="right")))


def _tpr_over_q(alpha: np.ndarray, tpr: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """tpr / q in one new array; at the end point(s) q = 0 it takes the value at the first q > 0.

    q = 0 only at the leading copies of (α, tpr) = (0, 0), where tpr / q is 0/0; the
    ratio is constant on the segment leaving that point (eq. 9), hence the limit.
    """
    y = _pred_rate(alpha, tpr, pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(tpr, y, out=y)
    if y.ndim == 1:
        k = _leading_origin_points(alpha, tpr)
        if 0 < k < y.shape[0]:
            y[:k] = y[k]
        return y
    undefined = np.isnan(y)
    first = np.argmax(~undefined, axis=-1)[..., None]
    return np.where(undefined, np.take_along_axis(y, first, axis=-1), y)


def _xy(alpha: np.ndarray, tpr: np.ndarray, pi: np.ndarray, curve: str) -> tuple[np.ndarray, np.ndarray]:
    """The curve's coordinates at points (α, 1 − β) (OPS paper, Table 3).

    At most two new arrays (the ROC curve is (alpha, tpr) itself); callers that hold a
    curve of millions of points therefore keep few full-length temporaries.
    """
    if curve == "roc":
        return alpha, tpr
    if curve == "gain":
        return _pred_rate(alpha, tpr, pi), tpr
    ratio = _tpr_over_q(alpha, tpr, pi)
    if curve == "pr":
        ratio *= pi  # precision = π tpr / q (ratio already has π's broadcast shape)
        return tpr, ratio
    return _pred_rate(alpha, tpr, pi), ratio  # lift


def _lift_segment_areas(r: np.ndarray, q: np.ndarray) -> np.ndarray:
    r"""∫ r/q dq on each segment, with r linear in q (eq. 9 interpolation).

    With x = Δq/q_l and L = log1p(x): r_l L + Δr (x − L)/x; Δr on a segment that starts
    at q = 0 (where r = 0 and the lift is constant); 0 on a segment with Δq = 0.
    """
    dq = np.diff(q, axis=-1)
    dr = np.diff(r, axis=-1)
    ql = q[..., :-1]
    rl = r[..., :-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        x = dq / ql
        L = np.log1p(x)
        area = rl * L + dr * ((x - L) / x)
    area = np.where(ql > 0, area, dr)
    return np.where(dq > 0, area, 0.0)


#: Points per block when a single long curve is summed (see :func:`_sum_by_blocks`).
_BLOCK = 1 << 15


def _sum_by_blocks(segment_sum: Any, arrays: tuple[np.ndarray, ...], start: int = 0) -> Any:
    """Σ ``segment_sum(*blocks)`` over blocks of 1-D point arrays that overlap by one point.

    An area is a sum over the segments between consecutive points, so a curve of
    millions of points can be summed in cache-sized blocks: the kernels' temporaries
    then never span the whole curve (no fresh full-length arrays to page in, which is
    most of the cost beyond the sort on 10^7 scores).  Batched (2-D) curves and short
    curves are summed in one call.  Segments before ``start`` are skipped.
    """
    m = arrays[0].shape[0]
    if arrays[0].ndim != 1 or m - start <= 2 * _BLOCK:
        return segment_sum(*(arr[..., start:] for arr in arrays))
    parts = [
        float(segment_sum(*(arr[i : i + _BLOCK + 1] for arr in arrays)))
        for i in range(start, m - 1, _BLOCK)
    ]
    return np.float64(math.fsum(parts))


def _auc_rates_dense(a: np.ndarray, tpr: np.ndarray, pi: np.ndarray, curve: str, method: str) -> np.ndarray:
    if method == "interpolated" and curve in ("lift", "pr"):
        q = _pred_rate(a, tpr, pi)
        seg = _lift_segment_areas(tpr, q)
        if curve == "lift":
            return np.sum(seg, axis=-1)
        # ∫ precision d(recall) = π (Δr/Δq) ∫ r/q dq on each segment
        dq = np.diff(q, axis=-1)
        dr = np.diff(tpr, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(dq > 0, dr / dq, 0.0)
        return np.sum(pi * slope * seg, axis=-1)
    x, y = _xy(a, tpr, pi, curve)
    return _auc_xy(x, y, method)


def _auc_rates(a: np.ndarray, tpr: np.ndarray, pi: np.ndarray, curve: str, method: str) -> np.ndarray:
    """Area under curves given by (α, tpr) points: the one estimator of every AUC here.

    A single long curve is summed by blocks; the segments between leading copies of
    the end point (0, 0), where q = 0, have zero width on every axis and are skipped.
    """
    if a.ndim == 2 and a.size > 2 * _BLOCK:  # a stack of curves: by cache-sized groups of rows
        rows = max(1, _BLOCK // a.shape[1])
        p = np.broadcast_to(pi, a.shape[:1] + pi.shape[1:]) if pi.ndim == 2 else pi
        return np.concatenate([
            _auc_rates_dense(a[i : i + rows], tpr[i : i + rows], p[i : i + rows] if p.ndim == 2 else p, curve, method)
            for i in range(0, a.shape[0], rows)
        ])
    start = 0
    if a.ndim == 1 and a.shape[0] > 2 * _BLOCK:
        start = max(_leading_origin_points(a, tpr) - 1, 0)
    return _sum_by_blocks(lambda aa, tt: _auc_rates_dense(aa, tt, pi, curve, method), (a, tpr), start)


def auc_from_rates(
    alpha: Any,
    beta: Any,
    prevalence: Any,
    *,
    curve: CurveKind = "roc",
    method: AucMethod = "default",
    validate: bool = True,
) -> Any:
    r"""Area under a batch of curves given by their (α, β) points.

    **Contract** (shared with the Directed Binary Tree reference distribution, which
    must use the same estimator as the classifier's curve):

    * ``alpha``, ``beta``: arrays broadcastable to a common shape ``(..., m)``,
      ``m >= 2``; each row is one curve, its points ordered by **decreasing
      threshold** (α non-decreasing, β non-increasing) and **including the end
      points** (α, β) = (0, 1) first and (1, 0) last.  Values in [0, 1].
    * ``prevalence``: π in (0, 1), a scalar or an array that broadcasts against the
      batch shape ``(...)`` (e.g. shape ``(k, 1)`` against ``(G, m)`` curves gives a
      ``(k, G)`` result: the same curves at k prevalences).
    * Returns an array of the broadcast batch shape (a float for one curve).
    * The score-space functions (:func:`roc_auc`, :func:`average_precision`,
      :func:`pr_auc`, :func:`lift_auc`, :func:`gain_auc`) call this function on the
      classifier's (α, β) points, so both sides share one estimator.

    Parameters
    ----------
    alpha, beta : array-like, shape (..., m)
        Type-I and Type-II error rates of the curve's points.
    prevalence : float or array-like
        π, the share of positives.
    curve : {"roc", "pr", "lift", "gain"}
        Axes as in the OPS paper's Table 3 (see the module docstring).
    method : {"default", "ap", "step", "trapezoid", "interpolated"}
        ``"trapezoid"``: Σ Δx (y_l + y_r)/2 over the points (x, y).
        ``"step"``: Σ Δx · y_r (y at the lower-threshold end of each step).
        ``"ap"`` (pr only): ``"step"`` on the PR curve, Σ Δrecall · precision_r,
        scikit-learn's average precision.
        ``"interpolated"``: exact area under eq. 9's interpolation (linear in α, β):
        per segment ∫ r/q dq = r_l ln(q_r/q_l) + Δr (1 − q_l ln(q_r/q_l)/Δq) for the
        lift, times π Δr/Δq for the precision; equals ``"trapezoid"`` for roc, gain.
        ``"default"``: roc, gain → trapezoid; pr → ap; lift → interpolated.
    validate : bool
        Check shapes, ranges, order and end points (set False in hot loops over
        curves known to be valid).

    Returns
    -------
    auc : float or ndarray of shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([0.0, 0.0, 1.0]); b = np.array([1.0, 0.0, 0.0])  # a perfect ranking
    >>> float(auc_from_rates(a, b, 0.2, curve="roc"))
    1.0
    >>> float(auc_from_rates(a, b, 0.2, curve="pr"))
    1.0
    >>> bool(np.isclose(auc_from_rates(a, b, 0.2, curve="lift"), 1 - np.log(0.2)))
    True
    >>> float(auc_from_rates(a, b, 0.2, curve="gain"))  # 1 - π/2
    0.9
    """
    curve = _check_curve(curve)
    method = _resolve_method(curve, method)
    a, b, pi = _prepare_rates(alpha, beta, prevalence, validate)
    out = _auc_rates(a, 1.0 - b, pi, curve, method)
    return out[()] if np.ndim(out) == 0 else out


def ideal_auc(prevalence: Any, *, curve: CurveKind = "roc") -> Any:
    r"""AUC of the ideal classifier (OPS paper, Table 3, last column).

    ROC and PR: 1; lift: 1 − ln π (= π·(1/π) + ∫_π^1 dq/q); gain: 1 − π/2.

    >>> round(float(ideal_auc(0.091, curve="lift")), 3)
    3.397
    >>> float(ideal_auc(0.3, curve="gain"))
    0.85
    """
    curve = _check_curve(curve)
    pi = check_prevalence(prevalence)
    if curve in ("roc", "pr"):
        out = np.ones_like(pi)
    elif curve == "lift":
        out = 1.0 - np.log(pi)
    else:
        out = 1.0 - pi / 2.0
    return out[()] if out.ndim == 0 else out


def _value_at_rates(a: np.ndarray, tpr: np.ndarray, pi: np.ndarray, curve: str, u: np.ndarray) -> np.ndarray:
    """Eq. 9 at x = u for valid (α, tpr) points; u broadcastable to the batch shape (or any shape if 1-D)."""
    x, y = _xy(a, tpr, pi, curve)
    if x.ndim == 1:
        # one curve, any number of x values: binary search
        left = np.searchsorted(x, u, side="left")
        right = np.searchsorted(x, u, side="right")
        take = lambda arr, idx: arr[idx]  # noqa: E731
        pi_pt = pi[0]
    else:
        uu = u[..., None]
        left = np.sum(x < uu, axis=-1)
        right = np.sum(x <= uu, axis=-1)
        shape = np.broadcast_shapes(left.shape, x.shape[:-1])
        x = np.broadcast_to(x, shape + x.shape[-1:])
        y = np.broadcast_to(y, shape + y.shape[-1:])
        a = np.broadcast_to(a, shape + a.shape[-1:])
        tpr = np.broadcast_to(tpr, shape + tpr.shape[-1:])
        left = np.broadcast_to(left, shape)
        right = np.broadcast_to(right, shape)
        take = lambda arr, idx: np.take_along_axis(arr, idx[..., None], axis=-1)[..., 0]  # noqa: E731
        pi_pt = np.broadcast_to(pi[..., 0], shape)
    m = x.shape[-1]
    tie = right > left
    # ties: the best point among those with x == u (y is monotone along such a run)
    tie_idx = np.clip(right - 1 if curve == "roc" else left, 0, m - 1)
    y_tie = take(y, tie_idx)
    # interpolation between l = left - 1 and r = left (0 < u < 1 here, so 1 <= left <= m - 1)
    r = np.clip(left, 1, m - 1)
    lo = r - 1
    xl, xr = take(x, lo), take(x, r)
    al, ar, tl, tr = take(a, lo), take(a, r), take(tpr, lo), take(tpr, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(xr > xl, (u - xl) / (xr - xl), 0.0)
    ah = al + t * (ar - al)
    th = tl + t * (tr - tl)
    _, yh = _xy(np.asarray(ah)[..., None], np.asarray(th)[..., None], np.asarray(pi_pt)[..., None], curve)
    yh = yh[..., 0]
    if curve in ("pr", "lift"):
        # on a segment leaving the end point (0, 1) precision and lift are constant: use
        # the right point's value (the interpolated q can round to 0 for a tiny u)
        yh = np.where((al == 0) & (tl == 0), take(y, r), yh)
    out = np.where(tie, y_tie, yh)
    return out


def value_at_from_rates(
    alpha: Any,
    beta: Any,
    prevalence: Any,
    *,
    curve: CurveKind = "pr",
    at: Any = 0.9,
    validate: bool = True,
) -> Any:
    r"""The curve's y value at x = ``at``, by the OPS paper's interpolation (eq. 9).

    Find the neighbouring points x_l ≤ u ≤ x_r, interpolate the errors

    .. math::

        \hat\alpha = \alpha_l + (\alpha_r - \alpha_l)\frac{u - x_l}{x_r - x_l},\qquad
        \hat\beta = \beta_l + (\beta_r - \beta_l)\frac{u - x_l}{x_r - x_l}

    and evaluate the y formula of the curve at (π, α̂, β̂).  If points lie exactly at
    x = u the best of them counts (largest y).

    **Contract**: as :func:`auc_from_rates` (batch of curves ``(..., m)`` by decreasing
    threshold with both end points, π broadcastable).  ``at`` in [0, 1] is a scalar or
    an array broadcastable to the batch shape; for a single curve (1-D ``alpha``) it
    may have any shape (one value per entry).  The score-space point metrics
    (:func:`precision_at_recall`, :func:`precision_at_k`, :func:`lift_at_k`,
    :func:`curve_value_at`) call this function.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([0.0, 0.0, 0.5, 1.0]); b = np.array([1.0, 0.5, 0.0, 0.0])
    >>> # halfway between (alpha, beta) = (0, 0.5) and (0.5, 0): (0.25, 0.25); at pi = 0.5
    >>> # precision = 0.5 * 0.75 / (0.5 * 0.75 + 0.5 * 0.25)
    >>> float(value_at_from_rates(a, b, 0.5, curve="pr", at=0.75))
    0.75
    >>> value_at_from_rates(a, b, 0.5, curve="roc", at=[0.0, 0.25, 1.0])
    array([0.5 , 0.75, 1.  ])
    """
    curve = _check_curve(curve)
    u = check_unit_interval(at, "at")
    a, b, pi = _prepare_rates(alpha, beta, prevalence, validate)
    if a.ndim > 1:
        try:
            np.broadcast_shapes(u.shape, a.shape[:-1])
        except ValueError as exc:
            raise InvalidInputError(
                f"at of shape {u.shape} does not broadcast to the batch shape {a.shape[:-1]}"
            ) from exc
    out = _value_at_rates(a, 1.0 - b, pi, curve, u)
    return out[()] if np.ndim(out) == 0 else out


def recall_at_precision_from_rates(
    alpha: Any,
    beta: Any,
    prevalence: Any,
    *,
    precision: Any = 0.9,
    validate: bool = True,
) -> Any:
    r"""The largest recall whose precision is at least ``precision``, on eq. 9's curve.

    Along a segment interpolated linearly in (α, β), precision ≥ p is the linear
    condition g(t) = π r(t) − p q(t) ≥ 0, so the best point of each segment is found
    in closed form; the answer is the maximum over segments (``nan`` where no point
    reaches the precision).  Precision is compared with a tolerance of 1e-12.  Batched
    as :func:`auc_from_rates`; ``precision`` broadcasts against the batch shape.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([0.0, 0.0, 0.5, 1.0]); b = np.array([1.0, 0.5, 0.0, 0.0])
    >>> round(float(recall_at_precision_from_rates(a, b, 0.5, precision=0.8)), 12)
    0.666666666667
    """
    p = check_unit_interval(precision, "precision")
    a, b, pi = _prepare_rates(alpha, beta, prevalence, validate)
    return _recall_at_precision_rates(a, 1.0 - b, pi, p)


def _recall_at_precision_rates(a: np.ndarray, r: np.ndarray, pi: np.ndarray, p: np.ndarray) -> Any:
    q = _pred_rate(a, r, pi)
    g = pi * r - np.asarray(p)[..., None] * q
    gl, gr = g[..., :-1], g[..., 1:]
    rl, rr = r[..., :-1], r[..., 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(
            gr >= -_PRECISION_TOL * q[..., 1:], 1.0, np.where(gl > 0, gl / (gl - gr), np.nan)
        )
    t = np.where(q[..., 1:] > 0, t, np.nan)  # segments between copies of the origin
    rec = rl + t * (rr - rl)
    ok = ~np.isnan(rec)
    best = np.max(np.where(ok, rec, -np.inf), axis=-1)
    out = np.where(np.isfinite(best), best, np.nan)
    return out[()] if np.ndim(out) == 0 else out


# =====================================================================================
# the sufficient statistic
# =====================================================================================




# =====================================================================================
# curves
# =====================================================================================


@dataclass(frozen=True, eq=False)
class Curve(SummaryDisplay):
    r"""A curve of the OPS paper's Table 3, its points by decreasing threshold.

    Attributes
    ----------
    kind : "roc", "pr", "lift" or "gain"
    thresholds : ndarray (m,), ``+inf`` (nothing predicted positive) then the distinct
        scores, decreasing; a sample is predicted positive when its score ≥ threshold
    x, y : ndarray (m,), the coordinates (module docstring table)
    tps, fps : ndarray (m,), cumulative weighted true / false positives at each point
    prevalence : π of the data
    pos_label : the positive label

    The first point is the end point (α, β) = (0, 1), the last (1, 0).  Reverse the
    arrays (``curve.x[::-1]``) for scikit-learn's increasing-threshold order of
    ``precision_recall_curve``.

    Examples
    --------
    >>> from beyondchance import roc_curve
    >>> c = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> c.x, c.y
    (array([0. , 0. , 0.5, 0.5, 1. ]), array([0. , 0.5, 0.5, 1. , 1. ]))
    >>> c.auc()
    0.75
    """

    kind: CurveKind
    thresholds: np.ndarray
    x: np.ndarray
    y: np.ndarray
    tps: np.ndarray
    fps: np.ndarray
    prevalence: float
    pos_label: Any = 1

    def __post_init__(self) -> None:
        for name in ("thresholds", "x", "y", "tps", "fps"):
            arr = np.asarray(getattr(self, name), dtype=np.float64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def alpha(self) -> np.ndarray:
        """Type-I error α = FP / negatives at each point."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.fps / self.fps[-1]

    @property
    def beta(self) -> np.ndarray:
        """Type-II error β = FN / positives at each point."""
        return 1.0 - self._tpr

    @property
    def _tpr(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.tps / self.tps[-1]

    @property
    def ideal_auc(self) -> float:
        """The ideal classifier's AUC at this prevalence (OPS paper, Table 3)."""
        if not 0 < self.prevalence < 1:
            return float("nan")
        return float(ideal_auc(self.prevalence, curve=self.kind))

    def auc(self, method: AucMethod = "default") -> float:
        """Area under the curve; the estimator of :func:`auc_from_rates` (same kernel)."""
        method = _resolve_method(self.kind, method)
        if np.isnan(self.x[-1]):
            return float("nan")
        if method == "interpolated" and self.kind in ("lift", "pr"):
            pi = np.asarray(self.prevalence)[None]
            return float(_auc_rates(self.alpha, self._tpr, pi, self.kind, method))
        return float(_sum_by_blocks(lambda x, y: _auc_xy(x, y, method), (self.x, self.y)))

    def nauc(self, method: AucMethod = "default") -> float:
        """AUC / ideal AUC (OPS paper eq. 3)."""
        return self.auc(method) / self.ideal_auc

    def value_at(self, at: Any) -> Any:
        """y at x = ``at`` by eq. 9 (:func:`value_at_from_rates`)."""
        u = check_unit_interval(at, "at")
        if np.isnan(self.x[-1]):
            out = np.full(u.shape, np.nan)
        else:
            out = _value_at_rates(self.alpha, self._tpr, np.asarray(self.prevalence)[None], self.kind, u)
        return float(out) if np.ndim(out) == 0 else out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation (the leading ``+inf`` threshold becomes ``None``)."""
        thr = [None if not np.isfinite(t) else float(t) for t in self.thresholds[:1]]
        return {
            "kind": self.kind,
            "x_label": CURVES[self.kind]["x"],
            "y_label": CURVES[self.kind]["y"],
            "thresholds": thr + self.thresholds[1:].tolist(),
            "x": _jsonable(self.x),
            "y": _jsonable(self.y),
            "tps": _jsonable(self.tps),
            "fps": _jsonable(self.fps),
            "prevalence": float(self.prevalence),
            "pos_label": _jsonable(self.pos_label),
        }

    def __len__(self) -> int:
        return int(self.x.shape[0])

    def __repr__(self) -> str:
        return f"Curve(kind={self.kind!r}, n_points={len(self)}, prevalence={self.prevalence:.6g})"

    def _summary_title(self) -> str:
        return f"{self.kind.upper() if self.kind in ('roc', 'pr') else self.kind.capitalize()} curve"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        with np.errstate(all="ignore"):
            area = self.auc()
        return [("points", len(self)), ("x", f"{CURVES[self.kind]['x']}: {format_number(self.x)}"),
                ("y", f"{CURVES[self.kind]['y']}: {format_number(self.y)}"), ("area", area),
                ("prevalence", self.prevalence), ("positive class", repr(self.pos_label))]


def _auc_xy(x: np.ndarray, y: np.ndarray, method: str) -> np.ndarray:
    """Trapezoid or step-wise (``"step"``; average precision on the PR curve) sum over (x, y)."""
    dx = np.diff(x, axis=-1)
    if method == "step":
        dx *= y[..., 1:]
        return np.sum(dx, axis=-1)
    ysum = np.add(y[..., 1:], y[..., :-1])
    ysum *= dx
    return np.sum(ysum, axis=-1) * 0.5
