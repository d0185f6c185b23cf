r"""The registry of labeling metrics: every confusion-matrix measure, from the counts.

Each metric is a vectorised function of the (possibly weighted, possibly
fractional) confusion counts ``tp, fp, fn, tn`` of a binary problem.  Nothing here
transcribes a paper's closed form in terms of (π, α, β): the outperformance score
builds the counts from (π, α, β) as

.. math::

    TP = \pi(1-\beta),\quad FN = \pi\beta,\quad FP = (1-\pi)\alpha,\quad TN = (1-\pi)(1-\alpha)

(OPS paper, section 2) and calls the same functions, so one definition serves the
confusion matrix, the outperformance score, the report and the tests.

Undefined values (a zero denominator) come back as ``nan``; the callers decide
whether to warn (:class:`~beyondchance.UndefinedMeasureWarning`) or substitute a
``zero_division`` value.

>>> from beyondchance.measures.registry import METRICS, get_metric
>>> get_metric("f1").compute(tp=8, fp=2, fn=2, tn=88)
0.8
>>> sorted(METRICS)[:4]
['accuracy', 'balanced_accuracy', 'dor', 'error']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["LabelingMetric", "METRICS", "ALIASES", "get_metric", "metric_names"]


def _div(num: Any, den: Any) -> Any:
    """num / den with nan where den == 0 (no warning; callers handle undefined values)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.true_divide(num, den)
    out = np.where(den == 0, np.nan, out)
    return out[()] if out.ndim == 0 else out


# --- the metrics, as functions of binary counts -------------------------------------


def _accuracy(tp, fp, fn, tn):
    return _div(np.add(tp, tn), np.add(np.add(tp, tn), np.add(fp, fn)))


def _error(tp, fp, fn, tn):
    return _div(np.add(fp, fn), np.add(np.add(tp, tn), np.add(fp, fn)))


def _recall(tp, fp, fn, tn):
    return _div(tp, np.add(tp, fn))


def _specificity(tp, fp, fn, tn):
    return _div(tn, np.add(tn, fp))


def _fpr(tp, fp, fn, tn):
    return _div(fp, np.add(tn, fp))


def _fnr(tp, fp, fn, tn):
    return _div(fn, np.add(tp, fn))


def _precision(tp, fp, fn, tn):
    return _div(tp, np.add(tp, fp))


def _npv(tp, fp, fn, tn):
    return _div(tn, np.add(tn, fn))


def _fbeta(tp, fp, fn, tn, beta=1.0):
    if not np.all(np.asarray(beta) > 0):
        raise InvalidInputError(f"beta must be positive, got {beta!r}")
    b2 = np.square(beta)
    num = (1 + b2) * np.asarray(tp, dtype=np.float64)
    return _div(num, num + b2 * np.asarray(fn, dtype=np.float64) + fp)


def _f1(tp, fp, fn, tn):
    return _fbeta(tp, fp, fn, tn, beta=1.0)


def _balanced_accuracy(tp, fp, fn, tn):
    """Mean recall over the classes present in the truth (scikit-learn's convention:
    with one class present it is that class's recall)."""
    rates = np.stack(np.broadcast_arrays(_recall(tp, fp, fn, tn), _specificity(tp, fp, fn, tn)))
    present = ~np.isnan(rates)
    with np.errstate(invalid="ignore"):
        out = np.where(present, rates, 0.0).sum(axis=0) / present.sum(axis=0)
    return out[()] if out.ndim == 0 else out


def _informedness(tp, fp, fn, tn):
    return _recall(tp, fp, fn, tn) + _specificity(tp, fp, fn, tn) - 1


def _markedness(tp, fp, fn, tn):
    return _precision(tp, fp, fn, tn) + _npv(tp, fp, fn, tn) - 1


def _g_mean(tp, fp, fn, tn):
    return np.sqrt(_recall(tp, fp, fn, tn) * _specificity(tp, fp, fn, tn))


def _mcc(tp, fp, fn, tn):
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return _div(tp * tn - fp * fn, den)


def _random_accuracy(tp, fp, fn, tn):
    """RA = p·q + (1 − p)(1 − q): accuracy expected from a random labeling with rate q."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    p = _div(tp + fn, n)
    q = _div(tp + fp, n)
    return p * q + (1 - p) * (1 - q)


def _pure_accuracy(tp, fp, fn, tn):
    """(A − RA)/(1 − RA), computed as (n·(TP+TN) − Σ t_k p_k)/(n² − Σ t_k p_k) to avoid
    cancellation when RA is close to 1."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    chance = (tp + fn) * (tp + fp) + (tn + fp) * (tn + fn)
    return _div(n * (tp + tn) - chance, n * n - chance)


