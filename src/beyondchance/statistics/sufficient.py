r"""Sufficient statistics: small, mergeable summaries from which every measure is computed.

Every measure of the package is a function of a few small statistics of the data
(SPEC §5).  They are made explicit here, each with ``merge`` (also ``+``):
``a.merge(b)`` is the statistic of the concatenated data — exactly, for the counts —
so that the data can be summarised in chunks, in a stream, out of core (DuckDB) or on
a cluster (Spark) and the pieces added up (:mod:`beyondchance.engines`,
:mod:`beyondchance.engines.accumulator`).

=========================  ===========================================  ==============================
statistic                  what it holds                                measures
=========================  ===========================================  ==============================
:class:`ConfusionMatrix`   weighted counts of (true, predicted) labels  labeling metrics, PA (0/1,
                           (from :mod:`beyondchance.measures.confusion`)         cost matrices), pure accuracy
:class:`LabelCounts`       weighted count of each true label            BMP of every label /
                                                                        probability loss
:class:`LossSums`          total weight and Σ w·ℓ per loss              the predictor's risk R(f)
:class:`Moments`           weight, mean, Σ w (y − ȳ)² of the target     BMP of the squared loss
                                                                        (R² with LossSums)
:class:`ValueHistogram`    per value (or bin): Σ w, Σ w y, min, max     BMP of the absolute / pinball
                                                                        loss (exact or bounded)
:class:`ThresholdCounts`   cumulative (positive, negative) weight at    every curve, AUC and point
                           each distinct score (:mod:`~.curves`)        metric, exactly
:class:`BinnedScoreCounts` the same per score bin (fixed size)          every curve, with a stated
                                                                        AUC error bound
=========================  ===========================================  ==============================

:class:`SufficientStatistics` bundles the ones a task needs and computes the
measures by calling the measure modules — one formula per measure:

* labeling metrics: :meth:`ConfusionMatrix.metric`;
* PA of label losses (0/1, cost matrices, label callables): the cells of the
  confusion matrix are passed as weighted rows to
  :meth:`PredictionAdvantageResult.from_predictions <beyondchance.PredictionAdvantageResult.from_predictions>`;
* BMPs of probability / absolute / pinball losses: the label counts or the exact
  value counts are passed as weighted rows to
  :func:`~beyondchance.bayes_marginal_prediction`;
* curves: the methods of :class:`~beyondchance.ThresholdCounts`;
* OPS: :func:`~beyondchance.outperformance_score` of the value computed above.

The statistics live in modules by concept: :mod:`beyondchance.statistics.labels`
(:class:`LabelCounts`), :mod:`beyondchance.statistics.values` (:class:`LossSums`,
:class:`Moments`, :class:`ValueHistogram`, with the bounds of binned targets) and
:mod:`beyondchance.statistics.scores` (:class:`BinnedScoreCounts`, ``ClassScoreCounts``, with
the bounds of binned scores); this module bundles them.

Examples
--------
>>> import numpy as np
>>> from beyondchance.engines.memory import statistics_from_arrays
>>> y = np.array([0, 0, 1, 1, 0, 1]); s = np.array([.1, .4, .35, .8, .2, .9])
>>> a = statistics_from_arrays(y[:3], y_score=s[:3])
>>> b = statistics_from_arrays(y[3:], y_score=s[3:])
>>> both = a + b
>>> both.auc("roc") == statistics_from_arrays(y, y_score=s).auc("roc")
True
>>> both.metric("accuracy"), both.n
(0.8333333333333334, 6.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import merge_from_zero
from .._warnings import InvalidInputError
from ..measures.advantage import PredictionAdvantageResult, _advantage
from ..measures.losses import Loss, SquaredLoss
from ..measures.confusion import ConfusionMatrix
from ..measures.curves import ThresholdCounts
from ..measures.task_metrics import TASKS as _TASKS
from .._summary_display import SummaryDisplay
from .._json import jsonable as _jsonable
from ._checks import _get_loss
from .labels import LabelCounts
from .values import LossSums, Moments, ValueHistogram
from .scores import BinnedScoreCounts, ClassScoreCounts

__all__ = [
    "ConfusionMatrix",
    "ThresholdCounts",
    "LabelCounts",
    "LossSums",
    "Moments",
    "ValueHistogram",
    "BinnedScoreCounts",
    "ClassScoreCounts",
    "SufficientStatistics",
    "STATISTICS",
    "TASKS",
    "LABEL_TASKS",
    "check_task",
]

#: the tasks a :class:`SufficientStatistics` can describe: the report's tasks, the same object
#: (:data:`beyondchance.measures.task_metrics.TASKS`)
TASKS: tuple[str, ...] = _TASKS
#: the two label tasks, which share one bundle (confusion matrix and label counts);
#: ``"binary-labels"`` checks that there are at most two classes
LABEL_TASKS: tuple[str, ...] = ("binary-labels", "multiclass-labels")
_LABELS = ("confusion", "label_counts", "permutation_cells")
#: the statistics of each task (the names of :class:`SufficientStatistics` fields)
STATISTICS: dict[str, tuple[str, ...]] = {
    "binary-scores": ("confusion", "label_counts", "loss_sums", "scores", "permutation_cells",
                      "permutation_loss_sums"),
    "binary-labels": _LABELS,
    "multiclass-labels": _LABELS,
    "multiclass-probabilities": ("confusion", "label_counts", "loss_sums", "class_scores", "permutation_cells",
                                 "permutation_loss_sums"),
    "regression": ("loss_sums", "moments", "targets", "prediction_moments", "squared_error_sums"),
}
#: the statistics tasks' names of 0.1 -> their names now (refused with that name)
RENAMED_TASKS: dict[str, str] = {
    "binary": "'binary-scores'",
    "labels": "'binary-labels' or 'multiclass-labels'",
    "probabilities": "'multiclass-probabilities'",
}


def check_task(task: Any, *, auto: bool = False) -> str:
    """``task`` if it is one of :data:`TASKS` (or ``"auto"`` when ``auto``); otherwise one
    InvalidInputError — naming the new name of an old one.

    >>> check_task("binary-scores")
    'binary-scores'
    >>> try:
    ...     check_task("binary")
    ... except InvalidInputError as exc:
    ...     print(exc)
    task 'binary' is now 'binary-scores'
    """
    if isinstance(task, str) and (task in TASKS or (auto and task == "auto")):
        return task
    if isinstance(task, str) and task in RENAMED_TASKS:
        raise InvalidInputError(f"task {task!r} is now {RENAMED_TASKS[task]}")
    options = ("'auto', " if auto else "") + ", ".join(map(repr, TASKS))
    raise InvalidInputError(f"task must be one of {options}; got {task!r}")


#: losses summed for probability predictions
PROBABILITY_LOSSES: tuple[str, ...] = ("cross_entropy", "brier")


# =====================================================================================
# the bundle
# =====================================================================================

_FIELDS = ("confusion", "label_counts", "loss_sums", "scores", "class_scores", "moments", "targets",
           "prediction_moments", "permutation_cells", "squared_error_sums", "permutation_loss_sums")


def merge_optional(a: Any, b: Any, name: str) -> Any:
    """``a.merge(b)`` of a field ``name`` that two sets of statistics may both lack (None);
    present in one only, or of two types (exact and binned scores), is an error."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        raise InvalidInputError(f"cannot merge statistics: {name!r} is present on one side only")
    if type(a) is not type(b):
        raise InvalidInputError(f"cannot merge {type(a).__name__} with {type(b).__name__} ({name!r}): "
                                "exact and binned scores, or different kinds of statistics")
    return a.merge(b)


