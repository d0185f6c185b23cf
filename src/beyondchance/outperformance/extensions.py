r"""Beyond the OPS paper: confidence intervals and multi-class / multi-label OPS.

Two extensions of the outperformance score (OPS paper, Definition 1, eq. 6),
OPS_M(μ; π) = Pr{M(π, A, B) < μ} with A, B ~ Uniform[0, 1] independent:

:func:`outperformance_score_ci`
    A bootstrap confidence interval for the OPS of a labeling or a scoring metric
    **over the test set**.  The OPS of a test set depends on the data through two
    estimates, the metric value μ̂ and the prevalence π̂; both are re-estimated in
    every resample and OPS(μ̂*_b; π̂*_b) is recomputed, so the interval carries the
    sampling uncertainty of both.  A resample of the n rows (drawn with replacement)
    is, for a function of the confusion matrix, a draw of the resampled matrix:
    Multinomial(n, C / n) over the four cells without weights, or over the (cell,
    weight) pools of the rows with importance weights (the pools of
    :func:`beyondchance.bootstrap_ci`, drawn by the same helper); for a function of
    the curve, a draw over the (distinct score, class) cells
    (:class:`beyondchance.measures.binary_scores.ScoreCells`, the report's score
    bootstrap).  The B metric values come from
    :func:`~beyondchance.measures.confusion.metric_from_matrices` on the stack of resampled
    matrices, or from the resampled curves by the classifier's own estimator; the B
    scores from **one** vectorised :func:`~beyondchance.outperformance_score` call.
    The interval is the percentile interval [θ*_(α/2), θ*_(1−α/2)] (Efron &
    Tibshirani 1993, ch. 13).

:func:`multiclass_outperformance_score`
    One-vs-rest OPS: class k's (tp, fp, fn, tn) against the rest give its value μ_k
    and prevalence π_k = (tp_k + fn_k)/n, hence OPS_k = OPS_M(μ_k; π_k); the
    aggregate is the macro mean (1/K) Σ_k OPS_k or the prevalence-weighted mean
    Σ_k π_k OPS_k / Σ_k π_k.  Multi-label indicator matrices (n × L, 0/1) are L
    binary problems, one per column.

>>> import numpy as np
>>> from beyondchance.outperformance import multiclass_outperformance_score
>>> r = multiclass_outperformance_score("f1", [0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 2, 0])
>>> r.labels.tolist(), r.prevalences.round(3).tolist()
([0, 1, 2], [0.333, 0.333, 0.333])
>>> bool(r.score == r.scores.mean())
True
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .._summary_display import SummaryDisplay, format_number
from .._json import jsonable as _jsonable
from .._validation import (
    as_1d,
    check_confidence_level,
    check_consistent_length,
    check_option,
    check_n_resamples,
    check_positive_int,
    check_random_state,
    check_sample_weight,
)
from .._warnings import InvalidInputError, UndefinedMeasureWarning
from ..measures.confusion import ConfusionMatrix, metric_from_matrices
from ..measures.registry import LabelingMetric, get_metric
from .score import _normalise, outperformance_score

__all__ = [
    "OPSInterval",
    "MulticlassOPSResult",
    "outperformance_score_ci",
    "multiclass_outperformance_score",
]

_AVERAGES = ("macro", "weighted")


def _labeling_metric(metric: Any) -> LabelingMetric:
    """The registered labeling metric (scoring metric names are dispatched before this)."""
    if isinstance(metric, LabelingMetric):
        return metric
    if isinstance(metric, str):
        key = _normalise(metric)
        if "auc" in key or "_at_" in key:
            from .scoring import SCORING_METRICS

            raise InvalidInputError(
                f"unknown scoring metric {metric!r}; known scoring metrics: {', '.join(SCORING_METRICS)}"
            )
    return get_metric(metric)


# --- confidence interval ---------------------------------------------------------------------


@dataclass(frozen=True)
class OPSInterval:
    """Bootstrap confidence interval of an outperformance score over the test set.

    Attributes
    ----------
    estimate : OPS of the full test set, OPS_M(μ̂; π̂)
    low, high : percentile interval ends
    standard_error : standard deviation (ddof=1) of the defined bootstrap OPS values
    confidence_level : nominal coverage
    method : ``"percentile"``
    n_resamples : B
    n_undefined : resamples left out (metric undefined, or one class only so that π̂* ∈ {0, 1})
    metric : canonical metric name
    value, prevalence : μ̂ and π̂ of the full test set
    distribution : the B bootstrap OPS values (nan where undefined)
    """

    estimate: float
    low: float
    high: float
    standard_error: float
    confidence_level: float
    method: str
    n_resamples: int
    n_undefined: int
    metric: str
    value: float
    prevalence: float
    distribution: np.ndarray = field(repr=False, compare=False)
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, distribution: bool = False) -> dict[str, Any]:
        """JSON-safe representation (the bootstrap distribution only on request)."""
        out = {
            "estimate": _jsonable(self.estimate),
            "low": _jsonable(self.low),
            "high": _jsonable(self.high),
            "standard_error": _jsonable(self.standard_error),
            "confidence_level": self.confidence_level,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "n_undefined": self.n_undefined,
            "metric": self.metric,
            "value": _jsonable(self.value),
            "prevalence": _jsonable(self.prevalence),
            "options": {k: _jsonable(v) for k, v in self.options.items()},
        }
        if distribution:
            out["distribution"] = _jsonable(self.distribution)
        return out


def _stack(counts: np.ndarray, cells: np.ndarray, v: np.ndarray, k: int) -> np.ndarray:
    """Resampled (b, k, k) matrices from (b, G) pool counts: cell c gets Σ_g counts·v."""
    design = np.zeros((cells.size, k * k))
    design[np.arange(cells.size), cells] = v
    return (counts @ design).reshape(-1, k, k)


def outperformance_score_ci(
    metric: str | LabelingMetric,
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    random_state: Any = None,
    pos_label: Any = 1,
    score_bins: int = 1000,
    **options: Any,
) -> OPSInterval:
    r"""Percentile bootstrap interval of the OPS of a metric over the test set.

    In resample b (n rows drawn with replacement) the metric value μ*_b and the
    prevalence π*_b are recomputed and θ*_b = OPS_M(μ*_b; π*_b) (OPS paper, eq. 6
    for a labeling metric, eq. 8 / 10 for a scoring metric; both arguments
    re-estimated).  The interval is [θ*_(α/2), θ*_(1−α/2)], α = 1 − ``confidence_level``.

    * Labeling metric: the resampled confusion matrix C*_b gives μ*_b = M(C*_b) and
      π*_b = (TP*_b + FN*_b)/n*_b.
    * Scoring metric (``"roc_auc"``, ``"pr_auc"``, ``"lift_auc"``, ``"gain_auc"``, the
      NAUC variants, ``"precision_at_recall"``, ``"lift_at_rate"``,
      ``"precision_at_rate"``): the resampled cells (distinct score, class) give the
      resampled curve, hence μ*_b by the classifier's own estimator
      (``beyondchance.outperformance.scoring.scoring_metric_from_rates``).  With
      more than ``score_bins`` distinct scores adjacent scores are pooled into
      ``score_bins`` bins of equal row count for the resamples, and μ*_b is shifted
      by the binning error μ̂ − μ̂_bin (``beyondchance.measures.binary_scores``); beyond
      10⁶ rows the cell counts are Poisson draws.  The OPS of every μ*_b is read from
      one Directed-Binary-Tree reference (its options — ``n_samples``, ``depth``,
      ``reference``, ``auc_method``, ``at`` — pass through ``**options``; its seed is
      the reference default, not ``random_state``).

    Parameters
    ----------
    metric : str or LabelingMetric
        A labeling metric (``"f1"``, ``"mcc"``, ``"accuracy"`` …) or a scoring metric
        name (above).
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Predicted labels (labeling metric) or scores, higher meaning more likely
        positive (scoring metric).
    sample_weight : array-like of shape (n,), optional
        Importance weights: rows are resampled and keep their weights.
    n_resamples : int, default 2000
        At least ⌈2 / (1 − confidence_level)⌉ (40 at 95%), as in
        :func:`~beyondchance.bootstrap_ci`.
    confidence_level : float in (0, 1), default 0.95
    random_state : None, int or numpy.random.Generator
        Seed of the resampling.
    pos_label : the positive class (default 1)
    score_bins : int, default 1000
        Scoring metrics: the most cells per class in a resample (see above).
    **options
        Metric options, e.g. ``beta`` for ``"fbeta"``; ``at`` and ``auc_method`` for
        scoring metrics, and the reference's ``n_samples``, ``depth``, ``reference``.

    Returns
    -------
    OPSInterval

    Notes
    -----
    Resamples where the metric is undefined (0/0) or that hold one true class only
    (π* ∈ {0, 1}, where OPS is undefined) are left out with an
    :class:`~beyondchance.UndefinedMeasureWarning` giving their number; the interval is
    then conditional on OPS being defined.  For a scoring metric the interval is the
    sampling uncertainty of the test set only: every resample is scored against the
    same Monte Carlo reference, whose own standard error (``OPSResult.standard_error``
    of :func:`~beyondchance.outperformance_score`, ≤ 0.0015 at the default G) is not
    in it.  Measured coverage of the population OPS by the 95% interval (binormal
    scores, n = 200, π = 0.3, 1,000 test sets, B = 1,000, G = 4,096): 0.946 for roc_auc, 0.936
    for pr_auc.

    Examples
    --------
    >>> import numpy as np
    >>> from beyondchance.outperformance import outperformance_score, outperformance_score_ci
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(400) < 0.2).astype(int)
    >>> pred = np.where(rng.random(400) < 0.85, y, 1 - y)
    >>> ci = outperformance_score_ci("f1", y, pred, random_state=0)
    >>> ci.method, ci.n_resamples
    ('percentile', 2000)
    >>> bool(ci.low < ci.estimate < ci.high)
    True
    >>> point = outperformance_score("f1", ci.value, ci.prevalence).score
    >>> bool(ci.estimate == point)
    True
    """
    from ..inference.bootstrap_resampling import _chunk_size, _confusion_pools, _draw_counts, _uses_multinomial

    level = check_confidence_level(confidence_level)
    n_resamples = check_n_resamples(n_resamples, level)
    rng = check_random_state(random_state)
    scoring = _scoring_name(metric)
    if scoring is not None:
        mu0, pi0, mu, pi = _scoring_resamples(
            scoring, y_true, y_pred, sample_weight, pos_label, n_resamples, rng,
            check_positive_int(score_bins, "score_bins"), options,
        )
        return _interval(scoring, mu0, pi0, mu, pi, level, n_resamples, options)
    m = _labeling_metric(metric)
    if "average" in options or "labels" in options:
        raise InvalidInputError(
            "outperformance_score_ci is for binary problems (no average=/labels=); "
            "use multiclass_outperformance_score for several classes"
        )
    cm, cells, v, pools = _confusion_pools(y_true, y_pred, sample_weight, "importance", None, pos_label)
    k = cm.n_classes
    if k > 2:
        raise InvalidInputError(
            f"y_true/y_pred hold {k} classes; outperformance_score_ci needs a binary problem "
            "(use multiclass_outperformance_score)"
        )
    pos = cm._pos_index()  # raises if pos_label is not a label (and there are two)

    def values_and_prevalences(mats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(all="ignore"):
            val = np.asarray(metric_from_matrices(mats, m, pos_index=pos, **options), dtype=np.float64)
            n = mats.sum(axis=(-2, -1))
            npos = mats[:, pos, :].sum(axis=-1) if pos is not None else np.zeros_like(n)
            prev = npos / n
        return np.atleast_1d(val), np.atleast_1d(prev)

    mu0, pi0 = values_and_prevalences(cm.matrix[None])
    total = int(pools.sum())
    per = pools.size if _uses_multinomial(pools, total) else total + pools.size
    chunk = _chunk_size(per, n_resamples)
    mu = np.empty(n_resamples)
    pi = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        counts = _draw_counts(rng, pools, total, size)
        mu[start : start + size], pi[start : start + size] = values_and_prevalences(_stack(counts, cells, v, k))

    return _interval(m, mu0, pi0, mu, pi, level, n_resamples, options)


def _interval(
    metric: Any, mu0: np.ndarray, pi0: np.ndarray, mu: np.ndarray, pi: np.ndarray,
    level: float, n_resamples: int, options: dict[str, Any],
) -> OPSInterval:
    """The percentile interval from the sample's (μ̂, π̂) and the resampled (μ*, π*)."""
    name = metric if isinstance(metric, str) else metric.name
    # one vectorised OPS call for the estimate and every defined resample
    all_mu, all_pi = np.r_[mu0, mu], np.r_[pi0, pi]
    ok = np.isfinite(all_mu) & (all_pi > 0) & (all_pi < 1)
    scores = np.full(all_mu.size, np.nan)
    if ok.any():
        res = outperformance_score(metric, all_mu[ok], all_pi[ok], **options)
        scores[ok] = np.atleast_1d(res.score)
    estimate, distribution = float(scores[0]), scores[1:]
    distribution.setflags(write=False)
    n_undefined = int(n_resamples - ok[1:].sum())
    theta = distribution[np.isfinite(distribution)]
    nan = float("nan")
    if not np.isfinite(estimate):
        warnings.warn(
            f"the OPS of {name} is undefined on the data (metric 0/0 or one class only); no interval",
            UndefinedMeasureWarning,
            stacklevel=3,
        )
        low = high = se = nan
    else:
        if n_undefined:
            warnings.warn(
                f"OPS of {name} is undefined in {n_undefined} of {n_resamples} bootstrap resamples; "
                "they were left out, so the interval is conditional on OPS being defined",
                UndefinedMeasureWarning,
                stacklevel=3,
            )
        if theta.size:
            a = (1.0 - level) / 2.0
            low, high = (float(x) for x in np.percentile(theta, [100 * a, 100 * (1 - a)]))
        else:
            low = high = nan
        se = float(np.std(theta, ddof=1)) if theta.size > 1 else nan
    return OPSInterval(
        estimate=estimate,
        low=low,
        high=high,
        standard_error=se,
        confidence_level=level,
        method="percentile",
        n_resamples=n_resamples,
        n_undefined=n_undefined,
        metric=name,
        value=float(mu0[0]),
        prevalence=float(pi0[0]),
        distribution=distribution,
        options=dict(options),
    )


