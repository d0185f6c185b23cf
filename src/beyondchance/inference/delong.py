r"""DeLong's test of two correlated ROC AUCs, with the fast O(n log n) algorithm of Sun & Xu.

Two (or more) scores of the same test set: positives :math:`X_{r,1..m}`, negatives
:math:`Y_{r,1..n}` of model :math:`r`.  With :math:`\psi(x, y) = 1` if :math:`x > y`,
:math:`\tfrac12` if equal, 0 otherwise, the AUC is the Mann–Whitney statistic
:math:`\hat\theta_r = \frac{1}{mn}\sum_{i,j}\psi(X_{r,i}, Y_{r,j})`; DeLong, DeLong &
Clarke-Pearson (1988) estimate the covariance of :math:`(\hat\theta_r)` from the
*structural components*

.. math::

    V^{10}_{r,i} = \frac1n \sum_j \psi(X_{r,i}, Y_{r,j}),\qquad
    V^{01}_{r,j} = \frac1m \sum_i \psi(X_{r,i}, Y_{r,j}),\qquad
    S = \frac{S^{10}}{m} + \frac{S^{01}}{n},

:math:`S^{10}`, :math:`S^{01}` the sample covariance matrices (denominator m − 1, n − 1)
of the components.  Sun & Xu (2014, IEEE Signal Processing Letters 21(11), eq. 7–10)
compute the components from mid-ranks in O(n log n): with :math:`T_Z` the mid-rank of a
score among all m + n scores, :math:`T_X` among the positives, :math:`T_Y` among the
negatives,

.. math::

    V^{10}_{i} = \frac{T_Z(X_i) - T_X(X_i)}{n},\qquad
    V^{01}_{j} = 1 - \frac{T_Z(Y_j) - T_Y(Y_j)}{m},\qquad
    \hat\theta = \frac{\sum_i T_Z(X_i) - m(m+1)/2}{mn}.

The test of :math:`\theta_a = \theta_b` uses
:math:`z = (\hat\theta_b - \hat\theta_a) / \sqrt{S_{aa} + S_{bb} - 2S_{ab}}`, standard
normal under the null.

Sample weights: only frequency weights (non-negative integers), which mean repeated
rows; other weights are refused, because the structural components have no agreed
definition for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import stats as _sps

from .._validation import (
    as_float_1d,
    binary_target,
    check_consistent_length,
    check_frequency_weights,
    check_option,
    check_unit_interval,
)
from .._summary_display import SummaryDisplay, format_interval, format_number
from .._warnings import InvalidInputError
from .confidence_interval import ConfidenceInterval

__all__ = ["DeLongResult", "delong_test", "delong_covariance", "delong_of_arrays", "delong_variance_of_counts"]

_ALTERNATIVES: tuple[Literal["two-sided", "greater", "less"], ...] = ("two-sided", "greater", "less")


def delong_covariance(is_pos: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AUCs and DeLong covariance matrix of k score vectors (Sun & Xu's algorithm).

    Parameters
    ----------
    is_pos : (n,) bool, True for the positives (both classes present, at least two of each)
    scores : (k, n) float, one row per model

    Returns
    -------
    aucs : (k,)
    covariance : (k, k)

    >>> import numpy as np
    >>> auc, cov = delong_covariance(np.array([1, 1, 0, 0, 1, 0], bool), np.array([[.9, .6, .2, .6, .4, .1]]))
    >>> float(auc[0]), round(float(cov[0, 0]), 6)
    (0.8333333333333334, 0.037037)
    """
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    x, y = scores[:, is_pos], scores[:, ~is_pos]
    m, n = x.shape[1], y.shape[1]
    tz = _sps.rankdata(scores, axis=1)  # mid-ranks: ties count one half, O(n log n)
    tx = _sps.rankdata(x, axis=1)
    ty = _sps.rankdata(y, axis=1)
    tzx, tzy = tz[:, is_pos], tz[:, ~is_pos]
    aucs = (tzx.sum(axis=1) - m * (m + 1) / 2.0) / (m * n)
    v10 = (tzx - tx) / n
    v01 = 1.0 - (tzy - ty) / m
    s10 = np.atleast_2d(np.cov(v10))
    s01 = np.atleast_2d(np.cov(v01))
    return aucs, s10 / m + s01 / n


