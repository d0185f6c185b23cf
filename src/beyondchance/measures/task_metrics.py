"""The tasks and the metrics a report of each computes: :data:`TASKS`,
:func:`metrics_for_task`, :func:`selectable_metrics` (below the report, so that the
monitoring estimates use the same list).  :data:`TASKS` is the one list of task names of
the package: the report's ``task=`` and the statistics layer's (``profile``, ``StatisticsAccumulator``,
``SufficientStatistics.task``: the same object)."""

from __future__ import annotations

from typing import Literal

from .._validation import check_option
from .registry import METRICS

Task = Literal["binary-scores", "binary-labels", "multiclass-labels", "multiclass-probabilities", "regression"]

TASKS: tuple[str, ...] = (
    "binary-scores", "binary-labels", "multiclass-labels", "multiclass-probabilities", "regression",
)

_BINARY_LABELING = (
    "accuracy", "balanced_accuracy", "precision", "recall", "specificity", "f1", "mcc", "kappa",
    "pure_accuracy", "prediction_advantage",
)

_MULTICLASS_LABELING = (
    "accuracy", "balanced_accuracy", "precision", "recall", "f1", "mcc", "kappa", "pure_accuracy",
    "prediction_advantage",
)

_SCORING = ("roc_auc", "pr_auc", "lift_auc")

_PROBA_LOSSES = ("log_loss", "brier")

_REGRESSION = ("mse", "mae", "r2", "d2_absolute_error")

#: regression rows of a quantile model (``quantile=τ``): the pinball loss of its level
_QUANTILE_REGRESSION = ("pinball_loss", "d2_pinball_score")

#: per-class metrics are macro-averaged in multi-class reports
_PER_CLASS = ("precision", "recall", "f1", "specificity")


def metrics_for_task(task: str, *, probabilities: bool = True, quantile: bool = False) -> tuple[str, ...]:
    """The metrics a report of ``task`` computes by default (``quantile``: regression
    with a quantile level, which adds the pinball rows).

    >>> metrics_for_task("binary-labels")[:3]
    ('accuracy', 'balanced_accuracy', 'precision')
    """
    task = check_option(task, "task", TASKS)
    if task == "binary-scores":
        return _BINARY_LABELING + _SCORING + (_PROBA_LOSSES if probabilities else ())
    if task == "binary-labels":
        return _BINARY_LABELING
    if task == "multiclass-labels":
        return _MULTICLASS_LABELING
    if task == "multiclass-probabilities":
        return _MULTICLASS_LABELING + ("roc_auc", "pr_auc", "roc_auc_weighted", "pr_auc_weighted") + _PROBA_LOSSES
    return _REGRESSION + (_QUANTILE_REGRESSION if quantile else ())


def selectable_metrics(task: str, *, quantile: bool = False) -> tuple[str, ...]:
    """The names ``metrics=`` accepts for ``task``: its defaults (:func:`metrics_for_task`)
    and, for every task with labels, any labeling metric of the registry ``bc.measures.METRICS``.

    >>> "jaccard" in selectable_metrics("binary-labels"), "jaccard" in metrics_for_task("binary-labels")
    (True, False)
    """
    defaults = metrics_for_task(task, quantile=quantile)
    return defaults if task == "regression" else defaults + tuple(k for k in METRICS if k not in defaults)
