r"""Engines: compute the statistics of a source — the :class:`~beyondchance.TaskStatistics` of
:func:`~beyondchance.profile` (:mod:`.scan`) and, inside it, the sufficient statistics of
:mod:`beyondchance.statistics.sufficient`.

=========  ==============================================  =====================================
engine     sources                                         how
=========  ==============================================  =====================================
memory     numpy arrays; mappings of columns; the tables   numpy (one pass per statistic) on the
           of every library narwhals knows (pandas,        needed columns; a lazy frame's are
           polars, pyarrow, modin, cuDF …) and its lazy    selected where it lives, then read
           frames; files (read whole with pyarrow)         into memory
duckdb     CSV / Parquet files, glob patterns, lists of    the SQL of :mod:`.sql`, out of core,
           files, directories of Parquet; eager tables;    embedded (no server); a polars
           DuckDB relations, polars ``LazyFrame`` s        LazyFrame is queried in place
spark      ``pyspark.sql.DataFrame``; paths read by Spark  the same SQL in Spark SQL; only the
                                                           statistics are collected
=========  ==============================================  =====================================

Tables and frames come in through narwhals (:mod:`beyondchance._validation.frames`).  Where an
engine cannot aggregate a lazy frame where it lives, it says so in one line: DuckDB refuses
the lazy frames it cannot scan (Spark, Dask, Ibis …) naming the engine that reads them;
the memory engine reads the needed columns of any lazy frame into memory.

:func:`detect_engine` picks memory for arrays and in-memory tables, duckdb for paths, DuckDB
relations and polars LazyFrames, spark for Spark DataFrames.  Every engine computes the same
statistics: identical counts, sums equal to rounding (the order of floating-point summation differs).

Each engine is a runner (:mod:`.runner`): :func:`get_runner` gives the runner of a name,
:func:`engine_names` the registered names; an engine of one's own is one class
implementing :class:`Runner`, registered with :func:`register`.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from .._validation import as_narwhals, is_lazy
from .._warnings import InvalidInputError
from ..statistics.sufficient import SufficientStatistics
from .runner import BUILTIN_ENGINES, Runner, Scan, engine_names, get_runner, register, unregister

__all__ = ["compute_group_totals", "ENGINES", "detect_engine", "Runner", "Scan", "get_runner",
           "engine_names", "register", "unregister", "SOURCE_ENGINE"]

#: the engines that come with the library (:func:`engine_names`: every registered engine)
ENGINES: tuple[str, ...] = BUILTIN_ENGINES
#: the default engine of a report from a source (:func:`beyondchance.report.evaluate` with ``data=``)
SOURCE_ENGINE = "duckdb"
#: the lazy frames (their narwhals implementation) that DuckDB scans where they live: its own
#: relations, and polars ``LazyFrame`` s (through Arrow, each query's projection and filters
#: pushed into the polars plan, whose result polars collects)
DUCKDB_SCANS = frozenset({"DUCKDB", "POLARS"})
Engine = Literal["auto", "memory", "duckdb", "spark"]


def detect_engine(source: Any) -> str:
    """The default engine of a source (see the module docstring).

    >>> import polars as pl
    >>> detect_engine(pl.DataFrame({"y": [0, 1]})), detect_engine(pl.LazyFrame({"y": [0, 1]}))
    ('memory', 'duckdb')
    """
    from .spark import is_spark_dataframe

    if source is None:
        return "memory"
    if isinstance(source, (str, os.PathLike)) or (
        isinstance(source, (list, tuple)) and source and all(isinstance(p, (str, os.PathLike)) for p in source)
    ):
        return "duckdb"
    if is_spark_dataframe(source):
        return "spark"
    frame = as_narwhals(source, keep_lazy=True)
    if is_lazy(frame) and frame.implementation.name in DUCKDB_SCANS:
        return "duckdb"
    return "memory"


def compute_statistics(
    source: Any = None,
    *,
    y_true: Any,
    y_score: Any = None,
    y_pred: Any = None,
    y_proba: Any = None,
    sample_weight: Any = None,
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
    r"""The sufficient statistics of predictions, computed by an engine: the engines' internal
    entry (the tests compare the engines through it), not public — the public road is
    :func:`~beyondchance.profile`, whose :class:`~beyondchance.TaskStatistics` holds these as
    its ``stats`` (class probabilities, regression); the CHANGELOG's migration table maps the
    arguments.

    Parameters
    ----------
    source : None (then ``y_true`` … are arrays), an in-memory table (any narwhals-supported
        DataFrame: pandas, polars, pyarrow …; a mapping of columns), a path / glob pattern / list of
        paths to CSV or Parquet files, a lazy frame (a polars LazyFrame, a DuckDB relation …) or a
        Spark DataFrame
    y_true, y_score, y_pred, y_proba, sample_weight : column names (with a ``source``) or
        arrays (without).  ``y_score``: score of the positive class (binary-scores task);
        ``y_pred``: predicted labels or real predictions; ``y_proba``: a list of
        probability columns, one per class, in the order of ``labels`` (or of the
        sorted true labels); ``sample_weight``: non-negative sample weights (with a ``source``: the name of the weight column)
    engine : ``"auto"``, ``"memory"``, ``"duckdb"`` or ``"spark"``
    task : ``"auto"`` (y_score → binary-scores; y_proba → multiclass-probabilities;
        y_pred → regression when y_true and y_pred are floating point, else
        multiclass-labels), or one of the report's tasks
        (``beyondchance.statistics.sufficient.TASKS``): ``"binary-scores"``,
        ``"binary-labels"``, ``"multiclass-labels"``, ``"multiclass-probabilities"``,
        ``"regression"``.  The two label tasks compute the same statistics (confusion
        matrix, label counts); ``"binary-labels"`` checks that there are at most two
        classes.  The names of 0.1 (``"binary"``, ``"labels"``, ``"probabilities"``) raise
        InvalidInputError naming the new one
    statistics : the statistics to compute, a subset of the task's
        (``beyondchance.statistics.sufficient.STATISTICS``); default all
    threshold : binary-scores: scores ≥ threshold are predicted positive (confusion matrix)
    pos_label : binary-scores: the positive label (default 1 for labels {0, 1} or {-1, 1})
    labels : label tasks / multiclass-probabilities: the class set, in order
    score_bins : binary-scores, multiclass-probabilities: None for exact counts at every distinct score, or a number
        of bins per unit score (``floor(score · bins)``) for fixed-size counts with a
        stated AUC error bound (:class:`~beyondchance.statistics.scores.BinnedScoreCounts`)
    target_bin_width : regression: None for the exact value histogram, or a bin
        width (bounded absolute / pinball baselines)
    pinball_alphas : regression: quantile levels whose pinball losses are also summed
    normalize : multiclass-probabilities: rescale rows that do not sum to 1
    connection : duckdb: an open connection to use (its memory_limit, threads …)
    spark : spark: the SparkSession to read a path with (default: the active one)
    delimiter : CSV files: the field delimiter (default: tab for ``.tsv``, else ``,``).
        Every engine reads CSV by the same rules (``beyondchance.engines.files``):
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
    _check_engine(engine)
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
            y_true, y_score=y_score, y_pred=y_pred, y_proba=y_proba, sample_weight=sample_weight, **options
        )
    columns = dict(y_true=y_true, y_score=y_score, y_pred=y_pred, y_proba=y_proba, weight=sample_weight)
    return get_runner(chosen).statistics(source, delimiter=delimiter, connection=connection, spark=spark,
                                         **columns, **options)


