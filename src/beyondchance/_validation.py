"""The one place where inputs are checked and coerced.

Every public function calls the helpers below; nothing else re-checks lengths,
weights or label sets.  Each helper raises :class:`InvalidInputError` with a
message that names the offending argument, so that the command line can print it
as one line.

The rules for labels:

* missing values are refused, naming the first one and its row: None, NaN, pandas
  ``NA`` and ``NaT``, blank strings, and the strings ``pandas.read_csv`` reads as
  missing (:data:`MISSING_STRINGS`: ``"NA"``, ``"N/A"``, ``"null"``, ``"NaN"`` …);
* one array may not mix strings and numbers (``"1"`` and ``1`` are different labels
  to numpy, the same to a reader), nor may ``y_true`` and ``y_pred``;
* integer labels compare exactly whatever their dtypes (numpy would compare uint64
  with int64 as float64); integers beyond 2**53 are refused where real values are
  expected, as float64 cannot hold them.

Sample weights: finite, non-negative, with a positive total of at most
:data:`MAX_WEIGHT_TOTAL`.

What the door reads (:func:`as_array` and what reads through it): arrays, lists, tuples, the
columns of pandas, polars and pyarrow; a one-column table where one value per row is expected
(more columns refused).  Refused: masked elements of a ``numpy.ma.MaskedArray`` (counted; no
row is skipped: ``.compressed()`` the rows, or ``.filled(value)``); iterators and generators,
not materialised, as a function may read an input twice and a one-shot iterator is then empty
(pass ``list(x)``); sets, mappings, dictionary views; datetime, timedelta and
``decimal.Decimal`` values; pandas objects given together with different indexes
(:func:`check_aligned`: rows are paired by position).  Class probabilities in a table whose
column names are the classes are read in the class order (:func:`class_columns`).
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import math
import numbers
from collections.abc import Iterator, Mapping, Set as AbstractSet
from typing import Any

import numpy as np

from ._warnings import InvalidInputError

__all__ = [
    "as_array", "as_1d", "check_aligned", "class_columns", "positive_column", "is_score_matrix",
    "as_float_1d",
    "check_consistent_length",
    "check_sample_weight",
    "check_label_pair",
    "encode_labels",
    "check_probabilities",
    "check_unit_interval",
    "check_prevalence",
    "check_rate_curves",
    "binary_target",
    "as_samples",
    "check_positive_int",
    "check_n_resamples",
    "check_n_classes",
    "check_mc_samples",
    "check_option",
    "check_random_state",
    "check_frequency_weights",
]

#: Largest accepted total of the sample weights: the measures multiply up to four
#: weight totals (MCC's denominator), and 1e75**4 stays below float64's largest value.
MAX_WEIGHT_TOTAL = 1e75

#: The most classes a classification report (or a confusion matrix built from labels)
#: takes: its confusion matrix has k² cells, 10⁸ (800 MB) at the limit.  Beyond, the
#: labels are refused before any k² allocation (:func:`check_n_classes`).
MAX_CLASSES = 10_000

#: The most bootstrap resamples (or permutation draws) one interval or test takes: far
#: above any use (2,000 is the default, 10⁵ already pins a 99.9% interval's ends), and a
#: bound on the work (each resample re-evaluates every metric).
MAX_RESAMPLES = 1_000_000

#: The most Directed-Binary-Tree reference curves of an OPS (``mc_samples``): the shipped
#: reference has 114,688 (standard error ≤ 0.0015); 10⁷ gives ≤ 0.00016.
MAX_MC_SAMPLES = 10_000_000

#: Largest span (max - min + 1) of integer labels for which the integer fast path
#: (``bincount`` without sorting) is used.
_INT_FAST_SPAN = 1 << 12


#: float64 holds every integer up to 2**53 exactly, and not every one beyond
_EXACT_INTEGERS = 2.0**53


def _frame_column(x: Any) -> np.ndarray | None:
    """A text or categorical column of pandas, polars or pyarrow as a numpy object array
    without a Python object per row: the column's own library dictionary-encodes it and the
    (small) dictionary is expanded by a numpy take, the rows sharing its strings.  None for
    anything else (numbers convert through ``__array__`` without copying) and for columns
    with nulls (the generic path then names the first missing value and its row).

    >>> import pyarrow as pa
    >>> _frame_column(pa.chunked_array([["b", "a"], ["b"]])).tolist()
    ['b', 'a', 'b']
    """
    lib = type(x).__module__.partition(".")[0]
    if lib == "polars":
        import polars as pl

        if not isinstance(x, pl.Series) or not (x.dtype == pl.String or isinstance(x.dtype, (pl.Categorical, pl.Enum))):
            return None
        x, lib = x.to_arrow(), "pyarrow"
    if lib == "pyarrow":
        import pyarrow as pa

        if isinstance(x, pa.ChunkedArray):
            x = x.combine_chunks()
        if not isinstance(x, pa.Array) or x.null_count:
            return None
        t = x.type

        def text(kind: Any) -> bool:
            return pa.types.is_string(kind) or pa.types.is_large_string(kind)

        if pa.types.is_dictionary(t) and text(t.value_type):
            codes, values = x.indices, x.dictionary
        elif text(t):
            enc = x.dictionary_encode()
            codes, values = enc.indices, enc.dictionary
        else:
            return None
        return values.to_numpy(zero_copy_only=False)[codes.to_numpy(zero_copy_only=False)]
    if lib == "pandas":
        import pandas as pd

        if not isinstance(x, pd.Series):
            return None
        text_categories = isinstance(x.dtype, pd.CategoricalDtype) and x.dtype.categories.dtype.kind in "OUT"
        if not (text_categories or isinstance(x.dtype, pd.StringDtype)):
            return None
        codes, uniques = pd.factorize(x)
        if codes.size and codes.min() < 0:  # a missing value
            return None
        return np.asarray(uniques, dtype=object)[codes]
    return None


def _frame_names(x: Any) -> list[Any] | None:
    """The column names of a table (pandas or polars DataFrame, pyarrow Table), else None."""
    lib, kind = type(x).__module__.partition(".")[0], type(x).__name__
    if kind == "DataFrame" and lib in ("pandas", "polars"):
        return list(x.columns)
    return list(x.column_names) if lib == "pyarrow" and kind in ("Table", "RecordBatch") else None


def _frame_column_at(x: Any, i: int = 0) -> Any:
    """Column ``i`` of a table (:func:`_frame_names`) as a column (Series, Array)."""
    lib = type(x).__module__.partition(".")[0]
    return x.iloc[:, i] if lib == "pandas" else x.to_series(i) if lib == "polars" else x.column(i)


def _default_names(x: Any) -> bool:
    """Names that say nothing: 0, 1, …, k−1 in a pandas ``RangeIndex`` (not ``{1: a, 0: b}``'s)."""
    c = getattr(x, "columns", None)
    return type(c).__name__ == "RangeIndex" and c.start == 0 and c.step == 1


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
    names = _frame_names(x) if one_column else None
    if names is not None and len(names) != 1:
        raise InvalidInputError(f"{name} is a table with {len(names)} columns where one column (one value per row) "
                                "is expected" + (f"; select the column, e.g. {name}[{names[0]!r}]" if names else ""))
    return x if names is None else _frame_column_at(x)


def _to_array(x: Any, name: str, *, one_column: bool = False) -> np.ndarray:
    x = _readable(x, name, one_column=one_column)
    native = _frame_column(x)
    if native is not None:
        return native
    # pandas / polars / pyarrow objects all support __array__
    try:
        arr = np.asarray(x)
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


def as_float(x: Any, name: str, *, finite: bool = True) -> np.ndarray:
    """Return ``x`` (any shape) as a float64 array; with ``finite``, refuse NaN and ±inf."""
    if not isinstance(x, np.ndarray) or isinstance(x, np.ma.MaskedArray):
        x = _readable(x, name, one_column=False)
    _check_types_of(x, name)
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        got = f"dtype {x.dtype}" if isinstance(x, np.ndarray) else repr(x)
        raise InvalidInputError(f"{name} must be numeric, got {got}") from exc
    if finite and not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.size:
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
    """Refuse pandas objects (Series, DataFrames) given together whose indexes differ: every
    function pairs the rows by position, pandas would pair them by index.  Other inputs, and
    pandas objects of different lengths (the length check names those), pass."""
    indexes = [(name, x.index) for name, x in inputs.items()
               if type(x).__module__.startswith("pandas") and type(x).__name__ in ("Series", "DataFrame")]
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


def _keys(names: list[Any], classes: Any) -> tuple[list[Any], list[Any]]:
    """Comparable keys of column names and of classes: text names against the classes' text."""
    keys = [c.item() if isinstance(c, np.generic) else c for c in classes]
    if names and all(isinstance(c, str) for c in names) and not all(isinstance(k, str) for k in keys):
        keys = [str(k) for k in keys]
    return [c.item() if isinstance(c, np.generic) else c for c in names], keys


def _shown(values: list[Any]) -> str:  # the first eight
    return "[" + ", ".join(map(repr, values[:8])) + (", ..." if len(values) > 8 else "") + "]"


def class_columns(
    y_score: Any, p: np.ndarray, classes: np.ndarray, name: str, *, labels_given: bool = False
) -> np.ndarray:
    """The columns of class scores ``p`` (read from ``y_score``) in the order of ``classes``.

    A table whose column names are the classes (every one once, in any order; text names
    match the classes' text, as in a CSV header) has its columns put in the class order.
    Names that look like classes (some are) but disagree with them are refused, naming them.
    Default names (0, 1, …, k−1 of a pandas ``RangeIndex``, or names none of which is a
    class) and arrays keep the reading by position.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"b": [0.9, 0.2], "a": [0.1, 0.8]})
    >>> class_columns(frame, frame.to_numpy(), np.array(["a", "b"]), "y_score").tolist()
    [[0.1, 0.9], [0.8, 0.2]]
    """
    names = _frame_names(y_score)
    if names is None or _default_names(y_score) or p.ndim != 2:
        return p
    cols, keys = _keys(names, classes)
    if not set(cols) & set(keys):
        return p
    if len(set(cols)) == len(cols) == len(keys) and set(cols) == set(keys):
        return p[:, [cols.index(k) for k in keys]]
    issues = [f"no column for {_shown([k for k in keys if k not in cols])}" * any(k not in cols for k in keys),
              f"{_shown([c for c in cols if c not in keys])} not a class" * any(c not in keys for c in cols),
              "a name used twice" * (len(set(cols)) < len(cols))]
    raise InvalidInputError(
        f"{name}'s column names {_shown(cols)} look like class labels but do not match "
        f"{'labels=' if labels_given else 'the classes of y_true'} {_shown(keys)} "
        f"({'; '.join(i for i in issues if i)}); name each column by its class (every class once), "
        f"{'fix labels=' if labels_given else 'pass labels= with every class'}, or drop the names "
        f"({name}.to_numpy()) to read the columns by position")


def positive_column(y_score: Any, name: str, y_true: Any, pos_label: Any) -> Any:
    """The positive class's column of a two-column table of binary scores whose column names
    are the classes (``pos_label`` resolved; ``y_true`` read again only for such a table);
    anything else unchanged."""
    names = _frame_names(y_score)
    if names is None or len(names) != 2 or _default_names(y_score):
        return y_score
    cols, keys = _keys(names, [pos_label, *np.unique(as_1d(y_true, "y_true")).tolist()])
    if not set(cols) & set(keys):
        return y_score
    if keys[0] in cols and set(keys) <= set(cols) and cols[0] != cols[1]:
        return _frame_column_at(y_score, cols.index(keys[0]))
    raise InvalidInputError(
        f"{name}'s column names {_shown(cols)} look like class labels but do not match the positive class "
        f"{keys[0]!r} and the classes of y_true {_shown(keys[1:])}; name the columns by the two classes, "
        "or give the positive class's column alone")


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
            raise InvalidInputError(
                f"{name} holds a missing value: {_where(arr, nan)}; drop or fill the rows without a value"
            )
        return {"number"}
    if kind not in "USO":
        return {"number"} if kind in "biu" else {"other"}
    kinds = _value_kinds(arr, name)
    if "missing" in kinds:
        raise InvalidInputError(
            f"{name} holds a missing value: {_where(arr, _of_kind(arr, 'missing'))}; "
            "drop or fill the rows without a value (a class spelled like a missing value, "
            "such as 'NA', needs another name)"
        )
    return kinds


def _check_label_values(arr: np.ndarray, name: str) -> str:
    """Refuse missing, infinite and complex labels and a mix of strings and numbers.

    Returns the kind of the labels: ``"number"``, ``"string"`` or ``"other"``.
    """
    if arr.dtype.kind == "c":
        raise InvalidInputError(f"{name} must hold class labels, got complex numbers")
    kinds = _check_missing(arr, name)
    if arr.dtype.kind == "f" and np.isinf(arr).any():
        raise InvalidInputError(
            f"{name} holds an infinite value: {_where(arr, np.isinf(arr))}; labels must be finite"
        )
    if arr.dtype.kind == "f" and (np.abs(arr) > _EXACT_INTEGERS).any():
        # integers beyond the 64-bit range are read from files as floats, where neighbours merge
        raise InvalidInputError(
            f"{name} holds a floating-point label beyond 2**53, where distinct integers share one float "
            f"(labels beyond the 64-bit range are read as floats): "
            f"{_where(arr, np.abs(arr) > _EXACT_INTEGERS)}; map the labels to smaller codes or to text"
        )
    if {"string", "number"} <= kinds:
        raise InvalidInputError(
            f"{name} mixes string and numeric labels: {_where(arr, _of_kind(arr, 'string'))}, "
            f"{_where(arr, _of_kind(arr, 'number'))}"
        )
    return kinds.pop() if len(kinds) == 1 else "other"


def check_label_pair(
    y_true: Any, y_pred: Any | None, *, names: tuple[str, str] = ("y_true", "y_pred")
) -> tuple[np.ndarray, np.ndarray | None]:
    """Two label arrays: 1-D, same length, no missing values, not mixing strings and numbers;
    pandas objects with equal indexes (:func:`check_aligned`)."""
    if y_pred is not None:
        check_aligned(**{names[0]: y_true, names[1]: y_pred})
    yt = as_1d(y_true, names[0])
    yp = None if y_pred is None else as_1d(y_pred, names[1])
    _check_label_arrays(yt, yp, names)
    return yt, yp


def _check_label_arrays(yt: np.ndarray, yp: np.ndarray | None, names: tuple[str, str]) -> None:
    """:func:`check_label_pair` of arrays that :func:`as_1d` returned."""
    kind_true = _check_label_values(yt, names[0])
    if yp is not None:
        kind_pred = _check_label_values(yp, names[1])
        check_consistent_length(**{names[0]: yt, names[1]: yp})
        if "string" in {kind_true, kind_pred} and kind_true != kind_pred:
            raise InvalidInputError(
                f"{names[0]} and {names[1]} mix string and numeric labels "
                f"({yt.dtype} and {yp.dtype})"
            )


def encode_labels(
    y_true: Any,
    y_pred: Any | None = None,
    *,
    labels: Any | None = None,
    names: tuple[str, str] = ("y_true", "y_pred"),
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Map class labels to integer codes ``0..k-1``.

    Parameters
    ----------
    y_true, y_pred : array-like of labels (``y_pred`` may be None)
    labels : array-like, optional
        The label set, in the order of the codes.  Labels occurring in the data but
        not in ``labels`` are an error.  By default the sorted union of the labels
        present in ``y_true`` and ``y_pred``.

    Returns
    -------
    codes_true, codes_pred, classes
    """
    yt, yp = check_label_pair(y_true, y_pred, names=names)
    return _encode(yt, yp, labels, names)


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
    arrays = tuple(a for a in arrays if a is not None)
    dtype = np.result_type(*arrays)
    ints = [a for a in arrays if a.dtype.kind in "biu" and a.size]
    if dtype.kind != "f" or not ints:
        return dtype
    lo, hi = min(int(a.min()) for a in ints), max(int(a.max()) for a in ints)
    if len(ints) < len(arrays):  # floats too: float64 is exact up to 2**53
        return dtype if max(-lo, hi) <= 2**53 else np.dtype(object)
    if lo >= 0:
        return np.dtype(np.uint64)
    return np.dtype(np.int64) if hi < 2**63 else np.dtype(object)


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


def check_unit_interval(x: Any, name: str, *, open_: bool = False) -> np.ndarray:
    """Check that every value of ``x`` lies in [0, 1] (or (0, 1) with ``open_``)."""
    arr = np.asarray(x, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    bad = (arr <= 0) | (arr >= 1) if open_ else (arr < 0) | (arr > 1)
    if bad.any():
        interval = "(0, 1)" if open_ else "[0, 1]"
        value = float(arr[bad].ravel()[0])
        raise InvalidInputError(f"{name} must lie in {interval}, got {value!r}")
    return arr


def check_prevalence(prevalence: Any) -> np.ndarray:
    """Check that the prevalence lies strictly inside (0, 1)."""
    return check_unit_interval(prevalence, "prevalence", open_=True)


def check_rate_curves(alpha: Any, beta: Any, *, check_order: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch of curves in (α, β) space (OPS paper, section 2.4).

    ``alpha`` and ``beta`` are broadcast to a common shape ``(..., m)`` with
    ``m >= 2``; every value must be finite and in [0, 1].  With ``check_order`` the
    points must run by decreasing threshold (α non-decreasing, β non-increasing
    along the last axis) from the end point (α, β) = (0, 1) to (1, 0).
    """
    try:
        a, b = np.broadcast_arrays(np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64))
    except ValueError as exc:
        raise InvalidInputError(
            f"alpha and beta have incompatible shapes {np.shape(alpha)} and {np.shape(beta)}"
        ) from exc
    if a.ndim == 0 or a.shape[-1] < 2:
        raise InvalidInputError(
            f"alpha and beta need at least 2 points along the last axis, got shape {a.shape}"
        )
    for arr, name in ((a, "alpha"), (b, "beta")):
        lo, hi = arr.min(), arr.max()  # nan propagates: one pass each, no temporaries
        if not (lo >= 0 and hi <= 1):
            if not np.isfinite(arr).all():
                raise InvalidInputError(f"{name} contains NaN or infinite values")
            raise InvalidInputError(f"{name} must lie in [0, 1]")
    if check_order:
        if np.less(a[..., 1:], a[..., :-1]).any():
            raise InvalidInputError("alpha must be non-decreasing along the last axis (decreasing threshold)")
        if np.greater(b[..., 1:], b[..., :-1]).any():
            raise InvalidInputError("beta must be non-increasing along the last axis (decreasing threshold)")
        if (a[..., 0] != 0).any() or (b[..., 0] != 1).any():
            raise InvalidInputError("curves must start at the end point (alpha, beta) = (0, 1)")
        if (a[..., -1] != 1).any() or (b[..., -1] != 0).any():
            raise InvalidInputError("curves must end at the end point (alpha, beta) = (1, 0)")
    return a, b


# --- resampling inputs (bootstrap confidence intervals) ------------------------------


def as_samples(x: Any, name: str) -> np.ndarray:
    """Return ``x`` as an array whose first axis indexes the samples.

    For measures that take any per-sample input (labels, real values, or rows such
    as class probabilities): at least one dimension, at least one sample, no NaN or
    infinite value in numeric input.  No other coercion.
    """
    arr = _to_array(x, name)
    if arr.ndim == 0:
        raise InvalidInputError(f"{name} must have one value (or row) per sample, got a scalar")
    if arr.shape[0] == 0:
        raise InvalidInputError(f"{name} is empty")
    if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    if arr.dtype == object:
        _check_missing(arr, name)
    return arr


def check_confidence_level(confidence_level: Any) -> float:
    """A confidence level: a real number in the open interval (0, 1)."""
    if isinstance(confidence_level, (bool, np.bool_)) or not isinstance(
        confidence_level, (int, float, np.integer, np.floating)
    ):
        raise InvalidInputError(f"confidence_level must be a number in (0, 1), got {confidence_level!r}")
    return float(check_unit_interval(confidence_level, "confidence_level", open_=True))


def check_positive_int(value: Any, name: str) -> int:
    """Check that ``value`` is an integer >= 1 (booleans and non-integral floats refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_n_classes(k: int, *, what: str = "y_true and y hold") -> int:
    """Refuse more than :data:`MAX_CLASSES` classes (before the k × k confusion matrix is
    allocated), with the way out: real-valued targets are a regression, not classes.

    >>> check_n_classes(12)
    12
    """
    if k > MAX_CLASSES:
        raise InvalidInputError(
            f"{what} {k:,} distinct labels: more than the {MAX_CLASSES:,} classes a classification report "
            f"takes (its confusion matrix has one cell per pair of classes); real-valued targets are a regression, "
            f"not {k:,} classes: pass task='regression' (--task regression), or choose the task with task= (--task)"
        )
    return int(k)


def check_mc_samples(value: Any, name: str = "mc_samples") -> int:
    """A number of Directed-Binary-Tree reference curves: a positive integer, at most
    :data:`MAX_MC_SAMPLES`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    if value > MAX_MC_SAMPLES:
        raise InvalidInputError(f"{name}={value:,} is more than the {MAX_MC_SAMPLES:,} reference curves an OPS "
                                f"takes (standard error 0.5/sqrt({MAX_MC_SAMPLES:,}) = 0.00016 at the limit)")
    return int(value)


def check_resample_cap(n_resamples: Any, name: str = "n_resamples") -> int:
    """A positive integer number of resamples, at most :data:`MAX_RESAMPLES`."""
    b = check_positive_int(n_resamples, name)
    if b > MAX_RESAMPLES:
        raise InvalidInputError(f"{name}={b:,} is more than the {MAX_RESAMPLES:,} resamples an interval or a test "
                                "takes (2,000 is the default; 10⁵ already pins the ends of a 99.9% interval)")
    return b


def check_n_resamples(n_resamples: Any, confidence_level: float) -> int:
    r"""Check a number of bootstrap resamples B against the confidence level 1 − α.

    B must be at least ⌈2/α⌉: then B·α/2 ≥ 1, so each end of the interval (the α/2 and
    1 − α/2 percentiles of the B resample values) has at least one resample beyond it
    and the two ends are distinct order statistics, not the same extreme value.  With
    fewer the interval is meaningless (with B = 1 its width is 0).  95%: B ≥ 40;
    99%: B ≥ 200.
    """
    b = check_resample_cap(n_resamples, "n_resamples")
    alpha = 1.0 - float(confidence_level)
    needed = math.ceil(2.0 / alpha - 1e-9)  # 1e-9: 2 / (1 - 0.95) is 40.000000000000004
    if b < needed:
        raise InvalidInputError(
            f"n_resamples={b} is too few for a {confidence_level:.4g} confidence interval: "
            f"need at least {needed} (2 / (1 - confidence_level), one resample beyond each end)"
        )
    return b


def check_option(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """Check a string option (case-insensitive); return its canonical lower-case form."""
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
    raise InvalidInputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def check_random_state(random_state: Any) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a seed.

    Accepts None (fresh entropy), a non-negative int, a ``Generator`` (used as is, so
    its state advances), a ``SeedSequence`` / ``BitGenerator``, or a legacy
    ``RandomState`` (a seed is drawn from it).
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.int64))
    if random_state is None or isinstance(random_state, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
        if random_state < 0:
            raise InvalidInputError(f"random_state must be a non-negative integer, got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise InvalidInputError(
        "random_state must be None, a non-negative int or a numpy Generator, "
        f"got {type(random_state).__name__}"
    )


def check_frequency_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Validate frequency weights: the checks of :func:`check_sample_weight`, and integers.

    A frequency weight w says that its row stands for w identical observations.
    Returns int64 counts (``None`` for ``None``).
    """
    w = check_sample_weight(sample_weight, n)
    if w is None:
        return None
    if (w != np.round(w)).any() or w.max() >= 2.0**53:
        raise InvalidInputError(
            "sample_weight must hold integer counts when the weights are frequencies"
        )
    return w.astype(np.int64)


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


__all__ += ["union_labels"]


def binary_target(y_true: Any, *, pos_label: Any = None, name: str = "y_true") -> tuple[np.ndarray, Any]:
    """``y_true`` as a boolean array (True = positive class) for score-based measures.

    With ``pos_label=None`` the labels must be a subset of {0, 1}, {-1, 1} or
    {False, True} and the positive class is 1 (True), as in scikit-learn; other
    label sets need an explicit ``pos_label``.  More than two distinct labels is an
    error.  A single class is accepted here (measures that need both classes report
    themselves undefined).  Returns ``(is_positive, pos_label)``.
    """
    y = as_1d(y_true, name)
    _check_label_values(y, name)
    kind = y.dtype.kind
    if kind == "b":
        if pos_label is None or (not isinstance(pos_label, str) and pos_label == 1):
            return y, True
        if not isinstance(pos_label, str) and pos_label == 0:
            return ~y, False
        raise InvalidInputError(f"pos_label={pos_label!r} is not a label of {name} (True/False)")
    numeric_pos = pos_label is None or (
        isinstance(pos_label, (int, float, np.integer, np.floating)) and not isinstance(pos_label, bool)
    )
    if kind in "iuf" and numeric_pos:
        # fast path for {0, 1} and {-1, 1} labels: no sorting, no encoding
        lo, hi = y.min(), y.max()
        if lo >= 0 and hi <= 1:
            if kind == "f" and not ((y == 0) | (y == 1)).all():
                raise InvalidInputError(f"{name} must hold binary labels, got non-integer values")
            if pos_label is None or pos_label == 1:
                return y == 1, 1
            if pos_label == 0:
                return y == 0, pos_label
        elif pos_label is None and lo == -1 and hi == 1:
            if not ((y == 0).any() or (kind == "f" and not ((y == -1) | (y == 1)).all())):
                return y == 1, 1
    codes, _, classes = encode_labels(y, names=(name, "y_pred"))
    if classes.size > 2:
        shown = classes[:5].tolist()
        raise InvalidInputError(
            f"{name} must be binary, got {classes.size} classes (first: {shown})"
        )
    if pos_label is None:
        raise InvalidInputError(
            f"{name} has labels {classes.tolist()}; pass pos_label to say which one is positive"
        )
    try:
        hit = np.flatnonzero(classes == pos_label)
    except (TypeError, ValueError):  # pragma: no cover - incomparable types
        hit = np.array([], dtype=np.intp)
    if hit.size == 0:
        if classes.size == 2:
            raise InvalidInputError(
                f"pos_label={pos_label!r} is not one of the labels of {name} {classes.tolist()}"
            )
        # one class present, and it is not pos_label: every sample is negative
        return np.zeros(codes.shape[0], dtype=bool), pos_label
    return codes == hit[0], pos_label
