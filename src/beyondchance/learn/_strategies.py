r"""Choosing the decision threshold δ of a plug-in rule h(x) = 1{η̂(x) > δ} on S₂.

The Pure Accuracy paper (section 6.2) compares seven ways to pick δ on a held-out
split S₂ given posterior estimates η̂ (``y_score``) there:

=================  ===========================================================
``fixed-0.5``      δ = 1/2 (optimises accuracy; the paper's "KLR")
``p-cut``          δ = p, the positive-class share of S₂ (optimises balanced accuracy)
``grid``           best objective over ``n_thresholds`` equally spaced δ in [0, 1]
``s2``             best objective over the distinct η̂ values observed on S₂ (plus
                   δ = 0, the "all positive" rule, so that every distinct classifier
                   of S₂ is a candidate; it matters for F1, not for pure accuracy)
``bisection``      Narasimhan et al. (2015): bisection on the *value* v of a
                   ratio-of-linear objective; ``bisection-f1`` / ``bisection-pa``
                   fix the objective to F1 / pure accuracy
``tau-interval``   Algorithm 2: interval search on r with δ(r) = 1/2 − (1/2 − p)·r
=================  ===========================================================

Every rule predicts positive iff ``y_score > δ`` (the paper's sign(η̂ − δ), Theorem 1).
S₂'s weighted counts of every threshold come from one sort and cumulative sums
(:class:`beyondchance.measures.pure_accuracy._ScoreSweep`), so each objective evaluation of a
built-in metric costs one ``searchsorted``.

**Algorithm 2, as implemented** (SPEC §2 and the paper's box agree): [a, b] = [0, 1],
λ = a + τ(b − a), μ = b − τ(b − a); while b − a > ε: if PL(δ(λ)) ≤ PL(δ(μ)) then
b = μ else a = λ; recompute λ, μ and their pure losses; t = t + 1; δᵗ = δ(λ).  The
returned threshold is δ(λ) of the last iteration (the paper's δᵗ), and the loop
runs exactly ⌈log ε / log(1 − τ)⌉ times since every step keeps a fraction 1 − τ of
the interval.  (The paper's box evaluates both points afresh in each iteration; it
does not reuse one of them as the golden-section method could — neither do we.)
The paper's "p" is P(Y = +1); here it is the weighted positive share of S₂.

**Bisection** (Narasimhan, Ramaswamy, Saha & Agarwal 2015, for ratio-of-linear
metrics): write the objective in the fractions FP, FN of S₂ as
Ψ = (a₀ + a₁FP + a₂FN)/(b₀ + b₁FP + b₂FN).  Ψ* ≥ v iff min over classifiers of
(v b₁ − a₁)FP + (v b₂ − a₂)FN + const ≤ 0, and that cost-sensitive loss is minimised
by thresholding η at ρ(v) = (v b₁ − a₁)/(v(b₁ + b₂) − (a₁ + a₂)) (Elkan 2001 /
the proof of Theorem 1).  Starting from [lo, hi] = [0, 1]: v = (lo + hi)/2, if the
plug-in classifier at ρ(v) reaches Ψ ≥ v on S₂ then lo = v (and it becomes the
answer) else hi = v; until hi − lo ≤ ε.  ρ(v) is v/2 for F1 and p + v(1/2 − p) for
pure accuracy (Theorem 1's map).  It finds the S₂-optimal classifier when the
plug-in classifier at ρ(v) minimises the cost-sensitive loss on S₂, i.e. when η̂ is
calibrated on S₂.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from numbers import Integral, Real
from typing import Any, Callable, Literal

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import as_float_1d, check_consistent_length, check_sample_weight, encode_labels
from .._warnings import InvalidInputError
from ..measures.registry import LabelingMetric, get_metric
from ..measures.pure_accuracy import _ScoreSweep

__all__ = ["STRATEGIES", "ThresholdChoice", "choose_threshold", "tau_interval_iterations"]

Strategy = Literal[
    "fixed-0.5", "p-cut", "grid", "s2", "bisection", "bisection-f1", "bisection-pa", "tau-interval"
]
#: The threshold strategies, in the order of the paper's tables.
STRATEGIES: tuple[str, ...] = (
    "fixed-0.5", "p-cut", "bisection-f1", "grid", "s2", "bisection-pa", "tau-interval", "bisection",
)


# --- linear-fractional objectives (for bisection) -------------------------------------

def _coefficients(name: str, p: float) -> tuple[float, float, float, float] | None:
    """(a₁, a₂, b₁, b₂) of Ψ = (a₀ + a₁FP + a₂FN)/(b₀ + b₁FP + b₂FN), FP/FN fractions."""
    if name in ("pure_accuracy", "kappa"):  # paper eq. (69)
        return -p, -(1.0 - p), 0.5 - p, -(0.5 - p)
    if name == "f1":  # 2TP/(2TP + FP + FN) with TP = p − FN
        return 0.0, -2.0, 1.0, -1.0
    if name in ("accuracy", "prediction_advantage"):  # linear: 1 − FP − FN (scaled)
        return -1.0, -1.0, 0.0, 0.0
    if name in ("balanced_accuracy", "informedness"):
        return -1.0 / (2.0 * (1.0 - p)), -1.0 / (2.0 * p), 0.0, 0.0
    return None


BISECTION_OBJECTIVES = (
    "pure_accuracy", "kappa", "f1", "accuracy", "prediction_advantage", "balanced_accuracy", "informedness",
)


def _rho(coef: tuple[float, float, float, float], v: float) -> float:
    a1, a2, b1, b2 = coef
    return (v * b1 - a1) / (v * (b1 + b2) - (a1 + a2))


# --- objectives -------------------------------------------------------------------------

def _is_scorer(obj: Any) -> bool:
    try:  # scikit-learn's scorer objects (make_scorer, get_scorer)
        from sklearn.metrics._scorer import _BaseScorer
    except ImportError:  # pragma: no cover - very old or very new scikit-learn
        return hasattr(obj, "_score_func") and hasattr(obj, "_sign")
    return isinstance(obj, _BaseScorer)


class _LabelPredictor(ClassifierMixin, BaseEstimator):
    """A fitted-looking classifier returning fixed labels, so that a scikit-learn
    scorer can score the labels of one threshold."""

    def __init__(self, classes: Any = None, labels: Any = None) -> None:
        self.classes = classes
        self.labels = labels
        self.classes_ = classes

    def predict(self, X: Any) -> np.ndarray:
        return self.labels


class _Objective:
    """An objective on S₂: a registry metric (vectorised over thresholds), a
    scikit-learn scorer, or a metric callable ``f(y_true, y_pred[, sample_weight])``
    (both evaluated threshold by threshold).  ``evaluate`` returns values where
    larger is better (lower-is-better metrics are negated)."""

    def __init__(self, objective: Any) -> None:
        self.metric: LabelingMetric | None = None
        self.scorer: Any = None
        self.func: Callable[..., float] | None = None
        if isinstance(objective, LabelingMetric):
            self.metric = objective
        elif isinstance(objective, str):
            try:
                self.metric = get_metric(objective)
            except InvalidInputError:
                from sklearn.metrics import get_scorer, get_scorer_names

                if objective not in get_scorer_names():
                    raise InvalidInputError(
                        f"objective {objective!r} is neither a beyondchance metric nor a "
                        "scikit-learn scorer name (see beyondchance.metric_names() and "
                        "sklearn.metrics.get_scorer_names())"
                    ) from None
                self.scorer = get_scorer(objective)
        elif _is_scorer(objective):
            self.scorer = objective
        elif callable(objective):
            self.func = objective
        else:
            raise InvalidInputError(
                f"objective must be a metric name, a scikit-learn scorer or a callable, got {objective!r}"
            )
        self.sign = -1.0 if (self.metric is not None and not self.metric.greater_is_better) else 1.0

    @property
    def name(self) -> str:
        if self.metric is not None:
            return self.metric.name
        target = self.scorer if self.scorer is not None else self.func
        return getattr(target, "__name__", None) or repr(target)

    @property
    def coefficients_name(self) -> str | None:
        return self.metric.name if self.metric is not None else None

    def values(self, ctx: "_S2", thresholds: np.ndarray) -> np.ndarray:
        """The objective's own values (nan where undefined) at each threshold."""
        thresholds = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        if self.metric is not None:
            return np.asarray(self.metric.func(*ctx.sweep.counts(thresholds)), dtype=np.float64)
        out = np.empty(thresholds.size)
        for i, t in enumerate(thresholds):  # one scorer call per candidate threshold
            labels = np.where(ctx.scores > t, ctx.pos_label, ctx.neg_label)
            if self.scorer is not None:
                kw = {} if ctx.sample_weight is None else {"sample_weight": ctx.sample_weight}
                try:
                    out[i] = self.scorer(_LabelPredictor(ctx.classes, labels), None, ctx.y_true, **kw)
                except AttributeError as exc:
                    raise InvalidInputError(
                        "the scorer must score predicted labels (response_method='predict'); "
                        f"a threshold does not change scores or probabilities: {exc}"
                    ) from exc
            else:
                assert self.func is not None  # neither a metric nor a scorer: the callable
                kw = {} if ctx.sample_weight is None else {"sample_weight": ctx.sample_weight}
                out[i] = float(self.func(ctx.y_true, labels, **kw))
        return out

    def utilities(self, ctx: "_S2", thresholds: np.ndarray) -> np.ndarray:
        """Larger is better; undefined values rank last."""
        v = self.sign * self.values(ctx, thresholds)
        return np.where(np.isnan(v), -np.inf, v)


