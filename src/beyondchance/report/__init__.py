"""The main job: evaluate a predictor against the trivial one and render the result.

* :func:`evaluate` → :class:`Report` (value, baseline, advantage, OPS, CI, verdict per metric)
* :func:`compare` → :class:`Comparison` (several test sets side by side)
* renderers, in :mod:`.render`: :mod:`.render.terminal` and :mod:`.render.terminal_comparison`
  (rich), :mod:`.render.html` (one self-contained page), :mod:`.render.markdown`,
  :mod:`.render.plots` (matplotlib); the bundled scored example:
  :mod:`.example`.

Imports run downward only: the rows (:mod:`.formatting`, :mod:`.metric_rows`), then the
statistics of a row (:mod:`.intervals`, :mod:`.pvalues`, :mod:`.per_class`, :mod:`.tasks`),
the gates and the renderers (functions of a report), then the :class:`Report` type
(:mod:`.report`, whose conveniences call them), then what builds reports
(:mod:`.assemble`, :mod:`.from_statistics` — the one road from a task's statistics to a
report — :mod:`.evaluate`, :mod:`.compare`).
"""

from ..measures.task_metrics import TASKS, metrics_for_task
from .compare import Change, Comparison, compare, compare_reports
from ..engines.scan import detect_task
from .evaluate import evaluate
from .metric_rows import MetricCI, MetricResult
from .model_comparison import ModelComparison, ModelDifference, compare_models
from .gates import CheckResult, RequirementResult
from .compare_tasks import TargetShift
from .per_class import PerClassTable
from .report import Report
from ..engines.scan import profile
from ..statistics.task_statistics import TaskStatistics, read_statistics
from .from_statistics import report_from_statistics

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
    "detect_task",
    "evaluate",
    "metrics_for_task",
    "TaskStatistics",
    "profile",
    "read_statistics",
    "report_from_statistics",
]
