"""The DuckDB engine: CSV / Parquet files (glob patterns, larger than memory), no server.

DuckDB streams the files through the aggregation queries of :mod:`.sql` and spills
to disk when a ``GROUP BY`` outgrows memory; only the statistics come back to Python.
"""

from __future__ import annotations

import os
import re
import uuid
from typing import Any, Sequence

import numpy as np

from .._validation import as_narwhals, is_lazy
from .._warnings import InvalidInputError
from .files import (
    CSV_SUFFIXES, PARQUET_SUFFIXES, check_quotes, check_unique_columns, check_utf8, csv_delimiter, delimiter_hint,
    escape_glob, MAX_BLOCK_SIZE, available_memory, is_remote, local_files,
)
from .spark import is_spark_dataframe
from .sql_engine import SQLEngine

__all__ = ["DuckDBRunner", "DuckDBEngine", "duckdb_statistics", "RUNNER"]

#: CSV columns are typed from every row, as pyarrow does (no BOOLEAN / date guessing:
#: pyarrow's true / false spellings are recognised afterwards; dates stay text)
_CSV_TYPES = "['BIGINT', 'DOUBLE', 'VARCHAR']"
_TRUE, _FALSE = ("1", "True", "TRUE", "true"), ("0", "False", "FALSE", "false")  # pyarrow's defaults


def _csv_error(message: str, files: list[str] | None) -> str:
    """DuckDB's error reading a CSV file as one line naming the file, the line DuckDB gives
    and its reason; '' for other errors.  DuckDB's copy of the line is left out: with
    parallel reads it is often another line than the one numbered."""
    if "CSV Error" not in message and "sniffing file" not in message:
        return ""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    match = re.search(r'file "([^"]+)"', message) or re.search(r"^\s*file = (.+)$", message, re.M)
    name = match.group(1).strip() if match else (files[0] if files and len(files) == 1 else "the input")
    if "sniffing file" in message:
        what = ("its rows do not parse with the delimiter and quotes given (a row with more fields than the "
                "header, or the wrong --delimiter?)")
    else:
        where = re.search(r"CSV Error on Line: (\d+)", message)
        reason = next((line for line in lines[1:] if not line.startswith(("Original Line:", "Possible", "*"))
                       and " = " not in line), "")
        what = (f"line {where.group(1)} (as DuckDB counts)" if where else "a line") + (f": {reason}" if reason else "")
    return " ".join(f"{name}: DuckDB cannot read it as CSV: {what}".split())[:400]


def _sql_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _kind(type_name: str) -> str:
    t = type_name.upper()
    if t.startswith(("DOUBLE", "FLOAT", "REAL", "DECIMAL", "NUMERIC", "HUGEINT", "UHUGEINT")):
        return "float"  # integers beyond 64 bits are read as floating point, as pyarrow reads them
    if t in ("BOOLEAN", "BOOL"):
        return "bool"
    if t.startswith(("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT",
                     "UINTEGER", "UBIGINT", "INT")):
        return "int"
    if t.startswith(("VARCHAR", "STRING", "TEXT", "ENUM")):
        return "string"
    return "other"


def _paths(path: Any) -> list[str]:
    paths = [os.fspath(p) for p in path] if isinstance(path, (list, tuple)) else [os.fspath(path)]
    if not paths:
        raise InvalidInputError("no input file given")
    return paths