def _binary_confusion(is_pos_true: np.ndarray, is_pos_pred: np.ndarray, weight: np.ndarray | None) -> ConfusionMatrix:
    """The 2 x 2 matrix with labels (False, True) = (negative, positive)."""
    t = is_pos_true.astype(np.intp)
    p = is_pos_pred.astype(np.intp)
    m = np.bincount(2 * t + p, weights=weight, minlength=4).astype(np.float64).reshape(2, 2)
    return ConfusionMatrix(m, np.array([False, True]), pos_label=True)


#: the type of each typed part of :class:`SufficientStatistics` and its total weight
_PARTS: dict[str, tuple[type | tuple[type, ...], Any]] = {
    "confusion": (ConfusionMatrix, lambda c: c.n), "label_counts": (LabelCounts, lambda c: c.n),
    "loss_sums": (LossSums, lambda c: c.weight), "scores": ((ThresholdCounts, BinnedScoreCounts), lambda c: c.n),
    "class_scores": (ClassScoreCounts, lambda c: c.n), "moments": (Moments, lambda c: c.weight),
    "targets": (ValueHistogram, lambda c: c.n), "prediction_moments": (Moments, lambda c: c.weight),
}


def _check_parts(s: "SufficientStatistics") -> None:
    """The parts of ``s`` are of their types and count the same weight (to rounding: the
    sums of each part add the rows in another order); the probabilities' parts are over the
    same classes."""
    weights = {}
    for name, (kind, weight) in _PARTS.items():
        part = getattr(s, name)
        if part is not None:
            if not isinstance(part, kind):
                raise InvalidInputError(f"the {name} of SufficientStatistics cannot be a {type(part).__name__}")
            weights[name] = float(weight(part))
    if weights and not np.allclose(list(weights.values()), next(iter(weights.values())), rtol=1e-9, atol=1e-12):
        raise InvalidInputError("the parts of SufficientStatistics count different weights: "
                                + ", ".join(f"{k} {v:g}" for k, v in weights.items()))
    labels = None if s.confusion is None or s.task == "binary-scores" else np.asarray(s.confusion.labels).tolist()
    if labels is not None and (s.class_scores is not None and np.asarray(s.class_scores.classes).tolist() != labels
                               or s.label_counts is not None
                               and not set(np.asarray(s.label_counts.labels).tolist()) <= set(labels)):
        raise InvalidInputError("the confusion matrix, label counts and class scores of SufficientStatistics are "
                                "over other classes")


