"""The seam between the engines and the rest: the runner protocol and the registry.

An engine is one object implementing :class:`Runner` (what it computes from a source,
and what it can do), registered under its name.  Nothing outside :mod:`beyondchance.engines`
names an engine: the report (:mod:`beyondchance.engines.scan`) and the command line
ask :func:`get_runner` for the runner of the user's ``engine`` and use its methods and
capabilities.  Adding an engine is one module with a runner and one line of
:data:`_BUILTIN` (or :func:`register` at run time, as the tests' toy engine does).

A runner opens a source as a :class:`Scan`: the columns a report needs are read once
(:meth:`Scan.open`) and every statistic of the report is computed from that read.  The
memory engine's scan holds the columns (:class:`beyondchance.engines.memory.MemoryScan`),
the SQL engines' scan a session over the rows (:class:`beyondchance.engines.sql_engine.SQLScan`).
(That session is the SQL runner of :class:`beyondchance.engines.sql.Runner` — ``DuckDBRunner``,
``SparkRunner`` — which runs the shared SQL; the runner here is the engine as a whole.)
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["Runner", "Scan", "get_runner", "engine_names", "register", "unregister", "BUILTIN_ENGINES"]


@runtime_checkable
class Scan(Protocol):
    """One source opened by an engine (:meth:`Runner.open`)."""

    #: the engine's name (``Report.engine``)
    engine: str
    #: the source's name in messages (None: ``"input"``)
    name: str | None
    #: the rows are columns in memory: the row tests take them from the columns (nothing is
    #: fetched), and a regression's histograms come from the rows
    in_memory: bool
    #: the SQL runner of an SQL engine's scan while it is open (the permutation CLTs of class
    #: probabilities query it), else None
    sql: Any

    def open(self, columns: Sequence[str], numeric: Sequence[str], row_index: bool = False) -> dict[str, str]:
        """Read ``columns`` (``numeric`` ones as numbers); column name -> float | int | bool | string | other.
        ``row_index``: keep each row's position where the source has one (for :meth:`group_totals`)."""

    def statistics(self, **kwargs: Any) -> Any:
        """The :class:`~beyondchance.statistics.sufficient.SufficientStatistics` (the options of
        ``beyondchance.engines.compute_statistics``, the engines' internal entry)."""

    def group_totals(self, **kwargs: Any) -> Any:
        """The ``GroupTotals`` (:mod:`beyondchance.inference.poisson_bootstrap`) of the grouped bootstrap,
        or None when the source has no row order.  ``kind=`` says what is summed (``"labels"``,
        ``"probabilities"``, ``"regression"``; the labels of binary scores at a threshold:
        ``kind="labels"`` with ``y_score=`` and ``threshold=``), the other keywords are those of
        :func:`beyondchance.engines.compute_group_totals` (column names)."""

    def probability_statistics(self, **kwargs: Any) -> Any:
        """The ``ProbabilityStatistics`` (:mod:`beyondchance.monitoring.probabilities`) of class
        probabilities, or None when the source has no row order."""

    def unit_counts(self, *, y_true: str, y_score: str, weight: str, pos_label: Any, score_bins: int | None) -> Any:
        """The score statistic counting the rows of positive weight."""

    def rows(self, labels: Sequence[str], numbers: Sequence[str]) -> tuple[dict[str, np.ndarray], bool]:
        """(column -> its rows, whether in the source's row order), ``numbers`` read as floats."""

    def score_histogram(self, *, y_score: str, weight: str | None) -> tuple[Any, int]:
        """(the exact ValueHistogram of the scores, the number of rows) of a window without labels."""

    def values_outside(self, column: str, values: Sequence[Any], limit: int = 5) -> list[float]:
        """Up to ``limit`` distinct values (sorted; some, not necessarily the smallest) of the numeric
        ``column`` that are not among ``values``: does a score column hold only the classes of y_true
        (then predicted labels)?"""

    def absolute_histograms(self, *, y_true: str, y_pred: str, weight: str | None) -> Any:
        """The exact AbsoluteErrorHistograms of a regression (an engine whose rows are not in memory)."""

    def close(self) -> None:
        """Release what the scan holds (a second call does nothing)."""


