"""The DuckDB engine: CSV / Parquet files (glob patterns, larger than memory), no server.

DuckDB streams the files through the aggregation queries of :mod:`.sql` and spills
to disk when a ``GROUP BY`` outgrows memory; only the statistics come back to Python.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["DuckDBRunner", "duckdb_statistics"]

_PARQUET = (".parquet", ".pq", ".parq")
_CSV = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".csv.zst")


def _sql_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _kind(type_name: str) -> str:
    t = type_name.upper()
    if t.startswith(("DOUBLE", "FLOAT", "REAL", "DECIMAL", "NUMERIC")):
        return "float"
    if t in ("BOOLEAN", "BOOL"):
        return "bool"
    if t.startswith(("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                     "UINTEGER", "UBIGINT", "UHUGEINT", "INT")):
        return "int"
    if t.startswith(("VARCHAR", "STRING", "TEXT", "ENUM")):
        return "string"
    return "other"


def _file_relation(path: Any) -> str:
    paths = [os.fspath(p) for p in path] if isinstance(path, (list, tuple)) else [os.fspath(path)]
    if not paths:
        raise InvalidInputError("no input file given")
    lower = paths[0].lower()
    arg = _sql_string(paths[0]) if len(paths) == 1 else "[" + ", ".join(map(_sql_string, paths)) + "]"
    if lower.endswith(_PARQUET) or os.path.isdir(paths[0]):
        if os.path.isdir(paths[0]):
            arg = _sql_string(os.path.join(paths[0], "**", "*.parquet"))
        return f"read_parquet({arg})"
    if lower.endswith(_CSV):
        return f"read_csv({arg}, header = true)"
    raise InvalidInputError(
        f"cannot tell the format of {paths[0]!r}: use a .parquet or .csv (.tsv, .txt) file name or pattern"
    )


class DuckDBRunner:
    """Runs the shared SQL on DuckDB over a file, a glob, a list of files or an in-memory table.

    Parameters
    ----------
    source : a path, a glob pattern or a list of paths (Parquet or CSV, by extension;
        a directory is read as ``dir/**/*.parquet``), or a pandas / polars DataFrame,
        a pyarrow Table or a DuckDB relation
    connection : an open ``duckdb`` connection (its settings — memory_limit, threads,
        temp_directory — apply); default: a new in-memory connection
    """

    def __init__(self, source: Any, *, connection: Any = None):
        import duckdb

        self._duckdb = duckdb
        self.con = connection if connection is not None else duckdb.connect()
        self._own = connection is None
        if self._own:
            self.con.execute("SET preserve_insertion_order = false")
        self._view: str | None = None
        if isinstance(source, (str, os.PathLike, list, tuple)):
            self.relation = _file_relation(source)
            if self.relation.startswith("read_csv("):
                self._read_yes_no_as_text()
        else:
            name = f"bc_source_{uuid.uuid4().hex}"
            if isinstance(source, duckdb.DuckDBPyRelation):
                source.create_view(name)
            else:
                self.con.register(name, source)
            self._view = name
            self.relation = self.quote(name)

    def _read_yes_no_as_text(self) -> None:
        """Type CSV columns as pyarrow (the memory engine's reader) does.

        DuckDB's CSV sniffer reads ``yes``/``no`` (``y``/``n``, ``t``/``f``) as BOOLEAN;
        pyarrow only ``true``/``false``/``1``/``0``.  A BOOLEAN column holding any other
        spelling is re-read as text, so that every engine sees the same labels.
        """
        args = self.relation[len("read_csv("):-1]  # "<paths>, header = true"
        kinds = self._execute(f"DESCRIBE SELECT * FROM {self.relation}").fetchall()
        booleans = [str(col) for col, typ, *_ in kinds if str(typ).upper() == "BOOLEAN"]
        if not booleans:
            return
        raw = f"read_csv({args}, all_varchar = true)"
        spelled = ", ".join(
            f"COUNT(*) FILTER (WHERE {self.quote(c)} IS NOT NULL AND lower({self.quote(c)}) "
            "NOT IN ('1', '0', 'true', 'false'))"
            for c in booleans
        )
        counts = self._execute(f"SELECT {spelled} FROM {raw}").fetchall()[0]
        text = [c for c, k in zip(booleans, counts) if k]
        if text:
            types = "{" + ", ".join(f"{_sql_string(c)}: 'VARCHAR'" for c in text) + "}"
            self.relation = f"read_csv({args}, types = {types})"

    def quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def _execute(self, sql: str, arrow: bool = False) -> Any:
        try:
            if not arrow:
                return self.con.execute(sql)
            rel = self.con.sql(sql)
            return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
        except self._duckdb.IOException as exc:
            raise InvalidInputError(f"cannot read the input: {' '.join(str(exc).split())}") from exc
        except self._duckdb.Error as exc:
            raise InvalidInputError(f"DuckDB could not evaluate the input: {' '.join(str(exc).split())}") from exc

    def column_kinds(self) -> dict[str, str]:
        rows = self._execute(f"DESCRIBE SELECT * FROM {self.relation}").fetchall()
        return {str(r[0]): _kind(str(r[1])) for r in rows}

    def run(self, sql: str) -> dict[str, np.ndarray]:
        table = self._execute(sql, arrow=True)
        return {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}

    def close(self) -> None:
        if self._view is not None:
            try:
                self.con.unregister(self._view)
            except Exception:  # pragma: no cover - a relation view
                self.con.execute(f"DROP VIEW IF EXISTS {self.quote(self._view)}")
        if self._own:
            self.con.close()


def duckdb_statistics(source: Any, *, connection: Any = None, **kwargs: Any):
    """:func:`beyondchance.compute_statistics` with ``engine="duckdb"``."""
    from .sql import sql_statistics

    runner = DuckDBRunner(source, connection=connection)
    try:
        return sql_statistics(runner, **kwargs)
    finally:
        runner.close()
