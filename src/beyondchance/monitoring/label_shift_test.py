r"""Is a window's score distribution a mixture of the reference's classes?  The label-shift
assumption's goodness-of-fit test, and its power against a weaker classifier.

Under label shift the window's scores follow :math:`G_\pi = \pi F_1 + (1-\pi) F_0`, the
reference's class-conditional distributions mixed at the window's prevalence.  The test fits
:math:`\pi` by maximum likelihood (``mixture_bins._em``, Saerens,
Latinne & Decaestecker 2002, on the estimate's 10 score bins) and compares the window's
cumulative distribution with the fit's on 20 bins of adjacent scores
(:func:`class_balanced_bins`: equal weight under :math:`(F_1 + F_0)/2`, so that both
classes' score ranges are resolved whatever the prevalence), by the Anderson–Darling
statistic for a discrete distribution (Choulakian, Lockhart & Stephens 1994, "Cramér–von
Mises statistics for discrete distributions", Canadian Journal of Statistics 22(1),
125–137): with :math:`\hat g_j` the fitted mixture's
probability of bin j (bins by decreasing score), :math:`o_j` the window's share,
:math:`S_j = \sum_{k \le j} (o_k - \hat g_k)` and :math:`H_j = \sum_{k \le j} \hat g_k`,

.. math:: A^2 = m \sum_{j=1}^{K-1} \frac{S_j^2\, \hat g_j}{H_j (1 - H_j)},

m the window's rows.  Its null distribution is a parametric bootstrap (Stute, González
Manteiga & Presedo Quindimil 1993, "Bootstrap based goodness-of-fit tests", Metrika 40,
243–256): windows of m rows drawn from the fitted mixture, the reference's rows resampled
(its class-conditional distributions are estimates too), π refitted and :math:`A^2`
recomputed in each; the p-value is :math:`(1 + \#\{A^{2*} \ge A^2\})/(1 + B)`.

Why this statistic.  A concept shift — the positives' scores weaker, say — makes the window
look like fewer positives: refitting π absorbs most of the change, and what is left is a
smooth misfit of the score distribution's shape.  Pearson's chi-square on 20 bins spreads
its power over 19 directions; the cumulative statistics concentrate on the smooth ones, and
the Anderson–Darling weight reaches the ends, where a shift of one class shows.  The fit by
maximum likelihood leaves the smallest misfit under label shift, so what remains is the
concept shift's.  Measured (``benchmarks/sim_monitoring.py --parts label-shift-test``,
docs/monitoring.md, 100 replicates per cell): against a 25% drop of the positives' binormal
separation in windows of 2,000 rows the Anderson–Darling test rejected 0.66 of windows, the
chi-square it replaces 0.50; under pure label shift 18 of 600 windows (the chi-square 30).
The bins matter: on 20 bins of equal *pooled* reference weight, a reference with 3%
positives has one or two bins where its positives score, and a covariate shift that makes
the window mostly positives (``sim_monitoring.py --parts assumption``, default data, γ = 2,
5,000 rows, 200 draws, seed 32) went unseen in 14 of 30 windows; on class-balanced bins in 0
of 30 (the old chi-square: 0 of 30), at no loss against the binormal concept shift (25%
weaker positives, 2,000 rows: rejected in 67 vs 65 of 100 windows, seed 1).

What no test can see.  A window whose positives score like a mixture of the reference's
positives and negatives (some positives now indistinguishable from negatives) *is* a mixture
of :math:`F_1` and :math:`F_0`: label shift and that concept shift give the same scores.  A
small window cannot tell even the detectable ones apart: :func:`label_shift_test` also gives
the test's power against a stated concept shift (:func:`weaker_positives`), so the estimate
can say when its silence means little.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .set_statistics import SetStatistics
from .mixture_bins import _em, _window_bins

__all__ = ["LabelShiftTest", "class_balanced_bins", "label_shift_test", "mixture_anderson_darling", "mixture_chi2",
           "weaker_positives", "CONCEPT_SHIFT", "POWER_TARGET"]

#: the concept shift the test's power is stated against: the positives' scores moved this far
#: towards the negatives' (:func:`weaker_positives`)
CONCEPT_SHIFT = 0.25
#: below this power against :data:`CONCEPT_SHIFT` a window that passes the test is too small to
#: tell label shift from concept shift
POWER_TARGET = 0.8
#: quantile levels of :func:`weaker_positives`
_QUANTILE_LEVELS = 2000


def class_balanced_bins(ref: SetStatistics, bins: int) -> np.ndarray:
    r"""Starts of at most ``bins`` groups of adjacent reference bins of nearly equal weight under
    :math:`(F_1 + F_0)/2` (each class's share of its own total): about half the groups cover
    where the positives score and half where the negatives do, whatever the prevalence.

    >>> from beyondchance.measures.curves import threshold_counts
    >>> y = np.r_[np.ones(10), np.zeros(90)]                 # 10% positives, all above the negatives
    >>> ref = SetStatistics.from_counts(threshold_counts(y, np.arange(100.0)[::-1]), threshold=50)
    >>> class_balanced_bins(ref, 4).tolist()                 # two groups of 5 positives, two of 45 negatives
    [0, 5, 10, 55]
    """
    weight = ref.pos / ref.pos.sum() + ref.neg / ref.neg.sum()
    cum = np.cumsum(weight)
    edges = np.searchsorted(cum, cum[-1] * np.arange(1, bins) / bins, side="left") + 1
    return np.unique(np.r_[0, edges[edges < cum.shape[0]]])


def _fitted_mixture(ref_pos: np.ndarray, ref_neg: np.ndarray, window: np.ndarray,
                    pi: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(window's shares, the fit's bin probabilities, window rows), arrays (B, K), (B, K), (B, 1)."""
    rp, rn, w = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (ref_pos, ref_neg, window))
    p = np.atleast_1d(np.asarray(pi, dtype=np.float64))[:, None]
    m = w.sum(1, keepdims=True)
    g = p * rp / rp.sum(1, keepdims=True) + (1 - p) * rn / rn.sum(1, keepdims=True)
    return w / m, g, m


