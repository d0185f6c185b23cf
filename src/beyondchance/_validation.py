"""The one place where inputs are checked and coerced.

Every public function calls the helpers below; nothing else re-checks lengths,
weights or label sets.  Each helper raises :class:`InvalidInputError` with a
message that names the offending argument, so that the command line can print it
as one line.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._warnings import InvalidInputError

__all__ = [
    "as_1d",
    "as_float_1d",
    "check_consistent_length",
    "check_sample_weight",
    "check_label_pair",
    "encode_labels",
    "check_probabilities",
    "check_unit_interval",
    "check_prevalence",
    "check_rate_curves",
    "binary_target",
    "as_samples",
    "check_positive_int",
    "check_n_resamples",
    "check_option",
    "check_random_state",
    "check_frequency_weights",
]

#: Largest span (max - min + 1) of integer labels for which the integer fast path
#: (``bincount`` without sorting) is used.
_INT_FAST_SPAN = 1 << 12


def _to_array(x: Any, name: str) -> np.ndarray:
    if x is None:
        raise InvalidInputError(f"{name} is required, got None")
    # pandas / polars / pyarrow objects all support __array__
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise InvalidInputError(f"{name} could not be converted to an array: {exc}") from exc
    return arr


def as_1d(x: Any, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a 1-D array (a column vector is flattened).

    Raises if the input is empty (unless ``allow_empty``) or has more dimensions.
    """
    arr = _to_array(x, name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim == 0:
        raise InvalidInputError(f"{name} must be 1-dimensional, got a scalar")
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise InvalidInputError(f"{name} is empty")
    if arr.dtype == object:
        # strings or mixed objects; refuse None / NaN inside
        for v in arr:
            if v is None or (isinstance(v, float) and not np.isfinite(v)):
                raise InvalidInputError(f"{name} contains a missing value ({v!r})")
    return arr


def as_float(x: Any, name: str, *, finite: bool = True) -> np.ndarray:
    """Return ``x`` (any shape) as a float64 array; with ``finite``, refuse NaN and ±inf."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        got = f"dtype {x.dtype}" if isinstance(x, np.ndarray) else repr(x)
        raise InvalidInputError(f"{name} must be numeric, got {got}") from exc
    if finite and not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    return arr


def as_float_1d(x: Any, name: str) -> np.ndarray:
    """Return ``x`` as a finite float64 1-D array."""
    return as_float(as_1d(x, name), name)


def as_float_2d(x: Any, name: str) -> np.ndarray:
    """Return ``x`` as a finite float64 array with 1 or 2 dimensions (kept as is)."""
    arr = _to_array(x, name)
    if arr.ndim not in (1, 2):
        raise InvalidInputError(f"{name} must be 1- or 2-dimensional, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise InvalidInputError(f"{name} is empty")
    return as_float(arr, name)


def check_consistent_length(**arrays: Any) -> int:
    """Check that all non-None arrays have the same first dimension; return it."""
    lengths = {name: len(a) for name, a in arrays.items() if a is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise InvalidInputError(f"inputs have different lengths: {detail}")
    return next(iter(lengths.values()))


def check_sample_weight(sample_weight: Any, n: int) -> np.ndarray | None:
    """Validate sample weights: 1-D, length ``n``, finite, non-negative, positive sum.

    Returns ``None`` for ``None`` so that unweighted fast paths stay unweighted.
    """
    if sample_weight is None:
        return None
    w = as_float_1d(sample_weight, "sample_weight")
    if w.shape[0] != n:
        raise InvalidInputError(
            f"sample_weight has length {w.shape[0]} but the data has {n} samples"
        )
    if (w < 0).any():
        raise InvalidInputError("sample_weight contains negative weights")
    if not w.sum() > 0:
        raise InvalidInputError("sample_weight sums to zero: there is nothing to evaluate")
    return w


def _check_label_values(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    if arr.dtype.kind == "c":
        raise InvalidInputError(f"{name} must hold class labels, got complex numbers")


def _label_kind(arr: np.ndarray) -> str:
    if arr.dtype.kind in "biuf":
        return "number"
    if arr.dtype.kind in "USO":
        kinds = {type(v) for v in arr[: min(arr.size, 1000)]} if arr.dtype == object else {str}
        if all(issubclass(k, str) for k in kinds):
            return "string"
        if all(issubclass(k, (int, float, np.integer, np.floating, bool, np.bool_)) for k in kinds):
            return "number"
        return "mixed"
    return "other"


def check_label_pair(
    y_true: Any, y_pred: Any | None, *, names: tuple[str, str] = ("y_true", "y_pred")
) -> tuple[np.ndarray, np.ndarray | None]:
    """Two label arrays: 1-D, same length, no missing values, not mixing strings and numbers."""
    yt = as_1d(y_true, names[0])
    _check_label_values(yt, names[0])
    yp = None
    if y_pred is not None:
        yp = as_1d(y_pred, names[1])
        _check_label_values(yp, names[1])
        check_consistent_length(**{names[0]: yt, names[1]: yp})
        kinds = {_label_kind(yt), _label_kind(yp)}
        if len(kinds) > 1 or "mixed" in kinds:
            raise InvalidInputError(
                f"{names[0]} and {names[1]} mix string and numeric labels "
                f"({yt.dtype} and {yp.dtype})"
            )
    return yt, yp


def encode_labels(
    y_true: Any,
    y_pred: Any | None = None,
    *,
    labels: Any | None = None,
    names: tuple[str, str] = ("y_true", "y_pred"),
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Map class labels to integer codes ``0..k-1``.

    Parameters
    ----------
    y_true, y_pred : array-like of labels (``y_pred`` may be None)
    labels : array-like, optional
        The label set, in the order of the codes.  Labels occurring in the data but
        not in ``labels`` are an error.  By default the sorted union of the labels
        present in ``y_true`` and ``y_pred``.

    Returns
    -------
    codes_true, codes_pred, classes
    """
    yt, yp = check_label_pair(y_true, y_pred, names=names)

    if labels is None and yt.dtype.kind in "biu" and (yp is None or yp.dtype.kind in "biu"):
        fast = _encode_small_integers(yt, yp)
        if fast is not None:
            return fast

    if labels is None:
        classes = np.unique(yt) if yp is None else np.unique(np.concatenate([yt, yp]))
    else:
        classes = as_1d(labels, "labels")
        if np.unique(classes).size != classes.size:
            raise InvalidInputError("labels contains duplicates")
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]

    def _codes(y: np.ndarray, name: str) -> np.ndarray:
        pos = np.searchsorted(sorted_classes, y)
        pos_clip = np.minimum(pos, sorted_classes.size - 1)
        bad = sorted_classes[pos_clip] != y
        if bad.any():
            unknown = np.unique(y[bad])[:5]
            raise InvalidInputError(
                f"{name} contains labels not in `labels`: {unknown.tolist()}"
            )
        return order[pos_clip]

    try:
        ct = _codes(yt, names[0])
        cp = None if yp is None else _codes(yp, names[1])
    except TypeError as exc:
        raise InvalidInputError(f"labels of incompatible types: {exc}") from exc
    return ct.astype(np.intp, copy=False), (None if cp is None else cp.astype(np.intp, copy=False)), classes