class DuckDBRunner:
    """Runs the shared SQL on DuckDB over a file, a glob, a list of files or an in-memory table.

    Parameters
    ----------
    source : a path, a glob pattern or a list of paths (Parquet or CSV, by extension;
        a directory is read as ``dir/**/*.parquet``; a path that exists is that file,
        even with ``[`` in its name), a data frame of any library narwhals knows (pandas,
        polars, pyarrow …), a polars LazyFrame (queried in place) or a DuckDB relation
    connection : an open ``duckdb`` connection (its settings — memory_limit, threads,
        temp_directory, extensions — apply); default: a new in-memory connection that
        never installs or loads an extension, so remote paths (``s3://``, ``https://``)
        need a connection of your own with ``httpfs`` loaded.  A DuckDB relation is
        queried in place on the connection that made it when that is given; without it,
        its rows are read once into an Arrow table (a relation does not expose its connection)
    delimiter : CSV: the field delimiter (default: tab for ``.tsv``, else ``,``)

    Files are read once per runner: :meth:`load` copies the needed columns into a
    temporary table (typed from every row, as pyarrow types them), and
    every query runs on that copy — one consistent scan even if a file changes.
    """

    def __init__(self, source: Any, *, connection: Any = None, delimiter: str | None = None):
        import duckdb

        self._duckdb = duckdb
        self._own = connection is None
        self._files: list[str] | None = None
        self._loaded: set[str] | None = None
        self._view: str | None = None
        self._snapshot: str | None = None
        self.row_index: str | None = None  # SQL expression of the file-order row index (load(row_index=True))
        self._ordered = not isinstance(source, duckdb.DuckDBPyRelation)  # rows have an order (files, frames)
        # a lazy frame other than a relation (a polars LazyFrame) runs its plan at every query: copied once
        self._copied = self._ordered and is_lazy(as_narwhals(source, keep_lazy=True))
        if isinstance(source, duckdb.DuckDBPyRelation) and connection is None:
            # a relation lives in the connection that made it, which it does not expose: without
            # that connection its rows are read once into Arrow (its view in a new connection
            # would not exist: "Table bc_source_… does not exist")
            source = source.to_arrow_table()
        if isinstance(source, (str, os.PathLike, list, tuple)):
            self._files = _paths(source)
            remote = [p for p in self._files if is_remote(p)]
            if remote and self._own:
                raise InvalidInputError(
                    f"{remote[0]} is a remote path: engine 'duckdb' never downloads DuckDB extensions; "
                    "pass connection= a duckdb connection of your own with httpfs (and credentials) loaded"
                )
            first = self._files[0]
            self._parquet = first.lower().endswith(PARQUET_SUFFIXES) or os.path.isdir(first)
            if not self._parquet and not first.lower().endswith(CSV_SUFFIXES):
                raise InvalidInputError(
                    f"cannot tell the format of {first!r}: use a .parquet or .csv (.tsv, .txt) file name or pattern"
                )
            self._delimiter = csv_delimiter(first, delimiter)
        self.con = connection if connection is not None else duckdb.connect()
        if self._own:
            self.con.execute("SET preserve_insertion_order = false")
            self.con.execute("SET autoinstall_known_extensions = false")
            self.con.execute("SET autoload_known_extensions = false")
            self._limit_memory()
        if self._files is not None:
            self.relation = self._reader()
        else:
            name = f"bc_source_{uuid.uuid4().hex}"
            if isinstance(source, duckdb.DuckDBPyRelation):
                source.create_view(name)
            else:
                self._register(name, source)
            self._view = name
            self.relation = self.quote(name)

    def _register(self, name: str, source: Any) -> None:
        """``source`` as the view ``name``: what DuckDB scans itself (pandas, polars, Arrow, a polars
        LazyFrame: each query's projection and filters pushed into its plan) in place; another
        eager table of a library narwhals knows (modin, cuDF …) read into Arrow; a lazy frame
        DuckDB cannot scan refused in one line naming the engine that reads it."""
        if is_spark_dataframe(source):  # DuckDB would read it through Arrow, all of it, on the driver
            raise InvalidInputError("engine 'duckdb' cannot scan a Spark DataFrame where it lives: engine='spark' "
                                    "aggregates it in Spark")
        try:
            self.con.register(name, source)
            return
        except self._duckdb.InvalidInputException as exc:
            error = exc
        frame = as_narwhals(source, keep_lazy=True)
        if frame is None or not hasattr(frame, "collect_schema"):
            raise InvalidInputError(f"engine 'duckdb' reads files, data frames and lazy frames, got a "
                                    f"{type(source).__name__}") from error
        if is_lazy(frame):
            raise InvalidInputError(
                f"engine 'duckdb' cannot scan a {frame.implementation.name.lower()} lazy frame "
                f"({type(source).__name__}) where it lives: engine='memory' reads its needed columns into memory"
            ) from error
        self.con.register(name, frame.to_arrow())

    def _limit_memory(self) -> None:
        """DuckDB's memory limit (80% of the machine's RAM by default) lowered to half the memory
        available to the process (:func:`~.files.available_memory`: a container's limit and
        ``ulimit -v`` included), so that DuckDB spills or says "Out of Memory" (exit 3) instead
        of the process being killed or aborted by an allocation that failed in DuckDB's threads."""
        available = available_memory()
        if available is not None:
            self.con.execute(f"SET memory_limit = '{max(available // 2, 64 << 20)}B'")

    def _reader(self, types: dict[str, str] | None = None, sniff: bool = True) -> str:
        """The ``read_csv`` / ``read_parquet`` call of the files."""
        assert self._files is not None
        names = [escape_glob(p, "duckdb") for p in self._files]
        if self._parquet and os.path.isdir(self._files[0]):
            names = [os.path.join(names[0], "**", "*.parquet")]
        arg = _sql_string(names[0]) if len(names) == 1 else "[" + ", ".join(map(_sql_string, names)) + "]"
        if self._parquet:
            return f"read_parquet({arg})"
        options = (f"header = true, delim = {_sql_string(self._delimiter)}, quote = '\"', escape = '\"', "
                   f"nullstr = '', auto_type_candidates = {_CSV_TYPES}, sample_size = {-1 if sniff else 2048}, "
                   f"max_line_size = {MAX_BLOCK_SIZE}")  # a cell of megabytes is read, as pyarrow reads it
        if types:
            options += ", types = {" + ", ".join(f"{_sql_string(c)}: {_sql_string(t)}" for c, t in types.items()) + "}"
        return f"read_csv({arg}, {options})"

    #: the integer division operator of the dialect
    integer_division = "//"

    def load(self, columns: list[str], numeric: Sequence[str] = (), row_index: bool = False) -> None:
        """Copy ``columns`` of the files into a temporary table, typed from every row.

        Checks that they exist, that no quote of a local CSV file is left open, that its
        columns read are UTF-8 (:func:`.files.check_utf8`: the line of every engine, where
        DuckDB's own names no column), and that the ``numeric`` ones hold numbers (else
        the error names the line).
        In-memory tables are only checked; a polars LazyFrame has its needed columns copied
        (its plan, with the projection pushed into it, runs once instead of at every query).
        Called once; later calls check the columns.
        ``row_index``: the copy keeps the file order (files in sorted order, as the glob
        expands them), so that :attr:`row_index` — the table's ``rowid`` — is each row's
        position 0 … n−1 in the files; a DataFrame or Arrow table is copied in its row
        order for it (a DuckDB relation has no row order).
        """
        self._check_row_order(row_index)
        if self._files is not None and self._loaded is None and not self._parquet:
            self._check_csv_files(self._files, columns)
        self._check_columns_exist(columns)
        if self._loaded is not None or (self._files is None and not row_index and not self._copied):
            return
        self._copy_columns(columns, row_index)
        if self._files is not None and not self._parquet:
            self._type_booleans()
            self._check_numbers(numeric)

    def _check_row_order(self, row_index: bool) -> None:
        """Refuses row indices of a source without a row order (a DuckDB relation)."""
        if row_index and (not self._ordered or (self._loaded is not None and self.row_index is None)):
            raise InvalidInputError(
                "row indices need files or a data frame (a DuckDB relation has no row order): "
                "use engine='memory' or write the relation to a file"
            )

    def _check_csv_files(self, files: list[str], columns: list[str]) -> None:
        """Checks the local CSV ``files``: no quote left open, unique and UTF-8 ``columns``."""
        for path in local_files(files):
            check_quotes(path, path, self._delimiter)
            check_unique_columns(path, path, self._delimiter, columns)
            check_utf8(path, path, self._delimiter, columns)

    def _check_columns_exist(self, columns: list[str]) -> None:
        """Refuses a column not among the source's, naming those available."""
        if self._loaded is not None:
            available = sorted(self._loaded)
        elif self._files is not None:
            available = self._header()
        else:
            available = list(self.column_kinds())
        missing = [c for c in columns if c not in available]
        if missing:
            hint = "" if self._files is None or self._parquet else delimiter_hint(available, self._delimiter)
            where = f" in {self._files[0]}" if self._files else ""
            raise InvalidInputError(f"column {missing[0]!r} not found{where}; available columns: {available}{hint}")

    def _copy_columns(self, columns: list[str], row_index: bool) -> None:
        """Copies ``columns`` into a temporary table (in the scan order with ``row_index``), the relation read after."""
        table = f"bc_snapshot_{uuid.uuid4().hex}"
        cols = ", ".join(self.quote(c) for c in dict.fromkeys(columns))
        scan = self._reader() if self._files is not None else self.relation
        create = f"CREATE TEMP TABLE {self.quote(table)} AS SELECT {cols} FROM {scan}"
        if row_index:  # rowid follows the scan order only when DuckDB preserves insertion order
            previous = self._execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]
            self._execute("SET preserve_insertion_order = true")
            try:
                self._execute(create)
            finally:
                self._execute(f"SET preserve_insertion_order = {'true' if previous else 'false'}")
            self.row_index = "rowid"
        else:
            self._execute(create)
        self.relation = self.quote(table)
        self._snapshot = table
        self._loaded = set(columns)

    def _check_numbers(self, numeric: Sequence[str]) -> None:
        """Reads the ``numeric`` columns typed as text as numbers, for DuckDB's error naming the
        line of the first non-number."""
        kinds = self.column_kinds()
        text = {c: "DOUBLE" for c in numeric if kinds.get(c) not in ("float", "int")}
        if text:  # read them as numbers, for DuckDB's error naming the line of the first non-number
            self._execute(f"SELECT {', '.join(f'COUNT({self.quote(c)})' for c in text)} FROM {self._reader(text)}")


    def _header(self) -> list[str]:
        """The column names of the files (a short sniff: the header is enough)."""
        rows = self._execute(f"DESCRIBE SELECT * FROM {self._reader(sniff=False)}").fetchall()
        return [str(r[0]) for r in rows]

    def _type_booleans(self) -> None:
        """Text columns holding only pyarrow's spellings of true / false become BOOLEAN (as in pyarrow)."""
        text = [c for c, k in self.column_kinds().items() if k == "string"]
        if not text:
            return
        spellings = ", ".join(map(_sql_string, _TRUE + _FALSE))
        checks = ", ".join(
            f"COUNT({self.quote(c)}) > 0 AND COUNT(*) FILTER (WHERE {self.quote(c)} NOT IN ({spellings})) = 0"
            for c in text
        )
        flags = self._execute(f"SELECT {checks} FROM {self.relation}").fetchall()[0]
        for c, flag in zip(text, flags):
            if flag:
                self._execute(
                    f"ALTER TABLE {self.relation} ALTER {self.quote(c)} SET DATA TYPE BOOLEAN "
                    f"USING ({self.quote(c)} IN ({', '.join(map(_sql_string, _TRUE))}))"
                )

    @property
    def files(self) -> list[str] | None:
        """The paths read (None: a table in memory)."""
        return self._files

    def quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def _execute(self, sql: str, arrow: bool = False) -> Any:
        try:
            if not arrow:
                return self.con.execute(sql)
            rel = self.con.sql(sql)
            return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
        except self._duckdb.OutOfMemoryException as exc:  # exhausted, not bad input: exit 3 (cli)
            raise MemoryError(f"DuckDB: {' '.join(str(exc).split())[:300]}") from exc
        except self._duckdb.IOException as exc:
            raise InvalidInputError(f"cannot read the input: {' '.join(str(exc).split())}") from exc
        except self._duckdb.ConversionException as exc:
            raise InvalidInputError(_conversion_error(str(exc))) from exc
        except self._duckdb.Error as exc:
            csv_error = _csv_error(str(exc), self._files)
            if csv_error:
                raise InvalidInputError(csv_error) from exc
            raise InvalidInputError(f"DuckDB could not evaluate the input: {' '.join(str(exc).split())[:400]}") from exc

    def materialize(self, sql: str) -> str:
        """A temporary table of the rows of ``sql`` (dropped with the connection); its quoted name."""
        name = self.quote(f"bc_rows_{uuid.uuid4().hex}")
        self._execute(f"CREATE TEMP TABLE {name} AS {sql}")
        return name

    def rows_of(self, sql: str, columns: list[str], row_index: str) -> "DuckDBRunner":
        """A runner over the rows of ``sql`` on this connection, its ``columns`` already read
        and typed here, whose rows are numbered by the column ``row_index`` (a group of
        :mod:`.groups`)."""
        runner = DuckDBRunner(self.con.sql(sql), connection=self.con)
        runner._ordered, runner._loaded, runner.row_index = True, set(columns), row_index
        return runner

    def column_kinds(self) -> dict[str, str]:
        """Column name -> float | int | bool | string | other (of files: once read, see :meth:`load`)."""
        if self._files is not None and self._loaded is None:
            self.load(self._header())
        rows = self._execute(f"DESCRIBE SELECT * FROM {self.relation}").fetchall()
        return {str(r[0]): _kind(str(r[1])) for r in rows}

    def run(self, sql: str) -> dict[str, np.ndarray]:
        table = self._execute(sql, arrow=True)
        return {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}

    def close(self) -> None:
        if self._snapshot is not None and not self._own:
            self.con.execute(f"DROP TABLE IF EXISTS {self.quote(self._snapshot)}")
        if self._view is not None:
            try:
                self.con.unregister(self._view)
            except Exception:  # pragma: no cover - a relation view
                self.con.execute(f"DROP VIEW IF EXISTS {self.quote(self._view)}")
        if self._own:
            self.con.close()


