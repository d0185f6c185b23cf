"""Checks and small helpers shared by the statistics: read-only arrays, non-negative counts,
the union of two label sets, and the names of losses (``"pinball(alpha=0.9)"`` too).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .._warnings import InvalidInputError
from ..measures.losses import Loss, PinballLoss, get_loss


def _get_loss(loss: Any) -> Loss:
    """:func:`get_loss`, also reading the names of pinball losses, ``"pinball(alpha=0.9)"``."""
    if isinstance(loss, str):
        m = re.fullmatch(r"\s*(?:pinball|quantile)\(alpha=([^)]+)\)\s*", loss)
        if m:
            try:
                return PinballLoss(float(m.group(1)))
            except ValueError as exc:
                raise InvalidInputError(f"cannot read the pinball loss {loss!r}") from exc
    return get_loss(loss)




def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def _nonneg_counts(values: Any, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    arr = np.array(values, dtype=np.float64)
    if shape is not None and arr.shape != shape:
        raise InvalidInputError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise InvalidInputError(f"{name} must be finite and non-negative")
    return _readonly(arr)


def _union_index(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted union of two label arrays and the position of each array's labels in it."""
    try:
        union = np.unique(np.concatenate([a, b]))
    except TypeError as exc:
        raise InvalidInputError(f"cannot merge statistics with labels of incompatible types: {exc}") from exc
    return union, np.searchsorted(union, a), np.searchsorted(union, b)
