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

from ._warnings import warn_undefined
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

    RA = Σ_k p_k q_k (Pure Accuracy paper, Lemma 1 and section 4).

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
    constant.

    >>> pure_accuracy([1, 1, 0, 0, 0], [1, 0, 0, 0, 0])    # A = 0.8, RA = 0.56
    0.5454545454545455
    >>> pure_accuracy([1, 1, 0, 0, 0], [0, 0, 0, 0, 0])    # a constant predictor
    0.0
    """
    n2, correct, chance = _chance_terms(y_true, y_pred, sample_weight)
    if chance >= n2:
        warn_undefined("pure accuracy is undefined when RA = 1 (one constant label)", strict=strict)
        return float("nan")
    return (correct - chance) / (n2 - chance)


def pure_loss(y_true: Any, y_pred: Any, *, sample_weight: Any = None, strict: bool = False) -> float:
    """Pure loss PL = (1 − A) / (1 − RA) = 1 − pure accuracy.

    >>> round(pure_loss([1, 1, 0, 0, 0], [1, 0, 0, 0, 0]), 12)    # 1 - 6/11
    0.454545454545
    """
    n2, correct, chance = _chance_terms(y_true, y_pred, sample_weight)
    if chance >= n2:
        warn_undefined("pure loss is undefined when RA = 1 (one constant label)", strict=strict)
        return float("nan")
    return (n2 - correct) / (n2 - chance)
