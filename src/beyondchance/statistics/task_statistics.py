r"""The statistics of one report, without the rows: :class:`TaskStatistics` — the task, the
classes and the task's sufficient statistics — and their file (:func:`read_statistics`,
:meth:`TaskStatistics.save`, :mod:`beyondchance.statistics.file_format`).

Every report is built from one.  :func:`~beyondchance.profile` computes it from arrays, a
table or files on any engine (:mod:`beyondchance.engines.scan`), or it is read back from its
file; :func:`beyondchance.report.from_statistics.report_from_statistics` turns it into the
task's rows and the rows into a report.  So every engine's report is the same function of
the same statistics.

=====================  ================================================================
task                   the statistics
=====================  ================================================================
binary scores          :class:`~beyondchance.measures.curves.ThresholdCounts` (exact) or
                       :class:`~beyondchance.statistics.BinnedScoreCounts`
                       (``score_bins``, with the stated AUC error bound); weighted: also
                       the counts of the rows of positive weight (the bootstrap's units)
binary / multi-class   the confusion matrix and the row counts of y_true
labels
multi-class            the confusion matrix, label counts and loss sums
probabilities
regression             the loss sums, the moments and the exact histogram of y
=====================  ================================================================

Intervals that cannot come from cells come from the per-group sums of the grouped Poisson
bootstrap (``totals``, :mod:`beyondchance.inference.poisson_bootstrap`); the p-values that
permute rows read them from the rows in memory (``inputs``) or fetch them from the source
(``row_source``, :mod:`beyondchance.engines.row_source`).

The positive class of a binary task when none is given (:func:`_resolve_positive`) is decided
here, once, for every door.

Merging is exact for every count (rows, weights, confusion cells, score counts: sums of
the parts' numbers, so exact for integer or dyadic weights and to rounding otherwise) and
to rounding for the loss sums and moments.  The sums of the grouped Poisson bootstrap
(``totals``: probabilities, weighted labels, weighted binary scores at their threshold;
profiled with ``ci=True``) merge too — the same sums per group, so the same intervals for
the same seed — when the parts number their rows apart: each row's group is a hash of its
position, ``row_offset`` + its position in the part, and the parts' ranges of positions
(``GroupTotals.rows``) must not overlap (:meth:`~beyondchance.inference.poisson_bootstrap.GroupTotals.merge`
says which ``row_offset`` to give).  Profile the later part with ``row_offset`` = the
earlier's :attr:`TaskStatistics.next_row_offset` and the merged statistics are those of the
rows in that order.  A regression's sums do not merge: they hold |y − m| and the pinball
terms about the median m (and τ-quantile) of all its rows, which no part knows; merging
them is refused — profile the parts with ``ci=False`` (the report then gives the intervals
the cells give, and says which it cannot) or profile the whole.
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from .._json import jsonable
from .._summary_display import SummaryDisplay, _fmt_label, _label, shorten
from .._validation import MAX_CLASSES, merge_from_zero
from .._validation.labels import default_pos_label
from .._warnings import InvalidInputError
from ..inference.permutation.clt import PermutationCells
from ..inference.permutation.loss import PermutationLossSums
from ..inference.permutation.rows import SquaredErrorSums
from ..inference.poisson_bootstrap import REGRESSION_COLUMNS, GroupTotals, label_columns, probability_columns
from ..measures.confusion import ConfusionMatrix
from ..measures.threshold_counts import ThresholdCounts
from .file_format import read_file, saved_form, write_file
from .scores import BinnedScoreCounts
from .sufficient import SufficientStatistics, merge_optional

__all__ = ["TaskStatistics", "read_statistics", "MAX_ROWS"]

#: the most rows statistics kept in a file may count: a report's exact tests hold laws of some
#: 40·√n_rows points (10¹⁰ rows: 4 million, half a GB and seconds; a forged 10¹³: 7 GB), so a
#: file of a few numbers must not declare more
MAX_ROWS = 10**10

#: the fields that are the statistics themselves (saved, merged); the others say what they are
#: of (task, classes, …) or reach the rows (``inputs``, ``row_source``: never saved)
MERGED_FIELDS: tuple[str, ...] = ("stats", "units", "given", "cells", "score_cells", "loss_sums")
#: the saved fields that say how the statistics were made, not what they are: ``==`` passes them by
PROVENANCE_FIELDS: tuple[str, ...] = ("source", "reason", "columns")


def _same_labels(a: Any, b: Any) -> bool:
    return a is None and b is None or (a is not None and b is not None and np.asarray(a).shape == np.asarray(b).shape
                                       and [_label(x) for x in np.asarray(a).tolist()]
                                       == [_label(x) for x in np.asarray(b).tolist()])


@dataclasses.dataclass(eq=False, repr=False)
class TaskStatistics(SummaryDisplay):
    """What an engine computed for one report: the task, the classes and the task's statistics.

    Made by :func:`~beyondchance.profile` (or by :func:`~beyondchance.evaluate` on the way to
    its report), saved by :meth:`save`, read by :func:`~beyondchance.read_statistics`, added up
    by :meth:`merge` (``a + b``); :func:`report_from_statistics` makes its report.

    >>> import beyondchance as bc
    >>> a = bc.profile([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.1], ci=False)
    >>> b = bc.profile([1, 0, 0, 1], [0.9, 0.3, 0.6, 0.8], ci=False)
    >>> both = a + b
    >>> both.task, both.n_rows, both.counts0.tolist()
    ('binary-scores', 8, [4.0, 4.0])
    >>> both == bc.profile([0, 1, 1, 0, 1, 0, 0, 1], [.2, .7, .4, .1, .9, .3, .6, .8], ci=False)
    True
    >>> both
    TaskStatistics(binary-scores, 8 rows, classes 0/1, prevalence 0.5, exact scores)

    ``print(both)`` (and a notebook cell) shows what they are and what they give without the
    rows; :meth:`to_dict` gives them as JSON values.
    """

    task: str
    source: str  # "detected" or "given": how the task was chosen
    reason: str  # why (shown in the report)
    n_rows: int
    weighted: bool
    classes: np.ndarray  # the classes of y_true (labels: of y_true and y)
    counts0: np.ndarray  # unweighted row counts of y_true per class (0 for classes only in y)
    true_classes: np.ndarray
    stats: Any = None
    #: GroupTotals of the grouped bootstrap (weighted labels, probabilities, regression); for
    #: weighted binary scores in memory a function of the threshold giving them
    totals: Any = None
    units: Any = None  # weighted binary scores: the score statistic of the rows of positive weight
    quantile: float | None = None  # regression: the level of a quantile model's pinball loss
    given: Any = None  # predicted labels given with binary scores: their confusion matrix (over y_true and y_pred)
    given_counts0: Any = None  # and the row counts of y_true over its classes
    cells: Any = None  # weighted: the PermutationCells of the predicted labels (permutation CLT)
    score_cells: Any = None  # weighted binary scores: the PermutationCells of the distinct scores
    #: the rows, fetched for the row permutation tests (engine_rows.RowSource); never saved
    row_source: Any = dataclasses.field(default=None, metadata={"saved": False})
    loss_sums: Any = None  # binary scores: the PermutationLossSums of the losses' permutation CLT
    #: the checked rows in memory (detect.Inputs), for the row permutation tests; never saved
    inputs: Any = dataclasses.field(default=None, metadata={"saved": False})
    positive: tuple | None = None  # binary: (positive label, negative label, why), when resolved
    columns: dict | None = None  # the columns profiled ({"y_true": name, ...}), when profiled from a table

    def merge(self, other: "TaskStatistics") -> "TaskStatistics":
        """The statistics of the union of both parts' rows (see the module docstring for what is
        exact).  Refused, with one line: another type, task, weighting, classes, positive
        label, quantile, statistics of other kinds or bins (``BinnedScoreCounts.merge``), or
        bootstrap sums that do not add up (``GroupTotals.merge``: overlapping rows, another seed
        or threshold; a regression's; beside parts without them)."""
        if not isinstance(other, TaskStatistics):
            raise InvalidInputError(f"cannot merge TaskStatistics with {type(other).__name__}")
        for part in (self, other):
            if part.inputs is not None or callable(part.totals):
                raise InvalidInputError("cannot merge the statistics of a report in memory: make them with "
                                        "beyondchance.profile")
        if self.task != other.task:
            raise InvalidInputError(f"cannot merge statistics of tasks {self.task!r} and {other.task!r}")
        if self.weighted != other.weighted:
            raise InvalidInputError("cannot merge weighted statistics with unweighted ones")
        if not _same_labels(self.classes, other.classes):
            raise InvalidInputError(
                f"cannot merge statistics of different classes ({_shown(self.classes)} and "
                f"{_shown(other.classes)}): profile every part with the same labels=")
        if (self.positive or (None,))[0] != (other.positive or (None,))[0]:
            # kept as is: when only one part has a positive label this line raises a TypeError (a known gap)
            raise InvalidInputError(f"cannot merge statistics of different positive labels "
                                    f"({self.positive[0]!r} and {other.positive[0]!r})")  # type: ignore[index]
        if self.quantile != other.quantile:
            raise InvalidInputError(f"cannot merge statistics of different quantiles ({self.quantile} and "
                                    f"{other.quantile})")
        totals = _merged_totals(self, other)
        parts = {name: merge_optional(getattr(self, name), getattr(other, name), name) for name in MERGED_FIELDS}
        given_counts0 = None
        if self.given_counts0 is not None or other.given_counts0 is not None:
            if self.given is None or not _same_labels(self.given.labels, other.given.labels):
                raise InvalidInputError("cannot merge statistics whose predicted labels have different classes: "
                                        "profile every part with the same labels=")
            given_counts0 = np.asarray(self.given_counts0) + np.asarray(other.given_counts0)
        in_true = {_label(c) for part in (self, other) for c in np.asarray(part.true_classes).tolist()}
        true_classes = np.asarray(self.classes)[[_label(c) in in_true for c in np.asarray(self.classes).tolist()]]
        return dataclasses.replace(
            self, true_classes=true_classes, n_rows=self.n_rows + other.n_rows,
            counts0=np.asarray(self.counts0) + np.asarray(other.counts0), given_counts0=given_counts0, columns=self.columns if self.columns == other.columns else None,
            totals=totals, source=self.source if self.source == other.source else "given",
            reason=self.reason if self.reason == other.reason else f"merged: {self.reason}; {other.reason}",
            **parts)

    __add__ = merge

    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    @property
    def next_row_offset(self) -> int:
        """The ``row_offset`` to profile the rows that follow these with, so that both merge:
        the end of the rows the grouped bootstrap's sums number (``row_offset`` + ``n_rows``
        of a profile), or ``n_rows`` without those sums (then no rows are numbered).

        >>> import beyondchance as bc
        >>> bc.profile([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.1], sample_weight=[1.0, 2, 1, 1], row_offset=10).next_row_offset
        14
        """
        rows = getattr(self.totals, "rows", None)
        return rows[-1][1] if rows else int(self.n_rows)

    def reference_score_counts(self, pos_label: Any = None) -> tuple[ThresholdCounts | BinnedScoreCounts, int]:
        """(the score counts, the number of rows) of binary scores, as the reference of
        :func:`~beyondchance.estimate_performance` reads them (binned scores: their
        BinnedScoreCounts, whose estimate states its bound); one line for another task or
        positive class."""
        if self.task != "binary-scores":
            raise InvalidInputError(f"estimating a window from its scores needs the statistics of binary scores, "
                                    f"not of a {self.task} task")
        if pos_label is not None and self.positive is not None \
                and _coerce_pos_label(pos_label, self.classes) != _label(self.positive[0]):
            raise InvalidInputError(f"these statistics count {_fmt_label(self.positive[0])} as the positive class, "
                                    f"not {_fmt_label(pos_label)}: profile again with pos_label=")
        return self.stats, self.n_rows

    def save(self, path: str | os.PathLike) -> Path:
        """Write the statistics to ``path`` (:mod:`beyondchance.statistics.file_format`: versioned
        JSON with a SHA-256 checksum, written atomically); returns the path written.  Statistics
        the reader would refuse for their size are refused before anything is written: more than
        ``MAX_ROWS`` (10**10) rows, or more than a statistics file may hold."""
        if isinstance(self.n_rows, int) and self.n_rows > MAX_ROWS:
            raise InvalidInputError(f"cannot save statistics of {self.n_rows:,} rows: a statistics file counts at "
                                    f"most {MAX_ROWS:,} (the exact tests of its report grow with the rows)")
        return write_file(self, _metadata(self), path)

    def __eq__(self, other: object) -> bool:
        """The same statistics: the same task, classes, positive class, weighting, rows, quantile
        and statistics, compared in their saved form (``saved_form`` of
        :mod:`~beyondchance.statistics.file_format`: exact, NaN equal to NaN); how
        they were made (``source``, ``reason``, ``columns``) is not compared.  Sums computed in
        another order (a merge of parts against the whole: loss sums, moments, non-integer
        weights) may differ in their last bits, and then the statistics are not equal: compare
        their reports' values.  The statistics of a report in memory (with its rows) equal only
        themselves."""
        if not isinstance(other, TaskStatistics):
            return NotImplemented
        try:
            mine, theirs = (saved_form(p)["fields"] for p in (self, other))
        except InvalidInputError:  # a report's statistics in memory: a function of the threshold, the rows
            return self is other
        return all(mine[name] == theirs[name] for name in mine if name not in PROVENANCE_FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def to_dict(self) -> dict[str, Any]:
        """JSON values: ``metadata``, what the statistics are of (as their file says it), and
        ``statistics``, the statistics in their saved form (``saved_form`` of
        :mod:`~beyondchance.statistics.file_format`: the file's tagged values).

        >>> import json, beyondchance as bc
        >>> d = bc.profile([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.1], ci=False).to_dict()
        >>> d["metadata"]["task"], d["metadata"]["n_rows"], len(json.dumps(d)) > 0
        ('binary-scores', 4, True)
        """
        return {"metadata": _metadata(self), "statistics": saved_form(self)}

    def __repr__(self) -> str:
        """One line of at most 80 characters: the task, the rows, the classes, the prevalence and
        the kind of score counts (the words ``classes``, then the kind, left out to fit)."""
        shown, prevalence = _classes_shown(self.classes), _prevalence(self)
        head = [self.task, f"{self.n_rows:,} {'weighted ' if self.weighted else ''}rows"]
        tail = [f"prevalence {prevalence:.2g}"] if prevalence is not None else []
        kind = [k for k in _kind_of_stats(self) if k != "bootstrap sums"]
        named = shown if shown.endswith(" classes") else f"classes {shown}"
        for classes, last in (([named], kind), ([shown], kind), ([shown], [])):
            text = f"TaskStatistics({', '.join([*head, *(classes if shown else []), *tail, *last])})"
            if len(text) <= 80:
                return text
        return shorten(text, 80)

    def _summary_title(self) -> str:
        return f"Statistics of a {self.task} task: {self.n_rows:,} rows, kept without the rows"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("task", f"{self.task} ({self.source}: {self.reason})"), ("rows", self.n_rows)]
        if self.weighted:
            rows.append(("total weight", _metadata(self)["total_weight"]))
        if np.asarray(self.classes).size:
            rows.append(("classes", _shown(self.classes)))
        positive = _positive_of(self)
        if positive is not None:
            rows.append(("positive class", f"{_fmt_label(positive[0])} ({positive[2]})"))
        prevalence = _prevalence(self)
        if prevalence is not None:
            rows.append(("prevalence", prevalence))
        rows.append(("statistics", ", ".join(_kind_of_stats(self)) or type(self.stats).__name__))
        totals = self.totals if isinstance(self.totals, GroupTotals) else None
        rows.append(("bootstrap sums", "none" if totals is None else
                     f"{totals.groups:,} groups, random_state={totals.seed}"))
        if self.columns:
            rows.append(("columns", ", ".join(f"{k}={v}" for k, v in self.columns.items())))
        return rows

    def _summary_notes(self) -> list[str]:
        totals = self.totals if isinstance(self.totals, GroupTotals) else None
        needs_sums = self.task in ("multiclass-probabilities", "regression") or self.weighted
        intervals = (f"the intervals of evaluate on the rows with the same seed (random_state={totals.seed}, "
                     "from the kept bootstrap sums)" if totals is not None else
                     "the intervals the counts give (no bootstrap sums were kept: profile with ci=True for the "
                     "others)" if needs_sums else "the intervals of the counts")
        return [f"Without the rows: the report (evaluate(statistics)) with every metric, {intervals} and the "
                "p-values of the counts; save, read back and merge (a + b).",
                "Not without the rows: the Monte Carlo tests that permute the rows (the report uses the "
                "permutation CLT of the kept cells beyond its budget instead), and plots of single rows."]


def _classes_shown(classes: Any) -> str:
    """Up to four classes as ``a/b/c``, else their number (a short ``repr``)."""
    values = np.asarray(classes).tolist()
    if not values:
        return ""
    return "/".join(shorten(_label(v), 12) for v in values) if len(values) <= 4 else f"{len(values)} classes"


def _positive_of(p: TaskStatistics) -> tuple | None:
    """(positive, negative, why) of a binary task: the one profiled, else by :func:`_resolve_positive`."""
    if p.positive is not None:
        return p.positive
    if p.task != "binary-labels" or np.asarray(p.classes).size != 2:
        return None
    return _resolve_positive(np.asarray(p.classes), np.asarray(p.counts0), None)


def _prevalence(p: TaskStatistics) -> float | None:
    """The (weighted) share of the positive class of a binary task, None for others or no rows."""
    positive = _positive_of(p)
    if positive is None or p.stats is None:
        return None
    if p.task == "binary-scores":
        n, n_pos = float(p.stats.n), float(p.stats.n_pos)
    else:
        weights = np.asarray(p.stats.matrix, dtype=np.float64).sum(axis=1)
        n, n_pos = float(weights.sum()), float(weights[_labels_of(p.stats.labels).index(_label(positive[0]))])
    return n_pos / n if n > 0 else None


def _kind_of_stats(p: TaskStatistics) -> list[str]:
    """What the score statistics are (exact or in bins) and whether the bootstrap's sums were kept."""
    stats, out = p.stats, []
    if isinstance(stats, ThresholdCounts):
        out.append("exact scores")
    elif isinstance(stats, BinnedScoreCounts):
        out.append(f"{stats.bins} score bins")
    elif isinstance(stats, SufficientStatistics) and stats.class_scores is not None:
        out.append("exact scores" if stats.class_scores.exact else
                   f"{stats.class_scores.counts[0].bins} score bins")
    if isinstance(p.totals, GroupTotals):
        out.append("bootstrap sums")
    return out


#: the type of the ``stats`` of each task
_STATS_TYPES: dict[str, tuple[type, ...]] = {
    "binary-scores": (ThresholdCounts, BinnedScoreCounts), "binary-labels": (ConfusionMatrix,),
    "multiclass-labels": (ConfusionMatrix,), "multiclass-probabilities": (SufficientStatistics,),
    "regression": (SufficientStatistics,),
}


def _metadata(p: TaskStatistics) -> dict[str, Any]:
    """What the statistics are of, for a reader of the file (derived: never read back)."""
    stats = p.stats
    bins = getattr(stats, "bins", None)
    if bins is None and isinstance(stats, SufficientStatistics) and stats.class_scores is not None \
            and not stats.class_scores.exact:
        bins = stats.class_scores.counts[0].bins
    weight = None if stats is None else float(stats.n if hasattr(stats, "n") else np.sum(stats.matrix))
    totals = p.totals if isinstance(p.totals, GroupTotals) else None
    return jsonable({
        "task": p.task, "classes": np.asarray(p.classes).tolist(),
        "positive_label": None if p.positive is None else p.positive[0],
        "threshold": None if totals is None or not totals.info else totals.info.get("threshold"),
        "columns": p.columns, "n_rows": int(p.n_rows), "weighted": bool(p.weighted), "total_weight": weight,
        "score_bins": bins, "bootstrap": None if totals is None else {"groups": totals.groups,
                                                                        "random_state": totals.seed,
                                                                        "rows": totals.rows},
    })


def _merged_totals(a: TaskStatistics, b: TaskStatistics) -> GroupTotals | None:
    """The grouped bootstrap's sums of both parts' rows (:meth:`GroupTotals.merge`); the sums of a
    file written before their rows were recorded number its rows 0 … n_rows − 1."""
    if a.totals is None and b.totals is None:
        return None
    if a.totals is None or b.totals is None:
        raise InvalidInputError("cannot merge statistics with the grouped bootstrap's sums (ci=True) and statistics "
                                "without them: profile every part with ci=True, or every part with ci=False")
    if a.task == "regression":
        raise InvalidInputError(
            "cannot merge a regression's grouped bootstrap sums: they hold |y - median| (and the pinball terms) about "
            "the median of all its rows, which no part knows: profile the parts with ci=False, or profile the whole")
    first, second = (p.totals if p.totals.rows is not None else dataclasses.replace(p.totals, rows=((0, p.n_rows),))
                     for p in (a, b))
    return first.merge(second)


def _check(p: TaskStatistics) -> str | None:
    """Why ``p`` (read from a file) is not statistics the report can read, or None: its fields'
    types here, then how they relate (:func:`_disagreement`); each statistic's constructor has
    checked its own fields (the dataclass itself checks nothing)."""
    return _check_task_and_rows(p) or _check_classes(p) or _check_optional_fields(p) or _disagreement(p)


def _check_task_and_rows(p: TaskStatistics) -> str | None:
    """Why the task, its statistics' type, the row count, weighting, source or reason of ``p`` are not valid."""
    if not isinstance(p.task, str) or p.task not in _STATS_TYPES or not isinstance(p.stats, _STATS_TYPES[p.task]):
        return f"task {p.task!r} with statistics of type {type(p.stats).__name__}"
    if isinstance(p.stats, SufficientStatistics) and p.stats.task != p.task:
        return f"task {p.task!r} with the statistics of a {p.stats.task!r} task"
    if not (isinstance(p.n_rows, int) and not isinstance(p.n_rows, bool) and p.n_rows >= 0
            and isinstance(p.weighted, bool) and isinstance(p.source, str) and isinstance(p.reason, str)):
        return "n_rows, weighted, source or reason of the wrong type"
    if p.n_rows > MAX_ROWS:
        return f"n_rows {p.n_rows:,}, more than the {MAX_ROWS:,} rows a statistics file may count"
    return None


def _check_classes(p: TaskStatistics) -> str | None:
    """Why the classes, true classes and row counts per class of ``p`` are not valid lists."""
    for name in ("classes", "true_classes", "counts0"):
        if not isinstance(getattr(p, name), np.ndarray) or getattr(p, name).ndim != 1:
            return f"{name} is not a list"
    if p.classes.size > MAX_CLASSES:
        return f"more than {MAX_CLASSES:,} classes"
    if p.counts0.dtype.kind not in "iuf" or p.counts0.size not in (0, p.classes.size):
        return "counts0 does not count the classes"
    return None


def _check_optional_fields(p: TaskStatistics) -> str | None:
    """Why the optional fields of ``p`` (positive label, totals, quantile, columns) are not valid."""
    if p.positive is not None and not (isinstance(p.positive, tuple) and len(p.positive) == 3 and all(
            isinstance(x, (str, int, float, bool)) for x in p.positive)):
        return "the positive label is not a (positive, negative, reason) triple"
    if p.totals is not None and not isinstance(p.totals, GroupTotals):
        return "totals that are not GroupTotals"
    if p.quantile is not None and not (isinstance(p.quantile, float) and 0 < p.quantile < 1):
        return "a quantile outside (0, 1)"
    if p.columns is not None and not (isinstance(p.columns, dict) and all(isinstance(k, str) for k in p.columns)):
        return "columns that are not a mapping of names"
    return None


def _labels_of(a: Any) -> list:
    return [_label(c) for c in np.asarray(a).tolist()]


def _row_counts(a: np.ndarray) -> bool:
    return bool(np.isfinite(a).all() and (a >= 0).all() and (a == np.floor(a)).all())


def _disagreement(p: TaskStatistics) -> str | None:
    """Which fields of ``p`` (each valid alone: :func:`_check` and the constructors) disagree
    with each other, or None: the classes, their row counts, the rows, the positive label,
    the weighting, the task's statistics, their parts and the bootstrap's sums must be those
    of one profile.  O(size of the statistics)."""
    classes, regression = _labels_of(p.classes), p.task == "regression"
    if len(set(classes)) != len(classes):
        return "classes holds duplicates"
    if regression != (not classes) or (p.task.startswith("binary") and len(classes) > 2):
        return f"{len(classes)} classes for a {p.task} task"
    if p.counts0.size != len(classes) or not _row_counts(p.counts0):
        return "counts0 holds no row count per class (negative, fractional or not finite)"
    if p.n_rows < 1 or (not regression and float(p.counts0.sum()) != p.n_rows):
        return f"n_rows {p.n_rows} is not the {float(p.counts0.sum()):g} rows counts0 counts"
    if not set(_labels_of(p.true_classes)) <= set(classes) or (classes and p.true_classes.size == 0):
        return "true_classes are not among the classes"
    if p.quantile is not None and not regression:
        return f"a quantile for a {p.task} task"
    if p.positive is not None:
        pair = {_label(p.positive[0]), _label(p.positive[1])}
        if not p.task.startswith("binary") or len(pair) != 2 or not set(classes) <= pair:
            return f"the positive label {p.positive[0]!r} (negative {p.positive[1]!r}) is not one of the classes"
    return _stats_disagreement(p, classes) or _parts_disagreement(p, classes) or _totals_disagreement(p, classes)


def _stats_disagreement(p: TaskStatistics, classes: list) -> str | None:
    """The task's ``stats`` against the classes, their row counts and the weighting."""
    stats, rows = p.stats, None  # rows: the rows of each class the stats count (None: not known)
    if isinstance(stats, ConfusionMatrix):
        if _labels_of(stats.labels) != classes:
            return "stats (the confusion matrix) are not over the classes"
        rows, n = stats.matrix.sum(axis=1), float(stats.matrix.sum())
    elif isinstance(stats, (ThresholdCounts, BinnedScoreCounts)):
        if p.positive is not None and _label(stats.pos_label) != _label(p.positive[0]):
            return f"stats count {stats.pos_label!r} as the positive class, not {p.positive[0]!r}"
        n = stats.n
        if p.positive is not None and len(classes) == 2:
            rows = np.array([stats.n - stats.n_pos, stats.n_pos])[::1 if classes[1] == _label(p.positive[0]) else -1]
    elif p.task == "multiclass-probabilities":
        if stats.confusion is None or stats.class_scores is None or \
                _labels_of(stats.confusion.labels) != classes or _labels_of(stats.class_scores.classes) != classes:
            return "stats (of the probabilities) are not over the classes"
        rows, n = stats.confusion.matrix.sum(axis=1), stats.n
    else:
        if stats.moments is None or stats.loss_sums is None:
            return "stats of a regression without its moments or loss sums"
        n = stats.n
    if not p.weighted and (n != p.n_rows or (rows is not None and not np.array_equal(rows, p.counts0))):
        return "stats count other rows than counts0 and n_rows (unweighted statistics count rows)"
    return None


def _parts_disagreement(p: TaskStatistics, classes: list) -> str | None:
    """The statistics beside ``stats`` (the weighted rows' units and cells, the losses' sums,
    the predicted labels given with scores) against the task, the classes and the rows."""
    given = _labels_of(p.given.labels) if p.given is not None else []
    stats = p.stats if isinstance(p.stats, SufficientStatistics) else None
    return (_parts_types_disagreement(p) or _parts_weighting_disagreement(p)
            or _given_disagreement(p, classes, given) or _units_disagreement(p, classes)
            or _stats_parts_types_disagreement(stats) or _cells_disagreement(p, classes, given, stats)
            or _loss_sums_disagreement(p, classes, stats) or _squared_sums_disagreement(p, stats))


def _parts_types_disagreement(p: TaskStatistics) -> str | None:
    """The parts of ``p`` of a type its task does not hold."""
    scores = p.task == "binary-scores"
    kinds = {"units": (type(p.stats),) if scores else (), "score_cells": (PermutationCells,) if scores else (),
             "loss_sums": (PermutationLossSums,) if scores else (), "given": (ConfusionMatrix,) if scores else (),
             "cells": (PermutationCells,)}
    for name, allowed in kinds.items():
        value = getattr(p, name)
        if value is not None and not isinstance(value, allowed):
            return f"{name} of type {type(value).__name__} in the statistics of a {p.task} task"
    return None


def _parts_weighting_disagreement(p: TaskStatistics) -> str | None:
    """The units and cells of weighted rows against the weighting of ``p``."""
    if not p.weighted and (p.units is not None or p.cells is not None or p.score_cells is not None):
        return "units or cells of weighted rows in unweighted statistics"
    exact_scores = isinstance(p.stats, ThresholdCounts)
    if p.weighted and (p.score_cells is None if exact_scores else p.cells is None if p.task.endswith("-labels")
                       else False):
        return "weighted statistics without the cells of their weighted rows (score_cells, cells)"
    return None


def _given_disagreement(p: TaskStatistics, classes: list, given: list) -> str | None:
    """The predicted labels given with scores (and their row counts) against the classes and rows."""
    if p.given is not None:
        g0 = p.given_counts0
        if not set(classes) <= set(given) or not isinstance(g0, np.ndarray) or g0.shape != (len(given),) \
                or not _row_counts(g0) or float(g0.sum()) != p.n_rows:
            return "given (the predicted labels' matrix) and given_counts0 are not over the classes and rows"
    elif p.given_counts0 is not None:
        return "given_counts0 without given"
    return None


def _units_disagreement(p: TaskStatistics, classes: list) -> str | None:
    """The weighted rows' units against ``stats`` and the row counts per class."""
    if p.units is None:
        return None
    n_pos = float(p.counts0[classes.index(_label(p.positive[0]))]) if p.positive is not None \
        and _label(p.positive[0]) in classes else 0.0
    if p.units.n_pos > n_pos or p.units.n - p.units.n_pos > p.n_rows - n_pos \
            or getattr(p.units, "bins", None) != getattr(p.stats, "bins", None) \
            or _label(p.units.pos_label) != _label(p.stats.pos_label):
        return "units count other rows or scores than stats and counts0"
    return None


def _stats_parts_types_disagreement(stats: SufficientStatistics | None) -> str | None:
    """The permutation test's parts of the task's ``stats`` of another type than theirs."""
    for name, kind in (("permutation_cells", PermutationCells), ("permutation_loss_sums", PermutationLossSums),
                       ("squared_error_sums", SquaredErrorSums)):
        value = getattr(stats, name, None)
        if value is not None and not isinstance(value, kind):
            return f"stats.{name} of type {type(value).__name__}"
    return None


def _cells_disagreement(p: TaskStatistics, classes: list, given: list, stats: SufficientStatistics | None
                        ) -> str | None:
    """The permutation test's cells against the rows and the classes (or the given labels)."""
    cells = {"cells": p.cells, "score_cells": p.score_cells,
             "stats.permutation_cells": getattr(stats, "permutation_cells", None)}
    for name, c in cells.items():
        if c is None:
            continue
        other_classes = c.classes.shape != (2,) if name == "score_cells" \
            else not set(_labels_of(c.classes)) <= set(classes) | set(given)
        if float(c.rows.sum()) != p.n_rows or other_classes:
            return f"{name} (of the permutation test) of other rows or classes"
    return None


def _loss_sums_disagreement(p: TaskStatistics, classes: list, stats: SufficientStatistics | None) -> str | None:
    """The permutation test's loss sums against the rows and the classes."""
    sums = {"loss_sums": p.loss_sums, "stats.permutation_loss_sums": getattr(stats, "permutation_loss_sums", None)}
    for name, s in sums.items():
        if s is not None and (s.n != p.n_rows or len(s.classes) != (2 if name == "loss_sums" else len(classes))
                              or (name != "loss_sums" and _labels_of(s.classes) != classes)):
            return f"{name} (of the permutation test) of other rows or classes"
    return None


def _squared_sums_disagreement(p: TaskStatistics, stats: SufficientStatistics | None) -> str | None:
    """The squared error's sums against the rows and the weight of ``stats``."""
    squared = None if stats is None else stats.squared_error_sums
    if squared is not None and stats is not None and (squared.sums["rows"] != p.n_rows
                                or not math.isclose(squared.sums["w"], stats.n, rel_tol=1e-9)):
        return "stats.squared_error_sums of other rows than n_rows or of another weight than stats"
    return None


def _totals_disagreement(p: TaskStatistics, classes: list) -> str | None:
    """The bootstrap's sums against the task: its rows, columns, classes, threshold."""
    t = p.totals
    if t is None:
        return None
    if t.rows is not None and sum(stop - start for start, stop in t.rows) != p.n_rows:
        return "totals (the bootstrap's sums) numbering another count of rows than n_rows"
    info = t.info or {}
    if p.task == "regression":
        return _regression_totals_disagreement(p, t, info)
    labels = _totals_labels(p, classes, info)
    if labels is None:
        return "totals (the bootstrap's sums) of other classes"
    return _totals_columns_disagreement(p, t, info, labels) or _totals_sums_disagreement(p, labels)


def _regression_totals_disagreement(p: TaskStatistics, t: GroupTotals, info: dict) -> str | None:
    """A regression's bootstrap sums against its columns, quantile and other statistics."""
    pair = info.get("quantile")
    if t.columns != REGRESSION_COLUMNS or not (
            isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(v, float) and math.isfinite(v)
                                                                for v in pair) and 0 < pair[0] < 1):
        return "totals (the bootstrap's sums) that are not those of a regression (columns, info quantile)"
    return _totals_sums_disagreement(p, [])


