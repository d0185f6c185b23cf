"""The :class:`Report` of one test set: plain data (the rows, the task, the statistics),
with thin conveniences that call the functions of it: the renderers
(:mod:`.render.terminal`, :mod:`.render.html`, :mod:`.render.markdown`), the gates
(:mod:`.gates`) and the per-class rates (:mod:`.per_class`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .._summary_display import terminal_width
from .._warnings import InvalidInputError
from ..measures.binary_scores import CoverageCurve, compress_counts, pa_coverage_from_counts
from ..measures.confusion import ConfusionMatrix
from ..measures.curves import ThresholdCounts

if TYPE_CHECKING:
    from ..measures.curve_rates import CurveKind
from ..outperformance import outperformance_score
from .export import Exportable
from .formatting import _label, _num, shorten
from .gates import check_report, report_permutation_test
from .metric_rows import MetricResult
from .per_class import confusion_json
from .render.html import report_html, report_section
from .render.markdown import report_markdown
from .render.terminal import render_report_text


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
    mc_samples: int | None = None
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
        return render_report_text(self, width=terminal_width(), hint="report.details()")

    def details(self, *, width: int = 100) -> str:
        """The full account as plain text, ``width`` columns wide: the verdict, the table, each
        metric's verdict with its bound and p-value, the per-class table, the confusion matrix,
        the method and the notes. ``str(report)`` (and ``print(report)``) is the short report:
        the verdict and one table."""
        return render_report_text(self, width=width, details=True)

    def _html_fragment(self, plots: bool = False) -> str:
        return report_section(self, plots=plots)

    def _html_page(self, plots: bool = True) -> str:
        return report_html(self, plots=plots)

    def _markdown(self) -> str:
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
            out["confusion_matrix"] = confusion_json(self.confusion)
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
        flat = [r for item in requirements for r in ([item] if isinstance(item, str) else item)]
        return check_report(self, flat)

    def permutation_test(self, metric: str):
        """The one-sided test of ``metric`` against chance from the report's statistics
        (classification reports of unweighted data): McNemar's exact test against always
        predicting the majority class for accuracy and PA, the permutation test
        (:func:`beyondchance.permutation_test`) otherwise."""
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

    def curve(self, kind: CurveKind):
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
        return _ops_curve("precision_at_recall", "pr", tc, levels, self.mc_samples)

    def ops_lift(self, *, levels: Any = None) -> dict[str, Any]:
        """OPS(lift) against the predicted-positive rate (OPS paper, Fig. 6b): keys ``x``
        (rate), ``y`` (lift), ``ops``, ``method``."""
        tc = self._curve_counts("the OPS(lift) curve")
        return _ops_curve("lift_at_rate", "lift", tc, levels, self.mc_samples)


def _ops_curve(metric: str, curve: CurveKind, tc: ThresholdCounts, levels: Any, mc_samples: int | None) -> dict[str, Any]:
    """The OPRC (``precision_at_recall``) or OPS(lift) curve (``lift_at_rate``) from the counts.

    DBT reference (OPS paper, eq. 10) via :mod:`beyondchance.outperformance.scoring`, as
    :mod:`beyondchance.outperformance.curves` does from rows; without that module, the
    labeling-metric OPS of precision / lift (uniform (α, β) reference), and it says so.
    """
    scoring_outperformance_score: Callable[..., Any] | None
    try:
        from ..outperformance.curves import DEFAULT_LEVELS
        from ..outperformance.scoring import scoring_outperformance_score
    except ImportError:  # pragma: no cover - scoring module absent
        DEFAULT_LEVELS, scoring_outperformance_score = np.r_[np.arange(1, 20) / 20, 0.99].round(10), None
    x = np.asarray(DEFAULT_LEVELS if levels is None else levels, dtype=np.float64)
    pi = tc.prevalence
    y = np.asarray(tc.value_at(curve, x), dtype=np.float64).reshape(x.shape)
    ops = np.full(x.shape, np.nan)
    ok = np.isfinite(y)
    if scoring_outperformance_score is not None:
        r = scoring_outperformance_score(metric, np.clip(y[ok], 0.0, None), pi, at=x[ok], mc_samples=mc_samples)
        method = f"dbt (Monte Carlo over {r.mc_samples} random curves)"
    else:  # pragma: no cover
        r = outperformance_score("precision" if curve == "pr" else "lift", y[ok], pi)
        method = "uniform (alpha, beta) reference (labeling OPS)"
    ops[ok] = np.asarray(r.score, dtype=np.float64).reshape(-1)
    return {"x": x, "y": y, "ops": ops, "method": method}
