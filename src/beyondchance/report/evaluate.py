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

(The statistics engines of :mod:`beyondchance.statistics.sufficient` take the same names; the two
label tasks share one bundle of statistics.)  A binary report with scores is a
function of :class:`~beyondchance.measures.curves.ThresholdCounts` alone (plus the rows for
weighted confidence intervals), see ``beyondchance.measures.binary_scores``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .._warnings import InvalidInputError
from ..measures.losses import PinballLoss, get_loss
from ..measures.confusion import ConfusionMatrix
from ..measures.curves import ThresholdCounts
from ..engines.memory import confusion_counts, probability_statistics, regression_statistics, score_counts
from ..inference.poisson_bootstrap import GroupTotals, label_group_totals, probability_group_totals, regression_group_totals
from ..statistics.sufficient import STATISTICS
from ..measures.task_metrics import TASKS, Task, metrics_for_task, selectable_metrics
from .assemble import _run, _select_metrics, check_quantile_option
from .evaluation_context import _Context, _single_class
from .formatting import _label, fmt_value, shorten
from .metric_rows import MetricCI, MetricResult
from .report import Report
from .detect import Inputs, _resolve_positive, check_inputs, detect_task
from .tasks.binary_scores import _binary_scores_from_counts
from .tasks.labels import labels_rows, replicate_matrices
from .tasks.probabilities import probabilities_rows
from .tasks.regression import regression_rows

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
    "evaluate_counts",
]