def _scoring_name(metric: Any) -> str | None:
    """The canonical scoring-metric name, or None for anything else."""
    if not isinstance(metric, str):
        return None
    from .scoring import SCORING_METRICS

    key = _normalise(metric)
    return key if key in SCORING_METRICS else None


def _scoring_resamples(
    metric: str, y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any,
    n_resamples: int, rng: np.random.Generator, score_bins: int, options: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(μ̂, π̂) of the data and (μ*_b, π*_b) of the resampled (score, class) cells.

    The cells and their draws are :class:`~beyondchance.measures.binary_scores.ScoreCells`
    (the report's score bootstrap); μ*_b is shifted by the binning error and clipped
    to the metric's range, nan where a resample lacks a class.
    """
    from ..measures.curves import threshold_counts
    from ..measures.binary_scores import ScoreCells
    from .scoring import scoring_metric_from_rates, scoring_metric_lower, scoring_metric_upper

    value_opts = {k: options[k] for k in ("at", "auc_method") if k in options}
    tc = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    units = None
    if sample_weight is not None:  # unit counts on the same thresholds (rows of positive weight)
        keep = np.asarray(sample_weight, dtype=np.float64) > 0
        units = threshold_counts(as_1d(y_true, "y_true")[keep], np.asarray(y_score)[keep], pos_label=pos_label)
    nan = np.full(1, np.nan)
    if not tc.is_defined:
        return nan, np.atleast_1d(tc.prevalence), np.full(n_resamples, np.nan), np.full(n_resamples, np.nan)

    def value(alpha: np.ndarray, beta: np.ndarray, pi: Any) -> np.ndarray:
        return np.atleast_1d(scoring_metric_from_rates(metric, alpha, beta, pi, validate=False, **value_opts))

    alpha, beta = tc.rates()
    mu0, pi0 = value(alpha, beta, tc.prevalence), np.atleast_1d(tc.prevalence)
    cells = ScoreCells.from_counts(tc, units, max_bins=score_bins)
    a, b, p, _ = cells.curve_rates(cells.pos_weight[None], cells.neg_weight[None])
    shift = float(mu0[0] - value(a, b, p)[0])  # the binning error (0 when exact)
    vpos, vneg = cells.unit_weights()
    mus, pis = [], []
    for cp, cn in cells.resamples(n_resamples, rng):
        a, b, p, ok = cells.curve_rates(cp * vpos, cn * vneg)
        method = value_opts.get("auc_method", "default")
        lower = scoring_metric_lower(metric, p, auc_method=method)
        upper = scoring_metric_upper(metric, p, auc_method=method)
        mus.append(np.where(ok, np.clip(value(a, b, p) + shift, lower, upper), np.nan))
        pis.append(np.where(ok, p, np.nan))
    return mu0, pi0, np.concatenate(mus), np.concatenate(pis)


# --- multi-class and multi-label ---------------------------------------------------------------


@dataclass(frozen=True)
class MulticlassOPSResult(SummaryDisplay):
    """One-vs-rest outperformance scores of a multi-class or multi-label problem.

    Attributes
    ----------
    score : the aggregate (macro or prevalence-weighted mean of the defined per-class
        scores), or the per-class array when ``average`` is None
    scores : OPS of each class (nan where undefined: class absent from, or the only
        class of, the truth; or metric 0/0)
    values : metric value of each class against the rest
    prevalences : prevalence π_k of each class (true share; weighted)
    labels : the classes (or column indices of a multi-label matrix)
    average : ``"macro"``, ``"weighted"`` or None
    metric : canonical metric name
    multilabel : whether the input was an indicator matrix
    """

    score: Any
    scores: np.ndarray
    values: np.ndarray
    prevalences: np.ndarray
    labels: np.ndarray
    average: str | None
    metric: str
    multilabel: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.score)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(result)``: the aggregate score (per-class scores when ``average`` is None)."""
        return np.array(self.score, dtype=np.float64 if dtype is None else dtype)

    def _summary_title(self) -> str:
        kind = "multi-label" if self.multilabel else "one-vs-rest"
        return f"Outperformance score of {self.metric} ({kind}, average {self.average})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("OPS", self.score), *((f"class {label}", f"OPS {format_number(s)} (value {format_number(v)}, "
                                                            f"prevalence {format_number(p)})")
                                       for label, s, v, p in zip(self.labels.tolist(), self.scores, self.values,
                                                                 self.prevalences))]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "score": _jsonable(self.score),
            "scores": _jsonable(self.scores),
            "values": _jsonable(self.values),
            "prevalences": _jsonable(self.prevalences),
            "labels": _jsonable(self.labels),
            "average": self.average,
            "metric": self.metric,
            "multilabel": self.multilabel,
            "options": {k: _jsonable(v) for k, v in self.options.items()},
        }


