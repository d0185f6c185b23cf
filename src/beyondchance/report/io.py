"""Reading the columns of a test set from a CSV or Parquet file (or CSV on stdin).

Only the columns asked for are read (Parquet: column projection; CSV: pyarrow's
``include_columns``), as numpy arrays.  Every problem with the file itself — missing
file, unreadable Parquet, a column that is not there, a score column that is not
numeric, missing cells — is raised as :class:`~beyondchance.InvalidInputError` with
one line that names the file and the column.  CSV follows the rules of
:mod:`beyondchance.engines.files`, shared by every engine (RFC 4180 quoting, the
delimiter of ``delimiter=`` or tab for ``.tsv``, types from the whole file, an unclosed
quote an error naming its row).  Files are opened read-only and never written.

>>> import io, pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> _ = path.write_text("y,score\\n0,0.2\\n1,0.9\\n")
>>> table = read_columns(path, ["y", "score"], numeric=["score"])
>>> table.n_rows, table.columns["score"].tolist(), table.format
(2, [0.2, 0.9], 'csv')
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .._warnings import InvalidInputError
from ..engines import files as _files
from ..engines.files import csv_delimiter, decimal_as_float, delimiter_hint, file_not_found, read_csv_table
from ..engines.runner import BUILTIN_ENGINES, get_runner

__all__ = ["TableColumns", "read_columns", "file_format", "ENGINES", "check_engine"]

#: the engines that come with the library (:mod:`beyondchance.engines.runner`; every registered
#: engine: :func:`~beyondchance.engines.runner.engine_names`)
ENGINES: tuple[str, ...] = BUILTIN_ENGINES

_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
_CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".gz", ".bz2", ".zst")


def check_engine(engine: str) -> str:
    """The engine name, checked against the registered engines."""
    get_runner(engine)  # InvalidInputError: unknown engine …; available: …
    return engine


@dataclass(frozen=True)
class TableColumns:
    """Columns read from one source.

    Attributes
    ----------
    columns : column name -> 1-D numpy array (numbers, booleans, or str objects)
    n_rows : number of data rows
    source : the file name (``"<stdin>"`` for ``-``)
    format : ``"csv"`` or ``"parquet"``
    missing : column name -> boolean mask of its missing values (only the ``nullable``
        columns of :func:`read_columns` that have some; there the column holds its first
        present value, or 0 when every value is missing)
    """

    columns: dict[str, np.ndarray]
    n_rows: int
    source: str
    format: str
    missing: dict[str, np.ndarray] = field(default_factory=dict)


def file_format(path: str | Path) -> str:
    """``"parquet"`` or ``"csv"``: by the file suffix, else by the Parquet magic bytes."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in _PARQUET_SUFFIXES:
        return "parquet"
    if suffix in _CSV_SUFFIXES:
        return "csv"
    try:
        with p.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        return "csv"
    return "parquet" if head == b"PAR1" else "csv"


