"""beyondchance — is this predictor better than the trivial one, and by how much?

Three remedies for performance numbers that flatter trivial predictors:

* **Prediction Advantage** (El-Yaniv, Geifman & Wiener): 1 − R(f)/R(f₀), f₀ the
  best constant prediction for the loss.
* **Pure Accuracy** (Wang, Qian & Li): accuracy with chance agreement removed.
* **Outperformance Score** (Zhao, Bui, Yu & Dzieciolowski): a metric's percentile
  among all possible classifiers at the test set's prevalence.
"""

from ._warnings import (
    BeyondChanceWarning,
    InvalidInputError,
    UndefinedMeasureError,
    UndefinedMeasureWarning,
)
from .advantage import (
    PACoverageCurve,
    PredictionAdvantageResult,
    pa_coverage_curve,
    prediction_advantage,
    prediction_advantage_result,
)
from .baselines import (
    AbsoluteLoss,
    BayesMarginalPrediction,
    BrierLoss,
    CallableLoss,
    CostMatrixLoss,
    CrossEntropyLoss,
    Loss,
    PinballLoss,
    QuantileLoss,
    SquaredLoss,
    ZeroOneLoss,
    bayes_marginal_prediction,
    get_loss,
    loss_names,
    weighted_quantile,
)
from .confusion import ConfusionMatrix
from .metrics import METRICS, LabelingMetric, get_metric, metric_names
from .pure import pure_accuracy, pure_loss, random_accuracy
from .outperformance import OPSResult, outperformance_score
from .uncertainty import BootstrapResult, ConfidenceInterval, bootstrap_ci

__version__ = "0.1.0"

__all__ = [
    "BeyondChanceWarning",
    "InvalidInputError",
    "UndefinedMeasureError",
    "UndefinedMeasureWarning",
    "ConfusionMatrix",
    "METRICS",
    "LabelingMetric",
    "get_metric",
    "metric_names",
    "pure_accuracy",
    "pure_loss",
    "random_accuracy",
    "prediction_advantage",
    "prediction_advantage_result",
    "PredictionAdvantageResult",
    "pa_coverage_curve",
    "PACoverageCurve",
    "bayes_marginal_prediction",
    "BayesMarginalPrediction",
    "Loss",
    "ZeroOneLoss",
    "CostMatrixLoss",
    "CrossEntropyLoss",
    "BrierLoss",
    "SquaredLoss",
    "AbsoluteLoss",
    "PinballLoss",
    "QuantileLoss",
    "CallableLoss",
    "get_loss",
    "loss_names",
    "weighted_quantile",
    "outperformance_score",
    "OPSResult",
    "bootstrap_ci",
    "BootstrapResult",
    "ConfidenceInterval",
]