def _encode_small_integers(
    yt: np.ndarray, yp: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray] | None:
    """Integer labels with a small span: codes via a lookup table, no sorting."""
    lo = int(yt.min()) if yp is None else min(int(yt.min()), int(yp.min()))
    hi = int(yt.max()) if yp is None else max(int(yt.max()), int(yp.max()))
    span = hi - lo + 1
    if span > _INT_FAST_SPAN:
        return None
    rt = yt.astype(np.intp) - lo
    present = np.bincount(rt, minlength=span) > 0
    rp = None
    if yp is not None:
        rp = yp.astype(np.intp) - lo
        present |= np.bincount(rp, minlength=span) > 0
    values = np.flatnonzero(present)
    classes = (values + lo).astype(yt.dtype if yt.dtype.kind != "b" else np.int64)
    if yt.dtype.kind == "b" and (yp is None or yp.dtype.kind == "b"):
        classes = classes.astype(bool)
    if values.size == span:
        return rt, rp, classes
    lut = np.full(span, -1, dtype=np.intp)
    lut[values] = np.arange(values.size)
    return lut[rt], (None if rp is None else lut[rp]), classes


def check_probabilities(
    y_prob: Any,
    name: str = "y_prob",
    *,
    n_classes: int | None = None,
    normalize: bool = False,
    atol: float = 1e-6,
) -> np.ndarray:
    """Validate probabilities.

    A 1-D array is read as the probability of the positive class and must lie in
    [0, 1].  A 2-D array holds one row per sample and one column per class; rows
    must sum to 1 within ``atol`` unless ``normalize=True``, in which case they are
    divided by their sum.
    """
    p = as_float_2d(y_prob, name)
    if (p < 0).any():
        raise InvalidInputError(f"{name} must hold probabilities in [0, 1], found a negative value")
    if (p > 1).any() and not (normalize and p.ndim == 2):
        raise InvalidInputError(f"{name} must hold probabilities in [0, 1], found a value above 1")
    if p.ndim == 2:
        if n_classes is not None and p.shape[1] != n_classes:
            raise InvalidInputError(
                f"{name} has {p.shape[1]} columns but there are {n_classes} classes"
            )
        sums = p.sum(axis=1)
        if normalize:
            if (sums <= 0).any():
                raise InvalidInputError(f"{name} has a row summing to 0; cannot normalize")
            p = p / sums[:, None]
        elif not np.allclose(sums, 1.0, rtol=0.0, atol=atol):
            worst = float(np.max(np.abs(sums - 1)))
            raise InvalidInputError(
                f"{name} rows must sum to 1 (largest deviation {worst:.3g}); "
                "pass normalize=True to rescale them"
            )
    return p


