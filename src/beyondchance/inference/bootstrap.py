r"""Bootstrap confidence intervals for every measure of the package.

:func:`bootstrap_ci` resamples the test set (rows drawn with replacement, n out of
n), recomputes the measure on every resample -- so a baseline such as the Bayesian
marginal prediction (BMP) of the prediction advantage, or the random accuracy of pure
accuracy, is **re-estimated inside every resample** -- and turns the bootstrap
distribution θ*₁ … θ*_B into an interval (SPEC §1 "Confidence", §3 "Beyond the paper").
The resampled statistics are in :mod:`beyondchance.inference.bootstrap_resampling`, the fast
routes of the prediction advantage in :mod:`beyondchance.inference.bootstrap_advantage`.

Resampling model
----------------
A resample draws U units with replacement from the U units of the sample, i.e. the
number of times each unit is drawn is ``Multinomial(U, 1/U, ..., 1/U)``.  The unit is
a row (``sample_weight=None``, or ``weight_type="importance"``: a row keeps its weight
wherever it is drawn) or one observation (``weight_type="frequency"``: a row of integer
weight w stands for w identical observations, so integer weights are exactly repeated
rows).  Rows of weight zero are not units.  Units that are interchangeable for the
measure are pooled: drawing U units uniformly and counting them per pool of size m_g
is ``Multinomial(U, m_g / U)`` over the pools -- the same distribution, sampled at the
cost of the number of pools:

* **labeling metrics** (a name of :data:`beyondchance.measures.METRICS`): the pools are
  the k² cells of the confusion matrix (``(cell, weight)`` pairs with importance
  weights), so a resample's confusion matrix is drawn directly, all B resamples cost
  O(B·k²), and the metric is evaluated on the stack of B matrices by the vectorised
  registry functions.  The result is exactly :meth:`ConfusionMatrix.metric` of the
  resampled data (the label set is fixed to the labels of the full sample).
* **any callable** ``measure(y_true, y_pred, sample_weight=..., **options) -> float``
  (for instance :func:`~beyondchance.pure_accuracy`, or the prediction advantage with
  any loss): the pools are the rows, and a resample is passed as count weights
  ``sample_weight = weight * counts`` -- nothing is copied, and memory is bounded by
  drawing the counts in chunks.  A callable without a ``sample_weight`` parameter is
  given the repeated rows instead.
* **the prediction advantage of a closed-form loss** (``"prediction_advantage"`` with
  ``loss=...``, or the function :func:`~beyondchance.prediction_advantage` itself, or
  a ``functools.partial`` of it): the pools and the count draws are those of a
  callable -- the same seed gives the same resamples as passing the function through
  an opaque wrapper -- but the B values come from a few sums per resample, one
  (chunk × n) @ (n × d) product per chunk: Σw, Σw·y, Σw·y², Σw·(y − ŷ)² (squared loss,
  R², per output); the class weights and the loss sum (log loss, Brier score: the BMP
  is the resampled prior; cost matrices and other label losses: min_i Σ_j b_ij p_j);
  for the absolute and pinball losses also the resample's weighted quantile, read from
  the cumulative resampled weights in y order by the convention of
  :func:`~beyondchance.measures.weighted_quantile`.  Each value equals
  ``prediction_advantage(y_true, y_pred, sample_weight=counts * weight, ...)`` up to
  rounding (≈1e-15 relative), one-valued resamples included (nan).  By name, the 0/1
  loss and the other label losses are functions of the confusion matrix and are drawn
  over its cells, as labeling metrics are.  With ``prior=`` or a loss without a
  closed-form BMP the callable route is taken.

Intervals
---------
With α = 1 − ``confidence_level`` and Φ the standard normal distribution function:

.. math::

    \text{percentile:}\quad [\theta^*_{(\alpha/2)},\ \theta^*_{(1-\alpha/2)}],
    \qquad
    \text{basic:}\quad [2\hat\theta - \theta^*_{(1-\alpha/2)},\ 2\hat\theta - \theta^*_{(\alpha/2)}],

    \text{BCa:}\quad [\theta^*_{(\alpha_1)},\ \theta^*_{(\alpha_2)}],\quad
    \alpha_{1,2} = \Phi\Big(\hat z_0 + \frac{\hat z_0 + z_{\alpha/2,\,1-\alpha/2}}
                             {1 - \hat a(\hat z_0 + z_{\alpha/2,\,1-\alpha/2})}\Big),

    \hat z_0 = \Phi^{-1}\Big(\frac{\#\{\theta^*_b < \hat\theta\} + \#\{\theta^*_b \le \hat\theta\}}{2B}\Big),
    \qquad
    \hat a = \frac{\sum_i (\bar\theta_{(\cdot)} - \theta_{(i)})^3}
                  {6\,\big[\sum_i (\bar\theta_{(\cdot)} - \theta_{(i)})^2\big]^{3/2}}

(Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13, 14.3 and eq.
14.15; quantiles interpolated linearly; ties in ẑ₀ counted half, as
:func:`scipy.stats.bootstrap` does).  θ_(i) are jackknife (leave-one-unit-out) values:

* labeling metrics: removing a unit changes one cell, so there are only as many
  distinct leave-one-out matrices as pools (≤ k² without weights); all are evaluated
  exactly, each counted with its multiplicity;
* the prediction advantage of a closed-form loss: exact leave-one-out at any n, in
  O(n log n): the full-sample sums minus one row's contribution (for a quantile BMP,
  two searches in the full-sample cumulative weights and prefix sums);
* callables with at most 2,000 pools: exact leave-one-out;
* callables on more rows: a **grouped (delete-m) jackknife** over 500 random blocks
  of (near) equal size.  If U_i are the influence values, a block's deletion value is
  (to first order, up to a common factor) the sum S_g of the U_i in the block; for
  independent zero-mean U_i, E[Σ_g S_g³] = Σ_i E[U_i³] and E[Σ_g S_g²] = Σ_i E[U_i²],
  so â keeps its target.  Its Monte Carlo sd is about √15 / (6 G) ≈ 0.0013 for
  G = 500 blocks with nearly normal block sums; that moves a 95% BCa level by about
  â·(ẑ₀ + z)² ≈ 0.005 in z units, far less than the Monte Carlo error of the
  bootstrap quantiles themselves.  The blocks are drawn from ``random_state``, so the
  interval stays reproducible.

Undefined resamples
-------------------
A measure can be undefined in a resample (e.g. recall when the resample holds no
positive, PA when it holds one class).  ``nan_policy="omit"`` (default) leaves those
resamples out and warns (:class:`~beyondchance.UndefinedMeasureWarning`) with their
number -- the interval is then conditional on the measure being defined;
``"propagate"`` returns a nan interval; ``"raise"`` raises
:class:`~beyondchance.UndefinedMeasureError`.  ``zero_division=<number>`` (labeling
metrics) substitutes the number instead, in the estimate and in every resample.  An
undefined class inside a macro or weighted average follows the policy of
:meth:`~beyondchance.ConfusionMatrix.metric` (0 under the default ``"warn"``, left out
under ``"nan"``) in the estimate and in every resample, so that the interval belongs to
the point estimate.

>>> import numpy as np
>>> from beyondchance import bootstrap_ci
>>> rng = np.random.default_rng(0)
>>> y_true = rng.integers(0, 2, 500)
>>> y_pred = np.where(rng.random(500) < 0.8, y_true, 1 - y_true)
>>> res = bootstrap_ci("accuracy", y_true, y_pred, random_state=0)
>>> res.method, res.n_resamples, bool(res.estimate == np.mean(y_true == y_pred))
('bca', 2000, True)
>>> bool(res.low < res.estimate < res.high), bool(0.7 < res.low and res.high < 0.9)
(True, True)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable, Literal

import numpy as np
from scipy.special import ndtr, ndtri

from .._summary_display import SummaryDisplay, format_interval, format_number
from .._validation import check_confidence_level, check_option, check_n_resamples, check_random_state
from .._warnings import BeyondChanceWarning, InvalidInputError, UndefinedMeasureError, UndefinedMeasureWarning
from ..measures.registry import LabelingMetric, get_metric
from .._json import jsonable as _jsonable
from .bootstrap_resampling import (
    _CallableStatistic,
    _ConfusionStatistic,
    _bootstrap_distribution,
    _jackknife,
    _shared_distributions,
    _kernel_threads,
)
from .bootstrap_advantage import _PA_LOSS_ROUTE, _pa_function_options, _pa_statistic
from .confidence_interval import ConfidenceInterval

__all__ = ["bootstrap_ci", "BootstrapResult", "bca_interval"]

Method = Literal["bca", "percentile", "basic"]
WeightType = Literal["importance", "frequency"]
NanPolicy = Literal["omit", "propagate", "raise"]

_METHODS: tuple[Method, ...] = ("bca", "percentile", "basic")
_WEIGHT_TYPES: tuple[WeightType, ...] = ("importance", "frequency")
_NAN_POLICIES: tuple[NanPolicy, ...] = ("omit", "propagate", "raise")

# --- the result -----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class BootstrapResult(SummaryDisplay):
    """A bootstrap confidence interval and everything needed to audit or redo it.

    Attributes
    ----------
    estimate : the measure on the full sample
    low, high : the interval
    standard_error : standard deviation (ddof=1) of the defined resample values
    method : ``"bca"``, ``"percentile"`` or ``"basic"``
    n_resamples : number of resamples drawn (B)
    confidence_level : nominal coverage
    distribution : the B resample values (nan where the measure was undefined)
    measure : name of the measure
    n_undefined : resamples where the measure was undefined
    bias_correction : ẑ₀ (nan unless the method is BCa)
    acceleration : â (None unless the method is BCa)
    jackknife : how â was estimated (``"exact (…)"``, ``"grouped (…)"`` or ``"none"``)
    weight_type : resampling unit for weighted data (``"importance"``: rows,
        ``"frequency"``: observations)
    nan_policy : how undefined resamples were treated
    """

    estimate: float
    low: float
    high: float
    standard_error: float
    method: Method
    n_resamples: int
    confidence_level: float
    distribution: np.ndarray
    measure: str
    n_undefined: int = 0
    bias_correction: float = float("nan")
    acceleration: float | None = None
    jackknife: str = "none"
    weight_type: str = "importance"
    nan_policy: str = "omit"

    def __float__(self) -> float:
        return float(self.estimate)

    def _summary_title(self) -> str:
        return (f"{self.measure} = {format_number(self.estimate)}, {self.confidence_level:.0%} CI "
                f"{format_number(self.low)} to {format_number(self.high)}")

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("estimate", self.estimate), ("interval", format_interval((self.low, self.high))),
                ("method", f"{self.method}, {self.n_resamples} resamples"), ("standard error", self.standard_error),
                ("undefined resamples", self.n_undefined)]

    @property
    def interval(self) -> ConfidenceInterval:
        """The interval as a :class:`~beyondchance.ConfidenceInterval` (``low``, ``high``,
        ``confidence_level``, ``method``).

        >>> import numpy as np
        >>> from beyondchance import bootstrap_ci
        >>> y = np.tile([0, 1, 1, 0, 1], 40); p = np.tile([0, 1, 0, 0, 1], 40)
        >>> ci = bootstrap_ci("accuracy", y, p, method="percentile", random_state=0).interval
        >>> ci.level, ci.method, bool(ci.low < 0.8 < ci.high)
        (0.95, 'percentile', True)
        """
        return ConfidenceInterval(self.low, self.high, self.confidence_level, self.method)

    @property
    def bias(self) -> float:
        """Bootstrap estimate of the bias: mean of the defined resample values − estimate."""
        theta = self.distribution[np.isfinite(self.distribution)]
        return float(theta.mean() - self.estimate) if theta.size else float("nan")

    def confidence_interval(
        self, confidence_level: float | None = None, *, method: Method | None = None
    ) -> ConfidenceInterval:
        """The interval at another level or by another method, from the stored resamples.

        BCa needs the acceleration, so it is available only on a BCa result.

        >>> import numpy as np
        >>> from beyondchance import bootstrap_ci
        >>> y = np.tile([0, 1, 1, 0, 1], 40); p = np.tile([0, 1, 0, 0, 1], 40)
        >>> res = bootstrap_ci("f1", y, p, random_state=1)
        >>> wide, narrow = res.confidence_interval(0.99), res.confidence_interval(0.8)
        >>> bool(wide.low < narrow.low < narrow.high < wide.high)
        True
        >>> tuple(res.confidence_interval()) == (res.low, res.high)
        True
        """
        level = self.confidence_level if confidence_level is None else check_confidence_level(confidence_level)
        check_n_resamples(self.n_resamples, level)
        method = self.method if method is None else check_option(method, "method", _METHODS)
        if method == "bca" and self.acceleration is None:
            raise InvalidInputError(
                "method='bca' needs the jackknife acceleration; rerun bootstrap_ci with method='bca'"
            )
        if self.nan_policy == "propagate" and self.n_undefined:
            return ConfidenceInterval(float("nan"), float("nan"), level, method)
        theta = self.distribution[np.isfinite(self.distribution)]
        low, high, _ = _interval(theta, self.estimate, level, method, self.acceleration)
        return ConfidenceInterval(low, high, level, method)

    def to_dict(self, *, distribution: bool = False) -> dict[str, Any]:
        """JSON-safe representation (the B resample values only on request)."""
        out: dict[str, Any] = {
            "measure": self.measure,
            "estimate": _jsonable(self.estimate),
            "low": _jsonable(self.low),
            "high": _jsonable(self.high),
            "standard_error": _jsonable(self.standard_error),
            "method": self.method,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "n_undefined": self.n_undefined,
            "bias_correction": _jsonable(self.bias_correction),
            "acceleration": None if self.acceleration is None else _jsonable(self.acceleration),
            "jackknife": self.jackknife,
            "weight_type": self.weight_type,
            "nan_policy": self.nan_policy,
        }
        if distribution:
            out["distribution"] = [_jsonable(v) for v in self.distribution.tolist()]
        return out

    def __repr__(self) -> str:
        return (
            f"BootstrapResult(measure={self.measure!r}, estimate={self.estimate:.6g}, "
            f"low={self.low:.6g}, high={self.high:.6g}, standard_error={self.standard_error:.3g}, "
            f"method={self.method!r}, confidence_level={self.confidence_level}, "
            f"n_resamples={self.n_resamples}, n_undefined={self.n_undefined})"
        )




# --- the public function -------------------------------------------------------------


def bootstrap_ci(
    measure: str | LabelingMetric | Callable[..., float],
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    method: Method = "bca",
    random_state: Any = None,
    weight_type: WeightType = "importance",
    nan_policy: NanPolicy = "omit",
    **measure_options: Any,
) -> BootstrapResult:
    r"""Bootstrap confidence interval of any measure, re-estimating baselines per resample.

    Parameters
    ----------
    measure : str, LabelingMetric or callable
        A labeling-metric name or alias (``"accuracy"``, ``"f1"``, ``"mcc"``,
        ``"pure_accuracy"``, ``"prediction_advantage"`` …, see
        :func:`beyondchance.metric_names`), computed from the resampled
        :class:`~beyondchance.ConfusionMatrix`; or any callable
        ``measure(y_true, y_pred, sample_weight=None, **measure_options) -> float``.
        ``"prediction_advantage"`` also takes the options of
        :func:`~beyondchance.prediction_advantage` (``loss``, ``labels``, ``prior``,
        ``multioutput``, ``normalize``, ``strict``) and is then computed for that loss.
    y_true, y_pred : array-like, one entry (or row, e.g. class probabilities for a
        callable) per sample.  Labels for a labeling metric (and the prediction advantage
        of a classification loss): continuous values (scores, not whole numbers) are
        refused with an :class:`~beyondchance.InvalidInputError` naming the argument.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights; see ``weight_type``.
    n_resamples : int, default 2000
        Number of bootstrap resamples B, at least ⌈2 / (1 − confidence_level)⌉ (40 at
        95%): fewer leave no resample beyond an end of the interval, and an
        :class:`~beyondchance.InvalidInputError` is raised.
    confidence_level : float in (0, 1), default 0.95
    method : {"bca", "percentile", "basic"}, default "bca"
        Bias-corrected and accelerated, percentile, or basic (reverse percentile)
        interval; formulas in ``beyondchance.inference.bootstrap``.
    random_state : None, int or numpy.random.Generator
        Seed of the resampling; the same seed gives the same interval.
    weight_type : {"importance", "frequency"}, default "importance"
        ``"importance"``: rows are resampled and keep their weights.
        ``"frequency"``: a row of (integer) weight w is w observations, so the
        bootstrap equals that of the data with each row repeated w times.
    nan_policy : {"omit", "propagate", "raise"}, default "omit"
        Resamples where the measure is undefined: left out with a warning giving
        their number, a nan interval, or an error.  A callable that raises
        ``ValueError`` on a resample (after succeeding on the full sample, e.g.
        scikit-learn's "only one class present") is undefined there.
    **measure_options
        For labeling metrics: ``average``, ``zero_division``, ``labels``,
        ``pos_label`` and metric options such as ``beta``; for a callable: passed
        to every call.

    Returns
    -------
    BootstrapResult
        ``estimate``, ``low``, ``high``, ``standard_error``, the resample
        ``distribution`` …; ``result.confidence_interval(level, method=...)`` redoes
        the interval from the stored resamples.

    Notes
    -----
    Every resample's measure is computed from that resample alone: the prediction
    advantage's BMP (the majority class for the 0/1 loss, the mean for the squared
    loss, …) and pure accuracy's random accuracy are re-estimated each time, which is
    what the SPEC asks (§1 "Confidence").  Labeling metrics draw the B resampled
    confusion matrices directly (multinomial over the k² cells) and cost O(B·k²)
    after one pass over the data; callables receive count weights; the prediction
    advantage of the squared, absolute, pinball, log, Brier and cost-matrix losses is
    computed from per-resample sums (same draws as the callable route, seconds for
    2,000 resamples of 10^5 rows; benchmarks/bench_bootstrap.py).  The resampling
    model, the jackknife used for BCa's acceleration (exact, or grouped on large n for
    callables) and the policy for undefined resamples are described in
    ``beyondchance.inference.bootstrap``.  References: Efron (1987), "Better bootstrap
    confidence intervals", JASA 82:171-185; Efron & Tibshirani (1993), ch. 13-14.

    Examples
    --------
    >>> import numpy as np
    >>> from beyondchance import bootstrap_ci, pure_accuracy
    >>> rng = np.random.default_rng(7)
    >>> y = (rng.random(400) < 0.3).astype(int)
    >>> p = np.where(rng.random(400) < 0.85, y, 1 - y)
    >>> a = bootstrap_ci("pure_accuracy", y, p, random_state=3)
    >>> b = bootstrap_ci(pure_accuracy, y, p, random_state=3, method="percentile")
    >>> a.estimate == b.estimate, bool(abs(a.standard_error - b.standard_error) < 0.01)
    (True, True)
    >>> r = bootstrap_ci("prediction_advantage", y, p, random_state=0, confidence_level=0.9)
    >>> err, prior = np.mean(y != p), np.mean(y)        # PA = 1 - err / err(majority class)
    >>> bool(np.isclose(r.estimate, 1 - err / min(prior, 1 - prior))), r.confidence_level
    (True, 0.9)

    The prediction advantage of another loss, the BMP (here the median) re-estimated
    in every resample:

    >>> from beyondchance import prediction_advantage
    >>> t = rng.gamma(2.0, 1.0, 1000); f = t + rng.normal(0, 0.8, 1000)
    >>> m = bootstrap_ci("prediction_advantage", t, f, loss="absolute", random_state=0)
    >>> m.measure, m.estimate == prediction_advantage(t, f, loss="absolute")
    ('prediction_advantage (loss=absolute)', True)
    >>> bool(m.low < m.estimate < m.high), m.jackknife
    (True, 'exact (1000 leave-one-out values)')
    """
    level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples, level)
    method = check_option(method, "method", _METHODS)
    weight_type = check_option(weight_type, "weight_type", _WEIGHT_TYPES)
    nan_policy = check_option(nan_policy, "nan_policy", _NAN_POLICIES)
    rng = check_random_state(random_state)

    pa_options = _pa_function_options(measure)
    if isinstance(measure, (str, LabelingMetric)):
        metric = get_metric(measure)
        if metric.name == "prediction_advantage" and measure_options:
            stat = _pa_statistic(y_true, y_pred, sample_weight, weight_type, measure_options, by_name=True)
        else:
            stat = _ConfusionStatistic.build(metric, y_true, y_pred, sample_weight, weight_type, measure_options)
    elif pa_options is not None:
        stat = _pa_statistic(
            y_true, y_pred, sample_weight, weight_type, {**pa_options, **measure_options}, by_name=False
        )
    elif callable(measure):
        stat = _CallableStatistic.build(measure, y_true, y_pred, sample_weight, weight_type, measure_options)
    else:
        raise InvalidInputError(
            f"measure must be a metric name or a callable, got {type(measure).__name__}"
        )

    return _result_of(stat, n_resamples, level, method, weight_type, nan_policy, rng)


def bootstrap_cis(
    measures: dict[str, dict[str, Any]],
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    method: Method = "bca",
    random_state: Any = None,
    weight_type: WeightType = "importance",
    nan_policy: NanPolicy = "omit",
) -> dict[str, BootstrapResult]:
    """:func:`bootstrap_ci` of several labeling metrics of the same data (the prediction
    advantage of the 0/1 loss among them), ``measures`` a metric name -> its options
    (``average``, ``zero_division``, ``labels``, ``pos_label`` …): each result equals
    ``bootstrap_ci(name, …, **options)`` with the same ``random_state``; the resampled
    confusion matrices are drawn and summed once for all (a report's nine metrics: one
    set of draws, not nine).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 300); p = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    >>> both = bootstrap_cis({"accuracy": {}, "f1": {"average": "macro"}}, y, p, random_state=1)
    >>> both["f1"].low == bootstrap_ci("f1", y, p, average="macro", random_state=1).low
    True
    """
    level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples, level)
    method = check_option(method, "method", _METHODS)
    weight_type = check_option(weight_type, "weight_type", _WEIGHT_TYPES)
    nan_policy = check_option(nan_policy, "nan_policy", _NAN_POLICIES)
    rng = check_random_state(random_state)
    for name, options in measures.items():
        if any(k in options for k in ("loss", *_PA_LOSS_ROUTE)):
            raise InvalidInputError(f"bootstrap_cis takes labeling metrics of the confusion matrix; {name} with "
                                    f"{sorted(options)}: use bootstrap_ci")
    pools: dict = {}  # one confusion matrix and its pools for all
    stats = {name: _ConfusionStatistic.build(get_metric(name), y_true, y_pred, sample_weight, weight_type, options,
                                             pools)
             for name, options in measures.items()}
    distributions = _shared_distributions(list(stats.values()), n_resamples, rng)
    after = rng.bit_generator.state  # each metric's jackknife continues from the draws, as on its own
    out = {}
    for (name, stat), distribution in zip(stats.items(), distributions):
        rng.bit_generator.state = after
        out[name] = _result_of(stat, n_resamples, level, method, weight_type, nan_policy, rng, distribution)
    return out


def _result_of(stat: Any, n_resamples: int, level: float, method: str, weight_type: str, nan_policy: str,
               rng: np.random.Generator, distribution: np.ndarray | None = None) -> BootstrapResult:
    """The :class:`BootstrapResult` of a resampled statistic (``distribution``: its B values
    when already drawn)."""
    common = dict(
        method=method,
        n_resamples=n_resamples,
        confidence_level=level,
        measure=stat.name,
        weight_type=weight_type,
        nan_policy=nan_policy,
    )
    estimate = stat.estimate
    if not np.isfinite(estimate):
        msg = f"{stat.name} is undefined on the data (nan); no confidence interval"
        if nan_policy == "raise":
            raise UndefinedMeasureError(msg)
        warnings.warn(msg, UndefinedMeasureWarning, stacklevel=3)
        nan = float("nan")
        return BootstrapResult(
            estimate=nan, low=nan, high=nan, standard_error=nan,
            distribution=np.full(n_resamples, nan), n_undefined=n_resamples, **common,
        )

    if distribution is None:
        with _kernel_threads(stat):
            distribution = _bootstrap_distribution(stat, n_resamples, rng)
    finite = np.isfinite(distribution)
    distribution[~finite] = np.nan
    distribution.setflags(write=False)
    n_undefined = int(n_resamples - finite.sum())
    theta = distribution[finite]

    msg = f"{stat.name} is undefined in {n_undefined} of {n_resamples} bootstrap resamples"
    if n_undefined and nan_policy == "raise":
        raise UndefinedMeasureError(msg)

    acceleration, jackknife = None, "none"
    if method == "bca":
        with _kernel_threads(stat):
            jk_values, jk_weights, jackknife = _jackknife(stat, rng)
        acceleration = _acceleration(jk_values, jk_weights)

    if n_undefined:
        if nan_policy == "omit" and n_undefined < n_resamples:
            msg += "; they were left out, so the interval is conditional on the measure being defined"
        else:
            msg += "; the interval is nan"
        warnings.warn(msg, UndefinedMeasureWarning, stacklevel=3)

    if nan_policy == "propagate" and n_undefined:
        low = high = z0 = float("nan")
    else:
        low, high, z0 = _interval(theta, estimate, level, method, acceleration, warn=True)
    return BootstrapResult(
        estimate=float(estimate),
        low=low,
        high=high,
        standard_error=float(np.std(theta, ddof=1)) if theta.size > 1 else float("nan"),
        distribution=distribution,
        n_undefined=n_undefined,
        bias_correction=z0,
        acceleration=acceleration,
        jackknife=jackknife,
        **common,
    )


# --- intervals ----------------------------------------------------------------------------


def bca_interval(theta: np.ndarray, estimate: float, level: float, jackknife: np.ndarray,
                 multiplicity: np.ndarray) -> tuple[float, float]:
    """The BCa interval at ``level`` of resample values ``theta`` around ``estimate``, its
    acceleration from leave-one-unit-out values ``jackknife`` counted ``multiplicity`` times
    (one value per group of identical units: Efron & Tibshirani 1993, eq. 14.15), for a
    caller that resamples and jackknifes a statistic its own way.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=30)
    >>> theta = rng.choice(x, size=(2000, 30)).mean(axis=1)
    >>> jack = (x.sum() - x) / 29
    >>> low, high = bca_interval(theta, x.mean(), 0.95, jack, np.ones(30))
    >>> bool(low < x.mean() < high)
    True
    """
    low, high, _ = _interval(np.asarray(theta, dtype=np.float64), float(estimate), level, "bca",
                             _acceleration(jackknife, multiplicity))
    return low, high


def _interval(
    theta: np.ndarray,
    estimate: float,
    level: float,
    method: str,
    acceleration: float | None,
    *,
    warn: bool = False,
) -> tuple[float, float, float]:
    """(low, high, ẑ₀) from the defined resample values ``theta``."""
    nan = float("nan")
    if theta.size == 0 or not np.isfinite(estimate):
        return nan, nan, nan
    alpha = (1.0 - level) / 2.0
    if method in ("percentile", "basic"):
        lo, hi = np.percentile(theta, [100 * alpha, 100 * (1 - alpha)])
        if method == "basic":
            lo, hi = 2 * estimate - hi, 2 * estimate - lo
        return float(lo), float(hi), nan
    frac = (np.count_nonzero(theta < estimate) + np.count_nonzero(theta <= estimate)) / (2 * theta.size)
    z0 = float(ndtri(frac))
    a = 0.0 if acceleration is None or not np.isfinite(acceleration) else float(acceleration)
    z = ndtri(np.array([alpha, 1 - alpha]))
    with np.errstate(divide="ignore", invalid="ignore"):
        levels = ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
    if not np.isfinite(z0) or not np.isfinite(levels).all():
        if warn:
            warnings.warn(
                "the BCa bias correction is infinite (every resample value lies on one side of "
                "the estimate); the BCa interval degenerates to an end of the bootstrap "
                "distribution -- use more resamples or method='percentile'",
                BeyondChanceWarning,
                stacklevel=3,
            )
        levels = np.nan_to_num(levels, nan=0.5 if np.isfinite(z0) else float(frac > 0.5))
    lo, hi = np.percentile(theta, 100 * np.clip(levels, 0, 1))
    return float(lo), float(hi), z0


def _acceleration(values: np.ndarray, weights: np.ndarray) -> float:
    """â from jackknife values with multiplicities (undefined values left out; 0 if flat)."""
    return _acceleration_of_samples([(values, weights)])


def _acceleration_of_samples(samples: Any) -> float:
    r"""BCa's acceleration â of a statistic of several independent samples, from each
    sample's jackknife values θ_(ji) (one unit of sample j left out, the other samples whole)
    counted m_ji times, θ̄_j· their weighted mean:

    .. math::

        \hat a = \frac{\sum_j n_j^{-3} \sum_i m_{ji} U_{ji}^3}
                     {6\,\big[\sum_j n_j^{-2} \sum_i m_{ji} U_{ji}^2\big]^{3/2}},
        \qquad U_{ji} = (n_j - 1)(\bar\theta_{j\cdot} - \theta_{(ji)}),\quad n_j = \sum_i m_{ji}

    (Efron & Tibshirani 1993, eq. 14.15, one sample; several samples as
    :func:`scipy.stats.bootstrap` does).  Undefined values are left out; 0 when flat.
    """
    num = den = 0.0
    for values, weights in samples:
        values, weights = np.asarray(values, dtype=np.float64), np.asarray(weights, dtype=np.float64)
        ok = np.isfinite(values) & (weights > 0)
        values, weights = values[ok], weights[ok]
        n = weights.sum()
        if values.size == 0 or not n > 1:
            continue
        u = (n - 1) * (np.average(values, weights=weights) - values)
        num += np.sum(weights * u**3) / n**3
        den += np.sum(weights * u**2) / n**2
    if not den > 0:
        return 0.0
    return float(num / (6.0 * den**1.5))