def _check_engine(engine: Any) -> None:
    names = engine_names()
    if engine != "auto" and engine not in names:
        raise InvalidInputError(f"engine must be 'auto' or one of {', '.join(names)}, got {engine!r}")


#: the options of :func:`compute_group_totals` (``**options``) beyond its parameters
_GROUP_TOTALS_OPTIONS = frozenset({"median", "quantile", "quantile_value", "y_score", "threshold", "pos_label",
                                   "row_offset"})


def compute_group_totals(
    source: Any,
    *,
    kind: str | None = None,
    y_true: str,
    y_pred: str | None = None,
    proba: Any = None,
    sample_weight: str | None = None,
    engine: Engine = "auto",
    labels: Any = None,
    random_state: int = 0,
    groups: int | None = None,
    connection: Any = None,
    spark: Any = None,
    delimiter: str | None = None,
    **options: Any,
) -> Any:
    r"""Per-group sums of the grouped Poisson bootstrap (``beyondchance.inference.poisson_bootstrap``), by an engine.

    Row i (its position in file order: files of a glob in sorted order) falls in group
    ``row_groups(i, random_state, groups)``; every engine sums the weighted per-row
    quantities per group, so the totals agree across engines to rounding and the
    replicates of one seed are the same.

    Parameters
    ----------
    source : a mapping of columns / DataFrame / pyarrow Table (memory), a CSV or Parquet
        path, glob or list of paths (memory, duckdb, spark) or a Spark DataFrame (spark,
        rows in the DataFrame's order)
    kind : (required) what is summed per group, by the kind of prediction
        (``beyondchance.inference.poisson_bootstrap.GROUP_TOTALS_KINDS``; not a task name):
        ``"labels"`` (the confusion cells of y_true and y_pred, or of binary scores at a
        threshold: y_score and ``threshold`` instead of y_pred), ``"probabilities"``
        (y_true, proba: one column per class, in the order of ``labels``) or
        ``"regression"`` (y_true, y_pred)
    y_true, y_pred, proba, sample_weight : column names
    engine : ``"auto"``, ``"memory"``, ``"duckdb"`` or ``"spark"``
    labels : the class set, in order (default: the sorted labels present)
    random_state, groups : the (int) seed and the number of groups of the row hash (default ``DEFAULT_GROUPS`` = 1024 groups)
    **options : ``median`` (regression: the weighted median of y, when known),
        ``quantile`` and ``quantile_value`` (regression: a pinball level and its quantile);
        ``y_score``, ``threshold``, ``pos_label`` (kind ``"labels"`` without y_pred: the
        labels of binary scores at the threshold, ``labels`` = (negative, positive));
        ``row_offset`` (the rows are numbered from it: row i hashed as ``row_offset + i``)

    Returns
    -------
    GroupTotals

    Examples
    --------
    >>> import pandas as pd
    >>> from beyondchance.inference.poisson_bootstrap import labeling_intervals
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0, 1] * 20, "f": [0, 1, 0, 0, 1] * 20, "w": [1.0, 2.0] * 50})
    >>> t = compute_group_totals(df, kind="labels", y_true="y", y_pred="f", sample_weight="w")
    >>> t.totals.shape, float(t.totals.sum())
    ((1024, 4), 150.0)
    """
    from ..inference.poisson_bootstrap import DEFAULT_GROUPS

    if "task" in options:
        raise InvalidInputError("compute_group_totals(task=) is now kind= ('labels', 'probabilities', "
                                "'regression'; the old task 'threshold' is kind='labels' with y_score= and threshold=)")
    if kind is None:
        raise InvalidInputError("compute_group_totals needs kind= ('labels', 'probabilities' or 'regression')")
    unknown = sorted(set(options) - _GROUP_TOTALS_OPTIONS)
    if unknown:
        raise InvalidInputError(f"compute_group_totals takes no option(s) {unknown}; the options are "
                                f"{sorted(_GROUP_TOTALS_OPTIONS)}")
    _check_engine(engine)
    groups = DEFAULT_GROUPS if groups is None else groups
    chosen = detect_engine(source) if engine == "auto" else engine
    return get_runner(chosen).group_totals(
        source, delimiter=delimiter, connection=connection, spark=spark, kind=kind, y_true=y_true, y_pred=y_pred,
        proba=proba, weight=sample_weight, labels=labels, seed=random_state, groups=groups, **options)