def _totals_labels(p: TaskStatistics, classes: list, info: dict) -> list | None:
    """The classes of a classification's bootstrap sums, None when they are not the task's."""
    labels = info.get("classes")
    labels = _labels_of(labels) if isinstance(labels, np.ndarray) and labels.ndim == 1 else None
    expected = classes if p.task != "binary-scores" else (_labels_of(p.given.labels) if p.given is not None
                                                          else None)
    if labels is None or len(set(labels)) != len(labels) or not set(classes) <= set(labels) \
            or (expected is not None and set(labels) != set(expected)):
        return None
    return labels


def _totals_columns_disagreement(p: TaskStatistics, t: GroupTotals, info: dict, labels: list) -> str | None:
    """A classification's bootstrap sums against the columns of its task and its threshold."""
    k = len(labels)
    columns = probability_columns(k) if p.task == "multiclass-probabilities" else label_columns(k)
    if t.columns != columns or (p.task == "binary-scores" and k != 2 and p.given is None):
        return f"totals (the bootstrap's sums) without the columns of a {p.task} task"
    threshold = info.get("threshold")
    if p.task == "binary-scores" and p.given is None and not (
            isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and math.isfinite(threshold)):
        return "totals (the bootstrap's sums) without the threshold they were counted at"
    return None


