r"""The result of a permutation test of "no better than chance", and the p-values and null
summaries it is built from: of an exact null law (values and their probabilities), of Monte
Carlo draws of the null — p = (1 + #{M* at least as good}) / (B + 1), with its standard
error — and of a normal approximation of the permutation law (:func:`normal_test`, the
permutation CLTs).  Every test of :mod:`beyondchance.inference.permutation` returns a
:class:`PermutationTestResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as _sps

from ..._summary_display import SummaryDisplay, display_name, format_number

__all__ = ["PermutationTestResult", "normal_test"]


@dataclass(frozen=True)
class PermutationTestResult(SummaryDisplay):
    """The permutation test of "no better than chance"
    (:func:`~beyondchance.inference.permutation.permutation_test.permutation_test`).

    Attributes
    ----------
    measure : name
    statistic : the measure on the test set
    pvalue : one-sided: by default (``mid_p=True``) the mid-p-value
        P(M* better) + P(M* = statistic) / 2 of the exact tests, else P(M* at least as good)
    method : ``"exact mid-p"``, ``"exact"``, ``"mcnemar mid-p"``, ``"mcnemar"``,
        ``"monte-carlo"`` or ``"binomial"``
    pvalue_standard_error : Monte Carlo standard error of the p-value (0 when exact)
    n_resamples : Monte Carlo draws (None when exact)
    null_mean, null_std : mean and standard deviation of the null distribution: the
        measure's chance value on this test set
    null_quantiles : the null's 5%, 50% and 95% quantiles
    greater_is_better : direction
    pvalue_conservative : P(M* at least as good): the exact test's p-value, valid (its
        rejection rate never exceeds the level) but conservative when the null is coarse;
        equals ``pvalue`` for the Monte Carlo and binomial tests
    """

    measure: str
    statistic: float
    pvalue: float
    method: str
    pvalue_standard_error: float
    n_resamples: int | None
    null_mean: float
    null_std: float
    null_quantiles: tuple[float, float, float]
    greater_is_better: bool
    pvalue_conservative: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure, "statistic": self.statistic, "pvalue": self.pvalue, "method": self.method,
            "pvalue_conservative": self.pvalue_conservative,
            "pvalue_standard_error": self.pvalue_standard_error, "n_resamples": self.n_resamples,
            "null_mean": self.null_mean, "null_std": self.null_std, "null_quantiles": list(self.null_quantiles),
            "greater_is_better": self.greater_is_better,
        }

    def _summary_title(self) -> str:
        name = display_name(self.measure)
        if not math.isfinite(self.statistic):
            return f"{name} is undefined on this test set: nothing to test."
        return (f"{name} = {format_number(self.statistic)} against {format_number(self.null_mean)} by chance; "
                f"p = {self.pvalue:.3g} of no better than chance ({self.method}, one-sided)")

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [
            ("statistic", self.statistic), ("p-value", self.pvalue), ("conservative p-value", self.pvalue_conservative),
            ("method", self.method)]
        if self.n_resamples is not None:
            rows += [("resamples", self.n_resamples), ("p-value standard error", self.pvalue_standard_error)]
        q5, q50, q95 = self.null_quantiles
        return rows + [("chance: mean, sd", f"{format_number(self.null_mean)}, {format_number(self.null_std)}"),
                       ("chance: 5%, 50%, 95%", f"{format_number(q5)}, {format_number(q50)}, {format_number(q95)}"),
                       ("better", "higher" if self.greater_is_better else "lower")]


def _summary(values: np.ndarray, prob: np.ndarray) -> tuple[float, float, tuple[float, float, float]]:
    """Mean, standard deviation and 5/50/95% quantiles of a discrete distribution."""
    ok = np.isfinite(values) & (prob > 0)
    if not ok.any():  # undefined under every permutation (e.g. precision when nothing is predicted positive)
        return float("nan"), float("nan"), (float("nan"),) * 3
    v, p = values[ok], prob[ok] / prob[ok].sum()
    order = np.argsort(v, kind="stable")
    v, p = v[order], p[order]
    mean = float(np.dot(v, p))
    std = float(math.sqrt(max(np.dot((v - mean) ** 2, p), 0.0)))
    cdf = np.cumsum(p)
    q5, q50, q95 = (float(v[min(np.searchsorted(cdf, t - 1e-12), v.size - 1)]) for t in (0.05, 0.5, 0.95))
    return mean, std, (q5, q50, q95)


def _tail(values: np.ndarray, observed: float, greater: bool) -> np.ndarray:
    """Whether each null value is at least as good as the observed one (ties count)."""
    tol = 1e-12 * max(1.0, abs(observed))
    with np.errstate(invalid="ignore"):
        return values >= observed - tol if greater else values <= observed + tol


def _exact_pvalues(values: np.ndarray, prob: np.ndarray, observed: float, greater: bool) -> tuple[float, float]:
    """(P(M* at least as good), the mid-p-value P(M* better) + P(M* = M_obs) / 2)."""
    tail = _tail(values, observed, greater)
    p = float(prob[tail].sum())
    equal = _tail(values, observed, not greater) & tail  # equal to the observed value
    return min(1.0, p), min(1.0, p - 0.5 * float(prob[equal].sum()))


def _monte_carlo(name: str, observed: float, vals: np.ndarray, greater: bool) -> PermutationTestResult:
    b = vals.size
    p = (1.0 + float(_tail(vals, observed, greater).sum())) / (b + 1.0)
    se = math.sqrt(p * (1 - p) / b)
    return _result(name, observed, p, "monte-carlo", se, b, vals, np.full(b, 1.0 / b), greater)


def _result(name: str, observed: float, p: float, method: str, se: float, b: int | None, values: np.ndarray,
            prob: np.ndarray, greater: bool, conservative: float | None = None) -> PermutationTestResult:
    conservative = p if conservative is None else conservative
    if not math.isfinite(observed):  # the measure is undefined on the test set: nothing to test
        p = se = conservative = float("nan")
    mean, std, q = _summary(values, prob)
    return PermutationTestResult(measure=name, statistic=observed, pvalue=float(p), method=method,
                                 pvalue_conservative=float(conservative),
                                 pvalue_standard_error=float(se), n_resamples=b, null_mean=mean, null_std=std,
                                 null_quantiles=q, greater_is_better=greater)


def normal_test(name: str, observed: float, mean: float, var: float, total: float = 1.0, *,
                method: str = "permutation CLT", greater_is_better: bool = False) -> PermutationTestResult:
    r"""The one-sided test of a statistic whose permutation law is approximated by the normal
    law of mean ``mean`` and variance ``var`` (sums over the rows; the result's statistic and
    null moments divided by ``total``): p = Φ((T − E T)/sd) for a loss, 1 − Φ(·) when
    ``greater_is_better``; 1 when the null has no spread (constant predictions, to rounding).

    >>> r = normal_test("mae", 90.0, 100.0, 25.0, total=50.0)
    >>> round(r.pvalue, 6), r.statistic, r.null_mean
    (0.02275, 1.8, 2.0)
    """
    sd = math.sqrt(max(var, 0.0))
    if sd <= 1e-9 * abs(mean):
        pvalue = 1.0
    else:
        z_obs = (observed - mean) / sd
        pvalue = float(_sps.norm.sf(z_obs) if greater_is_better else _sps.norm.cdf(z_obs))
    z = 1.6448536269514722
    return PermutationTestResult(
        measure=name, statistic=observed / total, pvalue=pvalue, method=method, pvalue_standard_error=0.0,
        n_resamples=None, null_mean=mean / total, null_std=sd / total,
        null_quantiles=((mean - z * sd) / total, mean / total, (mean + z * sd) / total),
        greater_is_better=greater_is_better, pvalue_conservative=pvalue)
