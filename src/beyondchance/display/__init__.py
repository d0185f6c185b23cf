"""Displays in scikit-learn's style: ``from_predictions``, ``from_estimator``, ``plot(ax=...)``.

Each display draws what a library function computes (it computes nothing itself),
together with the constant predictor's line (``chance_level_``), and several models can
share one axes (``plot(ax=other.ax_)``):

===================================  =====================================================
:class:`LiftDisplay`                 lift against the predicted-positive rate
:class:`GainDisplay`                 recall against the predicted-positive rate
:class:`OPRCDisplay`                 OPS of precision (and precision) against recall
:class:`OPSLiftDisplay`              OPS of lift against the predicted-positive rate
:class:`PACoverageDisplay`           prediction advantage against coverage
:class:`PrecisionRecallGainDisplay`  precision gain against recall gain
:class:`ReliabilityDisplay`          reliability diagram with the expected calibration error
:class:`DecisionCurveDisplay`        net benefit against the threshold probability, with
                                     treat-all and treat-none (and as a prediction advantage)
===================================  =====================================================
"""

from .decision_curve import DecisionCurveDisplay
from .gain import GainDisplay
from .lift import LiftDisplay
from .oprc import OPRCDisplay
from .ops_lift import OPSLiftDisplay
from .pa_coverage import PACoverageDisplay
from .precision_recall_gain import PrecisionRecallGainDisplay
from .reliability import ReliabilityDisplay

__all__ = [
    "LiftDisplay",
    "GainDisplay",
    "OPRCDisplay",
    "OPSLiftDisplay",
    "PACoverageDisplay",
    "PrecisionRecallGainDisplay",
    "ReliabilityDisplay",
    "DecisionCurveDisplay",
]