#: the columns of the bootstrap's sums that sum non-negative quantities (weights, counts, losses,
#: absolute and squared errors), per kind (a confusion cell's name starts with ``cell[``)
_NON_NEGATIVE = ("w", "wy2", "sq", "ab", "ab_median", "ab_quantile", "log_loss", "brier")


def _sums_agree(groups: np.ndarray, source: Any, terms: Any = None) -> bool:
    """Whether the per-group sums ``groups`` (groups, m) add up to ``source`` (m,).  Counts and
    weights (``terms`` None) exactly where both are whole numbers below 2⁵³ (counts, integer
    weights: every order of summation gives them), else to rounding: 1e-7 of the sums of the
    groups' absolute values (any engine's order of summation) and, for a source computed from
    other numbers (moments, loss sums), of the absolute ``terms`` it is computed from
    (W·ȳ − W'·ȳ' of large means cancels)."""
    total, source = groups.sum(axis=0), np.asarray(source, dtype=np.float64).reshape(-1)
    if total.shape != source.shape or not np.isfinite(source).all():
        return False
    if terms is None and all(np.array_equal(v, np.round(v)) and np.all(np.abs(v) < 2.0**53) for v in (total, source)):
        return bool(np.array_equal(total, source))
    scale = np.abs(groups).sum(axis=0) + np.abs(np.asarray(0.0 if terms is None else terms, dtype=np.float64))
    return bool(np.all(np.abs(total - source) <= 1e-7 * scale + 1e-12))


