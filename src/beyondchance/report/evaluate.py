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
``"binary-scores"``            y_true two classes, y one score per row (or two probability
                               columns); labels = score ≥ threshold
``"binary-labels"``            y_true two classes, y predicted labels
``"multiclass-labels"``        more than two classes, y predicted labels
``"multiclass-probabilities"`` y an (n, k) matrix of class probabilities
``"regression"``               real-valued y_true and y
=============================  ============================================================

(The statistics engines of :mod:`beyondchance.stats` call the first "binary", the label
tasks "labels" and the probabilities "probabilities".)  A binary report with scores is a
function of :class:`~beyondchance.curves.ThresholdCounts` alone (plus the rows for
weighted confidence intervals), see :mod:`beyondchance.score_statistics`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Sequence

import numpy as np

from .._validation import (
    as_1d,
    as_float_1d,
    as_float_2d,
    check_consistent_length,
    check_n_resamples,
    check_option,
    check_positive_int,
    check_probabilities,
    check_sample_weight,
    check_unit_interval,
    encode_labels,
)
from .._warnings import BeyondChanceWarning, InvalidInputError, UndefinedMeasureError, UndefinedMeasureWarning
from ..advantage import prediction_advantage_result
from ..confusion import ConfusionMatrix
from ..curves import ThresholdCounts, threshold_counts
from ..metrics import METRICS, get_metric
from ..outperformance import outperformance_score
from ..uncertainty import bootstrap_ci
from ..score_statistics import (
    CoverageCurve,
    ScoreCells,
    compress_counts,
    confusion_at_threshold,
    loss_baseline,
    loss_sums,
    loss_terms,
    pa_coverage_from_counts,
    per_threshold,
)

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
    "REPORT_DBT_SAMPLES",
]

Task = Literal["binary-scores", "binary-labels", "multiclass-labels", "multiclass-probabilities", "regression"]
TASKS: tuple[str, ...] = (
    "binary-scores", "binary-labels", "multiclass-labels", "multiclass-probabilities", "regression",
)

#: display names
TITLES: dict[str, str] = {
    "accuracy": "Accuracy",
    "balanced_accuracy": "Balanced accuracy",
    "precision": "Precision",
    "recall": "Recall",
    "specificity": "Specificity",
    "f1": "F1",
    "mcc": "MCC",
    "kappa": "Cohen's kappa",
    "pure_accuracy": "Pure accuracy",
    "prediction_advantage": "Prediction advantage",
    "roc_auc": "ROC AUC",
    "pr_auc": "PR AUC (avg. precision)",
    "lift_auc": "Lift AUC",
    "log_loss": "Log loss",
    "brier": "Brier score",
    "mse": "Mean squared error",
    "mae": "Mean absolute error",
    "r2": "R² (PA, squared loss)",
    "d2_absolute_error": "D² (PA, absolute loss)",
}

_BINARY_LABELING = (
    "accuracy", "balanced_accuracy", "precision", "recall", "specificity", "f1", "mcc", "kappa",
    "pure_accuracy", "prediction_advantage",
)
_MULTICLASS_LABELING = (
    "accuracy", "balanced_accuracy", "precision", "recall", "f1", "mcc", "kappa", "pure_accuracy",
    "prediction_advantage",
)
_SCORING = ("roc_auc", "pr_auc", "lift_auc")
_PROBA_LOSSES = ("log_loss", "brier")
_REGRESSION = ("mse", "mae", "r2", "d2_absolute_error")
#: per-class metrics are macro-averaged in multi-class reports
_PER_CLASS = ("precision", "recall", "f1", "specificity")

#: bootstrap on rows (callables) is run on at most this many rows; beyond, on a random
#: subsample of this size with the interval rescaled by sqrt(m / n)
MAX_BOOTSTRAP_ROWS = 20_000
#: weighted labeling metrics: bootstrap on all rows while (cell, weight) pools are at most this many
_MAX_WEIGHT_POOLS = 4096
#: ... beyond, the rows of a random subsample of this size
_WEIGHTED_SUBSAMPLE = 5000
#: the score bootstrap pools adjacent scores into at most this many bins
MAX_SCORE_BINS = 1000
#: default number of Directed-Binary-Tree reference curves for the OPS of the AUCs and the
#: OPS curves: standard error ≤ 0.5/√G = 0.0039.  References are built on first use at a
#: prevalence (≈ G · 1025 curve points per π grid point) and cached on disk, so a report
#: uses fewer than the scoring module's default (114,688, for reproducing the paper's tables).
REPORT_DBT_SAMPLES = 16_384


def metrics_for_task(task: str, *, probabilities: bool = True) -> tuple[str, ...]:
    """The metrics a report of ``task`` computes by default.

    >>> metrics_for_task("binary-labels")[:3]
    ('accuracy', 'balanced_accuracy', 'precision')
    """
    task = check_option(task, "task", TASKS)
    if task == "binary-scores":
        return _BINARY_LABELING + _SCORING + (_PROBA_LOSSES if probabilities else ())
    if task == "binary-labels":
        return _BINARY_LABELING
    if task == "multiclass-labels":
        return _MULTICLASS_LABELING
    if task == "multiclass-probabilities":
        return _MULTICLASS_LABELING + _PROBA_LOSSES
    return _REGRESSION


# =====================================================================================
# results
# =====================================================================================