@dataclass
class _S2:
    """The held-out split: scores, 0/1 codes, weights and the counts sweep."""

    scores: np.ndarray
    y_true: np.ndarray
    sample_weight: np.ndarray | None
    classes: np.ndarray
    pos_label: Any
    neg_label: Any
    sweep: _ScoreSweep

    @property
    def p(self) -> float:
        return self.sweep.prevalence


# --- the result -----------------------------------------------------------------------

@dataclass(frozen=True)
class ThresholdChoice:
    """The threshold chosen on S₂ and how.

    Attributes
    ----------
    threshold : float
        δ; the rule predicts positive iff score > δ.
    objective_value : float
        The objective's value on S₂ at δ.
    objective : str
        Name of the objective.
    strategy : str
    prevalence : float
        p, the weighted positive share of S₂.
    n_iter : int or None
        Iterations of ``tau-interval`` / ``bisection*`` (None for the others).
    n_evaluations : int
        Thresholds at which the search evaluated its criterion.
    """

    threshold: float
    objective_value: float
    objective: str
    strategy: str
    prevalence: float
    n_iter: int | None
    n_evaluations: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def tau_interval_iterations(tau: float, eps: float) -> int:
    """⌈log ε / log(1 − τ)⌉: the iterations Algorithm 2 needs to shrink [0, 1] to ε.

    >>> tau_interval_iterations(0.382, 1e-4)
    20
    """
    return int(np.ceil(np.log(eps) / np.log1p(-tau)))