def evaluate(
    y_true: Any,
    y_score: Any = None,
    *,
    y_pred: Any = None,
    sample_weight: Any = None,
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
    dbt_samples: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    r"""Evaluate predictions against the trivial predictor: the whole report in one call.

    Parameters
    ----------
    y_true : array-like (n,)
        True labels (classification) or targets (regression).
    y_score : array-like (n,) or (n, k), optional
        Scores (binary: one per row, higher meaning more likely positive) or an (n, k)
        matrix of class probabilities (columns in the order of ``labels``, default the
        sorted classes of y_true) — as ``--y-score`` of the command line and ``y_score``
        of :func:`~beyondchance.report.evaluate_source`.  The task is detected from the
        content, so predictions given positionally are read whatever they are (labels
        make a labels report, real values a regression report).
    y_pred : array-like (n,), optional
        Predicted labels, or real predictions (regression).  Alone, the report of the
        labels (or of the regression); given with binary scores ``y_score``, the labeling
        metrics (and the per-class table) come from the labels and the curves, AUCs and
        losses from the scores; there is no threshold (``threshold`` must then be None).
    sample_weight : array-like (n,), optional
        Non-negative weights, used by every measure.
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
    random_state : int
        Seed of every bootstrap (the report is reproducible).
    normalize : bool
        Rescale probability rows that do not sum to 1 instead of raising.
    strict : bool
        Raise :class:`~beyondchance.UndefinedMeasureError` when y_true holds a single
        class (the trivial predictor is then perfect and nothing can beat it).
    name : str, optional
        Name of the test set (shown in renderings).
    dbt_samples : int, optional
        Number of Directed-Binary-Tree reference curves for the OPS of the AUCs and of
        the OPRC / OPS(lift) curves.  Default None: the scoring module's default
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
    """
    if y_score is None:
        if y_pred is None:
            raise InvalidInputError("evaluate needs y_score (scores or class probabilities) or y_pred "
                                    "(predicted labels or values)")
        y, y_pred = y_pred, None
    else:
        y = y_score

    def compute(ctx: _Context) -> tuple[dict[str, Any], str, str, str]:
        ctx.step("checking the input")
        inp = check_inputs(y_true, y, sample_weight, task=task, labels=labels, normalize=normalize, y_pred=y_pred)
        level = check_quantile_option(quantile, inp.task)
        if metrics is not None:  # unknown names fail before any computation
            _select_metrics(dict.fromkeys(selectable_metrics(inp.task, quantile=level is not None)), metrics, inp.task)
        if inp.task == "regression":
            report = _regression(inp, ctx, quantile=level)
        else:
            report = _FROM_ARRAYS[inp.task](inp, ctx, pos_label=pos_label, threshold=threshold)
        report.update(inputs=inp, quantile=level)  # the rows, for the tests that permute them
        return report, inp.task, inp.source, inp.reason

    return _run(compute, metrics=metrics, confidence_level=confidence_level, n_resamples=n_resamples, ci=ci,
                random_state=random_state, strict=strict, name=name, dbt_samples=dbt_samples, progress=progress)


def evaluate_counts(
    counts: ThresholdCounts,
    *,
    threshold: float | None = None,
    positive_label: Any = 1,
    negative_label: Any = 0,
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
    """The binary-scores report from the sufficient statistic alone (no rows).

    ``counts`` are :class:`~beyondchance.measures.curves.ThresholdCounts` of **row counts**
    (unweighted data) — computed in memory by :func:`~beyondchance.threshold_counts`, or
    by an out-of-core engine, or merged from chunks.  Every number equals
    :func:`evaluate` on the rows (same seed): the labeling metrics' bootstrap runs on the
    confusion-matrix cells and the score measures' on the (score, label) cells, both
    functions of the counts.

    >>> import numpy as np
    >>> from beyondchance.measures.curves import threshold_counts
    >>> y = np.array([0, 0, 1, 1, 0, 1, 0, 0]); s = np.array([.1, .4, .35, .8, .2, .9, .6, .3])
    >>> a = evaluate_counts(threshold_counts(y, s), ci=False, dbt_samples=1024)
    >>> b = evaluate(y, s, ci=False, dbt_samples=1024)
    >>> a["f1"].value == b["f1"].value and a["roc_auc"].ops == b["roc_auc"].ops
    True
    """
    if not isinstance(counts, ThresholdCounts):
        raise InvalidInputError(f"counts must be ThresholdCounts, got {type(counts).__name__}")

    def compute(ctx: _Context) -> tuple[dict[str, Any], str, str, str]:
        if metrics is not None:
            _select_metrics(dict.fromkeys(selectable_metrics("binary-scores")), metrics, "binary-scores")
        if not counts.is_defined:
            _single_class(np.asarray([positive_label if counts.n_pos > 0 else negative_label]), ctx)
        reason = "given as ThresholdCounts of binary scores"
        report = _binary_scores_from_counts(
            counts, None, threshold, positive_label, negative_label, "given", ctx, n_rows=int(round(counts.n)),
        )
        return report, "binary-scores", "given", reason

    return _run(compute, metrics=metrics, confidence_level=confidence_level, n_resamples=n_resamples, ci=ci,
                random_state=random_state, strict=strict, name=name, dbt_samples=dbt_samples, progress=progress)


# =====================================================================================
# checked arrays -> the memory engine's statistics (one pass) -> the task's rows
# =====================================================================================


def _binary_scores(inp: Inputs, ctx: _Context, *, pos_label: Any, threshold: Any) -> dict[str, Any]:
    classes, codes, w = inp.classes, inp.codes, inp.weight
    ones = np.count_nonzero(codes)  # codes are 0 and 1: the rows of each class without a bincount pass
    counts = np.array([codes.shape[0] - ones, ones])[: classes.size]
    pos, neg, pos_reason = _resolve_positive(classes, counts, pos_label)
    values = [_label(c) for c in classes.tolist()]
    pos_idx = values.index(pos) if pos in values else -1
    s = inp.scores if inp.scores.ndim == 1 else inp.scores[:, pos_idx]
    is_pos = codes == pos_idx
    if classes.size < 2:
        _single_class(classes, ctx)
    ctx.step("sorting the scores")
    tc = score_counts(is_pos, s, w)
    units = None if w is None else score_counts(is_pos, s, (w > 0).astype(np.float64))

    def label_totals(thr: float) -> GroupTotals:
        return label_group_totals(is_pos.view(np.int8), (s >= thr).view(np.int8), np.array([neg, pos], dtype=object),
                                  w, seed=ctx.seed)

    given = None
    if inp.given is not None:  # predicted labels given with the scores
        given = _labels(Inputs("binary-labels", inp.source, inp.reason, inp.n, w, classes=inp.given[2],
                               codes=inp.given[0], pred_codes=inp.given[1]), ctx, pos_label=pos, threshold=None)
    return _binary_scores_from_counts(tc, units, threshold, pos, neg, pos_reason, ctx, n_rows=inp.n,
                                      label_totals=None if w is None else label_totals, given_labels=given)


def _labels(inp: Inputs, ctx: _Context, *, pos_label: Any, threshold: Any) -> dict[str, Any]:
    k, w = inp.classes.size, inp.weight
    ctx.step("counting")
    rows = inp.row_confusion  # the unweighted counts, when the detection counted them
    mat = rows if w is None and rows is not None else confusion_counts(inp.codes, inp.pred_codes, k, w)
    if w is None:
        counts0 = mat.sum(axis=1)
    else:
        counts0 = rows.sum(axis=1) if rows is not None else np.bincount(inp.codes, minlength=k).astype(np.float64)
    out = labels_rows(ConfusionMatrix(mat, inp.classes, pos_label=None), counts0, ctx,
                      binary=inp.task == "binary-labels", pos_label=pos_label, n_rows=inp.n, weighted=w is not None,
                      replicates=None if w is None or not ctx.ci else replicate_matrices(
                          label_group_totals(inp.codes, inp.pred_codes, inp.classes, w, seed=ctx.seed), ctx,
                          inp.classes))
    if w is not None:
        out["total_weight"] = float(w.sum())
    return out


def _probabilities(inp: Inputs, ctx: _Context, *, pos_label: Any, threshold: Any) -> dict[str, Any]:
    w = inp.weight
    # the loss CLT's sums only where the report needs them (beyond the row budget: report._chance)
    wanted = tuple(s for s in STATISTICS["multiclass-probabilities"] if s != "permutation_loss_sums")
    stats = probability_statistics(inp.codes, inp.proba, inp.classes, w, pos_label=None, statistics=wanted)
    totals = probability_group_totals(inp.codes, inp.proba, inp.classes, w, seed=ctx.seed) if ctx.ci else None
    out = probabilities_rows(stats, ctx, n_rows=inp.n, weighted=w is not None, totals=totals,
                             counts0=np.bincount(inp.codes, minlength=inp.classes.size).astype(np.float64))
    if w is not None:
        out["total_weight"] = float(w.sum())
    return out


def _regression(inp: Inputs, ctx: _Context, *, quantile: float | None) -> dict[str, Any]:
    w = inp.weight
    losses = ("squared", "absolute") + (() if quantile is None else (PinballLoss(quantile),))
    stats = regression_statistics(inp.target, inp.prediction, w, losses=[get_loss(lo) for lo in losses])
    totals = None
    if ctx.ci:
        median = stats.prediction_advantage("absolute").baseline.prediction
        level = None if quantile is None else (
            quantile, stats.prediction_advantage(PinballLoss(quantile)).baseline.prediction)
        totals = regression_group_totals(inp.target, inp.prediction, w, median, quantile=level, seed=ctx.seed)
    return regression_rows(stats, ctx, n_rows=inp.n, weighted=w is not None, totals=totals, quantile=quantile)


_FROM_ARRAYS: dict[str, Callable[..., dict[str, Any]]] = {
    "binary-scores": _binary_scores,
    "binary-labels": _labels,
    "multiclass-labels": _labels,
    "multiclass-probabilities": _probabilities,
}
