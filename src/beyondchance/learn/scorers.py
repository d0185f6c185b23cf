r"""scikit-learn scorers of the measures against chance: for ``cross_validate``,
``GridSearchCV``, ``TunedThresholdClassifierCV`` and anything that takes ``scoring=``.

=============================  ==================  ====================================
name                           response            score (greater is better)
=============================  ==================  ====================================
``prediction_advantage``       ``predict``         PA under 0-1 loss (El-Yaniv et al.)
``prediction_advantage_<l>``   see below           PA under loss l: ``log_loss`` /
                                                   ``cross_entropy``, ``brier``
                                                   (``predict_proba``); ``squared``,
                                                   ``absolute``, ``pinball``
                                                   (``predict``)
``pure_accuracy``              ``predict``         (A − RA) / (1 − RA) (Wang et al.)
``ops_<labeling metric>``      ``predict``         OPS of the metric at the fold's
                                                   prevalence (binary; multi-class:
                                                   one-vs-rest, macro)
``ops_<scoring metric>``       ``predict_proba``,  OPS of ``roc_auc``, ``pr_auc``,
                               ``decision_function``  ``lift_auc``, ``gain_auc``,
                                                   ``prg_auc`` at the fold's
                                                   prevalence (DBT reference)
=============================  ==================  ====================================

The prediction advantage is 0 for the best constant prediction, so a model selected by
it is selected for what it adds over chance; the OPS of a metric is the share of all
classifiers (curves) at the fold's prevalence that its value beats (Zhao et al.), so
folds of different prevalence are scored on one scale.  ``pos_label`` (binary tasks)
chooses the positive class, e.g. with string labels.  The scorers of scores and
probabilities always ask scikit-learn for the response of its positive class (the last
of ``classes_``) and turn it to ``pos_label`` themselves: scikit-learn caches one
response per method when several scorers run together (``cross_validate`` with a dict),
so a response flipped for one scorer's ``pos_label`` would otherwise reach the others.

>>> from sklearn.datasets import make_classification
>>> from sklearn.linear_model import LogisticRegression
>>> from sklearn.model_selection import cross_val_score
>>> X, y = make_classification(n_samples=300, weights=[0.8], random_state=0)
>>> scores = cross_val_score(LogisticRegression(), X, y, cv=3, scoring=get_scorer("ops_pr_auc"))
>>> bool(((0 <= scores) & (scores <= 1)).all())
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._validation import union_labels
from .._warnings import InvalidInputError
from ..measures.registry import METRICS, get_metric

if TYPE_CHECKING:
    from ..measures.curve_rates import CurveKind

__all__ = ["make_scorer", "get_scorer", "scorer_names"]

#: scoring metrics with an OPS scorer: name -> curve of :func:`beyondchance.measures.curves.curve_auc`
_SCORING_CURVES = {"roc_auc": "roc", "pr_auc": "pr", "lift_auc": "lift", "gain_auc": "gain", "prg_auc": "prg"}
#: losses of prediction_advantage scorers that score probabilities (the others score predictions)
_PROBABILITY_LOSSES = ("log_loss", "cross_entropy", "brier")
_PA_LOSSES = ("zero_one", *_PROBABILITY_LOSSES, "squared", "absolute", "pinball")


def scorer_names() -> list[str]:
    """Every name :func:`get_scorer` knows.

    >>> {"prediction_advantage", "pure_accuracy", "ops_f1", "ops_pr_auc"} <= set(scorer_names())
    True
    """
    names = ["prediction_advantage", *(f"prediction_advantage_{loss}" for loss in _PA_LOSSES[1:]), "pure_accuracy"]
    names += [f"ops_{m}" for m in sorted(METRICS)] + [f"ops_{m}" for m in _SCORING_CURVES]
    return names


def _binary_target(y_true: np.ndarray, pos_label: Any) -> np.ndarray:
    """y_true == positive class (default: the last of the sorted classes, scikit-learn's)."""
    classes = union_labels(y_true, names=("y_true",))  # labels: a score is refused (continuous_label)
    if classes.size > 2:
        raise InvalidInputError(f"this scorer needs a binary task; y_true has {classes.size} classes")
    pos = classes[-1] if pos_label is None else pos_label
    if pos_label is not None and pos not in classes.tolist() and classes.size == 2:
        raise InvalidInputError(f"pos_label={pos_label!r} is not one of the labels {classes.tolist()}")
    return np.asarray(y_true) == pos


def _for_positive(y_true: np.ndarray, positive: Any) -> tuple[np.ndarray, bool]:
    """(y_true == the positive class, whether the response must be turned): scikit-learn's
    1-D response is that of the last of the sorted classes."""
    last = np.unique(y_true)[-1]
    return _binary_target(y_true, positive), positive is not None and positive != last


def _prediction_advantage(y_true: Any, y_pred: Any, *, loss: str, positive: Any = None,
                          sample_weight: Any = None) -> float:
    from ..measures.advantage import prediction_advantage

    y_pred = np.asarray(y_pred)
    if loss in _PROBABILITY_LOSSES and y_pred.ndim == 1:  # the probability of the last class
        t, turn = _for_positive(np.asarray(y_true), positive)
        return float(prediction_advantage(t, 1.0 - y_pred if turn else y_pred, loss=loss, labels=[False, True],
                                          sample_weight=sample_weight))
    return float(prediction_advantage(y_true, y_pred, loss=loss, sample_weight=sample_weight))


def _pure_accuracy(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    from ..measures.pure_accuracy import pure_accuracy

    return float(pure_accuracy(y_true, y_pred, sample_weight=sample_weight))


def _ops_labeling(y_true: Any, y_pred: Any, *, metric: str, pos_label: Any = None, sample_weight: Any = None,
                  **options: Any) -> float:
    from ..measures.confusion import ConfusionMatrix
    from ..outperformance import outperformance_score
    from ..outperformance.multiclass import multiclass_outperformance_score

    classes = union_labels(y_true, y_pred, names=("y_true", "y_pred"))  # labels: a score is refused
    if classes.size > 2:
        return float(multiclass_outperformance_score(metric, y_true, y_pred, sample_weight=sample_weight,
                                                     **options).score)
    # one positive class for both (the last of the labels of both, as predict's classes_)
    pos = classes[-1] if pos_label is None else pos_label
    if pos_label is not None and pos not in classes.tolist() and classes.size == 2:
        raise InvalidInputError(f"pos_label={pos_label!r} is not one of the labels {classes.tolist()}")
    t, p = np.asarray(y_true) == pos, np.asarray(y_pred) == pos
    cm = ConfusionMatrix.from_predictions(t, p, sample_weight=sample_weight, labels=[False, True], pos_label=True)
    value = cm.metric(metric, **options)
    return float(outperformance_score(metric, value, cm.prevalence, **options).score)


def _ops_scoring(y_true: Any, y_score: Any, *, metric: str, positive: Any = None, sample_weight: Any = None,
                 **options: Any) -> float:
    from ..measures.curves import curve_auc
    from ..outperformance.scoring import scoring_outperformance_score

    y_score = np.asarray(y_score, dtype=np.float64)
    t, turn = _for_positive(np.asarray(y_true), positive)  # −score ranks as 1 − probability
    score = -y_score if turn else y_score
    if metric == "prg_auc":
        from ..measures.precision_recall_gain import prg_auc

        value = prg_auc(t, score, sample_weight=sample_weight)
    else:
        curve = cast("CurveKind", _SCORING_CURVES[metric])  # not "prg": prg_auc is above
        value = curve_auc(t, score, curve=curve, sample_weight=sample_weight)
    w = np.ones(t.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    prevalence = float(np.dot(w, t) / w.sum())
    return float(scoring_outperformance_score(metric, value, prevalence, **options).score)


def make_scorer(name: str, **options: Any) -> Any:
    """A scikit-learn scorer of a measure against chance (names: module docstring).

    Parameters
    ----------
    name : str
        ``"prediction_advantage"`` (or ``"prediction_advantage_<loss>"``),
        ``"pure_accuracy"``, ``"ops_<metric>"`` for a labeling metric of
        :data:`beyondchance.measures.METRICS` or ``roc_auc`` / ``pr_auc`` / ``lift_auc`` / ``gain_auc`` /
        ``prg_auc``.
    **options
        ``pos_label`` (binary tasks), ``loss`` (prediction advantage), metric options
        (``beta`` of F-β), OPS options (``mc_samples`` of the DBT reference), and
        ``response_method`` to override the default (e.g. ``"decision_function"``).

    Returns
    -------
    a scorer of :func:`sklearn.metrics.make_scorer` (greater is better)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyClassifier
    >>> X = np.zeros((10, 1)); y = np.array(["no"] * 7 + ["yes"] * 3)
    >>> pa = make_scorer("prediction_advantage")
    >>> float(pa(DummyClassifier(strategy="most_frequent").fit(X, y), X, y))   # the trivial predictor
    0.0
    """
    from sklearn.metrics import make_scorer as sk_make_scorer

    if not isinstance(name, str):
        raise InvalidInputError(f"name must be a string, got {name!r}")
    response = options.pop("response_method", None)
    if name == "prediction_advantage" or name.startswith("prediction_advantage_"):
        loss = options.pop("loss", name[len("prediction_advantage_"):] or "zero_one")
        if loss not in _PA_LOSSES:
            raise InvalidInputError(f"loss must be one of {', '.join(_PA_LOSSES)}, got {loss!r}")
        if loss in _PROBABILITY_LOSSES:
            return sk_make_scorer(_prediction_advantage, response_method=response or "predict_proba", loss=loss,
                                  positive=options.pop("pos_label", None), **options)
        return sk_make_scorer(_prediction_advantage, response_method=response or "predict", loss=loss, **options)
    if name == "pure_accuracy":
        return sk_make_scorer(_pure_accuracy, response_method=response or "predict", **options)
    if name.startswith("ops_"):
        metric = name[len("ops_"):]
        if metric in _SCORING_CURVES:
            return sk_make_scorer(_ops_scoring, response_method=response or ("decision_function", "predict_proba"),
                                  metric=metric, positive=options.pop("pos_label", None), **options)
        try:
            canonical = get_metric(metric).name
        except (InvalidInputError, KeyError, ValueError):
            canonical = None
        if canonical is not None:
            return sk_make_scorer(_ops_labeling, response_method=response or "predict", metric=canonical, **options)
    raise InvalidInputError(f"unknown scorer {name!r}; known: {', '.join(scorer_names())}")


def get_scorer(name: str) -> Any:
    """:func:`make_scorer` with the default options (the scikit-learn spelling).

    >>> get_scorer("ops_f1")._response_method
    'predict'
    """
    return make_scorer(name)