@dataclass(frozen=True, eq=False)
class SufficientStatistics(SummaryDisplay):
    r"""The statistics of one evaluation task, mergeable, with every measure as a method.

    The ``stats`` of the :class:`~beyondchance.TaskStatistics` of class probabilities and of a
    regression (:func:`~beyondchance.profile`, :class:`~beyondchance.StatisticsAccumulator`);
    built inside the engines (``beyondchance.engines.compute_statistics``, any engine;
    ``beyondchance.engines.memory.statistics_from_arrays``, in memory).

    Attributes
    ----------
    task : one of :data:`TASKS`, the report's task names: ``"binary-scores"`` (labels and
        scores of the positive class), ``"binary-labels"`` and ``"multiclass-labels"``
        (predicted labels: one bundle, ``"binary-labels"`` checks that there are at most
        two classes), ``"multiclass-probabilities"`` (a probability per class) or
        ``"regression"`` (real predictions).  The names of 0.1 (``"binary"``,
        ``"labels"``, ``"probabilities"``) raise InvalidInputError naming the new one
    confusion : :class:`ConfusionMatrix` — predicted labels; for ``"binary-scores"`` the
        scores ≥ ``threshold``, labels (False, True) = (negative, positive); for
        ``"multiclass-probabilities"`` the arg-max class
    label_counts : :class:`LabelCounts` of the true labels
    loss_sums : :class:`LossSums` — ``"cross_entropy"`` and ``"brier"`` for
        probabilities (binary scores: only when every score lies in [0, 1]);
        ``"squared"``, ``"absolute"`` and pinball losses for regression
    scores : :class:`ThresholdCounts` (exact) or :class:`BinnedScoreCounts`
    class_scores : ``ClassScoreCounts`` — the one-vs-rest score counts of each
        class's probability (``"multiclass-probabilities"``), for the AUCs
    moments : :class:`Moments` of the target (regression)
    targets : :class:`ValueHistogram` of the target (regression)
    prediction_moments : :class:`Moments` of the predictions (regression; with the
        target's and the squared-error sum, the permutation test of the squared error)
    permutation_cells : ``beyondchance.inference.permutation.clt.PermutationCells`` of weighted
        data (None when unweighted: the exact tests need no more): rows, Σw per (distinct
        score, class) (``"binary-scores"``, exact scores only) or per (predicted class, class)
        (the label tasks; ``"multiclass-probabilities"``: the arg-max class) and Σw² per class — the
        permutation CLT test of the weighted rows
    squared_error_sums : ``beyondchance.inference.permutation.rows.SquaredErrorSums`` of weighted
        regression data (None when unweighted: the moments give the test) — the permutation
        CLT test of the weighted squared error
    permutation_loss_sums : ``beyondchance.inference.permutation.loss.PermutationLossSums`` — rows,
        Σw and Σw² per class, and over the rows the sums and K × K cross moments of the
        per-class log and Brier losses (``"multiclass-probabilities"`` up to
        ``MAX_LOSS_CLASSES`` classes; ``"binary-scores"``: scores in [0, 1]) — the permutation CLT
        test of the log loss and Brier score, weighted or not
    threshold : the decision threshold of a binary task's confusion matrix
    pos_label : the positive label of a binary task
    """

    task: str
    confusion: ConfusionMatrix | None = None
    label_counts: LabelCounts | None = None
    loss_sums: LossSums | None = None
    scores: ThresholdCounts | BinnedScoreCounts | None = None
    class_scores: ClassScoreCounts | None = None
    moments: Moments | None = None
    targets: ValueHistogram | None = None
    threshold: float | None = None
    pos_label: Any = None
    prediction_moments: Moments | None = None
    permutation_cells: Any = None
    squared_error_sums: Any = None
    permutation_loss_sums: Any = None

    def __post_init__(self) -> None:
        check_task(self.task)
        _check_parts(self)
        if self.task == "binary-labels":
            of = self.confusion if self.confusion is not None else self.label_counts
            classes = [] if of is None else np.asarray(of.labels).tolist()
            if len(classes) > 2:
                shown = ", ".join(map(str, classes[:5])) + (" ..." if len(classes) > 5 else "")
                raise InvalidInputError(f"task 'binary-labels' takes at most two classes, got {len(classes)} "
                                        f"({shown}); use task='multiclass-labels'")

    def merge(self, other: "SufficientStatistics") -> "SufficientStatistics":
        """The statistics of the concatenated data."""
        if not isinstance(other, SufficientStatistics):
            raise InvalidInputError(f"cannot merge SufficientStatistics with {type(other).__name__}")
        if self.task != other.task:
            raise InvalidInputError(f"cannot merge statistics of tasks {self.task!r} and {other.task!r}")
        if self.threshold != other.threshold:
            raise InvalidInputError(
                f"cannot merge statistics of different thresholds ({self.threshold} and {other.threshold})"
            )
        if self.pos_label != other.pos_label:
            raise InvalidInputError(
                f"cannot merge statistics of different positive labels ({self.pos_label!r} and {other.pos_label!r})"
            )
        parts = {name: merge_optional(getattr(self, name), getattr(other, name), name) for name in _FIELDS}
        return SufficientStatistics(self.task, threshold=self.threshold, pos_label=self.pos_label, **parts)

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    def _need(self, name: str, what: str) -> Any:
        value = getattr(self, name)
        if value is None:
            raise InvalidInputError(
                f"{what} needs the {name!r} statistic, which was not computed for this "
                f"{self.task!r} task (statistics= ... or another kind of prediction)"
            )
        return value

    # --- totals ------------------------------------------------------------------

    @property
    def n(self) -> float:
        """Total weight."""
        for name in ("label_counts", "moments", "loss_sums", "confusion", "scores"):
            value = getattr(self, name)
            if value is not None:
                return float(value.n if hasattr(value, "n") else value.weight)
        return float("nan")

    @property
    def prevalence(self) -> float:
        """π of a binary task (weight of the positives / total weight)."""
        if self.scores is not None:
            return float(self.scores.prevalence)
        return float(self._need("confusion", "the prevalence").prevalence)

    # --- labeling measures ---------------------------------------------------------

    def metric(self, name: Any, **kwargs: Any) -> Any:
        """A labeling metric of the confusion matrix (:meth:`ConfusionMatrix.metric`)."""
        return self._need("confusion", f"metric {name!r}").metric(name, **kwargs)

    # --- prediction advantage ------------------------------------------------------

    def default_loss(self) -> str:
        """zero_one for classification, squared for regression."""
        return "squared" if self.task == "regression" else "zero_one"

    def prediction_advantage(self, loss: str | Loss | None = None, *, strict: bool = False) -> PredictionAdvantageResult:
        r"""PA = 1 − R(f)/R(f₀) from the statistics (baseline: this sample's label distribution).

        * label losses (0/1, cost matrices, label callables): the confusion matrix's
          cells as weighted rows through :meth:`PredictionAdvantageResult.from_predictions <beyondchance.PredictionAdvantageResult.from_predictions>`;
        * probability losses (cross-entropy, Brier): R(f) from :class:`LossSums`,
          R(f₀) from :meth:`LabelCounts.baseline`;
        * squared: R(f) from :class:`LossSums`, R(f₀) = Var(Y) from :class:`Moments` (R²);
        * absolute / pinball: R(f₀) from :class:`ValueHistogram` (binned: the
          achievable upper bound; see :meth:`prediction_advantage_bounds`).
        """
        lo = _get_loss(self.default_loss() if loss is None else loss)
        if lo.prediction == "label":
            cm = self._need("confusion", f"the {lo.name} prediction advantage")
            extra = lo.extra_labels()
            if self.task == "binary-scores" and extra is not None and extra.dtype.kind != "b":
                raise InvalidInputError(
                    "the binary confusion matrix has labels (False, True) = (negative, positive); "
                    "give the cost matrix labels=[False, True]"
                )
            k = cm.n_classes
            t = np.repeat(cm.labels, k)
            p = np.tile(cm.labels, k)
            return PredictionAdvantageResult.from_predictions(t, p, loss=lo, sample_weight=cm.matrix.ravel(), strict=strict)
        risk = self._need("loss_sums", f"the {lo.name} prediction advantage").risk(lo)
        if lo.prediction == "probability":
            bmp = self._need("label_counts", f"the {lo.name} prediction advantage").baseline(lo)
        elif isinstance(lo, SquaredLoss):
            bmp = self._need("moments", "the squared-loss prediction advantage").baseline()
        else:
            bmp = self._need("targets", f"the {lo.name} prediction advantage").baseline(lo)
        r0 = float(bmp.risk)
        what = "the evaluated labels have a single class / value"
        value = float(_advantage(np.array([risk]), np.array([r0]), strict=strict, what=what)[0])
        return PredictionAdvantageResult(value, risk, r0, bmp, lo.name)

    def prediction_advantage_bounds(self, loss: str | Loss = "absolute") -> tuple[float, float]:
        """(lower, upper) PA of the absolute / pinball loss from a binned target histogram."""
        lo = _get_loss(loss)
        risk = self._need("loss_sums", f"the {lo.name} prediction advantage").risk(lo)
        r_low, r_high = self._need("targets", f"the {lo.name} prediction advantage").baseline_risk_bounds(lo)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (float(1 - risk / r_low) if r_low > 0 else float("nan"),
                    float(1 - risk / r_high) if r_high > 0 else float("nan"))

    # --- curves ----------------------------------------------------------------------

    def _scores(self, what: str) -> Any:
        return self._need("scores", what)

    def curve(self, kind: str = "roc", *, strict: bool = False):
        """The ROC / PR / lift / gain :class:`~beyondchance.Curve`."""
        return self._scores(f"the {kind} curve").curve(kind, strict=strict)

    def auc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        """Area under a curve (:meth:`ThresholdCounts.auc`)."""
        return self._scores(f"the {kind} AUC").auc(kind, method=method, strict=strict)

    def nauc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        """AUC / ideal AUC."""
        return self._scores(f"the {kind} NAUC").nauc(kind, method=method, strict=strict)

    def value_at(self, kind: str, at: Any, *, strict: bool = False) -> Any:
        """A curve's y at x = ``at`` (OPS paper eq. 9)."""
        return self._scores(f"the {kind} curve").value_at(kind, at, strict=strict)

    def auc_error_bound(self, kind: str = "roc") -> float:
        """0 for exact score counts; the stated bound for binned ones."""
        sc = self._scores(f"the {kind} AUC")
        return 0.0 if isinstance(sc, ThresholdCounts) else sc.auc_error_bound(kind)

    # --- outperformance score ----------------------------------------------------------

    def outperformance_score(self, metric: str, *, value: Any = None, **options: Any):
        """OPS of a labeling metric of the confusion matrix, or of a scoring metric
        (``"roc_auc"``, ``"pr_auc"``, …) of the scores, at this sample's prevalence."""
        from ..measures.registry import ALIASES, METRICS
        from ..outperformance import outperformance_score

        key = str(metric).strip().lower().replace("-", "_").replace(" ", "_")
        if key in METRICS or key in ALIASES:
            cm = self._need("confusion", f"the OPS of {metric!r}")
            if value is None:
                value = cm.metric(metric, **{k: v for k, v in options.items() if k == "beta"})
            return outperformance_score(metric, value, cm.prevalence, **options)
        if value is None:
            curve_of = {"roc_auc": ("roc", "default"), "pr_auc": ("pr", "default"),
                        "lift_auc": ("lift", "default"), "gain_auc": ("gain", "default")}
            if key not in curve_of:
                raise InvalidInputError(f"give value= for the scoring metric {metric!r}")
            value = self.auc(curve_of[key][0])
        return outperformance_score(metric, value, self.prevalence, **options)

    # --- output ----------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Headline measures of the task as a dict (nan where undefined, silently)."""
        import warnings

        out: dict[str, Any] = {"task": self.task, "n": self.n}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.confusion is not None:
                for name in ("accuracy", "balanced_accuracy", "kappa", "mcc"):
                    out[name] = float(self.metric(name, zero_division="nan"))
                if self.task == "binary-scores" or self.confusion.n_classes == 2:
                    try:
                        out["f1"] = float(self.metric("f1", zero_division="nan"))
                    except InvalidInputError:
                        pass
                out["prediction_advantage"] = self.prediction_advantage("zero_one").value
            if self.loss_sums is not None:
                for key in self.loss_sums.sums:
                    out[f"{key}_risk"] = self.loss_sums.risk(key)
                    try:
                        out[f"prediction_advantage_{key}"] = self.prediction_advantage(key).value
                    except InvalidInputError:
                        pass
            if self.scores is not None:
                out["prevalence"] = self.prevalence
                for kind in ("roc", "pr", "lift", "gain"):
                    out[f"{kind}_auc"] = self.auc(kind)
                if isinstance(self.scores, BinnedScoreCounts):
                    out["roc_auc_error_bound"] = self.auc_error_bound("roc")
                    out["pr_auc_error_bound"] = self.auc_error_bound("pr")
            if self.class_scores is not None:
                for kind in ("roc", "pr"):
                    try:
                        out[f"{kind}_auc_ovr_macro"] = self.class_scores.auc(kind)
                    except InvalidInputError:
                        out[f"{kind}_auc_ovr_macro"] = float("nan")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation of every statistic."""
        out: dict[str, Any] = {"task": self.task, "threshold": self.threshold, "pos_label": _jsonable(self.pos_label)}
        for name in _FIELDS:
            value = getattr(self, name)
            out[name] = None if value is None else value.to_dict()
        if isinstance(self.scores, ThresholdCounts):
            out["scores"]["kind"] = "exact"
        elif self.scores is not None:
            out["scores"]["kind"] = "binned"
        return out

    def __repr__(self) -> str:
        parts = [f"{name}={getattr(self, name)!r}" for name in _FIELDS if getattr(self, name) is not None]
        return f"SufficientStatistics(task={self.task!r}, " + ", ".join(parts) + ")"

    def _summary_title(self) -> str:
        return f"Sufficient statistics of a {self.task} task"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("n (weight)", self.n)]
        for name in _FIELDS:
            value = getattr(self, name)
            if isinstance(value, ConfusionMatrix):
                k = value.n_classes
                rows.append((name, f"{k} x {k} matrix of the labels {', '.join(map(str, value.labels.tolist()[:6]))}"))
            elif value is not None:
                rows += [(f"{name}: {key}", v) for key, v in value._summary_rows()]
        return rows


__all__ += ["PROBABILITY_LOSSES"]
