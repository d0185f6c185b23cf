r"""Curves from scores: ROC, precision–recall, lift and gain, their AUCs and point metrics.

Every curve of the OPS paper (Zhao, Bui, Yu & Dzieciolowski, section 2.4, Table 3) is a
path in the (α, β) plane, α = FP/(FP+TN) the Type-I error and β = FN/(TP+FN) the
Type-II error, traced by lowering a threshold over the scores.  With the prevalence π
and the predicted-positive rate q = π(1−β) + (1−π)α:

=====  ==============  ========================  ===========  ===============
curve  x               y                         ideal AUC    trivial AUC
=====  ==============  ========================  ===========  ===============
roc    α               recall 1 − β              1            1/2
pr     recall 1 − β    precision π(1−β) / q      1            π
lift   q               lift (1 − β) / q          1 − ln π     1
gain   q               recall 1 − β              1 − π/2      1/2
=====  ==============  ========================  ===========  ===============

"Trivial" is a constant score (one threshold: the diagonal from (0, 1) to (1, 0));
its precision is π and its lift 1 everywhere.  The ideal AUCs are those of the
paper's Table 3 (its "log" is the natural logarithm: Tables 8 and 9 give
AUC/NAUC = 1 − ln π).

Two layers, one estimator:

* **Rate space** — :func:`auc_from_rates`, :func:`value_at_from_rates`,
  :func:`recall_at_precision_from_rates` take batches of curves ``alpha, beta`` of
  shape ``(..., m)`` and are vectorised over the batch.  The Monte Carlo reference
  distribution of curves (the Directed Binary Tree, OPS paper section 3.3, eq. 8) uses them.
* **Score space** — :func:`roc_curve`, :func:`roc_auc`, :func:`average_precision`,
  ... take ``(y_true, y_score)``.  They build the sufficient statistic
  :class:`ThresholdCounts` (distinct thresholds with cumulative weighted positive and
  negative counts; one sort) and then call the *same* rate-space functions on the
  classifier's (α, β) points, so a classifier's AUC and a reference curve's AUC are
  computed by one estimator.

Conventions
-----------
* Points run by **decreasing threshold**: α non-decreasing, β non-increasing, from the
  end point (α, β) = (0, 1) (nothing predicted positive; threshold +inf) to (1, 0)
  (everything predicted positive).  Tied scores form one threshold (as scikit-learn's
  ``_binary_clf_curve``); samples of zero weight are dropped.
* At the end point (0, 1) precision and lift are 0/0.  They take their limit along
  the first segment under the paper's interpolation (eq. 9, linear in (α, β)), which is
  their value at the next point with q > 0 (precision and lift are constant on a
  segment that starts at the origin).  scikit-learn's ``precision_recall_curve``
  instead appends precision 1 at recall 0; average precision does not use that value.
* AUC methods: ``"trapezoid"`` (linearly connecting the points (x, y), as the paper
  states), ``"step"`` (the step-wise sum Σ Δx · y at the lower-threshold end of each
  step), ``"ap"`` (precision–recall only: ``"step"`` on the PR curve, scikit-learn's
  ``average_precision_score``) and ``"interpolated"`` (the exact area
  under the curve traced by eq. 9's linear interpolation in (α, β) between the points;
  for the precision–recall curve this is the Davis & Goadrich (2006) interpolation).
  For ROC and gain curves y is linear in x along such a segment, so ``"interpolated"``
  and ``"trapezoid"`` coincide.  ``"default"`` is ``"trapezoid"`` for roc and gain,
  ``"ap"`` for pr and ``"interpolated"`` for lift: the lift's ideal AUC 1 − ln π is the
  area under the interpolated ideal curve (∫ min(1/π, 1/q) dq), so only with this
  estimator does 0 ≤ NAUC ≤ 1 hold for every set of scores (with tied scores the
  trapezoid can exceed the ideal: a perfect two-valued score at π = 0.1 gets 5.95
  against 1 − ln 0.1 = 3.30).
* Point metrics (OPS paper eq. 9): the y value at x = u interpolates (α, β) linearly
  between the neighbouring points x_l ≤ u ≤ x_r and evaluates the y formula there.
  When points share x = u exactly the best one counts (largest y: the last point of a
  vertical ROC run, the first point of a flat-recall PR run).

Examples
--------
>>> import numpy as np
>>> from beyondchance.measures.curves import roc_auc, average_precision, auc_from_rates
>>> y = [0, 0, 1, 1]
>>> s = [0.1, 0.4, 0.35, 0.8]
>>> roc_auc(y, s)
0.75
>>> round(average_precision(y, s), 6)
0.833333
>>> # the same estimator on (alpha, beta) points, batched over two curves
>>> alpha = np.array([[0, 0, 0.5, 0.5, 1], [0, 0, 0, 1, 1]], dtype=float)
>>> beta = np.array([[1, 0.5, 0.5, 0, 0], [1, 0.5, 0, 0, 0]], dtype=float)
>>> auc_from_rates(alpha, beta, 0.5, curve="roc")
array([0.75, 1.  ])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import (
    check_unit_interval,
    is_score_matrix,
)
from .._warnings import InvalidInputError
from .curve_rates import (
    CURVES,
    AucMethod,
    Curve,
    CurveKind,
    auc_from_rates,
    ideal_auc,
    recall_at_precision_from_rates,
    value_at_from_rates,
)
from .multiclass_curves import multiclass_average_precision, multiclass_roc_auc, partial_roc_auc
from .threshold_counts import ThresholdCounts, threshold_counts



__all__ = [
    "CURVES",
    "ThresholdCounts",
    "Curve",
    "threshold_counts",
    "auc_from_rates",
    "value_at_from_rates",
    "recall_at_precision_from_rates",
    "ideal_auc",
    "roc_curve",
    "precision_recall_curve",
    "lift_curve",
    "gain_curve",
    "curve_auc",
    "curve_nauc",
    "roc_auc",
    "average_precision",
    "pr_auc",
    "lift_auc",
    "gain_auc",
    "curve_value_at",
    "precision_at_recall",
    "recall_at_precision",
    "precision_at_k",
    "lift_at_k",
]


# =====================================================================================
# score-space functions
# =====================================================================================

_SCORE_PARAMS = """
    y_true : array-like (n,)
        Binary labels.
    y_score : array-like (n,)
        Scores, higher meaning more likely positive (probabilities, margins, ...).
    sample_weight : array-like (n,), optional
        Non-negative weights; zero-weight samples are dropped.
    pos_label : optional
        The positive label (default 1 for labels in {0, 1} or {-1, 1}).
    strict : bool
        Raise :class:`~beyondchance.UndefinedMeasureError` instead of returning nan
        with an :class:`~beyondchance.UndefinedMeasureWarning` when y_true holds one class."""


def _with_params(doc: str) -> str:
    return doc.replace("    {params}", _SCORE_PARAMS.strip("\n"))


def roc_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "roc", strict=strict
    )


roc_curve.__doc__ = _with_params(
    r"""The ROC curve: x = α (false positive rate), y = 1 − β (recall).

    All distinct thresholds are kept (scikit-learn's ``roc_curve(...,
    drop_intermediate=False)``), starting with threshold ``+inf`` at (0, 0).

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = roc_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.thresholds
    array([inf, 0.9, 0.6, 0.2])
    >>> c.x, c.y
    (array([0. , 0. , 0.5, 1. ]), array([0. , 0.5, 1. , 1. ]))
    """
)


def precision_recall_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "pr", strict=strict
    )


precision_recall_curve.__doc__ = _with_params(
    r"""The precision–recall curve: x = recall 1 − β, y = precision π(1−β)/q.

    Points by decreasing threshold (the reverse of scikit-learn's order).  The first
    point is recall 0 with precision taken as its limit along the first segment (the
    precision of the highest threshold); scikit-learn puts precision 1 there.

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = precision_recall_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.x, c.y
    (array([0. , 0.5, 1. , 1. ]), array([1.        , 1.        , 0.66666667, 0.5       ]))
    """
)


def lift_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "lift", strict=strict
    )


lift_curve.__doc__ = _with_params(
    r"""The lift curve: x = predicted-positive rate q, y = lift (1 − β)/q = precision/π.

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = lift_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.x, c.y
    (array([0.  , 0.25, 0.75, 1.  ]), array([2.        , 2.        , 1.33333333, 1.        ]))
    """
)


def gain_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False
) -> Curve:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).curve(
        "gain", strict=strict
    )


gain_curve.__doc__ = _with_params(
    r"""The cumulative gain curve: x = predicted-positive rate q, y = recall 1 − β.

    Parameters
    ----------
    {params}

    Returns
    -------
    Curve

    Examples
    --------
    >>> c = gain_curve([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> c.x, c.y
    (array([0.  , 0.25, 0.75, 1.  ]), array([0. , 0.5, 1. , 1. ]))
    """
)


def curve_auc(
    y_true: Any,
    y_score: Any,
    *,
    curve: CurveKind = "roc",
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).auc(
        curve, method=method, strict=strict
    )


curve_auc.__doc__ = _with_params(
    r"""Area under any of the four curves; :func:`auc_from_rates` on the classifier's points.

    Parameters
    ----------
    {params}
    curve : {"roc", "pr", "lift", "gain"}
    method : {"default", "ap", "step", "trapezoid", "interpolated"}
        See :func:`auc_from_rates`.

    Examples
    --------
    >>> curve_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], curve="gain")
    0.6875
    """
)


def curve_nauc(
    y_true: Any,
    y_score: Any,
    *,
    curve: CurveKind = "roc",
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).nauc(
        curve, method=method, strict=strict
    )


curve_nauc.__doc__ = _with_params(
    r"""Normalised AUC = AUC / ideal AUC (OPS paper eq. 3; ideals in Table 3).

    Parameters
    ----------
    {params}
    curve : {"roc", "pr", "lift", "gain"}
    method : {"default", "ap", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> curve_nauc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], curve="gain")  # 0.6875 / (1 - 0.5/2)
    0.9166666666666666
    """
)


def roc_auc(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False,
    max_fpr: float | None = None, multi_class: str = "ovr", average: Any = "macro", labels: Any = None,
) -> Any:
    if is_score_matrix(y_score):
        if max_fpr is not None:
            raise InvalidInputError("max_fpr applies to binary scores only (as in scikit-learn)")
        return multiclass_roc_auc(y_true, y_score, multi_class=multi_class, average=average,
                                  sample_weight=sample_weight, labels=labels)
    if max_fpr is not None:
        return partial_roc_auc(y_true, y_score, max_fpr, sample_weight=sample_weight, pos_label=pos_label)
    return curve_auc(
        y_true, y_score, curve="roc", sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


roc_auc.__doc__ = _with_params(
    r"""Area under the ROC curve by the trapezoid rule (= scikit-learn's ``roc_auc_score``).

    .. math:: \mathrm{AUC} = \sum_j (\alpha_j - \alpha_{j-1})\,\frac{(1-\beta_j) + (1-\beta_{j-1})}{2}

    Parameters
    ----------
    {params}
    max_fpr : float in (0, 1], optional
        The McClish-standardised partial area up to this false-positive rate
        (``beyondchance.measures.multiclass_curves.partial_roc_auc``).
    multi_class, average, labels : for an (n, K) ``y_score`` of class scores:
        ``"ovr"`` (one-vs-rest, ``average`` ``"macro"``, ``"weighted"`` or None) or
        ``"ovo"`` (Hand & Till), columns in the order of ``labels`` (default the sorted
        classes); see ``beyondchance.measures.multiclass_curves.multiclass_roc_auc``.

    Examples
    --------
    >>> roc_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    0.875
    >>> P = [[.6, .3, .1], [.2, .7, .1], [.1, .2, .7], [.5, .3, .2], [.3, .3, .4]]
    >>> round(roc_auc([0, 1, 2, 1, 0], P), 12)   # one-vs-rest, macro: scikit-learn's 0.888...
    0.888888888889
    """
)


def average_precision(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, strict: bool = False,
    average: Any = "macro", labels: Any = None,
) -> Any:
    if is_score_matrix(y_score):
        return multiclass_average_precision(y_true, y_score, average=average, sample_weight=sample_weight,
                                            labels=labels)
    return curve_auc(
        y_true, y_score, curve="pr", method="ap", sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


average_precision.__doc__ = _with_params(
    r"""Average precision, the step-wise area under the PR curve (= ``average_precision_score``).

    .. math:: \mathrm{AP} = \sum_j (R_j - R_{j-1})\, P_j

    over the points by decreasing threshold.

    Parameters
    ----------
    {params}
    average, labels : for an (n, K) ``y_score`` of class scores, one-vs-rest:
        ``"macro"``, ``"weighted"``, ``"micro"`` or None (per class), columns in the
        order of ``labels``; see
        ``beyondchance.measures.multiclass_curves.multiclass_average_precision``.

    Examples
    --------
    >>> round(average_precision([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6]), 6)
    0.833333
    """
)


def pr_auc(
    y_true: Any,
    y_score: Any,
    *,
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return curve_auc(
        y_true, y_score, curve="pr", method=method, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


pr_auc.__doc__ = _with_params(
    r"""Area under the precision–recall curve: average precision by default.

    ``method="trapezoid"`` connects the points linearly (with the first point's
    precision at recall 0, see the module docstring), ``"interpolated"`` integrates
    eq. 9's interpolation exactly (Davis & Goadrich).

    Parameters
    ----------
    {params}
    method : {"default", "ap", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> pr_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], method="trapezoid")  # 0.5 + 0.5 * (1 + 2/3) / 2
    0.9166666666666666
    """
)


def lift_auc(
    y_true: Any,
    y_score: Any,
    *,
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return curve_auc(
        y_true, y_score, curve="lift", method=method, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


lift_auc.__doc__ = _with_params(
    r"""Area under the lift curve (OPS paper section 4.3, "average lift"); ideal 1 − ln π.

    Default ``method="interpolated"``: the exact area under eq. 9's interpolation,
    for which 0 ≤ NAUC ≤ 1; ``"trapezoid"`` connects the points (q, lift) linearly.

    Parameters
    ----------
    {params}
    method : {"default", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> import numpy as np
    >>> perfect = lift_auc([0, 0, 0, 1], [0.1, 0.1, 0.1, 0.9])  # ideal at pi = 1/4
    >>> bool(np.isclose(perfect, 1 - np.log(0.25)))
    True
    """
)


def gain_auc(
    y_true: Any,
    y_score: Any,
    *,
    method: AucMethod = "default",
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> float:
    return curve_auc(
        y_true, y_score, curve="gain", method=method, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


gain_auc.__doc__ = _with_params(
    r"""Area under the cumulative gain curve (trapezoid); ideal 1 − π/2.

    It equals π/2 + (1 − π)·ROC AUC.

    Parameters
    ----------
    {params}
    method : {"default", "step", "trapezoid", "interpolated"}

    Examples
    --------
    >>> gain_auc([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])  # 0.25 + 0.5 * 0.875
    0.6875
    """
)


def curve_value_at(
    y_true: Any,
    y_score: Any,
    *,
    curve: CurveKind = "pr",
    at: Any = 0.9,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label).value_at(
        curve, at, strict=strict
    )


curve_value_at.__doc__ = _with_params(
    r"""The curve's y at x = ``at`` by eq. 9 (:func:`value_at_from_rates`).

    Parameters
    ----------
    {params}
    curve : {"roc", "pr", "lift", "gain"}
    at : float or array-like in [0, 1]

    Examples
    --------
    >>> curve_value_at([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], curve="roc", at=0.25)
    0.75
    """
)


def precision_at_recall(
    y_true: Any,
    y_score: Any,
    recall: Any = 0.9,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    return curve_value_at(
        y_true, y_score, curve="pr", at=recall, sample_weight=sample_weight, pos_label=pos_label, strict=strict
    )


precision_at_recall.__doc__ = _with_params(
    r"""Precision at a fixed recall, interpolating (α, β) linearly (OPS paper eq. 9).

    Between the neighbouring points with recall r_l < u < r_r, (α, β) is interpolated
    linearly and the precision π(1 − β̂) / (π(1 − β̂) + (1 − π)α̂) is evaluated there.

    **Ties.** When several points have recall exactly u (a run of thresholds that add
    only negatives), eq. 9 is 0/0 and the *best* of them counts: the first point of the
    run (the highest threshold), whose precision is the largest.  That is the precision
    a user gets by choosing the best threshold reaching recall u, and the limit of
    eq. 9 from below.  Recall is TP / P (one rounding), so a recall level given as
    the nearest float, e.g. ``1/3`` for 3 of 9 positives, finds its tie.

    Parameters
    ----------
    {params}
    recall : float or array-like in [0, 1]

    Examples
    --------
    >>> # between (recall 0.5, alpha 0) and (recall 1, alpha 0.5): alpha = 0.25 at recall 0.75
    >>> precision_at_recall([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], 0.75)
    0.75
    >>> # recall 1/2 at thresholds 0.9 (precision 1) and 0.8 (precision 1/2): the first counts
    >>> precision_at_recall([1, 0, 1, 0], [0.9, 0.8, 0.5, 0.5], 0.5)
    1.0
    """
)


def recall_at_precision(
    y_true: Any,
    y_score: Any,
    precision: Any = 0.9,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    return threshold_counts(
        y_true, y_score, sample_weight=sample_weight, pos_label=pos_label
    ).recall_at_precision(precision, strict=strict)


recall_at_precision.__doc__ = _with_params(
    r"""The largest recall with precision ≥ ``precision`` on eq. 9's interpolated curve.

    nan (with an :class:`~beyondchance.UndefinedMeasureWarning`) when no point of the
    curve reaches the precision.

    Parameters
    ----------
    {params}
    precision : float or array-like in [0, 1]

    Examples
    --------
    >>> recall_at_precision([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], 0.75)
    0.75
    """
)


def _rate_from_k(counts: ThresholdCounts, k: Any, rate: Any) -> np.ndarray:
    if (k is None) == (rate is None):
        raise InvalidInputError("give exactly one of k (a number of samples) and rate (a fraction)")
    if rate is not None:
        q = check_unit_interval(rate, "rate")
        if np.any(q == 0):
            raise InvalidInputError("rate must be positive")
        return q
    kk = np.asarray(k, dtype=np.float64)
    if not np.isfinite(kk).all() or np.any(kk <= 0) or np.any(kk > counts.n):
        raise InvalidInputError(f"k must lie in (0, {counts.n:g}] (the total sample weight), got {k!r}")
    return np.minimum(kk / counts.n, 1.0)


def precision_at_k(
    y_true: Any,
    y_score: Any,
    k: Any = None,
    *,
    rate: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    counts = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    q = _rate_from_k(counts, k, rate)
    lift = counts.value_at("lift", q, strict=strict)
    return lift * counts.prevalence


precision_at_k.__doc__ = _with_params(
    r"""Precision among the top ``k`` scores (or the top ``rate`` fraction), by eq. 9.

    The predicted-positive rate is q = k / n (n = total weight); (α, β) are
    interpolated linearly at q, so ties at the cut-off are shared out pro rata (the
    expected precision when ties are broken at random).  Without ties at the cut-off
    this is the plain share of positives among the k highest scores.

    Parameters
    ----------
    {params}
    k : number of samples (total weight with sample weights) predicted positive
    rate : predicted-positive rate in (0, 1], instead of ``k``

    Examples
    --------
    >>> precision_at_k([0, 1, 0, 1, 1], [0.1, 0.9, 0.8, 0.7, 0.2], k=3)
    0.6666666666666666
    """
)


def lift_at_k(
    y_true: Any,
    y_score: Any,
    k: Any = None,
    *,
    rate: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    strict: bool = False,
) -> Any:
    counts = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    q = _rate_from_k(counts, k, rate)
    return counts.value_at("lift", q, strict=strict)


lift_at_k.__doc__ = _with_params(
    r"""Lift = precision / π among the top ``k`` scores (or the top ``rate`` fraction).

    See :func:`precision_at_k`; lift is the y of the lift curve at q = k / n.

    Parameters
    ----------
    {params}
    k : number of samples (total weight with sample weights) predicted positive
    rate : predicted-positive rate in (0, 1], instead of ``k``

    Examples
    --------
    >>> round(lift_at_k([0, 1, 0, 1, 1], [0.1, 0.9, 0.8, 0.7, 0.2], k=3), 6)  # (2/3) / 0.6
    1.111111
    """
)
