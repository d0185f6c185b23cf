"""The Apache Spark engine: the shared SQL runs in Spark; only the statistics come back.

Needs the optional dependency ``pyspark`` (``pip install beyondchance[spark]``) and a
Java runtime.  The source is a ``pyspark.sql.DataFrame`` (its session runs the
queries) or a path read by Spark (Parquet, or CSV with a header row) in the active
session — ``SparkSession.builder.getOrCreate()``, i.e. whatever master the
environment (``spark-submit``, ``PYSPARK_SUBMIT_ARGS``, a cluster's defaults)
configures.
"""

from __future__ import annotations

import os
import re
import uuid
from typing import Any, Sequence

import numpy as np

from .._warnings import InvalidInputError
from .files import (
    CSV_SUFFIXES, check_quotes, check_unique_columns, check_utf8, csv_delimiter, escape_glob, is_glob, is_remote,
    local_files as _local_files, not_utf8_message,
)
from .sql_engine import SQLEngine

__all__ = ["SparkRunner", "SparkEngine", "spark_statistics", "is_spark_dataframe", "spark_session", "RUNNER"]


#: the timestamps Spark's CSV reader infers: ISO dates with a time ('T' or a space, seconds
#: and fractions optional, an offset), as DuckDB and pyarrow infer them.  Spark's own default
#: also reads "2024-02" as 2024-02-01 00:00:00, so that ``--by month`` named the groups
#: unlike the other engines; with this pattern such a column stays text, as elsewhere.
CSV_TIMESTAMPS = "yyyy-MM-dd[['T'][ ]HH:mm[:ss][.SSSSSS][.SSS][.S]][XXX]"


def is_spark_dataframe(obj: Any) -> bool:
    """True for a ``pyspark.sql.DataFrame`` (classic or Connect), without importing pyspark."""
    mod = type(obj).__module__
    return mod.startswith("pyspark.sql") and type(obj).__name__ == "DataFrame"


def quote_identifier(name: str) -> str:
    """A column or view name as Spark SQL reads it literally: in backticks, each backtick
    inside doubled (dots, spaces and quotes need nothing more).

    >>> quote_identifier("a`b.c")
    '`a``b.c`'
    """
    return "`" + name.replace("`", "``") + "`"


def _column(name: str) -> Any:
    """The DataFrame column of that exact name (``df[name]`` and ``select(name)`` parse the
    name: a dot reads as a field, a backtick is a syntax error)."""
    from pyspark.sql import functions as F

    return F.col(quote_identifier(name))


def _import_pyspark() -> Any:
    try:
        import pyspark.sql  # noqa: F401
    except ImportError as exc:
        raise InvalidInputError(
            "engine='spark' needs pyspark: pip install 'beyondchance[spark]' (and a Java runtime)"
        ) from exc
    return pyspark.sql


def _kind(dtype: Any) -> str:
    name = type(dtype).__name__
    if name in ("DoubleType", "FloatType", "DecimalType"):
        return "float"
    if name in ("ByteType", "ShortType", "IntegerType", "LongType"):
        return "int"
    if name == "BooleanType":
        return "bool"
    if name in ("StringType", "VarcharType", "CharType"):
        return "string"
    return "other"


