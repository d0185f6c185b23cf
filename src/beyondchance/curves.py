r"""Curves from scores: ROC, precision–recall, lift and gain, their AUCs and point metrics.

Every curve of the OPS paper (Zhao, Bui, Yu & Dzieciolowski, section 2.4, Table 3) is a
path in the (α, β) plane, α = FP/(FP+TN) the Type-I error and β = FN/(TP+FN) the
Type-II error, traced by lowering a threshold over the scores.  With the prevalence π
and the predicted-positive rate q = π(1−β) + (1−π)α:

=====  ==============  ========================  ===========  ===============
curve  x               y                         ideal AUC    trivial AUC
=====  ==============  ========================  ===========  ===============
roc    α               recall 1 − β              1            1/2
pr     recall 1 − β    precision π(1−β) / q      1            π
lift   q               lift (1 − β) / q          1 − ln π     1
gain   q               recall 1 − β              1 − π/2      1/2
=====  ==============  ========================  ===========  ===============

"Trivial" is a constant score (one threshold: the diagonal from (0, 1) to (1, 0));
its precision is π and its lift 1 everywhere.  The ideal AUCs are those of the
paper's Table 3 (its "log" is the natural logarithm: Tables 8 and 9 give
AUC/NAUC = 1 − ln π).

Two layers, one estimator:

* **Rate space** — :func:`auc_from_rates`, :func:`value_at_from_rates`,
  :func:`recall_at_precision_from_rates` take batches of curves ``alpha, beta`` of
  shape ``(..., m)`` and are vectorised over the batch.  The Monte Carlo reference
  distribution of curves (the Directed Binary Tree, OPS paper section 3.3, eq. 8) uses them.
* **Score space** — :func:`roc_curve`, :func:`roc_auc`, :func:`average_precision`,
  ... take ``(y_true, y_score)``.  They build the sufficient statistic
  :class:`ThresholdCounts` (distinct thresholds with cumulative weighted positive and
  negative counts; one sort) and then call the *same* rate-space functions on the
  classifier's (α, β) points, so a classifier's AUC and a reference curve's AUC are
  computed by one estimator.

Conventions
-----------
* Points run by **decreasing threshold**: α non-decreasing, β non-increasing, from the
  end point (α, β) = (0, 1) (nothing predicted positive; threshold +inf) to (1, 0)
  (everything predicted positive).  Tied scores form one threshold (as scikit-learn's
  ``_binary_clf_curve``); samples of zero weight are dropped.
* At the end point (0, 1) precision and lift are 0/0.  They take their limit along
  the first segment under the paper's interpolation (eq. 9, linear in (α, β)), which is
  their value at the next point with q > 0 (precision and lift are constant on a
  segment that starts at the origin).  scikit-learn's ``precision_recall_curve``
  instead appends precision 1 at recall 0; average precision does not use that value.
* AUC methods: ``"trapezoid"`` (linearly connecting the points (x, y), as the paper
  states), ``"step"`` (the step-wise sum Σ Δx · y at the lower-threshold end of each
  step), ``"ap"`` (precision–recall only: ``"step"`` on the PR curve, scikit-learn's
  ``average_precision_score``) and ``"interpolated"`` (the exact area
  under the curve traced by eq. 9's linear interpolation in (α, β) between the points;
  for the precision–recall curve this is the Davis & Goadrich (2006) interpolation).
  For ROC and gain curves y is linear in x along such a segment, so ``"interpolated"``
  and ``"trapezoid"`` coincide.  ``"default"`` is ``"trapezoid"`` for roc and gain,
  ``"ap"`` for pr and ``"interpolated"`` for lift: the lift's ideal AUC 1 − ln π is the
  area under the interpolated ideal curve (∫ min(1/π, 1/q) dq), so only with this
  estimator does 0 ≤ NAUC ≤ 1 hold for every set of scores (with tied scores the
  trapezoid can exceed the ideal: a perfect two-valued score at π = 0.1 gets 5.95
  against 1 − ln 0.1 = 3.30).
* Point metrics (OPS paper eq. 9): the y value at x = u interpolates (α, β) linearly
  between the neighbouring points x_l ≤ u ≤ x_r and evaluates the y formula there.
  When points share x = u exactly the best one counts (largest y: the last point of a
  vertical ROC run, the first point of a flat-recall PR run).

Examples
--------
>>> import numpy as np
>>> from beyondchance.curves import roc_auc, average_precision, auc_from_rates
>>> y = [0, 0, 1, 1]
>>> s = [0.1, 0.4, 0.35, 0.8]
>>> roc_auc(y, s)
0.75
>>> round(average_precision(y, s), 6)
0.833333
>>> # the same estimator on (alpha, beta) points, batched over two curves
>>> alpha = np.array([[0, 0, 0.5, 0.5, 1], [0, 0, 0, 1, 1]], dtype=float)
>>> beta = np.array([[1, 0.5, 0.5, 0, 0], [1, 0.5, 0, 0, 0]], dtype=float)
>>> auc_from_rates(alpha, beta, 0.5, curve="roc")
array([0.75, 1.  ])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ._validation import (
    as_float_1d,
    check_consistent_length,
    check_prevalence,
    check_rate_curves,
    check_sample_weight,
    check_unit_interval,
    binary_target,
)
from ._warnings import InvalidInputError, warn_undefined
from ._display import SummaryDisplay, format_number
from ._json import jsonable as _jsonable

__all__ = [
    "CURVES",
    "ThresholdCounts",
    "Curve",
    "threshold_counts",
    "auc_from_rates",
    "value_at_from_rates",
    "recall_at_precision_from_rates",
    "ideal_auc",
    "roc_curve",
    "precision_recall_curve",
    "lift_curve",
    "gain_curve",
    "curve_auc",
    "curve_nauc",
    "roc_auc",
    "average_precision",
    "pr_auc",
    "lift_auc",
    "gain_auc",
    "curve_value_at",
    "precision_at_recall",
    "recall_at_precision",
    "precision_at_k",
    "lift_at_k",
]

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


def _check_curve(curve: Any) -> str:
    if curve not in CURVES:
        raise InvalidInputError(f"curve must be one of {sorted(CURVES)}, got {curve!r}")
    return curve


def _resolve_method(curve: str, method: Any) -> str:
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




def _readonly(*arrays: np.ndarray) -> None:
    for arr in arrays:
        arr.setflags(write=False)


@dataclass(frozen=True, eq=False)
class ThresholdCounts(SummaryDisplay):
    r"""Distinct thresholds with cumulative weighted counts: every curve, exactly.

    For each distinct score t (decreasing), ``tps`` and ``fps`` are the weighted
    numbers of positives and negatives with score ≥ t — the sufficient statistic of
    every curve in this module (scikit-learn's ``_binary_clf_curve``).  Mergeable:
    ``a.merge(b)`` (or ``a + b``) is the statistic of the concatenated data.

    Attributes
    ----------
    thresholds : ndarray (k,), strictly decreasing distinct scores (of positive weight)
    tps, fps : ndarray (k,), cumulative weighted positives / negatives with score ≥ threshold
    pos_label : the label counted as positive

    Examples
    --------
    >>> c = ThresholdCounts.from_scores([0, 1, 1, 0], [0.2, 0.9, 0.2, 0.5])
    >>> c.thresholds, c.tps, c.fps
    (array([0.9, 0.5, 0.2]), array([1., 1., 2.]), array([0., 1., 2.]))
    >>> c.prevalence
    0.5
    >>> c.auc("roc")
    0.625
    """

    thresholds: np.ndarray
    tps: np.ndarray
    fps: np.ndarray
    pos_label: Any = 1

    def __post_init__(self) -> None:
        thr = np.asarray(self.thresholds, dtype=np.float64)
        tps = np.asarray(self.tps, dtype=np.float64)
        fps = np.asarray(self.fps, dtype=np.float64)
        if not (thr.ndim == tps.ndim == fps.ndim == 1 and thr.shape == tps.shape == fps.shape):
            raise InvalidInputError("thresholds, tps and fps must be 1-D arrays of one length")
        if thr.size == 0:
            raise InvalidInputError("thresholds is empty")
        if np.isnan(thr).any() or (np.diff(thr) >= 0).any():
            raise InvalidInputError("thresholds must be strictly decreasing")
        for arr, name in ((tps, "tps"), (fps, "fps")):
            if not np.isfinite(arr).all() or arr[0] < 0 or (np.diff(arr) < 0).any():
                raise InvalidInputError(f"{name} must be finite, non-negative and non-decreasing")
        padded = []
        for arr, first in ((thr, np.inf), (tps, 0.0), (fps, 0.0)):
            out = np.empty(arr.shape[0] + 1)
            out[0] = first
            out[1:] = arr
            padded.append(out)
        _set_padded(self, *padded)

    # --- construction -----------------------------------------------------------

    @classmethod
    def from_scores(
        cls, y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None
    ) -> "ThresholdCounts":
        """Build the statistic from labels and scores (one sort); see :func:`threshold_counts`."""
        return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)

    @classmethod
    def from_score_table(
        cls, scores: Any, pos_weight: Any, neg_weight: Any, *, pos_label: Any = 1
    ) -> "ThresholdCounts":
        """Build the statistic from per-score weights, e.g. a ``GROUP BY score`` of an engine.

        ``scores`` need not be sorted nor distinct (duplicates are summed); scores whose
        total weight is zero are dropped, as samples of zero weight are.

        >>> c = ThresholdCounts.from_score_table([0.2, 0.9, 0.5], [1, 1, 0], [1, 0, 1])
        >>> c.thresholds, c.tps, c.fps
        (array([0.9, 0.5, 0.2]), array([1., 1., 2.]), array([0., 1., 2.]))
        """
        sc = as_float_1d(scores, "scores")
        pw = as_float_1d(pos_weight, "pos_weight")
        nw = as_float_1d(neg_weight, "neg_weight")
        check_consistent_length(scores=sc, pos_weight=pw, neg_weight=nw)
        if (pw < 0).any() or (nw < 0).any():
            raise InvalidInputError("pos_weight and neg_weight must be non-negative")
        uniq, inv = np.unique(-sc, return_inverse=True)  # decreasing scores
        p = np.bincount(inv, weights=pw, minlength=uniq.size)
        q = np.bincount(inv, weights=nw, minlength=uniq.size)
        keep = (p + q) > 0
        if not keep.any():
            raise InvalidInputError("the score table has zero total weight: there is nothing to evaluate")
        return cls(-uniq[keep], np.cumsum(p[keep]), np.cumsum(q[keep]), pos_label)

    def score_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(scores, positive weight, negative weight) per distinct score, decreasing.

        The inverse of :meth:`from_score_table`.
        """
        _, tps, fps = self.__dict__["_padded"]
        return self.thresholds.copy(), np.diff(tps), np.diff(fps)

    def merge(self, other: "ThresholdCounts") -> "ThresholdCounts":
        """The statistic of the concatenated data.

        >>> a = ThresholdCounts.from_scores([0, 1], [0.3, 0.8])
        >>> b = ThresholdCounts.from_scores([1, 0], [0.3, 0.1])
        >>> (a + b).tps, (a + b).fps
        (array([1., 2., 2.]), array([0., 1., 2.]))
        """
        if not isinstance(other, ThresholdCounts):
            raise InvalidInputError(f"cannot merge ThresholdCounts with {type(other).__name__}")
        if other.pos_label != self.pos_label:
            raise InvalidInputError(
                f"cannot merge statistics of different positive labels "
                f"({self.pos_label!r} and {other.pos_label!r})"
            )
        thr = np.concatenate([self.thresholds, other.thresholds])
        dp = np.concatenate([np.diff(self.tps, prepend=0.0), np.diff(other.tps, prepend=0.0)])
        dn = np.concatenate([np.diff(self.fps, prepend=0.0), np.diff(other.fps, prepend=0.0)])
        uniq, inv = np.unique(-thr, return_inverse=True)  # decreasing thresholds
        tps = np.cumsum(np.bincount(inv, weights=dp, minlength=uniq.size))
        fps = np.cumsum(np.bincount(inv, weights=dn, minlength=uniq.size))
        return ThresholdCounts(-uniq, tps, fps, self.pos_label)

    __add__ = merge

    # --- totals -----------------------------------------------------------------

    @property
    def n_pos(self) -> float:
        """Total weight of the positives."""
        return float(self.tps[-1])

    @property
    def n_neg(self) -> float:
        """Total weight of the negatives."""
        return float(self.fps[-1])

    @property
    def n(self) -> float:
        """Total weight."""
        return self.n_pos + self.n_neg

    @property
    def prevalence(self) -> float:
        """π = weight of positives / total weight."""
        return self.n_pos / self.n

    @property
    def is_defined(self) -> bool:
        """Both classes present (π in (0, 1)); otherwise no curve is defined."""
        return self.n_pos > 0 and self.n_neg > 0

    # --- rates ------------------------------------------------------------------

    def rates(self) -> tuple[np.ndarray, np.ndarray]:
        """(α, β) of the k + 1 curve points, the end point (0, 1) first.

        α = fps / n_neg, β = 1 − tps / n_pos (nan when a class is absent).
        """
        cached = self.__dict__.get("_rates")
        if cached is None:
            alpha, tpr = self._alpha_tpr()
            beta = np.subtract(1.0, tpr)
            _readonly(beta)
            cached = self.__dict__["_rates"] = (alpha, beta)
        return cached

    def _alpha_tpr(self) -> tuple[np.ndarray, np.ndarray]:
        """(α, 1 − β) = (fps / n_neg, tps / n_pos), computed once: the ROC curve itself."""
        cached = self.__dict__.get("_alpha_tpr_cache")
        if cached is None:
            _, tps, fps = self.__dict__["_padded"]
            with np.errstate(divide="ignore", invalid="ignore"):
                cached = (np.divide(fps, fps[-1]), np.divide(tps, tps[-1]))
            _readonly(*cached)
            self.__dict__["_alpha_tpr_cache"] = cached
        return cached

    def _check_defined(self, what: str, strict: bool) -> bool:
        if self.is_defined:
            return True
        missing = "negative" if self.n_neg <= 0 else "positive"
        warn_undefined(
            f"{what} is undefined: y_true has no {missing} samples (prevalence must lie in (0, 1))",
            strict=strict,
            stacklevel=4,
        )
        return False

    # --- curves and their summaries ---------------------------------------------

    def curve(self, kind: CurveKind = "roc", *, strict: bool = False) -> "Curve":
        """The ROC, precision–recall, lift or gain curve (points by decreasing threshold)."""
        kind = _check_curve(kind)
        thr, tps, fps = self.__dict__["_padded"]
        if self._check_defined(f"the {kind} curve", strict):
            a, tpr = self._alpha_tpr()
            x, y = _xy(a, tpr, np.asarray(self.prevalence)[None], kind)
        else:
            x = np.full(thr.shape[0], np.nan)
            y = np.full(thr.shape[0], np.nan)
        return Curve(kind, thr, x, y, tps, fps, self.prevalence, self.pos_label)

    def auc(self, kind: CurveKind = "roc", *, method: AucMethod = "default", strict: bool = False) -> float:
        """Area under the curve, computed by :func:`auc_from_rates` on :meth:`rates`."""
        kind = _check_curve(kind)
        method = _resolve_method(kind, method)
        if not self._check_defined(f"the area under the {kind} curve", strict):
            return float("nan")
        a, tpr = self._alpha_tpr()
        return float(_auc_rates(a, tpr, np.asarray(self.prevalence)[None], kind, method))

    def nauc(self, kind: CurveKind = "roc", *, method: AucMethod = "default", strict: bool = False) -> float:
        """Normalised AUC = AUC / ideal AUC (OPS paper eq. 3)."""
        value = self.auc(kind, method=method, strict=strict)
        if np.isnan(value):
            return value
        return value / float(ideal_auc(self.prevalence, curve=kind))

    def value_at(self, kind: CurveKind, at: Any, *, strict: bool = False) -> Any:
        """y at x = ``at`` by eq. 9 (see :func:`value_at_from_rates`); ``at`` may be an array."""
        kind = _check_curve(kind)
        u = check_unit_interval(at, "at")
        if not self._check_defined(f"the {kind} curve", strict):
            out = np.full(u.shape, np.nan)
        else:
            a, tpr = self._alpha_tpr()
            out = _value_at_rates(a, tpr, np.asarray(self.prevalence)[None], kind, u)
        return float(out) if np.ndim(out) == 0 else out

    def recall_at_precision(self, precision: Any, *, strict: bool = False) -> Any:
        """Largest recall with precision ≥ ``precision`` (see :func:`recall_at_precision_from_rates`)."""
        p = check_unit_interval(precision, "precision")
        if not self._check_defined("recall at precision", strict):
            return float("nan") if p.ndim == 0 else np.full(p.shape, np.nan)
        a, tpr = self._alpha_tpr()
        if p.ndim == 0:
            out = _recall_at_precision_rates(a, tpr, np.asarray(self.prevalence)[None], p)
        else:
            out = _recall_at_precision_rates(a[None], tpr[None], np.asarray(self.prevalence)[None], p.ravel())
            out = np.asarray(out).reshape(p.shape)
        if np.any(np.isnan(out)):
            warn_undefined(
                "no threshold reaches the requested precision; recall at precision is nan",
                strict=strict,
                stacklevel=3,
            )
        return float(out) if np.ndim(out) == 0 else out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "thresholds": _jsonable(self.thresholds),
            "tps": _jsonable(self.tps),
            "fps": _jsonable(self.fps),
            "pos_label": _jsonable(self.pos_label),
            "n_pos": self.n_pos,
            "n_neg": self.n_neg,
        }

    def __repr__(self) -> str:
        return (
            f"ThresholdCounts(n_thresholds={self.thresholds.shape[0]}, n_pos={self.n_pos:g}, "
            f"n_neg={self.n_neg:g}, pos_label={self.pos_label!r})"
        )

    def _summary_title(self) -> str:
        return f"Threshold counts of binary scores (positive class {self.pos_label!r})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("distinct scores", self.thresholds.shape[0]), ("positives", self.n_pos),
                                       ("negatives", self.n_neg), ("prevalence", self.prevalence)]
        if self.thresholds.size:
            rows.append(("score range", f"{self.thresholds[-1]:.4g} to {self.thresholds[0]:.4g}"))
        if self.is_defined:
            rows += [("ROC AUC", self.auc("roc")), ("average precision", self.auc("pr", method="ap"))]
        return rows


