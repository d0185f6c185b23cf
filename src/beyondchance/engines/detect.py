"""What a (y_true, y) pair is: the task (:func:`detect_task`) and the positive class of a
binary task."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import (
    _EXACT_INTEGERS,
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
from .._summary_display import _fmt_label, _label
from .._warnings import InvalidInputError
from .memory import confusion_counts
from ..measures.task_metrics import TASKS
from ..statistics.task_statistics import _coerce_pos_label, _resolve_positive  # noqa: F401  (re-exported)

__all__ = ["detect_task"]


def _numbers(a: np.ndarray) -> str | None:
    """Why a numeric array holds numbers rather than labels, in words, or None for labels:
    integers, and floats that are whole numbers within ±2**53.  Beyond 2**53 every float is
    whole and neighbouring integers share one float, so predictions there are numbers
    (scores), as the engines read a floating-point column.

    >>> _numbers(np.array([0.0, 2.0])), _numbers(np.array([0.5, 2.0])), _numbers(np.array([2.0**60, 1.0]))
    (None, 'non-integer numbers', 'numbers beyond 2**53')
    """
    if a.dtype.kind != "f":
        return None if a.dtype.kind in "biu" else "non-integer numbers"
    head = a[:1024]  # continuous scores show a fraction at once: no full pass for them
    if not (np.all(np.floor(head) == head) and np.all(np.floor(a) == a)):
        return "non-integer numbers"
    if (np.isfinite(a) & (np.abs(a) > _EXACT_INTEGERS)).any():  # infinities: labels, refused as such
        return "numbers beyond 2**53"
    return None


def _numeric(a: np.ndarray) -> bool:
    if a.dtype.kind in "biuf":
        return True
    if a.dtype == object and a.size:
        sample = a[: min(a.size, 1000)]
        return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in sample)
    return False


def _as_numeric(a: np.ndarray) -> np.ndarray:
    return a if a.dtype.kind in "biuf" else a.astype(np.float64)


def detect_task(y_true: Any, y_score: Any) -> tuple[str, str]:
    """The task of a (y_true, y_score) pair and the reason, in words (``y_score``: the
    predictions as :func:`~beyondchance.evaluate` takes them positionally — scores, class
    probabilities, labels or values).

    >>> detect_task([0, 1, 1, 0], [0.2, 0.8, 0.6, 0.1])
    ('binary-scores', 'y_true has 2 classes (0, 1) and y holds non-integer numbers: scores')
    >>> detect_task(["a", "b", "c"], ["a", "c", "c"])[0]
    'multiclass-labels'
    >>> detect_task([1.5, 2.0, 3.1], [1.4, 2.2, 2.9])[0]
    'regression'
    """
    yt, ya = _as_arrays(y_true, y_score)
    task, reason, _ = _detect(yt, ya, None)
    return task, reason


def _as_arrays(y_true: Any, y: Any, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """y_true checked 1-D; y checked 1-D, or as given when it has several columns (both read
    by the rules of :mod:`beyondchance._validation`: a one-column table is its column …)."""
    yt = as_1d(y_true, "y_true")
    ya = as_array(y, name, squeeze=True)
    return yt, (ya if ya.ndim == 2 and ya.shape[1] > 1 else as_1d(ya, name))


#: labels few enough that their k × k matrix is counted before anything else is known
_FEW_LABELS = 256

#: a numeric y_true of more distinct values than this, with predictions of other values, is a regression
_MANY_VALUES = 20


#: numbers given as scores that are not all classes of y_true, in words
OTHER_VALUES = "values other than its classes"


def scores_of_many_classes(k: int) -> str:
    """The refusal of one number per row given as scores, not all classes of y_true, for a
    y_true of ``k`` (3 to ``_MANY_VALUES``) classes."""
    return (f"y_true has {k} classes and the scores (y_score) hold {OTHER_VALUES}: scores need two classes; pass "
            "task='multiclass-labels' (--task multiclass-labels) if they are predicted labels, or "
            "task='regression' (--task regression) if they are values")


def _detect(yt: np.ndarray, ya: np.ndarray, labels: Any, scores: bool = True) -> tuple[str, str, dict[str, Any]]:
    """(task, reason, the label codes computed on the way) of checked arrays.

    ``scores``: ``ya`` was given as scores (``y_score``, or :func:`~beyondchance.evaluate`'s
    second argument), not as predicted labels (``y_pred``).  The rule, on every engine: a
    column given as scores holds predicted labels only when each of its values is a class of
    y_true (0/1 predictions, as integers or as 0.0/1.0); otherwise it holds scores, integers
    included (credit scores 300–850) — with more than two classes a regression when y_true
    holds more than ``_MANY_VALUES`` numbers, else refused naming ``task=``."""
    if ya.ndim == 2:
        codes, _, classes = encode_label_arrays(yt, labels=labels)
        check_n_classes(max(int(classes.size), ya.shape[1]), what="y_true and the probability columns hold")
        enc = {"codes": codes, "classes": classes}
        if ya.shape[1] == 2 and classes.size <= 2:
            return ("binary-scores", "y has 2 probability columns and y_true 2 classes: the positive class's "
                    "column is the score", enc)
        return "multiclass-probabilities", f"y has {ya.shape[1]} columns of class probabilities", enc
    true_numeric = _numeric(yt)
    # y_true beyond 2**53 stays labels, refused as such: integer labels beyond the 64-bit range
    # are read from files as floats, where neighbours merge (task="regression" reads them as targets)
    if true_numeric and _numbers(_as_numeric(yt)) == "non-integer numbers":
        return "regression", "y_true holds non-integer numbers", {}
    numbers = _numbers(_as_numeric(ya)) if _numeric(ya) else None
    if _numeric(ya) and (not true_numeric or numbers):
        codes, _, classes = encode_label_arrays(yt, labels=labels)
        k = int(classes.size)
        if k <= 2:
            what = numbers if true_numeric else "numbers"
            shown = ", ".join(map(_fmt_label, classes[:2]))
            return ("binary-scores", f"y_true has {k} classes ({shown}) and y holds {what}: scores",
                    {"codes": codes, "classes": classes})
        if true_numeric:
            return "regression", f"y_true has {k} distinct values and y holds {numbers}", {}
        raise InvalidInputError(
            f"y_true has {k} classes but y holds one number per row; give the class probabilities "
            f"as {k} columns, or predicted labels"
        )
    ct, cp, both = encode_label_arrays(yt, ya, labels=labels, names=("y_true", "y"))
    # the row counts per (true, predicted) label: which labels occur where, and the labels
    # report's confusion matrix of unweighted rows (one pass, not recounted there); with many
    # labels, which occur where first (two O(n + k) counts), before any k × k matrix
    rows = confusion_counts(ct, cp, int(both.size), None) if both.size <= _FEW_LABELS else None
    in_true = (rows.sum(axis=1) if rows is not None else np.bincount(ct, minlength=both.size)) > 0
    in_pred = (rows.sum(axis=0) if rows is not None else np.bincount(cp, minlength=both.size)) > 0
    k = int(in_true.sum())
    present = both[in_true | in_pred]
    extra = both[in_pred & ~in_true]
    if extra.size and true_numeric and k > _MANY_VALUES and present.size > 2:
        return "regression", f"y_true has {k} distinct integer values and y holds other values", {}
    if extra.size and true_numeric and scores:  # numbers other than the classes: scores, never labels
        return _integer_scores(yt, labels)
    check_n_classes(int(both.size))
    if rows is None:
        rows = confusion_counts(ct, cp, int(both.size), None)
    enc = {"codes": ct, "pred_codes": cp, "classes": both, "row_confusion": rows}
    if present.size <= 2:
        return "binary-labels", f"y_true and y hold {present.size} labels ({', '.join(map(_fmt_label, present))})", enc
    if extra.size:
        return ("multiclass-labels",
                f"y holds labels that never occur in y_true ({', '.join(map(_fmt_label, extra[:5]))})", enc)
    return "multiclass-labels", f"y_true has {k} classes and y holds labels", enc


def _integer_scores(yt: np.ndarray, labels: Any) -> tuple[str, str, dict[str, Any]]:
    """(task, reason, codes) of whole numbers given as scores, some of which are not classes of
    the numeric y_true: binary scores, or refused naming ``task=`` (more classes)."""
    codes, _, classes = encode_label_arrays(yt, labels=labels)
    k = int(classes.size)
    if k > 2:
        raise InvalidInputError(scores_of_many_classes(k))
    return ("binary-scores", f"y_true has {k} classes ({', '.join(map(_fmt_label, classes))}) and y holds "
            f"{OTHER_VALUES}: scores", {"codes": codes, "classes": classes})


@dataclass
class Inputs:
    """The inputs of one report, each checked and coerced once, and the task.

    ``codes`` / ``pred_codes`` index ``classes`` (classification); ``scores`` holds the
    binary scores ((n,) or (n, 2) probability columns), ``proba`` the (n, k) class
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
    row_confusion: np.ndarray | None = None  # labels: the (k, k) row counts of (true, predicted) codes, when known