def _kappa(tp, fp, fn, tn):
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    return _div(2 * (tp * tn - fn * fp), (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn))


def _prediction_advantage(tp, fp, fn, tn):
    """PA for the 0/1 loss: 1 − err / err(majority class) = 1 − (FP+FN)/min(P, N)."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    return 1 - _div(fp + fn, np.minimum(tp + fn, fp + tn))


def _lift(tp, fp, fn, tn):
    """Lift at the threshold: precision / prevalence."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    return _div(tp * n, (tp + fp) * (tp + fn))


def _jaccard(tp, fp, fn, tn):
    """Jaccard index of the positive class (critical success index): TP / (TP + FP + FN)."""
    tp = np.asarray(tp, dtype=np.float64)
    return _div(tp, tp + np.asarray(fp, dtype=np.float64) + fn)


def _fdr(tp, fp, fn, tn):
    return _div(fp, np.add(tp, fp))


def _false_omission_rate(tp, fp, fn, tn):
    return _div(fn, np.add(fn, tn))


def _lr_plus(tp, fp, fn, tn):
    """Positive likelihood ratio TPR / FPR (undefined when FPR = 0, as in scikit-learn)."""
    return _div(_recall(tp, fp, fn, tn), _fpr(tp, fp, fn, tn))


def _lr_minus(tp, fp, fn, tn):
    """Negative likelihood ratio FNR / TNR (undefined when TNR = 0)."""
    return _div(_fnr(tp, fp, fn, tn), _specificity(tp, fp, fn, tn))


def undefined_case(name: str, tp: float, fp: float, fn: float, tn: float) -> str:
    """Why a metric is undefined (nan) on one set of counts, in words: the likelihood ratios
    and the diagnostic odds ratio name their case (x/0 with x > 0 is infinite, not 0/0); "0/0" for the others.

    >>> undefined_case("lr_plus", 3, 0, 1, 4)
    'no false positives: LR+ = TPR / FPR = 0.75 / 0, infinite'
    >>> undefined_case("lr_minus", 2, 2, 0, 0)
    'every row predicted positive: LR− = FNR / TNR = 0/0'
    >>> undefined_case("f1", 0, 0, 0, 5)
    '0/0'
    """
    tp, fp, fn, tn = (float(x) for x in (tp, fp, fn, tn))
    pos, neg = tp + fn, fp + tn
    if name in ("lr_plus", "lr_minus", "dor"):
        if pos == 0:
            return "no positives: the true-positive and false-negative rates are 0/0"
        if neg == 0:
            return "no negatives: the false-positive and true-negative rates are 0/0"
    if name == "lr_plus" and fp == 0:
        if tp > 0:
            return f"no false positives: LR+ = TPR / FPR = {tp / pos:.3g} / 0, infinite"
        return "no row predicted positive: LR+ = TPR / FPR = 0/0"
    if name == "lr_minus" and tn == 0:
        if fn > 0:
            return f"no true negatives: LR− = FNR / TNR = {fn / pos:.3g} / 0, infinite"
        return "every row predicted positive: LR− = FNR / TNR = 0/0"
    if name == "dor" and fp * fn == 0:
        none = "false positives" if fp == 0 and fn > 0 else "false negatives" if fn == 0 and fp > 0 else "errors"
        if tp * tn > 0:
            return f"no {none}: DOR = TP·TN / (FP·FN) = {tp * tn:.4g} / 0, infinite"
        return f"no {none} and TP·TN = 0: DOR = 0/0"
    return "0/0"


