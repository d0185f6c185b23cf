"""Tables and columns of any dataframe library, read through narwhals.

Every library narwhals knows comes in by one road (``narwhals.from_native``): eager
tables and columns (pandas, polars, pyarrow, modin, cuDF …) and lazy frames (a polars
``LazyFrame``, a DuckDB relation, a Spark, Dask, Ibis or SQLFrame frame).  What narwhals
does not take, and is read here by Arrow's PyCapsule interface (``__arrow_c_stream__`` /
``__arrow_c_array__``, through pyarrow): a pyarrow ``Array`` or ``RecordBatch``, and any
other object that speaks it.  Text and categorical columns become numpy object arrays
without a Python object per row (their Arrow dictionary); pandas-like indexes are read
with ``narwhals.maybe_get_index`` (narwhals has no index of its own).

Part of the one door for inputs, :mod:`beyondchance._validation`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["as_narwhals", "frame_names", "column_at", "default_names", "text_values", "column_values", "index_of",
           "is_lazy"]

#: what is never a table nor a column of one: no narwhals import for it
_PLAIN = (np.ndarray, list, tuple, str, bytes, numbers.Number, type(None))


def as_narwhals(x: Any, *, keep_lazy: bool = False) -> Any:
    """``x`` as a narwhals ``DataFrame`` or ``Series`` (a ``LazyFrame`` with ``keep_lazy``,
    else collected into its library's eager table), or None for what is no table nor column
    (and for a pandas table with a column name used twice, which narwhals refuses).

    >>> import pyarrow as pa
    >>> as_narwhals(pa.record_batch({"a": [1, 2]})).columns  # no narwhals type: Arrow's interface
    ['a']
    >>> as_narwhals([1, 2]) is None
    True
    """
    from narwhals.exceptions import DuplicateError

    try:
        return _as_narwhals(x, keep_lazy)
    except DuplicateError:  # names used twice (pandas allows them): read as an array-like
        return None


def _as_narwhals(x: Any, keep_lazy: bool) -> Any:
    if isinstance(x, _PLAIN):
        return None
    import narwhals.stable.v2 as nw

    out = nw.from_native(x, allow_series=True, pass_through=True)
    if not isinstance(out, (nw.DataFrame, nw.Series, nw.LazyFrame)):
        out = _from_arrow(x)
        if out is None:
            return None
    return out.collect() if isinstance(out, nw.LazyFrame) and not keep_lazy else out


def _from_arrow(x: Any) -> Any:
    """An object that speaks Arrow's PyCapsule interface as a narwhals (pyarrow) table or
    column; None for others."""
    stream, array = hasattr(x, "__arrow_c_stream__"), hasattr(x, "__arrow_c_array__")
    if not (stream or array):
        return None
    import narwhals.stable.v2 as nw
    import pyarrow as pa

    data = pa.chunked_array(x) if stream else pa.chunked_array([pa.array(x)])
    if pa.types.is_struct(data.type):  # the rows of a table (a RecordBatch)
        return nw.from_native(pa.table(x), eager_only=True)
    return nw.from_native(data, series_only=True)


def is_lazy(frame: Any) -> bool:
    """Whether ``frame`` (of :func:`as_narwhals`) is a narwhals ``LazyFrame``."""
    import narwhals.stable.v2 as nw

    return isinstance(frame, nw.LazyFrame)


def frame_names(x: Any) -> list[Any] | None:
    """The column names of a table (eager or lazy; a lazy frame's from its schema), else None.
    Names used twice (which pandas allows and narwhals refuses) are read from ``columns``."""
    from narwhals.exceptions import DuplicateError

    try:
        frame = _as_narwhals(x, keep_lazy=True)
    except DuplicateError:
        return list(x.columns)
    if frame is None or not hasattr(frame, "collect_schema"):  # a column
        return None
    return list(frame.collect_schema().names())


def column_at(x: Any, i: int = 0) -> Any:
    """Column ``i`` of a table (:func:`frame_names`) as its library's column (a lazy frame's collected)."""
    frame = as_narwhals(x, keep_lazy=True)
    name = frame.collect_schema().names()[i]
    if is_lazy(frame):
        frame = frame.select(name).collect()
    return frame.get_column(name).to_native()


def default_names(names: list[Any]) -> bool:
    """Names that say nothing: the integers 0, 1, …, k−1 in order (pandas' ``RangeIndex``
    of a frame made from an array; not ``{1: a, 0: b}``'s)."""
    return all(isinstance(c, numbers.Integral) and not isinstance(c, bool) and c == i for i, c in enumerate(names))


def text_values(x: Any) -> np.ndarray | None:
    """A text or categorical column (any library: its Arrow form) as a numpy object array
    without a Python object per row: the column is dictionary-encoded and the (small)
    dictionary is expanded by a numpy take, the rows sharing its strings; a column with nulls
    has them as None (the label checks then name the first and its row).  None for anything
    else (numbers convert without copying) and for columns whose values are Python objects
    already (numpy's object dtype: read as they are).

    >>> import pyarrow as pa
    >>> text_values(pa.chunked_array([["b", "a"], ["b"]])).tolist()
    ['b', 'a', 'b']
    """
    import narwhals.stable.v2 as nw

    series = as_narwhals(x)
    if not isinstance(series, nw.Series) or not isinstance(series.dtype, (nw.String, nw.Categorical, nw.Enum)):
        return None
    if getattr(series.to_native(), "dtype", None) == np.dtype(object):
        return None
    import pyarrow as pa

    arr = series.to_arrow()
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    if arr.null_count:  # not to_numpy: pyarrow's reads a null of a dictionary as another row's value
        return np.array(series.to_list(), dtype=object)
    if pa.types.is_dictionary(arr.type):
        codes, values = arr.indices, arr.dictionary
    else:
        enc = arr.dictionary_encode()
        codes, values = enc.indices, enc.dictionary
    if not _is_text(values.type):  # categories of numbers: the generic path
        return None
    return values.to_numpy(zero_copy_only=False)[codes.to_numpy(zero_copy_only=False)]


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)


def column_values(x: Any) -> np.ndarray:
    """A column (any library, or an array-like) as a numpy array: text by :func:`text_values`,
    a narwhals-known column by its library's ``to_numpy`` (cuDF refuses ``__array__``), other
    array-likes by ``numpy.asarray``; a table as its 2-D array."""
    text = text_values(x)
    if text is not None:
        return text
    frame = as_narwhals(x)
    return np.asarray(x) if frame is None else frame.to_numpy()


def index_of(x: Any) -> Any:
    """The index of a pandas-like (pandas, modin, cuDF) Series or DataFrame, else None."""
    if isinstance(x, _PLAIN):
        return None
    import narwhals.stable.v2 as nw
    from narwhals.exceptions import DuplicateError

    try:
        frame = nw.from_native(x, allow_series=True, eager_only=True, pass_through=True)
    except DuplicateError:  # names used twice: only pandas-like frames allow them
        return x.index
    return nw.maybe_get_index(frame) if isinstance(frame, (nw.DataFrame, nw.Series)) else None