@dataclass(frozen=True)
class DeLongResult(SummaryDisplay):
    """DeLong's test of two correlated ROC AUCs (:func:`delong_test`).

    Attributes
    ----------
    auc_a, auc_b : the two AUCs
    difference : auc_b − auc_a
    standard_error : DeLong's standard error of the difference
    statistic : z = difference / standard_error
    pvalue : of ``alternative``
    alternative : ``"two-sided"``, ``"greater"`` (b > a) or ``"less"``
    ci : the two-sided Wald interval of the difference at ``confidence_level``, a
        :class:`~beyondchance.ConfidenceInterval` (method ``"wald"``; ``low, high = ci`` unpacks it)
    confidence_level : float
    covariance : 2×2 covariance matrix of (auc_a, auc_b)
    n_positive, n_negative : class sizes
    """

    auc_a: float
    auc_b: float
    difference: float
    standard_error: float
    statistic: float
    pvalue: float
    alternative: str
    ci: ConfidenceInterval
    confidence_level: float
    covariance: np.ndarray
    n_positive: int
    n_negative: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "auc_a": self.auc_a, "auc_b": self.auc_b, "difference": self.difference,
            "standard_error": self.standard_error, "statistic": self.statistic, "pvalue": self.pvalue,
            "alternative": self.alternative, "ci": list(self.ci), "confidence_level": self.confidence_level,
            "covariance": self.covariance.tolist(), "n_positive": self.n_positive, "n_negative": self.n_negative,
        }

    def _summary_title(self) -> str:
        return (f"ROC AUC of b − a = {self.difference:+.3f} ({self.confidence_level:.0%} CI {self.ci[0]:+.3f} to "
                f"{self.ci[1]:+.3f}): p = {self.pvalue:.3g} ({self.alternative}, DeLong's test)")

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("ROC AUC a, b", f"{format_number(self.auc_a)}, {format_number(self.auc_b)}"),
                ("difference b − a", self.difference), ("standard error", self.standard_error),
                ("z", self.statistic), ("p-value", self.pvalue), ("alternative", self.alternative),
                (f"{self.confidence_level:.0%} CI (Wald)", format_interval(self.ci)),
                ("positives, negatives", f"{self.n_positive:,}, {self.n_negative:,}")]


def delong_test(
    y_true: Any,
    y_score_a: Any,
    y_score_b: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    confidence_level: float = 0.95,
) -> DeLongResult:
    r"""DeLong's test that two scores of the same test set have equal ROC AUC.

    .. math::

        z = \frac{\hat\theta_b - \hat\theta_a}{\sqrt{S_{aa} + S_{bb} - 2S_{ab}}}

    with DeLong's covariance :math:`S` from the structural components, computed in
    O(n log n) from mid-ranks (Sun & Xu 2014; see the module docstring).  Under the
    null :math:`z \sim N(0, 1)`.

    Parameters
    ----------
    y_true : array-like (n,)
        Binary labels.
    y_score_a, y_score_b : array-like (n,)
        Scores of the two models (higher = more likely positive).
    sample_weight : array-like (n,), optional
        Frequency weights only (non-negative integers: a row of weight w counts as w
        rows); other weights are refused.
    pos_label : optional
        Positive class (default 1 / True).
    alternative : ``"two-sided"`` (default), ``"greater"`` (AUC of b > AUC of a) or ``"less"``
    confidence_level : float
        Level of the Wald interval of the difference.

    Returns
    -------
    DeLongResult

    References
    ----------
    E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson (1988), Comparing the areas under two
    or more correlated receiver operating characteristic curves, Biometrics 44(3).
    X. Sun, W. Xu (2014), Fast implementation of DeLong's algorithm for comparing the
    areas under correlated receiver operating characteristic curves, IEEE SPL 21(11).

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1, 1, 0]
    >>> a = [.1, .4, .35, .8, .2, .7, .5, .3, .9, .6]
    >>> b = [.2, .1, .6, .7, .3, .9, .4, .5, .8, .35]
    >>> r = delong_test(y, a, b)
    >>> round(r.auc_a, 3), round(r.auc_b, 3), round(r.pvalue, 3)
    (0.76, 1.0, 0.174)
    """
    alternative = check_option(alternative, "alternative", _ALTERNATIVES)
    level = float(check_unit_interval(confidence_level, "confidence_level", open_=True))
    is_pos, _ = binary_target(y_true, pos_label=pos_label)
    a = as_float_1d(y_score_a, "y_score_a")
    b = as_float_1d(y_score_b, "y_score_b")
    n = check_consistent_length(y_true=is_pos, y_score_a=a, y_score_b=b)
    try:
        w = check_frequency_weights(sample_weight, n)
    except InvalidInputError as exc:
        raise InvalidInputError(
            f"{exc}; DeLong's test takes frequency weights only (a row of weight w counts as w rows)"
        ) from None
    scores = np.vstack([a, b])
    if w is not None:
        is_pos, scores = np.repeat(is_pos, w), np.repeat(scores, w, axis=1)
    return delong_of_arrays(is_pos, scores, alternative=alternative, confidence_level=level)


