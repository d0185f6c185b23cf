r"""Streaming evaluation: the :class:`~beyondchance.TaskStatistics` of a stream, batch by batch.

:class:`StatisticsAccumulator` follows the torchmetrics split — ``update(batch)``
folds a batch into the state, ``merge(other)`` combines the states of two
accumulators (workers, shards, time windows), ``compute()`` returns the state: the
:class:`~beyondchance.TaskStatistics` that :func:`~beyondchance.profile` gives for all the
batches' rows at once, which :func:`~beyondchance.evaluate` reports, ``save`` keeps and ``+``
merges.  Each batch is profiled (:func:`~beyondchance.profile`, its rows numbered after the
rows before it: ``row_offset``) and the profiles are merged (:meth:`~beyondchance.TaskStatistics.merge`:
exact for every count, to rounding for the sums of real numbers).

The first batch fixes the task, the classes, the positive class and the decision threshold of
the bootstrap's sums; the later batches are profiled with them, so that the parts merge.  A
later batch with a class the first did not have is refused in one line: give ``labels=`` (every
class) up front.  With string labels and no ``pos_label`` the positive class is profile's
(the minority class, ``_resolve_positive`` of :mod:`beyondchance.statistics.task_statistics`), taken
from the first batch; when it is not the minority of all the rows, :meth:`compute` says so in
one line (give ``pos_label=``).  A regression's bootstrap sums do not merge (they hold the
deviations about the median of all the rows): its accumulator keeps none, so its statistics
are those of ``profile(..., ci=False)``.

A batch is a mapping of columns, a pandas or polars DataFrame, a pyarrow Table or
RecordBatch (columns named when the accumulator is made), or arrays passed as
keywords.  Fixed-size state for endless streams: ``score_bins=`` (binary scores, class
probabilities); exact score counts grow with the number of distinct scores.

>>> import numpy as np
>>> acc = StatisticsAccumulator(y_true="label", y_score="score", score_bins=100)
>>> rng = np.random.default_rng(0)
>>> for _ in range(5):                                  # e.g. a monitoring loop
...     y = rng.integers(0, 2, 200)
...     _ = acc.update({"label": y, "score": np.clip(0.3 * y + rng.random(200) * 0.7, 0, 1)})
>>> st = acc.compute()
>>> st
TaskStatistics(binary-scores, 1,000 rows, 0/1, prevalence 0.53, 100 score bins)
>>> round(st.stats.auc("roc"), 3), round(st.stats.auc_error_bound("roc"), 4)
(0.845, 0.0039)
>>> acc.update(y_true=[1, 0], y_score=[0.9, 0.2]).compute().n_rows   # arrays as keywords
1002
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._summary_display import _fmt_label, _label
from .._validation import merge_from_zero
from .._warnings import InvalidInputError
from ..statistics.sufficient import check_task
from ..statistics.task_statistics import TaskStatistics, _resolve_positive
from .scan import profile

__all__ = ["StatisticsAccumulator"]

#: the roles of the columns of a batch, as :func:`~beyondchance.profile` names them
ROLES: tuple[str, ...] = ("y_true", "y_score", "y_pred", "sample_weight")


def _is_name(role: str, value: Any) -> bool:
    return value is None or isinstance(value, str) or (
        role == "y_score" and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value))


class StatisticsAccumulator:
    """Accumulates the :class:`~beyondchance.TaskStatistics` of a stream of prediction batches.

    Parameters
    ----------
    y_true, y_score, y_pred, sample_weight : column names in the batches (``y_score``: a
        list of names for class probabilities, one per class).  Leave them ``None`` and pass
        arrays to :meth:`update` as keywords instead.
    task, threshold, pos_label, labels, score_bins, quantile, ci, random_state : as in
        :func:`~beyondchance.profile`; with ``task=None`` the task is detected from the first
        batch.  ``labels``: every class, when a batch may lack some (or the first may).
    row_offset : the number of the stream's first row in the bootstrap's hash (``ci``): give
        accumulators of one stream's parts (workers) ranges of rows apart to merge them.

    Notes
    -----
    Batches are profiled one by one, so a bad batch raises
    :class:`~beyondchance.InvalidInputError` and leaves the state unchanged.
    """

    def __init__(
        self,
        *,
        y_true: Any = None,
        y_score: Any = None,
        y_pred: Any = None,
        sample_weight: Any = None,
        task: str | None = None,
        threshold: float | None = None,
        pos_label: Any = None,
        labels: Any = None,
        score_bins: int | None = None,
        quantile: float | None = None,
        ci: bool = True,
        random_state: int = 0,
        row_offset: int = 0,
    ):
        self.columns = {"y_true": y_true, "y_score": y_score, "y_pred": y_pred, "sample_weight": sample_weight}
        for role, value in self.columns.items():
            if not _is_name(role, value):
                raise InvalidInputError(f"{role} must be a column name (pass arrays to update()), got "
                                        f"{type(value).__name__}")
        if task is not None:
            check_task(task)  # the names of 0.1 refused naming the new one, before any batch
        self.options = dict(task=task, threshold=threshold, pos_label=pos_label, labels=labels,
                            score_bins=score_bins, quantile=quantile, ci=ci, random_state=random_state)
        self.row_offset = row_offset
        self._fixed: dict[str, Any] = {}  # what the first batch fixed: task, labels, pos_label, threshold, ci
        self._first: TaskStatistics | None = None
        self._state: TaskStatistics | None = None
        self.n_batches = 0

    # --- state --------------------------------------------------------------------

    @property
    def task(self) -> str | None:
        """The task (None until the first batch when it was not given)."""
        return self._fixed.get("task", self.options["task"])

    def reset(self) -> "StatisticsAccumulator":
        """Forget every batch (what the first batch fixed stays fixed)."""
        self._state = None
        self.n_batches = 0
        return self

    def _arrays(self, batch: Any, given: dict[str, Any]) -> dict[str, Any]:
        """The arguments of :func:`~beyondchance.profile` for one batch."""
        if batch is None:
            if given["y_true"] is None:
                raise InvalidInputError("update() needs a batch or y_true= (and a prediction) as arrays")
            return given
        if any(v is not None for v in given.values()):
            raise InvalidInputError("pass either a batch (with column names set) or arrays as keywords, not both")
        if self.columns["y_true"] is None:
            raise InvalidInputError(
                "this accumulator has no column names: make it with y_true='...' and a prediction column, "
                "or pass arrays to update() as keywords"
            )
        if type(batch).__name__ == "RecordBatch" and type(batch).__module__.startswith("pyarrow"):
            import pyarrow as pa

            batch = pa.Table.from_batches([batch])
        return {**self.columns, "data": batch, "engine": "memory"}

    def _profile(self, arrays: dict[str, Any], offset: int) -> TaskStatistics:
        """The batch's statistics, profiled with what the first batch fixed."""
        options = {**self.options, **self._fixed}
        try:
            return profile(**arrays, **options, row_offset=offset)
        except InvalidInputError as refusal:
            if self._first is None or self.options["labels"] is not None:
                raise
            try:  # a class the first batch did not have? (profiled with the first's labels, it is refused)
                alone = profile(**arrays, **{**options, "labels": None, "task": None}, row_offset=offset)
            except InvalidInputError:
                raise refusal from None
            known = {_label(c) for c in np.asarray(self._first.classes).tolist()}
            new = [c for c in np.asarray(alone.classes).tolist() if _label(c) not in known]
            if not new:
                raise
            raise InvalidInputError(
                f"batch {self.n_batches + 1} has the class {_fmt_label(new[0])}, which the first batch did not have: "
                "make the accumulator with labels= (every class) up front") from None

    def _fix(self, first: TaskStatistics) -> TaskStatistics:
        """What the first batch fixes for the later ones (task, classes, positive class, threshold)."""
        fixed: dict[str, Any] = {"task": first.task}
        if first.task == "regression":  # its bootstrap sums do not merge: none kept
            fixed["ci"] = False
            first = dataclasses.replace(first, totals=None)
        elif np.asarray(first.classes).size:
            fixed["labels"] = np.asarray(first.classes).tolist()
        if first.positive is not None:
            fixed["pos_label"] = first.positive[0]
        info = getattr(first.totals, "info", None) or {}
        if first.task == "binary-scores" and info.get("threshold") is not None:
            fixed["threshold"] = info["threshold"]
        self._fixed, self._first = fixed, first
        return first

    def update(
        self,
        batch: Any = None,
        /,
        *,
        y_true: Any = None,
        y_score: Any = None,
        y_pred: Any = None,
        sample_weight: Any = None,
    ) -> "StatisticsAccumulator":
        """Fold one batch into the state; returns ``self`` (chainable).

        The keywords are arrays, named as in :func:`~beyondchance.profile` (``y_score`` of two
        dimensions: class probabilities).

        >>> acc = StatisticsAccumulator()
        >>> acc.update(y_true=[1, 0, 1], y_score=[0.9, 0.2, 0.4], sample_weight=[1.0, 2.0, 0.5]).compute().n_rows
        3
        """
        if batch is not None and not isinstance(batch, Mapping) and isinstance(batch, (list, tuple, np.ndarray)):
            raise InvalidInputError("the batch must be a table (DataFrame, pyarrow Table, mapping); pass arrays as keywords")
        arrays = self._arrays(batch, {"y_true": y_true, "y_score": y_score, "y_pred": y_pred,
                                      "sample_weight": sample_weight})
        offset = self.row_offset if self._state is None else self._state.next_row_offset
        part = self._profile(arrays, offset)
        if self._first is None:
            part = self._fix(part)
        elif part.task == "regression":
            part = dataclasses.replace(part, totals=None)
        state = part if self._state is None else self._state.merge(part)
        self._state = state  # only after the batch is known to be valid
        self.n_batches += 1
        return self

    def merge(self, other: "StatisticsAccumulator") -> "StatisticsAccumulator":
        """A new accumulator holding both states (e.g. of two workers: give them ``row_offset``\\ s
        apart when they keep the bootstrap's sums, ``ci``)."""
        if not isinstance(other, StatisticsAccumulator):
            raise InvalidInputError(f"cannot merge a StatisticsAccumulator with {type(other).__name__}")
        out = StatisticsAccumulator(**self.columns, **self.options, row_offset=self.row_offset)
        out._fixed, out._first = (self._fixed, self._first) if self._first is not None else (other._fixed, other._first)
        states = [s for s in (self._state, other._state) if s is not None]
        out._state = None if not states else (states[0] if len(states) == 1 else states[0].merge(states[1]))
        out.n_batches = self.n_batches + other.n_batches
        return out

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    def compute(self) -> TaskStatistics:
        """The statistics of every batch's rows: those of :func:`~beyondchance.profile` on all of
        them (report them with :func:`~beyondchance.evaluate`, keep them with ``save``)."""
        if self._state is None:
            raise InvalidInputError("no batch has been added yet")
        st, first = self._state, self._first
        assert first is not None  # set by the first batch
        if st.positive is not None and self.options["pos_label"] is None:
            rule = _resolve_positive(np.asarray(st.classes), np.asarray(st.counts0), None)
            if _label(rule[0]) != _label(st.positive[0]):
                assert first.positive is not None  # the positive class was resolved on the first batch
                raise InvalidInputError(
                    f"the positive class {_fmt_label(st.positive[0])} was taken from the first batch "
                    f"({first.positive[2]} there), but {_fmt_label(rule[0])} is {rule[2]} of all the rows: "
                    "make the accumulator with pos_label=")
        return dataclasses.replace(st, source=first.source, reason=first.reason)

    def __repr__(self) -> str:
        rows = 0 if self._state is None else self._state.n_rows
        return f"StatisticsAccumulator(task={self.task!r}, n_batches={self.n_batches}, n_rows={rows:,})"