class SparkRunner:
    """Runs the shared SQL on Spark over a DataFrame or a path (temporary view).

    Paths are read by the CSV rules of :mod:`._files` (``multiLine`` and ``escape='"'``
    for RFC 4180, types inferred from every row, ``FAILFAST``); a local file whose
    name holds ``[ ]`` is read as that file.  :meth:`load` keeps the needed columns
    (``localCheckpoint``), so that every query of a call sees the same rows.

    Columns are named by their exact names (:func:`quote_identifier`: backticks, dots,
    spaces and quotes as the other engines read them).  Text read is UTF-8 as on the other
    engines, in their line (:func:`.files.not_utf8_message`): the bytes of local CSV files
    are checked before Spark reads them (:func:`.files.check_utf8`, where Spark would put
    U+FFFD); a remote CSV file's U+FFFD read is refused (:meth:`_remote_not_utf8`); Parquet
    strings, UTF-8 by the format's rule, are checked as read (:meth:`_parquet_not_utf8`).
    A DataFrame's strings are Spark's own and not checked.
    """

    def __init__(self, source: Any, *, spark: Any = None, delimiter: str | None = None):
        sql = _import_pyspark()
        self._paths: list[str] | None = None
        self._csv = False
        if is_spark_dataframe(source):
            df = source
            self.spark = df.sparkSession
        else:
            if not isinstance(source, (str, os.PathLike, list, tuple)):
                raise InvalidInputError(
                    f"engine='spark' takes a pyspark DataFrame or a path, got {type(source).__name__}"
                )
            self.spark = spark if spark is not None else sql.SparkSession.builder.getOrCreate()
            paths = [os.fspath(p) for p in source] if isinstance(source, (list, tuple)) else [os.fspath(source)]
            self._csv = paths[0].lower().endswith(CSV_SUFFIXES)
            self._delimiter = csv_delimiter(paths[0], delimiter)
            self._paths = paths
            deep = next((p for p in paths if "**" in p and is_glob(p)), None)
            if deep is not None:  # Hadoop's globs read ** as *, DuckDB's and Python's recurse
                raise InvalidInputError(f"{deep!r}: Spark's glob patterns do not recurse into folders with **; "
                                        "name the levels (data/*/*.csv) or pass a DataFrame")
            names = [escape_glob(p, "hadoop") for p in paths]
            try:
                if self._csv:
                    df = self.spark.read.csv(names, header=True, inferSchema=True, sep=self._delimiter, quote='"',
                                             escape='"', multiLine=True, mode="FAILFAST", nullValue="",
                                             timestampFormat=CSV_TIMESTAMPS)
                else:
                    df = self.spark.read.parquet(*names)
            except Exception as exc:
                raise InvalidInputError(f"Spark cannot read {paths[0]!r}: {_one_line(exc)}") from exc
            self._read = df  # the file scan, with its hidden _metadata column
            df = _as_pyarrow_types(df, self._csv)
        self.df = df
        self.row_index: str | None = None  # SQL expression of the file-order row index (load(row_index=True))
        self._loaded = False
        self.view = f"bc_source_{uuid.uuid4().hex}"
        self._views: list[str] = [self.view]
        df.createOrReplaceTempView(self.view)
        self.relation = self.quote(self.view)

    @property
    def files(self) -> list[str] | None:
        """The paths read (None: a DataFrame)."""
        return self._paths

    def quote(self, name: str) -> str:
        return quote_identifier(name)

    #: the integer division operator of the dialect
    integer_division = "div"

    def load(self, columns: list[str], numeric: Sequence[str] = (), row_index: bool = False) -> None:
        """Check the columns; for paths, keep them (one scan; a local CSV's quotes checked first).

        ``row_index``: also keep each row's position 0 … n−1 (:attr:`row_index`): in
        the files, taken in sorted path order (Parquet: ``_metadata.row_index``; CSV,
        never split as it is read with ``multiLine``: the file's rows in scan order), or
        in the DataFrame's order (``zipWithIndex``).
        """
        if row_index and self._loaded and self.row_index is None:
            raise InvalidInputError("row indices must be requested by the first load of a Spark runner")
        if not self._loaded and self._csv:
            self._check_csv_files(columns)
        kinds = self.column_kinds()
        self._check_columns(columns, kinds)
        self._check_numeric(numeric, kinds)
        if self._loaded or (self._paths is None and not row_index):
            return
        not_utf8 = self._keep_columns(columns, kinds, row_index)
        if not_utf8:
            raise InvalidInputError(not_utf8)
        self.df.createOrReplaceTempView(self.view)
        self._loaded = True

    def _check_csv_files(self, columns: list[str]) -> None:
        """Checks the local CSV files: no quote left open, unique and UTF-8 ``columns``."""
        assert self._paths is not None  # a CSV source is paths
        for path in _local_files(self._paths):
            check_quotes(path, path, self._delimiter)
            check_unique_columns(path, path, self._delimiter, columns)
            check_utf8(path, path, self._delimiter, columns)

    def _check_columns(self, columns: list[str], kinds: dict[str, str]) -> None:
        """Refuses a missing column, or one holding nested values."""
        missing = [c for c in columns if c not in kinds]
        if missing:
            raise InvalidInputError(f"column {missing[0]!r} not found; available columns: {list(kinds)}")
        for c in dict.fromkeys(columns):
            dtype = self.df.schema[c].dataType
            if type(dtype).__name__ in ("ArrayType", "StructType", "MapType"):
                raise InvalidInputError(f"column {c!r} holds nested values ({dtype.simpleString()[:80]}): a label, "
                                        "score or weight column holds one plain value per row")

    def _check_numeric(self, numeric: Sequence[str], kinds: dict[str, str]) -> None:
        """Refuses a ``numeric`` column that is not numeric, naming a value that is not a number."""
        for c in numeric:
            if kinds[c] not in ("float", "int"):
                bad = self.df.filter(f"{self.quote(c)} IS NOT NULL AND try_cast({self.quote(c)} AS DOUBLE) IS NULL")
                example = [r[0] for r in bad.select(_column(c)).limit(1).collect()]
                raise InvalidInputError(
                    f"column {c!r} must be numeric; it holds {str(example[0])[:60]!r}" if example
                    else f"column {c!r} must be numeric, it is {kinds[c]}"
                )

    def _keep_columns(self, columns: list[str], kinds: dict[str, str], row_index: bool) -> str:
        """Keeps ``columns`` (with the rows' index when asked) in a checkpointed DataFrame; the
        error of text columns that are not UTF-8, else ''."""
        not_utf8 = ""
        try:
            if row_index:
                self.df = _with_row_index(self._read if self._paths else self.df, columns, self._paths is not None,
                                          not self._csv)
                self.row_index = self.quote(_ROW)
            else:
                self.df = self.df.select(*[_column(c) for c in dict.fromkeys(columns)])
            self.df = self.df.localCheckpoint(eager=True)
            text = [c for c in dict.fromkeys(columns) if kinds[c] == "string"]
            if self._csv:
                not_utf8 = self._remote_not_utf8(text)
                self.df = _infinities_as_numbers(self.df, text)
            elif self._paths is not None:
                not_utf8 = self._parquet_not_utf8(text)
        except Exception as exc:
            # kept as is: with a DataFrame source (no paths) this line raises a TypeError (a known gap)
            raise InvalidInputError(f"Spark cannot read {self._paths[0]!r}: {_one_line(exc)}") from exc  # type: ignore[index]
        return not_utf8


    def _remote_not_utf8(self, text: list[str]) -> str:
        """The error for remote CSV files whose text columns read hold U+FFFD, else ''.

        Local files are checked byte by byte before Spark reads them (:func:`.files.check_utf8`:
        the line of every engine); the bytes of a remote file are Spark's to read, and its
        reader puts U+FFFD for bytes that are not UTF-8, so a U+FFFD read is refused (a
        genuine U+FFFD in the file is refused too: from here the two look the same).
        """
        assert self._paths is not None  # a CSV source is paths
        remote = next((p for p in self._paths if is_remote(p)), None)
        if remote is None:
            return ""
        found = _first_replacement(self.df, text)
        return "" if found is None else _replacement_message(*found, remote)

    def _parquet_not_utf8(self, text: list[str]) -> str:
        """The line of every engine (:func:`.files.not_utf8_message`) for Parquet files whose
        text columns read hold bytes that are not UTF-8, else ''.

        Parquet strings are UTF-8 by the format's rule, which Spark's reader does not check:
        a writer that broke it gave labels that end in an error of pyarrow's conversion.  One
        aggregate over the columns kept (``is_valid_utf8``, Spark 4 and later; earlier
        versions are not checked); only when it finds such a value is the file scan read
        again for its file and row (``_metadata``), the first in the files' sorted order.
        """
        from pyspark.sql import functions as F

        if not text or not hasattr(F, "is_valid_utf8"):
            return ""
        counts = self.df.agg(*[F.count_if(~F.is_valid_utf8(_column(c))) for c in text]).first()
        column = next((c for c, n in zip(text, counts) if n), None)
        if column is None:
            return ""
        first = (self._read.filter(~F.is_valid_utf8(_column(column)))
                 .select(_column(column).cast("binary"), F.col("_metadata.file_path"), F.col("_metadata.row_index"))
                 .orderBy("file_path", "row_index").first())
        return not_utf8_message(column, self._file_name(first[1]), first[2] + 1, bytes(first[0]))

    def _file_name(self, uri: str) -> str:
        """The name of a file the scan read (a URI), as the paths given name it (a glob's
        match as the glob expands); else its local path, or the URI of a remote file."""
        from urllib.parse import unquote, urlparse

        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return uri
        path = unquote(parsed.path)
        assert self._paths is not None  # files were read: the source is paths
        return next((p for p in _local_files(self._paths) if os.path.abspath(p) == path), path)

    def materialize(self, sql: str) -> str:
        """A checkpointed temporary view of the rows of ``sql``; its quoted name."""
        name = f"bc_rows_{uuid.uuid4().hex}"
        try:
            self.spark.sql(sql).localCheckpoint(eager=True).createOrReplaceTempView(name)
        except Exception as exc:
            raise InvalidInputError(f"Spark could not evaluate the input: {_one_line(exc)}") from exc
        self._views.append(name)
        return self.quote(name)

    def rows_of(self, sql: str, columns: list[str], row_index: str) -> "SparkRunner":
        """A runner over the rows of ``sql`` in this session, its ``columns`` already read and
        typed here, whose rows are numbered by the column ``row_index`` (a group of :mod:`.groups`)."""
        runner = SparkRunner(self.spark.sql(sql))
        runner._loaded, runner.row_index = True, row_index
        return runner

    def column_kinds(self) -> dict[str, str]:
        return {f.name: _kind(f.dataType) for f in self.df.schema.fields}

    def run(self, sql: str) -> dict[str, np.ndarray]:
        try:
            result = self.spark.sql(sql)
            if hasattr(result, "toArrow"):
                table = result.toArrow()
                return {n: table.column(n).to_numpy(zero_copy_only=False) for n in table.column_names}
            rows = result.collect()
        except Exception as exc:
            raise InvalidInputError(f"Spark could not evaluate the input: {_one_line(exc)}") from exc
        names = result.columns
        return {n: np.array([row[i] for row in rows], dtype=object if rows and isinstance(rows[0][i], str) else None)
                for i, n in enumerate(names)}

    def close(self) -> None:
        for view in self._views:
            try:
                self.spark.catalog.dropTempView(view)
            except Exception:  # pragma: no cover - session already stopped
                pass


