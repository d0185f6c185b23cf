r"""ROC AUC and average precision of (n, K) class scores, and the partial ROC AUC.

Multi-class scores are reduced to binary problems, as scikit-learn does:

* one-vs-rest (``"ovr"``): class k against the others with the scores ``P[:, k]``;
  the per-class areas are averaged (``"macro"``), weighted by the classes' (weighted)
  support (``"weighted"``), pooled into one binary problem of n·K (row, class) pairs
  (``"micro"``, average precision only), or returned per class (``None``);
* one-vs-one (``"ovo"``, ROC AUC, Hand & Till 2001): for each pair (j, k) the rows of
  classes j and k, the mean of AUC(j vs k by P[:, j]) and AUC(k vs j by P[:, k]);
  averaged over the pairs (``"macro"``) or weighted by the pairs' share of the rows.

The partial ROC AUC up to a false-positive rate ``max_fpr`` is McClish's standardised
area (McClish 1989), scikit-learn's ``roc_auc_score(max_fpr=...)``:

.. math::

    \mathrm{pAUC}_s = \tfrac12\Bigl(1 + \frac{A - A_{\min}}{A_{\max} - A_{\min}}\Bigr),\quad
    A = \int_0^{m} \mathrm{TPR}\, d\,\mathrm{FPR},\ A_{\min} = m^2/2,\ A_{\max} = m,

with the ROC curve interpolated linearly at FPR = m; 0.5 is chance and 1 perfect.
Every binary area is :func:`beyondchance.measures.curves.threshold_counts` of its rows.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from .._validation import (
    as_1d,
    as_array,
    as_float,
    check_aligned,
    check_sample_weight,
    check_unit_interval,
    in_class_order,
    encode_labels,
)
from .._warnings import InvalidInputError
from .threshold_counts import threshold_counts

__all__ = ["multiclass_roc_auc", "multiclass_average_precision", "partial_roc_auc"]

_AVERAGES = ("macro", "weighted", "micro", None)


def partial_roc_auc(y_true: Any, y_score: Any, max_fpr: float, *, sample_weight: Any = None,
                    pos_label: Any = None) -> float:
    """McClish-standardised ROC AUC on FPR ∈ [0, max_fpr] (module docstring).

    >>> partial_roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], max_fpr=0.5)   # scikit-learn: 0.6666...
    0.6666666666666666
    """
    m = float(check_unit_interval(max_fpr, "max_fpr", open_=True) if max_fpr != 1 else 1.0)
    tc = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    if m == 1.0:
        return float(tc.auc("roc"))
    if tc.n_pos <= 0 or tc.n_neg <= 0:
        raise InvalidInputError("the partial ROC AUC needs both classes in y_true")
    fpr = np.r_[0.0, tc.fps / tc.n_neg]
    tpr = np.r_[0.0, tc.tps / tc.n_pos]
    stop = int(np.searchsorted(fpr, m, side="right"))
    x = np.r_[fpr[:stop], m]
    y = np.r_[tpr[:stop], np.interp(m, fpr[stop - 1:stop + 1], tpr[stop - 1:stop + 1])]
    area = float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))
    lo, hi = 0.5 * m * m, m
    return 0.5 * (1 + (area - lo) / (hi - lo))


def _scores_matrix(
    y_true: Any, y_score: Any, labels: Any, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(class codes of y_true, (n, K) float scores, classes) with the columns in the
    order of ``labels`` (default: the sorted classes of y_true); a table's columns named by
    the classes are put in that order (``beyondchance._validation.in_class_order``)."""
    check_aligned(y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    codes, _, classes = encode_labels(as_1d(y_true, "y_true"), labels=labels)
    p = as_float(as_array(y_score, "y_score"), "y_score", finite=False)
    p = in_class_order(y_score, p, classes, "y_score", labels_given=labels is not None)
    if p.ndim != 2 or p.shape[0] != codes.shape[0]:
        raise InvalidInputError(f"y_score must have shape ({codes.shape[0]}, K), got {p.shape}")
    if p.shape[1] != classes.shape[0]:
        raise InvalidInputError(
            f"y_score has {p.shape[1]} columns but there are {classes.shape[0]} classes "
            f"({', '.join(map(str, classes[:5].tolist()))}); give labels= in the order of the columns"
        )
    if not np.isfinite(p).all():
        raise InvalidInputError("y_score must be finite")
    return codes, p, classes


def _average(values: np.ndarray, weights: np.ndarray, average: Any) -> Any:
    if average is None:
        return values
    if average == "macro":
        return float(np.mean(values))
    return float(np.average(values, weights=weights))


def multiclass_roc_auc(y_true: Any, y_score: Any, *, multi_class: str = "ovr", average: Any = "macro",
                       sample_weight: Any = None, labels: Any = None) -> Any:
    """ROC AUC of (n, K) class scores, one-vs-rest or one-vs-one (module docstring).

    >>> y = [0, 1, 2, 2, 1, 0]
    >>> P = [[.7, .2, .1], [.2, .5, .3], [.1, .3, .6], [.3, .3, .4], [.1, .6, .3], [.5, .4, .1]]
    >>> multiclass_roc_auc(y, P), multiclass_roc_auc(y, P, multi_class="ovo")
    (1.0, 1.0)
    """
    if multi_class not in ("ovr", "ovo"):
        raise InvalidInputError(f"multi_class must be 'ovr' or 'ovo', got {multi_class!r}")
    if average not in ("macro", "weighted", None) or (multi_class == "ovo" and average is None):
        allowed = "'macro' or 'weighted'" if multi_class == "ovo" else "'macro', 'weighted' or None"
        raise InvalidInputError(f"average must be {allowed} for the {multi_class} ROC AUC, got {average!r}")
    codes, p, classes = _scores_matrix(y_true, y_score, labels, sample_weight)
    w = check_sample_weight(sample_weight, codes.shape[0])
    ww = np.ones(codes.shape[0]) if w is None else w
    k = classes.shape[0]
    if multi_class == "ovr":
        support = np.bincount(codes, weights=ww, minlength=k)
        if (support == 0).any() or (support == ww.sum()).any():
            raise InvalidInputError("the one-vs-rest ROC AUC needs every class among the rows, and more than one")
        values = np.array([threshold_counts(codes == j, p[:, j], sample_weight=w).auc("roc") for j in range(k)])
        return _average(values, support, average)
    pairs, weights = [], []
    for a, b in combinations(range(k), 2):
        rows = (codes == a) | (codes == b)
        wa = None if w is None else w[rows]
        ab = threshold_counts(codes[rows] == a, p[rows, a], sample_weight=wa).auc("roc")
        ba = threshold_counts(codes[rows] == b, p[rows, b], sample_weight=wa).auc("roc")
        pairs.append((ab + ba) / 2)
        weights.append(ww[rows].sum())
    return _average(np.array(pairs), np.array(weights), average)


def multiclass_average_precision(y_true: Any, y_score: Any, *, average: Any = "macro", sample_weight: Any = None,
                                 labels: Any = None) -> Any:
    """Average precision of (n, K) class scores, one-vs-rest (module docstring).

    >>> y = [0, 1, 2, 2, 1, 0]
    >>> P = [[.7, .2, .1], [.2, .5, .3], [.1, .3, .6], [.3, .3, .4], [.1, .6, .3], [.5, .4, .1]]
    >>> multiclass_average_precision(y, P, average=None).tolist()
    [1.0, 1.0, 1.0]
    """
    if average not in _AVERAGES:
        raise InvalidInputError(f"average must be 'macro', 'weighted', 'micro' or None, got {average!r}")
    codes, p, classes = _scores_matrix(y_true, y_score, labels, sample_weight)
    w = check_sample_weight(sample_weight, codes.shape[0])
    k = classes.shape[0]
    if average == "micro":
        onehot = codes[:, None] == np.arange(k)[None, :]
        ww = None if w is None else np.repeat(w, k)
        return float(threshold_counts(onehot.ravel(), p.ravel(), sample_weight=ww).auc("pr", method="ap"))
    values = np.array([threshold_counts(codes == j, p[:, j], sample_weight=w).auc("pr", method="ap")
                       for j in range(k)])
    support = np.bincount(codes, weights=np.ones(codes.shape[0]) if w is None else w, minlength=k)
    return _average(values, support, average)
