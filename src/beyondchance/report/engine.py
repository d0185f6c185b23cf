r"""Reports from sufficient statistics computed by an engine (DuckDB, Spark, or memory).

:func:`evaluate_source` is :func:`~beyondchance.report.evaluate` for a source that is
never loaded into Python: the engine of :func:`beyondchance.compute_statistics`
(``"duckdb"`` over CSV / Parquet files and glob patterns, ``"spark"`` through a
SparkSession, ``"memory"`` over columns in memory) aggregates the rows into the
task's statistics, and the report is built from them alone.

=====================  ================================================================
task                   from the statistics
=====================  ================================================================
binary scores          everything: the report is a function of the
                       :class:`~beyondchance.measures.curves.ThresholdCounts` (exact) or of the
                       :class:`~beyondchance.statistics.sufficient.BinnedScoreCounts` (``score_bins``,
                       with the stated AUC error bound); CIs on the cells as in memory
binary / multi-class   everything: a function of the confusion matrix; CIs on the
labels                 cells as in memory
multi-class            values from the confusion matrix, label counts and loss sums;
probabilities          labeling CIs on the cells, the losses' from the grouped bootstrap
regression             values from the loss sums, the moments and the exact histogram of
                       y (a second aggregation: the exact median on every engine);
                       intervals from the grouped bootstrap
=====================  ================================================================

Intervals that cannot come from cells — the losses of probabilities, the regression
measures, and the labeling metrics of weighted data — come from the grouped Poisson
bootstrap (:mod:`beyondchance.inference.poisson_bootstrap`): one more aggregation sums the task's
quantities per group of rows (the group a hash of the row's position in the files, or
in the data frame), and the replicates are drawn on those sums with the report's seed.
Weighted binary scores also count the rows of positive weight per score (the units of
the score bootstrap).  So every interval, weighted or not, equals
:func:`~beyondchance.report.evaluate` on the rows with the same seed, to rounding.  A
DuckDB relation has no row order: its intervals of those measures are not computed (a
note says so).

The p-values against chance that permute the rows (weighted data, class probabilities,
the absolute and pinball losses of a regression: :mod:`beyondchance.report.pvalues`) need
the rows: when they fit the row-draw budget of memory
(:func:`~beyondchance.inference.permutation.rows.permutation_draws`) the report fetches the columns
of the test from the source — one query, in the rows' order — and runs memory's test on
them (:mod:`beyondchance.report.engine_rows`), so they too equal
:func:`~beyondchance.report.evaluate`'s with the same seed; the source stays open until the
report is built.  Beyond the budget nothing is fetched: the permutation CLT of the weighted
cells, or the size limit named in ``pvalue_method``.

The report modules (:mod:`beyondchance.report.tasks`) are the ones
:func:`~beyondchance.report.evaluate` uses on the memory engine's statistics.

Detection without the rows differs in one respect from :func:`evaluate`: the task
follows the column *types* (a floating-point score column holds scores, an integer
or text column labels; regression when both y_true and y_pred are floating point),
where :func:`evaluate` looks at the values (a float column holding only whole
numbers is labels there).  ``task=`` overrides both.

Examples
--------
>>> import pandas as pd
>>> from beyondchance.report import evaluate
>>> df = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0, 0, 1], "s": [.1, .8, .4, .3, .9, .6, .2, .7]})
>>> a = evaluate_source(df, y_true="y", y_score="s", engine="duckdb", n_resamples=200, dbt_samples=1024)
>>> b = evaluate(df["y"].to_numpy(), df["s"].to_numpy(), n_resamples=200, dbt_samples=1024)
>>> a.engine, a["roc_auc"].value == b["roc_auc"].value, a["f1"].ci == b["f1"].ci
('duckdb', True, True)
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .._validation import check_n_classes
from .._warnings import InvalidInputError
from ..engines import SOURCE_ENGINE
from ..measures.losses import PinballLoss
from ..measures.task_metrics import TASKS, selectable_metrics
from .assemble import _run, _select_metrics, check_quantile_option
from .evaluation_context import _single_class
from .formatting import _fmt_label, _label
from .report import Report
from .engine_rows import RowSource
from .detect import _resolve_positive
from .tasks.binary_scores import _binary_scores_from_counts
from .tasks.labels import labels_rows, replicate_matrices
from .tasks.probabilities import probabilities_rows
from .tasks.regression import regression_rows

__all__ = ["evaluate_source", "compare_sources"]


def _open(source: Any, engine: str, *, spark: Any = None, name: str | None = None,
          delimiter: str | None = None) -> Any:
    """The :class:`~beyondchance.engines.runner.Scan` of one source on ``engine``: the needed columns
    are read once (``open``) and every statistic of the report is computed from that one read."""
    from ..engines import engine_names, get_runner

    try:
        runner = get_runner(engine)
    except InvalidInputError:
        names = engine_names()
        raise InvalidInputError(f"engine must be {', '.join(names[:-1])} or {names[-1]}, got {engine!r}") from None
    return runner.open(source, session=spark, name=name, delimiter=delimiter)


def _detect(
    kinds: dict[str, str], y_true: str, y_score: Sequence[str], y_pred: str | None, k_true: int, shown: str
) -> tuple[str, str]:
    """(task, reason) from the column types and the number of true classes."""
    if len(y_score) > 1:
        return "multiclass-probabilities", f"y has {len(y_score)} columns of class probabilities"
    col = y_score[0] if y_score else y_pred
    t_kind, p_kind = kinds.get(y_true), kinds.get(col)  # type: ignore[arg-type]
    true_numeric = t_kind in ("float", "int")
    if t_kind == "float" and (y_pred is not None and p_kind == "float"):
        return "regression", "y_true and y_pred are floating-point columns"
    if p_kind == "float" or (y_score and p_kind == "int" and not true_numeric):
        if k_true <= 2:
            what = "a floating-point column" if p_kind == "float" else "numbers"
            return "binary-scores", f"y_true has {k_true} classes ({shown}) and y is {what}: scores"
        if t_kind == "float":
            return "regression", f"y_true has {k_true} distinct values and y holds floating-point numbers"
        raise InvalidInputError(
            f"y_true has {k_true} classes but y holds one number per row; give the class probabilities "
            f"as {k_true} columns, or predicted labels"
        )
    return "labels", "y_true and y hold labels"


@dataclasses.dataclass
class _Prepared:
    """What one scan of a source found: the task, the classes, the statistic."""

    task: str
    source: str
    reason: str
    n_rows: int
    weighted: bool
    classes: np.ndarray  # the classes of y_true (labels: of y_true and y)
    counts0: np.ndarray  # unweighted row counts of y_true per class (0 for classes only in y)
    true_classes: np.ndarray
    stats: Any = None
    totals: Any = None  # GroupTotals of the grouped bootstrap (weighted labels, probabilities, regression)
    units: Any = None  # weighted binary scores: the score statistic of the rows of positive weight
    quantile: float | None = None  # regression: the level of a quantile model's pinball loss
    given: Any = None  # predicted labels given with binary scores: their confusion matrix (over y_true and y_pred)
    given_counts0: Any = None  # and the row counts of y_true over its classes
    cells: Any = None  # weighted: the PermutationCells of the predicted labels (permutation CLT)
    score_cells: Any = None  # weighted binary scores: the PermutationCells of the distinct scores
    row_source: Any = None  # the rows, fetched for the row permutation tests (report._engine_rows.RowSource)
    loss_sums: Any = None  # binary scores: the PermutationLossSums of the losses' permutation CLT


def _prepare(
    src: Any, *, y_true: str, y_score: Sequence[str], y_pred: str | None, weight: str | None,
    task: str | None, labels: Any, score_bins: int | None, pos_label: Any = None, scan: bool = True,
    quantile: float | None = None,
    ci: bool = False,
) -> _Prepared:
    """Detect the task and scan the labels (one cheap ``GROUP BY y_true``); ``ci``: keep the
    row order for the grouped bootstrap of the tasks that need it."""
    if not y_score and not y_pred:
        raise InvalidInputError("give y_score (scores or probability columns) or y_pred")
    both = bool(y_score) and bool(y_pred)  # scores with predicted labels: a binary-scores report
    if both and len(y_score) != 1:
        raise InvalidInputError("predicted labels (y_pred) go with one score column of a binary task, "
                                f"got {len(y_score)} score columns")
    cols = [y_true, *y_score, *([y_pred] if y_pred else []), *([weight] if weight else [])]
    # the tasks whose intervals need the row positions (others need not pay for keeping them)
    needs_rows = ci and (weight is not None or len(y_score) > 1 or y_pred is not None or task == "regression")
    kinds = src.open(cols, [*y_score, *([weight] if weight else [])], row_index=needs_rows)
    for c in [*y_score, *([weight] if weight else [])]:
        if kinds[c] not in ("float", "int"):
            raise InvalidInputError(f"{src.name or 'input'}: column {c!r} is not numeric ({kinds[c]})")
    lc = src.statistics(y_true=y_true, y_pred=y_true, task="labels", statistics=("label_counts",),
                        labels=labels if y_pred is None else None).label_counts
    classes, counts0 = lc.labels, lc.counts
    shown = ", ".join(map(_fmt_label, classes[:2]))
    if task is None:
        detected, reason = _detect(kinds, y_true, y_score, None if both else y_pred, int(classes.size), shown)
        how = "detected"
    else:
        if task not in TASKS:
            raise InvalidInputError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
        detected, reason, how = task, "given", "given"
    if detected != "regression":  # before any k × k matrix
        check_n_classes(int(classes.size), what="y_true holds")
    n_rows = int(round(float(counts0.sum())))
    p = _Prepared(detected, how, reason, n_rows, weight is not None, classes, counts0, classes)
    if detected == "binary-scores" and len(y_score) != 1:
        raise InvalidInputError("a binary-scores report from an engine takes one score column (y_score); "
                                "several columns are class probabilities (task='multiclass-probabilities')")
    if detected == "multiclass-probabilities":
        if len(y_score) < 2:
            raise InvalidInputError("a multiclass-probabilities report needs one probability column per class")
        p.stats = src.statistics(y_true=y_true, y_proba=list(y_score), weight=weight, task="probabilities",
                                 labels=labels, score_bins=score_bins)
        return p
    p.quantile = check_quantile_option(quantile, detected)
    if detected == "regression":
        p.stats = src.statistics(y_true=y_true, y_pred=y_pred if y_pred is not None else y_score[0], weight=weight,
                                 task="regression", pinball_alphas=() if p.quantile is None else (p.quantile,))
        return p
    if detected == "binary-scores" and classes.size > 2:
        raise InvalidInputError(
            f"a binary report needs two classes; y_true has {classes.size} "
            f"({', '.join(map(_fmt_label, classes[:5]))} ...)"
        )
    if both:
        if detected != "binary-scores":
            raise InvalidInputError(f"predicted labels (y_pred) go with the scores of a binary task; y_score makes a "
                                    f"{detected} report ({reason})")
        p.given, p.given_counts0, p.cells = _union_confusion(src, classes, counts0, y_true=y_true, y_pred=y_pred,
                                                             weight=weight, labels=labels)
        return p
    if detected in ("labels", "binary-labels") and y_pred is None:
        y_pred = y_score[0]  # a score column holding labels (an integer column: as evaluate() reads it)
    if detected in ("labels", "binary-labels", "multiclass-labels"):
        cm, full, p.cells = _union_confusion(src, classes, counts0, y_true=y_true, y_pred=y_pred, weight=weight,
                                             labels=labels)
        union = np.asarray(cm.labels)
        p.classes, p.counts0, p.stats = union, full, cm
        if detected == "labels":
            p.task = "binary-labels" if union.size <= 2 else "multiclass-labels"
            p.reason = f"y_true and y hold {union.size} labels ({', '.join(map(_fmt_label, union[:5]))})" \
                if union.size <= 2 else f"y_true has {classes.size} classes and y holds labels"
        elif detected == "binary-labels" and union.size > 2:
            raise InvalidInputError(
                f"a binary report needs two classes; y_true and y hold {union.size} "
                f"({', '.join(map(_fmt_label, union[:5]))}); use task='multiclass-labels'"
            )
    return p


def _union_confusion(src: Any, classes: np.ndarray, counts0: np.ndarray, *, y_true: str, y_pred: str,
                     weight: str | None, labels: Any) -> tuple[Any, np.ndarray, Any]:
    """The confusion matrix of (y_true, y_pred) over the union of their labels, the row
    counts of y_true over that union (0 for a label only predicted) and, weighted, the
    PermutationCells of the predicted labels (from the same scan)."""
    st = src.statistics(y_true=y_true, y_pred=y_pred, weight=weight, task="labels",
                        statistics=("confusion", "permutation_cells"), labels=labels)
    cm = st.confusion
    idx = {(_label(c)): i for i, c in enumerate(np.asarray(cm.labels).tolist())}
    full = np.zeros(len(idx))
    for c, n in zip(classes.tolist(), counts0.tolist()):
        if _label(c) in idx:
            full[idx[_label(c)]] = n
    return cm, full, st.permutation_cells


def _scan_scores(src: Any, p: _Prepared, *, y_true: str, y_score: str, weight: str | None, pos: Any,
                 score_bins: int | None) -> None:
    # the loss sums of the losses' permutation CLT only where nothing else tests the losses beyond
    # the budget: weighted scores in bins (unweighted: the score cells; weighted exact: the weighted cells)
    wanted = ("scores", "permutation_cells") + (("permutation_loss_sums",) if weight and score_bins else ())
    stats = src.statistics(y_true=y_true, y_score=y_score, weight=weight, task="binary", pos_label=pos,
                           statistics=wanted, score_bins=score_bins)
    p.stats, p.score_cells, p.loss_sums = stats.scores, stats.permutation_cells, stats.permutation_loss_sums


def _scan_replicates(src: Any, p: _Prepared, *, y_true: str, y_score: Sequence[str], y_pred: str | None,
                     weight: str | None, labels: Any, seed: int, threshold: Any, pos: tuple | None,
                     score_bins: int | None) -> None:
    """The per-group sums of the grouped bootstrap (:mod:`beyondchance.inference.poisson_bootstrap`) that the
    report's intervals need, while the source is open: regression and probabilities
    always, labels and binary scores when weighted (unweighted ones resample cells)."""
    from ..statistics.sufficient import BinnedScoreCounts
    from .tasks.binary_scores import _threshold_choice

    common = dict(y_true=y_true, weight=weight, seed=seed)
    if p.task == "regression":
        median = p.stats.prediction_advantage("absolute").baseline.prediction
        quantile = {} if p.quantile is None else dict(
            quantile=p.quantile,
            quantile_value=p.stats.prediction_advantage(PinballLoss(p.quantile)).baseline.prediction)
        p.totals = src.group_totals(task="regression", y_pred=y_pred if y_pred is not None else y_score[0],
                                    median=median, **quantile, **common)
    elif p.task == "multiclass-probabilities":
        p.totals = src.group_totals(task="probabilities", proba=list(y_score), labels=labels, **common)
    elif not p.weighted:
        return
    elif p.task == "binary-scores" and p.given is not None:  # predicted labels given: the labels' totals
        p.totals = src.group_totals(task="labels", y_pred=y_pred, labels=labels, **common)
        p.units = src.unit_counts(y_true=y_true, y_score=y_score[0], weight=weight, pos_label=pos[0],
                                  score_bins=score_bins)
    elif p.task == "binary-scores":
        if pos is None or pos[1] is None:
            return
        tc = p.stats.threshold_counts() if isinstance(p.stats, BinnedScoreCounts) else p.stats
        if tc.thresholds.size == 0:
            return
        thr = _threshold_choice(threshold, float(tc.thresholds[-1]), float(tc.thresholds[0]))[0]
        p.totals = src.group_totals(task="threshold", y_score=y_score[0], threshold=thr, pos_label=pos[0],
                                    labels=(pos[1], pos[0]), **common)
        if p.totals is not None:
            p.totals.info["threshold"] = thr
        p.units = src.unit_counts(y_true=y_true, y_score=y_score[0], weight=weight, pos_label=pos[0],
                                  score_bins=score_bins)
    else:
        p.totals = src.group_totals(task="labels", y_pred=y_pred if y_pred is not None else y_score[0],
                                    labels=labels, **common)


def _report(
    p: _Prepared, *, engine: str, pos_label: Any = None, threshold: Any = None, metrics: Any = None,
    confidence_level: float = 0.95, n_resamples: int = 2000, ci: bool = True, random_state: int = 0,
    strict: bool = False, name: str | None = None, dbt_samples: int | None = None,
    progress: Callable[[str], None] | None = None, pos: tuple | None = None,
) -> Report:
    """The report of a prepared (and scanned) source."""
    from ..statistics.sufficient import BinnedScoreCounts

    score_statistic = None
    notes: list[str] = []

    def compute(ctx: Any) -> tuple[dict[str, Any], str, str, str]:
        nonlocal score_statistic
        if metrics is not None:
            _select_metrics(dict.fromkeys(selectable_metrics(p.task, quantile=p.quantile is not None)), metrics, p.task)
        if p.task == "regression":
            out = regression_rows(p.stats, ctx, n_rows=p.n_rows, weighted=p.weighted, totals=p.totals,
                                  quantile=p.quantile)
        elif p.task == "multiclass-probabilities":
            out = probabilities_rows(p.stats, ctx, n_rows=p.n_rows, weighted=p.weighted, totals=p.totals)
        elif p.task == "binary-scores":
            true_present = p.classes[p.counts0 > 0]
            if true_present.size < 2:
                _single_class(true_present, ctx)
            pl, nl, reason = pos if pos is not None else _resolve_positive(p.classes, p.counts0, pos_label)
            stat = p.stats
            tc = stat
            if isinstance(stat, BinnedScoreCounts):
                tc = stat.threshold_counts()
                bounds = {"roc_auc": stat.auc_error_bound("roc"), "pr_auc": stat.auc_error_bound("pr")}
                score_statistic = {"kind": "binned", "bins": stat.bins, "n_bins": int(stat.keys.size),
                                   "auc_error_bound": {k: (None if not math.isfinite(v) else v)
                                                       for k, v in bounds.items()}}
                notes.append(
                    f"scores binned into floor(score * {stat.bins}) ({stat.keys.size} occupied bins): "
                    f"|ROC AUC - exact| <= {bounds['roc_auc']:.3g}, |PR AUC (AP) - exact| <= {bounds['pr_auc']:.3g}"
                )
            units = p.units.threshold_counts() if isinstance(p.units, BinnedScoreCounts) else p.units

            def label_totals(thr: float) -> Any:
                if p.totals is not None and p.totals.info.get("threshold") != thr:  # pragma: no cover
                    raise AssertionError("the grouped totals were counted at another threshold")
                return p.totals

            given = None
            if p.given is not None:  # predicted labels given with the scores
                given = labels_rows(p.given, p.given_counts0, ctx, binary=True, pos_label=pl, n_rows=p.n_rows,
                                    weighted=p.weighted, replicates=None if not (p.weighted and p.totals is not None
                                                                                 and ctx.ci)
                                    else replicate_matrices(p.totals, ctx, np.asarray(p.given.labels)))
            out = _binary_scores_from_counts(tc, units, threshold, pl, nl, reason, ctx, n_rows=p.n_rows,
                                             label_totals=label_totals if p.weighted and given is None else None,
                                             given_labels=given)
            if p.weighted:
                out["total_weight"] = float(tc.n)
        else:
            replicates = None
            if p.weighted and p.totals is not None and ctx.ci:
                replicates = replicate_matrices(p.totals, ctx, np.asarray(p.stats.labels))
            out = labels_rows(p.stats, p.counts0, ctx, binary=p.task == "binary-labels",
                              pos_label=pos[0] if pos is not None else pos_label, n_rows=p.n_rows,
                              weighted=p.weighted, replicates=replicates)
        out["notes"] = list(out.get("notes", ())) + notes
        out["permutation_cells"] = p.stats.permutation_cells if p.task == "multiclass-probabilities" else p.cells
        out["score_permutation_cells"] = p.score_cells
        out.update(row_source=p.row_source, quantile=p.quantile)  # the row tests fetch the rows within the budget
        out["permutation_loss_sums"] = (p.stats.permutation_loss_sums if p.task == "multiclass-probabilities"
                                        else p.loss_sums)
        return out, p.task, p.source, p.reason

    report = _run(compute, metrics=metrics, confidence_level=confidence_level, n_resamples=n_resamples,
                  ci=ci, random_state=random_state, strict=strict, name=name,
                  dbt_samples=dbt_samples, progress=progress)
    return dataclasses.replace(report, engine=engine, score_statistic=score_statistic)


def _as_source(source: Any, engine: str, spark: Any, name: str | None, delimiter: str | None = None) -> Any:
    """``source`` itself when it is a scan already opened (a group of ``compare --by``), else its scan."""
    from ..engines import Scan

    if isinstance(source, Scan):
        return source
    return _open(source, engine, spark=spark, name=name, delimiter=delimiter)


def _names(source: Any) -> str:
    if isinstance(source, (list, tuple)):
        return ", ".join(os.fspath(s) for s in source)
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else type(source).__name__


def evaluate_source(
    source: Any,
    *,
    y_true: str,
    y_score: str | Sequence[str] = (),
    y_pred: str | None = None,
    sample_weight: str | None = None,
    engine: str = SOURCE_ENGINE,
    score_bins: int | None = None,
    spark: Any = None,
    delimiter: str | None = None,
    task: str | None = None,
    pos_label: Any = None,
    threshold: float | None = None,
    labels: Any = None,
    quantile: float | None = None,
    metrics: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    ci: bool = True,
    random_state: int = 0,
    strict: bool = False,
    name: str | None = None,
    dbt_samples: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """:func:`~beyondchance.report.evaluate` on a source scanned by an engine (module docstring).

    Parameters
    ----------
    source : what :func:`beyondchance.compute_statistics` takes for the engine: a CSV /
        Parquet path, glob pattern or list of paths (duckdb, spark), a table or a
        mapping of columns (memory, duckdb), a Spark DataFrame (spark)
    y_true, y_score, y_pred, sample_weight : column names (``y_score``: one score column; ``sample_weight``: the weight column)
    engine : ``"duckdb"``, ``"spark"`` or ``"memory"``
    score_bins : binary scores and class probabilities: bin the scores
        (``floor(score · bins)``) instead of keeping every distinct score; the AUC
        error bound is stated in ``Report.score_statistic`` (binary) and the notes
    spark : the SparkSession of ``engine="spark"`` (default: the active one)
    delimiter : CSV files: the field delimiter (default: tab for ``.tsv``, else ``,``)
    task, pos_label, threshold, labels, quantile, metrics, confidence_level, n_resamples, ci,
    random_state, strict, name, dbt_samples, progress : as in
        :func:`~beyondchance.report.evaluate`

    Returns
    -------
    Report
        With ``engine`` set.
    """
    y_score = (y_score,) if isinstance(y_score, str) else tuple(y_score)
    src = _as_source(source, engine, spark, name, delimiter)
    step = progress or (lambda message: None)
    step(f"scanning the labels ({engine})")
    try:
        p = _prepare(src, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight, task=task, labels=labels,
                     score_bins=score_bins, ci=ci, quantile=quantile)
        if score_bins is not None and p.task not in ("binary-scores", "multiclass-probabilities"):
            raise InvalidInputError(f"score_bins applies to scores and class probabilities, not to a {p.task} report")
        pos = None
        if p.task == "binary-scores":
            pos = _resolve_positive(p.classes, p.counts0, pos_label)
            step(f"aggregating the scores ({engine})")
            _scan_scores(src, p, y_true=y_true, y_score=y_score[0], weight=sample_weight, pos=pos[0],
                         score_bins=score_bins)
        if ci:
            step(f"summing the bootstrap groups ({engine})")
            _scan_replicates(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight, labels=labels,
                             seed=random_state, threshold=threshold, pos=pos, score_bins=score_bins)
            p.row_source = RowSource(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight,
                                     labels=labels, score_bins=score_bins)
        # the source stays open while the report is built: its row permutation tests fetch the rows
        return _report(p, engine=src.engine, pos_label=pos_label, threshold=threshold, metrics=metrics,
                       confidence_level=confidence_level, n_resamples=n_resamples, ci=ci, random_state=random_state,
                       strict=strict, name=name, dbt_samples=dbt_samples, progress=progress)
    finally:
        src.close()


def compare_sources(
    sources: Mapping[str, Any],
    *,
    y_true: str,
    y_score: str | Sequence[str] = (),
    y_pred: str | None = None,
    sample_weight: str | None = None,
    engine: str = SOURCE_ENGINE,
    score_bins: int | None = None,
    spark: Any = None,
    delimiter: str | None = None,
    reference: str | None = None,
    task: str | None = None,
    pos_label: Any = None,
    threshold: float | None = None,
    labels: Any = None,
    metrics: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
):
    """:func:`~beyondchance.report.compare` of sources scanned by an engine.

    The task comes from the first source; the positive class from the pooled label
    counts and the default threshold from every set's score range, as in
    :func:`~beyondchance.report.compare`.  A source without the ``y_true`` column (binary
    scores: one ``y_score`` column) is a window whose labels have not arrived: the engine
    aggregates its exact score histogram (one ``GROUP BY score``), and its prevalence and
    metrics are estimated under label shift from that and the reference's statistics
    (:func:`~beyondchance.monitoring.label_free.estimate_from_statistics`) — the same numbers on
    every engine.
    """
    from ..measures.curves import ThresholdCounts
    from ..statistics.sufficient import BinnedScoreCounts, LabelCounts
    from .compare import _resolved_once, _with_windows, compare_reports, groups_seed
    from .tasks.binary_scores import _threshold_choice

    y_score = (y_score,) if isinstance(y_score, str) else tuple(y_score)
    ci = bool(options.get("ci", True))
    quantile = options.pop("quantile", None)  # of every set's scan (the rows follow from it)
    names = list(sources)
    step = progress or (lambda message: None)
    prepared: list[tuple[str, Any, _Prepared]] = []
    windows: list[tuple[str, Any, int]] = []  # (name, score histogram, rows) of the sources without labels
    no_labels: list[str] = []  # why each of those has none (the column not found, with the columns it has)
    opened: list[Any] = []
    try:
        for nm in names:
            step(f"scanning {nm} ({engine})")
            src = _as_source(sources[nm], engine, spark, nm, delimiter)
            opened.append(src)
            try:
                p = _prepare(src, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight,
                             task=task if not prepared else prepared[0][2].task, labels=labels, score_bins=score_bins,
                             ci=ci, quantile=quantile)
            except InvalidInputError as exc:
                if not (f"column {y_true!r} not found" in str(exc) and len(y_score) == 1 and y_pred is None):
                    raise InvalidInputError(f"test set {nm!r}: {exc}") from None
                no_labels.append(str(exc))
                step(f"aggregating the scores of {nm} ({engine}; no labels)")
                try:
                    windows.append((nm, *src.score_histogram(y_score=y_score[0], weight=sample_weight)))
                except InvalidInputError as exc2:
                    raise InvalidInputError(f"test set {nm!r} (no labels): {exc2}") from None
                continue
            prepared.append((nm, src, p))
        if not prepared:
            raise InvalidInputError(f"compare needs a test set with labels as the reference, and none has the "
                                    f"column {y_true!r}: {no_labels[0]}")
        labelled = [nm for nm, _, _ in prepared]
        if reference is not None and reference not in labelled:
            known = labelled + [f"{nm} (no labels)" for nm, _, _ in windows]
            raise InvalidInputError(f"reference {reference!r} is not a test set with labels; test sets: "
                                    f"{', '.join(known)}")
        first = prepared[0][2]
        detected = (first.task, first.reason) if first.source == "detected" else None
        assumed = None
        for _, _, p in prepared:  # as compare(): the task is resolved once, then given to every set
            p.source, p.reason = "given", "given"
        pos = None
        if first.task.startswith("binary"):
            pooled = LabelCounts(prepared[0][2].classes, prepared[0][2].counts0)
            for _, _, p in prepared[1:]:
                pooled = pooled.merge(LabelCounts(p.classes, p.counts0))
            pl = pos_label if pos_label is not None else _resolve_positive(pooled.labels, pooled.counts, None)[0]
            for nm, src, p in prepared:
                try:
                    resolved = _resolve_positive(p.classes, p.counts0, pl)
                except InvalidInputError as exc:
                    raise InvalidInputError(f"test set {nm!r}: {exc}") from None
                if first.task == "binary-scores":
                    step(f"aggregating the scores of {nm} ({engine})")
                    _scan_scores(src, p, y_true=y_true, y_score=y_score[0], weight=sample_weight, pos=resolved[0],
                                 score_bins=score_bins)
            pos_label = pl
            if first.task == "binary-scores" and threshold is None and y_pred is None:
                ranges = []
                for _, _, p in prepared:
                    tc = p.stats.threshold_counts() if isinstance(p.stats, BinnedScoreCounts) else p.stats
                    assert isinstance(tc, ThresholdCounts)
                    if tc.thresholds.size:
                        ranges.append((float(tc.thresholds[-1]), float(tc.thresholds[0])))
                ranges = ranges or [(0.0, 0.0)]
                assumed = _threshold_choice(None, min(r[0] for r in ranges), max(r[1] for r in ranges))
                threshold = assumed[0]
        if ci:
            for nm, src, p in prepared:
                step(f"summing the bootstrap groups of {nm} ({engine})")
                pos = _resolve_positive(p.classes, p.counts0, pos_label) if p.task == "binary-scores" else None
                try:
                    _scan_replicates(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight,
                                     labels=labels, seed=options.get("random_state", 0), threshold=threshold,
                                     pos=pos, score_bins=score_bins)
                except InvalidInputError as exc:
                    raise InvalidInputError(f"test set {nm!r}: {exc}") from None
                p.row_source = RowSource(src, p, y_true=y_true, y_score=y_score, y_pred=y_pred, weight=sample_weight,
                                         labels=labels, score_bins=score_bins)
        probabilities = None  # for the decomposition of the AUCs and losses of class probabilities
        if first.task == "multiclass-probabilities":
            probabilities = {}
            for nm, src, p in prepared:
                step(f"aggregating the class scores of {nm} ({engine})")
                probabilities[nm] = src.probability_statistics(
                    y_true=y_true, proba=list(y_score), weight=sample_weight,
                    classes=p.classes if labels is None else labels, normalize=bool(options.get("normalize", False)),
                    score_bins=score_bins, seed=groups_seed(options.get("random_state", 0)))
            if any(v is None for v in probabilities.values()):
                probabilities = None
        reports = []  # built while the sources are open: their row permutation tests fetch the rows
        for nm, src, p in prepared:
            step(f"evaluating {nm}")
            try:
                reports.append(_report(p, engine=src.engine, pos_label=pos_label, threshold=threshold,
                                       metrics=metrics, name=nm, progress=progress, **options))
            except InvalidInputError as exc:
                raise InvalidInputError(f"test set {nm!r}: {exc}") from None
    finally:
        for src in opened:
            src.close()
    targets = {nm: p.stats.targets for nm, _, p in prepared} if first.task == "regression" else None
    comparison = compare_reports(_resolved_once(reports, detected, assumed), reference=reference, targets=targets,
                                 probabilities=probabilities, random_state=options.get("random_state", 0))
    if windows:
        comparison = _with_windows(comparison, windows, threshold, step, options)
    return comparison