def _conversion_error(message: str) -> str:
    """DuckDB's multi-line CSV conversion error as one line naming the line, column and value."""
    text = " ".join(message.split())
    line = re.search(r"CSV Error on Line: (\d+)", text)
    value = re.search(r'converting column "(.*?)"\. Could not convert string "(.*?)" to \'(\w+)\'', text)
    file = re.search(r"file = (\S+)", text)
    if line and value:
        where = f"{file.group(1)}: " if file else ""
        return (f"{where}column {value.group(1)!r} must be numeric ({value.group(3)}); line {line.group(1)} "
                f"holds {value.group(2)[:60]!r}")
    return f"DuckDB could not convert a value: {text[:300]}"


def duckdb_statistics(source: Any, *, connection: Any = None, delimiter: str | None = None, **kwargs: Any):
    """``beyondchance.engines.compute_statistics`` with ``engine="duckdb"``."""
    from .sql import sql_statistics

    runner = DuckDBRunner(source, connection=connection, delimiter=delimiter)
    try:
        return sql_statistics(runner, **kwargs)
    finally:
        runner.close()


class DuckDBEngine(SQLEngine):
    """The runner of the duckdb engine (:mod:`.runner`): the shared SQL in an embedded DuckDB."""

    name = "duckdb"
    reads_directories = False  # a directory is not read: the command line asks for a glob pattern

    def connect(self, source: Any, *, session: Any = None, connection: Any = None,
                delimiter: str | None = None) -> DuckDBRunner:
        return DuckDBRunner(source, connection=connection, delimiter=delimiter)


RUNNER = DuckDBEngine()
