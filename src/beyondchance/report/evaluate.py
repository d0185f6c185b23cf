r"""``evaluate``: one report on a predictor — value, trivial baseline, advantage, OPS, CI, verdict.

For every applicable metric the report gives

* its **value** on the test set;
* its **baseline**: the value of the best *constant* prediction — the Bayesian marginal
  prediction (BMP) of the PA paper generalised to any metric: the best of "always
  predict class c" for labeling metrics (for accuracy this is the majority class), a
  constant score for curves (ROC AUC 0.5, average precision π, lift AUC 1), the prior
  probabilities for log loss and Brier score (entropy H(π), π(1 − π)), the mean /
  median for squared / absolute error;
* its **advantage** (the metric's prediction advantage): the share of the gap between
  that baseline and a perfect predictor that the model closes,

  .. math:: \mathrm{adv} = \frac{M - M_0}{M^\star - M_0}

  — for accuracy exactly PA = 1 − err / err(BMP) (PA paper, section 2.4), for the log
  loss 1 − logloss / H (section 2.3), for the squared error R² (section 2.5); 0 for the
  trivial predictor, < 0 when worse than it, undefined when a constant is already
  perfect (recall of "always positive");
* its **outperformance score** (OPS paper, eq. 6): the share of all possible
  classifiers (uniform Type-I/II errors; random DBT curves for the AUCs) at this
  prevalence that the value beats;
* a **bootstrap confidence interval** (the method is stated per metric), and the OPS
  at the interval's ends (OPS is monotone in the value at a fixed prevalence);
* a one-line **verdict**.

Tasks (detected from the data, or given with ``task=``):

=============================  ============================================================
``"binary-scores"``            y_true two classes, y_score one score per row (or two
                               probability columns); labels = score ≥ threshold
``"binary-labels"``            y_true two classes, y_pred predicted labels
``"multiclass-labels"``        more than two classes, y_pred predicted labels
``"multiclass-probabilities"`` y_score an (n, k) matrix of class probabilities
``"regression"``               real-valued y_true and y_pred
=============================  ============================================================

Where the rows are (one road, :mod:`beyondchance.statistics.task_statistics`):

=================================  =========================================================
arrays                             ``evaluate(y_true, y_score)``: the memory engine's statistics
a table or files (``data=``)       ``evaluate("label", "score", data="scores.parquet")``: the
                                   columns named by ``y_true`` … are aggregated by ``engine``
                                   (DuckDB by default, Spark, memory) and never loaded as rows
their statistics (``data=``)       ``evaluate(data=threshold_counts(y, s))``: a binary-scores
                                   report from :class:`~beyondchance.measures.curves.ThresholdCounts`
statistics kept (``TaskStatistics``) ``evaluate(bc.profile(...))``, ``evaluate(data="ref.bcstats")``:
                                   the report of :func:`~beyondchance.profile`'s statistics
=================================  =========================================================

Each is the same function of the same statistics, so every engine gives memory's report
(to rounding; :mod:`beyondchance.engines.scan` says where an engine cannot).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .._warnings import InvalidInputError
from ..engines import detect_engine
from ..engines.scan import SOURCE_ENGINE, _array_columns, _as_source, _column_names, _scan, detect_task
from ..measures.curves import ThresholdCounts
from ..measures.task_metrics import TASKS, Task, metrics_for_task
from ..statistics.file_format import is_statistics_file
from ..statistics.task_statistics import TaskStatistics, read_statistics
from .formatting import fmt_value, shorten
from .from_statistics import report_from_statistics
from .metric_rows import MetricCI, MetricResult
from .report import Report

__all__ = [
    "TASKS",
    "Task",
    "MetricCI",
    "MetricResult",
    "Report",
    "detect_task",
    "evaluate",
    "metrics_for_task",
    "fmt_value",
    "shorten",
]


def evaluate(
    y_true: Any = None,
    y_score: Any = None,
    *,
    y_pred: Any = None,
    sample_weight: Any = None,
    data: Any = None,
    engine: str | None = None,
    score_bins: int | None = None,
    session: Any = None,
    delimiter: str | None = None,
    task: Task | None = None,
    pos_label: Any = None,
    threshold: float | None = None,
    labels: Any = None,
    quantile: float | None = None,
    metrics: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    ci: bool = True,
    random_state: int = 0,
    normalize: bool = False,
    strict: bool = False,
    name: str | None = None,
    mc_samples: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    r"""Evaluate predictions against the trivial predictor: the whole report in one call.

    Parameters
    ----------
    y_true : array-like (n,), or a column name with ``data``
        True labels (classification) or targets (regression).
    y_score : array-like (n,) or (n, k), or column name(s) with ``data``
        Scores (binary: one per row, higher meaning more likely positive) or an (n, k)
        matrix of class probabilities (columns in the order of ``labels``, default the
        sorted classes of y_true; a table whose column names are the classes is read by
        name; with ``data``, one column name per class) — as ``--y-score`` of the command
        line.  The task is detected from the content, so predictions given positionally
        are read whatever they are (labels make a labels report, real values a regression
        report).  pandas inputs must share one index (rows are paired by position); masked
        elements, iterators and datetime values are refused.
    y_pred : array-like (n,), or a column name with ``data``, optional
        Predicted labels, or real predictions (regression).  Alone, the report of the
        labels (or of the regression); given with binary scores ``y_score``, the labeling
        metrics (and the per-class table) come from the labels and the curves, AUCs and
        losses from the scores; there is no threshold (``threshold`` must then be None).
    sample_weight : array-like (n,), or a column name with ``data``, optional
        Non-negative weights, used by every measure.
    data : table, file(s), TaskStatistics or ThresholdCounts, optional
        Where the rows are when they are not arrays.  A CSV / Parquet path, glob pattern
        or list of paths (DuckDB, Spark), a pandas / Arrow table or mapping of columns
        (DuckDB, memory), a Spark DataFrame (Spark): ``y_true``, ``y_score``, ``y_pred`` and
        ``sample_weight`` then name its columns and ``engine`` aggregates them into the
        task's statistics (the rows are never loaded into Python; see
        :mod:`beyondchance.engines.scan` for how each interval and p-value is obtained).
        Or the sufficient statistic of binary scores,
        :class:`~beyondchance.measures.curves.ThresholdCounts` of row counts (computed by
        :func:`~beyondchance.threshold_counts`, by an engine, or merged from chunks): the
        report from the counts alone, equal to the report of the rows (same seed); its
        classes are ``labels`` (negative, positive; default 0, 1).  Or the
        :class:`~beyondchance.TaskStatistics` of :func:`~beyondchance.profile` (also as the
        first argument, ``evaluate(statistics)``), or the path of their file (known by its
        content, or named ``*.bcstats``): the report of the profiled rows — identical
        where the statistics are exact, within the stated AUC bound where binned, the same
        intervals with the same seed (``random_state`` as the profile's where it kept
        the grouped bootstrap's sums).
    engine : ``"duckdb"`` (default with a table or files), ``"spark"`` or ``"memory"``
        The engine that aggregates ``data``.  Every engine gives memory's report.
    score_bins : int, optional
        With ``data``, binary scores and class probabilities: bin the scores
        (``floor(score · bins)``) instead of keeping every distinct score; the AUC error
        bound is stated in ``Report.score_statistic`` (binary) and the notes.
    session : the engine's session (a SparkSession with ``engine="spark"``; default: the active one)
    delimiter : CSV files: the field delimiter (default: tab for ``.tsv``, else ``,``)
    task : str, optional
        One of ``TASKS``; detected from the data when None (the report says what was
        detected and why).
    pos_label : optional
        Positive class of a binary task.  Default: 1 (or True) for 0/1, −1/1 and boolean
        labels, else the minority class.
    threshold : float, optional
        Binary scores: a score ≥ threshold is predicted positive.  Default 0.5 when every
        score lies in [0, 1], else 0 (and a note says so); the report states the threshold
        and why (``Report.threshold``, ``Report.threshold_reason``).
    labels : array-like, optional
        The class labels, in the order of the probability columns.
    quantile : float in (0, 1), optional
        Regression: the level τ of the quantile that the predictions estimate (a
        quantile regressor's ``alpha``).  Adds the pinball loss of level τ
        (``pinball_loss`` = scikit-learn's ``mean_pinball_loss``) and its prediction
        advantage over the best constant, the τ-quantile of y (``d2_pinball_score``).
    metrics : sequence of str, optional
        The metrics to report (default ``metrics_for_task``); any labeling metric of the
        registry ``bc.measures.METRICS`` by name or alias (``"jaccard"``, ``"kappa_quadratic"``,
        ``"lr_plus"`` …) is computed on request, with its best constant, advantage, OPS and
        interval like the default rows.
    confidence_level, n_resamples : the bootstrap's level and number of resamples (at least
        ⌈2 / (1 − confidence_level)⌉ when ci, as in :func:`~beyondchance.bootstrap_ci`)
    ci : bool
        Compute confidence intervals (default True).
    random_state : int or None
        Seed of every bootstrap and Monte Carlo test (default 0: the report is
        reproducible); None draws fresh entropy, as everywhere in the package.
    normalize : bool
        Rescale probability rows that do not sum to 1 instead of raising.
    strict : bool
        Raise :class:`~beyondchance.UndefinedMeasureError` when y_true holds a single
        class (the trivial predictor is then perfect and nothing can beat it).
    name : str, optional
        Name of the test set (shown in renderings).
    mc_samples : int, optional
        Size of the Monte Carlo reference of the OPS (one name across the package): here
        the number of Directed-Binary-Tree random curves for the OPS of the AUCs and of
        the OPRC / OPS(lift) curves (the labeling metrics' OPS is exact).  Default None: the scoring module's default
        reference of 114,688 curves (standard error ≤ 0.0015), which ships precomputed
        for the AUCs, the OPRC and the OPS(lift) curve at their default levels
        (``beyondchance.outperformance.shipped``).  Other references are drawn on
        first use at a prevalence and cached on disk.
    progress : callable, optional
        Called with a short description before each slow step.

    Returns
    -------
    Report

    Notes
    -----
    Confidence intervals.  Labeling metrics: BCa bootstrap of
    :func:`beyondchance.bootstrap_ci` on the confusion-matrix cells — a resample is a
    multinomial draw of the k² cell counts, exactly the row bootstrap, at a cost
    independent of n (baselines and prevalence re-estimated in each resample).  AUCs,
    log loss and Brier score: percentile bootstrap of multinomial draws of the
    (score, label) cells, exact up to ``MAX_SCORE_BINS`` distinct scores, binned
    beyond (see ``beyondchance.measures.binary_scores``).  Weighted labeling metrics,
    regression measures and multi-class probability losses: percentile grouped Poisson
    bootstrap (``beyondchance.inference.poisson_bootstrap``: each row's replicate weight is that of
    its group, a hash of its position, so every engine computes the same replicates
    from per-group sums; rows keep their weights).

    Examples
    --------
    >>> from beyondchance.datasets import load_keel
    >>> d = load_keel("haberman")
    >>> r = evaluate(d.y, [0] * 20 + [1] * 10 + [0] * 276, ci=False)   # a poor guesser
    >>> r.task, round(r.prevalence, 4)
    ('binary-labels', 0.2647)
    >>> r["accuracy"].baseline_prediction, round(r["accuracy"].baseline, 4)
    ('always predicting 0', 0.7353)
    >>> r["accuracy"].verdict.startswith("no better than always predicting 0")
    True
    >>> evaluate(d.y, y_pred=[0] * 20 + [1] * 10 + [0] * 276, ci=False).task   # the same, by keyword
    'binary-labels'

    The same report from a table aggregated by DuckDB, and from the counts alone:

    >>> import pandas as pd
    >>> from beyondchance.measures.curves import threshold_counts
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0, 0, 1], "s": [.1, .8, .4, .3, .9, .6, .2, .7]})
    >>> a = evaluate("y", "s", data=df, n_resamples=200, mc_samples=1024)
    >>> b = evaluate(df["y"].to_numpy(), df["s"].to_numpy(), n_resamples=200, mc_samples=1024)
    >>> c = evaluate(data=threshold_counts(df["y"], df["s"]), n_resamples=200, mc_samples=1024)
    >>> a.engine, a["roc_auc"].value == b["roc_auc"].value == c["roc_auc"].value, a["f1"].ci == b["f1"].ci == c["f1"].ci
    ('duckdb', True, True)
    """
    if isinstance(y_true, TaskStatistics):
        if data is not None:
            raise InvalidInputError("give the statistics once: as the first argument or as data=")
        y_true, data = None, y_true
    if is_statistics_file(data):  # a statistics file, by its content (or its name *.bcstats)
        data = read_statistics(data)
    if data is not None:
        if isinstance(data, TaskStatistics):
            return _evaluate_statistics(
                data, given=dict(y_true=y_true, y_score=y_score, y_pred=y_pred, sample_weight=sample_weight,
                                 engine=engine, score_bins=score_bins, session=session, delimiter=delimiter,
                                 quantile=quantile, labels=labels),
                task=task, normalize=normalize, pos_label=pos_label, threshold=threshold, metrics=metrics,
                confidence_level=confidence_level, n_resamples=n_resamples, ci=ci, random_state=random_state,
                strict=strict, name=name, mc_samples=mc_samples, progress=progress)
        if isinstance(data, ThresholdCounts):
            return _evaluate_counts(
                data, given=dict(y_true=y_true, y_score=y_score, y_pred=y_pred, sample_weight=sample_weight,
                                 engine=engine, score_bins=score_bins, session=session, delimiter=delimiter,
                                 quantile=quantile),
                task=task, pos_label=pos_label, labels=labels, threshold=threshold, metrics=metrics,
                confidence_level=confidence_level, n_resamples=n_resamples, ci=ci, random_state=random_state,
                strict=strict, name=name, mc_samples=mc_samples, progress=progress)
        if normalize:
            raise InvalidInputError("normalize applies to arrays of class probabilities, not to data=")
        return evaluate_source(
            data, y_true=y_true, y_score=() if y_score is None else y_score, y_pred=y_pred,
            sample_weight=sample_weight, engine=engine, score_bins=score_bins, session=session, delimiter=delimiter,
            task=task, pos_label=pos_label, threshold=threshold, labels=labels, quantile=quantile, metrics=metrics,
            confidence_level=confidence_level, n_resamples=n_resamples, ci=ci, random_state=random_state,
            strict=strict, name=name, mc_samples=mc_samples, progress=progress)
    for option, value in (("engine", engine), ("score_bins", score_bins), ("session", session),
                          ("delimiter", delimiter)):
        if value is not None:
            raise InvalidInputError(f"{option} applies to data= (a table or files that an engine aggregates); "
                                    "give the table as data= and y_true, y_score … as its column names")
    if y_true is None:
        raise InvalidInputError("evaluate needs y_true (the true labels or targets), or data= (a table or "
                                "files with y_true naming a column, or ThresholdCounts)")
    if y_score is None and y_pred is None:
        raise InvalidInputError("evaluate needs y_score (scores or class probabilities) or y_pred "
                                "(predicted labels or values)")
    source, names, score_names = _array_columns(y_true, y_score, y_pred, sample_weight, normalize=normalize)
    return evaluate_source(
        source, y_true=names["y_true"], y_score=names["y_score"], y_pred=names["y_pred"],
        sample_weight=names["sample_weight"], engine=detect_engine(source), score_names=score_names, task=task,
        pos_label=pos_label, threshold=threshold, labels=labels, quantile=quantile, metrics=metrics,
        confidence_level=confidence_level, n_resamples=n_resamples, ci=ci, random_state=random_state,
        strict=strict, name=name, mc_samples=mc_samples, progress=progress)


def _evaluate_statistics(statistics: TaskStatistics, *, given: dict[str, Any], task: Any, normalize: bool,
                         **options: Any) -> Report:
    """The report of kept statistics (``evaluate(statistics)``): the options that say what the rows
    are (columns, engine, bins, labels, quantile) were fixed by :func:`~beyondchance.profile`."""
    for option, value in given.items():
        if value is not None:
            raise InvalidInputError(f"{option} does not apply to statistics (it was fixed when they were profiled)")
    if normalize:
        raise InvalidInputError("normalize does not apply to statistics (it was fixed when they were profiled)")
    if task not in (None, statistics.task):
        raise InvalidInputError(f"these statistics are of a {statistics.task} task, not {task}")
    return report_from_statistics(statistics, **options)


def _evaluate_counts(counts: ThresholdCounts, *, given: dict[str, Any], task: Any, pos_label: Any, labels: Any,
                     **options: Any) -> Report:
    """The binary-scores report of ThresholdCounts of row counts (``evaluate(data=counts)``)."""
    for option, value in given.items():
        if value is not None:
            raise InvalidInputError(f"{option} does not apply to data=ThresholdCounts (the counts are the data)")
    if task not in (None, "binary-scores"):
        raise InvalidInputError(f"ThresholdCounts are the statistic of binary scores, not of a {task} report")
    negative, positive = (0, 1) if labels is None else tuple(labels)
    if pos_label is not None and pos_label != positive:
        if pos_label != negative:
            raise InvalidInputError(f"pos_label {pos_label!r} is not one of the labels ({negative!r}, {positive!r})")
        raise InvalidInputError("ThresholdCounts count the positives of their scores: give labels as "
                                "(negative, positive)")
    n_pos, n_neg = counts.n_pos, counts.n - counts.n_pos
    classes = np.array([negative, positive], dtype=object)
    p = TaskStatistics("binary-scores", "given", "given as ThresholdCounts of binary scores", int(round(counts.n)),
                       False, classes, np.array([n_neg, n_pos]), classes, stats=counts,
                       positive=(positive, negative, "given"))
    return report_from_statistics(p, **options)


def evaluate_source(
    source: Any, *, y_true: str, y_score: str | Sequence[str] = (), y_pred: str | None = None,
    sample_weight: str | None = None, engine: str | None = None, score_bins: int | None = None, session: Any = None,
    delimiter: str | None = None, task: str | None = None, pos_label: Any = None, threshold: float | None = None,
    labels: Any = None, quantile: float | None = None, ci: bool = True, random_state: int = 0,
    progress: Callable[[str], None] | None = None, name: str | None = None, score_names: Any = True,
    **options: Any,
) -> Report:
    """The report of ``evaluate(y_true, y_score, …, data=source, engine=engine)`` (the options
    as there): the source scanned into its task's statistics, the report built from them.
    ``score_names``: the names that the probability columns carry (``scan._prepare``; None: the
    columns of an array, whose report has no engine)."""
    y_true, y_score = _column_names(y_true, y_score, y_pred, sample_weight)
    engine = SOURCE_ENGINE if engine is None else engine
    src = _as_source(source, engine, session, name, delimiter)
    try:
        p = _scan(src, engine=engine, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight,
                  score_bins=score_bins, task=task, pos_label=pos_label, threshold=threshold, labels=labels,
                  quantile=quantile, ci=ci, random_state=random_state, progress=progress, keep_rows=ci,
                  score_names=score_names)
        # the source stays open while the report is built: its row permutation tests fetch the rows
        if p.row_source is not None and score_names is not True:  # arrays: the rows are the caller's
            p.row_source.says_where = False
        return report_from_statistics(p, engine=None if score_names is not True else src.engine, pos_label=pos_label, threshold=threshold, ci=ci,
                                      random_state=random_state, name=name, progress=progress, **options)
    finally:
        src.close()
