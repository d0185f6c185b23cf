"""The results of a report: ``MetricCI``, :class:`MetricResult`, :class:`Report`, the
metric names of each task and the formatting of values and labels."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .._validation import check_option
from .._warnings import InvalidInputError
from ..measures.confusion import ConfusionMatrix
from ..measures.curves import ThresholdCounts
from ..outperformance import outperformance_score
from ..measures.binary_scores import CoverageCurve, compress_counts, pa_coverage_from_counts
from .export import Exportable

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
    "roc_auc_weighted": "ROC AUC (one-vs-rest, weighted)",
    "pr_auc_weighted": "Avg. precision (one-vs-rest, weighted)",
    "lift_auc": "Lift AUC",
    "log_loss": "Log loss",
    "brier": "Brier score",
    "mse": "Mean squared error",
    "mae": "Mean absolute error",
    "r2": "R² (PA, squared loss)",
    "d2_absolute_error": "D² (PA, absolute loss)",
    "pinball_loss": "Pinball loss",
    "d2_pinball_score": "D² (PA, pinball loss)",
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

#: regression rows of a quantile model (``quantile=τ``): the pinball loss of its level
_QUANTILE_REGRESSION = ("pinball_loss", "d2_pinball_score")

#: per-class metrics are macro-averaged in multi-class reports
_PER_CLASS = ("precision", "recall", "f1", "specificity")

#: the score bootstrap pools adjacent scores into at most this many bins
MAX_SCORE_BINS = 1000

def metrics_for_task(task: str, *, probabilities: bool = True, quantile: bool = False) -> tuple[str, ...]:
    """The metrics a report of ``task`` computes by default (``quantile``: regression
    with a quantile level, which adds the pinball rows).

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
        return _MULTICLASS_LABELING + ("roc_auc", "pr_auc", "roc_auc_weighted", "pr_auc_weighted") + _PROBA_LOSSES
    return _REGRESSION + (_QUANTILE_REGRESSION if quantile else ())


def selectable_metrics(task: str, *, quantile: bool = False) -> tuple[str, ...]:
    """The names ``metrics=`` accepts for ``task``: its defaults (:func:`metrics_for_task`)
    and, for every task with labels, any labeling metric of the registry ``bc.measures.METRICS``.

    >>> "jaccard" in selectable_metrics("binary-labels"), "jaccard" in metrics_for_task("binary-labels")
    (True, False)
    """
    from ..measures.registry import METRICS

    defaults = metrics_for_task(task, quantile=quantile)
    return defaults if task == "regression" else defaults + tuple(k for k in METRICS if k not in defaults)


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