# --- the strategies ---------------------------------------------------------------------

def _tau_interval(ctx: _S2, tau: float, eps: float) -> tuple[float, int, int]:
    p = ctx.p
    pa = get_metric("pure_accuracy").func

    def delta(r: float) -> float:
        return 0.5 - (0.5 - p) * r

    def pure_losses(lam: float, mu: float) -> tuple[float, float]:
        values = 1.0 - pa(*ctx.sweep.counts(np.array([delta(lam), delta(mu)])))
        return float(values[0]), float(values[1])

    a, b = 0.0, 1.0
    lam, mu = a + tau * (b - a), b - tau * (b - a)
    pl_lam, pl_mu = pure_losses(lam, mu)
    t = 0
    threshold = delta(lam)
    while b - a > eps:
        if pl_lam <= pl_mu:
            b = mu
        else:
            a = lam
        lam, mu = a + tau * (b - a), b - tau * (b - a)
        pl_lam, pl_mu = pure_losses(lam, mu)
        t += 1
        threshold = delta(lam)
    return threshold, t, 2 * (t + 1)


def _bisection(ctx: _S2, metric_name: str, eps: float) -> tuple[float, int, int]:
    coef = _coefficients(metric_name, ctx.p)
    if coef is None:
        raise InvalidInputError(
            f"bisection needs a ratio-of-linear objective with known coefficients; "
            f"{metric_name!r} is not one of {list(BISECTION_OBJECTIVES)}"
        )
    metric = get_metric(metric_name).func
    lo, hi = 0.0, 1.0
    threshold = _rho(coef, lo)
    t = 0
    while hi - lo > eps:
        v = 0.5 * (lo + hi)
        rho = _rho(coef, v)
        value = float(metric(*ctx.sweep.counts(rho)))
        if value >= v:
            lo, threshold = v, rho
        else:
            hi = v
        t += 1
    return float(threshold), t, t


