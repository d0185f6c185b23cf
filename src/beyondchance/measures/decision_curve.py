r"""Net benefit and decision curves, and their identity with the prediction advantage.

Decision-curve analysis (Vickers & Elkin 2006, Medical Decision Making 26(6)): treating
the cases whose predicted probability is at least a *threshold probability*
:math:`p_t` has the net benefit

.. math::

    \mathrm{NB}(p_t) = \frac{TP}{n} - \frac{FP}{n}\,\frac{p_t}{1 - p_t},

the true positives' share less the false positives' weighted by the odds at which a
decision maker is indifferent.  The constant strategies: *treat none*, NB = 0, and *treat
all*, :math:`\mathrm{NB}_{all} = \pi - (1 - \pi)\,p_t / (1 - p_t)`; a perfect predictor
has NB = π.

**The identity with the prediction advantage.**  The threshold :math:`p_t` is the
Bayes threshold of the cost-weighted 0/1 loss with costs :math:`p_t` for a false
positive and :math:`1 - p_t` for a false negative.  Its risk is

.. math::

    R(f) = \frac{(1 - p_t)\,FN + p_t\,FP}{n} = (1 - p_t)\,\bigl(\pi - \mathrm{NB}(p_t)\bigr),

so the risks of the constants are :math:`(1 - p_t)\pi` (treat none) and
:math:`p_t(1 - \pi) = (1 - p_t)(\pi - \mathrm{NB}_{all})` (treat all), and the best
constant (the BMP of the PA paper, section 2.7) has
:math:`R(f_0) = (1 - p_t)(\pi - \max(0, \mathrm{NB}_{all}))`.  Hence

.. math::

    \mathrm{PA}(p_t) = 1 - \frac{R(f)}{R(f_0)}
    = \frac{\mathrm{NB}(p_t) - \max(0, \mathrm{NB}_{all}(p_t))}{\pi - \max(0, \mathrm{NB}_{all}(p_t))}:

the decision curve normalised so that 0 is the better of treat-all and treat-none and 1
a perfect predictor.  Everything here is a function of the
:class:`~beyondchance.ThresholdCounts` (weighted or not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_float, binary_target, as_float_1d, check_consistent_length, check_sample_weight
from .._warnings import InvalidInputError
from .curves import ThresholdCounts, threshold_counts
from .binary_scores import _padded

__all__ = ["DecisionCurve", "net_benefit", "decision_curve", "decision_curve_from_counts", "DEFAULT_THRESHOLDS"]

#: threshold probabilities of a decision curve by default: 0.01, 0.02, …, 0.99
DEFAULT_THRESHOLDS = np.round(np.arange(1, 100) / 100, 2)


@dataclass(frozen=True)
class DecisionCurve:
    """Net benefit of a model and of the constant strategies, and the PA, per threshold probability.

    Attributes
    ----------
    threshold : (k,) threshold probabilities p_t
    net_benefit : (k,) of the model (treat when score ≥ p_t)
    treat_all : (k,) net benefit of treating everyone
    treat_none : (k,) zeros
    prediction_advantage : (k,) PA under the cost-weighted 0/1 loss of p_t (module docstring)
    prevalence : π, the net benefit of a perfect predictor
    """

    threshold: np.ndarray
    net_benefit: np.ndarray
    treat_all: np.ndarray
    treat_none: np.ndarray
    prediction_advantage: np.ndarray
    prevalence: float

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold.tolist(), "net_benefit": self.net_benefit.tolist(),
                "treat_all": self.treat_all.tolist(), "treat_none": self.treat_none.tolist(),
                "prediction_advantage": self.prediction_advantage.tolist(), "prevalence": self.prevalence}


def _check_thresholds(thresholds: Any) -> np.ndarray:
    t = as_float(DEFAULT_THRESHOLDS if thresholds is None else thresholds, "threshold_probability")
    if t.ndim > 1 or t.size == 0:
        raise InvalidInputError("threshold_probability must be a number or a 1-D array of numbers")
    bad = (t <= 0) | (t >= 1)
    if bad.any():
        raise InvalidInputError(f"threshold probabilities must lie strictly between 0 and 1, got {t[bad][0]:g}")
    return t


def decision_curve_from_counts(tc: ThresholdCounts, thresholds: Any = None) -> DecisionCurve:
    """The decision curve from the counts of (score, label) (see the module docstring).

    >>> tc = threshold_counts([0, 1, 1, 0, 1], [0.1, 0.9, 0.4, 0.6, 0.5])
    >>> dc = decision_curve_from_counts(tc, [0.5])
    >>> dc.net_benefit.round(12).tolist(), dc.treat_all.round(12).tolist()   # 2/5 − 1/5 · 1; 3/5 − 2/5 · 1
    ([0.2], [0.2])
    """
    t = np.atleast_1d(_check_thresholds(thresholds))
    if not tc.is_defined:
        raise InvalidInputError("a decision curve needs both classes in y_true")
    lo, hi = float(tc.thresholds[-1]), float(tc.thresholds[0])
    if lo < 0 or hi > 1:
        raise InvalidInputError(f"decision curves need predicted probabilities in [0, 1]; the scores range over "
                                f"[{lo:.4g}, {hi:.4g}]")
    thr, tps, fps = _padded(tc)
    j = np.searchsorted(-thr, -t, side="right") - 1  # scores ≥ t (thresholds decreasing)
    n, pi = tc.n, tc.prevalence
    odds = t / (1 - t)
    nb = tps[j] / n - fps[j] / n * odds
    nb_all = pi - (1 - pi) * odds
    best_constant = np.maximum(0.0, nb_all)
    pa = (nb - best_constant) / (pi - best_constant)
    return DecisionCurve(threshold=t, net_benefit=nb, treat_all=nb_all, treat_none=np.zeros_like(t),
                         prediction_advantage=pa, prevalence=float(pi))


def _counts(y_true: Any, y_score: Any, sample_weight: Any, pos_label: Any) -> ThresholdCounts:
    is_pos, _ = binary_target(y_true, pos_label=pos_label)
    s = as_float_1d(y_score, "y_score")
    n = check_consistent_length(y_true=is_pos, y_score=s)
    return threshold_counts(is_pos, s, sample_weight=check_sample_weight(sample_weight, n))


def net_benefit(
    y_true: Any, y_score: Any, threshold_probability: Any, *, sample_weight: Any = None, pos_label: Any = None
) -> Any:
    r"""Net benefit of treating the cases with predicted probability ≥ ``threshold_probability``.

    .. math:: \mathrm{NB}(p_t) = \frac{TP}{n} - \frac{FP}{n}\,\frac{p_t}{1 - p_t}

    (Vickers & Elkin 2006; weighted counts with ``sample_weight``).  Treat none scores 0,
    treat all :math:`\pi - (1 - \pi) p_t / (1 - p_t)`, a perfect predictor π.

    Parameters
    ----------
    y_true : array-like (n,) binary labels
    y_score : array-like (n,) predicted probabilities of the positive class
    threshold_probability : float or array-like in (0, 1)
    sample_weight : array-like (n,), optional
    pos_label : optional, the positive class (default 1 / True)

    Returns
    -------
    float, or an array for an array of thresholds

    Examples
    --------
    >>> net_benefit([0, 1, 1, 0, 1], [0.1, 0.9, 0.4, 0.6, 0.5], 0.5)    # TP 2, FP 1: 2/5 − 1/5
    0.2
    """
    nb = decision_curve_from_counts(_counts(y_true, y_score, sample_weight, pos_label),
                                    np.atleast_1d(threshold_probability)).net_benefit
    return float(nb[0]) if np.ndim(threshold_probability) == 0 else nb


def decision_curve(
    y_true: Any, y_score: Any, *, thresholds: Any = None, sample_weight: Any = None, pos_label: Any = None
) -> DecisionCurve:
    r"""The decision curve: net benefit of the model, of treat-all and treat-none, and the
    prediction advantage under the cost-weighted 0/1 loss, at each threshold probability.

    .. math::

        \mathrm{PA}(p_t) = \frac{\mathrm{NB}(p_t) - \max(0, \mathrm{NB}_{all}(p_t))}
                                {\pi - \max(0, \mathrm{NB}_{all}(p_t))}

    (derivation in :mod:`beyondchance.measures.decision_curve`; PA paper section 2.7 for the
    cost-matrix BMP; Vickers & Elkin 2006 for the net benefit).

    Parameters
    ----------
    y_true, y_score : binary labels and predicted probabilities
    thresholds : array-like in (0, 1), optional (default 0.01, 0.02, …, 0.99)
    sample_weight, pos_label : as in :func:`net_benefit`

    Returns
    -------
    DecisionCurve

    Examples
    --------
    >>> dc = decision_curve([0, 1, 1, 0, 1], [0.1, 0.9, 0.4, 0.6, 0.5], thresholds=[0.3, 0.7])
    >>> dc.net_benefit.round(4).tolist()      # 3/5 − 1/5 · 3/7 and 1/5 − 0
    [0.5143, 0.2]
    >>> dc.prediction_advantage.round(4).tolist()   # (0.5143 − 0.4286) / (0.6 − 0.4286); 0.2 / 0.6
    [0.5, 0.3333]
    """
    return decision_curve_from_counts(_counts(y_true, y_score, sample_weight, pos_label), thresholds)
