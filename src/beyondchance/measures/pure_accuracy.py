r"""Pure accuracy: accuracy with random consistency removed (Wang, Qian & Li, 2020).

A random labeling that predicts the positive class with the same rate q as the
classifier agrees with the truth, in expectation, on

.. math::

    RA = p\,q + (1-p)(1-q) \qquad\text{(binary; Lemma 1)}, \qquad
    RA = \sum_k p_k q_k \qquad\text{(multi-class)},

of the samples, p_k being the share of class k among the true labels and q_k among
the predictions.  Pure accuracy and pure loss are

.. math::

    PA_{pure} = \frac{A - RA}{1 - RA}, \qquad PL = 1 - PA_{pure} = \frac{1 - A}{1 - RA}.

For binary and multi-class labels pure accuracy coincides with Cohen's κ; the
papers differ in interpretation only.  Any constant predictor scores 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._warnings import warn_undefined
from .confusion import ConfusionMatrix

__all__ = ["random_accuracy", "pure_accuracy", "pure_loss"]


def _chance_terms(y_true: Any, y_pred: Any, sample_weight: Any) -> tuple[float, float, float]:
    """(n², n·(correct weight), Σ_k t_k p_k) — the pure-accuracy terms multiplied by n²,
    which avoids cancellation when RA is close to 1."""
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=sample_weight, pos_label=None)
    n = cm.n
    return n * n, n * float(np.trace(cm.matrix)), float(np.dot(cm.true_counts, cm.pred_counts))


def random_accuracy(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Expected accuracy of a random labeling with the classifier's label rates.

    RA = Σ_k p_k q_k (Pure Accuracy paper, Lemma 1 and section 4).  ``y_true`` and
    ``y_pred`` are class labels: continuous values (a score such as 0.731, not a whole
    number) are refused with an :class:`~beyondchance.InvalidInputError` naming the argument; 0.0 and
    1.0 are the labels 0 and 1.

    >>> random_accuracy([1, 1, 0, 0, 0], [1, 0, 0, 0, 0])   # p = 0.4, q = 0.2
    0.56
    """
    n2, _, chance = _chance_terms(y_true, y_pred, sample_weight)
    return chance / n2


def pure_accuracy(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, strict: bool = False
) -> float:
    """Accuracy with random consistency removed: (A − RA) / (1 − RA).

    Undefined (nan with an :class:`UndefinedMeasureWarning`, or an error under
    ``strict=True``) when RA = 1, i.e. when truth and prediction are the same
    constant.  Continuous values in ``y_true`` or ``y_pred`` (scores, not whole
    numbers) are refused with an :class:`~beyondchance.InvalidInputError` naming the argument:
    threshold the scores into labels first.

    >>> round(pure_accuracy([1, 1, 0, 0, 0], [1, 0, 0, 0, 0]), 12)   # A = 0.8, RA = 0.56: 6/11
    0.545454545455
    >>> pure_accuracy([1, 1, 0, 0, 0], [0, 0, 0, 0, 0])    # a constant predictor
    0.0
    """
    n2, correct, chance = _chance_terms(y_true, y_pred, sample_weight)
    if chance >= n2:
        warn_undefined("pure accuracy is undefined when RA = 1 (one constant label)", strict=strict)
        return float("nan")
    return (correct - chance) / (n2 - chance)


def pure_loss(y_true: Any, y_pred: Any, *, sample_weight: Any = None, strict: bool = False) -> float:
    """Pure loss PL = (1 − A) / (1 − RA) = 1 − pure accuracy (labels as in :func:`pure_accuracy`).

    >>> round(pure_loss([1, 1, 0, 0, 0], [1, 0, 0, 0, 0]), 12)    # 1 - 6/11
    0.454545454545
    """
    n2, correct, chance = _chance_terms(y_true, y_pred, sample_weight)
    if chance >= n2:
        warn_undefined("pure loss is undefined when RA = 1 (one constant label)", strict=strict)
        return float("nan")
    return (n2 - correct) / (n2 - chance)


# --- Theorem 1: the PA-optimal threshold of a posterior -------------------------------

from dataclasses import asdict, dataclass  # noqa: E402

from .._validation import as_float_1d, check_sample_weight, check_unit_interval  # noqa: E402
from .registry import get_metric  # noqa: E402

