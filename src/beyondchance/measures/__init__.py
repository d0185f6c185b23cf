"""Measures: pure functions of counts.

* :mod:`.losses` — losses and their best constant predictions (the BMP, f₀);
* :mod:`.registry` — every labeling metric of the confusion matrix, with its properties;
* :mod:`.confusion` — :class:`ConfusionMatrix`, the counts every labeling metric reads;
* :mod:`.threshold_counts`, :mod:`.curve_rates`, :mod:`.curves`,
  :mod:`.multiclass_curves` — the counting kernel of scores, curves in rate space and
  in score space, their areas and point metrics;
* :mod:`.advantage` — the prediction advantage 1 − R(f)/R(f₀) and its coverage curve;
* :mod:`.pure_accuracy` — accuracy with random agreement removed;
* :mod:`.binary_scores`, :mod:`.calibration`, :mod:`.precision_recall_gain`,
  :mod:`.decision_curve` — measures of scored binary test sets.
"""

from .advantage import PACoverageCurve, PredictionAdvantageResult, pa_coverage_curve, prediction_advantage
from .calibration import (
    BrierDecomposition,
    ReliabilityTable,
    brier_score_decomposition,
    expected_calibration_error,
    reliability_table,
)
from .confusion import ConfusionMatrix
from .curve_rates import CURVES, Curve, auc_from_rates, ideal_auc, recall_at_precision_from_rates, value_at_from_rates
from .curves import (
    average_precision,
    curve_auc,
    curve_nauc,
    curve_value_at,
    gain_auc,
    gain_curve,
    lift_at_k,
    lift_auc,
    lift_curve,
    pr_auc,
    precision_at_k,
    precision_at_recall,
    precision_recall_curve,
    recall_at_precision,
    roc_auc,
    roc_curve,
)
from .decision_curve import DecisionCurve, decision_curve, net_benefit
from .losses import (
    AbsoluteLoss,
    BayesMarginalPrediction,
    BrierLoss,
    CallableLoss,
    CostMatrixLoss,
    CrossEntropyLoss,
    Loss,
    PinballLoss,
    SquaredLoss,
    ZeroOneLoss,
    bayes_marginal_prediction,
    get_loss,
    loss_names,
    weighted_quantile,
)
from .precision_recall_gain import PRGCurve, precision_recall_gain_curve, prg_auc
from .pure_accuracy import (
    PureAccuracyOptimalThreshold,
    pure_accuracy,
    pure_accuracy_optimal_threshold,
    pure_loss,
    random_accuracy,
)
from .registry import METRICS, LabelingMetric, get_metric, metric_names
from .threshold_counts import ThresholdCounts, threshold_counts

__all__ = [
    "AbsoluteLoss", "BayesMarginalPrediction", "BrierDecomposition", "BrierLoss", "CURVES", "CallableLoss",
    "ConfusionMatrix", "CostMatrixLoss", "CrossEntropyLoss", "Curve", "DecisionCurve", "LabelingMetric", "Loss",
    "METRICS", "PACoverageCurve", "PRGCurve", "PinballLoss", "PredictionAdvantageResult",
    "PureAccuracyOptimalThreshold", "ReliabilityTable", "SquaredLoss", "ThresholdCounts", "ZeroOneLoss",
    "auc_from_rates", "average_precision", "bayes_marginal_prediction", "brier_score_decomposition",
    "curve_auc", "curve_nauc", "curve_value_at", "decision_curve", "expected_calibration_error", "gain_auc",
    "gain_curve", "get_loss", "get_metric", "ideal_auc", "lift_at_k", "lift_auc", "lift_curve", "loss_names",
    "metric_names", "net_benefit", "pa_coverage_curve", "pr_auc", "precision_at_k", "precision_at_recall",
    "precision_recall_curve", "precision_recall_gain_curve", "prediction_advantage", "prg_auc", "pure_accuracy",
    "pure_accuracy_optimal_threshold", "pure_loss", "random_accuracy", "recall_at_precision",
    "recall_at_precision_from_rates", "reliability_table", "roc_auc", "roc_curve", "threshold_counts",
    "value_at_from_rates", "weighted_quantile",
]