def _num(x: Any) -> float | None:
    """JSON-safe float (nan/inf -> None)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _label(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


#: labels and names longer than this are shortened with an ellipsis in text meant to be
#: read (verdicts, reasons, renderings); the data fields keep them whole
MAX_NAME_CHARS = 40


def shorten(text: Any, limit: int = MAX_NAME_CHARS) -> str:
    """``text`` as a string of at most ``limit`` characters, an ellipsis marking a cut.

    >>> shorten("x" * 50)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
    """
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fmt_label(x: Any) -> str:
    x = _label(x)
    return f"'{shorten(x)}'" if isinstance(x, str) else shorten(x)


@dataclass(frozen=True)
class MetricCI:
    """A confidence interval and how it was obtained."""

    low: float
    high: float
    method: str
    confidence_level: float
    n_resamples: int
    resampling: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": _num(self.low),
            "high": _num(self.high),
            "method": self.method,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "resampling": self.resampling,
        }


@dataclass(frozen=True)
class MetricResult:
    """One row of a report.

    Attributes
    ----------
    name : metric name (``"f1"``, ``"roc_auc"``, ``"log_loss"`` ...)
    title : display name
    kind : ``"labeling"``, ``"scoring"``, ``"loss"`` or ``"advantage"``
    value : the metric on the test set (nan when undefined)
    baseline : the best constant prediction's value
    baseline_prediction : which constant (``"always predicting 'No'"`` ...)
    ideal : a perfect predictor's value
    advantage : (value − baseline) / (ideal − baseline)
    greater_is_better : direction
    ops : outperformance score (None where OPS does not apply or is unavailable)
    ops_ci : OPS at the ends of the metric's CI, at the observed prevalence (OPS is
        monotone in the value there; an end beyond the values attainable at that
        prevalence — the bootstrap re-estimates the prevalence — counts as the range's
        end, OPS 0 or 1); :func:`beyondchance.outperformance_score_ci` gives the
        interval with the prevalence re-estimated in every resample
    ops_method : how the OPS was computed
    ci : :class:`MetricCI` or None
    verdict : one line
    """

    name: str
    title: str
    kind: str
    value: float
    baseline: float
    baseline_prediction: str
    ideal: float
    advantage: float
    greater_is_better: bool
    ops: float | None = None
    ops_ci: tuple[float, float] | None = None
    ops_method: str | None = None
    ci: MetricCI | None = None
    verdict: str = ""

    @property
    def beats_baseline(self) -> bool | None:
        """Whether the value is strictly better than the baseline (None if undefined)."""
        if not (math.isfinite(self.value) and math.isfinite(self.baseline)):
            return None
        return self.value > self.baseline if self.greater_is_better else self.value < self.baseline

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "kind": self.kind,
            "value": _num(self.value),
            "baseline": _num(self.baseline),
            "baseline_prediction": self.baseline_prediction,
            "ideal": _num(self.ideal),
            "advantage": _num(self.advantage),
            "higher_is_better": self.greater_is_better,
            "ops": _num(self.ops),
            "ops_ci": None if self.ops_ci is None else [_num(self.ops_ci[0]), _num(self.ops_ci[1])],
            "ops_method": self.ops_method,
            "ci": None if self.ci is None else self.ci.to_dict(),
            "verdict": self.verdict,
        }


@dataclass(frozen=True, eq=False)
class Report:
    """The evaluation of a predictor on one test set (see :func:`evaluate`).

    Attributes
    ----------
    task, task_source, task_reason : the task, ``"detected"`` or ``"given"``, and why
    n : number of rows; total_weight : sum of the weights (None when unweighted)
    prevalence : π (binary tasks; weighted)
    classes : the class labels (classification)
    positive_label, negative_label, positive_reason : binary tasks
    threshold, threshold_reason : binary scores
    metrics : name -> :class:`MetricResult`, in report order
    verdict : the headline lines, most important first
    ci_description : how the confidence intervals were obtained
    notes : warnings and remarks collected while evaluating
    name : the test set's name (file, group)
    confusion : the confusion matrix (classification)
    counts : the :class:`ThresholdCounts` (binary scores)
    engine : the engine that computed the statistics (None: :func:`evaluate` on rows)
    score_statistic : binned scores: ``{"bins", "auc_error_bound": {...}}``
    """

    task: str
    task_source: str
    task_reason: str
    n: int
    total_weight: float | None
    prevalence: float | None
    classes: tuple | None
    positive_label: Any
    negative_label: Any
    positive_reason: str | None
    threshold: float | None
    threshold_reason: str | None
    metrics: dict[str, MetricResult]
    verdict: tuple[str, ...]
    ci_description: str
    notes: tuple[str, ...] = ()
    name: str | None = None
    confusion: ConfusionMatrix | None = field(default=None, repr=False)
    counts: ThresholdCounts | None = field(default=None, repr=False)
    confidence_level: float = 0.95
    dbt_samples: int | None = None
    engine: str | None = None
    score_statistic: dict | None = None

    def __getitem__(self, name: str) -> MetricResult:
        try:
            return self.metrics[name]
        except KeyError:
            raise InvalidInputError(
                f"metric {name!r} is not in this report; it has {', '.join(self.metrics)}"
            ) from None

    # --- export ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: ``task``, ``n``, ``prevalence``, ``metrics`` {name: {value,
        baseline, advantage, ops, ci, ...}}, ``verdict`` and provenance."""
        out: dict[str, Any] = {
            "name": self.name,
            "task": self.task,
            "task_source": self.task_source,
            "task_reason": self.task_reason,
            "n": self.n,
        }
        if self.total_weight is not None:
            out["total_weight"] = _num(self.total_weight)
        if self.prevalence is not None:
            out["prevalence"] = _num(self.prevalence)
        if self.classes is not None:
            out["classes"] = [_label(c) for c in self.classes]
        if self.positive_label is not None:
            out["positive_label"] = _label(self.positive_label)
            out["negative_label"] = _label(self.negative_label)
            out["positive_reason"] = self.positive_reason
        if self.threshold is not None:
            out["threshold"] = self.threshold
            out["threshold_reason"] = self.threshold_reason
        if self.confusion is not None:
            out["confusion_matrix"] = self.confusion.to_dict()
        out["verdict"] = list(self.verdict)
        out["metrics"] = {name: m.to_dict() for name, m in self.metrics.items()}
        out["confidence_level"] = self.confidence_level
        out["ci_method"] = self.ci_description
        out["notes"] = list(self.notes)
        if self.engine is not None:
            out["engine"] = self.engine
        if self.score_statistic is not None:
            out["score_statistic"] = dict(self.score_statistic)
        return out

    def to_frame(self):
        """A :class:`pandas.DataFrame`, one row per metric."""
        import pandas as pd

        rows = []
        for name, m in self.metrics.items():
            rows.append({
                "metric": name,
                "value": m.value,
                "baseline": m.baseline,
                "baseline_prediction": m.baseline_prediction,
                "advantage": m.advantage,
                "ops": np.nan if m.ops is None else m.ops,
                "ci_low": np.nan if m.ci is None else m.ci.low,
                "ci_high": np.nan if m.ci is None else m.ci.high,
                "verdict": m.verdict,
            })
        return pd.DataFrame(rows).set_index("metric")

    # --- curves for plots (binary scores) -----------------------------------------

    def _need_counts(self, what: str) -> ThresholdCounts:
        if self.counts is None or not self.counts.is_defined:
            raise InvalidInputError(f"{what} needs binary scores with both classes present")
        return self.counts

    def _curve_counts(self, what: str) -> ThresholdCounts:
        """The counts with collinear points dropped (same curves), computed once."""
        cached = self.__dict__.get("_compressed")
        if cached is None:
            cached = compress_counts(self._need_counts(what))
            self.__dict__["_compressed"] = cached
        return cached

    def curve(self, kind: str):
        """The ROC / PR / lift / gain curve (:class:`~beyondchance.curves.Curve`)."""
        return self._curve_counts(f"the {kind} curve").curve(kind)

    def pa_coverage(self, *, levels: int | None = 200) -> CoverageCurve:
        """PA–coverage curve of "score ≥ threshold", confidence |score − threshold|."""
        tc = self._need_counts("the PA-coverage curve")
        return pa_coverage_from_counts(tc, float(self.threshold), levels=levels)

    def oprc(self, *, levels: Any = None) -> dict[str, Any]:
        """OPS(precision) against recall (OPS paper, Fig. 4b): keys ``x`` (recall), ``y``
        (precision), ``ops``, ``method``; 20 recall levels by default."""
        tc = self._curve_counts("the OPRC")
        return _ops_curve("precision_at_recall", "pr", tc, levels, self.dbt_samples)

    def ops_lift(self, *, levels: Any = None) -> dict[str, Any]:
        """OPS(lift) against the predicted-positive rate (OPS paper, Fig. 6b): keys ``x``
        (rate), ``y`` (lift), ``ops``, ``method``."""
        tc = self._curve_counts("the OPS(lift) curve")
        return _ops_curve("lift_at_rate", "lift", tc, levels, self.dbt_samples)


# =====================================================================================
# OPS helpers (scoring metrics need beyondchance.outperformance.scoring)
# =====================================================================================


def _ops_of(name: str, values: np.ndarray, prevalence: float, *, dbt_samples: int | None = None,
            **options: Any) -> tuple[np.ndarray | None, str | None, str | None]:
    """OPS of several values of one metric at one prevalence: (scores, method, problem)."""
    if name not in METRICS and dbt_samples is not None:
        options["n_samples"] = dbt_samples
    try:
        res = outperformance_score(name, np.asarray(values, dtype=np.float64), prevalence, **options)
    except InvalidInputError as exc:
        return None, None, " ".join(str(exc).split())
    scores = np.atleast_1d(np.asarray(res.score, dtype=np.float64))
    method = res.method
    if res.method == "dbt" and res.n_samples:
        method = f"dbt (Monte Carlo over {res.n_samples} random curves)"
    elif res.n_samples:
        method += f" ({res.n_samples} samples)"
    return scores, method, None