def mixture_anderson_darling(ref_pos: np.ndarray, ref_neg: np.ndarray, window: np.ndarray, pi: Any) -> Any:
    r"""The discrete Anderson–Darling statistic :math:`A^2` (module docstring) of the window's
    weights per bin against the mixture :math:`\pi F_1 + (1-\pi) F_0` of the reference's
    class-conditional bin probabilities.  Arrays (B, K) or (K,) by decreasing score; returns
    (B,) (or a float for a scalar ``pi``).

    >>> pos, neg = np.array([6.0, 3, 1]), np.array([1.0, 3, 6])
    >>> mixture_anderson_darling(pos, neg, 10 * (0.5 * pos / 10 + 0.5 * neg / 10), 0.5)  # the mixture itself
    0.0
    >>> # middle-heavy: g = (.35, .3, .35), o = (.2, .6, .2), S = (-.15, .15), H = (.35, .65):
    >>> # 10 (.15² · .35 / (.35 · .65) + .15² · .3 / (.65 · .35))
    >>> round(mixture_anderson_darling(pos, neg, np.array([2.0, 6, 2]), 0.5), 3)
    0.643
    """
    o, g, m = _fitted_mixture(ref_pos, ref_neg, window, pi)
    s = np.cumsum(o - g, axis=1)[:, :-1]
    h = np.cumsum(g, axis=1)[:, :-1]
    tails = np.maximum(h * (1 - h), 1e-12)
    stat = m[:, 0] * np.sum(s * s * g[:, :-1] / tails, axis=1)
    return stat if np.ndim(pi) else float(stat[0])


