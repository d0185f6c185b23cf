"""How every engine reads CSV / Parquet files: one set of CSV rules, one path rule.

The three engines parse CSV the same way (RFC 4180): a header row; the delimiter
given, else tab for ``.tsv`` files and ``,`` for the others (never guessed); fields
quoted with ``"``, a quote inside a quoted field doubled (``""``), line breaks allowed
inside quotes; an empty cell is missing.  Column types come from the whole file, not
from its first rows.  A quote that is never closed swallows every later row into one
cell in every CSV reader we use (pyarrow, DuckDB, Spark), so a local file is checked
first and such a quote is an error naming its row.

A path that exists is that file, even when its name holds glob characters
(``scores[1].csv``); other paths with ``*``, ``?`` or ``[`` are glob patterns.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys
from typing import Any, BinaryIO

from .._warnings import InvalidInputError

__all__ = ["csv_delimiter", "check_quotes", "check_unique_columns", "read_csv_table", "delimiter_hint", "is_glob", "is_remote",
           "escape_glob", "local_files", "PARQUET_SUFFIXES", "CSV_SUFFIXES"]

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz", ".csv.bz2", ".tsv.bz2", ".csv.zst")
_GLOB_CHARS = frozenset("*?[")
_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_CHUNK = 1 << 24


def csv_delimiter(path: Any, delimiter: str | None = None) -> str:
    """The field delimiter of a CSV file: the one given, else tab for ``.tsv`` and ``,`` otherwise."""
    if delimiter is None:
        name = os.fspath(path).lower() if isinstance(path, (str, os.PathLike)) else ""
        return "\t" if re.search(r"\.tsv(\.[a-z0-9]+)?$", name) else ","
    if not isinstance(delimiter, str):
        raise InvalidInputError(f"delimiter must be one character, got {delimiter!r}")
    if delimiter in ("\\t", "tab"):
        delimiter = "\t"
    if len(delimiter) != 1 or delimiter in ('"', "\n", "\r"):
        raise InvalidInputError(f"delimiter must be one character other than a quote or a line break, got {delimiter!r}")
    return delimiter


def delimiter_hint(header: list[str], delimiter: str) -> str:
    """When a header reads as one column holding another delimiter: a sentence saying so, else ''."""
    if len(header) != 1:
        return ""
    other = next((d for d in (",", ";", "\t", "|") if d != delimiter and d in header[0]), None)
    if other is None:
        return ""
    return (f"; the header is one column {header[0][:60]!r} with delimiter {delimiter!r}, "
            f"the delimiter looks like {other!r} (pass --delimiter / delimiter= {other!r})")


def is_remote(path: str) -> bool:
    """True for a URL (``s3://``, ``https://`` …)."""
    return bool(_REMOTE.match(path))


def is_glob(path: str) -> bool:
    """True for a glob pattern: glob characters, and no file of that literal name."""
    return bool(_GLOB_CHARS & set(path)) and not os.path.exists(path)


def local_files(paths: list[str]) -> list[str]:
    """The local files behind paths and glob patterns (remote paths are left out)."""
    import glob

    out: list[str] = []
    for p in paths:
        out.extend(sorted(glob.glob(p, recursive=True)) if is_glob(p) else [p] if os.path.isfile(p) else [])
    return out


def escape_glob(path: str, style: str) -> str:
    """A literal file name that a globbing reader reads as itself.

    ``style``: ``"duckdb"`` (each glob character in brackets) or ``"hadoop"`` (backslash).
    Glob patterns (:func:`is_glob`) are returned unchanged.
    """
    if is_glob(path) or not (_GLOB_CHARS & set(path)):
        return path
    if style == "duckdb":
        return re.sub(r"([*?\[])", r"[\1]", path)
    return re.sub(r"([*?\[\]{}\\])", r"\\\1", path)


def check_quotes(source: Any, name: str, delimiter: str) -> None:
    """Raise if the quotes of a CSV file (a local path, or bytes) are broken, naming the data row.

    In RFC 4180 CSV a line break inside quotes belongs to the field, so a quote never
    closed (or closed far later, by another stray quote) swallows the rows after it.
    One vectorised pass finds whether any line break lies inside quotes (the parity
    of the quotes before it is odd) or a quote is left open at the end; only then does
    Python's strict CSV parser read the file, and any quoting it cannot parse is an
    error naming the row where the broken field starts.  Compressed files are read
    decompressed.
    """
    if not _line_break_inside_quotes(source):
        return
    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)  # the unclosed field runs to the end of the file
    try:
        _locate_broken_quote(source, name, delimiter)
    finally:
        csv.field_size_limit(limit)


def check_unique_columns(source: Any, name: str, delimiter: str, columns: list[str]) -> None:
    """Raise if a column asked for stands more than once in the header of a CSV file (a
    local path, or bytes): which copy an engine would read is its own choice, so none is."""
    stream = _open(source)
    if stream is None:
        return
    with stream:
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
        header = next(csv.reader(text, delimiter=delimiter), [])
    for column in dict.fromkeys(columns):
        if header.count(column) > 1:
            raise InvalidInputError(
                f"column {column!r} appears {header.count(column)} times in the header of {name}; "
                "rename the copies so that the one meant is unambiguous"
            )


def _locate_broken_quote(source: Any, name: str, delimiter: str) -> None:
    with _open(source) as stream:
        reader = csv.reader(io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline=""),
                            delimiter=delimiter, strict=True)
        records, line = 0, 1  # records read (the header included), the line where the next one starts
        try:
            for _ in reader:
                records += 1
                line = reader.line_num + 1
        except csv.Error as exc:
            what = ("is never closed" if "end of data" in str(exc)
                    else f"is not closed where its field ends ({exc})")
            raise InvalidInputError(
                f"{name}: the quote opened in data row {records} (line {line}) {what}; "
                "every later row would be lost or misread"
            ) from None


def _open(source: Any) -> BinaryIO | None:
    """A binary stream of the (decompressed) bytes; None for a path that is not a local file."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source))
    if not os.path.isfile(source):
        return None
    import pyarrow as pa

    return pa.input_stream(os.fspath(source), compression="detect")


def _line_break_inside_quotes(source: Any) -> bool:
    """True when a line break follows an odd number of quotes, or the file ends so
    (a quoted field spanning lines, or a quote left open); False without a file."""
    stream = _open(source)
    if stream is None:
        return False
    import numpy as np

    odd = 0  # parity of the quotes read so far
    with stream:
        while chunk := stream.read(_CHUNK):
            data = np.frombuffer(chunk, dtype=np.uint8)
            quotes = data == 34  # '"'
            if not quotes.any():
                if odd and (data == 10).any():
                    return True
                continue
            parity = (np.cumsum(quotes, dtype=np.int64) + odd) & 1
            if parity[data == 10].any():  # '\n' after an odd number of quotes
                return True
            odd = int(parity[-1])
    return bool(odd)


def read_csv_table(source: Any, columns: list[str], name: str, delimiter: str) -> Any:
    """``columns`` of a CSV file (a local path or bytes) as a pyarrow Table, by the rules above."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    check_quotes(source, name, delimiter)
    check_unique_columns(source, name, delimiter, columns)
    try:
        return pacsv.read_csv(
            io.BytesIO(bytes(source)) if isinstance(source, (bytes, bytearray, memoryview)) else source,
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char='"', double_quote=True,
                                             newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(include_columns=columns, null_values=[""],
                                                 strings_can_be_null=True),
        )
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InvalidInputError(f"cannot read {name} as CSV: {' '.join(str(exc).split())}") from exc
