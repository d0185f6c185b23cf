"""Scalar options: levels, prevalences, rate curves, counts and their caps (classes,
resamples, Monte Carlo samples), choices and random states.

Part of the one door for inputs, :mod:`beyondchance._validation`.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar, cast

import numpy as np

from .._warnings import InvalidInputError
from .arrays import _check_missing, _to_array, check_sample_weight

_Option = TypeVar("_Option", bound=str)

__all__ = ['check_unit_interval', 'check_prevalence', 'check_rate_curves', 'as_samples', 'check_positive_int', 'check_n_resamples', 'check_n_classes', 'check_mc_samples', 'check_option', 'check_random_state', 'check_frequency_weights', 'merge_from_zero', 'check_quantile_option']


#: The most classes a classification report (or a confusion matrix built from labels)
#: takes: its confusion matrix has k² cells, 10⁸ (800 MB) at the limit.  Beyond, the
#: labels are refused before any k² allocation (:func:`check_n_classes`).
MAX_CLASSES = 10_000


#: The most bootstrap resamples (or permutation draws) one interval or test takes: far
#: above any use (2,000 is the default, 10⁵ already pins a 99.9% interval's ends), and a
#: bound on the work (each resample re-evaluates every metric).
MAX_RESAMPLES = 1_000_000


#: The most Directed-Binary-Tree reference curves of an OPS (``mc_samples``): the shipped
#: reference has 114,688 (standard error ≤ 0.0015); 10⁷ gives ≤ 0.00016.
MAX_MC_SAMPLES = 10_000_000


def check_unit_interval(x: Any, name: str, *, open_: bool = False) -> np.ndarray:
    """Check that every value of ``x`` lies in [0, 1] (or (0, 1) with ``open_``)."""
    arr = np.asarray(x, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    bad = (arr <= 0) | (arr >= 1) if open_ else (arr < 0) | (arr > 1)
    if bad.any():
        interval = "(0, 1)" if open_ else "[0, 1]"
        value = float(arr[bad].ravel()[0])
        raise InvalidInputError(f"{name} must lie in {interval}, got {value!r}")
    return arr


def check_prevalence(prevalence: Any) -> np.ndarray:
    """Check that the prevalence lies strictly inside (0, 1)."""
    return check_unit_interval(prevalence, "prevalence", open_=True)


def check_rate_curves(alpha: Any, beta: Any, *, check_order: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch of curves in (α, β) space (OPS paper, section 2.4).

    ``alpha`` and ``beta`` are broadcast to a common shape ``(..., m)`` with
    ``m >= 2``; every value must be finite and in [0, 1].  With ``check_order`` the
    points must run by decreasing threshold (α non-decreasing, β non-increasing
    along the last axis) from the end point (α, β) = (0, 1) to (1, 0).
    """
    try:
        a, b = np.broadcast_arrays(np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64))
    except ValueError as exc:
        raise InvalidInputError(
            f"alpha and beta have incompatible shapes {np.shape(alpha)} and {np.shape(beta)}"
        ) from exc
    if a.ndim == 0 or a.shape[-1] < 2:
        raise InvalidInputError(
            f"alpha and beta need at least 2 points along the last axis, got shape {a.shape}"
        )
    for arr, name in ((a, "alpha"), (b, "beta")):
        lo, hi = arr.min(), arr.max()  # nan propagates: one pass each, no temporaries
        if not (lo >= 0 and hi <= 1):
            if not np.isfinite(arr).all():
                raise InvalidInputError(f"{name} contains NaN or infinite values")
            raise InvalidInputError(f"{name} must lie in [0, 1]")
    if check_order:
        if np.less(a[..., 1:], a[..., :-1]).any():
            raise InvalidInputError("alpha must be non-decreasing along the last axis (decreasing threshold)")
        if np.greater(b[..., 1:], b[..., :-1]).any():
            raise InvalidInputError("beta must be non-increasing along the last axis (decreasing threshold)")
        if (a[..., 0] != 0).any() or (b[..., 0] != 1).any():
            raise InvalidInputError("curves must start at the end point (alpha, beta) = (0, 1)")
        if (a[..., -1] != 1).any() or (b[..., -1] != 0).any():
            raise InvalidInputError("curves must end at the end point (alpha, beta) = (1, 0)")
    return a, b


def as_samples(x: Any, name: str) -> np.ndarray:
    """Return ``x`` as an array whose first axis indexes the samples.

    For measures that take any per-sample input (labels, real values, or rows such
    as class probabilities): at least one dimension, at least one sample, no NaN or
    infinite value in numeric input.  No other coercion.
    """
    arr = _to_array(x, name)
    if arr.ndim == 0:
        raise InvalidInputError(f"{name} must have one value (or row) per sample, got a scalar")
    if arr.shape[0] == 0:
        raise InvalidInputError(f"{name} is empty")
    if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    if arr.dtype == object:
        _check_missing(arr, name)
    return arr


def check_confidence_level(confidence_level: Any) -> float:
    """A confidence level: a real number in the open interval (0, 1)."""
    if isinstance(confidence_level, (bool, np.bool_)) or not isinstance(
        confidence_level, (int, float, np.integer, np.floating)
    ):
        raise InvalidInputError(f"confidence_level must be a number in (0, 1), got {confidence_level!r}")
    return float(check_unit_interval(confidence_level, "confidence_level", open_=True))