def _dor(tp, fp, fn, tn):
    """Diagnostic odds ratio LR+ / LR− = (TP·TN) / (FP·FN) (undefined when FP·FN = 0)."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    return _div(tp * tn, fp * fn)


# --- the registry -------------------------------------------------------------------


@dataclass(frozen=True)
class LabelingMetric:
    """A confusion-matrix metric and the properties every consumer reads.

    Attributes
    ----------
    name : canonical name
    func : vectorised ``func(tp, fp, fn, tn, **options)``
    lower, upper : the range of the metric over all confusion matrices (``upper`` may
        depend on the prevalence, see ``upper_at``)
    greater_is_better : direction
    formula : the formula in terms of the counts (for docs and reports)
    multiclass : ``"native"`` (has its own multi-class definition), ``"per-class"``
        (one-vs-rest then averaged), or ``"binary"`` (binary only)
    sklearn : the scikit-learn function computing the same value, if any
    options : names of the keyword options ``func`` accepts
    """

    name: str
    func: Callable[..., Any]
    lower: float
    upper: float
    greater_is_better: bool
    formula: str
    multiclass: str = "per-class"
    sklearn: str | None = None
    options: tuple[str, ...] = ()
    aliases: tuple[str, ...] = field(default=())
    upper_at: Callable[[Any], Any] | None = None
    lower_at: Callable[[Any], Any] | None = None

    def compute(self, tp: Any, fp: Any, fn: Any, tn: Any, **options: Any) -> Any:
        """Evaluate on counts (scalars or broadcastable arrays); nan where undefined."""
        unknown = set(options) - set(self.options)
        if unknown:
            raise InvalidInputError(
                f"metric {self.name!r} takes no option(s) {sorted(unknown)}; "
                f"known options: {list(self.options) or 'none'}"
            )
        out = self.func(tp, fp, fn, tn, **options)
        return float(out) if np.ndim(out) == 0 else out

    def from_rates(self, prevalence: Any, alpha: Any, beta: Any, /, **options: Any) -> Any:
        """Evaluate on the (π, α, β) parametrisation with n = 1 (OPS paper, section 2).

        The rates are positional-only, so that F-β's option ``beta=`` is never
        confused with the Type-II error β:

        >>> round(METRICS["fbeta"].from_rates(0.5, 0.2, 0.1, beta=2.0), 12)   # 2.25 / 2.55
        0.882352941176
        """
        pi = np.asarray(prevalence, dtype=np.float64)
        a = np.asarray(alpha, dtype=np.float64)
        b = np.asarray(beta, dtype=np.float64)
        return self.compute(pi * (1 - b), (1 - pi) * a, pi * b, (1 - pi) * (1 - a), **options)

    def range_at(self, prevalence: Any) -> tuple[Any, Any]:
        """The attainable (lower, upper) at a prevalence."""
        lo = self.lower if self.lower_at is None else self.lower_at(prevalence)
        hi = self.upper if self.upper_at is None else self.upper_at(prevalence)
        return lo, hi


def _pa_lower(pi):
    pi = np.asarray(pi, dtype=np.float64)
    return 1 - 1 / np.minimum(pi, 1 - pi)


def _kappa_lower(pi):
    # kappa with every prediction wrong: -2π(1-π)/(π² + (1-π)²) ≥ -1
    pi = np.asarray(pi, dtype=np.float64)
    return -2 * pi * (1 - pi) / (pi**2 + (1 - pi) ** 2)


_REGISTRY: tuple[LabelingMetric, ...] = (
    LabelingMetric("accuracy", _accuracy, 0, 1, True, "(TP + TN) / n", "native", "accuracy_score"),
    LabelingMetric("error", _error, 0, 1, False, "(FP + FN) / n", "native", None, aliases=("error_rate", "zero_one_loss")),
    LabelingMetric("recall", _recall, 0, 1, True, "TP / (TP + FN)", "per-class", "recall_score", aliases=("tpr", "sensitivity", "true_positive_rate")),
    LabelingMetric("specificity", _specificity, 0, 1, True, "TN / (TN + FP)", "per-class", None, aliases=("tnr", "true_negative_rate", "selectivity")),
    LabelingMetric("fpr", _fpr, 0, 1, False, "FP / (FP + TN)  (Type-I error α)", "per-class", None, aliases=("false_positive_rate", "type_i_error")),
    LabelingMetric("fnr", _fnr, 0, 1, False, "FN / (FN + TP)  (Type-II error β)", "per-class", None, aliases=("false_negative_rate", "type_ii_error", "miss_rate")),
    LabelingMetric("precision", _precision, 0, 1, True, "TP / (TP + FP)", "per-class", "precision_score", aliases=("ppv", "positive_predictive_value")),
    LabelingMetric("npv", _npv, 0, 1, True, "TN / (TN + FN)", "per-class", None, aliases=("negative_predictive_value",)),
    LabelingMetric("f1", _f1, 0, 1, True, "2TP / (2TP + FP + FN)", "per-class", "f1_score", aliases=("f1_score", "f_measure")),
    LabelingMetric("fbeta", _fbeta, 0, 1, True, "(1+β²)TP / ((1+β²)TP + β²FN + FP)", "per-class", "fbeta_score", options=("beta",), aliases=("fbeta_score",)),
    LabelingMetric("balanced_accuracy", _balanced_accuracy, 0, 1, True, "(TPR + TNR) / 2", "native", "balanced_accuracy_score"),
    LabelingMetric("informedness", _informedness, -1, 1, True, "TPR + TNR − 1", "per-class", None, aliases=("youden_j", "bookmaker_informedness")),
    LabelingMetric("markedness", _markedness, -1, 1, True, "PPV + NPV − 1", "per-class", None),
    LabelingMetric("g_mean", _g_mean, 0, 1, True, "√(TPR · TNR)", "per-class", None, aliases=("gmean", "geometric_mean")),
    LabelingMetric("mcc", _mcc, -1, 1, True, "(TP·TN − FP·FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN))", "native", "matthews_corrcoef", aliases=("matthews_corrcoef", "phi")),
    LabelingMetric("kappa", _kappa, -1, 1, True, "(A − Σ p_k q_k) / (1 − Σ p_k q_k)", "native", "cohen_kappa_score", aliases=("cohen_kappa", "cohens_kappa"), lower_at=_kappa_lower),
    LabelingMetric("pure_accuracy", _pure_accuracy, -1, 1, True, "(A − RA) / (1 − RA), RA = p·q + (1−p)(1−q)", "native", None, lower_at=_kappa_lower),
    LabelingMetric("prediction_advantage", _prediction_advantage, -np.inf, 1, True, "1 − err / (1 − max_k p_k)", "native", None, aliases=("pa",), lower_at=_pa_lower),
    LabelingMetric("lift", _lift, 0, np.inf, True, "precision / π", "per-class", None, upper_at=lambda pi: 1 / np.asarray(pi, dtype=np.float64)),
    LabelingMetric("jaccard", _jaccard, 0, 1, True, "TP / (TP + FP + FN)", "per-class", "jaccard_score", aliases=("jaccard_score", "jaccard_index", "csi", "critical_success_index", "threat_score")),
    LabelingMetric("fdr", _fdr, 0, 1, False, "FP / (TP + FP)  (1 − precision)", "per-class", None, aliases=("false_discovery_rate",)),
    LabelingMetric("false_omission_rate", _false_omission_rate, 0, 1, False, "FN / (FN + TN)  (1 − NPV)", "per-class", None, aliases=("for",)),
    LabelingMetric("lr_plus", _lr_plus, 0, np.inf, True, "TPR / FPR", "per-class", None, aliases=("positive_likelihood_ratio", "lr+")),
    LabelingMetric("lr_minus", _lr_minus, 0, np.inf, False, "FNR / TNR", "per-class", None, aliases=("negative_likelihood_ratio", "lr-")),
    LabelingMetric("kappa_linear", _kappa, -1, 1, True, "1 − Σ w_ij C_ij / Σ w_ij E_ij, w_ij = |i − j|, E = t pᵀ / n  (= κ for two classes)", "native", "cohen_kappa_score(weights='linear')", aliases=("linear_kappa", "linear_weighted_kappa"), lower_at=_kappa_lower),
    LabelingMetric("kappa_quadratic", _kappa, -1, 1, True, "1 − Σ w_ij C_ij / Σ w_ij E_ij, w_ij = (i − j)², E = t pᵀ / n  (= κ for two classes)", "native", "cohen_kappa_score(weights='quadratic')", aliases=("quadratic_kappa", "quadratic_weighted_kappa", "qwk"), lower_at=_kappa_lower),
    LabelingMetric("dor", _dor, 0, np.inf, True, "(TP · TN) / (FP · FN)  (LR+ / LR−)", "per-class", None, aliases=("diagnostic_odds_ratio",)),
)

#: canonical name → metric
METRICS: dict[str, LabelingMetric] = {m.name: m for m in _REGISTRY}
#: alias → canonical name
ALIASES: dict[str, str] = {a: m.name for m in _REGISTRY for a in m.aliases}


def metric_names() -> list[str]:
    """The canonical names of every registered labeling metric."""
    return list(METRICS)


def get_metric(name: str | LabelingMetric) -> LabelingMetric:
    """Look a metric up by name or alias (case-insensitive); the error lists the known names."""
    if isinstance(name, LabelingMetric):
        return name
    if not isinstance(name, str):
        raise InvalidInputError(f"metric must be a name, got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = ALIASES.get(key, key)
    try:
        return METRICS[key]
    except KeyError:
        raise InvalidInputError(
            f"unknown metric {name!r}; known metrics: {', '.join(METRICS)}"
        ) from None