def _unique(names: Iterable[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        if name not in out:
            out.append(name)
    return out


def _missing_columns(wanted: list[str], present: list[str], source: str) -> None:
    missing = [c for c in wanted if c not in present]
    if missing:
        shown = ", ".join(repr(c) for c in present[:20]) + (" ..." if len(present) > 20 else "")
        what = "column" if len(missing) == 1 else "columns"
        raise InvalidInputError(
            f"{what} {', '.join(repr(c) for c in missing)} not found in {source}; its columns: {shown}"
        )


def read_columns(
    source: str | Path,
    columns: Iterable[str],
    *,
    numeric: Iterable[str] = (),
    stdin: Any = None,
    delimiter: str | None = None,
    nullable: Iterable[str] = (),
) -> TableColumns:
    """Read ``columns`` from a CSV or Parquet file, or from CSV on stdin (``source="-"``).

    Parameters
    ----------
    source : path, or ``"-"`` for CSV on standard input
    columns : the columns to read (order kept, duplicates dropped)
    numeric : the columns that must be numeric (scores, probabilities, weights)
    stdin : a binary stream to read instead of ``sys.stdin`` (for tests)
    delimiter : CSV: the field delimiter (default: tab for ``.tsv``, else ``,``)
    nullable : the columns that may have missing values (empty CSV fields, Parquet nulls):
        their masks are in ``TableColumns.missing``; missing values elsewhere are an error

    Returns
    -------
    TableColumns
    """
    wanted = _unique(columns)
    numeric = set(numeric)
    if str(source) == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = _files.read_stream(stream, "<stdin>")  # once, bounded by the memory available
        table, name, fmt = _read_csv_bytes(data, wanted, "<stdin>", delimiter), "<stdin>", "csv"
    elif _files.non_regular_kind(source) is not None:  # a pipe, /dev/stdin, <(…): read once, as stdin
        name = str(source)
        try:
            with open(source, "rb") as fh:
                data = _files.read_stream(fh, name)
        except OSError as exc:
            raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
        import pyarrow as pa

        if data[:2] == b"\x1f\x8b":  # gzip, as `<(cat f.csv.gz)` gives it: decompressed, bounded
            try:
                with pa.input_stream(pa.BufferReader(data), compression="gzip") as stream:
                    data = _files.read_stream(stream, name)
            except MemoryError:  # exhausted, not bad input: exit 3 (cli)
                raise
            except (pa.ArrowException, OSError) as exc:
                raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
        if data[:4] == b"PAR1":
            table, fmt = _read_parquet(pa.BufferReader(data), wanted, name), "parquet"
        else:
            table, fmt = _read_csv_bytes(data, wanted, name, delimiter), "csv"
    else:
        path = Path(source)
        name = str(source)
        if not path.exists():
            raise InvalidInputError(file_not_found(name))
        if path.is_dir():
            raise InvalidInputError(f"{name} is a directory, not a CSV or Parquet file")
        fmt = file_format(path)
        table = _read_parquet(path, wanted, name) if fmt == "parquet" else _read_csv_path(path, wanted, name, delimiter)
    n_rows = table.num_rows
    if n_rows == 0:
        raise InvalidInputError(f"{name} has no data rows")
    nullable = set(nullable)
    out, missing = {}, {}
    for c in wanted:
        column = table.column(c)
        if c in nullable and column.null_count:
            out[c], missing[c] = _with_missing(column, c, name, c in numeric)
        else:
            out[c] = _column_to_numpy(column, c, name, c in numeric)
    return TableColumns(out, int(n_rows), name, fmt, missing)


def _with_missing(column: Any, cname: str, source: str, numeric: bool) -> tuple[np.ndarray, np.ndarray]:
    """(values, mask of the missing ones) of a column with nulls: the present values converted
    as :func:`_column_to_numpy` converts them, the missing ones filled with the first present
    value (0 when none is present)."""
    import pyarrow.compute as pc

    present = pc.is_valid(column)
    mask = ~np.asarray(present.to_numpy(zero_copy_only=False), dtype=bool)
    if mask.all():
        return np.zeros(mask.size), mask
    _check_utf8(column, cname, source)  # its data row counted among all the rows
    values = _column_to_numpy(column.filter(present), cname, source, numeric)
    full = np.empty(mask.size, dtype=values.dtype)
    full[~mask] = values
    full[mask] = values[0]
    return full, mask


def _read_parquet(path: Any, wanted: list[str], name: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        present = list(pf.schema_arrow.names)
    except MemoryError:  # exhausted, not bad input: exit 3 (cli)
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InvalidInputError(f"cannot read {name} as Parquet: {_one_line(exc)}") from exc
    _missing_columns(wanted, present, name)
    try:
        return pf.read(columns=wanted, use_threads=True)
    except MemoryError:  # exhausted, not bad input: exit 3 (cli)
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InvalidInputError(f"cannot read {name} as Parquet: {_one_line(exc)}") from exc


def _csv_header(first_line: bytes, name: str, delimiter: str) -> list[str]:
    if not first_line.strip():
        raise InvalidInputError(f"{name} is empty (no header line)")
    return _files.parse_header(first_line, name, delimiter)


def _check_header(header: list[str], wanted: list[str], name: str, delimiter: str) -> None:
    missing = [c for c in wanted if c not in header]
    if missing and delimiter_hint(header, delimiter):
        what = "column" if len(missing) == 1 else "columns"
        raise InvalidInputError(
            f"{what} {', '.join(repr(c) for c in missing)} not found in {name}{delimiter_hint(header, delimiter)}"
        )
    _missing_columns(wanted, header, name)


def _read_csv_path(path: Path, wanted: list[str], name: str, delimiter: str | None):
    import pyarrow as pa

    delimiter = csv_delimiter(path, delimiter)
    compressed = path.suffix.lower() in (".gz", ".bz2", ".zst")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
    # a compressed file holds several times its size of text (x5 assumed)
    _files.check_memory(size * (5 if compressed else 1), name)
    if compressed:
        try:
            with pa.input_stream(str(path), compression="detect") as stream:
                data = _files.read_stream(stream, name)  # bounded: a small file may hold much text
        except MemoryError:  # exhausted, not bad input: exit 3 (cli)
            raise
        except (pa.ArrowException, OSError) as exc:
            raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
        return _read_csv_bytes(data, wanted, name, delimiter)
    try:
        with path.open("rb") as fh:
            first = _files.header_line(fh.readline(_files.HEADER_LIMIT + 1), name)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
    _check_header(_csv_header(first, name, delimiter), wanted, name, delimiter)
    return read_csv_table(path, wanted, name, delimiter)


def _read_csv_bytes(data: bytes, wanted: list[str], name: str, delimiter: str | None):
    delimiter = csv_delimiter(name, delimiter)
    if not data.strip():
        raise InvalidInputError(f"{name} is empty (no header line)")
    first = _files.header_line(data[:_files.HEADER_LIMIT + 1], name)
    _check_header(_csv_header(first, name, delimiter), wanted, name, delimiter)
    return read_csv_table(data, wanted, name, delimiter)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _column_to_numpy(column: Any, cname: str, source: str, numeric: bool) -> np.ndarray:
    """One column as a numpy array; nulls and non-numeric values named with their row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = decimal_as_float(column)  # a number, as the engines read it
    ctype = column.type
    if column.null_count:
        first = int(pc.index(pc.is_null(column), True).as_py())
        raise InvalidInputError(
            f"column {cname!r} of {source} has {column.null_count} missing value(s) "
            f"(first in data row {first + 1})"
        )
    if pa.types.is_dictionary(ctype):
        column = column.cast(ctype.value_type)
        ctype = column.type
    _check_utf8(column, cname, source)
    is_number = pa.types.is_integer(ctype) or pa.types.is_floating(ctype) or pa.types.is_boolean(ctype)
    if numeric and not (pa.types.is_integer(ctype) or pa.types.is_floating(ctype)):
        example = column.slice(0, 1).to_pylist()[0]
        if pa.types.is_string(ctype) or pa.types.is_large_string(ctype):
            values = column.to_numpy(zero_copy_only=False)
            bad = _first_non_numeric(values)
            if bad is not None:
                raise InvalidInputError(
                    f"column {cname!r} of {source} must be numeric; data row {bad[0] + 1} holds {_short(bad[1])}"
                )
        raise InvalidInputError(
            f"column {cname!r} of {source} must be numeric, it holds {ctype} values (e.g. {example!r})"
        )
    if is_number:
        arr = column.to_numpy()
        if numeric and arr.dtype.kind == "f" and not np.isfinite(arr).all():
            first = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise InvalidInputError(
                f"column {cname!r} of {source} holds a non-finite value ({float(arr[first])!r} in data row {first + 1})"
            )
        return arr
    if pa.types.is_string(ctype) or pa.types.is_large_string(ctype):
        return column.to_numpy(zero_copy_only=False).astype(object)
    if pa.types.is_nested(ctype):  # list, struct, map: no one label per row
        raise InvalidInputError(f"column {cname!r} of {source} holds nested values ({str(ctype)[:80]}): a label, "
                                "score or weight column holds one plain value per row")
    # dates, timestamps, decimals ...: their text form serves as a label / group value
    try:
        return np.asarray(column.cast(pa.string()).to_numpy(zero_copy_only=False), dtype=object)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid) as exc:
        raise InvalidInputError(f"column {cname!r} of {source} holds {str(ctype)[:80]} values, which have no text "
                                "form to serve as labels") from exc


def _check_utf8(column: Any, cname: str, source: str) -> None:
    """Raise the line of every engine (:func:`.files.not_utf8_message`) when a column holds
    bytes that are not UTF-8: a CSV column that pyarrow reads as binary for them (a numeric
    one too), or a Parquet string column whose writer broke the format's rule of UTF-8
    (pyarrow converts it to Python text with an internal error)."""
    import pyarrow as pa

    ctype = column.type
    if pa.types.is_string(ctype) or pa.types.is_large_string(ctype):
        try:
            column.validate(full=True)
            return
        except pa.ArrowInvalid:
            column = column.cast(pa.large_binary())
    elif not (pa.types.is_binary(ctype) or pa.types.is_large_binary(ctype)):
        return
    row = next((i for i, v in enumerate(column.to_pylist()) if v is not None and not _is_utf8(v)), None)
    if row is not None:
        raise InvalidInputError(_files.not_utf8_message(cname, source, row + 1, column[row].as_py()))


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _short(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 5] + "...'"


def _first_non_numeric(values: np.ndarray) -> tuple[int, str] | None:
    for i, v in enumerate(values):
        try:
            float(v)
        except (TypeError, ValueError):
            return i, v
    return None
