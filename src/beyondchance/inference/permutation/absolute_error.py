r"""The permutation test of the absolute error and pinball loss: Hoeffding's CLT of the loss sum.

Under the permutation null of :mod:`beyondchance.inference.permutation.rows` the (target, weight)
pairs of a regression's rows are shuffled against the fixed predictions.  The weighted
loss sum of a permutation π is the *linear* permutation statistic

.. math::

    T = \sum_i c_{i\pi(i)}, \qquad c_{ij} = w_j\, \ell(y_j - f_i),

row i's prediction :math:`f_i` against row j's target :math:`y_j` and weight :math:`w_j`,
with :math:`\ell(u) = a u` for :math:`u \ge 0` and :math:`\ell(u) = -b u` for :math:`u < 0`:
the absolute error (a = b = 1) or the pinball loss of level τ (a = τ, b = 1 − τ, as
:class:`~beyondchance.measures.losses.PinballLoss`).  Hoeffding's combinatorial central limit
theorem (Hoeffding 1951) gives its exact permutation mean and variance,

.. math::

    E\,T = \frac{C}{n}, \qquad
    \operatorname{Var} T = \frac{1}{n-1} \Bigl[\sum_{ij} c_{ij}^2 - \frac1n \sum_i r_i^2
    - \frac1n \sum_j k_j^2 + \frac{C^2}{n^2}\Bigr],

:math:`r_i = \sum_j c_{ij}`, :math:`k_j = \sum_i c_{ij}`, :math:`C = \sum_{ij} c_{ij}`
(the sum of the squared double-centred :math:`d_{ij} = c_{ij} - r_i/n - k_j/n + C/n^2`,
expanded), and T is asymptotically normal.  Unlike the squared error, :math:`\ell` is not a
polynomial: the sums are over the *sorted* values.  With the distinct predictions
:math:`u` (row counts :math:`m_u`) and the distinct targets :math:`v` (weights
:math:`W_v = \sum_{y_j = v} w_j`, :math:`Q_v = \sum_{y_j = v} w_j^2`),

.. math::

    r(u) = a \sum_{v \ge u} W_v (v - u) + b \sum_{v < u} W_v (u - v), \qquad
    g(v) = a \sum_{u \le v} m_u (v - u) + b \sum_{u > v} m_u (u - v),

    h(v) = a^2 \sum_{u \le v} m_u (v - u)^2 + b^2 \sum_{u > v} m_u (u - v)^2,

so that :math:`r_i = r(f_i)`, :math:`k_j = w_j g(y_j)`, :math:`C = \sum_u m_u r(u) =
\sum_v W_v g(v)`, :math:`\sum_i r_i^2 = \sum_u m_u r(u)^2`, :math:`\sum_j k_j^2 = \sum_v
Q_v g(v)^2` and :math:`\sum_{ij} c_{ij}^2 = \sum_v Q_v h(v)`.  Each of r, g, h is a
difference of prefix sums (of W, Wv over the sorted targets; of m, mu, mu² over the sorted
predictions) at the position of its argument (a binary search): O(n log n) in all, from
two exact histograms — per distinct target Σw and Σw², per distinct prediction the rows
(:class:`AbsoluteErrorHistograms`), which an engine computes with a ``COUNT(DISTINCT)`` check and two ``GROUP BY``
queries and brings back up to ``MAX_HISTOGRAM_VALUES`` distinct values each (beyond, no
test and the reason — no binned approximation).  n counts every row (zero weights
included: their predictions are permuted too).

The test of "the loss is no smaller than chance" (smaller is better) is the normal
approximation :math:`p = \Phi((T - E\,T) / \sqrt{\operatorname{Var} T})` of the permutation
law of the mean loss :math:`T / \sum w`: *asymptotic*, no draws — the test of the MAE,
the pinball loss and their D² (whose baseline is permutation-invariant) where the Monte
Carlo permutations of the rows exceed ``ROW_BUDGET``, in memory and on every engine.
Values are shifted by the median prediction before the power sums (differences are
unchanged; relative error of the moments about 1e-14 against the O(n²) double sum at
offsets up to 1e9); :math:`\sum d^2` below 1e-10 of :math:`\sum c^2` counts as zero (constant
predictions, or targets all above — or all below — every prediction of unweighted rows:
T is then the same for every permutation) and gives p = 1.
Its rejection rate at 5% under the null (benchmarks/sim_tests.py, 2,000 replicates per
cell, seeds 1070–1082, log-normal(0, 1) targets independent of normal(1, 1) predictions):
weighted (exponential weights) MAE 0.0455 and pinball τ = 0.9 0.0510 at n = 200, 0.0480
and 0.0585 at n = 20,000; unweighted MAE 0.0490 / 0.0535 and pinball 0.0455 / 0.0545
(n = 200 / 20,000; unweighted, the pinball test is the absolute error's, other draws);
weighted MAE 0.0575 at n = 50, 0.0395 with log-normal(0, 1.5) weights (n = 200), 0.0565 for
Poisson(2) targets and integer predictions (ties; n = 200); pinball τ = 0.99 0.0485 (n = 200)
and 0.0505 (n = 2,000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validation import as_float_1d, check_sample_weight
from ..._warnings import InvalidInputError
from .result import PermutationTestResult, normal_test
from .clt import _readonly

__all__ = ["AbsoluteErrorHistograms", "absolute_loss_test", "absolute_loss_moments", "loss_weights",
           "MAX_HISTOGRAM_VALUES"]

#: an engine brings back the histograms of y and of the predictions up to this many distinct
#: values each (beyond, no test: the reason says so)
MAX_HISTOGRAM_VALUES = 5_000_000


def loss_weights(alpha: float | None) -> tuple[float, float]:
    """(a, b) of ℓ(u) = a·u (u ≥ 0), −b·u (u < 0): the absolute error (None), the pinball
    loss of level ``alpha``.

    >>> loss_weights(None), loss_weights(0.9)
    ((1.0, 1.0), (0.9, 0.09999999999999998))
    """
    if alpha is None:
        return 1.0, 1.0
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise InvalidInputError(f"the pinball level must lie in (0, 1), got {alpha!r}")
    return alpha, 1.0 - alpha


@dataclass(frozen=True, eq=False)
class AbsoluteErrorHistograms:
    r"""The exact histograms the permutation CLT of the absolute and pinball losses needs
    (module docstring): the distinct targets with Σw and Σw² of their rows, and the distinct
    predictions with their row counts (zero weights included).

    >>> rng = np.random.default_rng(0)
    >>> y, f, w = rng.lognormal(size=300), rng.lognormal(size=300), rng.exponential(size=300)
    >>> h = AbsoluteErrorHistograms.of_rows(y, f, w)
    >>> r = h.test(float(np.dot(w, np.abs(y - f))), name="mae")
    >>> r.method, h.n, bool(0.001 < r.pvalue < 0.999)
    ('permutation CLT of the loss', 300.0, True)
    """

    targets: np.ndarray
    weights: np.ndarray
    squares: np.ndarray
    predictions: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        fields = {k: _readonly(np.ravel(getattr(self, k)))
                  for k in ("targets", "weights", "squares", "predictions", "counts")}
        if not (fields["targets"].shape == fields["weights"].shape == fields["squares"].shape) or \
                fields["predictions"].shape != fields["counts"].shape:
            raise InvalidInputError("AbsoluteErrorHistograms need targets, weights, squares of one length and "
                                    "predictions, counts of one length")
        for k, v in fields.items():
            if not np.isfinite(v).all():
                raise InvalidInputError(f"AbsoluteErrorHistograms: {k} must be finite")
            if k in ("weights", "squares", "counts") and (v < 0).any():
                raise InvalidInputError(f"AbsoluteErrorHistograms: {k} must be non-negative")
        for k, v in fields.items():
            object.__setattr__(self, k, v)

    @classmethod
    def of_rows(cls, y: Any, pred: Any, w: Any = None) -> "AbsoluteErrorHistograms":
        """From the rows (w None: unit weights)."""
        y = as_float_1d(y, "y_true")
        pred = as_float_1d(pred, "y_pred")
        if y.shape != pred.shape:
            raise InvalidInputError("y and the predictions must have the same length")
        w = np.ones(y.shape[0]) if w is None else check_sample_weight(w, y.shape[0])
        v, inv = np.unique(y, return_inverse=True)
        u, m = np.unique(pred, return_counts=True)
        inv = inv.ravel()
        return cls(v, np.bincount(inv, weights=w, minlength=v.size), np.bincount(inv, weights=w * w,
                                                                                  minlength=v.size), u, m)

    @property
    def n(self) -> float:
        """The rows."""
        return float(self.counts.sum())

    @property
    def total_weight(self) -> float:
        return float(self.weights.sum())

    def moments(self, alpha: float | None = None) -> tuple[float, float]:
        """(E T, Var T) of the weighted loss sum (alpha None: absolute error; else the pinball
        loss of that level) under the permutation null."""
        return absolute_loss_moments(self.targets, self.weights, self.squares, self.predictions, self.counts,
                                     alpha=alpha)

    def test(self, observed: float, alpha: float | None = None, *, name: str = "mae") -> PermutationTestResult:
        """The one-sided test of "the mean loss Σ w ℓ / Σ w is no smaller than chance" from
        the observed weighted loss sum ``observed`` (normal approximation, asymptotic)."""
        from .loss import LOSS_CLT_METHOD

        total = self.total_weight
        if self.n < 3 or not total > 0:
            raise InvalidInputError("the permutation test of the absolute error needs at least 3 rows and a positive "
                                    "total weight")
        mean, var = self.moments(alpha)
        return normal_test(name, float(observed), mean, var, total, method=LOSS_CLT_METHOD)

    def __repr__(self) -> str:
        return (f"AbsoluteErrorHistograms({self.targets.size} distinct targets, {self.predictions.size} distinct "
                f"predictions, n={self.n:g})")


def absolute_loss_moments(targets: Any, weights: Any, squares: Any, predictions: Any, counts: Any, *,
                          alpha: float | None = None) -> tuple[float, float]:
    """(E T, Var T) of T = Σ_j w_j ℓ(y_j − f_π(j)) under the permutations, from the histograms
    (module docstring; targets and predictions need not be sorted nor distinct)."""
    a, b = loss_weights(alpha)
    v, wv, qv = (np.asarray(x, dtype=np.float64).ravel() for x in (targets, weights, squares))
    u, mu = (np.asarray(x, dtype=np.float64).ravel() for x in (predictions, counts))
    n = float(mu.sum())
    if n < 2:
        raise InvalidInputError("the permutation CLT of the absolute error needs at least 2 rows")
    ov, ou = np.argsort(v, kind="stable"), np.argsort(u, kind="stable")
    v, wv, qv, u, mu = v[ov], wv[ov], qv[ov], u[ou], mu[ou]
    shift = float(u[np.searchsorted(np.cumsum(mu), n / 2.0)]) if u.size else 0.0  # the median prediction
    v, u = v - shift, u - shift

    def prefix(x: np.ndarray) -> np.ndarray:
        return np.concatenate([[0.0], np.cumsum(x)])

    # r(u): the targets v ≥ u against the predictions below them, and the others
    cw, cwv = prefix(wv), prefix(wv * v)
    lo = np.searchsorted(v, u, side="left")  # v[:lo] < u
    w_lt, s_lt = cw[lo], cwv[lo]
    r = a * ((cwv[-1] - s_lt) - u * (cw[-1] - w_lt)) + b * (u * w_lt - s_lt)
    # g(v), h(v): the predictions u ≤ v and u > v
    cm, cmu, cmu2 = prefix(mu), prefix(mu * u), prefix(mu * u * u)
    le = np.searchsorted(u, v, side="right")  # u[:le] ≤ v
    m_le, f_le, f2_le = cm[le], cmu[le], cmu2[le]
    m_gt, f_gt, f2_gt = cm[-1] - m_le, cmu[-1] - f_le, cmu2[-1] - f2_le
    g = a * (v * m_le - f_le) + b * (f_gt - v * m_gt)
    h = a * a * (v * v * m_le - 2.0 * v * f_le + f2_le) + b * b * (v * v * m_gt - 2.0 * v * f_gt + f2_gt)
    h = np.maximum(h, 0.0)
    c_sum = float(np.dot(mu, r))
    c2 = float(np.dot(qv, h))
    d2 = c2 - float(np.dot(mu, r * r)) / n - float(np.dot(qv, g * g)) / n + c_sum * c_sum / (n * n)
    if d2 <= 1e-10 * c2:  # no variation beyond the rows' and the columns' effects, to rounding
        return c_sum / n, 0.0
    return c_sum / n, d2 / (n - 1.0)


def absolute_loss_test(y: Any, pred: Any, weight: Any = None, *, alpha: float | None = None,
                       name: str | None = None) -> PermutationTestResult:
    r"""Asymptotic permutation test of "the weighted absolute error (``alpha`` None) or pinball
    loss of level ``alpha`` is no smaller than chance": Hoeffding's CLT of the loss sum under
    the permutations of the predictions against the (target, weight) rows (module docstring).

    >>> rng = np.random.default_rng(0)
    >>> y = rng.lognormal(size=500)
    >>> good = absolute_loss_test(y, y + rng.normal(size=500))
    >>> good.method, good.pvalue < 1e-6, absolute_loss_test(y, rng.normal(size=500), alpha=0.9).pvalue > 1e-3
    ('permutation CLT of the loss', True, True)
    """
    from ...measures.losses import PinballLoss

    h = AbsoluteErrorHistograms.of_rows(y, pred, weight)  # checks the rows
    y, pred = np.asarray(y, dtype=np.float64).ravel(), np.asarray(pred, dtype=np.float64).ravel()
    w = np.ones(y.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64).ravel()
    u = y - pred
    a, b = loss_weights(alpha)
    observed = float(np.dot(w, np.where(u >= 0, a * u, -b * u)))
    if name is None:
        name = "mae" if alpha is None else PinballLoss(alpha).name
    return h.test(observed, alpha, name=name)
