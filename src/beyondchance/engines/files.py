"""How every engine reads CSV / Parquet files: one set of CSV rules, one path rule.

The three engines parse CSV the same way (RFC 4180): a header row; the delimiter
given, else tab for ``.tsv`` files and ``,`` for the others (never guessed); fields
quoted with ``"``, a quote inside a quoted field doubled (``""``), line breaks allowed
inside quotes; an empty cell is missing.  Column types come from the whole file, not
from its first rows.  A quote that is never closed swallows every later row into one
cell in every CSV reader we use (pyarrow, DuckDB, Spark), so a local file is checked
first and such a quote is an error naming its row.  Text is UTF-8: a column read that
holds other bytes (a Latin-1 ``café``) is refused by every engine in the same line
(:func:`not_utf8_message`, naming the file, the column, the data row and the bytes);
pyarrow reads such a column as binary, DuckDB and Spark read a local file only after
:func:`check_utf8` (Spark would read the bytes as U+FFFD, DuckDB stop with a message of
its own).

A path that exists is that file, even when its name holds glob characters
(``scores[1].csv``); other paths with ``*``, ``?`` or ``[`` are glob patterns.

Reads are bounded.  The header line is at most :data:`HEADER_LIMIT` bytes.  A path that
is not a regular file (a FIFO, /dev/stdin, ``<(…)``) is read once into memory, as stdin
is, and only by the memory engine (:func:`read_stream`); the engines that open files
themselves refuse it (:func:`non_regular_kind`).  The memory engine estimates its memory
as :data:`MEMORY_FACTOR` times the CSV bytes and refuses what would exceed the memory
available (:func:`check_memory`), for a pipe as soon as that many bytes have arrived; the
memory available is the least of the machine's, the cgroup's (a container) and what
``ulimit -v`` leaves (:func:`available_memory`).
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["csv_delimiter", "check_quotes", "check_unique_columns", "check_utf8", "not_utf8_message", "read_csv_table",
           "delimiter_hint", "is_glob", "is_remote", "escape_glob", "local_files", "PARQUET_SUFFIXES", "CSV_SUFFIXES",
           "HEADER_LIMIT", "MEMORY_FACTOR", "available_memory", "cgroup_headroom", "address_space_headroom",
           "check_memory", "non_regular_kind", "read_stream", "header_line", "parse_header", "decimal_as_float",
           "input_of", "TableColumns", "file_format", "read_file_columns"]

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz", ".csv.bz2", ".tsv.bz2", ".csv.zst")
_GLOB_CHARS = frozenset("*?[")
_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_CHUNK = 1 << 24
_DECODE_CHUNK = 1 << 20  # bytes decoded at once in the UTF-8 check (the text of 1 MB stays small)

#: the longest header line read (bytes): a longer first line is an error, not an unbounded read
HEADER_LIMIT = 1 << 20
#: bytes of memory the memory engine needs per byte of CSV: the bundled example repeated to
#: 20 MB (720,000 rows) peaks 112 MB above one month of it in ``report`` (x5.6: the bytes,
#: pyarrow's parsed blocks, the label strings as Python objects); rounded up
MEMORY_FACTOR = 8
#: pyarrow's CSV block size is raised up to this when one row is longer than a block
MAX_BLOCK_SIZE = 1 << 28


def decimal_as_float(column: Any) -> Any:
    """A pyarrow decimal column as float64, each value the double nearest to it — as DuckDB
    and Spark cast a DECIMAL — through its text (pyarrow's own decimal-to-float cast is not
    correctly rounded: 0.1234 may land one unit in the last place away); other columns as they are.

    >>> import decimal, pyarrow as pa
    >>> decimal_as_float(pa.array([decimal.Decimal("0.3208")], pa.decimal128(10, 4))).to_pylist()
    [0.3208]
    """
    import pyarrow as pa

    if not (isinstance(getattr(column, "type", None), pa.DataType) and pa.types.is_decimal(column.type)):
        return column
    return column.cast(pa.string()).cast(pa.float64())


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


def input_of(path: Any, inputs: list[str]) -> str | None:
    """The input of ``inputs`` (paths and glob patterns, ``-`` for stdin) that ``path`` is —
    the same file by device and inode, so also through a link or a hard link — or None.

    >>> input_of(__file__, ["no-such-file.csv", __file__]) == __file__, input_of(__file__, ["-"])
    (True, None)
    """
    if not os.path.exists(path):
        return None
    for source in inputs:
        for file in local_files([source]) if source != "-" else []:
            try:
                if os.path.samefile(file, path):
                    return source
            except OSError:  # gone meanwhile: not this one
                continue
    return None


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
        first = stream.read(HEADER_LIMIT + 1)
    header = parse_header(header_line(first, name), name, delimiter)
    for column in dict.fromkeys(columns):
        if header.count(column) > 1:
            raise InvalidInputError(
                f"column {column!r} appears {header.count(column)} times in the header of {name}; "
                "rename the copies so that the one meant is unambiguous"
            )


def not_utf8_message(column: str, name: str, row: int, value: bytes) -> str:
    """The one line of every engine for a column read whose text is not UTF-8: the column,
    the file, the data row (1 = the first after the header) and the bytes it holds.

    >>> not_utf8_message("y", "latin1.csv", 3, b"caf\\xe9")
    "column 'y' of latin1.csv is not UTF-8 text: data row 3 holds the bytes b'caf\\\\xe9'; save the file as UTF-8"
    """
    shown = repr(bytes(value))
    if len(shown) > 60:
        shown = shown[:55] + "...'"
    return (f"column {column!r} of {name} is not UTF-8 text: data row {row} holds the bytes {shown}; "
            "save the file as UTF-8")


def check_utf8(source: Any, name: str, delimiter: str, columns: list[str]) -> None:
    """Raise :func:`not_utf8_message` when a column read of a CSV file (a local path, or
    bytes) holds bytes that are not UTF-8; other columns may hold any bytes, as on the
    memory engine.  Nothing is checked for a path that is not a local file.

    One streaming pass decodes the (decompressed) bytes a megabyte at a time, in bounded
    memory (about 200 MB/s); only a file where it fails is parsed by the CSV rules
    (:func:`_first_invalid_cell`) to name the column, the data row and the bytes.
    """
    if not _holds_invalid_utf8(source):
        return
    found = _first_invalid_cell(source, delimiter, columns)
    if found is not None:
        raise InvalidInputError(not_utf8_message(found[0], name, found[1], found[2]))


def _holds_invalid_utf8(source: Any) -> bool:
    """True when the bytes of a local file (or of bytes) are not all UTF-8; False without a file."""
    stream = _open(source)
    if stream is None:
        return False
    decoder = codecs.getincrementaldecoder("utf-8")()
    with stream:
        try:
            while chunk := stream.read(_DECODE_CHUNK):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return True
    return False


def _first_invalid_cell(source: Any, delimiter: str, columns: list[str]) -> tuple[str, int, bytes] | None:
    """(column, data row, bytes) of the first cell that is not UTF-8 in the first of
    ``columns`` (in their order) holding one, as the memory engine finds it; None when
    only other columns hold such bytes.  The bytes that are not UTF-8 are read as
    surrogate escapes, so that the cell's bytes are given back as they are in the file;
    blank lines are no rows, as for pyarrow, DuckDB and Spark."""
    first: dict[str, tuple[int, bytes]] = {}
    wanted: list[tuple[int, str]] = []  # (position in the header, name) of the columns read
    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)  # a cell may be long: the quotes are checked before
    try:
        opened = _open(source)
        assert opened is not None  # called only once _holds_invalid_utf8 has read the file
        with opened as stream:
            reader = csv.reader(io.TextIOWrapper(stream, encoding="utf-8-sig", errors="surrogateescape", newline=""),
                                delimiter=delimiter)
            header = next(reader, [])
            wanted = [(header.index(c), c) for c in dict.fromkeys(columns) if c in header]
            row = 0
            for record in reader:
                if not record:
                    continue
                row += 1
                for i, column in wanted:
                    if column not in first and i < len(record) and not _is_text(record[i]):
                        first[column] = (row, record[i].encode("utf-8", "surrogateescape"))
                if wanted and wanted[0][1] in first:
                    break
    except csv.Error:
        pass  # broken quoting: the reader of the engine says so
    finally:
        csv.field_size_limit(limit)
    found = next((c for _, c in wanted if c in first), None) if first else None
    return None if found is None else (found, *first[found])


def _is_text(cell: str) -> bool:
    """False for a cell read with surrogate escapes: its bytes were not UTF-8."""
    if cell.isascii():
        return True
    try:
        cell.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


#: where the memory limits are read (module attributes: the tests point them at fake files)
_MEMINFO, _CGROUP_OF_PROCESS, _CGROUP_ROOT, _PROCESS_STATUS = (
    "/proc/meminfo", "/proc/self/cgroup", "/sys/fs/cgroup", "/proc/self/status")


def available_memory() -> int | None:
    """The bytes of memory available to a new allocation: the least of the machine's
    (``MemAvailable`` of /proc/meminfo, else the free physical pages), the process's cgroup's
    (its limit minus its usage, :func:`cgroup_headroom`) and the address space left under
    ``RLIMIT_AS`` (``ulimit -v``, :func:`address_space_headroom`); None when none says."""
    known = [n for n in (_machine_available(), cgroup_headroom(), address_space_headroom()) if n is not None]
    return min(known) if known else None


def _machine_available() -> int | None:
    """``MemAvailable`` of /proc/meminfo, else the free physical pages (None: not known)."""
    try:
        with open(_MEMINFO, "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _read_number(path: str) -> int | None:
    """The integer in a one-line file (a cgroup limit or usage); None for ``max``, a
    missing or unreadable file."""
    try:
        with open(path, "rb") as fh:
            text = fh.read(64).strip()
        return int(text)
    except (OSError, ValueError):
        return None


def _cgroup_paths() -> list[tuple[str, str]]:
    """(limit file, usage file) of the process's cgroup: v2 (``0::/path``: memory.max,
    memory.current) and v1 (the ``memory`` controller: memory.limit_in_bytes, usage_in_bytes)."""
    try:
        with open(_CGROUP_OF_PROCESS, encoding="utf-8", errors="replace") as fh:
            lines = fh.read(1 << 16).splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        path = path.lstrip("/")
        if controllers == "":  # cgroup v2: one unified hierarchy
            base = os.path.join(_CGROUP_ROOT, path)
            out.append((os.path.join(base, "memory.max"), os.path.join(base, "memory.current")))
        elif "memory" in controllers.split(","):
            base = os.path.join(_CGROUP_ROOT, "memory", path)
            out.append((os.path.join(base, "memory.limit_in_bytes"), os.path.join(base, "memory.usage_in_bytes")))
    return out


def cgroup_headroom() -> int | None:
    """The bytes the process's cgroup (a container's memory limit) may still take: its limit
    minus its usage (the least over the cgroup files found); None without a limit."""
    room = []
    for limit_file, usage_file in _cgroup_paths():
        limit, usage = _read_number(limit_file), _read_number(usage_file)
        if limit is not None and limit < 1 << 60:  # v1 says "no limit" with a huge number
            room.append(max(limit - (usage or 0), 0))
    return min(room) if room else None


def address_space_headroom() -> int | None:
    """The address space left under ``RLIMIT_AS`` (``ulimit -v``): the limit minus the
    process's ``VmSize`` (/proc/self/status); None without a limit."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    if limit == resource.RLIM_INFINITY or limit < 0:
        return None
    size = 0
    try:
        with open(_PROCESS_STATUS, "rb") as fh:
            for line in fh:
                if line.startswith(b"VmSize:"):
                    size = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return max(limit - size, 0)


