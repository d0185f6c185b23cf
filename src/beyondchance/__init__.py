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
from .confusion import ConfusionMatrix
from .metrics import METRICS, LabelingMetric, get_metric, metric_names
from .pure import pure_accuracy, pure_loss, random_accuracy

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
]
