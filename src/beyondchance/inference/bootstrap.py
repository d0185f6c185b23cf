r"""Bootstrap confidence intervals for every measure of the package.

:func:`bootstrap_ci` resamples the test set (rows drawn with replacement, n out of
n), recomputes the measure on every resample -- so a baseline such as the Bayesian
marginal prediction (BMP) of the prediction advantage, or the random accuracy of pure
accuracy, is **re-estimated inside every resample** -- and turns the bootstrap
distribution θ*₁ … θ*_B into an interval (SPEC §1 "Confidence", §3 "Beyond the paper").

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

import contextlib
import functools
import inspect
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Literal, NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri

from .._summary_display import SummaryDisplay, format_number
from .._validation import (
    as_1d,
    as_samples,
    check_confidence_level,
    check_consistent_length,
    check_frequency_weights,
    check_option,
    check_n_resamples,
    check_random_state,
    check_sample_weight,
    encode_labels,
    union_labels,
)
from .._warnings import (
    BeyondChanceWarning,
    InvalidInputError,
    UndefinedMeasureError,
    UndefinedMeasureWarning,
)
from ..measures.advantage import _read_proba, prediction_advantage
from ..measures.losses import (
    _EPS,
    weighted_quantile,
    AbsoluteLoss,
    BrierLoss,
    CallableLoss,
    CostMatrixLoss,
    CrossEntropyLoss,
    Loss,
    PinballLoss,
    SquaredLoss,
    ZeroOneLoss,
    _as_targets,
    _losses,
    get_loss,
)
from ..measures.confusion import ConfusionMatrix, _warn_zero_division, metric_from_matrices, zero_division_value
from ..measures.registry import LabelingMetric, get_metric
from .._json import jsonable as _jsonable

__all__ = ["bootstrap_ci", "BootstrapResult", "ConfidenceInterval"]

Method = Literal["bca", "percentile", "basic"]
WeightType = Literal["importance", "frequency"]
NanPolicy = Literal["omit", "propagate", "raise"]

_METHODS = ("bca", "percentile", "basic")
_UNSET: Any = type("_Unset", (), {"__repr__": lambda self: "<default>"})()
_WEIGHT_TYPES = ("importance", "frequency")
_NAN_POLICIES = ("omit", "propagate", "raise")

#: Largest number of array elements materialised at once (counts of a chunk of resamples).
_CHUNK_ELEMENTS = 1 << 22
#: Callables: exact leave-one-out jackknife up to this many pools, grouped beyond.
_JACKKNIFE_EXACT_MAX = 2000
#: Number of blocks of the grouped (delete-m) jackknife.
_JACKKNIFE_BLOCKS = 500
#: Up to this many pools, resample counts come from numpy's multinomial sampler
#: (cost O(pools) per resample); beyond, from U uniform draws + bincount (O(U)).
_MULTINOMIAL_MAX_POOLS = 256


class ConfidenceInterval(NamedTuple):
    """Lower and upper end of a confidence interval."""

    low: float
    high: float


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
    method: str
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
        return [("estimate", self.estimate), ("interval", f"{format_number(self.low)} to {format_number(self.high)}"),
                ("method", f"{self.method}, {self.n_resamples} resamples"), ("standard error", self.standard_error),
                ("undefined resamples", self.n_undefined)]

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
            return ConfidenceInterval(float("nan"), float("nan"))
        theta = self.distribution[np.isfinite(self.distribution)]
        low, high, _ = _interval(theta, self.estimate, level, method, self.acceleration)
        return ConfidenceInterval(low, high)

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
        callable) per sample.
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
        warnings.warn(msg, UndefinedMeasureWarning, stacklevel=2)
        nan = float("nan")
        return BootstrapResult(
            estimate=nan, low=nan, high=nan, standard_error=nan,
            distribution=np.full(n_resamples, nan), n_undefined=n_resamples, **common,
        )

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
        warnings.warn(msg, UndefinedMeasureWarning, stacklevel=2)

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


# --- resampling ------------------------------------------------------------------------------


class _Statistic:
    """A measure as a function of the counts of units drawn from each pool.

    ``m[g]`` is the number of units in pool g (U = m.sum()); ``evaluate(counts)`` takes
    a (b, G) array of resample counts and returns the b values.
    """

    name: str
    estimate: float
    m: np.ndarray

    def evaluate(self, counts: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Leave-one-unit-out values and multiplicities, if a direct route exists."""
        return None


