"""Outperformance Score (Zhao, Bui, Yu & Dzieciolowski): a metric value's percentile among
all possible classifiers at the test set's prevalence.

* :func:`outperformance_score` — the one entry point, for labeling metrics, a user's
  vectorised ``M(prevalence, alpha, beta)`` and (via ``scoring``, imported lazily)
  scoring metrics.
* :mod:`.labeling` — exact / closed-form / Monte Carlo OPS of labeling metrics.
* :mod:`.extensions` — :func:`outperformance_score_ci` (bootstrap interval over the
  test set) and :func:`multiclass_outperformance_score` (one-vs-rest, multi-label).
* :class:`OPSResult` — the result, with its method, reference distribution and Monte
  Carlo standard error.
"""

from .result import OPSResult
from .score import outperformance_score
from .extensions import (
    MulticlassOPSResult,
    OPSInterval,
    multiclass_outperformance_score,
    outperformance_score_ci,
)
from .labeling import f1_outperformance_closed_form, labeling_outperformance_score

__all__ = [
    "OPSResult",
    "outperformance_score",
    "labeling_outperformance_score",
    "f1_outperformance_closed_form",
    "OPSInterval",
    "MulticlassOPSResult",
    "outperformance_score_ci",
    "multiclass_outperformance_score",
]