def mixture_chi2(ref_pos: np.ndarray, ref_neg: np.ndarray, window: np.ndarray, pi: Any) -> Any:
    """Pearson's chi-square between the window's weights per bin and the fitted mixture (the
    test before the Anderson–Darling statistic; kept for the benchmark's comparison).  Arrays
    (B, K) or (K,); returns (B,) (or a float).

    >>> # g = (.35, .3, .35), o = (.2, .6, .2): 10 (2 · .15² / .35 + .3² / .3)
    >>> round(mixture_chi2(np.array([6.0, 3, 1]), np.array([1.0, 3, 6]), np.array([2.0, 6, 2]), 0.5), 3)
    4.286
    """
    o, g, m = _fitted_mixture(ref_pos, ref_neg, window, pi)
    stat = m[:, 0] * np.sum((o - g) ** 2 / np.maximum(g, 1e-12), axis=1)
    return stat if np.ndim(pi) else float(stat[0])


def weaker_positives(ref: SetStatistics, shift: float = CONCEPT_SHIFT) -> np.ndarray:
    r"""The positives' probability per reference bin after their scores moved a share ``shift``
    of the way to the negatives', quantile by quantile:

    .. math:: F_1'^{-1}(v) = (1 - \delta)\,F_1^{-1}(v) + \delta\,F_0^{-1}(v)

    (the displacement interpolation of the two distributions).  For binormal scores,
    :math:`F_c = N(\mu_c, \sigma^2)`, it is exactly the separation
    :math:`d = (\mu_1 - \mu_0)/\sigma` dropping by a share δ; on any scores it moves the
    positives towards the negatives on the classifier's score scale.  The quantiles are those
    of the reference's bins (each bin's middle score), at 2,000 levels.

    >>> import numpy as np
    >>> from beyondchance.measures.curves import threshold_counts
    >>> s = np.r_[np.arange(10.0), np.arange(10.0) + 10]
    >>> y = np.r_[np.zeros(10), np.ones(10)]
    >>> ref = SetStatistics.from_counts(threshold_counts(y, s), threshold=10)
    >>> f1 = weaker_positives(ref, 0.5)          # the positives now score 5 … 14
    >>> float(f1.sum()), float(f1[:5].sum()), float(f1[5:15].sum())   # bins by decreasing score
    (1.0, 0.0, 1.0)
    """
    assert ref.bin_scores is not None  # a reference of scores
    mid = ref.bin_scores.mean(axis=1)[::-1]  # increasing score
    levels = (np.arange(_QUANTILE_LEVELS) + 0.5) / _QUANTILE_LEVELS

    def quantiles(weights: np.ndarray) -> np.ndarray:
        cum = np.cumsum(weights[::-1])
        return mid[np.minimum(np.searchsorted(cum / cum[-1], levels, side="left"), mid.shape[0] - 1)]

    moved = (1 - shift) * quantiles(ref.pos) + shift * quantiles(ref.neg)
    return np.bincount(_window_bins(ref, moved), minlength=ref.pos.shape[0]) / _QUANTILE_LEVELS


@dataclass(frozen=True)
class LabelShiftTest:
    """The label-shift test of one window (:func:`label_shift_test`): ``statistic`` :math:`A^2`
    at the fitted ``prevalence``, its parametric-bootstrap ``pvalue`` from ``n_resamples``
    draws, and ``power``, the share of windows of the same rows with the positives
    :data:`CONCEPT_SHIFT` weaker (:func:`weaker_positives`) at the fitted prevalence that the
    test rejects at ``alpha`` (nan when the reference does not order the classes)."""

    statistic: float
    pvalue: float
    prevalence: float
    power: float
    alpha: float
    n_resamples: int


