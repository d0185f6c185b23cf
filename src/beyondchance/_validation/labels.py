"""Labels: mixed kinds refused, and the encoding of
label arrays into codes over their classes (a union for y_true and y_pred).

Part of the one door for inputs, :mod:`beyondchance._validation`.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np

from .._warnings import InvalidInputError
from .arrays import _EXACT_INTEGERS, _check_missing, _of_kind, _where, as_1d, check_aligned, check_consistent_length
from .frames import default_names, frame_names

__all__ = ['check_label_pair', 'encode_labels', 'binary_target', 'default_pos_label', 'union_labels', 'InexactLabelError',
           'infinite_label', 'inexact_label', 'continuous_label', 'class_column_order', 'score_column_names',
           'in_class_order']


#: Largest span (max - min + 1) of integer labels for which the integer fast path
#: (``bincount`` without sorting) is used.
_INT_FAST_SPAN = 1 << 12


class InexactLabelError(InvalidInputError):
    """A floating-point label beyond 2**53, where neighbouring integers share one float;
    ``name``: the labels' name (an engine, which sees aggregated labels, names the row)."""

    def __init__(self, message: str, name: str = ""):
        super().__init__(message)
        self.name = name


def infinite_label(name: str, where: str) -> str:
    """The error of an infinite label (every engine's): ``where`` its value and row.

    >>> infinite_label("y_true", "inf in row 4 (index 3)")
    'y_true holds an infinite value: inf in row 4 (index 3); labels must be finite'
    """
    return f"{name} holds an infinite value: {where}; labels must be finite"


def inexact_label(name: str, where: str) -> str:
    """The error of a floating-point label beyond 2**53 (every engine's): ``where`` its value and row."""
    return (f"{name} holds a floating-point label beyond 2**53, where distinct integers share one float "
            f"(labels beyond the 64-bit range are read as floats): {where}; map the labels to smaller codes or to text, "
            f"or pass task='regression' (--task regression) if they are targets")


def continuous_label(name: str, where: str) -> str:
    """The error of a label that is not a whole number (scores or real-valued targets given
    where classes are expected): ``where`` its value and row.  Whole numbers as floats
    (``0.0``, ``1.0``) are labels; any other real value is continuous, as for
    ``sklearn.utils.multiclass.type_of_target``.

    >>> print(continuous_label("y_pred", "0.731 in row 1 (index 0)"))  # doctest: +NORMALIZE_WHITESPACE
    y_pred holds continuous values, not labels: 0.731 in row 1 (index 0);
    threshold the scores into labels (e.g. y_score >= 0.5) or use a function of scores
    """
    if "pred" in name:  # predictions: scores given where labels are expected
        hint = "threshold the scores into labels (e.g. y_score >= 0.5) or use a function of scores"
    else:
        hint = "classes are expected (real-valued targets need a regression loss or task='regression')"
    return f"{name} holds continuous values, not labels: {where}; {hint}"


def _fractional(arr: np.ndarray) -> np.ndarray | None:
    """Where the finite numeric labels ``arr`` are not whole numbers (None if nowhere): a float
    array's values, or the Python and numpy floats of an object array."""
    if arr.dtype.kind == "f":
        hit = arr != np.trunc(arr)
    elif arr.dtype.kind == "O":
        fraction = np.frompyfunc(lambda v: isinstance(v, (float, np.floating)) and not float(v).is_integer(), 1, 1)
        hit = fraction(arr).astype(bool)
    else:
        return None
    return hit if hit.any() else None


def _check_label_values(arr: np.ndarray, name: str, *, allow_continuous: bool = False) -> str:
    """Refuse missing, infinite, continuous (not whole: :func:`continuous_label`) and complex
    labels and a mix of strings and numbers.

    Returns the kind of the labels: ``"number"``, ``"string"`` or ``"other"``.
    """
    if arr.dtype.kind == "c":
        raise InvalidInputError(f"{name} must hold class labels, got complex numbers")
    kinds = _check_missing(arr, name)
    if arr.dtype.kind == "f" and np.isinf(arr).any():
        raise InvalidInputError(infinite_label(name, _where(arr, np.isinf(arr))))
    if arr.dtype.kind == "f" and (np.abs(arr) > _EXACT_INTEGERS).any():
        # integers beyond the 64-bit range are read from files as floats, where neighbours merge
        raise InexactLabelError(inexact_label(name, _where(arr, np.abs(arr) > _EXACT_INTEGERS)), name)
    fractional = _fractional(arr) if kinds == {"number"} and not allow_continuous else None
    if fractional is not None:
        raise InvalidInputError(continuous_label(name, _where(arr, fractional)))
    if {"string", "number"} <= kinds:
        raise InvalidInputError(
            f"{name} mixes string and numeric labels: {_where(arr, _of_kind(arr, 'string'))}, "
            f"{_where(arr, _of_kind(arr, 'number'))}"
        )
    return kinds.pop() if len(kinds) == 1 else "other"


