"""The context of one evaluation: its options (``_Context``), the notes collected while it
runs (``_Collector``) and the note of a single-class test set (``_single_class``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .._warnings import UndefinedMeasureError
from .formatting import _fmt_label


class _Collector:
    """Collects warnings raised while evaluating into notes (re-emitted at the end)."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def add(self, message: str) -> None:
        message = " ".join(str(message).split())
        if message and message not in self.notes:
            self.notes.append(message)


@dataclass
class _Context:
    level: float
    n_resamples: int
    ci: bool
    seed: int
    collector: _Collector
    step: Callable[[str], None]
    strict: bool
    mc_samples: int | None = None
    #: registry labeling metrics asked for (``metrics=``) beyond the task's defaults
    extra_metrics: tuple[str, ...] = ()


def _single_class(classes: np.ndarray, ctx: _Context) -> None:
    msg = (
        f"y_true holds a single class ({_fmt_label(classes[0]) if classes.size else 'none'}): always predicting it "
        "is perfect, so the prediction advantage, the OPS and the curves are undefined"
    )
    if ctx.strict:
        raise UndefinedMeasureError(msg)
    ctx.collector.add(msg)
