"""Monitoring: did only the prevalence move, or did the classifier change — and how good is
the model on a window whose labels have not arrived yet?

* :mod:`.decomposition` — a binary metric's change split into the part the prevalence
  explains and the classifier's own change, with tests (:class:`Decomposition`,
  :class:`ClassifierTest`, :class:`ClassifierChange`);
* :mod:`.decomposition_multiclass`, :mod:`.probabilities` — the same for class labels and
  class probabilities;
* :mod:`.label_free` — :func:`estimate_performance`: a window's prevalence and metrics from
  its scores alone.
"""

from .decomposition import Decomposition
from .classifier_change import ClassifierChange, ClassifierTest
from .label_free import LabelFreeEstimate, ProjectedMetric, estimate_from_statistics, estimate_performance

__all__ = [
    "ClassifierChange",
    "ClassifierTest",
    "Decomposition",
    "LabelFreeEstimate",
    "ProjectedMetric",
    "estimate_from_statistics",
    "estimate_performance",
]
