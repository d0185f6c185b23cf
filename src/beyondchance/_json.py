"""One conversion to JSON-safe Python values, used by every result's ``to_dict()``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["jsonable"]


def jsonable(x: Any) -> Any:
    """numpy arrays → lists, numpy scalars → Python scalars, NaN/±inf → None, recursively
    through dicts, lists and tuples (JSON has no NaN).

    >>> jsonable({"a": np.array([1.0, np.nan]), "b": np.int64(3), "c": (np.inf, "x")})
    {'a': [1.0, None], 'b': 3, 'c': [None, 'x']}
    """
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    return x
