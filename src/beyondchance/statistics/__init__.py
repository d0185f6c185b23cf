"""Sufficient statistics: small, mergeable summaries from one pass over the data.

By concept: the label counts (:mod:`~beyondchance.statistics.labels`), the statistics of real
values — loss sums, moments, value histograms (:mod:`~beyondchance.statistics.values`), the
score counts (:mod:`~beyondchance.statistics.scores`), and their bundle per task,
:class:`SufficientStatistics` (:mod:`~beyondchance.statistics.sufficient`).
"""

from .labels import LabelCounts
from .scores import BinnedScoreCounts, ClassScoreCounts
from .sufficient import STATISTICS, TASKS, SufficientStatistics
from .values import LossSums, Moments, ValueHistogram

__all__ = ["LabelCounts", "LossSums", "Moments", "ValueHistogram", "BinnedScoreCounts", "ClassScoreCounts",
           "SufficientStatistics", "STATISTICS", "TASKS"]