def _mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB" if n >= 1e6 else f"{n / 1e3:,.0f} kB"


def check_memory(size: int, name: str, factor: float = MEMORY_FACTOR) -> None:
    """Raise when reading ``size`` bytes of CSV in memory (about ``factor`` × ``size``)
    would exceed the memory available: the memory engine stops before the machine does."""
    available = available_memory()
    need = size * factor
    if available is not None and need > available:
        raise InvalidInputError(
            f"{name}: reading its {_mb(size)} in memory needs about {_mb(need)}, more than the "
            f"{_mb(available)} available; use --engine duckdb (it reads the file in pieces)"
        )


def file_not_found(path: Any) -> str:
    """The one line of a path where no file is: ``file not found: …``, or that it is a broken
    (dangling) symbolic link and where it points.

    >>> file_not_found("missing.bcstats")
    'file not found: missing.bcstats'
    """
    shown = os.fspath(path)
    if os.path.islink(shown):
        return f"{shown} is a broken link (to {os.readlink(shown)}, which does not exist): file not found"
    return f"file not found: {shown}"


def non_regular_kind(path: Any) -> str | None:
    """``"a pipe"``, ``"a character device"`` … for an existing path that is not a regular
    file or a directory (a FIFO, /dev/stdin, ``<(…)`` which is /dev/fd/N); else None."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, TypeError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def read_stream(stream: BinaryIO, name: str) -> bytes:
    """Every byte of a stream that can be read only once (stdin, a pipe, a device), read
    once and bounded: past what the memory available holds (:func:`check_memory`) the
    read stops with an error instead of exhausting the machine."""
    available = available_memory()
    limit = None if available is None else max(int(available // MEMORY_FACTOR), 1)
    chunks: list[bytes] = []
    total = 0
    while chunk := stream.read(_CHUNK if limit is None else min(_CHUNK, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if limit is not None and total > limit:
            raise InvalidInputError(
                f"{name}: more than {_mb(limit)} arrived, more than the memory available holds once "
                "read (reading in memory needs about "
                f"{MEMORY_FACTOR}x the bytes); write it to a file and use --engine duckdb"
            )
    return b"".join(chunks)


def header_line(first: bytes, name: str, complete: bool = False) -> bytes:
    """The header line of a CSV file from its first bytes (at most :data:`HEADER_LIMIT` + 1
    of them; ``complete``: they are the whole file); an error when it is longer than the cap."""
    end = first.find(b"\n", 0, HEADER_LIMIT + 1)
    if end < 0:
        if len(first) > HEADER_LIMIT:
            raise InvalidInputError(
                f"{name}: the header line is longer than {_mb(HEADER_LIMIT)} (no newline?); "
                "a CSV file starts with one line of column names"
            )
        return first
    return first[:end + 1]


def parse_header(line: bytes, name: str, delimiter: str) -> list[str]:
    """The column names of a header line (bounded by :func:`header_line`), as the CSV rules read them."""
    text = line.decode("utf-8-sig", errors="replace").rstrip("\r\n")
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, HEADER_LIMIT + 1))  # a long column name is the line's business
    try:
        return next(csv.reader([text], delimiter=delimiter), [])
    except csv.Error as exc:
        raise InvalidInputError(f"{name}: cannot read the header line as CSV ({exc})") from None
    finally:
        csv.field_size_limit(limit)


def _locate_broken_quote(source: Any, name: str, delimiter: str) -> None:
    opened = _open(source)
    assert opened is not None  # called only once _line_break_inside_quotes has read the file
    with opened as stream:
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
    """``columns`` of a CSV file (a local path or bytes) as a pyarrow Table, by the rules above.

    pyarrow parses in blocks (1 MB by default) and a row longer than a block (a cell of
    megabytes) cannot straddle two: the read is then retried with blocks 16 times larger,
    up to :data:`MAX_BLOCK_SIZE`, before the error is reported.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    check_quotes(source, name, delimiter)
    check_unique_columns(source, name, delimiter, columns)
    block = 1 << 20
    while True:
        try:
            return pacsv.read_csv(
                io.BytesIO(bytes(source)) if isinstance(source, (bytes, bytearray, memoryview)) else source,
                read_options=pacsv.ReadOptions(block_size=block),
                parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char='"', double_quote=True,
                                                 newlines_in_values=True),
                convert_options=pacsv.ConvertOptions(include_columns=columns, null_values=[""],
                                                     strings_can_be_null=True),
            )
        except MemoryError:  # pyarrow's "malloc of size … failed": exhausted, not bad input (exit 3)
            raise
        except (pa.ArrowException, OSError, ValueError) as exc:
            message = " ".join(str(exc).split())
            if "straddl" in message and block < MAX_BLOCK_SIZE:
                block = min(block * 16, MAX_BLOCK_SIZE)
                continue
            if "straddl" in message:
                message = f"a row is longer than {_mb(MAX_BLOCK_SIZE)}, the longest row read"
            raise InvalidInputError(f"cannot read {name} as CSV: {message}") from exc