@runtime_checkable
class Runner(Protocol):
    """An engine: computes the sufficient statistics of a source (see the module docstring)."""

    #: the name of ``engine=`` and ``--engine``
    name: str
    #: the engine opens files by their path, and only regular files: the command line refuses
    #: stdin and pipes for it (False: the engine reads stdin ``"-"``, pipes and devices too,
    #: once, into memory, as the memory engine does)
    reads_files: bool
    #: a directory is a source of the engine (otherwise the command line asks for a glob pattern)
    reads_directories: bool
    #: :meth:`split_by` is available (``compare FILE --by COL`` inside the engine)
    splits_by_column: bool

    def session(self, options: Mapping[str, Any]) -> Any:
        """The session the engine runs in, from the command line's options (``spark_master`` …),
        or None when it needs none."""

    def statistics(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                   **kwargs: Any) -> Any:
        """``beyondchance.engines.compute_statistics`` of a source on this engine."""

    def group_totals(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                     **kwargs: Any) -> Any:
        """:func:`beyondchance.engines.compute_group_totals` of a source on this engine."""

    def open(self, source: Any, *, session: Any = None, name: str | None = None,
             delimiter: str | None = None) -> Scan:
        """A :class:`Scan` of one source."""

    def split_by(self, source: Any, by: str, *, session: Any = None, delimiter: str | None = None,
                 columns: Sequence[str], numeric: Sequence[str], label: str) -> Any:
        """One source split by the values of column ``by`` inside the engine: an object with
        ``groups`` (``Group`` of :mod:`beyondchance.engines.groups`), ``scan(group, labelled=, name=)``
        (a :class:`Scan` of one group's rows) and ``close()``.  Only when :attr:`splits_by_column`."""


#: the engines that come with the library: name -> "module:attribute" of its runner
#: (imported on first use, so that the registry costs no import)
_BUILTIN: dict[str, str] = {
    "memory": "beyondchance.engines.memory:RUNNER",
    "duckdb": "beyondchance.engines.duckdb:RUNNER",
    "spark": "beyondchance.engines.spark:RUNNER",
}
BUILTIN_ENGINES: tuple[str, ...] = tuple(_BUILTIN)
_REGISTRY: dict[str, Any] = dict(_BUILTIN)


def engine_names() -> tuple[str, ...]:
    """The names of the registered engines, the built-in ones first."""
    return tuple(_REGISTRY)


def get_runner(name: str) -> Runner:
    """The runner of engine ``name``; InvalidInputError naming the engines when there is none."""
    entry = _REGISTRY.get(name) if isinstance(name, str) else None
    if entry is None:
        raise InvalidInputError(f"unknown engine {name!r}; available: {', '.join(_REGISTRY)}")
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = _REGISTRY[name] = getattr(importlib.import_module(module), attr)
    return entry


def register(runner: Runner) -> Runner:
    """Register ``runner`` under ``runner.name`` (replacing an engine of that name); returns it."""
    if not isinstance(runner, Runner):
        raise TypeError(f"{runner!r} does not implement the runner protocol")
    _REGISTRY[runner.name] = runner
    return runner


def unregister(name: str) -> None:
    """Remove engine ``name`` (a built-in one comes back as it was)."""
    others = {k: v for k, v in _REGISTRY.items() if k != name and k not in _BUILTIN}
    builtin = {k: _BUILTIN[k] if k == name else _REGISTRY.get(k, _BUILTIN[k]) for k in _BUILTIN}
    _REGISTRY.clear()
    _REGISTRY.update(builtin)
    _REGISTRY.update(others)