def check_inputs(
    y_true: Any, y: Any, sample_weight: Any, *, task: str | None, labels: Any, normalize: bool, y_pred: Any = None,
    y_name: str = "y",
) -> Inputs:
    """Check and coerce every input of :func:`~beyondchance.report.evaluate` once and detect the task.

    ``y_pred``: predicted labels given with binary scores ``y`` (the task must be binary
    scores), encoded with y_true over the union of their labels (``Inputs.given``).
    ``y_name``: the name of ``y`` in the messages (the caller's argument, e.g. ``y_score``).
    pandas inputs must share their index (``beyondchance._validation.check_aligned``); the
    columns of class probabilities named by the classes are put in the class order
    (``beyondchance._validation.in_class_order``)."""
    check_aligned(**{"y_true": y_true, y_name: y, "sample_weight": sample_weight,
                     **({"y_pred": y_pred} if y_pred is not None and y_name != "y_pred" else {})})
    out = _check_inputs(y_true, y, sample_weight, task=task, labels=labels, normalize=normalize, name=y_name)
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
    y_true: Any, y: Any, sample_weight: Any, *, task: str | None, labels: Any, normalize: bool, name: str = "y"
) -> Inputs:
    yt, ya = _as_arrays(y_true, y, name)
    if task is None:
        task, reason, enc = _detect(yt, ya, labels, scores=name != "y_pred")
        source = "detected"
    else:
        task = check_option(task, "task", TASKS)
        reason, source, enc = "given", "given", {}
    if ya.ndim == 2 and task in ("binary-labels", "multiclass-labels", "regression"):
        ya = as_1d(ya, name)  # raises: one prediction per row
    out = Inputs(task, source, reason, 0, None)
    if task == "regression":
        out.target, out.prediction = _targets(yt, given=source == "given"), as_float(ya, name, exact=source != "given")
        y_checked = out.prediction
    elif task in ("binary-labels", "multiclass-labels"):
        if "pred_codes" not in enc:
            enc = dict(zip(("codes", "pred_codes", "classes"),
                           encode_label_arrays(yt, ya, labels=labels, names=("y_true", name))))
            check_n_classes(int(enc["classes"].size))
        out.codes, out.pred_codes, out.classes = enc["codes"], enc["pred_codes"], enc["classes"]
        out.row_confusion = enc.get("row_confusion")
        y_checked = out.pred_codes
    else:
        if "codes" not in enc:
            enc = dict(zip(("codes", "pred_codes", "classes"), encode_label_arrays(yt, labels=labels)))
        out.codes, out.classes = enc["codes"], enc["classes"]
        k = int(out.classes.size)
        if task == "multiclass-probabilities":
            check_n_classes(max(k, ya.shape[1] if ya.ndim == 2 else 1), what="y_true and the probability columns hold")
        if task == "binary-scores":
            if k > 2:
                raise InvalidInputError(
                    f"a binary report needs two classes; y_true has {k} ({', '.join(map(_fmt_label, out.classes[:5]))} ...)"
                )
            if ya.ndim == 2:
                if ya.shape[1] != 2:
                    raise InvalidInputError(f"binary scores: {name} has {ya.shape[1]} columns, expected 1 or 2")
                if k != 2:
                    raise InvalidInputError("two probability columns need two classes in y_true (pass labels=)")
                ya = in_class_order(y, ya, out.classes, name, labels_given=labels is not None)
                out.scores = check_probabilities(ya, name, normalize=normalize)
            else:
                out.scores = as_float(ya, name)
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


def _targets(yt: np.ndarray, *, given: bool) -> np.ndarray:
    """y_true as regression targets: integers beyond 2**53 are rounded to float64 when the task
    is given (as every engine casts them), refused naming ``task=`` when it was detected."""
    try:
        return as_float(yt, "y_true", exact=not given)
    except InvalidInputError as exc:
        if yt.dtype.kind not in "iu":
            raise
        raise InvalidInputError(f"{exc}; pass task='regression' (--task regression) if they are targets") from None