def _ops_curve(metric: str, curve: str, tc: ThresholdCounts, levels: Any, dbt_samples: int | None) -> dict[str, Any]:
    """The OPRC (``precision_at_recall``) or OPS(lift) curve (``lift_at_rate``) from the counts.

    DBT reference (OPS paper, eq. 10) via :mod:`beyondchance.outperformance.scoring`, as
    :mod:`beyondchance.outperformance.curves` does from rows; without that module, the
    labeling-metric OPS of precision / lift (uniform (α, β) reference), and it says so.
    """
    try:
        from ..outperformance.curves import DEFAULT_LEVELS
        from ..outperformance.scoring import scoring_outperformance_score
    except ImportError:  # pragma: no cover - scoring module absent
        DEFAULT_LEVELS, scoring_outperformance_score = np.round(np.r_[np.arange(1, 20) / 20, 0.99], 10), None
    x = np.asarray(DEFAULT_LEVELS if levels is None else levels, dtype=np.float64)
    pi = tc.prevalence
    y = np.asarray(tc.value_at(curve, x), dtype=np.float64).reshape(x.shape)
    ops = np.full(x.shape, np.nan)
    ok = np.isfinite(y)
    if scoring_outperformance_score is not None:
        if dbt_samples is None and metric == "lift_at_rate":  # not shipped: a smaller sample drawn once
            dbt_samples = REPORT_DBT_SAMPLES
        r = scoring_outperformance_score(metric, np.clip(y[ok], 0.0, None), pi, at=x[ok], n_samples=dbt_samples)
        method = f"dbt (Monte Carlo over {r.n_samples} random curves)"
    else:  # pragma: no cover
        r = outperformance_score("precision" if curve == "pr" else "lift", y[ok], pi)
        method = "uniform (alpha, beta) reference (labeling OPS)"
    ops[ok] = np.asarray(r.score, dtype=np.float64).reshape(-1)
    return {"x": x, "y": y, "ops": ops, "method": method}


# =====================================================================================
# task detection
# =====================================================================================


def _is_integral(a: np.ndarray) -> bool:
    if a.dtype.kind in "biu":
        return True
    if a.dtype.kind == "f":
        return bool(np.all(np.floor(a) == a))
    return False


def _numeric(a: np.ndarray) -> bool:
    if a.dtype.kind in "biuf":
        return True
    if a.dtype == object and a.size:
        sample = a[: min(a.size, 1000)]
        return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in sample)
    return False


def _as_numeric(a: np.ndarray) -> np.ndarray:
    return a if a.dtype.kind in "biuf" else a.astype(np.float64)


def detect_task(y_true: Any, y: Any) -> tuple[str, str]:
    """The task of a (y_true, y) pair and the reason, in words.

    >>> detect_task([0, 1, 1, 0], [0.2, 0.8, 0.6, 0.1])
    ('binary-scores', 'y_true has 2 classes (0, 1) and y holds non-integer numbers: scores')
    >>> detect_task(["a", "b", "c"], ["a", "c", "c"])[0]
    'multiclass-labels'
    >>> detect_task([1.5, 2.0, 3.1], [1.4, 2.2, 2.9])[0]
    'regression'
    """
    return _detect_task(y_true, y)[:2]


def _detect_task(y_true: Any, y: Any) -> tuple[str, str, tuple | None]:
    """(task, reason, encoding): for the label tasks the encoding (codes of y_true, codes
    of y, classes) of :func:`~beyondchance._validation.encode_labels`, computed once here
    and reused by the report."""
    yt = as_1d(y_true, "y_true")
    ya = np.asarray(y)
    if ya.ndim == 2 and ya.shape[1] > 1:
        _, _, classes = encode_labels(yt)
        if ya.shape[1] == 2 and classes.size <= 2:
            return "binary-scores", "y has 2 probability columns and y_true 2 classes: the positive class's column is the score", None
        return "multiclass-probabilities", f"y has {ya.shape[1]} columns of class probabilities", None
    yv = as_1d(y, "y")
    true_numeric = _numeric(yt)
    if true_numeric and not _is_integral(_as_numeric(yt)):
        return "regression", "y_true holds non-integer numbers", None
    if _numeric(yv) and (not true_numeric or not _is_integral(_as_numeric(yv))):
        encoded = encode_labels(yt)
        classes = encoded[2]
        k = int(classes.size)
        if k <= 2:
            what = "non-integer numbers" if true_numeric else "numbers"
            shown = ", ".join(map(_fmt_label, classes[:2]))
            return "binary-scores", f"y_true has {k} classes ({shown}) and y holds {what}: scores", encoded
        if true_numeric:
            return "regression", f"y_true has {k} distinct values and y holds non-integer numbers", None
        raise InvalidInputError(
            f"y_true has {k} classes but y holds one number per row; give the class probabilities "
            f"as {k} columns, or predicted labels"
        )
    encoded = encode_labels(yt, yv, names=("y_true", "y"))
    both = encoded[2]
    in_true = np.bincount(encoded[0], minlength=both.size) > 0
    k = int(in_true.sum())
    extra = both[~in_true].tolist()
    if both.size <= 2:
        return "binary-labels", f"y_true and y hold {both.size} labels ({', '.join(map(_fmt_label, both))})", encoded
    if extra and true_numeric and k > 20:
        return "regression", f"y_true has {k} distinct integer values and y holds other values", None
    if extra:
        return ("multiclass-labels", f"y holds labels that never occur in y_true ({', '.join(map(_fmt_label, extra[:5]))})",
                encoded)
    return "multiclass-labels", f"y_true has {k} classes and y holds labels", encoded


def _coerce_pos_label(pos_label: Any, classes: np.ndarray) -> Any:
    """A positive label given as text (command line) in the type of the classes."""
    if pos_label is None:
        return None
    values = [_label(c) for c in classes.tolist()]
    if pos_label in values:
        return pos_label
    if isinstance(pos_label, str):
        for conv in (int, float):
            try:
                v = conv(pos_label)
            except ValueError:
                continue
            if v in values:
                return v
        low = pos_label.strip().lower()
        if low in ("true", "false") and any(isinstance(c, (bool, np.bool_)) for c in values):
            return low == "true"
    return pos_label


def _resolve_positive(classes: np.ndarray, counts: np.ndarray, pos_label: Any) -> tuple[Any, Any, str]:
    """(positive label, negative label, reason) for a binary task.

    >>> _resolve_positive(np.array(["No", "Yes"]), np.array([90, 10]), None)
    ('Yes', 'No', 'the minority class')
    >>> _resolve_positive(np.array([0, 1]), np.array([10, 90]), None)
    (1, 0, 'the label 1')
    """
    values = [_label(c) for c in classes.tolist()]
    if pos_label is not None:
        p = _coerce_pos_label(pos_label, classes)
        if p not in values and len(values) >= 2:
            raise InvalidInputError(f"pos_label={pos_label!r} is not one of the labels {values}")
        neg = next((v for v in values if v != p), None)
        return p, neg, "given"
    if values and all(isinstance(v, (bool, np.bool_)) for v in values):
        return True, False, "the label True"
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric and (set(values) <= {0, 1} or set(values) <= {-1, 1}):
        neg = next((v for v in values if v != 1), -1 if -1 in values else 0)
        return 1, neg, "the label 1"
    if len(values) == 1:
        return values[0], None, "the only class"
    i = int(np.argmin(counts)) if counts[0] != counts[1] else len(values) - 1
    return values[i], values[1 - i], "the minority class"


# =====================================================================================
# the public function
# =====================================================================================