@overload
def check_label_pair(
    y_true: Any, y_pred: None, *, names: tuple[str, str] = ..., allow_continuous: bool = ...
) -> tuple[np.ndarray, None]: ...
@overload
def check_label_pair(
    y_true: Any, y_pred: Any, *, names: tuple[str, str] = ..., allow_continuous: bool = ...
) -> tuple[np.ndarray, np.ndarray]: ...
def check_label_pair(
    y_true: Any, y_pred: Any | None, *, names: tuple[str, str] = ("y_true", "y_pred"), allow_continuous: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """Two label arrays: 1-D, same length, no missing values, not mixing strings and numbers,
    whole numbers (:func:`continuous_label`; unless ``allow_continuous``: distinct values
    counted, such as a regression's targets); pandas objects with equal indexes
    (:func:`check_aligned`)."""
    if y_pred is not None:
        check_aligned(**{names[0]: y_true, names[1]: y_pred})
    yt = as_1d(y_true, names[0])
    yp = None if y_pred is None else as_1d(y_pred, names[1])
    _check_label_arrays(yt, yp, names, allow_continuous)
    return yt, yp


def _check_label_arrays(yt: np.ndarray, yp: np.ndarray | None, names: tuple[str, str],
                        allow_continuous: bool = False) -> None:
    """:func:`check_label_pair` of arrays that :func:`as_1d` returned."""
    kind_true = _check_label_values(yt, names[0], allow_continuous=allow_continuous)
    if yp is not None:
        kind_pred = _check_label_values(yp, names[1], allow_continuous=allow_continuous)
        check_consistent_length(**{names[0]: yt, names[1]: yp})
        if "string" in {kind_true, kind_pred} and kind_true != kind_pred:
            raise InvalidInputError(
                f"{names[0]} and {names[1]} mix string and numeric labels "
                f"({yt.dtype} and {yp.dtype})"
            )


@overload
def encode_labels(
    y_true: Any, y_pred: None = ..., *, labels: Any | None = ..., names: tuple[str, str] = ...,
    allow_continuous: bool = ...
) -> tuple[np.ndarray, None, np.ndarray]: ...
@overload
def encode_labels(
    y_true: Any, y_pred: Any, *, labels: Any | None = ..., names: tuple[str, str] = ...,
    allow_continuous: bool = ...
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def encode_labels(
    y_true: Any,
    y_pred: Any | None = None,
    *,
    labels: Any | None = None,
    names: tuple[str, str] = ("y_true", "y_pred"),
    allow_continuous: bool = False,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Map class labels to integer codes ``0..k-1``.

    Parameters
    ----------
    y_true, y_pred : array-like of labels (``y_pred`` may be None)
    labels : array-like, optional
        The label set, in the order of the codes.  Labels occurring in the data but
        not in ``labels`` are an error.  By default the sorted union of the labels
        present in ``y_true`` and ``y_pred``.
    allow_continuous : bool, default False
        Encode values that are not whole numbers too (the distinct values of a
        regression's targets); by default they are refused (:func:`continuous_label`).

    Returns
    -------
    codes_true, codes_pred, classes
    """
    yt, yp = check_label_pair(y_true, y_pred, names=names, allow_continuous=allow_continuous)
    return _encode(yt, yp, labels, names)


@overload
def encode_label_arrays(
    y_true: np.ndarray, y_pred: None = ..., *, labels: Any | None = ..., names: tuple[str, str] = ...
) -> tuple[np.ndarray, None, np.ndarray]: ...
@overload
def encode_label_arrays(
    y_true: np.ndarray, y_pred: np.ndarray, *, labels: Any | None = ..., names: tuple[str, str] = ...
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
@overload
def encode_label_arrays(
    y_true: np.ndarray, y_pred: np.ndarray | None, *, labels: Any | None = ..., names: tuple[str, str] = ...
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]: ...
def encode_label_arrays(
    y_true: np.ndarray,
    y_pred: np.ndarray | None = None,
    *,
    labels: Any | None = None,
    names: tuple[str, str] = ("y_true", "y_pred"),
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """:func:`encode_labels` of arrays :func:`as_1d` already returned: the label values are
    checked (missing values, mixed kinds, lengths) and encoded, the arrays not re-read."""
    _check_label_arrays(y_true, y_pred, names)
    return _encode(y_true, y_pred, labels, names)


@overload
def _encode(yt: np.ndarray, yp: None, labels: Any, names: tuple[str, str]) -> tuple[np.ndarray, None, np.ndarray]: ...
@overload
def _encode(yt: np.ndarray, yp: np.ndarray, labels: Any, names: tuple[str, str]
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
@overload
def _encode(yt: np.ndarray, yp: np.ndarray | None, labels: Any, names: tuple[str, str]
            ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]: ...
def _encode(
    yt: np.ndarray, yp: np.ndarray | None, labels: Any, names: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    if labels is None and yt.dtype.kind in "biu" and (yp is None or yp.dtype.kind in "biu"):
        fast = _encode_small_integers(yt, yp)
        if fast is not None:
            return fast

    if labels is None and yt.dtype.kind in "USO" and (yp is None or yp.dtype.kind in "USO"):
        return _encode_by_hashing(yt, yp, names)
    if labels is None:
        dtype = _label_dtype(yt, yp)
        classes = np.unique(yt) if yp is None else np.unique(np.concatenate([yt.astype(dtype), yp.astype(dtype)]))
    else:
        classes = as_1d(labels, "labels")
        if np.unique(classes).size != classes.size:
            raise InvalidInputError("labels contains duplicates")
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]

    def _codes(y: np.ndarray, name: str) -> np.ndarray:
        dtype = _label_dtype(sorted_classes, y)  # compare exactly, never as float64
        known, y_ = sorted_classes.astype(dtype, copy=False), y.astype(dtype, copy=False)
        pos = np.searchsorted(known, y_)
        pos_clip = np.minimum(pos, sorted_classes.size - 1)
        bad = known[pos_clip] != y_
        if bad.any():
            unknown = np.unique(y[bad])[:5]
            raise InvalidInputError(
                f"{name} contains labels not in `labels`: {unknown.tolist()}"
            )
        return order[pos_clip]

    try:
        ct = _codes(yt, names[0])
        cp = None if yp is None else _codes(yp, names[1])
    except TypeError as exc:
        raise InvalidInputError(f"labels of incompatible types: {exc}") from exc
    return ct.astype(np.intp, copy=False), (None if cp is None else cp.astype(np.intp, copy=False)), classes


def _encode_by_hashing(
    yt: np.ndarray, yp: np.ndarray | None, names: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Text (or object) labels: each array factorized by hashing (O(n), no sort of the rows),
    the classes the sorted union of the distinct values, as :func:`_encode` defines them."""
    import pandas as pd

    factorized = [pd.factorize(y.astype(object, copy=False)) for y in (yt, yp) if y is not None]
    distinct = [np.asarray(u, dtype=object) for _, u in factorized]
    union = np.concatenate(distinct) if len(distinct) > 1 else distinct[0]
    try:
        classes = np.unique(union.astype(_label_dtype(yt, yp), copy=False))
    except TypeError as exc:
        raise InvalidInputError(f"labels of incompatible types: {exc}") from exc
    # each array's distinct values -> their codes in the classes (a search among the few values)
    luts = [_encode(np.asarray(u).astype(classes.dtype, copy=False), None, classes, names)[0] for u in distinct]
    codes = [lut[c] for lut, (c, _) in zip(luts, factorized)]
    return codes[0], (codes[1] if yp is not None else None), classes


def _encode_small_integers(
    yt: np.ndarray, yp: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray] | None:
    """Integer labels with a small span: codes via a lookup table, no sorting."""
    lo = int(yt.min()) if yp is None else min(int(yt.min()), int(yp.min()))
    hi = int(yt.max()) if yp is None else max(int(yt.max()), int(yp.max()))
    span = hi - lo + 1
    if span > _INT_FAST_SPAN:
        return None
    lo64 = np.uint64(lo % 2**64)

    def offsets(y: np.ndarray) -> np.ndarray:
        """y - lo in [0, span) as intp: no copy for intp labels from 0, one pass for the
        dtypes intp holds; else modulo 2**64 (uint64 near 2**64 never overflows)."""
        if y.dtype.kind in "bi" or (y.dtype.kind == "u" and y.dtype.itemsize < 8):
            r = y.astype(np.intp, copy=False)
            return r if lo == 0 else r - lo
        return (y.astype(np.uint64) - lo64).astype(np.intp)

    rt = offsets(yt)
    rp = None if yp is None else offsets(yp)
    if span <= 2:  # the minimum and the maximum occur: every value is present
        present = np.ones(span, dtype=bool)
    else:
        present = np.bincount(rt, minlength=span) > 0
        if rp is not None:
            present |= np.bincount(rp, minlength=span) > 0
    values = np.flatnonzero(present)
    classes = (values.astype(np.uint64) + lo64).astype(_label_dtype(yt, yp))
    if values.size == span:
        return rt, rp, classes
    lut = np.full(span, -1, dtype=np.intp)
    lut[values] = np.arange(values.size)
    return lut[rt], (None if rp is None else lut[rp]), classes


def _label_dtype(*arrays: np.ndarray | None) -> np.dtype:
    """The dtype in which the labels of every array compare exactly.

    numpy promotes uint64 with a signed integer, and integers with floats, to float64,
    which merges integer labels beyond 2**53; those fall back to uint64, int64 or
    Python objects.
    """
    given = tuple(a for a in arrays if a is not None)
    dtype = np.result_type(*given)
    ints = [a for a in given if a.dtype.kind in "biu" and a.size]
    if dtype.kind != "f" or not ints:
        return dtype
    lo, hi = min(int(a.min()) for a in ints), max(int(a.max()) for a in ints)
    if len(ints) < len(given):  # floats too: float64 is exact up to 2**53
        return dtype if max(-lo, hi) <= 2**53 else np.dtype(object)
    if lo >= 0:
        return np.dtype(np.uint64)
    return np.dtype(np.int64) if hi < 2**63 else np.dtype(object)


def union_labels(*arrays: Any, names: tuple[str, ...] | None = None) -> np.ndarray:
    """Sorted union of several label arrays; refuses to mix string and numeric labels.

    (``numpy.concatenate`` would silently turn ``[0, 1]`` and ``["a"]`` into strings.)

    >>> union_labels([2, 0], [1, 2]).tolist()
    [0, 1, 2]
    """
    names = names or tuple(f"labels #{i + 1}" for i in range(len(arrays)))
    parts = []
    kinds = set()
    for arr, name in zip(arrays, names):
        a = as_1d(arr, name, allow_empty=True)
        if a.size:
            kinds.add(_check_label_values(a, name))
            parts.append((a, name))
    if not parts:
        raise InvalidInputError(f"{', '.join(names)} hold no labels")
    if "string" in kinds and len(kinds) > 1:
        detail = ", ".join(f"{name} ({a.dtype})" for a, name in parts)
        raise InvalidInputError(f"string and numeric labels are mixed: {detail}")
    try:
        dtype = _label_dtype(*(a for a, _ in parts))
        return np.unique(np.concatenate([a.astype(dtype, copy=False) for a, _ in parts]))
    except TypeError as exc:
        raise InvalidInputError(f"labels of incompatible types: {exc}") from exc


def default_pos_label(classes: Any, counts: Any) -> tuple[Any, str]:
    """The positive class when none is given, and why: the one rule of every door.

    True for boolean labels; 1 for labels in {0, 1} or {-1, 1}; the only class when
    there is one; otherwise the minority class (fewest rows), a tie going to the last
    class in sorted order.  ``classes`` are sorted, ``counts`` their row counts.

    >>> default_pos_label(np.array(["No", "Yes"]), np.array([90, 10]))
    ('Yes', 'the minority class')
    >>> default_pos_label(np.array([0, 1]), np.array([10, 90]))
    (1, 'the label 1')
    >>> default_pos_label(np.array(["a", "b"]), np.array([5, 5]))
    ('b', 'the minority class')
    """
    values = np.asarray(classes).tolist()
    if values and all(isinstance(v, bool) for v in values):
        return True, "the label True"
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric and (set(values) <= {0, 1} or set(values) <= {-1, 1}):
        return 1, "the label 1"
    if len(values) == 1:
        return values[0], "the only class"
    c = np.asarray(counts, dtype=np.float64)
    i = int(np.flatnonzero(c == c.min())[-1])
    return values[i], "the minority class"


def binary_target(y_true: Any, *, pos_label: Any = None, name: str = "y_true",
                  counts: Any = None) -> tuple[np.ndarray, Any]:
    """``y_true`` as a boolean array (True = positive class) for score-based measures.

    With ``pos_label=None`` the positive class is :func:`default_pos_label`'s: 1 (True)
    for labels in {0, 1}, {-1, 1} or {False, True}, as in scikit-learn, else the
    minority class.  ``counts``: the rows each element of ``y_true`` stands for (an
    engine's aggregated labels; default one each).  More than two distinct labels is
    an error.  A single class is accepted here (measures that need both classes report
    themselves undefined).  Returns ``(is_positive, pos_label)``.

    >>> binary_target(["a", "b", "b"])[1]
    'a'
    """
    y = as_1d(y_true, name)
    _check_label_values(y, name)
    fast = _binary_target_fast(y, pos_label, name)
    if fast is not None:
        return fast
    codes, _, classes = encode_labels(y, names=(name, "y_pred"))
    if classes.size > 2:
        shown = classes[:5].tolist()
        raise InvalidInputError(
            f"{name} must be binary, got {classes.size} classes (first: {shown})"
        )
    if pos_label is None:
        rows = np.bincount(codes, weights=None if counts is None else np.asarray(counts, dtype=np.float64),
                           minlength=classes.size)
        pos_label = default_pos_label(classes, rows)[0]
    try:
        hit = np.flatnonzero(classes == pos_label)
    except (TypeError, ValueError):  # pragma: no cover - incomparable types
        hit = np.array([], dtype=np.intp)
    if hit.size == 0:
        if classes.size == 2:
            raise InvalidInputError(
                f"pos_label={pos_label!r} (--pos-label {pos_label}) is not one of the labels of {name} {classes.tolist()}"
            )
        # one class present, and it is not pos_label: every sample is negative
        return np.zeros(codes.shape[0], dtype=bool), pos_label
    return codes == hit[0], pos_label


def _binary_target_fast(y: np.ndarray, pos_label: Any, name: str) -> tuple[np.ndarray, Any] | None:
    """``binary_target`` without sorting or encoding where the labels allow: booleans, and
    numbers in {0, 1} or {-1, 1} with a numeric (or no) ``pos_label``; None otherwise."""
    kind = y.dtype.kind
    if kind == "b":
        if pos_label is None or (not isinstance(pos_label, str) and pos_label == 1):
            return y, True
        if not isinstance(pos_label, str) and pos_label == 0:
            return ~y, False
        raise InvalidInputError(f"pos_label={pos_label!r} (--pos-label {pos_label}) is not a label of {name} (True/False)")
    numeric_pos = pos_label is None or (
        isinstance(pos_label, (int, float, np.integer, np.floating)) and not isinstance(pos_label, bool)
    )
    if kind not in "iuf" or not numeric_pos:
        return None
    lo, hi = y.min(), y.max()
    if lo >= 0 and hi <= 1:  # whole numbers (checked by the caller): 0 and 1
        if pos_label is None or pos_label == 1:
            return y == 1, 1
        if pos_label == 0:
            return y == 0, pos_label
    elif pos_label is None and lo == -1 and hi == 1 and not (y == 0).any():
        return y == 1, 1
    return None


#: how a class-probability column may carry its class besides the class itself (case-insensitive)
CLASS_PREFIXES = ("p_", "proba_", "prob_", "prob-", "score_")
CLASS_SUFFIXES = ("_proba", "_prob", "_score")
#: and a numeric class, also without a separator (``p0``, ``proba1``)
NUMBER_PREFIXES = ("p", "proba", "prob")


def _class_names(c: Any) -> set[str]:
    """The column names that carry the class ``c``: its text (a whole float also as an integer)
    alone or with a prefix or suffix, lower-case."""
    c = c.item() if isinstance(c, np.generic) else c
    keys = {str(c).lower()}
    if isinstance(c, float) and c.is_integer():
        keys.add(str(int(c)))
    prefixes = CLASS_PREFIXES + (NUMBER_PREFIXES if isinstance(c, (int, float)) and not isinstance(c, bool) else ())
    return keys | {p + k for p in prefixes for k in keys} | {k + s for s in CLASS_SUFFIXES for k in keys}


def _named_class(name: Any, classes: list[set[str]]) -> int | None:
    """The one class whose name the column ``name`` carries, or None (none, or several)."""
    text = str(name.item() if isinstance(name, np.generic) else name).lower()
    hits = [j for j, names in enumerate(classes) if text in names]
    return hits[0] if len(hits) == 1 else None


def class_column_order(names: Any, classes: Any, *, labels_given: bool = False,
                       option: str = "y_score") -> list[int] | None:
    """Which probability column is each class's: the one rule of every door (arrays, tables,
    files, every engine, the command line).

    1. Every column carries a distinct class by name — the class itself, or the class with a
       prefix ``p_``, ``proba_``, ``prob_``, ``prob-``, ``score_`` or a suffix ``_proba``,
       ``_prob``, ``_score`` (case-insensitive; a numeric class by its text, also after ``p``,
       ``proba`` or ``prob``: ``p0``): the columns by name, whatever their order
       (``p_barolo``, ``Barolo_proba``, ``1``, ``p1``).
    2. Else, with ``labels`` given: the columns in the order of the labels (None).
    3. Else, columns without names (``names`` None: a numpy (n, k) array): in the order of
       the sorted classes, scikit-learn's ``predict_proba`` convention (None).
    4. Else refused in one line that says how to name them.

    Returns the column of each class, in the order of ``classes``, or None for the given order.

    >>> class_column_order(["p_grignolino", "P_Barolo", "barbera_proba"], ["barbera", "barolo", "grignolino"])
    [2, 1, 0]
    >>> class_column_order(["p1", "p2"], ["a", "b"], labels_given=True) is None
    True
    >>> class_column_order(["p1", "p2"], ["a", "b"])
    Traceback (most recent call last):
    ...
    beyondchance._warnings.InvalidInputError: y_score columns p1, p2 do not name the classes (a, b): name them after the classes (p_a, ...) or give labels= (--labels) in their order
    """
    keys = [_class_names(c) for c in np.asarray(classes, dtype=object).tolist()]
    if names is not None:
        names = list(names)
        order = [_named_class(c, keys) for c in names]
        if len(names) == len(keys) and None not in order and len(set(order)) == len(order):
            return [order.index(j) for j in range(len(keys))]
    if names is None or labels_given:
        return None
    shown = ", ".join(str(c) for c in np.asarray(classes, dtype=object).tolist()[:8])
    first = str(np.asarray(classes, dtype=object).tolist()[0]) if len(keys) else "a"
    raise InvalidInputError(
        f"{option} columns {', '.join(map(str, names[:8]))}{', ...' if len(names) > 8 else ''} do not name the "
        f"classes ({shown}{', ...' if len(keys) > 8 else ''}): name them after the classes (p_{first}, ...) or give "
        "labels= (--labels) in their order")


def score_column_names(y_score: Any) -> list[Any] | None:
    """The names that the columns of a table of class probabilities carry, or None: an array, or a
    table of default names (0, 1, … of a pandas ``RangeIndex``)."""
    names = frame_names(y_score)
    return None if names is None or default_names(names) else names


def in_class_order(y_score: Any, p: np.ndarray, classes: Any, name: str, *, labels_given: bool) -> np.ndarray:
    """The probability columns ``p`` (read from ``y_score``) in the order of ``classes``, by
    :func:`class_column_order`'s rule.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"p_b": [0.9, 0.2], "p_a": [0.1, 0.8]})
    >>> in_class_order(frame, frame.to_numpy(), np.array(["a", "b"]), "y_score", labels_given=False).tolist()
    [[0.1, 0.9], [0.8, 0.2]]
    """
    if p.ndim != 2:
        return p
    order = class_column_order(score_column_names(y_score), classes, labels_given=labels_given, option=name)
    return p if order is None else p[:, order]