def _in_order(own: Any, values: Any, labels: list) -> np.ndarray | None:
    """``values`` over the classes ``own`` (counts, or a square matrix) in the order of ``labels``
    (the sums' classes), flattened; None when ``own`` are other classes."""
    own = _labels_of(own)
    if len(own) != len(labels) or set(own) != set(labels):
        return None
    index = [own.index(label) for label in labels]
    values = np.asarray(values, dtype=np.float64)
    return (values[index] if values.ndim == 1 else values[np.ix_(index, index)]).reshape(-1)


def _sources_of_sums(p: TaskStatistics, labels: list) -> list[tuple]:
    """(per-group sums (groups, m) of the bootstrap, the m numbers they must add up to, the
    statistic those come from[, the terms a number computed from others comes from: rounding,
    not exactness]) of the task's other statistics (None: not over the sums' classes)."""
    t, stats = p.totals, p.stats
    column = {name: j for j, name in enumerate(t.columns)}

    def sums(*names: str) -> np.ndarray:
        return t.totals[:, [column[n] for n in names]]

    cells = sums(*(c for c in t.columns if c.startswith("cell[")))
    if p.task == "regression":
        m, pred, losses = stats.moments, stats.prediction_moments, stats.loss_sums.sums
        wy, wy2 = m.weight * m.mean, m.m2 + m.weight * m.mean ** 2
        out = [(sums("w"), [m.weight], "stats.moments"), (sums("wy", "wy2"), [wy, wy2], "stats.moments", [wy, wy2]),
               (sums("sq", "ab"), [losses.get("squared", np.nan), losses.get("absolute", np.nan)], "stats.loss_sums",
                0.0)]
        if pred is not None:
            out.append((sums("wr"), [m.weight * m.mean - pred.weight * pred.mean], "stats.prediction_moments",
                        abs(m.weight * m.mean) + abs(pred.weight * pred.mean)))
        return out
    if p.task == "multiclass-probabilities":
        counts = _in_order(stats.label_counts.labels, stats.label_counts.counts, labels)
        losses = [stats.loss_sums.sums.get(k, np.nan) for k in ("cross_entropy", "brier")]
        return [(sums(*(f"w[{j}]" for j in range(len(labels)))), counts, "stats.label_counts"),
                (sums("log_loss", "brier"), losses, "stats.loss_sums", 0.0),
                (cells, _in_order(stats.confusion.labels, stats.confusion.matrix, labels), "stats.confusion")]
    if p.task.endswith("-labels") or p.given is not None:
        matrix, name = (stats, "stats (the confusion matrix)") if p.given is None else (p.given, "given")
        return [(cells, _in_order(matrix.labels, matrix.matrix, labels), name)]
    if p.positive is None or labels[1] != _label(p.positive[0]):
        return [(cells, None, "stats (the score counts)")]
    if not isinstance(stats, ThresholdCounts):  # bins are not cut at the threshold: each class's weight
        return [(cells.reshape(-1, 2, 2).sum(axis=2), [stats.n - stats.n_pos, stats.n_pos], "stats (the score counts)")]
    return [(cells, _cells_at_threshold(stats, t.info["threshold"]), "stats (the score counts) at the threshold")]


