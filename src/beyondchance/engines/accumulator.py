r"""Streaming evaluation: accumulate sufficient statistics batch by batch.

:class:`StatisticsAccumulator` follows the torchmetrics split — ``update(batch)``
folds a batch into the state, ``merge(other)`` combines the states of two
accumulators (workers, shards, time windows), ``compute()`` returns the state as
:class:`~beyondchance.statistics.sufficient.SufficientStatistics`, from which every measure is read.
The state is exactly what the whole stream would give at once (for the counts;
sums to rounding): each batch goes through the in-memory engine and the statistics
are merged (:mod:`beyondchance.statistics.sufficient`).

A batch is a mapping of columns, a pandas or polars DataFrame, a pyarrow Table or
RecordBatch (columns named when the accumulator is made), or arrays passed as
keywords.  Fixed-size state for endless streams: ``score_bins=`` (binary scores)
and ``target_bin_width=`` (regression); exact score counts grow with the number of
distinct scores.

>>> import numpy as np
>>> acc = StatisticsAccumulator(y_true="label", y_score="score", score_bins=100)
>>> rng = np.random.default_rng(0)
>>> for _ in range(5):                                  # e.g. a monitoring loop
...     y = rng.integers(0, 2, 200)
...     _ = acc.update({"label": y, "score": np.clip(0.3 * y + rng.random(200) * 0.7, 0, 1)})
>>> st = acc.compute()
>>> st.n, round(st.auc("roc"), 3), round(st.auc_error_bound("roc"), 4)
(1000.0, 0.845, 0.0039)
>>> acc.update(y_true=[1, 0], y_score=[0.9, 0.2]).compute().n   # arrays as keywords
1002.0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import merge_from_zero
from .._warnings import InvalidInputError
from .spec import Spec, make_spec, resolve_task
from .memory import compute, read_columns
from ..statistics.sufficient import SufficientStatistics

__all__ = ["StatisticsAccumulator"]


class StatisticsAccumulator:
    """Accumulates the sufficient statistics of a stream of prediction batches.

    Parameters
    ----------
    y_true, y_score, y_pred, y_proba, sample_weight : column names in the batches
        (``y_proba``: a list of names, one per class).  Leave them ``None`` and pass
        arrays to :meth:`update` as keywords instead — the prediction keyword then
        decides the task (y_score, y_pred or y_proba).
    task, threshold, pos_label, labels, statistics, score_bins, target_bin_width,
    pinball_alphas, normalize : as in :func:`beyondchance.compute_statistics`;
        with ``task="auto"`` the task is fixed by the first batch.  Without ``pos_label``
        the positive class follows the rule of every door (1 or True for 0/1, -1/1 and
        boolean labels, else the minority class, ties to the last class) applied to the
        first batch, and is kept for the stream (``compute().pos_label`` states it).

    Notes
    -----
    Batches are validated one by one by the package's checks, so a bad batch raises
    :class:`~beyondchance.InvalidInputError` and leaves the state unchanged.
    """

    def __init__(
        self,
        *,
        y_true: Any = None,
        y_score: Any = None,
        y_pred: Any = None,
        y_proba: Any = None,
        sample_weight: Any = None,
        task: str = "auto",
        threshold: float = 0.5,
        pos_label: Any = None,
        labels: Any = None,
        statistics: Any = None,
        score_bins: int | None = None,
        target_bin_width: float | None = None,
        pinball_alphas: Any = (),
        normalize: bool = False,
    ):
        self.columns = {"y_true": y_true, "y_score": y_score, "y_pred": y_pred, "y_proba": y_proba, "sample_weight": sample_weight}
        for key, value in self.columns.items():
            ok = value is None or isinstance(value, str) or (
                key == "y_proba" and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
            )
            if not ok:
                raise InvalidInputError(f"{key} must be a column name (pass arrays to update()), got {type(value).__name__}")
        self.options = dict(
            threshold=threshold, pos_label=pos_label, labels=labels, statistics=statistics,
            score_bins=score_bins, target_bin_width=target_bin_width, pinball_alphas=pinball_alphas,
            normalize=normalize,
        )
        self._task = task
        self._spec: Spec | None = None
        if task != "auto":
            self._spec = make_spec(task, **self.options)
        self._state: SufficientStatistics | None = None
        self.n_batches = 0

    # --- state --------------------------------------------------------------------

    @property
    def task(self) -> str | None:
        """The task (None until the first batch when it was 'auto')."""
        return None if self._spec is None else self._spec.task

    def reset(self) -> "StatisticsAccumulator":
        """Forget every batch (the task stays fixed)."""
        self._state = None
        self.n_batches = 0
        return self

    def _arrays(self, batch: Any, given: dict[str, Any]) -> dict[str, Any]:
        if batch is None:
            if given.get("y_true") is None:
                raise InvalidInputError("update() needs a batch or y_true= (and a prediction) as arrays")
            return given
        if any(v is not None for v in given.values()):
            raise InvalidInputError("pass either a batch (with column names set) or arrays as keywords, not both")
        if self.columns["y_true"] is None:
            raise InvalidInputError(
                "this accumulator has no column names: make it with y_true='...' and a prediction column, "
                "or pass arrays to update() as keywords"
            )
        roles = {key: ([name] if isinstance(name, str) else list(name)) if key == "y_proba" else name
                 for key, name in self.columns.items() if name is not None}
        cols = read_columns(batch, [c for name in roles.values() for c in (name if isinstance(name, list) else [name])])
        out: dict[str, Any] = dict.fromkeys(self.columns)
        for key, name in roles.items():
            out[key] = np.column_stack([cols[c] for c in name]) if isinstance(name, list) else cols[name]
        return out

    def update(
        self,
        batch: Any = None,
        /,
        *,
        y_true: Any = None,
        y_score: Any = None,
        y_pred: Any = None,
        y_proba: Any = None,
        sample_weight: Any = None,
    ) -> "StatisticsAccumulator":
        """Fold one batch into the state; returns ``self`` (chainable).

        The keywords are arrays, named as in :func:`beyondchance.compute_statistics`
        (``sample_weight``: the sample weights).

        >>> acc = StatisticsAccumulator()
        >>> acc.update(y_true=[1, 0, 1], y_score=[0.9, 0.2, 0.4], sample_weight=[1.0, 2.0, 0.5]).compute().n
        3.5
        """
        if batch is not None and not isinstance(batch, Mapping) and isinstance(batch, (list, tuple, np.ndarray)):
            raise InvalidInputError("the batch must be a table (DataFrame, pyarrow Table, mapping); pass arrays as keywords")
        arrays = self._arrays(
            batch, {"y_true": y_true, "y_score": y_score, "y_pred": y_pred, "y_proba": y_proba, "sample_weight": sample_weight}
        )
        if self._spec is None:
            t = resolve_task(
                self._task,
                has_score=arrays["y_score"] is not None,
                has_pred=arrays["y_pred"] is not None,
                has_proba=arrays["y_proba"] is not None,
                true_is_float=np.asarray(arrays["y_true"]).dtype.kind == "f",
                pred_is_float=arrays["y_pred"] is not None and np.asarray(arrays["y_pred"]).dtype.kind == "f",
            )
            spec = make_spec(t, **self.options)
        else:
            spec = self._spec
            resolve_task(  # the same kind of prediction in every batch
                spec.task,
                has_score=arrays["y_score"] is not None,
                has_pred=arrays["y_pred"] is not None,
                has_proba=arrays["y_proba"] is not None,
            )
        stats = compute(
            spec, arrays["y_true"], y_score=arrays["y_score"], y_pred=arrays["y_pred"],
            y_proba=arrays["y_proba"], sample_weight=arrays["sample_weight"],
        )
        state = stats if self._state is None else self._state.merge(stats)
        if spec.task == "binary-scores" and spec.pos_label is None:  # the rule's choice holds for the stream
            spec = dataclasses.replace(spec, pos_label=stats.pos_label)
        self._spec, self._state = spec, state  # only after the batch is known to be valid
        self.n_batches += 1
        return self

    def merge(self, other: "StatisticsAccumulator") -> "StatisticsAccumulator":
        """A new accumulator holding both states (e.g. of two workers)."""
        if not isinstance(other, StatisticsAccumulator):
            raise InvalidInputError(f"cannot merge a StatisticsAccumulator with {type(other).__name__}")
        out = StatisticsAccumulator(**{k: v for k, v in self.columns.items()}, task=self._task, **self.options)
        out._spec = self._spec or other._spec
        if self._spec is not None and other._spec is not None and self._spec != other._spec:
            raise InvalidInputError("cannot merge accumulators of different tasks or options")
        states = [s for s in (self._state, other._state) if s is not None]
        out._state = None if not states else (states[0] if len(states) == 1 else states[0].merge(states[1]))
        out.n_batches = self.n_batches + other.n_batches
        return out

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    def compute(self) -> SufficientStatistics:
        """The accumulated statistics (every measure is a method of the result)."""
        if self._state is None:
            raise InvalidInputError("no batch has been added yet")
        return self._state

    def __repr__(self) -> str:
        return f"StatisticsAccumulator(task={self.task!r}, n_batches={self.n_batches})"
