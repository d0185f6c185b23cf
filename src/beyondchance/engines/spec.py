"""What to compute, checked once for every engine: the task, the statistics, the options."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._warnings import InvalidInputError
from ..measures.losses import PinballLoss
from ..statistics.sufficient import STATISTICS, check_task

__all__ = ["Spec", "check_column_roles", "make_spec", "resolve_task"]


@dataclass(frozen=True)
class Spec:
    """The statistics to compute and how (column names or arrays in the y_* fields)."""

    task: str
    statistics: tuple[str, ...]
    threshold: float
    pos_label: Any
    labels: Any
    score_bins: int | None
    target_bin_width: float | None
    pinball_alphas: tuple[float, ...]
    normalize: bool

    def wants(self, name: str) -> bool:
        return name in self.statistics

    def regression_losses(self) -> list[Any]:
        """Loss objects summed for regression: squared, absolute, then the pinball losses."""
        from ..measures.losses import AbsoluteLoss, SquaredLoss

        return [SquaredLoss(), AbsoluteLoss(), *(PinballLoss(a) for a in self.pinball_alphas)]


def resolve_task(
    task: str,
    *,
    has_score: bool,
    has_pred: bool,
    has_proba: bool,
    true_is_float: bool = False,
    pred_is_float: bool = False,
) -> str:
    """The task from the kind of prediction given (and, for ``y_pred``, the dtypes).

    ``y_score`` → ``"binary-scores"``; ``y_proba`` → ``"multiclass-probabilities"``;
    ``y_pred`` → ``"regression"`` when both ``y_true`` and ``y_pred`` are floating point,
    else ``"multiclass-labels"`` (the labels' bundle of any number of classes;
    ``"binary-labels"``, given, is the same bundle checked to hold at most two classes).
    An explicit ``task`` must agree with the prediction given.
    """
    given = [name for name, flag in (("y_score", has_score), ("y_pred", has_pred), ("y_proba", has_proba)) if flag]
    if len(given) != 1:
        raise InvalidInputError(
            "give exactly one of y_score (binary scores), y_pred (predicted labels or real "
            f"predictions) and y_proba (class probabilities); got {', '.join(given) or 'none'}"
        )
    task = check_task(task, auto=True)
    if task != "auto":
        need = "y_score" if task == "binary-scores" else "y_proba" if task == "multiclass-probabilities" else "y_pred"
        if need != given[0]:
            raise InvalidInputError(f"task={task!r} takes {need}, but {given[0]} was given")
        return task
    if has_score:
        return "binary-scores"
    if has_proba:
        return "multiclass-probabilities"
    return "regression" if (true_is_float and pred_is_float) else "multiclass-labels"


#: the name of each column role in messages: the API's argument, the command line's option
ROLE_NAMES = {"api": {"y_true": "y_true", "y_score": "y_score", "y_pred": "y_pred", "weight": "sample_weight",
                      "by": "by"},
              "cli": {"y_true": "--y-true", "y_score": "--y-score", "y_pred": "--y-pred", "weight": "--weight",
                      "by": "--by"}}


def check_column_roles(*, y_true: Any, y_score: Any = (), y_pred: Any = None, weight: Any = None, by: Any = None,
                       names: str = "api") -> None:
    """Refuse one column named in two roles where that makes no sense (``names``: "api" or "cli").

    A column may be the labels and the predicted labels (a perfect predictor), the labels and
    the binary scores (0/1 labels as scores), and the weights of any other role: each role
    reads the column anew, as the arrays ``evaluate(y, s, sample_weight=s)`` would.  Refused:
    a column of class probabilities listed twice, the labels among the class probabilities,
    and the ``by`` column in any other role (each group would hold one of its values).

    >>> check_column_roles(y_true="y", y_pred="y", weight="y")  # allowed
    >>> check_column_roles(y_true="y", y_score=("p0", "y"), names="cli")
    Traceback (most recent call last):
    beyondchance._warnings.InvalidInputError: --y-true and --y-score name the same column 'y'
    """
    n = ROLE_NAMES[names]
    scores = (y_score,) if isinstance(y_score, str) else tuple(y_score or ())
    twice = next((c for i, c in enumerate(scores) if c in scores[:i]), None)
    if twice is not None:
        raise InvalidInputError(f"{n['y_score']} names the column {twice!r} twice; give each class's column once")
    if len(scores) > 1 and y_true in scores:
        raise InvalidInputError(f"{n['y_true']} and {n['y_score']} name the same column {y_true!r}")
    if by is not None:
        for role, value in (("y_true", y_true), *(("y_score", c) for c in scores), ("y_pred", y_pred),
                            ("weight", weight)):
            if by == value:
                raise InvalidInputError(f"{n['by']} and {n[role]} name the same column {by!r}; split by another column")


def _check_threshold(threshold: Any) -> float:
    try:
        t = float(threshold)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"threshold must be a number, got {threshold!r}") from exc
    if not math.isfinite(t):
        raise InvalidInputError(f"threshold must be finite, got {threshold!r}")
    return t


def make_spec(
    task: str,
    *,
    statistics: Any = None,
    threshold: Any = 0.5,
    pos_label: Any = None,
    labels: Any = None,
    score_bins: Any = None,
    target_bin_width: Any = None,
    pinball_alphas: Any = (),
    normalize: bool = False,
) -> Spec:
    """Check the options once; every engine then computes the same thing."""
    from ..statistics.values import _check_bin_width
    from ..statistics.scores import _check_bins

    known = STATISTICS[check_task(task)]
    if statistics is None:
        chosen = known
    else:
        names = (statistics,) if isinstance(statistics, str) else tuple(statistics)
        unknown = [s for s in names if s not in known]
        if unknown or not names:
            raise InvalidInputError(
                f"statistics for task {task!r} are {', '.join(known)}; got {list(names)!r}"
            )
        chosen = tuple(s for s in known if s in names)
    bins = None if score_bins is None else _check_bins(score_bins)
    width = _check_bin_width(target_bin_width)
    alphas = tuple(PinballLoss(a).alpha for a in (pinball_alphas or ()))
    if not isinstance(normalize, bool):
        raise InvalidInputError(f"normalize must be True or False, got {normalize!r}")
    if task not in ("binary-scores", "multiclass-probabilities") and score_bins is not None:
        raise InvalidInputError(f"score_bins applies to scores and class probabilities, not to task {task!r}")
    if task != "regression" and (target_bin_width is not None or alphas):
        raise InvalidInputError(f"target_bin_width and pinball_alphas apply to regression, not to task {task!r}")
    return Spec(task, chosen, _check_threshold(threshold), pos_label, labels, bins, width, alphas, normalize)