def _cells_at_threshold(stats: ThresholdCounts, threshold: float) -> np.ndarray:
    """The weighted cells (true negative, positive × score below, at or above ``threshold``) of
    exact score counts."""
    above = int(np.count_nonzero(stats.thresholds >= threshold))
    tp = float(stats.tps[above - 1]) if above else 0.0
    fp = float(stats.fps[above - 1]) if above else 0.0
    return np.array([stats.n - stats.n_pos - fp, fp, stats.n_pos - tp, tp])


def _totals_sums_disagreement(p: TaskStatistics, labels: list) -> str | None:
    """The bootstrap's per-group sums against the statistics they must add up to (the confusion
    matrix, class weights, loss sums, moments: :func:`_sources_of_sums`), and the sums of
    non-negative quantities non-negative in every group: sums that lie give intervals of other
    rows (accuracy 0.80 with the interval [1.0, 1.0]).  O(groups × columns)."""
    t = p.totals
    signs = [c in _NON_NEGATIVE or c.startswith(("cell[", "w[")) for c in t.columns]
    if (t.totals[:, signs] < 0).any():
        return "totals (the bootstrap's sums) below zero where they sum weights, counts or losses"
    for groups, source, name, *terms in _sources_of_sums(p, labels):
        if source is None:
            return f"totals (the bootstrap's sums) over other classes than {name}"
        if not _sums_agree(groups, source, *terms):
            return f"totals (the bootstrap's sums) that do not add up to {name}"
    return None


