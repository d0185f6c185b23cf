"""The result type shared by every outperformance-score computation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._summary_display import SummaryDisplay
from .._json import jsonable as _jsonable

__all__ = ["OPSResult"]




@dataclass(frozen=True)
class OPSResult(SummaryDisplay):
    """Outperformance score of a metric value at a prevalence, with its audit trail.

    Attributes
    ----------
    score : OPS in [0, 1] (float, or an array when the inputs were arrays)
    metric : canonical metric name (or the callable's name)
    value : the metric value(s) scored
    prevalence : the prevalence(s) π
    method : how the area/probability was computed: ``"closed-form"``, ``"exact"``
        (quadrature), ``"monte-carlo"`` (uniform reference) or ``"dbt"`` (Monte Carlo
        over Directed-Binary-Tree curves)
    standard_error : Monte Carlo standard error (0 for exact methods)
    reference : description of the reference distribution
    mc_samples : Monte Carlo sample count (None for exact methods)
    options : metric options used (``beta``, ``at``, depth, ...)
    """

    score: Any
    metric: str
    value: Any
    prevalence: Any
    method: str
    standard_error: Any = 0.0
    reference: str = "uniform (alpha, beta) on [0, 1]^2"
    mc_samples: int | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.score)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(result)``: the score(s) as a float array."""
        return np.array(self.score, dtype=np.float64 if dtype is None else dtype)

    def _summary_title(self) -> str:
        return f"Outperformance score of {self.metric}"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows = [("OPS", self.score), ("value", self.value), ("prevalence", self.prevalence),
                ("method", self.method), ("reference", self.reference)]
        if self.mc_samples is not None:
            rows += [("reference curves", self.mc_samples), ("standard error", self.standard_error)]
        return rows

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "score": _jsonable(self.score),
            "metric": self.metric,
            "value": _jsonable(self.value),
            "prevalence": _jsonable(self.prevalence),
            "method": self.method,
            "standard_error": _jsonable(self.standard_error),
            "reference": self.reference,
            "mc_samples": self.mc_samples,
            "options": {k: _jsonable(v) for k, v in self.options.items()},
        }