__all__ += ["PureAccuracyOptimalThreshold", "pure_accuracy_optimal_threshold"]


class _ScoreSweep:
    """Confusion counts of every rule "positive iff score > δ", from one sort.

    The weighted positive and negative mass of each distinct score value is
    accumulated once (sort + ``reduceat`` + ``cumsum``); the counts of any threshold
    δ then cost one ``searchsorted``.  ``pos_weight``/``neg_weight`` are the
    per-sample masses: ``w·1{y = 1}`` and ``w·1{y = 0}`` for labelled data, or the
    *expected* masses ``w·η`` and ``w·(1 − η)`` for a posterior sample (Theorem 1).
    Used by :func:`pure_accuracy_optimal_threshold` and by
    :mod:`beyondchance.learn.threshold`.
    """

    __slots__ = ("values", "cum_pos", "cum_neg", "total_pos", "total_neg")

    def __init__(self, scores: np.ndarray, pos_weight: np.ndarray, neg_weight: np.ndarray) -> None:
        order = np.argsort(scores)  # ties are grouped below, stability is not needed
        s = scores[order]
        starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
        self.values = s[starts]
        self.cum_pos = np.cumsum(np.add.reduceat(pos_weight[order], starts))
        self.cum_neg = np.cumsum(np.add.reduceat(neg_weight[order], starts))
        self.total_pos = float(self.cum_pos[-1])
        self.total_neg = float(self.cum_neg[-1])

    @property
    def prevalence(self) -> float:
        return self.total_pos / (self.total_pos + self.total_neg)

    def _from_below(self, below_pos: np.ndarray, below_neg: np.ndarray):
        fn = below_pos
        tn = below_neg
        return self.total_pos - fn, self.total_neg - tn, fn, tn

    def counts(self, thresholds: Any):
        """(tp, fp, fn, tn) of "positive iff score > δ" for each δ in ``thresholds``."""
        k = np.searchsorted(self.values, np.asarray(thresholds, dtype=np.float64), side="right")
        zero = k == 0
        idx = np.where(zero, 0, k - 1)
        below_pos = np.where(zero, 0.0, self.cum_pos[idx])
        below_neg = np.where(zero, 0.0, self.cum_neg[idx])
        return self._from_below(below_pos, below_neg)

    def candidate_counts(self):
        """Counts of every distinct classifier, from "all positive" to "all negative".

        Entry 0 is δ below every score; entry j ≥ 1 is δ = ``values[j − 1]``.
        """
        below_pos = np.concatenate(([0.0], self.cum_pos))
        below_neg = np.concatenate(([0.0], self.cum_neg))
        return self._from_below(below_pos, below_neg)


@dataclass(frozen=True)
class PureAccuracyOptimalThreshold:
    """The PA-optimal plug-in rule of a posterior sample (Pure Accuracy paper, Theorem 1).

    Attributes
    ----------
    threshold : float
        δ* = (1/2 − p)·PA* + p; the optimal classifier predicts positive iff η(x) > δ*.
    pure_accuracy : float
        PA*, the largest expected pure accuracy of any classifier of the sample.
    prevalence : float
        p = E[η] (weighted mean of the posterior values).
    positive_rate : float
        q = P(η(X) > δ*), the optimal classifier's predicted-positive rate.
    accuracy : float
        The optimal classifier's expected accuracy.
    threshold_interval : tuple of float
        [low, high): every threshold in it gives the classifier found by the
        exhaustive sweep (the one with the largest expected pure accuracy).
    fixed_point_residual : float
        PA* − PA(δ*): Theorem 1 says the classifier thresholded at δ* attains PA*,
        so this is 0 up to rounding.
    n_candidates : int
        Number of distinct classifiers evaluated (distinct η values + 1).
    """

    threshold: float
    pure_accuracy: float
    prevalence: float
    positive_rate: float
    accuracy: float
    threshold_interval: tuple[float, float]
    fixed_point_residual: float
    n_candidates: int

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["threshold_interval"] = list(self.threshold_interval)
        return out