class _Collector:
    """Collects warnings raised while evaluating into notes (re-emitted at the end)."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def add(self, message: str) -> None:
        message = " ".join(str(message).split())
        if message and message not in self.notes:
            self.notes.append(message)


def evaluate(
    y_true: Any,
    y: Any,
    *,
    sample_weight: Any = None,
    task: Task | None = None,
    pos_label: Any = None,
    threshold: float | None = None,
    labels: Any = None,
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
    y : array-like (n,) or (n, k)
        Scores (binary), predicted labels, an (n, k) matrix of class probabilities
        (columns in the order of ``labels``, default the sorted classes of y_true), or
        real predictions.
    sample_weight : array-like (n,), optional
        Non-negative weights, used by every measure.
    task : str, optional
        One of :data:`TASKS`; detected from the data when None (the report says what was
        detected and why).
    pos_label : optional
        Positive class of a binary task.  Default: 1 (or True) for 0/1, −1/1 and boolean
        labels, else the minority class.
    threshold : float, optional
        Binary scores: a score ≥ threshold is predicted positive.  Default 0.5 when every
        score lies in [0, 1], else 0.
    labels : array-like, optional
        The class labels, in the order of the probability columns.
    metrics : sequence of str, optional
        The metrics to report (default :func:`metrics_for_task`).
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
        for the AUCs and the OPRC at its default levels
        (:mod:`beyondchance.outperformance.shipped`), and :data:`REPORT_DBT_SAMPLES` =
        16,384 curves (≤ 0.0039) for the OPS(lift) curve.  Other references are drawn on
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
    (score, label) cells, exact up to :data:`MAX_SCORE_BINS` distinct scores, binned
    beyond (see :mod:`beyondchance.score_statistics`).  Regression and multi-class
    probability losses: percentile row bootstrap, on a random subsample of
    :data:`MAX_BOOTSTRAP_ROWS` rows beyond that size with the interval rescaled by
    √(m/n).

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
    """
    def compute(ctx: _Context) -> tuple[dict[str, Any], str, str, str]:
        ctx.step("checking the input")
        encoded = None
        if task is None:
            detected, reason, encoded = _detect_task(y_true, y)
            source = "detected"
        else:
            detected = check_option(task, "task", TASKS)
            reason, source = "given", "given"
        if metrics is not None:  # unknown names fail before any computation
            _select_metrics(dict.fromkeys(metrics_for_task(detected)), metrics, detected)
        if detected == "binary-scores":
            report = _binary_scores(y_true, y, sample_weight, pos_label, threshold, labels, normalize, ctx,
                                    encoded=encoded)
        elif detected == "binary-labels":
            report = _labels(y_true, y, sample_weight, pos_label, labels, ctx, binary=True, encoded=encoded)
        elif detected == "multiclass-labels":
            report = _labels(y_true, y, sample_weight, pos_label, labels, ctx, binary=False, encoded=encoded)
        elif detected == "multiclass-probabilities":
            report = _multiclass_proba(y_true, y, sample_weight, labels, normalize, ctx)
        else:
            report = _regression(y_true, y, sample_weight, ctx)
        return report, detected, source, reason

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

    ``counts`` are :class:`~beyondchance.curves.ThresholdCounts` of **row counts**
    (unweighted data) — computed in memory by :func:`~beyondchance.threshold_counts`, or
    by an out-of-core engine, or merged from chunks.  Every number equals
    :func:`evaluate` on the rows (same seed): the labeling metrics' bootstrap runs on the
    confusion-matrix cells and the score measures' on the (score, label) cells, both
    functions of the counts.

    >>> import numpy as np
    >>> from beyondchance.curves import threshold_counts
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
            _select_metrics(dict.fromkeys(metrics_for_task("binary-scores")), metrics, "binary-scores")
        if not counts.is_defined:
            _single_class(np.asarray([positive_label if counts.n_pos > 0 else negative_label]), ctx)
        reason = "given as ThresholdCounts of binary scores"
        report = _binary_scores_from_counts(
            counts, None, threshold, positive_label, negative_label, "given", ctx, rows=None,
            n_rows=int(round(counts.n)),
        )
        return report, "binary-scores", "given", reason

    return _run(compute, metrics=metrics, confidence_level=confidence_level, n_resamples=n_resamples, ci=ci,
                random_state=random_state, strict=strict, name=name, dbt_samples=dbt_samples, progress=progress)


