"""The main job: evaluate a predictor against the trivial one and render the result.

* :func:`evaluate` → :class:`Report` (value, baseline, advantage, OPS, CI, verdict per metric)
* :func:`compare` → :class:`Comparison` (several test sets side by side)
* renderers: :mod:`.render_terminal` (rich), :mod:`.render_html` (one self-contained page),
  :mod:`.plots` (matplotlib); reading files: :mod:`.io`; the bundled scored example:
  :mod:`.example`.
"""

from .compare import Change, Comparison, compare, compare_reports
from .engine import compare_sources, evaluate_source
from .per_class import PerClassTable
from .model_comparison import ModelComparison, ModelDifference, compare_models
from .gates import CheckResult, RequirementResult
from .compare_tasks import TargetShift
from .evaluate import (
    TASKS,
    MetricCI,
    MetricResult,
    Report,
    detect_task,
    evaluate,
    evaluate_counts,
    metrics_for_task,
)

__all__ = [
    "CheckResult",
    "ModelComparison",
    "ModelDifference",
    "RequirementResult",
    "TargetShift",
    "compare_models",
    "TASKS",
    "Change",
    "Comparison",
    "MetricCI",
    "MetricResult",
    "PerClassTable",
    "Report",
    "compare",
    "compare_reports",
    "compare_sources",
    "evaluate_source",
    "detect_task",
    "evaluate",
    "evaluate_counts",
    "metrics_for_task",
]