_ROW = "__bc_row_index"


def _with_row_index(df: Any, columns: list[str], files: bool, parquet: bool) -> Any:
    """``columns`` (typed as pyarrow types them) and their file-order row index, column ``_ROW``.

    A file scan: row = offset of its file (files in sorted path order) + row in its
    file; any other DataFrame: ``zipWithIndex`` (partition order, then row order).
    """
    from pyspark.sql import Window, functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    names = list(dict.fromkeys(columns))
    if not files:
        kept = df.select(*map(_column, names))
        indexed = kept.rdd.zipWithIndex().map(lambda r: (*r[0], r[1]))
        schema = StructType([*kept.schema.fields, StructField(_ROW, LongType(), False)])
        return df.sparkSession.createDataFrame(indexed, schema)
    with_file = df.select("*", F.col("_metadata.file_path").alias("__bc_file"))
    if parquet:
        with_file = with_file.withColumn("__bc_in_file", F.col("_metadata.row_index"))
    else:  # a multiLine CSV file is one split: its rows are consecutive in zipWithIndex's order
        schema = StructType([*with_file.schema.fields, StructField("__bc_seq", LongType(), False)])
        seq = with_file.rdd.zipWithIndex().map(lambda r: (*r[0], r[1]))
        with_file = df.sparkSession.createDataFrame(seq, schema)
        first = F.min("__bc_seq").over(Window.partitionBy("__bc_file"))
        with_file = with_file.withColumn("__bc_in_file", F.col("__bc_seq") - first)
    counts = sorted((r[0], r[1]) for r in with_file.groupBy("__bc_file").count().collect())
    offsets, total = [], 0
    for name, n in counts:
        offsets.append((name, total))
        total += n
    table = df.sparkSession.createDataFrame(offsets, "__bc_file string, __bc_offset long")
    joined = with_file.join(F.broadcast(table), "__bc_file")
    row = (F.col("__bc_offset") + F.col("__bc_in_file")).alias(_ROW)
    return _as_pyarrow_types(joined.select(*map(_column, names), row), not parquet)