def fmt_value(x: float | None) -> str:
    """A metric value for display: 3 decimals (4 significant digits when large)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.3f}" if abs(x) < 100 else f"{x:.4g}"


@dataclass(frozen=True)
class MetricCI:
    """A confidence interval and how it was obtained."""

    low: float
    high: float
    method: str
    confidence_level: float
    n_resamples: int
    resampling: str
    #: one-sided confidence bounds at ``confidence_level`` (lower, upper): the ends of the
    #: interval at level 2 · confidence_level − 1, by the same method
    bounds: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": _num(self.low),
            "high": _num(self.high),
            "method": self.method,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "resampling": self.resampling,
            "lower_bound": None if self.bounds is None else _num(self.bounds[0]),
            "upper_bound": None if self.bounds is None else _num(self.bounds[1]),
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
    ci : ``MetricCI`` or None
    verdict : one line
    pvalue : one-sided p-value of "no better than chance", from the statistics
        (classification reports of unweighted data with intervals, None elsewhere): McNemar's exact test
        against always predicting the majority class for accuracy and PA, the permutation test
        (:func:`beyondchance.permutation_test`) for the others
    pvalue_method : how it was computed
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
    pvalue: float | None = None
    pvalue_method: str | None = None

    @property
    def confidence_bound(self) -> float | None:
        """The one-sided confidence bound on the side of "better": a lower bound when higher
        is better, an upper bound for losses (None without an interval)."""
        if self.ci is None or self.ci.bounds is None:
            return None
        return self.ci.bounds[0] if self.greater_is_better else self.ci.bounds[1]

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
            "confidence_bound": _num(self.confidence_bound),
            "pvalue": _num(self.pvalue),
            "pvalue_method": self.pvalue_method,
            "verdict": self.verdict,
        }


@dataclass(frozen=True, eq=False)
class Report(Exportable):
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
    per_class : the :class:`~beyondchance.report.per_class.PerClassTable` (classification)
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
    per_class: Any = field(default=None, repr=False)

    def __getitem__(self, name: str) -> MetricResult:
        try:
            return self.metrics[name]
        except KeyError:
            raise InvalidInputError(
                f"metric {name!r} is not in this report; it has {', '.join(self.metrics)}"
            ) from None

    def __repr__(self) -> str:
        name = f" of {shorten(self.name)!r}" if self.name else ""
        return (f"<Report {self.task}{name}: n={self.n:,}, {len(self.metrics)} metrics; print() it, or "
                "show it in a notebook>")

    # --- renderings (print, notebooks, files: see beyondchance.report.export) ----

    def _text(self) -> str:
        from .render_terminal import render_report_text

        return render_report_text(self)

    def _html_fragment(self, plots: bool) -> str:
        from .render_html import report_section

        return report_section(self, plots=plots)

    def _html_page(self, plots: bool) -> str:
        from .render_html import report_html

        return report_html(self, plots=plots)

    def _markdown(self) -> str:
        from .render_markdown import report_markdown

        return report_markdown(self)

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
        if self.threshold is not None or self.threshold_reason:  # None: labels given with the scores
            out["threshold"] = self.threshold
            out["threshold_reason"] = self.threshold_reason
        if self.confusion is not None:
            from .per_class import confusion_rates

            rates = confusion_rates(self.confusion)
            out["confusion_matrix"] = {**self.confusion.to_dict(),
                                       "rates": [[_num(v) for v in row] for row in rates.tolist()]}
        if self.per_class is not None:
            out["per_class"] = self.per_class.to_dict()
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
                "confidence_bound": np.nan if m.confidence_bound is None else m.confidence_bound,
                "pvalue": np.nan if m.pvalue is None else m.pvalue,
                "verdict": m.verdict,
            })
        return pd.DataFrame(rows).set_index("metric")

    # --- decisions: gates and tests against chance (beyondchance.report.gates) -------

    def check(self, *requirements: Any):
        """Evaluate requirements such as ``"prediction_advantage > 0"``, ``"ops(f1) >= 0.9"``,
        ``"lower(roc_auc) > 0.75"``, ``"pvalue(pure_accuracy) < 0.01"`` (grammar:
        ``beyondchance.report.gates``); a :class:`~beyondchance.report.gates.CheckResult`
        whose ``passed`` says whether all hold."""
        from .gates import check_report

        flat = [r for item in requirements for r in ([item] if isinstance(item, str) else item)]
        return check_report(self, flat)

    def permutation_test(self, metric: str):
        """The one-sided test of ``metric`` against chance from the report's statistics
        (classification reports of unweighted data): McNemar's exact test against always
        predicting the majority class for accuracy and PA, the permutation test
        (:func:`beyondchance.permutation_test`) otherwise."""
        from .gates import report_permutation_test

        return report_permutation_test(self, metric)

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
        """The ROC / PR / lift / gain curve (:class:`~beyondchance.measures.curves.Curve`)."""
        return self._curve_counts(f"the {kind} curve").curve(kind)

    def pa_coverage(self, *, levels: int | None = 200) -> CoverageCurve:
        """PA–coverage curve of "score ≥ threshold", confidence ``|score − threshold|``."""
        tc = self._need_counts("the PA-coverage curve")
        if self.threshold is None:
            raise InvalidInputError("the PA-coverage curve needs the threshold of the labels; the labels were given")
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
        r = scoring_outperformance_score(metric, np.clip(y[ok], 0.0, None), pi, at=x[ok], n_samples=dbt_samples)
        method = f"dbt (Monte Carlo over {r.n_samples} random curves)"
    else:  # pragma: no cover
        r = outperformance_score("precision" if curve == "pr" else "lift", y[ok], pi)
        method = "uniform (alpha, beta) reference (labeling OPS)"
    ops[ok] = np.asarray(r.score, dtype=np.float64).reshape(-1)
    return {"x": x, "y": y, "ops": ops, "method": method}
