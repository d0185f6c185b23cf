"""What a (y_true, y) pair is: the task (:func:`_detect`, the one detector of every door —
arrays, tables, files, every engine — behind :func:`~beyondchance.engines.scan.detect_task`),
the positive class of a binary task, and the checked rows of a report whose task is known
(:func:`check_inputs`: the row permutation tests)."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import (
    as_1d,
    as_array,
    as_float,
    check_aligned,
    check_consistent_length,
    check_n_classes,
    check_option,
    check_probabilities,
    check_sample_weight,
    in_class_order,
    encode_label_arrays,
)
from .._summary_display import _fmt_label
from .._warnings import InvalidInputError
from ..measures.task_metrics import TASKS
from ..statistics.task_statistics import _coerce_pos_label, _resolve_positive  # noqa: F401  (re-exported)

__all__ = ["check_inputs"]


def _as_arrays(y_true: Any, y: Any, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """y_true checked 1-D; y checked 1-D, or as given when it has several columns (both read
    by the rules of :mod:`beyondchance._validation`: a one-column table is its column …)."""
    yt = as_1d(y_true, "y_true")
    ya = as_array(y, name, squeeze=True)
    return yt, (ya if ya.ndim == 2 and ya.shape[1] > 1 else as_1d(ya, name))


#: a numeric y_true of more distinct values than this, with predictions of other values, is a regression
_MANY_VALUES = 20


#: numbers given as scores that are not all classes of y_true, in words
OTHER_VALUES = "values other than its classes"


def scores_of_many_classes(k: int, name: str = "y_score") -> str:
    """The refusal of one number per row given as scores, not all classes of y_true, for a
    numeric y_true of ``k`` (3 to ``_MANY_VALUES``) classes (``name``: the argument)."""
    return (f"y_true has {k} classes and {name} holds {OTHER_VALUES}: scores need two classes; pass "
            "task='multiclass-labels' (--task multiclass-labels) if they are predicted labels, or "
            "task='regression' (--task regression) if they are values")


def _detect(
    kinds: dict[str, str], y_true: str, y_score: Sequence[str], y_pred: str | None, classes: np.ndarray, shown: str,
    outside: list[float] | None = None,
) -> tuple[str, str]:
    """(task, reason) from the column types, the true classes and ``outside``: some
    values of a numeric score column of a numeric y_true that are not classes of y_true
    (:func:`_score_values_outside`; empty: every value is a class, so the column holds
    predicted labels; None: not looked at).  The one detector of every door: arrays (as the
    memory engine's columns), tables and files on every engine.

    The rule: two probability columns of (at most) two classes are binary scores, more are
    class probabilities; a score column holds predicted labels when each of its values is a
    class of y_true (0/1 predictions, as integers or as 0.0/1.0), else scores, integers
    included (credit scores 300–850) — with more than two classes a regression when y_true
    holds more than ``_MANY_VALUES`` numbers, else refused naming ``task=``; floating-point
    y_true and y_pred are a regression; text labels are labels."""
    if len(y_score) == 2 and classes.size <= 2:
        return ("binary-scores", "y has 2 probability columns and y_true 2 classes: the positive class's column "
                "is the score")
    if len(y_score) > 1:
        return "multiclass-probabilities", f"y has {len(y_score)} columns of class probabilities"
    col = y_score[0] if y_score else y_pred
    t_kind, p_kind = kinds.get(y_true), kinds.get(col)  # type: ignore[arg-type]
    k_true = int(classes.size)
    true_numeric = t_kind in ("float", "int")
    if t_kind == "float" and (y_pred is not None and p_kind == "float"):
        return "regression", "y_true and y_pred are floating-point columns"
    if outside is not None and (not outside or p_kind == "int"):  # a float column of other values: by its type
        return _detect_scores(classes, shown, outside)
    if p_kind == "float" or (y_score and p_kind == "int" and not true_numeric):
        if k_true <= 2:
            what = "a floating-point column" if p_kind == "float" else "numbers"
            return "binary-scores", f"y_true has {k_true} classes ({shown}) and y is {what}: scores"
        if t_kind == "float" or (true_numeric and k_true > _MANY_VALUES):  # as memory reads many integers
            return "regression", f"y_true has {k_true} distinct values and y holds floating-point numbers"
        if true_numeric:
            raise InvalidInputError(scores_of_many_classes(k_true, "y_score" if y_score else "y_pred"))
        raise InvalidInputError(
            f"y_true has {k_true} classes but y holds one number per row; give the class probabilities "
            f"as {k_true} columns, or predicted labels"
        )
    return "labels", "y_true and y hold labels"


def _detect_scores(classes: np.ndarray, shown: str, outside: list[float]) -> tuple[str, str]:
    """(task, reason) of a numeric score column of a numeric y_true of these ``classes`` that holds
    only classes, or integers: predicted labels when every value is a class, else scores (the
    rule of :func:`_detect`)."""
    k = int(classes.size)
    if any(not float(c).is_integer() for c in classes.tolist()):
        return "regression", "y_true holds non-integer numbers"
    if not outside:
        return "labels", "y_true and y hold labels"
    if k <= 2:
        return "binary-scores", f"y_true has {k} classes ({shown}) and y holds {OTHER_VALUES}: scores"
    if k > _MANY_VALUES:
        return "regression", f"y_true has {k} distinct values and y holds {OTHER_VALUES}"
    raise InvalidInputError(scores_of_many_classes(k))


def _score_values_outside(src: Any, kinds: dict[str, str], y_true: str, col: str | None,
                          classes: np.ndarray) -> list[float] | None:
    """Some values of the numeric score column ``col`` that are not classes of a numeric y_true
    (none: the column holds predicted labels), or None when either column is not numeric (the
    types decide then)."""
    if col is None or kinds.get(y_true) not in ("float", "int") or kinds.get(col) not in ("float", "int"):
        return None
    return src.values_outside(col, [float(c) for c in classes.tolist()], 4)



@dataclass
class Inputs:
    """The inputs of one report, each checked and coerced once, and the task.

    ``codes`` / ``pred_codes`` index ``classes`` (classification); ``scores`` holds the
    binary scores (n,), ``proba`` the (n, k) class
    probabilities, ``target`` / ``prediction`` the regression's float arrays.
    """

    task: str
    source: str
    reason: str
    n: int
    weight: np.ndarray | None
    classes: np.ndarray | None = None
    codes: np.ndarray | None = None
    pred_codes: np.ndarray | None = None
    scores: np.ndarray | None = None
    proba: np.ndarray | None = None
    target: np.ndarray | None = None
    prediction: np.ndarray | None = None
    given: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # y_pred with scores: (codes, pred codes, classes)


def check_inputs(
    y_true: Any, y: Any, sample_weight: Any, *, task: str, labels: Any, normalize: bool, y_pred: Any = None,
) -> Inputs:
    """The rows of a report of a known ``task`` (the scan's: the row permutation tests, the
    probabilities of :func:`~beyondchance.compare`), each checked and coerced once.

    ``y_pred``: predicted labels given with binary scores ``y`` (the task must be binary
    scores), encoded with y_true over the union of their labels (``Inputs.given``).
    pandas inputs must share their index (``beyondchance._validation.check_aligned``); the
    columns of class probabilities are matched to the classes by
    ``beyondchance._validation.in_class_order``."""
    check_aligned(y_true=y_true, y=y, sample_weight=sample_weight, y_pred=y_pred)
    out = _check_inputs(y_true, y, sample_weight, task=task, labels=labels, normalize=normalize)
    if y_pred is None:
        return out
    if out.task != "binary-scores":
        raise InvalidInputError(f"predicted labels (y_pred) go with the scores of a binary task; y makes a {out.task} "
                                f"report ({out.reason})")
    yt, yp = as_1d(y_true, "y_true"), as_1d(y_pred, "y_pred")
    check_consistent_length(y_true=yt, y_pred=yp)
    out.given = encode_label_arrays(yt, yp, labels=labels, names=("y_true", "y_pred"))
    return out


def _check_inputs(
    y_true: Any, y: Any, sample_weight: Any, *, task: str, labels: Any, normalize: bool, name: str = "y"
) -> Inputs:
    yt, ya = _as_arrays(y_true, y, name)
    task = check_option(task, "task", TASKS)
    if ya.ndim == 2 and task in ("binary-labels", "multiclass-labels", "regression"):
        ya = as_1d(ya, name)  # raises: one prediction per row
    out = Inputs(task, "given", "given", 0, None)
    if task == "regression":
        out.target, out.prediction = as_float(yt, "y_true", exact=False), as_float(ya, name, exact=False)
        y_checked = out.prediction
    elif task in ("binary-labels", "multiclass-labels"):
        out.codes, out.pred_codes, out.classes = encode_label_arrays(yt, ya, labels=labels, names=("y_true", name))
        check_n_classes(int(out.classes.size))
        y_checked = out.pred_codes
    else:
        out.codes, _, out.classes = encode_label_arrays(yt, labels=labels)
        k = int(out.classes.size)
        if task == "multiclass-probabilities":
            check_n_classes(max(k, ya.shape[1] if ya.ndim == 2 else 1), what="y_true and the probability columns hold")
        if task == "binary-scores":
            if k > 2:
                raise InvalidInputError(
                    f"a binary report needs two classes; y_true has {k} ({', '.join(map(_fmt_label, out.classes[:5]))} ...)"
                )
            out.scores = as_float(as_1d(ya, name), name)  # the scan's one score column
            y_checked = out.scores
        else:
            ya = in_class_order(y, ya, out.classes, name, labels_given=labels is not None)
            if ya.ndim != 2 or ya.shape[1] != k:
                cols = 1 if ya.ndim == 1 else ya.shape[1]
                raise InvalidInputError(
                    f"{name} has {cols} probability column(s) but y_true has {k} classes "
                    f"({', '.join(map(_fmt_label, out.classes[:6]))}); pass labels= naming the class of each column"
                )
            out.proba = check_probabilities(ya, name, n_classes=k, normalize=normalize)
            y_checked = out.proba
    out.n = check_consistent_length(**{"y_true": yt, name: y_checked})
    out.weight = check_sample_weight(sample_weight, out.n)
    return out
