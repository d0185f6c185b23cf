"""The rows of a report: :class:`MetricCI`, :class:`MetricResult` (titled by the display
names, ``beyondchance._summary_display.TITLES``) and the two numbers computed for every row
from its value, the advantage over the baseline (``_advantage``) and the outperformance
score (``_ops_of``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._warnings import InvalidInputError
from ..inference.confidence_interval import ConfidenceInterval
from ..inference.significance import beats_by_interval, rejects
from ..measures.registry import METRICS
from ..outperformance import outperformance_score
from .formatting import _num


@dataclass(frozen=True)
class MetricCI(ConfidenceInterval):
    """A report row's confidence interval and how it was obtained: a
    :class:`~beyondchance.ConfidenceInterval` (``low``, ``high``, ``level``, ``method``;
    ``low, high = ci`` unpacks it) with the resampling that made it.

    Attributes
    ----------
    n_resamples : the number of resamples (or replicates)
    resampling : what was resampled, in words
    bounds : the one-sided confidence bounds at ``level`` (lower, upper): the ends of the
        interval at level 2 · level − 1, by the same method (None where not computed)
    """

    n_resamples: int
    resampling: str
    bounds: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": _num(self.low),
            "high": _num(self.high),
            "method": self.method,
            "level": self.level,
            "n_resamples": self.n_resamples,
            "resampling": self.resampling,
            "lower_bound": None if self.bounds is None else _num(self.bounds[0]),
            "upper_bound": None if self.bounds is None else _num(self.bounds[1]),
        }


@dataclass(frozen=True)
class MetricResult:
    """One row of a report.

    Attributes
    ----------
    name : metric name (``"f1"``, ``"roc_auc"``, ``"log_loss"`` ...)
    title : display name
    kind : ``"labeling"``, ``"scoring"``, ``"loss"`` or ``"advantage"``
    value : the metric on the test set (nan when undefined)
    baseline : the best constant prediction's value
    baseline_prediction : which constant (``"always predicting 'No'"`` ...)
    ideal : a perfect predictor's value
    advantage : (value − baseline) / (ideal − baseline)
    greater_is_better : direction
    ops : outperformance score (None where OPS does not apply or is unavailable)
    ops_ci : OPS at the ends of the metric's CI, at the observed prevalence (OPS is
        monotone in the value there; an end beyond the values attainable at that
        prevalence — the bootstrap re-estimates the prevalence — counts as the range's
        end, OPS 0 or 1); :func:`beyondchance.outperformance_score_ci` gives the
        interval with the prevalence re-estimated in every resample
    ops_method : how the OPS was computed
    ci : :class:`MetricCI` (a :class:`~beyondchance.ConfidenceInterval`) or None
    verdict : one line
    word : the verdict in one word (``"better"``, ``"unclear"``, ``"worse"``,
        ``"equal"``, ``"moot"``, ``"too few"``, ``"undefined"`` or ``"n/a"``), from the row's interval and
        p-value; the accuracy row's is the prediction advantage's (the same comparison)
    pvalue : one-sided p-value of "no better than chance", from the statistics
        (classification reports of unweighted data with intervals, None elsewhere): McNemar's exact test
        against always predicting the majority class for accuracy and PA, the permutation test
        (:func:`beyondchance.permutation_test`) for the others
    pvalue_method : how it was computed
    """

    name: str
    title: str
    kind: str
    value: float
    baseline: float
    baseline_prediction: str
    ideal: float
    advantage: float
    greater_is_better: bool
    ops: float | None = None
    ops_ci: tuple[float, float] | None = None
    ops_method: str | None = None
    ci: MetricCI | None = None
    verdict: str = ""
    pvalue: float | None = None
    pvalue_method: str | None = None
    word: str = ""

    @property
    def confidence_bound(self) -> float | None:
        """The one-sided confidence bound on the side of "better": a lower bound when higher
        is better, an upper bound for losses (None without an interval)."""
        if self.ci is None or self.ci.bounds is None:
            return None
        return self.ci.bounds[0] if self.greater_is_better else self.ci.bounds[1]

    @property
    def beats_baseline(self) -> bool | None:
        """Whether the value is strictly better than the baseline (None if undefined)."""
        if not (math.isfinite(self.value) and math.isfinite(self.baseline)):
            return None
        return self.value > self.baseline if self.greater_is_better else self.value < self.baseline

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "kind": self.kind,
            "value": _num(self.value),
            "baseline": _num(self.baseline),
            "baseline_prediction": self.baseline_prediction,
            "ideal": _num(self.ideal),
            "advantage": _num(self.advantage),
            "higher_is_better": self.greater_is_better,
            "ops": _num(self.ops),
            "ops_ci": None if self.ops_ci is None else [_num(self.ops_ci[0]), _num(self.ops_ci[1])],
            "ops_method": self.ops_method,
            "ci": None if self.ci is None else self.ci.to_dict(),
            "confidence_bound": _num(self.confidence_bound),
            "pvalue": _num(self.pvalue),
            "pvalue_method": self.pvalue_method,
            "verdict": self.verdict,
            "word": self.word,
        }


def word_of(value: float, baseline: float, ideal: float, ci: Any = None, *, greater_is_better: bool = True,
            pvalue: float | None = None, alpha: float = 0.05) -> str:
    """A value's verdict against the best constant's in one word: better, worse, unclear,
    equal, moot (a constant reaches the best value), undefined (the value) or n/a (no constant
    to compare with).

    "better" needs every piece of evidence the row shows: the interval ``ci`` (low, high)
    lies on the better side of the constant
    (:func:`~beyondchance.inference.significance.beats_by_interval`) **and** the one-sided
    p-value of "no better than chance" rejects at ``alpha`` (p ≤ α,
    :func:`~beyondchance.inference.significance.rejects`).  Where the two disagree the word is
    "unclear": a verdict never says more than the row's own test.  "worse" needs the interval
    on the worse side.  Without an interval (one not computed, or with an end not finite) and
    without a p-value, the point estimate decides between better and worse.

    >>> word_of(0.05, 0.0, 1.0, (-0.09, 0.26)), word_of(-0.02, 0.0, 1.0, (-0.12, 0.06))
    ('unclear', 'unclear')
    >>> word_of(0.05, 0.0, 1.0, (0.01, 0.09)), word_of(-0.2, 0.0, 1.0, (-0.4, -0.05)), word_of(0.9, 1.0, 1.0)
    ('better', 'worse', 'moot')
    >>> word_of(0.05, 0.0, 1.0, (0.01, 0.09), pvalue=0.2)   # the interval says better, the test does not
    'unclear'
    """
    if not (math.isfinite(value) and math.isfinite(baseline)):
        return "undefined" if not math.isfinite(value) else "n/a"
    beats = value > baseline if greater_is_better else value < baseline
    if not beats and ideal == baseline:
        return "moot"
    if value == baseline:
        return "equal"
    if ci is not None and math.isfinite(ci[0]) and math.isfinite(ci[1]):
        low, high = ci
        shown = beats_by_interval(low, high, baseline, greater_is_better=greater_is_better)
        if shown != ("yes" if beats else "no"):
            return "unclear"
    if beats and pvalue is not None and not rejects(pvalue, alpha):
        return "unclear"
    return "better" if beats else "worse"


def _ops_of(name: str, values: np.ndarray, prevalence: float | np.ndarray, *, mc_samples: int | None = None,
            **options: Any) -> tuple[np.ndarray | None, str | None, str | None]:
    """OPS of several values of one metric at one prevalence: (scores, method, problem)."""
    if name not in METRICS and mc_samples is not None:
        options["mc_samples"] = mc_samples
    try:
        res = outperformance_score(name, np.asarray(values, dtype=np.float64), prevalence, **options)
    except InvalidInputError as exc:
        return None, None, " ".join(str(exc).split())
    scores = np.atleast_1d(np.asarray(res.score, dtype=np.float64))
    method = res.method
    if res.method == "dbt" and res.mc_samples:
        method = f"dbt (Monte Carlo over {res.mc_samples} random curves)"
    elif res.mc_samples:
        method += f" ({res.mc_samples} samples)"
    return scores, method, None


def _advantage(value: float, baseline: float, ideal: float) -> float:
    if not (math.isfinite(value) and math.isfinite(baseline) and math.isfinite(ideal)) or ideal == baseline:
        return float("nan")
    return (value - baseline) / (ideal - baseline)
