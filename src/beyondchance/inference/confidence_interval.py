"""The one shape of a confidence interval in the package: :class:`ConfidenceInterval`.

Every public result that carries a two-sided interval gives it as a
``ConfidenceInterval(low, high, level, method)``: :func:`~beyondchance.bootstrap_ci`
(``BootstrapResult.interval``, ``BootstrapResult.confidence_interval()``), the report's
rows (:class:`beyondchance.report.MetricCI` is a subclass), the outperformance score's
interval (``OPSInterval.interval``), the grouped Poisson bootstrap
(:class:`beyondchance.inference.poisson_bootstrap.Intervals`), DeLong's test, the model
comparison, the decompositions and the label-free estimates of
:mod:`beyondchance.monitoring`.  It unpacks as the pair ``(low, high)``, so
``low, high = ci`` works wherever a tuple was returned before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._json import jsonable

__all__ = ["ConfidenceInterval"]


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided confidence interval: its ends, its nominal level and how it was made.

    Parameters
    ----------
    low, high : float
        The lower and upper end (nan when the interval is undefined).
    level : float
        Nominal coverage in (0, 1), e.g. 0.95.
    method : str
        How the interval was computed: ``"bca"``, ``"percentile"`` or ``"basic"`` for
        bootstrap intervals, ``"wald"`` for normal-approximation intervals (``"bca-logit"``:
        computed on the logit scale and carried back, the classifier effect of an AUC in
        ``beyondchance.monitoring.decomposition_intervals``).

    Notes
    -----
    The interval behaves as the pair ``(low, high)``: ``low, high = ci`` unpacks it,
    ``ci[0]`` and ``ci[1]`` index it, ``len(ci) == 2`` and ``numpy.asarray(ci)`` is the
    array of the two ends (as the former ``NamedTuple`` did).  ``x in ci`` is
    ``low <= x <= high`` (False for nan), not a test of equality with an end.
    Equality compares all four fields; compare ``tuple(ci)`` with a pair to compare the
    ends only.

    Examples
    --------
    >>> from beyondchance import ConfidenceInterval
    >>> ci = ConfidenceInterval(0.71, 0.83, level=0.95, method="percentile")
    >>> low, high = ci
    >>> low, high, ci.level, ci.method
    (0.71, 0.83, 0.95, 'percentile')
    >>> 0.8 in ci, 0.9 in ci
    (True, False)
    >>> ci.to_dict()
    {'low': 0.71, 'high': 0.83, 'level': 0.95, 'method': 'percentile'}
    """

    low: float
    high: float
    level: float
    method: str

    def __iter__(self) -> Iterator[float]:
        """The two ends, ``low`` then ``high`` (so that ``low, high = ci`` works)."""
        yield self.low
        yield self.high

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: Any) -> Any:
        return (self.low, self.high)[index]

    def __contains__(self, x: Any) -> bool:
        """``low <= x <= high``."""
        return bool(self.low <= x <= self.high)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation (nan ends as None)."""
        return {"low": jsonable(float(self.low)), "high": jsonable(float(self.high)),
                "level": jsonable(self.level), "method": self.method}
