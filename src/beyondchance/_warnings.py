"""Warnings and errors of the package.

Every input problem raises :class:`InvalidInputError` (a :class:`ValueError`), so
callers and the command line can tell bad input from a bug.  Values that are
mathematically undefined (a zero denominator, a one-class label set for which the
baseline risk is zero) are returned as ``nan`` together with an
:class:`UndefinedMeasureWarning`, or raise :class:`UndefinedMeasureError` when the
caller asked for ``strict=True``.
"""

from __future__ import annotations

import warnings
from types import FrameType

__all__ = [
    "BeyondChanceWarning",
    "UndefinedMeasureWarning",
    "InvalidInputError",
    "UndefinedMeasureError",
    "warn_undefined",
    "caller_stacklevel",
]


class BeyondChanceWarning(UserWarning):
    """Base class of every warning this package emits."""


class UndefinedMeasureWarning(BeyondChanceWarning):
    """A measure is undefined for the given input (e.g. 0/0); ``nan`` was returned."""


class InvalidInputError(ValueError):
    """The input cannot be evaluated (wrong shape, NaN, negative weight, ...)."""


class UndefinedMeasureError(InvalidInputError):
    """A measure is undefined for the given input and ``strict=True`` was requested."""


def warn_undefined(message: str, *, strict: bool = False, stacklevel: int = 3) -> None:
    """Warn (or raise under ``strict``) that a measure is undefined."""
    if strict:
        raise UndefinedMeasureError(message)
    warnings.warn(message, UndefinedMeasureWarning, stacklevel=stacklevel)


def caller_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` that names the first frame outside this
    package (the user's call), however deep inside the package the warning is raised."""
    import os
    import sys

    package = os.path.dirname(os.path.abspath(__file__))
    frame: FrameType | None
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level
