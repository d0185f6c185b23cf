"""What a (y_true, y) pair is: the task (:func:`detect_task`) and the positive class of a
binary task."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_1d, encode_labels
from .._warnings import InvalidInputError
from ._results import _fmt_label, _label

__all__ = ["detect_task"]


def _is_integral(a: np.ndarray) -> bool:
    if a.dtype.kind in "biu":
        return True
    if a.dtype.kind == "f":
        return bool(np.all(np.floor(a) == a))
    return False


def _numeric(a: np.ndarray) -> bool:
    if a.dtype.kind in "biuf":
        return True
    if a.dtype == object and a.size:
        sample = a[: min(a.size, 1000)]
        return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in sample)
    return False


def _as_numeric(a: np.ndarray) -> np.ndarray:
    return a if a.dtype.kind in "biuf" else a.astype(np.float64)


def detect_task(y_true: Any, y: Any) -> tuple[str, str]:
    """The task of a (y_true, y) pair and the reason, in words.

    >>> detect_task([0, 1, 1, 0], [0.2, 0.8, 0.6, 0.1])
    ('binary-scores', 'y_true has 2 classes (0, 1) and y holds non-integer numbers: scores')
    >>> detect_task(["a", "b", "c"], ["a", "c", "c"])[0]
    'multiclass-labels'
    >>> detect_task([1.5, 2.0, 3.1], [1.4, 2.2, 2.9])[0]
    'regression'
    """
    yt = as_1d(y_true, "y_true")
    ya = np.asarray(y)
    if ya.ndim == 2 and ya.shape[1] > 1:
        _, _, classes = encode_labels(yt)
        if ya.shape[1] == 2 and classes.size <= 2:
            return "binary-scores", "y has 2 probability columns and y_true 2 classes: the positive class's column is the score"
        return "multiclass-probabilities", f"y has {ya.shape[1]} columns of class probabilities"
    yv = as_1d(y, "y")
    true_numeric = _numeric(yt)
    if true_numeric and not _is_integral(_as_numeric(yt)):
        return "regression", "y_true holds non-integer numbers"
    _, _, classes = encode_labels(yt)
    k = int(classes.size)
    if _numeric(yv) and (not true_numeric or not _is_integral(_as_numeric(yv))):
        if k <= 2:
            what = "non-integer numbers" if true_numeric else "numbers"
            shown = ", ".join(map(_fmt_label, classes[:2]))
            return "binary-scores", f"y_true has {k} classes ({shown}) and y holds {what}: scores"
        if true_numeric:
            return "regression", f"y_true has {k} distinct values and y holds non-integer numbers"
        raise InvalidInputError(
            f"y_true has {k} classes but y holds one number per row; give the class probabilities "
            f"as {k} columns, or predicted labels"
        )
    try:
        _, _, both = encode_labels(yt, yv, names=("y_true", "y"))
    except InvalidInputError:
        raise
    extra = [c for c in both.tolist() if c not in set(classes.tolist())]
    if both.size <= 2:
        return "binary-labels", f"y_true and y hold {both.size} labels ({', '.join(map(_fmt_label, both))})"
    if extra and true_numeric and k > 20:
        return "regression", f"y_true has {k} distinct integer values and y holds other values"
    if extra:
        return "multiclass-labels", f"y holds labels that never occur in y_true ({', '.join(map(_fmt_label, extra[:5]))})"
    return "multiclass-labels", f"y_true has {k} classes and y holds labels"


def _coerce_pos_label(pos_label: Any, classes: np.ndarray) -> Any:
    """A positive label given as text (command line) in the type of the classes."""
    if pos_label is None:
        return None
    values = [_label(c) for c in classes.tolist()]
    if pos_label in values:
        return pos_label
    if isinstance(pos_label, str):
        for conv in (int, float):
            try:
                v = conv(pos_label)
            except ValueError:
                continue
            if v in values:
                return v
        low = pos_label.strip().lower()
        if low in ("true", "false") and any(isinstance(c, (bool, np.bool_)) for c in values):
            return low == "true"
    return pos_label


def _resolve_positive(classes: np.ndarray, counts: np.ndarray, pos_label: Any) -> tuple[Any, Any, str]:
    """(positive label, negative label, reason) for a binary task.

    >>> _resolve_positive(np.array(["No", "Yes"]), np.array([90, 10]), None)
    ('Yes', 'No', 'the minority class')
    >>> _resolve_positive(np.array([0, 1]), np.array([10, 90]), None)
    (1, 0, 'the label 1')
    """
    values = [_label(c) for c in classes.tolist()]
    if pos_label is not None:
        p = _coerce_pos_label(pos_label, classes)
        if p not in values and len(values) >= 2:
            raise InvalidInputError(f"pos_label={pos_label!r} is not one of the labels {values}")
        neg = next((v for v in values if v != p), None)
        return p, neg, "given"
    if values and all(isinstance(v, (bool, np.bool_)) for v in values):
        return True, False, "the label True"
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric and (set(values) <= {0, 1} or set(values) <= {-1, 1}):
        neg = next((v for v in values if v != 1), -1 if -1 in values else 0)
        return 1, neg, "the label 1"
    if len(values) == 1:
        return values[0], None, "the only class"
    i = int(np.argmin(counts)) if counts[0] != counts[1] else len(values) - 1
    return values[i], values[1 - i], "the minority class"