def _indicator(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InvalidInputError(f"{name} must be a non-empty (n, L) indicator matrix, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        return arr.astype(np.float64)
    if arr.dtype.kind not in "iuf" or not np.isin(arr, (0, 1)).all():
        raise InvalidInputError(f"{name} must hold only 0/1 (or booleans) as a multi-label indicator matrix")
    return arr.astype(np.float64)


def _multilabel_counts(y_true: Any, y_pred: Any, sample_weight: Any) -> tuple[np.ndarray, ...]:
    yt, yp = _indicator(y_true, "y_true"), _indicator(y_pred, "y_pred")
    if yt.shape != yp.shape:
        raise InvalidInputError(f"y_true has shape {yt.shape} but y_pred has shape {yp.shape}")
    w = check_sample_weight(sample_weight, yt.shape[0])
    w = np.ones(yt.shape[0]) if w is None else w
    tp = w @ (yt * yp)
    fn = w @ (yt * (1 - yp))
    fp = w @ ((1 - yt) * yp)
    tn = w @ ((1 - yt) * (1 - yp))
    return tp, fp, fn, tn


def multiclass_outperformance_score(
    metric: str | LabelingMetric,
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    labels: Any = None,
    average: Literal["macro", "weighted"] | None = "macro",
    **options: Any,
) -> MulticlassOPSResult:
    r"""One-vs-rest outperformance scores of a multi-class or multi-label classifier.

    For each class k (or label column), with its one-vs-rest counts,
    μ_k = M(tp_k, fp_k, fn_k, tn_k), π_k = (tp_k + fn_k)/n and
    OPS_k = OPS_M(μ_k; π_k) (OPS paper, eq. 6, applied per class).  Aggregates:

    .. math::

        \text{macro} = \frac1K\sum_k \mathrm{OPS}_k,\qquad
        \text{weighted} = \frac{\sum_k \pi_k\,\mathrm{OPS}_k}{\sum_k \pi_k},

    over the classes whose OPS is defined (a class absent from the truth, the only
    class of the truth, or with an undefined metric value is left out with an
    :class:`~beyondchance.UndefinedMeasureWarning`).

    Parameters
    ----------
    metric : str or LabelingMetric
        A labeling metric, evaluated on each class's 2 × 2 one-vs-rest counts; or a
        scoring metric (``"roc_auc"``, ``"pr_auc"`` …, see
        :func:`~beyondchance.outperformance_score`), evaluated on the curve of each
        class's column of scores.
    y_true : array-like of shape (n,) (class labels) or (n, L) (0/1 indicators)
    y_pred : array-like
        Predicted labels, of the shape of ``y_true`` (labeling metric); or scores of
        shape (n, K), column k for the k-th class of ``labels`` (default: the sorted
        classes of ``y_true``, as scikit-learn) or for label column k (scoring metric).
    sample_weight : array-like of shape (n,), optional
    labels : array-like, optional
        Class labels to score, in order (multi-class); names of the L columns
        (multi-label; default 0 … L−1).
    average : {"macro", "weighted"} or None, default "macro"
        None returns the per-class scores as ``score``.
    **options
        Metric options, e.g. ``beta``; ``at``, ``auc_method`` and the reference's
        options for a scoring metric.

    Returns
    -------
    MulticlassOPSResult

    Examples
    --------
    >>> import numpy as np
    >>> yt = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> yp = np.array([[1, 0], [0, 1], [0, 1], [0, 0], [1, 1], [0, 1]])
    >>> r = multiclass_outperformance_score("f1", yt, yp, average="weighted")
    >>> r.multilabel, r.prevalences.tolist()
    (True, [0.5, 0.5])
    """
    if average is not None:
        average = check_option(average, "average", _AVERAGES)  # type: ignore[assignment]
    scoring = _scoring_name(metric)
    if scoring is not None:
        name, m_ops = scoring, scoring
        values, prevalences, classes, multilabel = _one_vs_rest_scoring(
            scoring, y_true, y_pred, sample_weight, labels, options
        )
    else:
        m = _labeling_metric(metric)
        name, m_ops = m.name, m
        values, prevalences, classes, multilabel = _one_vs_rest_labeling(
            m, y_true, y_pred, sample_weight, labels, options
        )
    ok = np.isfinite(values) & (prevalences > 0) & (prevalences < 1)
    scores = np.full(values.size, np.nan)
    if ok.any():
        scores[ok] = np.atleast_1d(outperformance_score(m_ops, values[ok], prevalences[ok], **options).score)
    if not ok.all():
        bad = classes[~ok].tolist()
        warnings.warn(
            f"OPS of {name} is undefined for class(es) {bad} (absent from the truth, the only "
            "true class, or metric 0/0); they are nan and left out of the average",
            UndefinedMeasureWarning,
            stacklevel=2,
        )
    if average is None:
        score: Any = scores
    elif not ok.any():
        score = float("nan")
    elif average == "macro":
        score = float(scores[ok].mean())
    else:
        score = float(np.average(scores[ok], weights=prevalences[ok]))
    return MulticlassOPSResult(
        score=score,
        scores=scores,
        values=values,
        prevalences=prevalences,
        labels=classes,
        average=average,
        metric=name,
        multilabel=multilabel,
        options=dict(options),
    )


def _one_vs_rest_labeling(
    m: LabelingMetric, y_true: Any, y_pred: Any, sample_weight: Any, labels: Any, options: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(values, prevalences, classes, multilabel) from each class's one-vs-rest counts."""
    multilabel = np.ndim(y_true) == 2 or np.ndim(y_pred) == 2
    if multilabel:
        tp, fp, fn, tn = _multilabel_counts(y_true, y_pred, sample_weight)
        if labels is None:
            classes = np.arange(tp.size)
        else:
            classes = as_1d(labels, "labels")
            if classes.size != tp.size:
                raise InvalidInputError(
                    f"labels has {classes.size} entries but the indicator matrices have {tp.size} columns"
                )
    else:
        yt, yp = as_1d(y_true, "y_true"), as_1d(y_pred, "y_pred")
        check_consistent_length(y_true=yt, y_pred=yp)
        cm = ConfusionMatrix.from_predictions(yt, yp, sample_weight=sample_weight, labels=labels)
        tp, fp, fn, tn = cm.per_class_counts()
        classes = cm.labels
    with np.errstate(all="ignore"):
        values = np.asarray(m.compute(tp, fp, fn, tn, **options), dtype=np.float64)
        n = tp + fp + fn + tn
        prevalences = (tp + fn) / n
    return values, prevalences, classes, multilabel


def _one_vs_rest_scoring(
    metric: str, y_true: Any, y_score: Any, sample_weight: Any, labels: Any, options: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(values, prevalences, classes, multilabel) of a scoring metric, one class against the rest.

    Class k's curve is traced by column k of the (n, K) score matrix with "class k"
    as the positive label (scikit-learn's ``roc_auc_score(multi_class="ovr")``);
    with an (n, L) indicator matrix as ``y_true``, column l of the truth and of the
    scores (``average=None`` of scikit-learn's multi-label scores).
    """
    from ..measures.curves import threshold_counts
    from .scoring import scoring_metric_from_rates

    scores = np.asarray(y_score)
    if scores.ndim != 2 or scores.shape[1] < 2:
        raise InvalidInputError(
            f"a scoring metric needs an (n, K) score matrix, one column per class, got shape {scores.shape}"
        )
    multilabel = np.ndim(y_true) == 2
    if multilabel:
        truth = _indicator(y_true, "y_true")
        if truth.shape != scores.shape:
            raise InvalidInputError(f"y_true has shape {truth.shape} but y_score has shape {scores.shape}")
        classes = np.arange(truth.shape[1]) if labels is None else as_1d(labels, "labels")
        if classes.size != truth.shape[1]:
            raise InvalidInputError(f"labels has {classes.size} entries but y_true has {truth.shape[1]} columns")
        columns = [truth[:, j] for j in range(truth.shape[1])]
    else:
        yt = as_1d(y_true, "y_true")
        check_consistent_length(y_true=yt, y_score=scores)
        classes = np.unique(yt) if labels is None else as_1d(labels, "labels")
        if classes.size != scores.shape[1]:
            raise InvalidInputError(
                f"y_score has {scores.shape[1]} columns but there are {classes.size} classes "
                f"{classes.tolist()[:10]}; pass labels= naming the class of each column"
            )
        columns = [(yt == c).astype(np.int8) for c in classes]
    value_opts = {k: options[k] for k in ("at", "auc_method") if k in options}
    values = np.full(classes.size, np.nan)
    prevalences = np.full(classes.size, np.nan)
    for j, truth_j in enumerate(columns):
        counts = threshold_counts(truth_j, scores[:, j], sample_weight=sample_weight, pos_label=1)
        prevalences[j] = counts.prevalence
        if counts.is_defined:
            alpha, beta = counts.rates()
            values[j] = scoring_metric_from_rates(metric, alpha, beta, counts.prevalence, validate=False, **value_opts)
    return values, prevalences, classes, multilabel