def check_positive_int(value: Any, name: str) -> int:
    """Check that ``value`` is an integer >= 1 (booleans and non-integral floats refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_n_classes(k: int, *, what: str = "y_true and y hold") -> int:
    """Refuse more than :data:`MAX_CLASSES` classes (before the k × k confusion matrix is
    allocated), with the way out: real-valued targets are a regression, not classes.

    >>> check_n_classes(12)
    12
    """
    if k > MAX_CLASSES:
        raise InvalidInputError(
            f"{what} {k:,} distinct labels: more than the {MAX_CLASSES:,} classes a classification report "
            f"takes (its confusion matrix has one cell per pair of classes); real-valued targets are a regression, "
            f"not {k:,} classes: pass task='regression' (--task regression), or choose the task with task= (--task)"
        )
    return int(k)


def check_mc_samples(value: Any, name: str = "mc_samples") -> int:
    """A number of Directed-Binary-Tree reference curves: a positive integer, at most
    :data:`MAX_MC_SAMPLES`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    if value > MAX_MC_SAMPLES:
        raise InvalidInputError(f"{name}={value:,} is more than the {MAX_MC_SAMPLES:,} reference curves an OPS "
                                f"takes (standard error 0.5/sqrt({MAX_MC_SAMPLES:,}) = 0.00016 at the limit)")
    return int(value)


def check_resample_cap(n_resamples: Any, name: str = "n_resamples") -> int:
    """A positive integer number of resamples, at most :data:`MAX_RESAMPLES`."""
    b = check_positive_int(n_resamples, name)
    if b > MAX_RESAMPLES:
        raise InvalidInputError(f"{name}={b:,} is more than the {MAX_RESAMPLES:,} resamples an interval or a test "
                                "takes (2,000 is the default; 10⁵ already pins the ends of a 99.9% interval)")
    return b


def check_n_resamples(n_resamples: Any, confidence_level: float) -> int:
    r"""Check a number of bootstrap resamples B against the confidence level 1 − α.

    B must be at least ⌈2/α⌉: then B·α/2 ≥ 1, so each end of the interval (the α/2 and
    1 − α/2 percentiles of the B resample values) has at least one resample beyond it
    and the two ends are distinct order statistics, not the same extreme value.  With
    fewer the interval is meaningless (with B = 1 its width is 0).  95%: B ≥ 40;
    99%: B ≥ 200.
    """
    b = check_resample_cap(n_resamples, "n_resamples")
    alpha = 1.0 - float(confidence_level)
    needed = math.ceil(2.0 / alpha - 1e-9)  # 1e-9: 2 / (1 - 0.95) is 40.000000000000004
    if b < needed:
        raise InvalidInputError(
            f"n_resamples={b} is too few for a {confidence_level:.4g} confidence interval: "
            f"need at least {needed} (2 / (1 - confidence_level), one resample beyond each end)"
        )
    return b


def check_option(value: Any, name: str, choices: tuple[_Option, ...]) -> _Option:
    """Check a string option (case-insensitive); return its canonical lower-case form."""
    if isinstance(value, str) and value.lower() in choices:
        return cast(_Option, value.lower())  # one of the choices
    raise InvalidInputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def check_random_state(random_state: Any) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a seed.

    Accepts None (fresh entropy), a non-negative int, a ``Generator`` (used as is, so
    its state advances), a ``SeedSequence`` / ``BitGenerator``, or a legacy
    ``RandomState`` (a seed is drawn from it).
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.int64))
    if random_state is None or isinstance(random_state, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
        if random_state < 0:
            raise InvalidInputError(f"random_state must be a non-negative integer, got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise InvalidInputError(
        "random_state must be None, a non-negative int or a numpy Generator, "
        f"got {type(random_state).__name__}"
    )


def check_frequency_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Validate frequency weights: the checks of :func:`check_sample_weight`, and integers.

    A frequency weight w says that its row stands for w identical observations.
    Returns int64 counts (``None`` for ``None``).
    """
    w = check_sample_weight(sample_weight, n)
    if w is None:
        return None
    if (w != np.round(w)).any() or w.max() >= 2.0**53:
        raise InvalidInputError(
            "sample_weight must hold integer counts when the weights are frequencies"
        )
    return w.astype(np.int64)


def merge_from_zero(self: Any, other: Any) -> Any:
    """``0 + statistics``: the statistics themselves, so that Python's ``sum([a, b, c])`` (which
    starts from 0) merges statistics; the ``__radd__`` of every statistics type with a merge
    (``__add__``).  Anything but the integer 0 is NotImplemented (Python's TypeError).

    >>> from beyondchance import ConfusionMatrix
    >>> a = ConfusionMatrix(np.array([[3, 1], [0, 2]]), np.array([0, 1]))
    >>> sum([a, a]).matrix.tolist()
    [[6.0, 2.0], [0.0, 4.0]]
    """
    if type(other) is int and other == 0:
        return self
    return NotImplemented


def check_quantile_option(quantile: Any, task: str) -> float | None:
    """The report's ``quantile`` option checked: a level in (0, 1), for regression only."""
    if quantile is None:
        return None
    if task != "regression":
        raise InvalidInputError(f"quantile (the level of a quantile model's pinball loss) applies to regression; "
                                f"the task is {task}")
    return float(check_unit_interval(quantile, "quantile", open_=True))