def _one_line(exc: BaseException) -> str:
    """What went wrong, from a Spark error: its innermost ``[ERROR_CLASS] message``, not the JVM stack."""
    text = str(exc)
    classes = re.findall(r"\[[A-Z][A-Z0-9_.]+\][^\n]*", text)
    return " ".join((classes[-1] if classes else text).split())[:300]


#: the character Spark's CSV reader puts for bytes that are not UTF-8
REPLACEMENT = "\ufffd"


def _first_replacement(df: Any, names: list[str]) -> tuple[str, str] | None:
    """(column, value) of the first of the text columns ``names`` holding U+FFFD, else None:
    one scan of the columns kept (the check of remote files, whose bytes are not read here)."""
    from pyspark.sql import functions as F

    if not names:
        return None
    found = df.agg(*[F.first(F.when(F.instr(_column(c), REPLACEMENT) > 0, _column(c)), ignorenulls=True)
                     for c in names]).first()
    return next(((c, value) for c, value in zip(names, found) if value is not None), None)


def _replacement_message(column: str, value: str, name: str) -> str:
    """The line for a remote CSV file whose column read holds U+FFFD (its bytes, not UTF-8
    or a genuine U+FFFD, cannot be told apart from here)."""
    shown = value if len(value) <= 40 else value[:37] + "..."
    return (f"column {column!r} of {name} is not UTF-8 text: it holds {shown!r} with U+FFFD, the character Spark "
            "reads for bytes that are not UTF-8; save the file as UTF-8 (a U+FFFD really in the file: the "
            "duckdb engine reads it, checking the bytes)")