def _run(
    compute: Callable[[Any], tuple[dict[str, Any], str, str, str]], *, metrics: Any, confidence_level: float,
    n_resamples: int, ci: bool, random_state: int, strict: bool, name: str | None, dbt_samples: int | None,
    progress: Callable[[str], None] | None,
) -> Report:
    """Check the common options, compute the rows, add OPS and verdicts, build the Report."""
    step = progress or (lambda message: None)
    collector = _Collector()
    level = float(check_unit_interval(confidence_level, "confidence_level", open_=True))
    n_resamples = check_n_resamples(n_resamples, level) if ci else check_positive_int(n_resamples, "n_resamples")
    if dbt_samples is not None and (isinstance(dbt_samples, bool) or not isinstance(dbt_samples, (int, np.integer))
                                    or dbt_samples < 1):
        raise InvalidInputError(f"dbt_samples must be a positive integer, got {dbt_samples!r}")
    ctx = _Context(
        level=level, n_resamples=int(n_resamples), ci=bool(ci), seed=random_state,
        collector=collector, step=step, strict=strict, dbt_samples=dbt_samples,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BeyondChanceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        report, detected, source, reason = compute(ctx)
        step("computing the verdict")
        chosen = _select_metrics(report["metrics"], metrics, detected)
        rows = _finish_rows(report, chosen, ctx)
    for w in caught:
        if issubclass(w.category, BeyondChanceWarning):
            collector.add(str(w.message))
    notes = tuple(report.get("notes", ())) + tuple(collector.notes)
    verdict = _overall_verdict(detected, rows)
    result = Report(
        task=detected,
        task_source=source,
        task_reason=reason,
        n=int(report["n"]),
        total_weight=report.get("total_weight"),
        prevalence=report.get("prevalence"),
        classes=report.get("classes"),
        positive_label=report.get("positive_label"),
        negative_label=report.get("negative_label"),
        positive_reason=report.get("positive_reason"),
        threshold=report.get("threshold"),
        threshold_reason=report.get("threshold_reason"),
        metrics=rows,
        verdict=verdict,
        ci_description=report.get("ci_description", "") if ci else "not computed",
        notes=notes,
        name=name,
        confusion=report.get("confusion"),
        counts=report.get("counts"),
        confidence_level=level,
        dbt_samples=dbt_samples,
    )
    for note in collector.notes:
        warnings.warn(note, UndefinedMeasureWarning, stacklevel=3)
    return result


@dataclass
class _Context:
    level: float
    n_resamples: int
    ci: bool
    seed: int
    collector: _Collector
    step: Callable[[str], None]
    strict: bool
    dbt_samples: int | None = None


def _select_metrics(available: dict, wanted: Sequence[str] | None, task: str) -> list[str]:
    if wanted is None:
        return list(available)
    if isinstance(wanted, str):
        wanted = [w for w in wanted.split(",") if w.strip()]
    out = []
    for w in wanted:
        key = w.strip().lower().replace("-", "_").replace(" ", "_")
        if key not in available:
            raise InvalidInputError(
                f"unknown metric {w!r} for a {task} report; available: {', '.join(available)}"
            )
        if key not in out:
            out.append(key)
    return out


def _single_class(classes: np.ndarray, ctx: _Context) -> None:
    msg = (
        f"y_true holds a single class ({_fmt_label(classes[0]) if classes.size else 'none'}): always predicting it "
        "is perfect, so the prediction advantage, the OPS and the curves are undefined"
    )
    if ctx.strict:
        raise UndefinedMeasureError(msg)
    ctx.collector.add(msg)


# =====================================================================================
# confidence intervals
# =====================================================================================


def _ci_from_bootstrap(res: Any, resampling: str) -> MetricCI:
    return MetricCI(float(res.low), float(res.high), res.method, res.confidence_level, res.n_resamples, resampling)


def _labeling_ci(name: str, cm: ConfusionMatrix, rows: tuple | None, ctx: _Context, **options: Any) -> MetricCI | None:
    """BCa bootstrap of a labeling metric; on the cells (unweighted) or the rows (weighted)."""
    if not ctx.ci:
        return None
    k = cm.n_classes
    common = dict(n_resamples=ctx.n_resamples, confidence_level=ctx.level, random_state=ctx.seed, **options)
    if rows is None:
        classes = np.arange(k)
        res = bootstrap_ci(
            name, np.repeat(classes, k), np.tile(classes, k),
            sample_weight=np.rint(cm.matrix.ravel()), weight_type="frequency", labels=classes, **common,
        )
        resampling = "multinomial resamples of the confusion-matrix cells (= the row bootstrap)"
    else:
        yt, yp, w = rows
        n = yt.shape[0]
        if n <= MAX_BOOTSTRAP_ROWS or np.unique(w).size * k * k <= _MAX_WEIGHT_POOLS:
            # pools = (cell, weight) pairs: cheap while they are few
            res = bootstrap_ci(name, yt, yp, sample_weight=w, **common)
            return _ci_from_bootstrap(res, "row bootstrap (rows keep their weights)")
        # many distinct weights on many rows: a random subsample, interval rescaled
        rng = np.random.default_rng(ctx.seed)
        idx = np.sort(rng.choice(n, _WEIGHTED_SUBSAMPLE, replace=False))
        ws = w[idx]
        res = bootstrap_ci(name, yt[idx], yp[idx], sample_weight=ws, **{**common, "method": "percentile"})
        estimate = float(cm.metric(name, **{k_: v for k_, v in options.items()
                                            if k_ in ("average", "zero_division")}))
        scale = math.sqrt((ws.sum() ** 2 / np.dot(ws, ws)) / (w.sum() ** 2 / np.dot(w, w)))
        return MetricCI(
            float(estimate + (res.low - res.estimate) * scale), float(estimate + (res.high - res.estimate) * scale),
            "percentile", res.confidence_level, res.n_resamples,
            f"row bootstrap of a random subsample of {_WEIGHTED_SUBSAMPLE} weighted rows, interval rescaled "
            f"by sqrt(m/n) (Kish effective sizes) = {scale:.3g}",
        )
    return _ci_from_bootstrap(res, resampling)


def _row_ci(
    func: Callable[..., float], a: np.ndarray, b: np.ndarray, w: np.ndarray | None, estimate: float, ctx: _Context
) -> MetricCI | None:
    """Percentile row bootstrap; beyond MAX_BOOTSTRAP_ROWS on a subsample, rescaled."""
    if not ctx.ci or not math.isfinite(estimate):
        return None
    n = a.shape[0]
    common = dict(n_resamples=ctx.n_resamples, confidence_level=ctx.level, method="percentile", random_state=ctx.seed)
    if n <= MAX_BOOTSTRAP_ROWS:
        res = bootstrap_ci(func, a, b, sample_weight=w, **common)
        return _ci_from_bootstrap(res, "row bootstrap")
    rng = np.random.default_rng(ctx.seed)
    idx = np.sort(rng.choice(n, MAX_BOOTSTRAP_ROWS, replace=False))
    ws = None if w is None else w[idx]
    res = bootstrap_ci(func, a[idx], b[idx], sample_weight=ws, **common)
    if w is None:
        scale = math.sqrt(MAX_BOOTSTRAP_ROWS / n)
    else:  # Kish effective sizes
        n_eff = w.sum() ** 2 / np.dot(w, w)
        m_eff = ws.sum() ** 2 / np.dot(ws, ws)
        scale = math.sqrt(m_eff / n_eff)
    low = estimate + (res.low - res.estimate) * scale
    high = estimate + (res.high - res.estimate) * scale
    return MetricCI(float(low), float(high), "percentile", res.confidence_level, res.n_resamples,
                    f"row bootstrap of a random subsample of {MAX_BOOTSTRAP_ROWS} rows, "
                    f"interval rescaled by sqrt(m/n) = {scale:.3g}")


# =====================================================================================
# baselines of labeling metrics: the best constant prediction
# =====================================================================================


def _constant_baseline(
    name: str, true_counts: np.ndarray, classes: np.ndarray, pos_label: Any, average: Any
) -> tuple[float, Any]:
    """(value, class) of the best "always predict class c"; the majority class first."""
    m = get_metric(name)
    order = np.argsort(-true_counts, kind="stable")
    best_v, best_c = float("nan"), None
    k = classes.shape[0]
    for i in order:
        mat = np.zeros((k, k))
        mat[:, i] = true_counts
        cm = ConfusionMatrix(mat, classes, pos_label=pos_label)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = float(cm.metric(name, average=average, zero_division=0.0))
        if best_c is None or (v > best_v if m.greater_is_better else v < best_v):
            best_v, best_c = v, classes[i]
    return best_v, best_c


def _advantage(value: float, baseline: float, ideal: float) -> float:
    if not (math.isfinite(value) and math.isfinite(baseline) and math.isfinite(ideal)) or ideal == baseline:
        return float("nan")
    return (value - baseline) / (ideal - baseline)


# =====================================================================================
# binary scores
# =====================================================================================


def _binary_scores(
    y_true: Any, y: Any, sample_weight: Any, pos_label: Any, threshold: Any, labels: Any,
    normalize: bool, ctx: _Context, *, encoded: tuple | None = None,
) -> dict[str, Any]:
    """``encoded``: the (codes, None, classes) of y_true from the task detection, used unless
    ``labels`` is given."""
    if encoded is None or labels is not None:
        encoded = encode_labels(y_true, labels=labels)
    codes, _, classes = encoded
    if classes.size > 2:
        raise InvalidInputError(
            f"a binary report needs two classes; y_true has {classes.size} ({', '.join(map(_fmt_label, classes[:5]))} ...)"
        )
    counts0 = np.bincount(codes, minlength=classes.size)
    pos, neg, pos_reason = _resolve_positive(classes, counts0, pos_label)
    ya = np.asarray(y)
    if ya.ndim == 2 and ya.shape[1] > 1:
        if ya.shape[1] != 2:
            raise InvalidInputError(f"binary scores: y has {ya.shape[1]} columns, expected 1 or 2")
        proba = check_probabilities(ya, "y", normalize=normalize)
        if classes.size != 2:
            raise InvalidInputError("two probability columns need two classes in y_true (pass labels=)")
        col = int(np.flatnonzero(np.array([_label(c) for c in classes.tolist()], dtype=object) == pos)[0])
        s = proba[:, col]
    else:
        s = as_float_1d(y, "y")
    n = check_consistent_length(y_true=codes, y=s)
    w = check_sample_weight(sample_weight, n)
    values = [_label(c) for c in classes.tolist()]
    pos_idx = values.index(pos) if pos in values else -1
    is_pos = codes == pos_idx
    if classes.size < 2:
        _single_class(classes, ctx)
    ctx.step("sorting the scores")
    tc = threshold_counts(is_pos, s, sample_weight=w)
    units = None
    if w is not None:
        units = threshold_counts(is_pos, s, sample_weight=(w > 0).astype(np.float64))
    return _binary_scores_from_counts(
        tc, units, threshold, pos, neg, pos_reason, ctx,
        rows=None if w is None else (is_pos, s, w), n_rows=n,
    )


def _threshold_choice(threshold: Any, smin: float, smax: float) -> tuple[float, str, str | None]:
    """(threshold, why, note) for binary scores in [smin, smax]; the note says loudly what
    was assumed when no threshold is given and the scores are not probabilities."""
    if threshold is not None:
        try:
            thr = float(threshold)
        except (TypeError, ValueError):
            raise InvalidInputError(f"threshold must be a number, got {threshold!r}") from None
        if not math.isfinite(thr):
            raise InvalidInputError(f"threshold must be finite, got {threshold!r}")
        return thr, "given", None
    if smin >= 0.0 and smax <= 1.0:
        return 0.5, "the default for probabilities", None
    return 0.0, "assumed: scores outside [0, 1] are taken as real-valued margins", (
        f"scores lie outside [0, 1] (range [{smin:.4g}, {smax:.4g}]): treated as real-valued scores, "
        "threshold 0 assumed; give the threshold (--threshold) that the model uses"
    )


def _binary_scores_from_counts(
    tc: ThresholdCounts, units: ThresholdCounts | None, threshold: Any, pos: Any, neg: Any,
    pos_reason: str, ctx: _Context, *, rows: tuple | None, n_rows: int,
) -> dict[str, Any]:
    """The binary-scores report from the sufficient statistic (rows only for weighted CIs)."""
    smax, smin = float(tc.thresholds[0]), float(tc.thresholds[-1])
    probabilities = smin >= 0.0 and smax <= 1.0
    thr, thr_reason, thr_note = _threshold_choice(threshold, smin, smax)
    tp, fp, fn, tn = confusion_at_threshold(tc, thr)
    cm = ConfusionMatrix(np.array([[tn, fp], [fn, tp]]), np.array([neg, pos], dtype=object), pos_label=pos)
    label_rows = None
    if rows is not None:
        is_pos, s, w = rows
        label_rows = (is_pos, s >= thr, w)
    out = _labeling_rows(cm, ctx, binary=True, rows=label_rows)
    if thr_note:
        out["notes"].append(thr_note)
    if tp + fp == 0 or tn + fn == 0:
        out["notes"].append(f"at threshold {thr:g} every row is predicted {'negative' if tp + fp == 0 else 'positive'}"
                            f" (scores range over [{smin:.4g}, {smax:.4g}])")
    pi = tc.prevalence if tc.n > 0 else float("nan")
    defined = tc.is_defined
    # --- score measures from the cells
    names = _SCORING + (_PROBA_LOSSES if probabilities else ())
    if not probabilities:
        out["notes"].append(
            f"scores range over [{smin:.4g}, {smax:.4g}], outside [0, 1]: log loss and Brier score "
            "need probabilities and are left out"
        )
    ctx.step("computing the curves")
    exact = {}
    if defined:
        small = compress_counts(tc)  # the same curves on fewer points
        exact["roc_auc"] = small.auc("roc")
        exact["pr_auc"] = small.auc("pr", method="ap")
        exact["lift_auc"] = small.auc("lift", method="interpolated")
    else:
        exact.update({k: float("nan") for k in _SCORING})
    total = tc.n
    terms = {}
    per = per_threshold(tc)
    if probabilities:
        for loss in _PROBA_LOSSES:
            terms[loss] = loss_terms(per[0], loss)
            ssum, wsum = loss_sums(tc, loss, terms=terms[loss], per=per)
            exact[loss] = ssum / wsum
    dists: dict[str, np.ndarray] = {}
    shifts: dict[str, float] = {}
    cells_text = ""
    if ctx.ci and defined:
        ctx.step("bootstrapping the curves")
        cells = ScoreCells.from_counts(tc, units, max_bins=MAX_SCORE_BINS, losses=tuple(terms), terms=terms, per=per)
        binned = cells.point_measures(names)
        dists = cells.bootstrap(names, n_resamples=ctx.n_resamples, rng=np.random.default_rng(ctx.seed))
        shifts = {k: exact[k] - binned[k] for k in names}
        cells_text = cells.describe()
        if not cells.exact:
            worst = max(abs(v) for v in shifts.values())
            out["notes"].append(
                f"score bootstrap on {cells.n_bins} bins of adjacent scores; intervals are shifted by the "
                f"binning error (largest {worst:.2g})"
            )
    del terms, per  # large temporaries
    alpha = 1 - ctx.level
    rows_out: dict[str, dict[str, Any]] = {}
    for k in names:
        value = exact[k]
        ci_obj = None
        if k in dists:
            theta = dists[k]
            theta = theta[np.isfinite(theta)]
            if theta.size >= 2:
                lo_q, hi_q = np.quantile(theta, [alpha / 2, 1 - alpha / 2])
                ci_obj = MetricCI(
                    float(lo_q + shifts[k]), float(hi_q + shifts[k]), "percentile", ctx.level, ctx.n_resamples,
                    f"resamples of the (score, label) cells: {cells_text}",
                )
        if k in _SCORING:
            curve = {"roc_auc": "roc", "pr_auc": "pr", "lift_auc": "lift"}[k]
            base = {"roc_auc": 0.5, "pr_auc": pi, "lift_auc": 1.0}[k]
            ideal = 1.0 if curve != "lift" else (1.0 - math.log(pi) if 0 < pi < 1 else float("nan"))
            rows_out[k] = dict(kind="scoring", value=value, baseline=base, ideal=ideal,
                               baseline_prediction="a constant score", greater_is_better=True, ci=ci_obj)
        else:
            base = float(loss_baseline(pi, k))
            what = f"always predicting the prevalence {pi:.3g}" if math.isfinite(pi) else "the prior"
            rows_out[k] = dict(kind="loss", value=value, baseline=base, ideal=0.0,
                               baseline_prediction=what, greater_is_better=False, ci=ci_obj)
    out["metrics"].update(rows_out)
    out.update(
        n=n_rows, counts=tc, threshold=thr, threshold_reason=thr_reason,
        positive_label=pos, negative_label=neg, positive_reason=pos_reason,
        prevalence=pi, classes=(neg, pos) if neg is not None else (pos,),
        total_weight=None if rows is None else total,
    )
    desc = out.get("ci_description", "")
    if ctx.ci:
        desc += (
            f"; AUCs and losses: percentile intervals from {ctx.n_resamples} resamples of the "
            f"(score, label) cells ({cells_text or 'not computed'})"
        )
    out["ci_description"] = desc
    return out


# =====================================================================================
# labels
# =====================================================================================


def _labeling_rows(cm: ConfusionMatrix, ctx: _Context, *, binary: bool, rows: tuple | None) -> dict[str, Any]:
    """Rows of every labeling metric of a confusion matrix (binary or multi-class)."""
    names = _BINARY_LABELING if binary else _MULTICLASS_LABELING
    classes = cm.labels
    true_counts = cm.true_counts
    n = cm.n
    pi = cm.prevalence if binary and n > 0 else None
    out: dict[str, Any] = {"metrics": {}, "notes": [], "confusion": cm}
    ctx.step("bootstrapping the labeling metrics")
    for name in names:
        m = get_metric(name)
        average = "binary" if binary else ("macro" if name in _PER_CLASS else "binary")
        options: dict[str, Any] = {}
        if m.multiclass == "per-class":
            options["average"] = average
        # a macro average counts a class whose value is 0/0 as 0 (scikit-learn's policy), and
        # its note says so; an undefined single value stays n/a
        averaged = not binary and m.multiclass == "per-class"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", BeyondChanceWarning)
            value = float(cm.metric(name, zero_division="warn" if averaged else "nan", **options))
        zero_division = 0.0 if averaged else "nan"
        for w in caught:
            ctx.collector.add(str(w.message))
        if binary:
            base, cls = _constant_baseline(name, true_counts, classes, cm.pos_label, "binary")
            lo, hi = m.range_at(pi) if pi is not None and 0 < pi < 1 else (m.lower, m.upper)
            ideal = float(hi)
        else:
            base, cls = _constant_baseline(name, true_counts, classes, cm.pos_label, average)
            ideal = 1.0
        ci_obj = None
        if math.isfinite(value):
            if rows is None and binary:
                # cells in the order (negative, positive) = codes (0, 1)
                ci_obj = _labeling_ci(name, cm, None, ctx, pos_label=1, zero_division="nan")
            elif rows is None:
                ci_obj = _labeling_ci(name, cm, None, ctx, zero_division=zero_division,
                                      **({"average": average} if m.multiclass == "per-class" else {}))
            else:
                yt, yp, w = rows
                ci_obj = _labeling_ci(name, cm, (yt, yp, w), ctx, zero_division=zero_division,
                                      **({"pos_label": True} if binary else
                                         ({"average": average} if m.multiclass == "per-class" else {})))
        out["metrics"][name] = dict(
            kind="advantage" if name == "prediction_advantage" else "labeling",
            value=value, baseline=base, ideal=ideal,
            baseline_prediction=f"always predicting {_fmt_label(cls)}",
            greater_is_better=m.greater_is_better, ci=ci_obj, average=None if binary else average,
        )
    label_text = "weighted rows (BCa, row bootstrap)" if rows is not None else "confusion-matrix cells"
    out["ci_description"] = (
        f"{int(round(ctx.level * 100))}% intervals. Labeling metrics: BCa bootstrap, {ctx.n_resamples} "
        f"resamples of the {label_text} (a resample of the cells is a multinomial draw, exactly the "
        "row bootstrap; baselines and prevalence re-estimated in every resample)"
    )
    return out


def _labels(
    y_true: Any, y: Any, sample_weight: Any, pos_label: Any, labels: Any, ctx: _Context, *, binary: bool,
    encoded: tuple | None = None,
) -> dict[str, Any]:
    """``encoded``: the (codes, codes, classes) of the task detection, used unless ``labels`` is given."""
    if encoded is None or labels is not None:
        encoded = encode_labels(y_true, y, labels=labels, names=("y_true", "y"))
    ct, cp, classes = encoded
    n = check_consistent_length(y_true=ct, y=cp)
    w = check_sample_weight(sample_weight, n)
    true_classes = np.flatnonzero(np.bincount(ct, minlength=classes.size))
    if true_classes.size < 2:
        _single_class(classes[true_classes], ctx)
    if binary:
        if classes.size > 2:
            raise InvalidInputError(
                f"a binary report needs two classes; y_true and y hold {classes.size} "
                f"({', '.join(map(_fmt_label, classes[:5]))}); use task='multiclass-labels'"
            )
        counts0 = np.bincount(ct, minlength=classes.size)
        pos, neg, pos_reason = _resolve_positive(classes, counts0, pos_label)
        values = [_label(c) for c in classes.tolist()]
        if neg is None:  # one label in the data: the other is unknown
            neg = "negative" if not isinstance(pos, (int, float)) else (0 if pos != 0 else 1)
        pos_idx = values.index(pos) if pos in values else -1
        is_pos_t = ct == pos_idx
        is_pos_p = cp == pos_idx
        ctx.step("counting")
        mat = np.bincount(2 * is_pos_t.astype(np.intp) + is_pos_p, weights=w, minlength=4).reshape(2, 2)
        cm = ConfusionMatrix(mat.astype(np.float64), np.array([neg, pos], dtype=object), pos_label=pos)
        out = _labeling_rows(cm, ctx, binary=True, rows=None if w is None else (is_pos_t, is_pos_p, w))
        out.update(positive_label=pos, negative_label=neg, positive_reason=pos_reason,
                   prevalence=cm.prevalence, classes=(neg, pos))
    else:
        k = classes.size
        mat = np.bincount(ct * k + cp, weights=w, minlength=k * k).reshape(k, k).astype(np.float64)
        cm = ConfusionMatrix(mat, classes, pos_label=None)
        out = _labeling_rows(cm, ctx, binary=False, rows=None if w is None else (ct, cp, w))
        out.update(classes=tuple(_label(c) for c in classes.tolist()))
    out.update(n=n, total_weight=None if w is None else float(w.sum()))
    return out


# =====================================================================================
# multi-class probabilities
# =====================================================================================


def _multiclass_proba(
    y_true: Any, y: Any, sample_weight: Any, labels: Any, normalize: bool, ctx: _Context
) -> dict[str, Any]:
    yt = as_1d(y_true, "y_true")
    codes, _, classes = encode_labels(yt, labels=labels)
    k = classes.size
    p = as_float_2d(y, "y")
    if p.ndim != 2 or p.shape[1] != k:
        cols = 1 if p.ndim == 1 else p.shape[1]
        raise InvalidInputError(
            f"y has {cols} probability column(s) but y_true has {k} classes "
            f"({', '.join(map(_fmt_label, classes[:6]))}); pass labels= naming the class of each column"
        )
    proba = check_probabilities(p, "y", n_classes=k, normalize=normalize)
    n = check_consistent_length(y_true=yt, y=proba)
    w = check_sample_weight(sample_weight, n)
    if np.unique(codes).size < 2:
        _single_class(classes[np.unique(codes)], ctx)
    pred = np.argmax(proba, axis=1)
    mat = np.bincount(codes * k + pred, weights=w, minlength=k * k).reshape(k, k).astype(np.float64)
    cm = ConfusionMatrix(mat, classes, pos_label=None)
    out = _labeling_rows(cm, ctx, binary=False, rows=None if w is None else (codes, pred, w))
    ctx.step("computing the probability losses")
    for loss, lib_loss in (("log_loss", "log_loss"), ("brier", "brier")):
        res = prediction_advantage_result(codes, proba, loss=lib_loss, sample_weight=w, labels=np.arange(k))
        func = _proba_loss_func(lib_loss, k)
        ci_obj = _row_ci(func, codes, proba, w, float(res.risk), ctx)
        out["metrics"][loss] = dict(
            kind="loss", value=float(res.risk), baseline=float(res.baseline_risk), ideal=0.0,
            baseline_prediction="always predicting the class frequencies", greater_is_better=False, ci=ci_obj,
        )
    out.update(n=n, total_weight=None if w is None else float(w.sum()),
               classes=tuple(_label(c) for c in classes.tolist()))
    out["ci_description"] += "; log loss and Brier score: percentile row bootstrap"
    return out


def _proba_loss_func(loss: str, k: int) -> Callable[..., float]:
    def func(codes: np.ndarray, proba: np.ndarray, sample_weight: Any = None) -> float:
        return float(prediction_advantage_result(codes, proba, loss=loss, sample_weight=sample_weight,
                                                 labels=np.arange(k)).risk)

    func.__name__ = loss
    return func


# =====================================================================================
# regression
# =====================================================================================


def _regression(y_true: Any, y: Any, sample_weight: Any, ctx: _Context) -> dict[str, Any]:
    yt = as_float_1d(y_true, "y_true")
    yp = as_float_1d(y, "y")
    n = check_consistent_length(y_true=yt, y=yp)
    w = check_sample_weight(sample_weight, n)
    out: dict[str, Any] = {"metrics": {}, "notes": []}
    ctx.step("computing the regression losses")
    sq = prediction_advantage_result(yt, yp, loss="squared", sample_weight=w)
    ab = prediction_advantage_result(yt, yp, loss="absolute", sample_weight=w)

    def risk_of(loss: str) -> Callable[..., float]:
        def f(a: np.ndarray, b: np.ndarray, sample_weight: Any = None) -> float:
            return float(prediction_advantage_result(a, b, loss=loss, sample_weight=sample_weight).risk)
        f.__name__ = f"{loss} risk"
        return f

    def pa_of(loss: str) -> Callable[..., float]:
        def f(a: np.ndarray, b: np.ndarray, sample_weight: Any = None) -> float:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", BeyondChanceWarning)
                return float(prediction_advantage_result(a, b, loss=loss, sample_weight=sample_weight).value)
        f.__name__ = f"PA ({loss})"
        return f

    ctx.step("bootstrapping the regression measures")
    mean = sq.baseline.prediction
    median = ab.baseline.prediction
    out["metrics"]["mse"] = dict(
        kind="loss", value=float(sq.risk), baseline=float(sq.baseline_risk), ideal=0.0,
        baseline_prediction=f"always predicting the mean {mean:.4g}", greater_is_better=False,
        ci=_row_ci(risk_of("squared"), yt, yp, w, float(sq.risk), ctx),
    )
    out["metrics"]["mae"] = dict(
        kind="loss", value=float(ab.risk), baseline=float(ab.baseline_risk), ideal=0.0,
        baseline_prediction=f"always predicting the median {median:.4g}", greater_is_better=False,
        ci=_row_ci(risk_of("absolute"), yt, yp, w, float(ab.risk), ctx),
    )
    out["metrics"]["r2"] = dict(
        kind="advantage", value=float(sq.value), baseline=0.0, ideal=1.0,
        baseline_prediction=f"always predicting the mean {mean:.4g}", greater_is_better=True,
        ci=_row_ci(pa_of("squared"), yt, yp, w, float(sq.value), ctx),
    )
    out["metrics"]["d2_absolute_error"] = dict(
        kind="advantage", value=float(ab.value), baseline=0.0, ideal=1.0,
        baseline_prediction=f"always predicting the median {median:.4g}", greater_is_better=True,
        ci=_row_ci(pa_of("absolute"), yt, yp, w, float(ab.value), ctx),
    )
    out.update(n=n, total_weight=None if w is None else float(w.sum()))
    out["ci_description"] = (
        f"{int(round(ctx.level * 100))}% intervals: percentile row bootstrap, {ctx.n_resamples} resamples "
        f"(the BMP re-estimated in every resample; beyond {MAX_BOOTSTRAP_ROWS} rows on a random subsample "
        "of that size, rescaled by sqrt(m/n))"
    )
    return out


# =====================================================================================
# OPS, verdicts
# =====================================================================================


def _pct(x: float) -> str:
    """A share as a percentage with as many digits as it needs to differ from 100%."""
    if x >= 0.9999:
        return "more than 99.99%"
    if x >= 0.99:
        return f"{100 * x:.2f}%"
    return f"{100 * x:.0f}%"


def _finish_rows(report: dict[str, Any], chosen: list[str], ctx: _Context) -> dict[str, MetricResult]:
    rows: dict[str, MetricResult] = {}
    pi = report.get("prevalence")
    binary = report.get("counts") is not None or (pi is not None and report.get("positive_label") is not None)
    cm: ConfusionMatrix | None = report.get("confusion")
    need_ops = [k for k in chosen if k in METRICS or k in _SCORING]
    if need_ops:
        ctx.step("computing the outperformance scores")
    for name in chosen:
        spec = report["metrics"][name]
        value = float(spec["value"])
        ci_obj: MetricCI | None = spec.get("ci")
        ops = ops_ci = ops_method = None
        if (name in METRICS or name in _SCORING) and math.isfinite(value):
            if binary and pi is not None and 0 < pi < 1:
                vals = [value]
                if ci_obj is not None:  # the prevalence varies between resamples: ends may lie beyond
                    vals += list(np.clip([ci_obj.low, ci_obj.high], *_attainable(name, pi)))
                scores, ops_method, problem = _ops_of(name, np.array(vals), pi, dbt_samples=ctx.dbt_samples)
                if scores is not None:
                    ops = float(scores[0])
                    if ci_obj is not None:
                        ops_ci = (float(scores[1]), float(scores[2]))
                elif problem:
                    ctx.collector.add(f"OPS of {name} not computed: {problem.split(';')[0]}")
            elif not binary and cm is not None and spec.get("average") == "macro":
                ops, ops_method = _macro_ops(name, cm, ctx)
        base = float(spec["baseline"])
        ideal = float(spec["ideal"])
        adv = _advantage(value, base, ideal) if name != "prediction_advantage" else value
        r = MetricResult(
            name=name, title=TITLES.get(name, name), kind=spec["kind"], value=value, baseline=base,
            baseline_prediction=spec["baseline_prediction"], ideal=ideal, advantage=adv,
            greater_is_better=bool(spec["greater_is_better"]), ops=ops, ops_ci=ops_ci, ops_method=ops_method,
            ci=ci_obj,
        )
        rows[name] = _with_verdict(r, pi if binary else None)
    return rows


def _attainable(name: str, pi: float) -> tuple[float, float]:
    """The values a metric can take at prevalence π: its OPS is 0 and 1 at the ends."""
    if name in METRICS:
        lo, hi = get_metric(name).range_at(pi)
        return float(lo), float(hi)
    from ..outperformance.scoring import scoring_metric_upper

    return 0.0, float(scoring_metric_upper(name, pi))


def _macro_ops(name: str, cm: ConfusionMatrix, ctx: _Context) -> tuple[float | None, str | None]:
    """One-vs-rest OPS per class, macro-averaged (classes present in y_true)."""
    values = np.asarray(cm.metric(name, average=None, zero_division=0.0), dtype=np.float64)
    prev = cm.true_counts / cm.n
    keep = (prev > 0) & (prev < 1) & np.isfinite(values)
    if not keep.any() or keep.sum() < (cm.true_counts > 0).sum():
        return None, None
    try:
        res = outperformance_score(name, values[keep], prev[keep])
    except InvalidInputError as exc:
        ctx.collector.add(f"OPS of {name}: {exc}")
        return None, None
    return float(np.mean(res.score)), f"one-vs-rest OPS per class ({res.method}), macro average"


def fmt_value(x: float | None) -> str:
    """A metric value for display: 3 decimals (4 significant digits when large)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.3f}" if abs(x) < 100 else f"{x:.4g}"


def _with_verdict(r: MetricResult, pi: float | None) -> MetricResult:
    if not math.isfinite(r.value):
        verdict = "undefined on this test set"
    else:
        beats = r.beats_baseline
        if beats is None:
            verdict = "no baseline to compare with"
        elif r.ideal == r.baseline and not beats:
            verdict = (f"{r.baseline_prediction} reaches the best value {fmt_value(r.ideal)}: "
                       f"{r.title.lower()} alone cannot show an advantage")
        elif not beats:
            verdict = f"no better than {r.baseline_prediction} ({fmt_value(r.baseline)})"
        else:
            ci_reaches = r.ci is not None and (
                (r.greater_is_better and r.ci.low <= r.baseline)
                or (not r.greater_is_better and r.ci.high >= r.baseline)
            )
            if r.ops is not None:
                who = "random score curves" if r.kind == "scoring" else "possible classifiers"
                where = "at this prevalence" if pi is not None else "(one-vs-rest, at each class's prevalence)"
                verdict = f"better than {_pct(r.ops)} of {who} {where}"
            else:
                if math.isfinite(r.advantage):
                    verdict = (f"better than {r.baseline_prediction} ({fmt_value(r.baseline)}); closes "
                               f"{100 * r.advantage:.0f}% of the gap to perfect")
                else:
                    verdict = f"better than {r.baseline_prediction} ({fmt_value(r.baseline)})"
            if ci_reaches:
                verdict += f"; but its {int(round(r.ci.confidence_level * 100))}% CI reaches the constant's value"
    return MetricResult(**{**r.__dict__, "verdict": verdict})


def _overall_verdict(task: str, rows: dict[str, MetricResult]) -> tuple[str, ...]:
    lines: list[str] = []

    def ci_text(r: MetricResult) -> str:
        if r.ci is None or not (math.isfinite(r.ci.low) and math.isfinite(r.ci.high)):
            return ""
        return f" [{int(round(r.ci.confidence_level * 100))}% CI {r.ci.low:+.3f} to {r.ci.high:+.3f}]"

    if task == "regression":
        r2 = rows.get("r2")
        if r2 is not None and math.isfinite(r2.value):
            mse = rows.get("mse")
            if r2.value <= 0:
                lines.append(f"No better than {r2.baseline_prediction}: R² = {r2.value:+.3f}{ci_text(r2)}.")
            else:
                lines.append(
                    f"The model removes {100 * r2.value:.0f}% of the squared error of {r2.baseline_prediction}"
                    + (f" (MSE {mse.value:.4g} vs {mse.baseline:.4g})" if mse is not None else "")
                    + f": R² = {r2.value:+.3f}{ci_text(r2)}."
                )
        return tuple(lines)

    pa = rows.get("prediction_advantage")
    acc = rows.get("accuracy")
    if pa is not None and acc is not None and math.isfinite(pa.value):
        bp = acc.baseline_prediction
        if pa.value <= 0:
            lines.append(
                f"Accuracy {100 * acc.value:.1f}% is no better than {bp} ({100 * acc.baseline:.1f}%): "
                f"prediction advantage {pa.value:+.3f}{ci_text(pa)}."
            )
        else:
            tail = ""
            if pa.ci is not None and pa.ci.low <= 0:
                tail = " — but not significantly: the interval includes 0"
            lines.append(
                f"Better than {bp}: accuracy {100 * acc.value:.1f}% vs {100 * acc.baseline:.1f}%, "
                f"prediction advantage {pa.value:+.3f}{ci_text(pa)}{tail}."
            )
    elif pa is not None:
        lines.append("The prediction advantage is undefined on this test set (a single class).")
    # the other lines quote the rows' own verdicts: the headline never says more than the table
    for key in ("f1", "mcc"):
        r = rows.get(key)
        if r is not None and r.ops is not None and math.isfinite(r.value):
            lines.append(f"{r.title} {r.value:.3f}: {r.verdict}.")
            break
    aucs = [rows[k] for k in ("roc_auc", "pr_auc") if k in rows and math.isfinite(rows[k].value)]
    if aucs:
        parts = []
        for r in aucs:
            s = f"{r.title.split(' (')[0]} {r.value:.3f}"
            parts.append(f"{s} (constant score: {r.baseline:.3f}), {r.verdict}" if r.beats_baseline
                         else f"{s}: {r.verdict}")
        lines.append("Ranking: " + "; ".join(parts) + ".")
    return tuple(lines)