def _argmax_first(utilities: np.ndarray) -> int:
    return int(np.argmax(utilities))  # first maximum = the smallest threshold among ties


def _prepare(y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any) -> _S2:
    scores = as_float_1d(y_score, "y_score")
    codes, _, classes = encode_labels(y_true, names=("y_true", "y_pred"))
    check_consistent_length(y_true=codes, y_score=scores)
    if classes.size > 2:
        raise InvalidInputError(
            f"y_true has {classes.size} classes; the plug-in threshold rule h(x) = "
            "1{η̂(x) > δ} is binary (wrap a one-vs-rest scheme around it for more classes)"
        )
    if classes.size < 2:
        raise InvalidInputError(
            f"y_true (the validation split S₂) has only one class ({classes[0]!r}); "
            "a threshold cannot be chosen (pure accuracy is undefined)"
        )
    if ((scores < 0) | (scores > 1)).any():
        raise InvalidInputError(
            "y_score must hold posterior probabilities in [0, 1] (map decision values "
            "through a sigmoid or calibrate them first)"
        )
    if pos_label is None:
        pos_code = 1
    else:
        match = np.flatnonzero(classes == pos_label)
        if match.size == 0:
            raise InvalidInputError(f"pos_label={pos_label!r} is not a label of y_true {classes.tolist()}")
        pos_code = int(match[0])
    w = check_sample_weight(sample_weight, scores.shape[0])
    is_pos = codes == pos_code
    ww = np.ones(scores.shape[0]) if w is None else w
    sweep = _ScoreSweep(scores, ww * is_pos, ww * ~is_pos)
    if sweep.total_pos <= 0 or sweep.total_neg <= 0:
        raise InvalidInputError("the samples of y_true with positive weight have only one class")
    y_arr = np.asarray(y_true)
    if y_arr.ndim == 2:
        y_arr = y_arr.ravel()
    return _S2(scores, y_arr, w, classes, classes[pos_code], classes[1 - pos_code], sweep)