def label_shift_test(ref: SetStatistics, window: np.ndarray, n_window: int, em_groups: np.ndarray,
                     test_groups: np.ndarray, n_resamples: int, rng: np.random.Generator,
                     alpha: float = 0.05) -> LabelShiftTest:
    r"""The goodness-of-fit test of the label-shift mixture (module docstring) and its power.

    ``ref`` the reference's cells, ``window`` the window's weights per reference bin (K,),
    ``n_window`` its rows, ``em_groups`` / ``test_groups`` the starts of the bins EM fits π on
    and of the bins :math:`A^2` reads.  The draws, in order: B windows from the fitted mixture
    (counts in the union of both sets of bins), B resamples of the reference's rows (paired
    with them: the null), B windows with weaker positives (paired with the same resampled
    references: the power).

    >>> import numpy as np
    >>> from beyondchance.measures.curves import threshold_counts
    >>> from beyondchance.monitoring.label_free import _coarse, _window_counts
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(4000) < 0.3).astype(int)
    >>> ref = SetStatistics.from_counts(threshold_counts(y, rng.normal(2 * y, 1)), threshold=1.0)
    >>> label_shift = rng.normal(2 * (rng.random(2000) < 0.1), 1)
    >>> concept_shift = rng.normal(1.0 * (rng.random(2000) < 0.3), 1)  # positives half as separated
    >>> tests = [label_shift_test(ref, _window_counts(ref, s, np.ones(2000)), 2000, _coarse(ref, 10),
    ...                           class_balanced_bins(ref, 20), 500, np.random.default_rng(1))
    ...          for s in (label_shift, concept_shift)]
    >>> [bool(t.pvalue > 0.05) for t in tests]           # passes label shift, rejects the weaker positives
    [True, False]
    >>> 0.1 < tests[0].power < 0.8   # but 2,000 rows catch a 25% weakening only sometimes
    True
    """
    # every draw on the union of both sets of bins (a window's counts per bin are multinomial
    # whatever the grouping, and fewer cells are cheaper); the reference is resampled row by row
    starts = np.union1d(test_groups, em_groups).astype(np.intp)
    at_test, at_em = np.searchsorted(starts, test_groups), np.searchsorted(starts, em_groups)

    def grouped(x: np.ndarray, at: np.ndarray = starts) -> np.ndarray:
        return np.add.reduceat(np.atleast_2d(x), at, axis=1)

    def fit(r_pos: np.ndarray, r_neg: np.ndarray, w: np.ndarray) -> np.ndarray:
        return _em(grouped(r_pos, at_em), grouped(r_neg, at_em), grouped(w, at_em))

    def statistic(r_pos: np.ndarray, r_neg: np.ndarray, w: np.ndarray, pi: Any) -> Any:
        return mixture_anderson_darling(grouped(r_pos, at_test), grouped(r_neg, at_test), grouped(w, at_test), pi)

    r_pos, r_neg, win = grouped(ref.pos), grouped(ref.neg), grouped(window)
    pi_hat = float(fit(r_pos, r_neg, win)[0])
    stat = float(statistic(r_pos, r_neg, win, pi_hat))
    f1, f0 = r_pos[0] / r_pos.sum(), r_neg[0] / r_neg.sum()
    mix = pi_hat * f1 + (1 - pi_hat) * f0
    null_win = rng.multinomial(n_window, mix / mix.sum(), size=n_resamples).astype(np.float64)
    null_ref = ref.resample(n_resamples, rng)
    null_pos, null_neg = grouped(null_ref.pos), grouped(null_ref.neg)
    null_stat = np.sort(statistic(null_pos, null_neg, null_win, fit(null_pos, null_neg, null_win)))
    pvalue = float((1 + n_resamples - np.searchsorted(null_stat, stat, side="left")) / (1 + n_resamples))

    power = float("nan")
    if float(np.sum(f1 * (np.cumsum(f0) - f0 / 2))) < 0.5:  # positives above negatives (bins by decreasing score)
        shifted = pi_hat * grouped(weaker_positives(ref))[0] + (1 - pi_hat) * f0
        alt_win = rng.multinomial(n_window, shifted / shifted.sum(), size=n_resamples).astype(np.float64)
        alt_stat = statistic(null_pos, null_neg, alt_win, fit(null_pos, null_neg, alt_win))
        alt_p = (1 + n_resamples - np.searchsorted(null_stat, alt_stat, side="left")) / (1 + n_resamples)
        power = float(np.mean(alt_p <= alpha))
    return LabelShiftTest(stat, pvalue, pi_hat, power, float(alpha), int(n_resamples))