# =====================================================================================
# the columns of files, stdin or a pipe in memory (the memory engine)
# =====================================================================================

#: suffixes read as CSV by :func:`file_format` (any other suffix: Parquet by its magic bytes)
_CSV_FILE_SUFFIXES = (".csv", ".tsv", ".txt", ".gz", ".bz2", ".zst")


@dataclass(frozen=True)
class TableColumns:
    """Columns read from files or stdin (:func:`read_file_columns`).

    Attributes
    ----------
    columns : column name -> 1-D numpy array (numbers, booleans, or str objects)
    n_rows : number of data rows
    source : the file name (``"<stdin>"`` for ``-``)
    format : ``"csv"`` or ``"parquet"``
    missing : column name -> boolean mask of its missing values (only the ``nullable``
        columns of :func:`read_file_columns` that have some; there the column holds its first
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
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in _CSV_FILE_SUFFIXES:
        return "csv"
    try:
        with p.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        return "csv"
    return "parquet" if head == b"PAR1" else "csv"


def read_file_columns(
    source: Any,
    columns: Iterable[str],
    *,
    numeric: Iterable[str] = (),
    stdin: Any = None,
    delimiter: str | None = None,
    nullable: Iterable[str] = (),
) -> TableColumns:
    """Read ``columns`` of CSV / Parquet files, or of CSV on stdin (``source="-"``), into numpy.

    Only the columns asked for are read (Parquet: column projection; CSV: pyarrow's
    ``include_columns``).  Every problem with a file — missing, unreadable, a directory, a
    column that is not there (with the delimiter it seems to use), a ``numeric`` column that
    is not numeric (naming the data row and the value), a missing value (naming its data row),
    text that is not UTF-8 (:func:`not_utf8_message`) — is one InvalidInputError line naming
    the file and the column.  A glob pattern (:func:`is_glob`) or a list of paths is one
    table: its files in sorted (given) order, each checked alike.

    Parameters
    ----------
    source : a path, a glob pattern, a list of paths, or ``"-"`` for CSV on standard input
        (a pipe or device path is read once, as stdin)
    columns : the columns to read (order kept, duplicates dropped)
    numeric : the columns that must be numeric (scores, probabilities, weights)
    stdin : a binary stream to read instead of ``sys.stdin`` (for tests)
    delimiter : CSV: the field delimiter (default: tab for ``.tsv``, else ``,``)
    nullable : the columns that may have missing values (empty CSV fields, Parquet nulls):
        their masks are in ``TableColumns.missing``; missing values elsewhere are an error

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("y,score\\n0,0.2\\n1,0.9\\n")
    >>> table = read_file_columns(path, ["y", "score"], numeric=["score"])
    >>> table.n_rows, table.columns["score"].tolist(), table.format
    (2, [0.2, 0.9], 'csv')
    """
    if isinstance(source, (list, tuple)):
        paths, name = [os.fspath(p) for p in source], ", ".join(map(str, source))
    elif str(source) != "-" and is_glob(os.fspath(source)):
        paths, name = local_files([os.fspath(source)]), os.fspath(source)
        if not paths:
            raise InvalidInputError(f"no file matches {name!r}")
    else:
        return _read_one(source, columns, numeric=numeric, stdin=stdin, delimiter=delimiter, nullable=nullable)
    if not paths:
        raise InvalidInputError("no file given")
    parts = [_read_one(p, columns, numeric=numeric, delimiter=delimiter, nullable=nullable) for p in paths]
    if len(parts) == 1:
        return parts[0]
    wanted = list(parts[0].columns)
    missing = {c: np.concatenate([t.missing.get(c, np.zeros(t.n_rows, dtype=bool)) for t in parts])
               for c in wanted if any(c in t.missing for t in parts)}
    return TableColumns({c: np.concatenate([t.columns[c] for t in parts]) for c in wanted},
                        sum(t.n_rows for t in parts), name, parts[0].format, missing)


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


def _read_one(
    source: Any,
    columns: Iterable[str],
    *,
    numeric: Iterable[str] = (),
    stdin: Any = None,
    delimiter: str | None = None,
    nullable: Iterable[str] = (),
) -> TableColumns:
    """:func:`read_file_columns` of one file, stdin (``"-"``) or a pipe."""
    wanted = _unique(columns)
    numeric = set(numeric)
    if str(source) == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = read_stream(stream, "<stdin>")  # once, bounded by the memory available
        table, name, fmt = _read_csv_bytes(data, wanted, "<stdin>", delimiter), "<stdin>", "csv"
    elif non_regular_kind(source) is not None:  # a pipe, /dev/stdin, <(…): read once, as stdin
        name = str(source)
        try:
            with open(source, "rb") as fh:
                data = read_stream(fh, name)
        except OSError as exc:
            raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
        import pyarrow as pa

        if data[:2] == b"\x1f\x8b":  # gzip, as `<(cat f.csv.gz)` gives it: decompressed, bounded
            try:
                with pa.input_stream(pa.BufferReader(data), compression="gzip") as stream:
                    data = read_stream(stream, name)
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
    return parse_header(first_line, name, delimiter)


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
    check_memory(size * (5 if compressed else 1), name)
    if compressed:
        try:
            with pa.input_stream(str(path), compression="detect") as stream:
                data = read_stream(stream, name)  # bounded: a small file may hold much text
        except MemoryError:  # exhausted, not bad input: exit 3 (cli)
            raise
        except (pa.ArrowException, OSError) as exc:
            raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
        return _read_csv_bytes(data, wanted, name, delimiter)
    try:
        with path.open("rb") as fh:
            first = header_line(fh.readline(HEADER_LIMIT + 1), name)
    except OSError as exc:
        raise InvalidInputError(f"cannot read {name}: {_one_line(exc)}") from exc
    _check_header(_csv_header(first, name, delimiter), wanted, name, delimiter)
    return read_csv_table(path, wanted, name, delimiter)


def _read_csv_bytes(data: bytes, wanted: list[str], name: str, delimiter: str | None):
    delimiter = csv_delimiter(name, delimiter)
    if not data.strip():
        raise InvalidInputError(f"{name} is empty (no header line)")
    first = header_line(data[:HEADER_LIMIT + 1], name)
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
        raise InvalidInputError(not_utf8_message(cname, source, row + 1, column[row].as_py()))


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
