r"""Engines: compute the sufficient statistics of :mod:`beyondchance.stats` from a source.

=========  ==============================================  =====================================
engine     sources                                         how
=========  ==============================================  =====================================
memory     numpy arrays; pandas / polars DataFrames,       numpy (one pass per statistic)
           pyarrow Tables, mappings of columns; files
           (read whole with pyarrow)
duckdb     CSV / Parquet files, glob patterns, lists of    the SQL of :mod:`.sql`, out of core,
           files, directories of Parquet; DataFrames /     embedded (no server)
           Arrow tables / DuckDB relations
spark      ``pyspark.sql.DataFrame``; paths read by Spark  the same SQL in Spark SQL; only the
                                                           statistics are collected
=========  ==============================================  =====================================

``engine="auto"`` picks memory for arrays and in-memory tables, duckdb for paths and
DuckDB relations, spark for Spark DataFrames.  Every engine returns the same
:class:`~beyondchance.stats.SufficientStatistics`: identical counts, sums equal to
rounding (the order of floating-point summation differs).
"""

from __future__ import annotations

import os
from typing import Any, Literal

from .._warnings import InvalidInputError
from ..stats import SufficientStatistics

__all__ = ["compute_statistics", "ENGINES", "detect_engine"]

ENGINES: tuple[str, ...] = ("memory", "duckdb", "spark")
Engine = Literal["auto", "memory", "duckdb", "spark"]


def detect_engine(source: Any) -> str:
    """The default engine of a source (see the module docstring)."""
    from .spark import is_spark_dataframe

    if source is None:
        return "memory"
    if isinstance(source, (str, os.PathLike)) or (
        isinstance(source, (list, tuple)) and source and all(isinstance(p, (str, os.PathLike)) for p in source)
    ):
        return "duckdb"
    if is_spark_dataframe(source):
        return "spark"
    if type(source).__module__.startswith("duckdb"):
        return "duckdb"
    return "memory"


def compute_statistics(
    source: Any = None,
    *,
    y_true: Any,
    y_score: Any = None,
    y_pred: Any = None,
    y_proba: Any = None,
    weight: Any = None,
    engine: Engine = "auto",
    task: str = "auto",
    statistics: Any = None,
    threshold: float = 0.5,
    pos_label: Any = None,
    labels: Any = None,
    score_bins: int | None = None,
    target_bin_width: float | None = None,
    pinball_alphas: Any = (),
    normalize: bool = False,
    connection: Any = None,
    spark: Any = None,
    delimiter: str | None = None,
) -> SufficientStatistics:
    r"""The sufficient statistics of predictions, computed by an engine.

    Parameters
    ----------
    source : None (then ``y_true`` … are arrays), an in-memory table (pandas / polars
        DataFrame, pyarrow Table, mapping of columns), a path / glob pattern / list of
        paths to CSV or Parquet files, a DuckDB relation or a Spark DataFrame
    y_true, y_score, y_pred, y_proba, weight : column names (with a ``source``) or
        arrays (without).  ``y_score``: score of the positive class (binary task);
        ``y_pred``: predicted labels or real predictions; ``y_proba``: a list of
        probability columns, one per class, in the order of ``labels`` (or of the
        sorted true labels); ``weight``: non-negative sample weights
    engine : ``"auto"``, ``"memory"``, ``"duckdb"`` or ``"spark"``
    task : ``"auto"`` (y_score → binary; y_proba → probabilities; y_pred →
        regression when y_true and y_pred are floating point, else labels), or
        ``"binary"``, ``"labels"``, ``"probabilities"``, ``"regression"``
    statistics : the statistics to compute, a subset of the task's
        (:data:`beyondchance.stats.STATISTICS`); default all
    threshold : binary: scores ≥ threshold are predicted positive (confusion matrix)
    pos_label : binary: the positive label (default 1 for labels {0, 1} or {-1, 1})
    labels : labels / probabilities: the class set, in order
    score_bins : binary: None for exact counts at every distinct score, or a number
        of bins per unit score (``floor(score · bins)``) for fixed-size counts with a
        stated AUC error bound (:class:`~beyondchance.stats.BinnedScoreCounts`)
    target_bin_width : regression: None for the exact value histogram, or a bin
        width (bounded absolute / pinball baselines)
    pinball_alphas : regression: quantile levels whose pinball losses are also summed
    normalize : probabilities: rescale rows that do not sum to 1
    connection : duckdb: an open connection to use (its memory_limit, threads …)
    spark : spark: the SparkSession to read a path with (default: the active one)
    delimiter : CSV files: the field delimiter (default: tab for ``.tsv``, else ``,``).
        Every engine reads CSV by the same rules (:mod:`beyondchance.engines._files`):
        RFC 4180 quotes, column types from every row, an empty cell is missing, an
        unclosed quote is an error naming its row; a path that exists is read as that
        file even when its name holds ``[ ]``

    Returns
    -------
    SufficientStatistics

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0, 1], "p": [0.1, 0.8, 0.4, 0.3, 0.9]})
    >>> mem = compute_statistics(df, y_true="y", y_score="p")
    >>> ddb = compute_statistics(df, y_true="y", y_score="p", engine="duckdb")
    >>> mem.auc("roc") == ddb.auc("roc"), ddb.metric("accuracy")
    (True, 0.8)
    >>> ddb.confusion.matrix.tolist() == mem.confusion.matrix.tolist()
    True
    """
    if engine not in ("auto", *ENGINES):
        raise InvalidInputError(f"engine must be 'auto' or one of {', '.join(ENGINES)}, got {engine!r}")
    options = dict(
        task=task, statistics=statistics, threshold=threshold, pos_label=pos_label, labels=labels,
        score_bins=score_bins, target_bin_width=target_bin_width, pinball_alphas=pinball_alphas,
        normalize=normalize,
    )
    chosen = detect_engine(source) if engine == "auto" else engine
    if source is None:
        if chosen != "memory":
            raise InvalidInputError(f"engine={chosen!r} needs a source (a file, a table or a DataFrame)")
        from .memory import statistics_from_arrays

        return statistics_from_arrays(
            y_true, y_score=y_score, y_pred=y_pred, y_proba=y_proba, sample_weight=weight, **options
        )
    columns = dict(y_true=y_true, y_score=y_score, y_pred=y_pred, y_proba=y_proba, weight=weight)
    if chosen == "memory":
        from .memory import statistics_from_table

        return statistics_from_table(source, delimiter=delimiter, **columns, **options)
    if chosen == "duckdb":
        from .duckdb import duckdb_statistics

        return duckdb_statistics(source, connection=connection, delimiter=delimiter, **columns, **options)
    from .spark import spark_statistics

    return spark_statistics(source, spark=spark, delimiter=delimiter, **columns, **options)