def read_statistics(path: str | os.PathLike) -> TaskStatistics:
    """The :class:`TaskStatistics` saved by :meth:`TaskStatistics.save`; a file that is not one,
    truncated, corrupted, changed since or of a newer schema is one InvalidInputError line
    (``beyondchance.statistics.file_format.read_file``: nothing in the file is run).

    >>> import tempfile, os, beyondchance as bc
    >>> st = bc.profile([0, 1, 1, 0, 1], [0.1, 0.8, 0.3, 0.4, 0.9], ci=False)
    >>> back = read_statistics(st.save(os.path.join(tempfile.mkdtemp(), "reference.json")))
    >>> back.task, back.n_rows, back.stats.tps.tolist() == st.stats.tps.tolist()
    ('binary-scores', 5, True)
    """
    return read_file(path, TaskStatistics, _check)


def _shown(classes: Any) -> str:
    values = np.asarray(classes).tolist()
    return ", ".join(map(_fmt_label, values[:5])) + (" ..." if len(values) > 5 else "")


def _coerce_pos_label(pos_label: Any, classes: np.ndarray) -> Any:
    """A positive label given as text (command line) in the type of the classes."""
    if pos_label is None:
        return None
    values = [_label(c) for c in classes.tolist()]
    if pos_label in values:
        return pos_label
    if isinstance(pos_label, str):
        for conv in (int, float):
            try:
                v = conv(pos_label)
            except ValueError:
                continue
            if v in values:
                return v
        low = pos_label.strip().lower()
        if low in ("true", "false") and any(isinstance(c, (bool, np.bool_)) for c in values):
            return low == "true"
    return pos_label


def _resolve_positive(classes: np.ndarray, counts: np.ndarray, pos_label: Any) -> tuple[Any, Any, str]:
    """(positive label, negative label, reason) for a binary task.

    >>> _resolve_positive(np.array(["No", "Yes"]), np.array([90, 10]), None)
    ('Yes', 'No', 'the minority class')
    >>> _resolve_positive(np.array([0, 1]), np.array([10, 90]), None)
    (1, 0, 'the label 1')
    """
    values = [_label(c) for c in classes.tolist()]
    if pos_label is not None:
        p = _coerce_pos_label(pos_label, classes)
        if p not in values and len(values) >= 2:
            raise InvalidInputError(f"pos_label={pos_label!r} (--pos-label {pos_label}) is not one of the labels {values}")
        neg = next((v for v in values if v != p), None)
        return p, neg, "given"
    pos, why = default_pos_label(np.asarray(values, dtype=object), counts)  # the one rule of every door
    if why == "the label 1":
        return 1, next((v for v in values if v != 1), -1 if -1 in values else 0), why
    return pos, next((v for v in values if v != pos), None), why