def _as_pyarrow_types(df: Any, csv: bool = False) -> Any:
    """Columns typed as pyarrow types them: decimals (integers beyond 64 bits) as double,
    dates and timestamps as their text; of a CSV file, integers as 64-bit integers (Spark
    infers 32 bits where they fit; pyarrow and DuckDB 64: the saved classes' type)."""
    out = []
    for f in df.schema.fields:
        name = type(f.dataType).__name__
        col = _column(f.name)
        if name == "DecimalType":
            col = col.cast("double")
        elif name in ("DateType", "TimestampType", "TimestampNTZType"):
            col = col.cast("string")
        elif csv and name == "IntegerType":
            col = col.cast("long")
        out.append(col.alias(f.name))
    return df.select(*out)


def _infinities_as_numbers(df: Any, names: list[str]) -> Any:
    """CSV text columns whose every value is a number as double: Spark's CSV reader types a
    column holding ``inf``, ``-inf`` or ``Infinity`` as text, where pyarrow and DuckDB read
    numbers (so that an infinite label is refused alike, not taken as the class 'inf')."""
    from pyspark.sql import functions as F

    if not names:
        return df
    quoted = {c: quote_identifier(c) for c in names}
    cast = {c: F.expr(f"try_cast({quoted[c]} AS DOUBLE)") for c in names}
    flags = df.agg(*[(F.count(F.expr(quoted[c])) > 0)
                     & (F.count(F.when(F.expr(quoted[c]).isNotNull() & cast[c].isNull(), 1)) == 0)
                     for c in names]).first()
    numbers = {c: cast[c] for c, flag in zip(names, flags) if flag}
    return df.withColumns(numbers) if numbers else df


def spark_statistics(source: Any, *, spark: Any = None, delimiter: str | None = None, **kwargs: Any):
    """``beyondchance.engines.compute_statistics`` with ``engine="spark"``."""
    from .sql import sql_statistics

    runner = SparkRunner(source, spark=spark, delimiter=delimiter)
    try:
        return sql_statistics(runner, **kwargs)
    finally:
        runner.close()


def spark_session(master: str) -> Any:
    """A local (or given) SparkSession, quiet (the session of ``--engine spark``).

    A JVM started here inherits a standard error that goes to a discarded temporary
    file, so that its start-up lines (log4j profile, host name, native-library
    warnings) never stand before the one line of an error; a session that is
    already active is reused as it is.
    """
    import sys
    import tempfile
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pyspark on a newer pandas than it knows
        sql = _import_pyspark()
        builder = (sql.SparkSession.builder.master(master).appName("beyondchance")
                   .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false"))
        sys.stderr.flush()
        saved = os.dup(2)
        with tempfile.TemporaryFile() as jvm_stderr:
            os.dup2(jvm_stderr.fileno(), 2)
            try:
                spark = builder.getOrCreate()
            except Exception as exc:
                message = " ".join(str(exc).split())[:300]
                raise InvalidInputError(f"cannot start Spark (master {master}): {message}") from exc
            finally:
                os.dup2(saved, 2)
                os.close(saved)
    spark.sparkContext.setLogLevel("OFF")  # a failed task logs its stack; the error is one line
    return spark


class SparkEngine(SQLEngine):
    """The runner of the spark engine (:mod:`.runner`): the shared SQL in a Spark session."""

    name = "spark"

    def connect(self, source: Any, *, session: Any = None, connection: Any = None,
                delimiter: str | None = None) -> SparkRunner:
        return SparkRunner(source, spark=session, delimiter=delimiter)

    def session(self, options: Any) -> Any:
        """The session of the command line's ``--spark-master``."""
        return spark_session(options["spark_master"])


RUNNER = SparkEngine()
