"""beyondchance — is this predictor better than the trivial one, and by how much?

Three remedies for performance numbers that flatter trivial predictors:

* **Prediction Advantage** (El-Yaniv, Geifman & Wiener): 1 − R(f)/R(f₀), f₀ the
  best constant prediction for the loss.
* **Pure Accuracy** (Wang, Qian & Li): accuracy with chance agreement removed.
* **Outperformance Score** (Zhao, Bui, Yu & Dzieciolowski): a metric's percentile
  among all possible classifiers at the test set's prevalence.
"""

from ._interrupt import exit_quietly_on_interrupt as _exit_quietly_on_interrupt
from ._interrupt import is_command_line as _is_command_line

if _is_command_line():  # before the heavy imports: a Ctrl-C during them is one line, status 130
    _exit_quietly_on_interrupt()

from ._warnings import BeyondChanceWarning, InvalidInputError, UndefinedMeasureError, UndefinedMeasureWarning
from .engines.accumulator import StatisticsAccumulator
from .inference import (
    BootstrapResult,
    ConfidenceInterval,
    DeLongResult,
    PermutationTestResult,
    bootstrap_ci,
    delong_test,
    permutation_test,
)
from .learn.scorers import get_scorer, make_scorer
from .measures import (
    AbsoluteLoss,
    BayesMarginalPrediction,
    BrierLoss,
    CallableLoss,
    ConfusionMatrix,
    CostMatrixLoss,
    CrossEntropyLoss,
    Curve,
    Loss,
    PACoverageCurve,
    PinballLoss,
    PredictionAdvantageResult,
    PureAccuracyOptimalThreshold,
    SquaredLoss,
    ThresholdCounts,
    ZeroOneLoss,
    average_precision,
    bayes_marginal_prediction,
    brier_score_decomposition,
    decision_curve,
    expected_calibration_error,
    gain_auc,
    gain_curve,
    get_loss,
    lift_at_k,
    lift_auc,
    lift_curve,
    loss_names,
    metric_names,
    net_benefit,
    pa_coverage_curve,
    precision_at_k,
    precision_at_recall,
    precision_recall_curve,
    precision_recall_gain_curve,
    prediction_advantage,
    prg_auc,
    pure_accuracy,
    pure_accuracy_optimal_threshold,
    random_accuracy,
    recall_at_precision,
    reliability_table,
    roc_auc,
    roc_curve,
    threshold_counts,
)
from .monitoring import estimate_performance
from .outperformance import (
    OPSResult,
    multiclass_outperformance_score,
    ops_lift_curve,
    ops_precision_recall_curve,
    outperformance_score,
    outperformance_score_ci,
)
from .report import (
    Comparison, MetricResult, ModelComparison, Report, TaskStatistics, compare, compare_models, evaluate, profile,
    read_statistics,
)
from ._version import __version__ as __version__

#: the documented subpackages: everything public that is not a name of ``__all__`` lives in one of them
_SUBPACKAGES: tuple[str, ...] = (
    "datasets", "display", "engines", "experiments", "inference", "learn", "measures", "monitoring",
    "outperformance", "report", "statistics",
)

__all__ = [
    # one report: evaluate a predictor against the trivial one, compare test sets and models
    "evaluate", "compare", "compare_models", "estimate_performance",
    "Report", "Comparison", "ModelComparison", "MetricResult",
    # errors and warnings
    "BeyondChanceWarning", "InvalidInputError", "UndefinedMeasureError", "UndefinedMeasureWarning",
    # prediction advantage: the risk the best constant prediction leaves, removed
    "prediction_advantage", "PredictionAdvantageResult", "bayes_marginal_prediction", "BayesMarginalPrediction",
    "pa_coverage_curve", "PACoverageCurve",
    "Loss", "ZeroOneLoss", "CostMatrixLoss", "CrossEntropyLoss", "BrierLoss", "SquaredLoss", "AbsoluteLoss",
    "PinballLoss", "CallableLoss", "get_loss", "loss_names",
    # pure accuracy
    "pure_accuracy", "random_accuracy", "pure_accuracy_optimal_threshold", "PureAccuracyOptimalThreshold",
    # labeling metrics
    "ConfusionMatrix", "metric_names",
    # scores: curves, their areas and point metrics
    "roc_auc", "average_precision", "lift_auc", "gain_auc", "roc_curve", "precision_recall_curve", "lift_curve",
    "gain_curve", "Curve", "threshold_counts", "ThresholdCounts", "precision_at_recall", "recall_at_precision",
    "precision_at_k", "lift_at_k",
    # outperformance score
    "outperformance_score", "OPSResult", "ops_precision_recall_curve", "ops_lift_curve",
    "outperformance_score_ci", "multiclass_outperformance_score",
    # inference
    "bootstrap_ci", "BootstrapResult", "ConfidenceInterval", "delong_test", "DeLongResult", "permutation_test",
    "PermutationTestResult",
    # statistics you can keep: profile once (or batch by batch), save, merge, report anywhere
    "profile", "TaskStatistics", "read_statistics", "StatisticsAccumulator",
    # calibration, precision-recall-gain, decision curves
    "reliability_table", "expected_calibration_error", "brier_score_decomposition",
    "precision_recall_gain_curve", "prg_auc", "net_benefit", "decision_curve",
    # scikit-learn scorers
    "make_scorer", "get_scorer",
]


def __getattr__(name: str):
    """The subpackages not imported above (``experiments``, ``datasets``, …), on first use."""
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """``__all__`` and the documented subpackages: no module of the implementation leaks."""
    return sorted([*__all__, *_SUBPACKAGES, "__version__"])