def _set_padded(obj: ThresholdCounts, thr0: np.ndarray, tps0: np.ndarray, fps0: np.ndarray) -> None:
    """Store the arrays with the end point (+inf, 0, 0) prepended; the fields are views."""
    _readonly(thr0, tps0, fps0)
    obj.__dict__["_padded"] = (thr0, tps0, fps0)
    object.__setattr__(obj, "thresholds", thr0[1:])
    object.__setattr__(obj, "tps", tps0[1:])
    object.__setattr__(obj, "fps", fps0[1:])


def _new_counts(thr0: np.ndarray, tps0: np.ndarray, fps0: np.ndarray, pos_label: Any) -> ThresholdCounts:
    """A ThresholdCounts around padded arrays known to be valid (no copy, no checks)."""
    obj = object.__new__(ThresholdCounts)
    object.__setattr__(obj, "pos_label", pos_label)
    _set_padded(obj, thr0, tps0, fps0)
    return obj


def _padded_outputs(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty padded arrays for k thresholds, the end point (+inf, 0, 0) filled in."""
    thr0, tps0, fps0 = np.empty(k + 1), np.empty(k + 1), np.empty(k + 1)
    thr0[0], tps0[0], fps0[0] = np.inf, 0.0, 0.0
    return thr0, tps0, fps0


def _first_of_runs(v: np.ndarray) -> np.ndarray:
    """Mask of the first element of each run of equal values in a sorted array."""
    first = np.empty(v.shape[0], dtype=bool)
    first[:1] = True
    np.not_equal(v[1:], v[:-1], out=first[1:])
    return first


def _counts_one_class(v: np.ndarray, positive: bool, pos_label: Any) -> ThresholdCounts:
    """Counts when every sample belongs to one class (``v``: its scores, sorted)."""
    starts = np.flatnonzero(_first_of_runs(v))
    thr0, tps0, fps0 = _padded_outputs(starts.shape[0])
    np.take(v, starts[::-1], out=thr0[1:], mode="clip")  # valid indices: no bounds buffer
    ones, zeros = (tps0, fps0) if positive else (fps0, tps0)
    np.subtract(v.shape[0], starts[::-1], out=ones[1:], casting="unsafe")
    zeros[1:] = 0.0
    return _new_counts(thr0, tps0, fps0, pos_label)


_SIGN_BIT = np.uint64(1) << np.uint64(63)


def _sorted_by_class(pos: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The negatives' and the positives' scores, each sorted ascending.

    Non-negative float64 scores order as their bit patterns (unsigned integers) and
    leave the sign bit free: with the class written into it, one integer sort puts
    the sorted negatives first and the sorted positives after them, with no
    extraction pass per class.  A negative sample scored −0.0 would land among the
    positives: detected (the positives' block is then too long) and sorted the usual
    way, as are scores below zero.
    """
    n = s.shape[0]
    n_pos = int(np.count_nonzero(pos))
    n_neg = n - n_pos
    if 0 < n_pos < n and s.dtype == np.float64 and s.flags.c_contiguous and s.min() >= 0.0:
        keys = pos.astype(np.uint64)
        np.left_shift(keys, np.uint64(63), out=keys)
        np.bitwise_or(keys, s.view(np.uint64), out=keys)
        keys.sort()
        if keys[n_neg - 1] < _SIGN_BIT:  # exactly the positives carry the class bit
            p = keys[n_neg:]
            np.bitwise_and(p, ~_SIGN_BIT, out=p)  # a positive's −0.0 becomes 0.0: the same score
            return keys[:n_neg].view(np.float64), p.view(np.float64)
    neg = s[~pos]
    neg.sort()
    p = s[pos]
    p.sort()
    return neg, p


def _counts_unweighted(pos: np.ndarray, s: np.ndarray, pos_label: Any) -> ThresholdCounts:
    """Sort the scores of each class, then merge their distinct values by position.

    With the negatives' scores sorted (``neg``) and the positives' (``p``): every
    distinct negative score t has ``start`` = #negatives < t; every distinct positive
    score u has #negatives < u by a binary search in ``neg`` and its rank among the
    distinct negative scores by a second one, which places it in the merged ascending
    order of all distinct scores.  Thresholds, tps and fps are written straight into
    the (decreasing) output arrays; only the two class sorts touch all n scores.
    """
    neg, p = _sorted_by_class(pos, s)
    n_neg, n_pos = neg.shape[0], p.shape[0]
    if n_pos == 0 or n_neg == 0:
        return _counts_one_class(p if n_neg == 0 else neg, n_neg == 0, pos_label)
    first_neg = _first_of_runs(neg)
    distinct_neg = bool(first_neg.all())  # continuous scores: no ties among the negatives
    # #negatives below each distinct negative score (its index when they are distinct)
    starts_neg = None if distinct_neg else np.flatnonzero(first_neg)
    k_neg = n_neg if distinct_neg else starts_neg.shape[0]
    starts_pos = np.flatnonzero(_first_of_runs(p))
    u_pos = p[starts_pos]  # distinct positive scores, ascending
    count_pos = np.diff(starts_pos, append=n_pos)
    neg_below = np.searchsorted(neg, u_pos, side="left")  # #negatives below u
    # #distinct negative scores below u
    rank = neg_below if distinct_neg else np.searchsorted(starts_neg, neg_below, side="left")
    shared = rank < k_neg
    shared[shared] = neg[rank[shared] if distinct_neg else starts_neg[rank[shared]]] == u_pos[shared]
    added = ~shared  # positive scores that no negative has
    added_before = np.cumsum(added) - added
    merged_pos = rank + added_before  # ascending position of u among all distinct scores
    k = k_neg + int(added_before[-1] + added[-1])
    at_added = merged_pos[added]
    is_neg_score = np.ones(k, dtype=bool)
    is_neg_score[at_added] = False
    thr0, tps0, fps0 = _padded_outputs(k)
    thr_up, tps_up, fps_up = thr0[:0:-1], tps0[:0:-1], fps0[:0:-1]  # ascending views
    thr_up[is_neg_score] = neg if distinct_neg else neg[first_neg]
    thr_up[at_added] = u_pos[added]
    fps_up[is_neg_score] = np.arange(n_neg, dtype=np.float64) if distinct_neg else starts_neg
    fps_up[at_added] = neg_below[added]
    np.subtract(n_neg, fps0[1:], out=fps0[1:])  # negatives with score >= threshold
    if k == n_neg + n_pos:  # every score distinct: the j-th highest has j scores >= it
        tps0[1:] = np.arange(1, k + 1, dtype=np.float64)
        np.subtract(tps0[1:], fps0[1:], out=tps0[1:])
    else:
        tps0[1:] = 0.0
        tps_up[merged_pos] = count_pos
        np.cumsum(tps0[1:], out=tps0[1:])  # positives with score >= threshold
    return _new_counts(thr0, tps0, fps0, pos_label)


def _counts_weighted(pos: np.ndarray, s: np.ndarray, w: np.ndarray, pos_label: Any) -> ThresholdCounts:
    keep = w != 0
    if not keep.all():
        pos, s, w = pos[keep], s[keep], w[keep]
    order = np.argsort(s, kind="stable")
    v = s[order]
    wv = w[order]
    pv = pos[order]
    starts = np.flatnonzero(_first_of_runs(v))
    pos_runs = np.add.reduceat(np.where(pv, wv, 0.0), starts)
    neg_runs = np.add.reduceat(np.where(pv, 0.0, wv), starts)
    thr0, tps0, fps0 = _padded_outputs(starts.shape[0])
    np.take(v, starts[::-1], out=thr0[1:], mode="clip")  # valid indices: no bounds buffer
    np.cumsum(pos_runs[::-1], out=tps0[1:])
    np.cumsum(neg_runs[::-1], out=fps0[1:])
    return _new_counts(thr0, tps0, fps0, pos_label)


def threshold_counts(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None
) -> ThresholdCounts:
    r"""The sufficient statistic of every curve: distinct thresholds and cumulative counts.

    Unweighted: the scores of each class are sorted (values only, no argsort) and
    their distinct values merged by binary search; with weights: one stable argsort
    and the weights summed per distinct score.  Tied scores form one threshold;
    zero-weight samples are dropped.

    Parameters
    ----------
    y_true : array-like (n,), binary labels
    y_score : array-like (n,), finite scores (higher = more positive)
    sample_weight : array-like (n,), optional, non-negative
    pos_label : the positive label; default 1 for labels in {0, 1} or {-1, 1}

    Returns
    -------
    ThresholdCounts

    Examples
    --------
    >>> c = threshold_counts(["n", "p", "p"], [0.1, 0.7, 0.7], pos_label="p")
    >>> c.thresholds, c.tps, c.fps
    (array([0.7, 0.1]), array([2., 2.]), array([0., 1.]))
    """
    yb, pos_label = binary_target(y_true, pos_label=pos_label)
    s = as_float_1d(y_score, "y_score")
    n = check_consistent_length(y_true=yb, y_score=s)
    w = check_sample_weight(sample_weight, n)
    if w is None:
        return _counts_unweighted(yb, s, pos_label)
    return _counts_weighted(yb, s, w, pos_label)


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
    >>> c = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> c.x, c.y
    (array([0. , 0. , 0.5, 0.5, 1. ]), array([0. , 0.5, 0.5, 1. , 1. ]))
    >>> c.auc()
    0.75
    """

    kind: str
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
        return float(ideal_auc(self.prevalence, curve=self.kind))  # type: ignore[arg-type]

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


# =====================================================================================
# score-space functions
# =====================================================================================

_SCORE_PARAMS = """
    y_true : array-like (n,)
        Binary labels.
    y_score : array-like (n,)
        Scores, higher meaning more likely positive (probabilities, margins, ...).
    sample_weight : array-like (n,), optional
        Non-negative weights; zero-weight samples are dropped.
    pos_label : optional
        The positive label (default 1 for labels in {0, 1} or {-1, 1}).
    strict : bool
        Raise :class:`~beyondchance.UndefinedMeasureError` instead of returning nan
        with an :class:`~beyondchance.UndefinedMeasureWarning` when y_true holds one class."""


def _with_params(doc: str) -> str:
    return doc.replace("    {params}", _SCORE_PARAMS.strip("\n"))


def roc_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "roc", strict=strict
    )


roc_curve.__doc__ = _with_params(
    r"""The ROC curve: x = α (false positive rate), y = 1 − β (recall).

    All distinct thresholds are kept (scikit-learn's ``roc_curve(...,
    drop_intermediate=False)``), starting with threshold ``+inf`` at (0, 0).

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = roc_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.thresholds
    array([inf, 0.9, 0.6, 0.2])
    >>> c.x, c.y
    (array([0. , 0. , 0.5, 1. ]), array([0. , 0.5, 1. , 1. ]))
    """
)


def precision_recall_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "pr", strict=strict
    )


precision_recall_curve.__doc__ = _with_params(
    r"""The precision–recall curve: x = recall 1 − β, y = precision π(1−β)/q.

    Points by decreasing threshold (the reverse of scikit-learn's order).  The first
    point is recall 0 with precision taken as its limit along the first segment (the
    precision of the highest threshold); scikit-learn puts precision 1 there.

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = precision_recall_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.x, c.y
    (array([0. , 0.5, 1. , 1. ]), array([1.        , 1.        , 0.66666667, 0.5       ]))
    """
)


def lift_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "lift", strict=strict
    )


lift_curve.__doc__ = _with_params(
    r"""The lift curve: x = predicted-positive rate q, y = lift (1 − β)/q = precision/π.

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = lift_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.x, c.y
    (array([0.  , 0.25, 0.75, 1.  ]), array([2.        , 2.        , 1.33333333, 1.        ]))
    """
)


def gain_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "gain", strict=strict
    )


gain_curve.__doc__ = _with_params(
    r"""The cumulative gain curve: x = predicted-positive rate q, y = recall 1 − β.

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = gain_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.x, c.y
    (array([0.  , 0.25, 0.75, 1.  ]), array([0. , 0.5, 1. , 1. ]))
    """
)


def curve_auc(
    y_true: Any,
    y_score: Any,
    *,
    curve: CurveKind = "roc",
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).auc(
        curve, method=method, strict=strict
    )


curve_auc.__doc__ = _with_params(
    r"""Area under any of the four curves; :func:`auc_from_rates` on the classifier's points.

    Parameters
    ----------
    {params}
    curve : {"roc", "pr", "lift", "gain"}
    method : {"default", "ap", "step", "trapezoid", "interpolated"}
        See :func:`auc_from_rates`.

    Examples
    --------
    >>> curve_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], curve="gain")
    0.6875
    """
)


def curve_nauc(
    y_true: Any,
    y_score: Any,
    *,
    curve: CurveKind = "roc",
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).nauc(
        curve, method=method, strict=strict
    )


curve_nauc.__doc__ = _with_params(
    r"""Normalised AUC = AUC / ideal AUC (OPS paper eq. 3; ideals in Table 3).

    Parameters
    ----------
    {params}
    curve : {"roc", "pr", "lift", "gain"}
    method : {"default", "ap", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> curve_nauc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], curve="gain")  # 0.6875 / (1 - 0.5/2)
    0.9166666666666666
    """
)


def roc_auc(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False,
    max_fpr: float | None = None, multi_class: str = "ovr", average: Any = "macro", labels: Any = None,
) -> Any:
    if np.ndim(y_score) == 2:
        from .multiclass_curves import multiclass_roc_auc

        if max_fpr is not None:
            raise InvalidInputError("max_fpr applies to binary scores only (as in scikit-learn)")
        return multiclass_roc_auc(y_true, y_score, multi_class=multi_class, average=average,
                                  sample_weight=sample_weight, labels=labels)
    if max_fpr is not None:
        from .multiclass_curves import partial_roc_auc

        return partial_roc_auc(y_true, y_score, max_fpr, sample_weight=sample_weight, pos_label=pos_label)
    return curve_auc(
        y_true, y_score, curve="roc", sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


roc_auc.__doc__ = _with_params(
    r"""Area under the ROC curve by the trapezoid rule (= scikit-learn's ``roc_auc_score``).

    .. math:: \mathrm{AUC} = \sum_j (\alpha_j - \alpha_{j-1})\,\frac{(1-\beta_j) + (1-\beta_{j-1})}{2}

    Parameters
    ----------
    {params}
    max_fpr : float in (0, 1], optional
        The McClish-standardised partial area up to this false-positive rate
        (``beyondchance.multiclass_curves.partial_roc_auc``).
    multi_class, average, labels : for an (n, K) ``y_score`` of class scores:
        ``"ovr"`` (one-vs-rest, ``average`` ``"macro"``, ``"weighted"`` or None) or
        ``"ovo"`` (Hand & Till), columns in the order of ``labels`` (default the sorted
        classes); see ``beyondchance.multiclass_curves.multiclass_roc_auc``.

    Examples
    --------
    >>> roc_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    0.875
    >>> P = [[.6, .3, .1], [.2, .7, .1], [.1, .2, .7], [.5, .3, .2], [.3, .3, .4]]
    >>> round(roc_auc([0, 1, 2, 1, 0], P), 12)   # one-vs-rest, macro: scikit-learn's 0.888...
    0.888888888889
    """
)


def average_precision(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False,
    average: Any = "macro", labels: Any = None,
) -> Any:
    if np.ndim(y_score) == 2:
        from .multiclass_curves import multiclass_average_precision

        return multiclass_average_precision(y_true, y_score, average=average, sample_weight=sample_weight,
                                            labels=labels)
    return curve_auc(
        y_true, y_score, curve="pr", method="ap", sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


average_precision.__doc__ = _with_params(
    r"""Average precision, the step-wise area under the PR curve (= ``average_precision_score``).

    .. math:: \mathrm{AP} = \sum_j (R_j - R_{j-1})\, P_j

    over the points by decreasing threshold.

    Parameters
    ----------
    {params}
    average, labels : for an (n, K) ``y_score`` of class scores, one-vs-rest:
        ``"macro"``, ``"weighted"``, ``"micro"`` or None (per class), columns in the
        order of ``labels``; see
        ``beyondchance.multiclass_curves.multiclass_average_precision``.

    Examples
    --------
    >>> round(average_precision([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6]), 6)
    0.833333
    """
)


def pr_auc(
    y_true: Any,
    y_score: Any,
    *,
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return curve_auc(
        y_true, y_score, curve="pr", method=method, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


pr_auc.__doc__ = _with_params(
    r"""Area under the precision–recall curve: average precision by default.

    ``method="trapezoid"`` connects the points linearly (with the first point's
    precision at recall 0, see the module docstring), ``"interpolated"`` integrates
    eq. 9's interpolation exactly (Davis & Goadrich).

    Parameters
    ----------
    {params}
    method : {"default", "ap", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> pr_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], method="trapezoid")  # 0.5 + 0.5 * (1 + 2/3) / 2
    0.9166666666666666
    """
)


def lift_auc(
    y_true: Any,
    y_score: Any,
    *,
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return curve_auc(
        y_true, y_score, curve="lift", method=method, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


lift_auc.__doc__ = _with_params(
    r"""Area under the lift curve (OPS paper section 4.3, "average lift"); ideal 1 − ln π.

    Default ``method="interpolated"``: the exact area under eq. 9's interpolation,
    for which 0 ≤ NAUC ≤ 1; ``"trapezoid"`` connects the points (q, lift) linearly.

    Parameters
    ----------
    {params}
    method : {"default", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> import numpy as np
    >>> perfect = lift_auc([0, 0, 0, 1], [0.1, 0.1, 0.1, 0.9])  # ideal at pi = 1/4
    >>> bool(np.isclose(perfect, 1 - np.log(0.25)))
    True
    """
)


def gain_auc(
    y_true: Any,
    y_score: Any,
    *,
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return curve_auc(
        y_true, y_score, curve="gain", method=method, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


gain_auc.__doc__ = _with_params(
    r"""Area under the cumulative gain curve (trapezoid); ideal 1 − π/2.

    It equals π/2 + (1 − π)·ROC AUC.

    Parameters
    ----------
    {params}
    method : {"default", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> gain_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])  # 0.25 + 0.5 * 0.875
    0.6875
    """
)


def curve_value_at(
    y_true: Any,
    y_score: Any,
    *,
    curve: CurveKind = "pr",
    at: Any = 0.9,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).value_at(
        curve, at, strict=strict
    )


curve_value_at.__doc__ = _with_params(
    r"""The curve's y at x = ``at`` by eq. 9 (:func:`value_at_from_rates`).

    Parameters
    ----------
    {params}
    curve : {"roc", "pr", "lift", "gain"}
    at : float or array-like in [0, 1]

    Examples
    --------
    >>> curve_value_at([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], curve="roc", at=0.25)
    0.75
    """
)


def precision_at_recall(
    y_true: Any,
    y_score: Any,
    recall: Any = 0.9,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    return curve_value_at(
        y_true, y_score, curve="pr", at=recall, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


precision_at_recall.__doc__ = _with_params(
    r"""Precision at a fixed recall, interpolating (α, β) linearly (OPS paper eq. 9).

    Between the neighbouring points with recall r_l < u < r_r, (α, β) is interpolated
    linearly and the precision π(1 − β̂) / (π(1 − β̂) + (1 − π)α̂) is evaluated there.

    **Ties.** When several points have recall exactly u (a run of thresholds that add
    only negatives), eq. 9 is 0/0 and the *best* of them counts: the first point of the
    run (the highest threshold), whose precision is the largest.  That is the precision
    a user gets by choosing the best threshold reaching recall u, and the limit of
    eq. 9 from below.  Recall is TP / P (one rounding), so a recall level given as
    the nearest float, e.g. ``1/3`` for 3 of 9 positives, finds its tie.

    Parameters
    ----------
    {params}
    recall : float or array-like in [0, 1]

    Examples
    --------
    >>> # between (recall 0.5, alpha 0) and (recall 1, alpha 0.5): alpha = 0.25 at recall 0.75
    >>> precision_at_recall([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], 0.75)
    0.75
    >>> # recall 1/2 at thresholds 0.9 (precision 1) and 0.8 (precision 1/2): the first counts
    >>> precision_at_recall([1, 0, 1, 0], [0.9, 0.8, 0.5, 0.5], 0.5)
    1.0
    """
)


def recall_at_precision(
    y_true: Any,
    y_score: Any,
    precision: Any = 0.9,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    return threshold_counts(
        y_true, y_score, sample_weight=sample_weight, pos_label=pos_label
    ).recall_at_precision(precision, strict=strict)


recall_at_precision.__doc__ = _with_params(
    r"""The largest recall with precision ≥ ``precision`` on eq. 9's interpolated curve.

    nan (with an :class:`~beyondchance.UndefinedMeasureWarning`) when no point of the
    curve reaches the precision.

    Parameters
    ----------
    {params}
    precision : float or array-like in [0, 1]

    Examples
    --------
    >>> recall_at_precision([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], 0.75)
    0.75
    """
)


def _rate_from_k(counts: ThresholdCounts, k: Any, rate: Any) -> np.ndarray:
    if (k is None) == (rate is None):
        raise InvalidInputError("give exactly one of k (a number of samples) and rate (a fraction)")
    if rate is not None:
        q = check_unit_interval(rate, "rate")
        if np.any(q == 0):
            raise InvalidInputError("rate must be positive")
        return q
    kk = np.asarray(k, dtype=np.float64)
    if not np.isfinite(kk).all() or np.any(kk <= 0) or np.any(kk > counts.n):
        raise InvalidInputError(f"k must lie in (0, {counts.n:g}] (the total sample weight), got {k!r}")
    return np.minimum(kk / counts.n, 1.0)


def precision_at_k(
    y_true: Any,
    y_score: Any,
    k: Any = None,
    *,
    rate: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    counts = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    q = _rate_from_k(counts, k, rate)
    lift = counts.value_at("lift", q, strict=strict)
    return lift * counts.prevalence


precision_at_k.__doc__ = _with_params(
    r"""Precision among the top ``k`` scores (or the top ``rate`` fraction), by eq. 9.

    The predicted-positive rate is q = k / n (n = total weight); (α, β) are
    interpolated linearly at q, so ties at the cut-off are shared out pro rata (the
    expected precision when ties are broken at random).  Without ties at the cut-off
    this is the plain share of positives among the k highest scores.

    Parameters
    ----------
    {params}
    k : number of samples (total weight with sample weights) predicted positive
    rate : predicted-positive rate in (0, 1], instead of ``k``

    Examples
    --------
    >>> precision_at_k([0, 1, 0, 1, 1], [0.1, 0.9, 0.8, 0.7, 0.2], k=3)
    0.6666666666666666
    """
)


def lift_at_k(
    y_true: Any,
    y_score: Any,
    k: Any = None,
    *,
    rate: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    counts = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    q = _rate_from_k(counts, k, rate)
    return counts.value_at("lift", q, strict=strict)


lift_at_k.__doc__ = _with_params(
    r"""Lift = precision / π among the top ``k`` scores (or the top ``rate`` fraction).

    See :func:`precision_at_k`; lift is the y of the lift curve at q = k / n.

    Parameters
    ----------
    {params}
    k : number of samples (total weight with sample weights) predicted positive
    rate : predicted-positive rate in (0, 1], instead of ``k``

    Examples
    --------
    >>> round(lift_at_k([0, 1, 0, 1, 1], [0.1, 0.9, 0.8, 0.7, 0.2], k=3), 6)  # (2/3) / 0.6
    1.111111
    """
)
