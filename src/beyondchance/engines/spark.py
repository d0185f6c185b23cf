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
import uuid
from typing import Any

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["SparkRunner", "spark_statistics", "is_spark_dataframe"]


def is_spark_dataframe(obj: Any) -> bool:
    """True for a ``pyspark.sql.DataFrame`` (classic or Connect), without importing pyspark."""
    mod = type(obj).__module__
    return mod.startswith("pyspark.sql") and type(obj).__name__ == "DataFrame"


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
    """Runs the shared SQL on Spark over a DataFrame or a path (temporary view)."""

    def __init__(self, source: Any, *, spark: Any = None):
        sql = _import_pyspark()
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
            try:
                if paths[0].lower().endswith((".csv", ".tsv", ".txt", ".csv.gz")):
                    df = self.spark.read.csv(paths, header=True, inferSchema=True)
                else:
                    df = self.spark.read.parquet(*paths)
            except Exception as exc:
                raise InvalidInputError(f"Spark cannot read {paths[0]!r}: {' '.join(str(exc).split())[:300]}") from exc
        self.df = df
        self.view = f"bc_source_{uuid.uuid4().hex}"
        df.createOrReplaceTempView(self.view)
        self.relation = self.quote(self.view)

    def quote(self, name: str) -> str:
        return "`" + name.replace("`", "``") + "`"

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
            raise InvalidInputError(f"Spark could not evaluate the input: {' '.join(str(exc).split())[:300]}") from exc
        names = result.columns
        return {n: np.array([row[i] for row in rows], dtype=object if rows and isinstance(rows[0][i], str) else None)
                for i, n in enumerate(names)}

    def close(self) -> None:
        try:
            self.spark.catalog.dropTempView(self.view)
        except Exception:  # pragma: no cover - session already stopped
            pass


def spark_statistics(source: Any, *, spark: Any = None, **kwargs: Any):
    """:func:`beyondchance.compute_statistics` with ``engine="spark"``."""
    from .sql import sql_statistics

    runner = SparkRunner(source, spark=spark)
    try:
        return sql_statistics(runner, **kwargs)
    finally:
        runner.close()