def choose_threshold(
    y_true: Any,
    y_score: Any,
    *,
    strategy: Strategy = "tau-interval",
    objective: Any = "pure_accuracy",
    tau: float = 0.382,
    eps: float = 1e-4,
    n_thresholds: int = 101,
    sample_weight: Any = None,
    pos_label: Any = None,
) -> ThresholdChoice:
    """Choose the threshold δ of the plug-in rule ``y_score > δ`` on a validation split.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels of S₂ (two classes).
    y_score : array-like of shape (n,)
        Posterior estimates η̂(x) of the positive class on S₂, in [0, 1].
    strategy : str
        One of :data:`STRATEGIES` (see the module docstring).
    objective : str, LabelingMetric, scorer or callable
        What ``grid``, ``s2`` and ``bisection`` maximise, and what ``objective_value``
        reports for every strategy: a metric name of ``beyondchance.measures.registry``
        (``"pure_accuracy"``, ``"prediction_advantage"`` (0/1 loss), ``"f1"``, …;
        lower-is-better metrics such as ``"error"`` are minimised), a scikit-learn
        scorer (``make_scorer(...)`` or a scorer name; it must score labels), or a
        callable ``metric(y_true, y_pred[, sample_weight=...])``, higher is better.
        ``bisection`` needs one of ``BISECTION_OBJECTIVES``.
    tau : float in (0, 0.5)
        Interval reduction ratio of ``tau-interval`` (0.382 ≈ golden section).
    eps : float in (0, 1)
        Stopping width of ``tau-interval`` (interval in r) and of ``bisection``
        (interval of objective values).
    n_thresholds : int ≥ 2
        Grid size of ``grid`` (``numpy.linspace(0, 1, n_thresholds)``).
    sample_weight : array-like, optional
        Weights of S₂.
    pos_label : label, optional
        The positive class (default: the larger of the two labels).

    Returns
    -------
    ThresholdChoice

    Examples
    --------
    >>> y = [0, 0, 0, 0, 0, 0, 1, 0, 1, 1]
    >>> s = [0.05, 0.1, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.6, 0.9]
    >>> choose_threshold(y, s, strategy="s2").threshold      # best pure accuracy
    0.3
    >>> choose_threshold(y, s, strategy="fixed-0.5").objective_value
    0.7368421052631579

    Algorithm 2 searches δ(r) = 1/2 − (1/2 − p)·r ∈ [0.3, 0.5]; the pure loss is not
    unimodal in r here (δ ∈ [0.35, 0.4) is worse than both sides) and the search keeps
    the local optimum next to δ = 1/2 (the run returns δ(λ) with λ ≈ 1e-4):

    >>> r = choose_threshold(y, s, strategy="tau-interval", tau=0.382)
    >>> round(r.threshold, 3), round(r.objective_value, 4), r.n_iter
    (0.5, 0.7368, 20)
    >>> tau_interval_iterations(0.382, 1e-4)
    20
    """
    if strategy not in STRATEGIES:
        raise InvalidInputError(f"unknown strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
    if not isinstance(tau, Real) or not 0.0 < float(tau) < 0.5:
        raise InvalidInputError(f"tau must lie in the open interval (0, 0.5), got {tau!r}")
    if not isinstance(eps, Real) or not 0.0 < float(eps) < 1.0:
        raise InvalidInputError(f"eps must lie in the open interval (0, 1), got {eps!r}")
    if not isinstance(n_thresholds, Integral) or n_thresholds < 2:
        raise InvalidInputError(f"n_thresholds must be an integer ≥ 2, got {n_thresholds!r}")
    obj = _Objective(objective)
    ctx = _prepare(y_true, y_score, sample_weight, pos_label)
    n_iter: int | None = None
    if strategy == "fixed-0.5":
        threshold, n_eval = 0.5, 0
    elif strategy == "p-cut":
        threshold, n_eval = ctx.p, 0
    elif strategy in ("grid", "s2"):
        if strategy == "grid":
            candidates = np.linspace(0.0, 1.0, int(n_thresholds))
        else:  # every distinct classifier on S₂: "all positive", then δ = each observed score
            values = ctx.sweep.values
            lowest = 0.0 if values[0] > 0.0 else np.nextafter(0.0, -1.0)
            candidates = np.concatenate(([lowest], values))
        threshold = float(candidates[_argmax_first(obj.utilities(ctx, candidates))])
        n_eval = int(candidates.size)
    elif strategy == "tau-interval":
        threshold, n_iter, n_eval = _tau_interval(ctx, float(tau), float(eps))
    else:
        name = {"bisection-f1": "f1", "bisection-pa": "pure_accuracy"}.get(strategy, obj.coefficients_name)
        if name is None:
            raise InvalidInputError(
                "strategy='bisection' needs a built-in ratio-of-linear objective, one of "
                f"{list(BISECTION_OBJECTIVES)}; got {obj.name!r}"
            )
        threshold, n_iter, n_eval = _bisection(ctx, name, float(eps))
    value = float(obj.values(ctx, np.array([threshold]))[0])
    return ThresholdChoice(
        threshold=float(threshold),
        objective_value=value,
        objective=obj.name,
        strategy=strategy,
        prevalence=ctx.p,
        n_iter=n_iter,
        n_evaluations=n_eval,
    )