def delong_variance_of_counts(tc: Any) -> tuple[float, float]:
    """(ROC AUC, its DeLong variance) of one test set from its
    :class:`~beyondchance.measures.curves.ThresholdCounts` (DeLong et al. 1988: the placement values
    V10 of the positives and V01 of the negatives, ties counting one half), in O(distinct
    scores) — the diagonal of :func:`delong_covariance` without the rows, for the unpaired
    comparison of two test sets (:mod:`beyondchance.monitoring.decomposition`).

    >>> from beyondchance.measures.curves import threshold_counts
    >>> auc, var = delong_variance_of_counts(threshold_counts([1, 1, 0, 0, 1, 0], [.9, .6, .2, .6, .4, .1]))
    >>> round(auc, 6), round(var, 6)
    (0.833333, 0.037037)
    """
    from ..measures.binary_scores import per_threshold

    _, dp, dn = per_threshold(tc)
    P, N = dp.sum(), dn.sum()
    neg_at_or_above = np.cumsum(dn)
    v10 = (N - neg_at_or_above + 0.5 * dn) / N  # for a positive: share of negatives scored lower
    pos_above = np.cumsum(dp) - dp
    v01 = (pos_above + 0.5 * dp) / P  # for a negative: share of positives scored higher
    auc = float(dp @ v10 / P)
    s10 = float(dp @ (v10 - auc) ** 2 / max(P - 1, 1))
    s01 = float(dn @ (v01 - auc) ** 2 / max(N - 1, 1))
    return auc, float(s10 / P + s01 / N)


def delong_of_arrays(is_pos: np.ndarray, scores: np.ndarray, *, alternative: str = "two-sided",
                     confidence_level: float = 0.95) -> DeLongResult:
    """:func:`delong_test` of checked arrays: ``is_pos`` (n,) bool, ``scores`` (2, n) of models a, b."""
    level = confidence_level
    m = int(is_pos.sum())
    k = int(is_pos.size - m)
    if m < 2 or k < 2:
        raise InvalidInputError(
            f"DeLong's test needs at least two positives and two negatives, got {m} and {k}"
        )
    aucs, cov = delong_covariance(is_pos, scores)
    diff = float(aucs[1] - aucs[0])
    var = float(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
    se = math.sqrt(max(var, 0.0))
    z_crit = float(_sps.norm.ppf(0.5 + level / 2))
    if se > 0:
        z = diff / se
        p = {"two-sided": 2.0 * _sps.norm.sf(abs(z)), "greater": _sps.norm.sf(z), "less": _sps.norm.cdf(z)}[alternative]
    else:  # identical rankings: the difference is 0 in every resample
        z = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        p = 1.0 if diff == 0 else {"two-sided": 0.0, "greater": float(diff < 0), "less": float(diff > 0)}[alternative]
    return DeLongResult(
        auc_a=float(aucs[0]), auc_b=float(aucs[1]), difference=diff, standard_error=se, statistic=float(z),
        pvalue=float(min(1.0, p)), alternative=alternative, ci=ConfidenceInterval(diff - z_crit * se, diff + z_crit * se, level, "wald"),
        confidence_level=level, covariance=cov, n_positive=m, n_negative=k,
    )
