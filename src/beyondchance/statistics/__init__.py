"""Sufficient statistics: small, mergeable summaries from one pass over the data, from which
every measure of a report is computed (``a.merge(b)`` is the statistics of the union).
"""

from .sufficient import (
    BinnedScoreCounts,
    ClassScoreCounts,
    LabelCounts,
    LossSums,
    Moments,
    SufficientStatistics,
    ValueHistogram,
)

__all__ = [
    "BinnedScoreCounts",
    "ClassScoreCounts",
    "LabelCounts",
    "LossSums",
    "Moments",
    "SufficientStatistics",
    "ValueHistogram",
]
