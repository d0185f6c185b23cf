"""Outperformance Score (Zhao, Bui, Yu & Dzieciolowski): a metric value's percentile among
all possible classifiers at the test set's prevalence.

* :func:`outperformance_score` — the one entry point, for labeling metrics, a user's
  vectorised ``M(prevalence, alpha, beta)`` and (via ``scoring``, imported lazily)
  scoring metrics.
* :mod:`.labeling` — exact / closed-form / Monte Carlo OPS of labeling metrics.
* :mod:`.interval` — :func:`outperformance_score_ci` (bootstrap interval over the
  test set); :mod:`.multiclass` — :func:`multiclass_outperformance_score` (one-vs-rest,
  multi-label).
* :mod:`.curves` — the OPRC and the OPS(lift) curve.
* :class:`OPSResult` — the result, with its method, reference distribution and Monte
  Carlo standard error.
"""

from .result import OPSResult
from .score import outperformance_score
from .interval import OPSInterval, outperformance_score_ci
from .multiclass import MulticlassOPSResult, multiclass_outperformance_score
from .labeling import f1_outperformance_closed_form, labeling_outperformance_score
from .curves import OPSCurve, ops_lift_curve, ops_precision_recall_curve

__all__ = [
    "OPSResult",
    "outperformance_score",
    "labeling_outperformance_score",
    "f1_outperformance_closed_form",
    "OPSInterval",
    "MulticlassOPSResult",
    "outperformance_score_ci",
    "multiclass_outperformance_score",
    "OPSCurve",
    "ops_lift_curve",
    "ops_precision_recall_curve",
]