def _kernel_threads(stat: _Statistic) -> contextlib.AbstractContextManager:
    """One BLAS thread for statistics whose products are thin (chunk × n) @ (n × few):
    they are memory-bound, so a second thread gains little, and OpenBLAS's spinning
    threads made them erratic on a busy machine (a (20 × 10^5) @ (10^5 × 4) product:
    median 0.64 ms per resample with 2 threads, 0.12 ms with 1, same 2-core machine
    under load)."""
    if not getattr(stat, "thin_products", False):
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits  # a dependency of scikit-learn
    except ImportError:  # pragma: no cover - scikit-learn always brings it
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _chunk_size(n_per_resample: int, total: int) -> int:
    return int(max(1, min(total, _CHUNK_ELEMENTS // max(1, n_per_resample))))


def _uses_multinomial(m: np.ndarray, total: int) -> bool:
    return m.size <= _MULTINOMIAL_MAX_POOLS or total > 8 * m.size


def _draw_counts(rng: np.random.Generator, m: np.ndarray, total: int, size: int) -> np.ndarray:
    """``size`` draws of Multinomial(total, m / total), as a (size, G) float64 array
    (integer-valued; float because every consumer multiplies the counts by weights)."""
    g = m.size
    if _uses_multinomial(m, total):
        return rng.multinomial(total, m / total, size=size).astype(np.float64)
    idx = rng.integers(0, total, size=(size, total), dtype=np.int32 if total < 2**31 else np.int64)
    if (m <= 1).all():
        if total < g:  # rows of weight zero are not units
            idx = np.flatnonzero(m)[idx]
    else:  # unit -> its pool: a table lookup (= searchsorted(cumsum(m), idx, side="right"))
        idx = np.repeat(np.arange(g, dtype=idx.dtype), m.astype(np.int64))[idx]
    out = np.empty((size, g), dtype=np.float64)
    for i in range(size):  # one bincount per resample: cache-friendlier than one big one
        out[i] = np.bincount(idx[i], minlength=g)
    return out


def _bootstrap_distribution(stat: _Statistic, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    total = int(stat.m.sum())
    per = stat.m.size if _uses_multinomial(stat.m, total) else total + stat.m.size
    chunk = _chunk_size(per, n_resamples)
    out = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        out[start : start + size] = stat.evaluate(_draw_counts(rng, stat.m, total, size))
    return out


def _jackknife(stat: _Statistic, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, str]:
    """Jackknife values for BCa's acceleration: exact when affordable, else grouped."""
    direct = stat.exact_jackknife()
    if direct is not None:
        values, weights = direct
        what = "leave-one-out values" if getattr(stat, "thin_products", False) else "distinct leave-one-out values"
        return values, weights, f"exact ({values.size} {what})"
    m = stat.m
    present = np.flatnonzero(m > 0)
    g = m.size
    if present.size <= _JACKKNIFE_EXACT_MAX:
        values = np.empty(present.size)
        chunk = _chunk_size(g, present.size)
        for start in range(0, present.size, chunk):
            rows = present[start : start + chunk]
            counts = np.broadcast_to(m, (rows.size, g)).copy()
            counts[np.arange(rows.size), rows] -= 1
            values[start : start + rows.size] = stat.evaluate(counts)
        return values, m[present], f"exact ({present.size} leave-one-out values)"

    total = int(m.sum())
    n_blocks = min(_JACKKNIFE_BLOCKS, total)
    sizes = np.full(n_blocks, total // n_blocks, dtype=np.int64)
    sizes[: total % n_blocks] += 1
    values = np.empty(n_blocks)
    chunk = _chunk_size(g, n_blocks)
    if (m <= 1).all():  # units are rows: a random partition of the rows into blocks
        block_of = np.full(g, -1, dtype=np.int64)
        block_of[rng.permutation(present)] = np.repeat(np.arange(n_blocks), sizes)
        for start in range(0, n_blocks, chunk):
            blocks = np.arange(start, min(start + chunk, n_blocks))
            counts = m[None, :] - (block_of[None, :] == blocks[:, None])
            values[start : start + blocks.size] = stat.evaluate(counts)
    else:  # units are observations: blocks drawn without replacement, one after the other
        remaining = m.astype(np.int64).copy()
        for start in range(0, n_blocks, chunk):
            stop = min(start + chunk, n_blocks)
            counts = np.empty((stop - start, g), dtype=np.int64)
            for j in range(start, stop):
                removed = rng.multivariate_hypergeometric(remaining, int(sizes[j]))
                remaining -= removed
                counts[j - start] = m - removed
            values[start:stop] = stat.evaluate(counts)
    mean_size = total / n_blocks
    return values, np.ones(n_blocks), f"grouped ({n_blocks} blocks of about {mean_size:.3g} units)"


# --- labeling metrics: resampled confusion matrices ---------------------------------------------


class _ConfusionStatistic(_Statistic):
    """A labeling metric of the resampled confusion matrix.

    Pools are the cells (or (cell, weight) pairs with importance weights); ``v[g]`` is
    the weight a unit of pool g adds to its cell.
    """

    def __init__(self, cm: ConfusionMatrix, cells: np.ndarray, v: np.ndarray, m: np.ndarray,
                 evaluator: Any, name: str, estimate: float | None = None) -> None:
        order = np.argsort(cells, kind="stable")
        self.cells, self.v, self.m = cells[order], v[order], m[order]
        seg = np.flatnonzero(np.r_[True, self.cells[1:] != self.cells[:-1]])
        self._seg_starts, self._seg_cells = seg, self.cells[seg]
        self.cm, self.k = cm, cm.n_classes
        self.evaluator = evaluator
        self.name = name
        if estimate is None:
            estimate = self.evaluator.reference(cm.matrix)
        self.estimate = float(estimate)

    @classmethod
    def build(cls, metric: LabelingMetric, y_true: Any, y_pred: Any, sample_weight: Any,
              weight_type: str, options: dict) -> "_ConfusionStatistic":
        options = dict(options)
        labels = options.pop("labels", None)
        pos_label = options.pop("pos_label", 1)
        average = options.pop("average", _UNSET)
        zero_division = options.pop("zero_division", "warn")
        cm, cells, v, m = _confusion_pools(y_true, y_pred, sample_weight, weight_type, labels, pos_label)
        evaluator = _MatrixEvaluator(cm, metric, average, options, zero_division)
        name = metric.name if average in (_UNSET, "binary") else f"{metric.name} (average={average})"
        return cls(cm, cells, v, m, evaluator, name)

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        mats = np.zeros((counts.shape[0], self.k * self.k))
        mats[:, self._seg_cells] = np.add.reduceat(counts * self.v, self._seg_starts, axis=1)
        return self.evaluator(mats.reshape(-1, self.k, self.k))

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        g = self.m.size
        values = np.empty(g)
        base = self.cm.matrix.ravel()
        chunk = _chunk_size(self.k * self.k, g)
        for start in range(0, g, chunk):
            sl = slice(start, min(start + chunk, g))
            mats = np.broadcast_to(base, (sl.stop - start, base.size)).copy()
            mats[np.arange(sl.stop - start), self.cells[sl]] -= self.v[sl]
            np.maximum(mats, 0.0, out=mats)
            values[sl] = self.evaluator(mats.reshape(-1, self.k, self.k))
        return values, self.m


def _confusion_pools(y_true: Any, y_pred: Any, sample_weight: Any, weight_type: str, labels: Any,
                     pos_label: Any) -> tuple[ConfusionMatrix, np.ndarray, np.ndarray, np.ndarray]:
    """The confusion matrix and its pools: (cm, cells, v, m), ``v`` the weight a unit
    of a pool adds to its cell and ``m`` the number of units in the pool."""
    w = None
    if sample_weight is not None:
        codes_true, codes_pred, classes = encode_labels(y_true, y_pred, labels=labels)
        n = codes_true.shape[0]
        if weight_type == "frequency":
            w = check_frequency_weights(sample_weight, n)
        else:
            w = check_sample_weight(sample_weight, n)
    cm = ConfusionMatrix.from_predictions(
        y_true, y_pred, sample_weight=w, labels=labels, pos_label=pos_label
    )
    k = cm.n_classes
    if w is None or weight_type == "frequency":
        # pools = cells; a unit (row, or observation) adds 1 to its cell
        flat = np.rint(cm.matrix.ravel()).astype(np.int64)
        cells = np.flatnonzero(flat > 0)
        m, v = flat[cells], np.ones(cells.size)
    else:
        # pools = (cell, weight) pairs of the rows of positive weight
        if classes.shape[0] != k:  # pragma: no cover - both use encode_labels
            raise AssertionError("label sets differ")
        cell = codes_true * k + codes_pred
        keep = w > 0
        cell, wk = cell[keep], w[keep]
        order = np.lexsort((wk, cell))
        cs, ws = cell[order], wk[order]
        new = np.r_[True, (cs[1:] != cs[:-1]) | (ws[1:] != ws[:-1])]
        starts = np.flatnonzero(new)
        m = np.diff(np.r_[starts, cs.size]).astype(np.int64)
        cells, v = cs[starts], ws[starts]
    return cm, cells, v, m


class _MatrixEvaluator:
    """:func:`~beyondchance.measures.confusion.metric_from_matrices` — the definition behind
    ``ConfusionMatrix.metric`` — on a stack of resampled (k, k) matrices."""

    def __init__(self, cm: ConfusionMatrix, metric: LabelingMetric, average: Any, options: dict,
                 zero_division: Any) -> None:
        self.metric, self.options = metric, options
        self.average = "binary" if average is _UNSET else average
        needs_pos = metric.multiclass != "native" and self.average == "binary"
        self.pos_index = cm._pos_index() if needs_pos else None
        # the policy of ConfusionMatrix.metric, in every resample: an undefined class of
        # a per-class average counts as zero_division's value; an undefined single value
        # stays nan (nan_policy) unless zero_division is a number
        self.zero_division = zero_division_value(zero_division, metric, self.average)
        value = self(cm.matrix[None])  # raises on bad options / average here
        if value.ndim != 1:
            raise InvalidInputError(
                f"{metric.name} gives one value per class here (average={average!r}); "
                "bootstrap_ci needs a single number: pass average='macro', 'weighted' or 'micro'"
            )
        if zero_division == "warn" and self.zero_division == 0:
            _warn_zero_division(cm, metric, self.average, value, options)

    def reference(self, matrix: np.ndarray) -> float:
        return float(self(matrix[None])[0])

    def __call__(self, mats: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = metric_from_matrices(
                mats, self.metric, average=self.average, pos_index=self.pos_index,
                zero_division=self.zero_division, **self.options
            )
        return np.asarray(out, dtype=np.float64)


# --- any callable: count weights -----------------------------------------------------------------


def _accepts_sample_weight(func: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: assume it does
        return True
    return any(p.name == "sample_weight" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


class _CallableStatistic(_Statistic):
    """A callable evaluated with count weights (pools are the rows)."""

    def __init__(self, func: Callable[..., Any], y_true: np.ndarray, y_pred: np.ndarray,
                 v: np.ndarray | None, m: np.ndarray, options: dict, weighted_call: bool,
                 estimate_weight: np.ndarray | None) -> None:
        self.func, self.y_true, self.y_pred = func, y_true, y_pred
        self.v, self.m, self.options = v, m, options
        self.weighted_call = weighted_call
        self.name = getattr(func, "__name__", None) or type(func).__name__
        if weighted_call:
            value = func(y_true, y_pred, sample_weight=estimate_weight, **options)
        else:
            rows = np.repeat(np.arange(m.size), m)
            value = func(y_true[rows], y_pred[rows], **options)
        self.estimate = self._scalar(value)

    @classmethod
    def build(cls, func: Callable[..., Any], y_true: Any, y_pred: Any, sample_weight: Any,
              weight_type: str, options: dict) -> "_CallableStatistic":
        yt = as_samples(y_true, "y_true")
        yp = as_samples(y_pred, "y_pred")
        n = check_consistent_length(y_true=yt, y_pred=yp)
        weighted_call = _accepts_sample_weight(func)
        if weight_type == "frequency":
            w = check_frequency_weights(sample_weight, n)
            m = np.ones(n, dtype=np.int64) if w is None else w
            v = None  # the call gets the counts of observations
            estimate_weight = None if w is None else w.astype(np.float64)
        else:
            w = check_sample_weight(sample_weight, n)
            m = np.ones(n, dtype=np.int64) if w is None else (w > 0).astype(np.int64)
            v = w
            estimate_weight = w
            if w is not None and not weighted_call:
                raise InvalidInputError(
                    f"measure {getattr(func, '__name__', func)!r} takes no sample_weight, "
                    "so importance weights cannot be passed to it"
                )
        return cls(func, yt, yp, v, m, dict(options), weighted_call, estimate_weight)

    def _scalar(self, value: Any) -> float:
        arr = np.asarray(value)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf":
            raise InvalidInputError(
                f"measure {self.name!r} must return one number, got {type(value).__name__} "
                f"of shape {arr.shape}"
            )
        return float(arr)

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        out = np.empty(counts.shape[0])
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            # resample-level warnings (ours, numpy's, scikit-learn's) would repeat B times;
            # undefined values are counted and reported once instead
            warnings.simplefilter("ignore")
            for i, c in enumerate(counts):
                try:
                    if self.weighted_call:
                        w = c * self.v if self.v is not None else c.astype(np.float64)
                        value = self.func(self.y_true, self.y_pred, sample_weight=w, **self.options)
                    else:
                        rows = np.repeat(np.arange(c.size), c.astype(np.int64))
                        value = self.func(self.y_true[rows], self.y_pred[rows], **self.options)
                except (ValueError, ZeroDivisionError):
                    # the measure worked on the full sample, so this is a degenerate
                    # resample (e.g. scikit-learn's "only one class present"): undefined
                    out[i] = np.nan
                    continue
                out[i] = self._scalar(value)
        return out


# --- the prediction advantage of any closed-form loss: per-resample sums -------------------------
#
# A resample is a vector of counts c over the pools (rows), exactly as for any callable, and
# ``prediction_advantage(y_true, y_pred, sample_weight=c * v, loss=...)`` is a function of a few
# sums over the rows weighted by c * v (v: the importance weights, or 1).  The sums of a chunk of
# resamples are one matrix product (chunk × n counts) @ (n × d design); the leave-one-out values
# of the jackknife are the full-sample sums minus one row's contribution.  The absolute and
# pinball losses also need a weighted quantile per resample: y is sorted once and the quantile
# is found in the cumulative resampled weights, by the convention of
# :func:`beyondchance.measures.weighted_quantile`.

#: Options of :func:`beyondchance.prediction_advantage` that bootstrap_ci passes on.
_PA_OPTIONS = ("loss", "labels", "prior", "multioutput", "normalize", "strict")
#: Options that need the loss-aware route even with the 0/1 loss.
_PA_LOSS_ROUTE = ("prior", "multioutput", "normalize", "strict")
#: A variance computed from moments is trusted to ~1e-12 when it is at least this share of
#: the (centred) second moment; below, the resample is recomputed by the two-pass formula.
_MOMENT_TRUST = 1.0 / 4096.0
#: Next positive row after a position: steps tried one at a time before a full scan.
_NEXT_STEPS = 16


def _pa_function_options(measure: Any) -> dict | None:
    """The fixed keyword options if ``measure`` is :func:`prediction_advantage` (or a
    ``functools.partial`` of it with keywords only), else None."""
    if measure is prediction_advantage:
        return {}
    if (isinstance(measure, functools.partial) and measure.func is prediction_advantage
            and not measure.args):
        return dict(measure.keywords)
    return None


def _pa_statistic(y_true: Any, y_pred: Any, sample_weight: Any, weight_type: str, options: dict,
                  *, by_name: bool) -> _Statistic:
    """The prediction advantage with ``options``: the fastest exact route for its loss.

    By name: the 0/1 loss and the other label losses (cost matrices, label callables)
    are functions of the confusion matrix, drawn directly over its cells.  By function
    (or any real / probability closed-form loss): pools are the rows, with the same
    count draws as any callable, and the sums route when the loss has a closed form.
    """
    options = dict(options)
    lo = get_loss(options.get("loss", "zero_one"))
    if by_name and type(lo) is ZeroOneLoss and not any(k in options for k in _PA_LOSS_ROUTE):
        options.pop("loss", None)
        return _ConfusionStatistic.build(
            get_metric("prediction_advantage"), y_true, y_pred, sample_weight, weight_type, options
        )
    unknown = sorted(set(options) - set(_PA_OPTIONS))
    if unknown:
        raise InvalidInputError(
            f"prediction_advantage with loss={lo.name!r} takes no option(s) {unknown}; "
            f"known options: {', '.join(_PA_OPTIONS)}"
        )
    name = f"prediction_advantage (loss={lo.name})"
    # label losses: the PA is a function of the confusion matrix through the k x k loss table
    label_table = lo.prediction == "label" and type(lo) in (ZeroOneLoss, CostMatrixLoss, CallableLoss)
    if by_name and label_table and options.get("prior") is None:
        return _PALabelCells.build(lo, y_true, y_pred, sample_weight, weight_type, options, name)
    base = _CallableStatistic.build(
        prediction_advantage, y_true, y_pred, sample_weight, weight_type, options
    )
    base.name = name
    if options.get("prior") is not None or not np.isfinite(base.estimate):
        return base
    if label_table:
        return _PALabelRows(base, lo, options)
    kind = type(lo)
    if kind in (CrossEntropyLoss, BrierLoss):
        return _PAProbaRows(base, lo, options)
    if kind is SquaredLoss:
        return _PASquaredRows(base, lo, options)
    if kind in (AbsoluteLoss, PinballLoss):
        return _PAQuantileRows(base, lo, options)
    return base  # callable real / probability losses: numerical BMP, generic path


# --- label losses by name: resampled confusion matrices -------------------------------------------


class _PALabelEvaluator:
    """PA of a label loss on a stack of (k, k) confusion matrices (rows: true labels).

    The formulas of :func:`beyondchance.prediction_advantage` for label losses:
    R(f) = Σ_tp M_tp L[p, t] / n, R(f₀) = min_i Σ_t L[i, t] N_t / n (0/1 loss:
    (n − trace M) / n and (n − max_t N_t) / n), ties of the minimum resolved as there.
    """

    def __init__(self, table: np.ndarray | None) -> None:
        self.table = table  # None: the 0/1 loss

    def reference(self, matrix: np.ndarray) -> float:
        return float(self(matrix[None])[0])

    def __call__(self, mats: np.ndarray) -> np.ndarray:
        n = mats.sum(axis=(1, 2))
        true_counts = mats.sum(axis=2)
        with np.errstate(all="ignore"):
            if self.table is None:
                risk = (n - np.trace(mats, axis1=1, axis2=2)) / n
                base = (n - true_counts.max(axis=1)) / n
            else:
                risk = np.sum(mats * self.table.T, axis=(1, 2)) / n
                base = _label_bmp_risk(true_counts, n, self.table)
            return np.where(base > 0, 1.0 - risk / base, np.nan)


def _label_bmp_risk(true_counts: np.ndarray, total: np.ndarray, table: np.ndarray) -> np.ndarray:
    """min_i Σ_t L[i, t] N_t / n per row, with the tie rule of the BMP solver (first class
    within 1e-12 of the minimum)."""
    expected = (true_counts @ table.T) / total[:, None]
    best = expected.min(axis=1)
    close = expected <= (best + 1e-12 * np.maximum(1.0, np.abs(best)))[:, None]
    return expected[np.arange(expected.shape[0]), np.argmax(close, axis=1)]


class _PALabelCells(_ConfusionStatistic):
    """The PA of a cost matrix (or any label loss) by name: cells of the confusion matrix."""

    @classmethod
    def build(cls, lo: Loss, y_true: Any, y_pred: Any, sample_weight: Any,  # type: ignore[override]
              weight_type: str, options: dict, name: str) -> "_PALabelCells":
        w_call = sample_weight
        if weight_type == "frequency" and sample_weight is not None:
            w_call = check_frequency_weights(sample_weight, len(as_samples(y_true, "y_true")))
        # validates every option and gives the estimate exactly as the function does
        estimate = prediction_advantage(y_true, y_pred, sample_weight=w_call, **options)
        labels = options.get("labels")
        extra = lo.extra_labels()
        if labels is None and extra is not None:
            labels = union_labels(y_true, y_pred, extra, names=("y_true", "y_pred", "the loss's labels"))
        cm, cells, v, m = _confusion_pools(y_true, y_pred, sample_weight, weight_type, labels, None)
        table = None if type(lo) is ZeroOneLoss else lo.loss_matrix(cm.labels)
        return cls(cm, cells, v, m, _PALabelEvaluator(table), name, estimate=float(estimate))


# --- closed-form losses on rows: sums per resample ------------------------------------------------


class _PARows(_Statistic):
    """The PA from per-resample sums ``S = counts @ X`` (pools are the rows).

    ``X`` holds one row per data row, already multiplied by the row's unit weight u
    (the importance weight, or 1), so that a resample's sums are ``counts @ X`` and
    removing one unit of row i subtracts ``X[i]``.
    """

    thin_products = True

    def __init__(self, base: _CallableStatistic, lo: Loss, options: dict) -> None:
        self.m, self.estimate, self.name = base.m, base.estimate, base.name
        self.u = None if base.v is None else np.asarray(base.v, dtype=np.float64)
        self.lo, self.options = lo, options
        self.X = self._design(base)
        if self.u is not None:
            self.X *= self.u[:, None]

    def _design(self, base: _CallableStatistic) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _from_sums(self, sums: np.ndarray, counts_of: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - abstract

    def _weights(self, counts: np.ndarray) -> np.ndarray:
        """The sample weights a resample passes to the function: counts × u."""
        return counts * self.u if self.u is not None else np.asarray(counts, dtype=np.float64)

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        sums = np.asarray(counts, dtype=np.float64) @ self.X
        with np.errstate(all="ignore"):
            return self._from_sums(sums, lambda rows: counts[rows])

    def _loo_counts(self, present: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        def counts_of(rows: np.ndarray) -> np.ndarray:
            out = np.broadcast_to(self.m, (rows.size, self.m.size)).copy()
            out[np.arange(rows.size), present[rows]] -= 1
            return out
        return counts_of

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        present = np.flatnonzero(self.m > 0)
        full = self.m.astype(np.float64) @ self.X
        values = np.empty(present.size)
        chunk = _chunk_size(self.X.shape[1], present.size)
        counts_of = self._loo_counts(present)
        for start in range(0, present.size, chunk):
            rows = np.arange(start, min(start + chunk, present.size))
            sums = full[None, :] - self.X[present[rows]]
            with np.errstate(all="ignore"):
                values[rows] = self._from_sums(sums, lambda r, rows=rows: counts_of(rows[r]))
        return values, self.m[present]


def _pa_from_risks(risk: np.ndarray, base: np.ndarray) -> np.ndarray:
    return np.where(base > 0, 1.0 - risk / base, np.nan)


def _aggregate_outputs(pa: np.ndarray, multioutput: Any) -> np.ndarray:
    """``prediction_advantage``'s ``multioutput`` averaging on a (b, outputs) array."""
    if pa.shape[1] == 1:
        return pa[:, 0]
    if isinstance(multioutput, str):  # "uniform_average" ("raw_values" is refused upstream)
        return pa.mean(axis=1)
    weights = np.asarray(multioutput, dtype=np.float64)
    return (pa * weights).sum(axis=1) / weights.sum()


class _PALabelRows(_PARows):
    """Label losses (0/1, cost matrices, label callables): true-class sums N and the loss sum."""

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        lo = self.lo
        labels = self.options.get("labels")
        extra = lo.extra_labels()
        if labels is None and extra is not None:
            labels = union_labels(base.y_true, base.y_pred, extra,
                                  names=("y_true", "y_pred", "the loss's labels"))
        ct, cp, classes = encode_labels(base.y_true, base.y_pred, labels=labels)
        k = classes.shape[0]
        self.table = None if type(lo) is ZeroOneLoss else lo.loss_matrix(classes)
        X = np.zeros((ct.shape[0], k + 1))
        X[np.arange(ct.shape[0]), ct] = 1.0
        # 0/1 loss: the correct predictions (R(f) = (n − Σ correct) / n, as the function)
        X[:, k] = (ct == cp) if self.table is None else self.table[cp, ct]
        return X

    def _from_sums(self, sums: np.ndarray, counts_of: Callable) -> np.ndarray:
        true_counts, loss = sums[:, :-1], sums[:, -1]
        total = true_counts.sum(axis=1)
        if self.table is None:
            risk = (total - loss) / total
            base = (total - true_counts.max(axis=1)) / total
        else:
            risk = loss / total
            base = _label_bmp_risk(true_counts, total, self.table)
        return _pa_from_risks(risk, base)


class _PAProbaRows(_PARows):
    """Log loss and Brier score: class sums (BMP = resampled prior, risk H(p) or
    1 − Σ p²) and the loss sum."""

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        yt = as_1d(base.y_true, "y_true")
        labels = self.options.get("labels")
        codes, _, classes = encode_labels(yt, labels=labels)
        k = classes.shape[0]
        proba = _read_proba(base.y_pred, k, bool(self.options.get("normalize", False)), classes)
        X = np.zeros((codes.shape[0], k + 1))
        X[np.arange(codes.shape[0]), codes] = 1.0
        X[:, k] = self.lo.sample_losses_proba(proba, codes)
        return X

    def _from_sums(self, sums: np.ndarray, counts_of: Callable) -> np.ndarray:
        class_sums, loss = sums[:, :-1], sums[:, -1]
        total = class_sums.sum(axis=1)
        base = np.asarray(self.lo.bmp_risk_proba(class_sums / total[:, None]), dtype=np.float64)
        return _pa_from_risks(loss / total, base)


class _PASquaredRows(_PARows):
    """Squared loss (R²): per output Σw, Σw·y, Σw·y², Σw·(y − ŷ)², y centred on its
    full-sample mean; resamples where the moment formula could lose precision (variance
    below 1/4096 of the second moment, including every one-valued resample) are
    recomputed by the two-pass formula of the function."""

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        y = _as_targets(base.y_true, "y_true")
        f = _as_targets(base.y_pred, "y_pred")
        self.y = y
        n, k = y.shape
        wf = self.m * (self.u if self.u is not None else 1.0)
        z = y - (wf @ y) / wf.sum()  # centred on the full-sample mean: moments lose less
        self.outputs = k
        X = np.empty((n, 1 + 3 * k))
        X[:, 0] = 1.0
        X[:, 1::3] = z
        X[:, 2::3] = z * z
        X[:, 3::3] = (f - y) ** 2
        return X

    def _from_sums(self, sums: np.ndarray, counts_of: Callable) -> np.ndarray:
        s0 = sums[:, :1]
        s1, s2, sr = sums[:, 1::3], sums[:, 2::3], sums[:, 3::3]
        second = s2 / s0
        var = second - (s1 / s0) ** 2
        risk = sr / s0
        suspect = ~(var > _MOMENT_TRUST * second)
        rows = np.flatnonzero(suspect.any(axis=1))
        chunk = _chunk_size(self.m.size, rows.size)
        for start in range(0, rows.size, chunk):  # usually none, or a few
            sub = rows[start : start + chunk]
            var[sub] = self._two_pass(counts_of(sub))
        pa = _pa_from_risks(risk, var)
        return _aggregate_outputs(pa, self.options.get("multioutput", "uniform_average"))

    def _two_pass(self, counts: np.ndarray) -> np.ndarray:
        """Var(Y) of each output for a few resamples, as the function computes it."""
        w = self._weights(counts)
        pos = w > 0
        total = w.sum(axis=1, keepdims=True)
        out = np.empty((counts.shape[0], self.outputs))
        for j in range(self.outputs):  # a loop over outputs, vectorised over resamples and rows
            yj = self.y[:, j]
            mean = (w * yj).sum(axis=1, keepdims=True) / total
            d = yj - mean
            var = (w * d * d).sum(axis=1) / total[:, 0]
            smallest = np.where(pos, yj, np.inf).min(axis=1)
            largest = np.where(pos, yj, -np.inf).max(axis=1)
            out[:, j] = np.where(smallest == largest, 0.0, var)  # one value: exactly 0
        return out


class _PAQuantileRows(_PARows):
    """Absolute and pinball losses: the BMP is the resample's weighted α-quantile.

    y is sorted once per output; a resample's quantile is read from the cumulative
    resampled weights in that order, by the convention of
    :func:`beyondchance.measures.weighted_quantile` (smallest y whose cumulative weight reaches
    α·W, averaged with the next drawn value on an exact hit).  Rows a resample does not
    draw add 0, so the cumulative weights equal the function's sums over the drawn rows
    bit for bit and the quantile is the same: with integer-valued weights (no weights,
    frequency weights, integer importance weights) every partial sum is an exact
    integer, so block sums locate the quantile's block and one cumulative sum inside
    it finds the position; other weights take the full row-wise cumulative sum.  The
    BMP risk Σ w ρ(y − q) / W comes from block prefix sums of w and w·(y − c) (c the
    full-sample quantile); resamples where that could lose precision (risk below
    1/256 of Σ w |y − c| + |q − c| W, including every one-valued resample) are
    recomputed term by term.
    """

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        y = _as_targets(base.y_true, "y_true")
        f = _as_targets(base.y_pred, "y_pred")
        lo = self.lo
        self.alpha = 0.5 if isinstance(lo, AbsoluteLoss) else float(lo.alpha)
        # ρ(d) = up·d for d ≥ 0, −low·d for d < 0 (d = y − q)
        self.up, self.low = (1.0, 1.0) if isinstance(lo, AbsoluteLoss) else (self.alpha, 1 - self.alpha)
        self.target_share = (self.alpha * 100) / 100  # weighted_quantile's arithmetic
        self.y = y
        self.outputs = y.shape[1]
        self.order = [np.argsort(y[:, j], kind="stable") for j in range(self.outputs)]
        u = self.u
        units = float(self.m.sum()) * (1.0 if u is None else float(u.max()))
        self.integer_weights = (u is None or bool(np.all(u == np.rint(u)))) and units < 2.0**53
        wf = self.m * (1.0 if u is None else u)
        self.sorted = []  # per output: sorted y, y centred on the full-sample quantile, |that|
        for j, order in enumerate(self.order):
            ys = y[order, j]
            centre = weighted_quantile(y[:, j], self.alpha, wf)
            z = ys - centre
            self.sorted.append((ys, z, np.abs(z), centre))
        X = np.empty((y.shape[0], 1 + self.outputs))
        X[:, 0] = 1.0
        X[:, 1:] = np.column_stack([_losses(lo, f[:, j], y[:, j]) for j in range(self.outputs)])
        return X

    def _rho_sum(self, w: np.ndarray, ys: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Σ_j w_j ρ(y_j − q) per row, term by term (as the function computes it)."""
        d = ys[None, :] - q[:, None]
        if self.up == self.low == 1.0:
            np.abs(d, out=d)
        else:
            d = np.where(d >= 0, self.up * d, -self.low * d)
        d *= w
        return d.sum(axis=1)

    def _position(self, ws: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(pos, cumulative weight at pos, target, total) of each row of sorted weights."""
        b, n = ws.shape
        rows = np.arange(b)
        if self.integer_weights:
            blocks = _block_sums(ws)
            cum_blocks = np.cumsum(blocks, axis=1)
            total = cum_blocks[:, -1]
            target = _quantile_target(self.target_share, total)
            blk = np.minimum(_row_searchsorted(cum_blocks, target), blocks.shape[1] - 1)
            first = blk * _BLOCK
            cols = first[:, None] + np.arange(_BLOCK)
            inside = cols < n
            local = np.where(inside, ws[rows[:, None], np.minimum(cols, n - 1)], 0.0)
            before = np.where(blk > 0, cum_blocks[rows, np.maximum(blk - 1, 0)], 0.0)
            cum_local = before[:, None] + np.cumsum(local, axis=1)
            offset = np.minimum(_row_searchsorted(cum_local, target), _BLOCK - 1)
            pos = first + offset
            value = cum_local[rows, offset]
        else:
            cum = np.cumsum(ws, axis=1)
            total = cum[:, -1]
            target = _quantile_target(self.target_share, total)
            pos = _row_searchsorted(cum, target)
            value = cum[rows, np.minimum(pos, n - 1)]
        over = ~(value >= target) | (pos >= n)  # rounding put the target past the last drawn row
        if over.any():
            pos[over] = n - 1 - np.argmax(ws[over, ::-1] > 0, axis=1)
            value[over] = total[over]
        return pos, value, target, total

    def _base_risks(self, counts: np.ndarray) -> np.ndarray:
        w = self._weights(counts)
        out = np.empty((counts.shape[0], self.outputs))
        for j, order in enumerate(self.order):  # a loop over outputs
            ys, z, abs_z, centre = self.sorted[j]
            ws = np.take(w, order, axis=1)
            pos, value, target, total = self._position(ws)
            q = ys[pos]
            hit = np.flatnonzero(~(value - target > _EPS))
            if hit.size:
                q[hit] = (ys[pos[hit]] + ys[_next_positive(ws, hit, pos[hit])]) / 2
            # Σ w ρ(y − q) = up·Σ_{y ≥ q} w (z − qz) + low·Σ_{y < q} w (qz − z), from prefix sums
            qz = q - centre
            t = np.searchsorted(ys, q, side="left")
            below_w, below_z = _prefix_sums(ws, z, t)
            sum_z = _block_sums(ws, z).sum(axis=1)
            above = (sum_z - below_z) - qz * (total - below_w)
            below = qz * below_w - below_z
            risk = self.up * above + self.low * below
            scale = np.einsum("ij,j->i", ws, abs_z) + np.abs(qz) * total
            exact = np.flatnonzero(~(risk > scale / 256.0))
            if exact.size:
                risk[exact] = self._rho_sum(ws[exact], ys, q[exact])
            out[:, j] = risk / total
        return out

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        sums = np.asarray(counts, dtype=np.float64) @ self.X
        with np.errstate(all="ignore"):
            risk = sums[:, 1:] / sums[:, :1]
            pa = _pa_from_risks(risk, self._base_risks(counts))
        return _aggregate_outputs(pa, self.options.get("multioutput", "uniform_average"))

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        present = np.flatnonzero(self.m > 0)
        full = self.m.astype(np.float64) @ self.X
        loo = full[None, :] - self.X[present]
        with np.errstate(all="ignore"):
            risk = loo[:, 1:] / loo[:, :1]
            base = np.column_stack([self._loo_base_risk(j, present) for j in range(self.outputs)])
            pa = _pa_from_risks(risk, base)
        return _aggregate_outputs(pa, self.options.get("multioutput", "uniform_average")), self.m[present]

    def _loo_base_risk(self, j: int, present: np.ndarray) -> np.ndarray:
        """R(f₀) of output j with one unit of each present row removed, in O(n log n).

        Removing a unit of weight δ from the row at sorted position s lowers the
        cumulative weights from s on by δ; the quantile is found by two searches in the
        full-sample cumulative weights, and Σ w ρ(y − q) for every leave-one-out q from
        prefix sums (y centred on the full-sample quantile).
        """
        order = present[np.argsort(self.y[present, j], kind="stable")]
        ys = self.y[order, j]
        units = self.m[order].astype(np.float64)
        delta = self.u[order] if self.u is not None else np.ones(order.size)
        uw = units * delta  # the full-sample weights passed to the function
        n_p = order.size
        cum = np.cumsum(uw)
        total = cum[-1]
        left = delta == uw  # the row leaves the sample with its unit
        pos_s = np.arange(n_p)
        total_l = total - delta
        target = self.target_share * total_l
        a = np.searchsorted(cum, target, side="left")
        b = np.searchsorted(cum, target + delta, side="left")
        pos = np.where(a < pos_s, a, b)
        pos = np.where(left & (pos == pos_s), pos_s + 1, pos)
        last = np.where(left & (pos_s == n_p - 1), n_p - 2, n_p - 1)
        pos = np.minimum(pos, last)
        value = cum[pos] - np.where(pos >= pos_s, delta, 0.0)
        hit = ~(value - target > _EPS)
        nxt = pos + 1
        nxt = np.where(left & (nxt == pos_s), nxt + 1, nxt)
        nxt = np.minimum(nxt, last)
        q = np.where(hit, (ys[pos] + ys[np.maximum(nxt, 0)]) / 2, ys[pos])
        # Σ_j uw_j ρ(ys_j − q) from prefix sums, then minus the removed unit's term
        centre = ys[pos].mean() if n_p else 0.0
        z = ys - centre
        qz = q - centre
        cw = np.r_[0.0, cum]
        cz = np.r_[0.0, np.cumsum(uw * z)]
        t = np.searchsorted(ys, q, side="left")
        below_w, below_z = cw[t], cz[t]
        above = (cz[-1] - below_z) - qz * (total - below_w)
        below = qz * below_w - below_z
        full = self.up * above + self.low * below
        d = ys - q
        removed = delta * np.where(d >= 0, self.up * d, -self.low * d)
        risk0 = np.maximum(full - removed, 0.0) / total_l
        # one value left: the function's BMP risk is exactly 0
        values, inverse = np.unique(ys, return_inverse=True)
        group_units = np.bincount(inverse, weights=units)
        if values.size == 1:
            single = np.ones(n_p, dtype=bool)
        else:
            single = (values.size == 2) & (group_units[inverse] == 1)
        risk0 = np.where(single, 0.0, risk0)
        out = np.empty(present.size)
        where = np.empty(self.m.size, dtype=np.int64)
        where[present] = np.arange(present.size)
        out[where[order]] = risk0
        return out


#: Block width of the quantile search and of the prefix sums (columns).
_BLOCK = 512


def _quantile_target(share: float, total: np.ndarray) -> np.ndarray:
    """α·W as :func:`beyondchance.measures.weighted_quantile` computes it."""
    target = share * total
    return np.where(target == 0, np.nextafter(0.0, 1.0), target)


def _block_sums(ws: np.ndarray, vec: np.ndarray | None = None) -> np.ndarray:
    """Per row, the sums of ``ws`` (times ``vec``) over consecutive blocks of columns."""
    b, n = ws.shape
    full = n - n % _BLOCK
    parts = []
    if full:
        w3 = ws[:, :full].reshape(b, -1, _BLOCK)  # a view: only the last axis is split
        parts.append(w3.sum(axis=2) if vec is None
                     else np.einsum("rkb,kb->rk", w3, vec[:full].reshape(-1, _BLOCK)))
    if full < n:
        tail = ws[:, full:]
        parts.append((tail.sum(axis=1) if vec is None else tail @ vec[full:])[:, None])
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


def _prefix_sums(ws: np.ndarray, vec: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row r, (Σ_{j<t_r} ws[r, j], Σ_{j<t_r} ws[r, j]·vec[j]) from block sums."""
    b, n = ws.shape
    rows = np.arange(b)
    cw = np.cumsum(_block_sums(ws), axis=1)
    cv = np.cumsum(_block_sums(ws, vec), axis=1)
    blk = t // _BLOCK
    prev = np.maximum(blk - 1, 0)
    sum_w = np.where(blk > 0, cw[rows, prev], 0.0)
    sum_v = np.where(blk > 0, cv[rows, prev], 0.0)
    cols = blk[:, None] * _BLOCK + np.arange(_BLOCK)
    take = cols < t[:, None]
    cols = np.minimum(cols, n - 1)
    local = np.where(take, ws[rows[:, None], cols], 0.0)
    return sum_w + local.sum(axis=1), sum_v + (local * vec[cols]).sum(axis=1)


def _row_searchsorted(cum: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per row r, the first column with ``cum[r, col] >= target[r]`` (rows non-decreasing):
    a binary search vectorised over the rows (``n`` if there is none)."""
    b, n = cum.shape
    lo = np.zeros(b, dtype=np.int64)
    hi = np.full(b, n, dtype=np.int64)
    rows = np.arange(b)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        below = cum[rows, np.minimum(mid, n - 1)] < target
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)


def _next_positive(ws: np.ndarray, rows: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For each row r of ``rows``, the first column after ``pos`` with a positive weight
    (``pos`` itself when there is none)."""
    n = ws.shape[1]
    out = pos.copy()
    todo = np.arange(rows.size)
    for step in range(1, _NEXT_STEPS + 1):  # usually found within a step or two
        col = pos[todo] + step
        inside = col < n
        found = np.zeros(todo.size, dtype=bool)
        found[inside] = ws[rows[todo[inside]], col[inside]] > 0
        out[todo[found]] = col[found]
        todo = todo[~found & inside]
        if todo.size == 0:
            return out
    later = np.arange(n)[None, :] > pos[todo][:, None]
    mask = (ws[rows[todo]] > 0) & later
    has = mask.any(axis=1)
    out[todo[has]] = np.argmax(mask, axis=1)[has]
    return out
