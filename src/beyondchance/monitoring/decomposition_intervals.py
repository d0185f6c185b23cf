r"""The intervals of the decomposition (:mod:`beyondchance.monitoring.decomposition`): BCa
intervals of a bootstrap statistic shifted onto its exact estimate, the p-value that inverts
them, and the classifier effect of the ROC and PR AUCs on the logit scale.

**Near the ceiling** the BCa interval of the classifier effect of an AUC,
:math:`d = A_{obs} - A_{exp}`, undercovers: with a classifier of ROC AUC 0.9994 and no
change between the reference and the window, the interval held 0 in 0.815–0.943 of windows
at a nominal 0.95, the logit interval below in 0.905–0.975 (``benchmarks/sim_monitoring.py
--parts ceiling``; docs/monitoring.md).  The ROC AUC now takes the interval of its
classifier-change test instead (:func:`~beyondchance.monitoring.classifier_change.roc_auc_test`,
0.953–0.975); the PR AUC keeps the logit interval (0.943–0.970, 400 windows per cell), as
does a ROC AUC of scores with two distinct values or fewer (no test).
A set whose AUC came out higher has fewer misordered pairs, so its bootstrap spread is
smaller: the bootstrap distribution of the difference is skewed away from 0 exactly when
the estimate is, and BCa's bias correction and acceleration (estimated from the same data)
do not undo it.  The AUCs of :data:`LOGIT_SCALE` therefore get their classifier effect's
interval on the logit scale, where an AUC's spread grows as it nears 1 — the
transformation behind the logit interval of an AUC (Altman et al. 2000, *Statistics with
Confidence*, ch. 10; Pepe 2003, ch. 5; compared with the other intervals of an AUC by Qin &
Hotilovac 2008, Stat. Methods Med. Res. 17:207–221), here applied to the bootstrap of a
difference: the BCa interval :math:`[L, U]` of

.. math::

    \delta = \operatorname{logit} A_{obs} - \operatorname{logit} A_{exp}, \qquad
    \operatorname{logit} A = \log\frac{A}{1 - A},

from the same resamples and jackknife (each transformed), shifted onto the exact
:math:`\hat\delta`, is carried back to the difference scale at the expected value,

.. math::

    \left[\, \operatorname{expit}(\operatorname{logit} \hat A_{exp} + L) - \hat A_{exp},\;
           \operatorname{expit}(\operatorname{logit} \hat A_{exp} + U) - \hat A_{exp} \,\right],

(:math:`\hat A_{exp}` read as below) so that it holds 0 exactly when :math:`[L, U]` does.  An AUC of 0 or 1 (no misordered
pair, in a set or a resample) is kept half a pair from the end: :math:`A` is clipped to
:math:`[\tfrac12 / (PN),\, 1 - \tfrac12 / (PN)]`, P and N the rows of each class of the set
whose curve it is (the empirical logit's half count; Cox & Snell 1989, *Analysis of Binary Data*).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> obs, exp = 1 - rng.gamma(4, 1e-4, 2000), 1 - rng.gamma(4, 1e-4, 2000)  # two AUCs near 1
>>> ci = logit_difference_interval(0.9996, 0.9996, 0.9996, 0.9996, obs, exp, 0.95, None, (10**5, 10**5))
>>> ci.method, bool(ci.low < 0 < ci.high), bool(ci.high < 1 - 0.9996)
('percentile-logit', True, True)
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from scipy import stats as sps
from scipy.special import expit, logit

from ..inference.bootstrap import _acceleration_of_samples
from ..inference.bootstrap import _interval as _bca_interval
from ..inference.confidence_interval import ConfidenceInterval

__all__ = ["bca_pvalue", "LOGIT_SCALE", "empirical_logit", "logit_difference_interval"]

#: the metrics whose classifier effect's interval is computed on the logit scale
LOGIT_SCALE = ("roc_auc", "pr_auc")


def _interval(exact: float, binned: float, draws: np.ndarray, level: float,
              jackknife: Sequence[tuple[Any, Any]] | None = None) -> ConfidenceInterval | None:
    """BCa interval of the binned statistic, shifted by the binning error; None when the
    statistic is undefined in more than a tenth of the resamples.

    ``jackknife``: per independent sample, (jackknife values, multiplicities) for the
    acceleration (``uncertainty._acceleration_of_samples``); ẑ₀ counts the resamples below
    the binned estimate (Efron & Tibshirani 1993, ch. 14.3).  None: the percentile interval."""
    draws = np.asarray(draws, dtype=np.float64).reshape(-1)
    n = draws.size
    draws = draws[np.isfinite(draws)]
    if not math.isfinite(exact) or draws.size < max(0.9 * n, 10):
        return None
    centre = binned if math.isfinite(binned) else exact
    if jackknife is None:
        method = "percentile"
        lo, hi, _ = _bca_interval(draws, centre, level, method, None)
    else:
        method = "bca"
        lo, hi, _ = _bca_interval(draws, centre, level, method, _acceleration_of_samples(jackknife))
    return ConfidenceInterval(float(lo + exact - centre), float(hi + exact - centre), float(level), method)


def bca_pvalue(exact: float, binned: float, draws: np.ndarray,
                jackknife: Sequence[tuple[Any, Any]] | None = None) -> float:
    r"""Two-sided p-value of "the quantity is 0" that inverts :func:`_interval`: the smallest
    1 − level at which its (shifted) BCa interval excludes 0.

    0 sits at :math:`v = \hat\theta_{binned} - \hat\theta` in the bootstrap distribution
    :math:`G^*`; with :math:`w = \Phi^{-1}(G^*(v)) - \hat z_0` the BCa level that maps to it is
    :math:`\Phi(z)`, :math:`z = w / (1 + a w) - \hat z_0` (inverting
    :math:`\Phi(\hat z_0 + (\hat z_0 + z)/(1 - a(\hat z_0 + z)))`, Efron & Tibshirani 1993,
    ch. 14.3), and :math:`p = 2\min(\Phi(z), 1 - \Phi(z))`; :math:`G^*` and
    :math:`\hat z_0` count ties ½ as :func:`_interval` does, and both are kept within ½ draw
    of 0 and 1 (every draw on one side of 0 gives about 1 / B, not 0; every draw on one side
    of the estimate, where :func:`_interval` falls back to an end of the distribution, a
    finite ẑ₀).  nan where :func:`_interval` gives no interval (the estimate undefined, or
    the statistic in fewer than 90% of the draws), and where 1 + â·w ≤ 0 (an acceleration
    so large that the BCa map does not reach 0).

    >>> rng = np.random.default_rng(0)
    >>> draws = rng.normal(0.03, 0.01, 4000)
    >>> p = bca_pvalue(0.03, 0.03, draws)
    >>> bool(0.002 < p < 0.004)  # 3 standard errors: 2·Φ(−3) = 0.0027
    True
    """
    draws = np.asarray(draws, dtype=np.float64).reshape(-1)
    n = draws.size
    draws = draws[np.isfinite(draws)]
    if not math.isfinite(exact) or draws.size < max(0.9 * n, 10):
        return float("nan")
    centre = binned if math.isfinite(binned) else exact

    def below(x: float) -> float:
        return (np.count_nonzero(draws < x) + np.count_nonzero(draws <= x)) / (2 * draws.size)

    half = 0.5 / draws.size  # every draw on one side: as if half of one were beyond

    def level(x: float) -> float:
        return float(sps.norm.ppf(min(max(below(x), half), 1 - half)))

    z0 = 0.0
    a = 0.0
    if jackknife is not None:
        z0 = level(centre)
        a = _acceleration_of_samples(jackknife)
        a = a if math.isfinite(a) else 0.0
    w = level(centre - exact) - z0
    if 1 + a * w <= 0:  # beyond the range of the BCa map (|â| ≥ 1/|w|): no level maps to 0
        return float("nan")
    z = w / (1 + a * w) - z0
    return float(min(1.0, 2 * min(sps.norm.cdf(z), sps.norm.sf(z))))



def empirical_logit(value: Any, pairs: float) -> np.ndarray:
    r""":math:`\operatorname{logit} A` of an AUC from ``pairs`` = P·N pairs of rows, A clipped
    to :math:`[\tfrac12 / (PN), 1 - \tfrac12 / (PN)]` (half a pair from 0 and 1).

    >>> empirical_logit([0.5, 1.0], 100).round(3).tolist()  # 1 is read as 1 − 1/200: log(199)
    [0.0, 5.293]
    """
    eps = 0.5 / max(float(pairs), 1.0)
    return logit(np.clip(np.asarray(value, dtype=np.float64), eps, 1 - eps))


def _logit_jackknife(jackknife: Any, pairs: tuple[float, float]) -> list[tuple[Any, Any]] | None:
    """The jackknife of δ per sample from that of d ("clf") and A_exp ("exp"):
    ``jackknife`` = {"clf": [(d, w), ...], "exp": [(A_exp, w), ...]}, A_obs = d + A_exp."""
    if jackknife is None:
        return None
    return [(empirical_logit(np.asarray(d) + e, pairs[1]) - empirical_logit(e, pairs[0]), w)
            for (d, w), (e, _) in zip(jackknife["clf"], jackknife["exp"])]


def logit_difference_interval(value: float, expected: float, binned_value: float, binned_expected: float,
                              obs_draws: Any, exp_draws: Any, level: float, jackknife: Any,
                              pairs: tuple[float, float]) -> ConfidenceInterval | None:
    r"""The interval of the classifier effect ``value − expected`` of an AUC, computed on the
    logit scale (the module's formula): the BCa interval (:func:`_interval`) of
    :math:`\delta = \operatorname{logit} A_{obs} - \operatorname{logit} A_{exp}` from the
    replicates ``obs_draws``, ``exp_draws`` (percentile without ``jackknife``), carried back
    to the difference scale at ``expected``.  ``pairs``: P·N of the reference (whose curve
    gives ``expected``) and of the test set; ``jackknife``: {"clf": ..., "exp": ...} as
    :func:`beyondchance.monitoring.decomposition._jackknife_of_decomposition` gives them, or None.
    Method ``"bca-logit"`` (``"percentile-logit"``); None where :func:`_interval` gives none.
    """
    pr, pt = pairs
    if not (math.isfinite(value) and math.isfinite(expected)):
        return None
    # each AUC's replicates shifted onto its exact estimate first: pooled scores add ties to both
    # sets alike, which the logit would compress, so the binning error is removed on the AUC scale
    shift_o = value - binned_value if math.isfinite(binned_value) else 0.0
    shift_e = expected - binned_expected if math.isfinite(binned_expected) else 0.0
    with np.errstate(invalid="ignore"):
        delta = float(empirical_logit(value, pt) - empirical_logit(expected, pr))
        draws = (empirical_logit(np.asarray(obs_draws, float) + shift_o, pt)
                 - empirical_logit(np.asarray(exp_draws, float) + shift_e, pr))
    ci = _interval(delta, delta, draws, level, _logit_jackknife(jackknife, pairs))
    if ci is None:
        return None
    anchor = float(empirical_logit(expected, pr))
    base = float(expit(anchor))
    return ConfidenceInterval(float(expit(anchor + ci.low) - base), float(expit(anchor + ci.high) - base),
                              ci.level, ci.method + "-logit")