def check_unit_interval(x: Any, name: str, *, open_: bool = False) -> np.ndarray:
    """Check that every value of ``x`` lies in [0, 1] (or (0, 1) with ``open_``)."""
    arr = np.asarray(x, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    bad = (arr <= 0) | (arr >= 1) if open_ else (arr < 0) | (arr > 1)
    if bad.any():
        interval = "(0, 1)" if open_ else "[0, 1]"
        value = arr[bad].ravel()[0]
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


# --- resampling inputs (bootstrap confidence intervals) ------------------------------


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
        flat = arr.ravel()
        for v in flat[: min(flat.size, 100_000)]:
            if v is None or (isinstance(v, float) and not np.isfinite(v)):
                raise InvalidInputError(f"{name} contains a missing value ({v!r})")
    return arr


def check_positive_int(value: Any, name: str) -> int:
    """Check that ``value`` is an integer >= 1 (booleans and non-integral floats refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_n_resamples(n_resamples: Any, confidence_level: float) -> int:
    r"""Check a number of bootstrap resamples B against the confidence level 1 − α.

    B must be at least ⌈2/α⌉: then B·α/2 ≥ 1, so each end of the interval (the α/2 and
    1 − α/2 percentiles of the B resample values) has at least one resample beyond it
    and the two ends are distinct order statistics, not the same extreme value.  With
    fewer the interval is meaningless (with B = 1 its width is 0).  95%: B ≥ 40;
    99%: B ≥ 200.
    """
    b = check_positive_int(n_resamples, "n_resamples")
    alpha = 1.0 - float(confidence_level)
    needed = math.ceil(2.0 / alpha - 1e-9)  # 1e-9: 2 / (1 - 0.95) is 40.000000000000004
    if b < needed:
        raise InvalidInputError(
            f"n_resamples={b} is too few for a {confidence_level:.4g} confidence interval: "
            f"need at least {needed} (2 / (1 - confidence_level), one resample beyond each end)"
        )
    return b


def check_option(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """Check a string option (case-insensitive); return its canonical lower-case form."""
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
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


def union_labels(*arrays: Any, names: tuple[str, ...] | None = None) -> np.ndarray:
    """Sorted union of several label arrays; refuses to mix string and numeric labels.

    (``numpy.concatenate`` would silently turn ``[0, 1]`` and ``["a"]`` into strings.)

    >>> union_labels([2, 0], [1, 2]).tolist()
    [0, 1, 2]
    """
    names = names or tuple(f"labels #{i + 1}" for i in range(len(arrays)))
    parts = []
    for arr, name in zip(arrays, names):
        a = as_1d(arr, name, allow_empty=True)
        _check_label_values(a, name)
        if a.size:
            parts.append((a, name))
    if not parts:
        raise InvalidInputError(f"{', '.join(names)} hold no labels")
    kinds = {_label_kind(a) for a, _ in parts}
    if len(kinds) > 1 or "mixed" in kinds:
        detail = ", ".join(f"{name} ({a.dtype})" for a, name in parts)
        raise InvalidInputError(f"string and numeric labels are mixed: {detail}")
    try:
        return np.unique(np.concatenate([a for a, _ in parts]))
    except TypeError as exc:
        raise InvalidInputError(f"labels of incompatible types: {exc}") from exc


__all__ += ["union_labels"]


def binary_target(y_true: Any, *, pos_label: Any = None, name: str = "y_true") -> tuple[np.ndarray, Any]:
    """``y_true`` as a boolean array (True = positive class) for score-based measures.

    With ``pos_label=None`` the labels must be a subset of {0, 1}, {-1, 1} or
    {False, True} and the positive class is 1 (True), as in scikit-learn; other
    label sets need an explicit ``pos_label``.  More than two distinct labels is an
    error.  A single class is accepted here (measures that need both classes report
    themselves undefined).  Returns ``(is_positive, pos_label)``.
    """
    y = as_1d(y_true, name)
    _check_label_values(y, name)
    kind = y.dtype.kind
    if kind == "b":
        if pos_label is None or (not isinstance(pos_label, str) and pos_label == 1):
            return y, True
        if not isinstance(pos_label, str) and pos_label == 0:
            return ~y, False
        raise InvalidInputError(f"pos_label={pos_label!r} is not a label of {name} (True/False)")
    numeric_pos = pos_label is None or (
        isinstance(pos_label, (int, float, np.integer, np.floating)) and not isinstance(pos_label, bool)
    )
    if kind in "iuf" and numeric_pos:
        # fast path for {0, 1} and {-1, 1} labels: no sorting, no encoding
        lo, hi = y.min(), y.max()
        if lo >= 0 and hi <= 1:
            if kind == "f" and not ((y == 0) | (y == 1)).all():
                raise InvalidInputError(f"{name} must hold binary labels, got non-integer values")
            if pos_label is None or pos_label == 1:
                return y == 1, 1
            if pos_label == 0:
                return y == 0, pos_label
        elif pos_label is None and lo == -1 and hi == 1:
            if not ((y == 0).any() or (kind == "f" and not ((y == -1) | (y == 1)).all())):
                return y == 1, 1
    codes, _, classes = encode_labels(y, names=(name, "y_pred"))
    if classes.size > 2:
        shown = classes[:5].tolist()
        raise InvalidInputError(
            f"{name} must be binary, got {classes.size} classes (first: {shown})"
        )
    if pos_label is None:
        raise InvalidInputError(
            f"{name} has labels {classes.tolist()}; pass pos_label to say which one is positive"
        )
    try:
        hit = np.flatnonzero(classes == pos_label)
    except (TypeError, ValueError):  # pragma: no cover - incomparable types
        hit = np.array([], dtype=np.intp)
    if hit.size == 0:
        if classes.size == 2:
            raise InvalidInputError(
                f"pos_label={pos_label!r} is not one of the labels of {name} {classes.tolist()}"
            )
        # one class present, and it is not pos_label: every sample is negative
        return np.zeros(codes.shape[0], dtype=bool), pos_label
    return codes == hit[0], pos_label
