"""Reading array-likes: arrays, lists, table columns (one-column tables squeezed), the types
refused, missing values named with their row, class-probability columns named by class,
lengths and sample weights.

Part of the one door for inputs, :mod:`beyondchance._validation`.
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import numbers
from collections.abc import Iterator, Mapping, Set as AbstractSet
from typing import Any

import numpy as np

from .._warnings import InvalidInputError
from .frames import as_narwhals, column_at, column_values, frame_names, index_of

__all__ = ['as_array', 'as_1d', 'check_aligned', 'is_score_matrix', 'as_float_1d', 'check_consistent_length', 'check_sample_weight', 'check_probabilities',
           'missing_values', 'non_finite_value']


#: Largest accepted total of the sample weights: the measures multiply up to four
#: weight totals (MCC's denominator), and 1e75**4 stays below float64's largest value.
MAX_WEIGHT_TOTAL = 1e75


#: float64 holds every integer up to 2**53 exactly, and not every one beyond
_EXACT_INTEGERS = 2.0**53


_REFUSED_KINDS = (  # the values that are no score, label or weight, and what to give instead
    ("datetime", (np.datetime64, datetime.date), "the time since a reference date in seconds"),
    ("timedelta", (np.timedelta64, datetime.timedelta), "the durations in seconds: x / numpy.timedelta64(1, 's')"),
    ("decimal.Decimal", (decimal.Decimal,), "float, or int for labels"),
)


def _check_value_types(arr: np.ndarray, name: str) -> None:
    """Refuse datetime, timedelta and ``Decimal`` values: a numpy dtype, or objects (NaT,
    whose pandas type is a datetime, is a missing value, which the label checks name)."""
    values = arr.ravel().tolist() if arr.dtype == object else ()  # then one C-level pass for the types:
    types = {np.datetime64} if arr.dtype.kind == "M" else {np.timedelta64} if arr.dtype.kind == "m" else set(
        map(type, values))
    for kind, bases, hint in _REFUSED_KINDS:
        if any(issubclass(t, bases) and (not values or any(type(v) is t and not _isna(v) for v in values))
               for t in types):
            raise InvalidInputError(f"{name} holds {kind} values; give numbers ({hint}): a score, a label or "
                                    "a weight is a number or a text")


def _check_types_of(x: Any, name: str) -> None:
    """:func:`_check_value_types` of what :func:`as_float` converts (lists and columns as objects)."""
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if isinstance(x, (np.ndarray, list, tuple)) or kind in ("O", "M", "m"):
        with contextlib.suppress(ValueError):  # ragged: the conversion to float64 names it
            _check_value_types(x if isinstance(x, np.ndarray) else np.array(x, dtype=None if kind else object), name)


def _readable(x: Any, name: str, *, one_column: bool) -> Any:
    """``x``, or what to read in its place (an unmasked ``MaskedArray``'s data, with ``one_column``
    a one-column table's column); refuses what the module docstring says is not read."""
    if x is None:
        raise InvalidInputError(f"{name} is required, got None")
    if isinstance(x, np.ma.MaskedArray):
        if masked := int(np.ma.count_masked(x)):
            raise InvalidInputError(
                f"{name} is a masked array with {masked} masked element(s) of {x.size}: masked values are not "
                f"skipped; drop them ({name}.compressed(), and the same rows of the other arguments) or fill them "
                f"({name}.filled(value))")
        return np.ma.getdata(x)
    if isinstance(x, Iterator):
        raise InvalidInputError(f"{name} is a {type(x).__name__} (an iterator, which can be read only once); "
                                f"pass a list or an array, e.g. list({name})")
    if isinstance(x, (AbstractSet, Mapping)) or type(x).__name__.startswith("dict_"):
        raise InvalidInputError(f"{name} is a {type(x).__name__}, not a sequence (its elements have no positions "
                                "to pair with the rows of the other arguments); pass a list or an array")
    names = frame_names(x) if one_column else None
    if names is not None and len(names) != 1:
        raise InvalidInputError(f"{name} is a table with {len(names)} columns where one column (one value per row) "
                                "is expected" + (f"; select the column, e.g. {name}[{names[0]!r}]" if names else ""))
    return x if names is None else column_at(x)


def _to_array(x: Any, name: str, *, one_column: bool = False) -> np.ndarray:
    x = _readable(x, name, one_column=one_column)
    try:  # any dataframe library's column or table through narwhals, other array-likes by numpy
        arr = column_values(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise InvalidInputError(f"{name} could not be converted to an array: {exc}") from exc
    if isinstance(x, (list, tuple)) and arr.dtype.kind in "US" and arr.ndim == 1 and not all(
            isinstance(v, (str, bytes)) for v in x):
        arr = np.asarray(x, dtype=object)  # numpy would turn [1, "1"] into ["1", "1"]
    _check_value_types(arr, name)
    return arr


def as_array(x: Any, name: str, *, squeeze: bool = False) -> np.ndarray:
    """``x`` as a numpy array of any shape, read by the rules of the module docstring (values
    not checked); with ``squeeze``, one column (a table's, an (n, 1) array's) is read as 1-D.

    >>> as_array((x for x in [1, 2]), "y_score")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    beyondchance._warnings.InvalidInputError: y_score is a generator (an iterator, ...
    """
    arr = _to_array(x, name)
    return arr.ravel() if squeeze and arr.ndim == 2 and arr.shape[1] == 1 else arr


def as_1d(x: Any, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a 1-D array (a column vector, or a table with one column, is read as
    its column); refuses an empty input (unless ``allow_empty``) and more dimensions."""
    arr = _to_array(x, name, one_column=True)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim == 0:
        raise InvalidInputError(f"{name} must be 1-dimensional (one value per row), got a scalar")
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise InvalidInputError(f"{name} is empty")
    if arr.dtype == object:
        _check_missing(arr, name)
    return arr


def missing_values(what: str, count: int, row: int, shown: str | None = None) -> str:
    """The one line of a missing value (NULL, NaN, None …) at every door — arrays, data
    frames, files on every engine: ``what`` holds them (an argument, ``"column 'y' of
    data.csv"``), ``count`` of them, the first in data ``row`` (1 = the first row, after a
    file's header); ``shown``: the first one when it has a spelling (``NaN``, ``'NA'``; a
    null has none).

    >>> missing_values("column 'y' of data.csv", 1, 3)
    "column 'y' of data.csv has 1 missing value(s) (first in data row 3)"
    >>> missing_values("y_score", 2, 3, "NaN")
    'y_score has 2 missing value(s) (first in data row 3: NaN)'
    """
    return f"{what} has {count} missing value(s) (first in data row {row}{': ' + shown if shown else ''})"


def non_finite_value(what: str, value: float, row: int) -> str:
    """The one line of an infinite (or, in a file, NaN) number at every door: ``what``
    holds it (an argument, ``"column 's' of data.csv"``), in data ``row`` (from 1).

    >>> non_finite_value("y_score", float("inf"), 2)
    'y_score holds a non-finite value (inf in data row 2)'
    """
    return f"{what} holds a non-finite value ({value!r} in data row {row})"


def _missing_in(arr: np.ndarray, hit: np.ndarray, name: str, non_finite: bool = False) -> str:
    """:func:`missing_values` (``non_finite``: :func:`non_finite_value`) of the first value
    of ``arr`` where ``hit`` holds: its row (first axis), and the column of a 2-D array.

    >>> _missing_in(np.array([[0.1, 0.9], [0.2, np.inf]]), np.array([[0, 0], [0, 1]], bool), "y_proba", True)
    'column 2 of y_proba holds a non-finite value (inf in data row 2)'
    """
    if arr.ndim == 0:  # a scalar argument has no rows
        return f"{name} contains NaN or infinite values: {float(arr)!r}".replace("nan", "NaN")
    j = int(np.argmax(hit.ravel()))
    row, col = divmod(j, max(1, arr.size // arr.shape[0]))
    what, count = name, int(hit.sum())
    if arr.ndim == 2:
        what, count = f"column {col + 1} of {name}", int(hit[:, col].sum())
    value = arr.ravel()[j]
    if non_finite:
        return non_finite_value(what, float(value), row + 1)
    shown = "NaN" if isinstance(value, (float, np.floating)) and value != value else (
        repr(value) if isinstance(value, str) else None)
    return missing_values(what, count, row + 1, shown)


def as_float(x: Any, name: str, *, finite: bool = True, exact: bool = True) -> np.ndarray:
    """Return ``x`` (any shape) as a float64 array; with ``finite``, refuse NaN and ±inf; with
    ``exact``, refuse integers beyond 2**53 (else rounded to the nearest float64, as the SQL
    engines cast them: targets given as such)."""
    if not isinstance(x, np.ndarray) or isinstance(x, np.ma.MaskedArray):
        x = _readable(x, name, one_column=False)
        frame = as_narwhals(x)
        x = x if frame is None else frame.to_numpy()
    _check_types_of(x, name)
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        got = f"dtype {x.dtype}" if isinstance(x, np.ndarray) else repr(x)
        raise InvalidInputError(f"{name} must be numeric, got {got}") from exc
    if finite and not np.isfinite(arr).all():
        nan = np.isnan(arr)
        raise InvalidInputError(_missing_in(arr, nan, name) if nan.any() else _missing_in(arr, ~np.isfinite(arr), name,
                                                                                         non_finite=True))
    if exact and isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.size:
        big = np.abs(arr) > _EXACT_INTEGERS
        if big.any():
            raise InvalidInputError(
                f"{name} holds an integer float64 cannot represent exactly (beyond 2**53): "
                f"{_where(x, big)}"
            )
    return arr


def as_float_1d(x: Any, name: str) -> np.ndarray:
    """Return ``x`` as a finite float64 1-D array."""
    return as_float(as_1d(x, name), name)


def as_float_2d(x: Any, name: str) -> np.ndarray:
    """Return ``x`` as a finite float64 array with 1 or 2 dimensions (kept as is)."""
    arr = _to_array(x, name)
    if arr.ndim not in (1, 2):
        raise InvalidInputError(f"{name} must be 1- or 2-dimensional, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise InvalidInputError(f"{name} is empty")
    return as_float(arr, name)


def is_score_matrix(y_score: Any) -> bool:
    """Whether ``y_score`` holds class scores (2-D, more than one column) rather than one score
    per row (a column vector, or a one-column table, is one score per row).  Reads the shape."""
    shape = getattr(y_score, "shape", None)
    try:
        shape = shape if isinstance(shape, tuple) else np.shape(y_score)
    except (ValueError, TypeError):  # ragged: the door will say what is wrong
        return False
    return len(shape) == 2 and shape[1] != 1


def check_aligned(**inputs: Any) -> None:
    """Refuse pandas-like objects (Series, DataFrames of pandas, modin, cuDF) given together whose indexes differ: every
    function pairs the rows by position, pandas would pair them by index.  Other inputs, and
    pandas objects of different lengths (the length check names those), pass."""
    indexes = [(name, index) for name, x in inputs.items() if (index := index_of(x)) is not None]
    for name, index in indexes[1:]:
        name0, index0 = indexes[0]
        if len(index) != len(index0) or index.equals(index0):
            continue
        try:
            same = index.sort_values().equals(index0.sort_values())
        except TypeError:  # labels of incomparable types
            same = False
        raise InvalidInputError(
            f"{name0} and {name} are pandas objects with different indexes "
            f"({'the same labels in another order' if same else 'different labels'}): the rows are paired by "
            f"position, not by index; align them (e.g. {name}.loc[{name0}.index]) or, when the positions already "
            f"match, drop the indexes ({name}.to_numpy(), or reset_index(drop=True) on both)")


def check_consistent_length(**arrays: Any) -> int:
    """Check that all non-None arrays have the same first dimension; return it."""
    lengths = {name: len(a) for name, a in arrays.items() if a is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise InvalidInputError(f"inputs have different lengths: {detail}")
    return next(iter(lengths.values()))


def check_sample_weight(sample_weight: Any, n: int) -> np.ndarray | None:
    """Validate sample weights: 1-D, length ``n``, finite, non-negative, positive sum.

    Returns ``None`` for ``None`` so that unweighted fast paths stay unweighted.
    """
    if sample_weight is None:
        return None
    w = as_float_1d(sample_weight, "sample_weight")
    if w.shape[0] != n:
        raise InvalidInputError(
            f"sample_weight has length {w.shape[0]} but the data has {n} samples"
        )
    if (w < 0).any():
        raise InvalidInputError("sample_weight contains negative weights")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not total > 0:
        raise InvalidInputError("sample_weight sums to zero: there is nothing to evaluate")
    if not total <= MAX_WEIGHT_TOTAL:
        raise InvalidInputError(
            f"sample_weight sums to {'more than float64 holds' if np.isinf(total) else f'{total:.3g}'}, "
            f"above {MAX_WEIGHT_TOTAL:.0e}: the measures multiply "
            "up to four weight totals, which would overflow float64; divide the weights by a "
            "constant (e.g. their mean) -- the measures depend only on their ratios"
        )
    return w


#: Strings that spell a missing value: the defaults of ``pandas.read_csv`` (``na_values``),
#: which pyarrow's CSV reader also reads as null in non-string columns.  Blank strings
#: (empty or only white space) are missing too.
MISSING_STRINGS = frozenset({
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})


def _value_kind(v: Any) -> str:
    """``"missing"``, ``"string"``, ``"number"`` or ``"other"`` for one value of an object array."""
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    if isinstance(v, str):
        return "missing" if v in MISSING_STRINGS or not v.strip() else "string"
    if v is None:
        return "missing"
    if isinstance(v, (numbers.Number, np.number, np.bool_)):
        return "missing" if v != v else "number"  # NaN (float, Decimal, numpy) is missing
    try:  # pandas.NA, NaT, numpy.datetime64("NaT")
        return "missing" if bool(_isna(v)) else "other"
    except (TypeError, ValueError):  # not a scalar
        return "other"


def _isna(v: Any) -> Any:
    import pandas as pd

    return pd.isna(v)


def _value_kinds(arr: np.ndarray, name: str) -> set[str]:
    """The kinds of the distinct values of a string or object array."""
    import pandas as pd  # a dependency; imported here to keep `import beyondchance` light

    try:
        distinct = pd.unique(arr.ravel())  # hashing: works on mixed types, unlike sorting; O(n)
    except TypeError as exc:
        raise InvalidInputError(f"{name} must hold hashable labels: {exc}") from exc
    return {_value_kind(v) for v in distinct}


def _where(arr: np.ndarray, hit: np.ndarray) -> str:
    """The first value of ``arr`` where ``hit`` holds, and its row (first axis)."""
    j = int(np.argmax(hit.ravel()))
    i = j // max(1, arr.size // arr.shape[0])
    v = arr.ravel()[j]
    shown = "NaN" if isinstance(v, (float, np.floating)) and v != v else repr(v.item() if isinstance(v, np.generic) else v)
    return f"{shown} in row {i + 1} (index {i})"


def _of_kind(arr: np.ndarray, kind: str) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # NaN != NaN raises the floating-point flag in numpy's loop
        return np.frompyfunc(lambda v: _value_kind(v) == kind, 1, 1)(arr).astype(bool)


def _check_missing(arr: np.ndarray, name: str) -> set[str]:
    """Refuse missing values; return the kinds of the values (see :func:`_value_kind`).

    Missing values are None, NaN, pandas ``NA`` and ``NaT``, blank strings and the
    strings in :data:`MISSING_STRINGS` (``"NA"``, ``"N/A"``, ``"null"``, ``"NaN"`` …);
    the error names the first one and its row.
    """
    kind = arr.dtype.kind
    if kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            raise InvalidInputError(_missing_in(arr, nan, name))
        return {"number"}
    if kind not in "USO":
        return {"number"} if kind in "biu" else {"other"}
    kinds = _value_kinds(arr, name)
    if "missing" in kinds:
        missing = _of_kind(arr, "missing")
        line = _missing_in(arr, missing, name)
        if isinstance(arr.ravel()[int(np.argmax(missing.ravel()))], str):  # text that spells a missing value
            line += "; a class spelled like a missing value, such as 'NA', needs another name"
        raise InvalidInputError(line)
    return kinds


def check_probabilities(
    y_proba: Any,
    name: str = "y_proba",
    *,
    n_classes: int | None = None,
    normalize: bool = False,
    atol: float = 1e-6,
) -> np.ndarray:
    """Validate probabilities.

    A 1-D array is read as the probability of the positive class and must lie in
    [0, 1].  A 2-D array holds one row per sample and one column per class; rows
    must sum to 1 within ``atol`` unless ``normalize=True``, in which case they are
    divided by their sum.
    """
    p = as_float_2d(y_proba, name)
    if (p < 0).any():
        raise InvalidInputError(f"{name} must hold probabilities in [0, 1], found a negative value")
    if (p > 1).any() and not (normalize and p.ndim == 2):
        raise InvalidInputError(f"{name} must hold probabilities in [0, 1], found a value above 1")
    if p.ndim == 2:
        if n_classes is not None and p.shape[1] != n_classes:
            raise InvalidInputError(
                f"{name} has {p.shape[1]} columns but there are {n_classes} classes"
            )
        sums = p.sum(axis=1)
        if normalize:
            if (sums <= 0).any():
                raise InvalidInputError(f"{name} has a row summing to 0; cannot normalize")
            p = p / sums[:, None]
        elif not np.allclose(sums, 1.0, rtol=0.0, atol=atol):
            worst = float(np.max(np.abs(sums - 1)))
            raise InvalidInputError(
                f"{name} rows must sum to 1 (largest deviation {worst:.3g}); "
                "pass normalize=True to rescale them"
            )
    return p