def pure_accuracy_optimal_threshold(
    eta: Any, *, sample_weight: Any = None, strict: bool = False
) -> PureAccuracyOptimalThreshold:
    r"""The threshold δ* and value PA* of the pure-accuracy-optimal classifier.

    Theorem 1 of the Pure Accuracy paper: the classifier maximising pure accuracy
    predicts positive iff :math:`\eta(x) > \delta^*` with

    .. math::

        \delta^* = \left(\tfrac12 - p\right) PA^* + p,

    where p = P(Y = 1) and PA* is the optimal pure accuracy itself — a fixed point
    (for p < 1/2 the threshold lies in [p, 1/2] since 0 ≤ PA* ≤ 1).

    For a sample of posterior values ``eta`` (the population, or a large sample of
    it) the expected confusion counts of the rule η > δ are

    .. math::

        TP(\delta) = \sum_i w_i \eta_i 1\{\eta_i > \delta\},\quad
        FP(\delta) = \sum_i w_i (1-\eta_i) 1\{\eta_i > \delta\},

    and FN, TN likewise over :math:`\eta_i \le \delta`.  The function sorts once,
    evaluates the expected pure accuracy of every distinct classifier (one per
    distinct η value, plus "all positive") with cumulative sums, takes the maximum
    PA*, computes δ* and verifies the fixed-point relation PA(δ*) = PA*
    (``fixed_point_residual``).  Exact, O(n log n).

    Parameters
    ----------
    eta : array-like of shape (n,)
        Posterior probabilities η(x_i) = P(Y = 1 | x_i), in [0, 1].
    sample_weight : array-like of shape (n,), optional
        Weights (e.g. quadrature weights of a discretised density).
    strict : bool
        Raise :class:`UndefinedMeasureError` instead of returning nan values with an
        :class:`UndefinedMeasureWarning` when p ∈ {0, 1} (pure accuracy undefined).

    Examples
    --------
    Two groups: η = 0.1 (weight 0.7) and η = 0.6 (weight 0.3), so p = 0.25.  The
    rule "positive iff η = 0.6" has TP = 0.18, FP = 0.12, FN = 0.07, TN = 0.63,
    A = 0.81, q = 0.3, RA = 0.6 and PA = 0.21 / 0.4 = 0.525; δ* = 0.25·0.525 + 0.25.

    >>> r = pure_accuracy_optimal_threshold([0.1, 0.6], sample_weight=[0.7, 0.3])
    >>> round(r.prevalence, 12), round(r.pure_accuracy, 12), round(r.threshold, 12)
    (0.25, 0.525, 0.38125)
    >>> r.threshold_interval, r.fixed_point_residual
    ((0.1, 0.6), 0.0)
    """
    eta_arr = check_unit_interval(as_float_1d(eta, "eta"), "eta")
    n = eta_arr.shape[0]
    w = check_sample_weight(sample_weight, n)
    if w is None:
        w = np.ones(n)
    sweep = _ScoreSweep(eta_arr, w * eta_arr, w * (1.0 - eta_arr))
    total = sweep.total_pos + sweep.total_neg
    p = sweep.total_pos / total
    if not 0.0 < p < 1.0:
        warn_undefined(
            f"pure accuracy is undefined for a posterior sample with p = {p:g} (one class only)",
            strict=strict,
        )
        nan = float("nan")
        return PureAccuracyOptimalThreshold(nan, nan, p, nan, nan, (nan, nan), nan, sweep.values.size + 1)
    pa_func = get_metric("pure_accuracy").func
    tp, fp, fn, tn = sweep.candidate_counts()
    pa = pa_func(tp, fp, fn, tn)
    best = int(np.argmax(pa))
    pa_star = float(pa[best])
    delta = (0.5 - p) * pa_star + p
    tp_d, fp_d, fn_d, tn_d = (float(c) for c in sweep.counts(delta))
    pa_delta = float(pa_func(tp_d, fp_d, fn_d, tn_d))
    low = -np.inf if best == 0 else float(sweep.values[best - 1])
    high = np.inf if best == sweep.values.size else float(sweep.values[best])
    return PureAccuracyOptimalThreshold(
        threshold=float(delta),
        pure_accuracy=pa_star,
        prevalence=float(p),
        positive_rate=(tp_d + fp_d) / total,
        accuracy=(tp_d + tn_d) / total,
        threshold_interval=(low, high),
        fixed_point_residual=pa_star - pa_delta,
        n_candidates=int(sweep.values.size + 1),
    )
