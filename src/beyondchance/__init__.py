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
from .measures.advantage import (
    PACoverageCurve,
    PredictionAdvantageResult,
    pa_coverage_curve,
    prediction_advantage,
    prediction_advantage_result,
)
from .measures.losses import (
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
from .measures.confusion import ConfusionMatrix
from .measures.curves import (
    CURVES,
    Curve,
    ThresholdCounts,
    auc_from_rates,
    average_precision,
    curve_auc,
    curve_nauc,
    curve_value_at,
    gain_auc,
    gain_curve,
    ideal_auc,
    lift_at_k,
    lift_auc,
    lift_curve,
    pr_auc,
    precision_at_k,
    precision_at_recall,
    precision_recall_curve,
    recall_at_precision,
    recall_at_precision_from_rates,
    roc_auc,
    roc_curve,
    threshold_counts,
    value_at_from_rates,
)
from .measures.registry import METRICS, LabelingMetric, get_metric, metric_names
from .measures.pure_accuracy import pure_accuracy, pure_loss, random_accuracy
from .measures.pure_accuracy import PureAccuracyOptimalThreshold, pure_accuracy_optimal_threshold
from .outperformance import OPSResult, outperformance_score
from .outperformance.curves import OPSCurve, ops_lift_curve, ops_precision_recall_curve
from .outperformance.extensions import (
    MulticlassOPSResult,
    OPSInterval,
    multiclass_outperformance_score,
    outperformance_score_ci,
)
from .inference.bootstrap import BootstrapResult, ConfidenceInterval, bootstrap_ci
from .statistics.sufficient import BinnedScoreCounts, LabelCounts, LossSums, Moments, SufficientStatistics, ValueHistogram
from .engines import compute_statistics
from .engines.accumulator import StatisticsAccumulator
from .report import Comparison, MetricResult, Report, compare, evaluate
from .inference.delong import DeLongResult, delong_test
from .measures.decision_curve import DecisionCurve, decision_curve, net_benefit
from .inference.permutation.permutation_test import PermutationTestResult, permutation_test
from .report.model_comparison import ModelComparison, ModelDifference, compare_models
from .report.gates import CheckResult, RequirementResult
from .learn.scorers import get_scorer, make_scorer, scorer_names
from .measures.calibration import (
    BrierDecomposition,
    ReliabilityTable,
    brier_score_decomposition,
    expected_calibration_error,
    reliability_table,
)
from .measures.precision_recall_gain import PRGCurve, precision_recall_gain_curve, prg_auc
from .display import (
    DecisionCurveDisplay,
    GainDisplay,
    LiftDisplay,
    OPRCDisplay,
    OPSLiftDisplay,
    PACoverageDisplay,
    PrecisionRecallGainDisplay,
    ReliabilityDisplay,
)
from .report.per_class import PerClassTable
from .monitoring.decomposition import ClassifierChange, ClassifierTest, Decomposition
from .monitoring.label_free import LabelFreeEstimate, ProjectedMetric, estimate_from_statistics, estimate_performance
from .report.compare_tasks import TargetShift
from ._version import __version__ as __version__

__all__ = [
    "evaluate",
    "compare",
    "make_scorer",
    "get_scorer",
    "scorer_names",
    "Report",
    "PerClassTable",
    "MetricResult",
    "Comparison",
    "BeyondChanceWarning",
    "InvalidInputError",
    "UndefinedMeasureError",
    "UndefinedMeasureWarning",
    "ConfusionMatrix",
    "CURVES",
    "Curve",
    "ThresholdCounts",
    "auc_from_rates",
    "average_precision",
    "curve_auc",
    "curve_nauc",
    "curve_value_at",
    "gain_auc",
    "gain_curve",
    "ideal_auc",
    "lift_at_k",
    "lift_auc",
    "lift_curve",
    "pr_auc",
    "precision_at_k",
    "precision_at_recall",
    "precision_recall_curve",
    "recall_at_precision",
    "recall_at_precision_from_rates",
    "roc_auc",
    "roc_curve",
    "threshold_counts",
    "value_at_from_rates",
    "METRICS",
    "LabelingMetric",
    "get_metric",
    "metric_names",
    "pure_accuracy",
    "pure_loss",
    "random_accuracy",
    "pure_accuracy_optimal_threshold",
    "PureAccuracyOptimalThreshold",
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
    "OPSCurve",
    "ops_precision_recall_curve",
    "ops_lift_curve",
    "outperformance_score_ci",
    "OPSInterval",
    "multiclass_outperformance_score",
    "MulticlassOPSResult",
    "bootstrap_ci",
    "BootstrapResult",
    "ConfidenceInterval",
    "SufficientStatistics",
    "LabelCounts",
    "LossSums",
    "Moments",
    "ValueHistogram",
    "BinnedScoreCounts",
    "compute_statistics",
    "StatisticsAccumulator",
    "reliability_table",
    "ReliabilityTable",
    "expected_calibration_error",
    "brier_score_decomposition",
    "BrierDecomposition",
    "precision_recall_gain_curve",
    "PRGCurve",
    "prg_auc",
    "LiftDisplay",
    "GainDisplay",
    "OPRCDisplay",
    "OPSLiftDisplay",
    "PACoverageDisplay",
    "PrecisionRecallGainDisplay",
    "ReliabilityDisplay",
    "DecisionCurveDisplay",
    "Decomposition",
    "ClassifierTest",
    "ClassifierChange",
    "estimate_performance",
    "estimate_from_statistics",
    "TargetShift",
    "LabelFreeEstimate",
    "ProjectedMetric",
    "delong_test",
    "net_benefit",
    "decision_curve",
    "DecisionCurve",
    "DeLongResult",
    "permutation_test",
    "PermutationTestResult",
    "compare_models",
    "ModelComparison",
    "ModelDifference",
    "CheckResult",
    "RequirementResult",
]
