r"""Grouped Poisson bootstrap from per-group sums: intervals without the rows.

Every row :math:`i` — its position in file order, 0 … n−1, plus a part's ``row_offset`` (the
rows before it in the whole, so that parts numbered apart :meth:`GroupTotals.merge` into
the whole's sums) — falls in one of :math:`G` groups by an integer hash that numpy and SQL
compute identically (every intermediate below :math:`2^{63}`; :math:`p = 2^{31} - 1`,
:math:`s` = seed mod p):

.. math::

    a = (48271\,(i \bmod p) + 69621\,\lfloor i / p \rfloor + s) \bmod p,\quad
    b = (a^5 + 12345 + s) \bmod p,\quad
    c = (b^5 + 99991) \bmod p,\quad g(i) = c \bmod G,

each fifth power taken as :math:`((x^2 \bmod p)^2 \bmod p) \cdot x \bmod p`.  As 5 does
not divide p − 1, :math:`x \mapsto x^5 \bmod p` is a permutation: distinct rows
(i < p) get distinct c, so the groups are balanced; being non-linear, it spreads
consecutive (e.g. sorted) rows over the groups like random rows.  (A square would
not do: :math:`a^2 = (p - a)^2` pins rows i and i′ with a + a′ = p to one group.)  An engine sums the per-row quantities :math:`x_i` of a
kind of prediction (weighted confusion cells, loss sums …) per group,
:math:`T_{g} = \sum_{i: g(i) = g} w_i x_i` (:class:`GroupTotals`), and replicate
:math:`b` is :math:`T^{*}_b = \sum_g P_{bg} T_g` with :math:`P_{bg} \sim`
Poisson(1) drawn by ``numpy.random.default_rng(seed)`` — the same on every engine.
Rows of a group share a weight; with :math:`G \gg 1` groups of independent rows
this is a Poisson bootstrap of the rows (Hanley & MacGibbon 2006; Chamandy et al.
2012).  Metrics are ratios of replicate totals, so prevalences and baselines are
re-estimated in every replicate.  Intervals are percentile intervals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import numpy as np

from .._validation import as_1d, binary_target, check_sample_weight, encode_labels
from .._warnings import InvalidInputError
from ..measures.losses import PinballLoss, _clip_proba, weighted_quantile
from .confidence_interval import ConfidenceInterval

__all__ = [
    "DEFAULT_GROUPS", "GroupTotals", "Intervals", "row_groups", "hash_sql", "regression_row_quantities",
    "labeling_intervals", "regression_intervals", "probability_intervals",
    "group_totals_from_arrays", "GROUP_TOTALS_KINDS", "check_group_totals_kind", "label_columns", "REGRESSION_COLUMNS", "probability_columns", "group_sums",
    "label_group_totals", "probability_group_totals", "regression_group_totals",
    "regression_replicate_values", "check_row_offset",
]

DEFAULT_GROUPS = 1024
PRIME = 2147483647  # 2**31 - 1
MULTIPLIER, HIGH_MULTIPLIER, OFFSET1, OFFSET2 = 48271, 69621, 12345, 99991
REGRESSION_COLUMNS: tuple[str, ...] = ("w", "wy", "wy2", "sq", "ab", "ab_median", "wr", "ab_quantile")


def _check_groups(groups: Any, seed: Any) -> tuple[int, int]:
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool) or not 1 <= groups <= PRIME:
        raise InvalidInputError(f"groups must be an integer in [1, 2**31 - 1], got {groups!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise InvalidInputError(f"seed must be a non-negative integer, got {seed!r}")
    return int(groups), int(seed)


def row_groups(index: Any, seed: int = 0, groups: int = DEFAULT_GROUPS) -> np.ndarray:
    """The group g(i) of each row index (see the module docstring for the formula).

    >>> row_groups(np.arange(5), seed=0, groups=8).tolist() == row_groups([0, 1, 2, 3, 4], 0, 8).tolist()
    True
    >>> bool(np.all(row_groups(np.arange(1000), 1) < DEFAULT_GROUPS))
    True
    """
    groups, seed = _check_groups(groups, seed)
    i = np.asarray(index, dtype=np.int64)
    if i.size and i.min() < 0:
        raise InvalidInputError("row indices must be non-negative")
    s = seed % PRIME
    a = ((i % PRIME) * MULTIPLIER + (i // PRIME) * HIGH_MULTIPLIER + s) % PRIME
    b = (_fifth_power(a) + (OFFSET1 + s)) % PRIME
    c = (_fifth_power(b) + OFFSET2) % PRIME
    return c % groups


def _fifth_power(x: Any) -> Any:
    """x⁵ mod p of numpy int64 arrays (x < p: every product < 2⁶²)."""
    x2 = (x * x) % PRIME
    return ((x2 * x2) % PRIME * x) % PRIME


def _fifth_power_sql(x: str) -> str:
    x2 = f"((({x}) * ({x})) % {PRIME})"
    return f"(((({x2} * {x2}) % {PRIME}) * ({x})) % {PRIME})"


def hash_sql(index: str, seed: int, groups: int, intdiv: str = "//") -> str:
    """:func:`row_groups` as an SQL expression of a BIGINT ``index`` (``intdiv``: the
    integer-division operator, ``//`` in DuckDB, ``div`` in Spark)."""
    groups, seed = _check_groups(groups, seed)
    s, p = seed % PRIME, PRIME
    a = f"((({index}) % {p}) * {MULTIPLIER} + (({index}) {intdiv} {p}) * {HIGH_MULTIPLIER} + {s}) % {p}"
    b = f"(({_fifth_power_sql(a)} + {OFFSET1 + s}) % {p})"
    return f"((({_fifth_power_sql(b)} + {OFFSET2}) % {p}) % {groups})"


@dataclass(frozen=True)
class GroupTotals:
    """Per-group weighted sums of m per-row quantities.

    Attributes
    ----------
    totals : (groups, m) float64, ``totals[g, j] = Σ_{i in g} w_i x_ij``
    columns : the m quantity names
    groups, seed : of the row hash (:func:`row_groups`)
    info : details of the kind (class labels, the weighted median of y …)
    rows : the row positions i summed, as sorted disjoint half-open ranges ``(start, stop)``
        (adjacent ones joined); None: not recorded (the statistics of a file written before
        them number their n rows 0 … n−1)

    Two totals of disjoint rows :meth:`merge` into the totals of both (their sums added).

    >>> t = GroupTotals.from_arrays(np.arange(6), [[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]], ("x",), groups=4)
    >>> float(t.totals.sum()), t.replicate_totals(3, seed=0).shape
    (21.0, (3, 1))
    """

    totals: np.ndarray
    columns: tuple[str, ...]
    groups: int
    seed: int
    info: dict | None = None
    rows: tuple[tuple[int, int], ...] | None = None

    def __post_init__(self) -> None:
        _check_groups(self.groups, self.seed)
        columns = tuple(self.columns) if isinstance(self.columns, (tuple, list)) else None
        if columns is None or not all(isinstance(c, str) for c in columns) or len(set(columns)) != len(columns):
            raise InvalidInputError("GroupTotals' columns must be distinct names")
        if self.info is not None and not isinstance(self.info, dict):
            raise InvalidInputError("GroupTotals' info must be a mapping")
        t = np.asarray(self.totals, dtype=np.float64)
        if t.shape != (self.groups, len(columns)):
            raise InvalidInputError(f"totals must have shape ({self.groups}, {len(columns)}), got {t.shape}")
        if not np.isfinite(t).all():
            raise InvalidInputError("GroupTotals' totals must be finite")
        object.__setattr__(self, "totals", t)
        object.__setattr__(self, "columns", columns)
        if self.rows is not None:
            object.__setattr__(self, "rows", _row_ranges(self.rows))

    def merge(self, other: "GroupTotals") -> "GroupTotals":
        """The totals of both parts' rows: the sums added, the row ranges joined.  One
        InvalidInputError line when the groups, seed, columns or info differ, or the rows
        overlap (both numbered from the same position: profile the later part with a
        ``row_offset``).

        >>> a = GroupTotals.from_arrays(np.arange(3), [[1.0], [2.0], [3.0]], ("x",), groups=4, rows=((0, 3),))
        >>> b = GroupTotals.from_arrays(np.arange(3, 5), [[4.0], [5.0]], ("x",), groups=4, rows=((3, 5),))
        >>> both = a.merge(b)
        >>> both.rows, both.totals.tolist() == GroupTotals.from_arrays(
        ...     np.arange(5), [[1.0], [2.0], [3.0], [4.0], [5.0]], ("x",), groups=4).totals.tolist()
        (((0, 5),), True)
        """
        if not isinstance(other, GroupTotals):
            raise InvalidInputError(f"cannot merge GroupTotals with {type(other).__name__}")
        a, b = self.info or {}, other.info or {}
        differ = [name for name, x, y in (("groups", self.groups, other.groups), ("random_state", self.seed, other.seed),
                                          ("columns", self.columns, other.columns)) if x != y]
        differ += [k for k in (*a, *(k for k in b if k not in a)) if k not in a or k not in b or not _same(a[k], b[k])]
        if differ:
            raise InvalidInputError(f"cannot merge the grouped bootstrap's sums of a different {differ[0]}: profile "
                                    "every part with the same options")
        if self.rows is None or other.rows is None:
            raise InvalidInputError("cannot merge the grouped bootstrap's sums whose rows are not recorded")
        overlap = [(max(s0, s1), min(e0, e1)) for s0, e0 in self.rows for s1, e1 in other.rows
                   if max(s0, s1) < min(e0, e1)]
        if overlap:
            first, after = overlap[0][0], max(self.rows[-1][1], other.rows[-1][1])
            how = f"number their rows from {first}" if self.rows[0][0] == other.rows[0][0] == first \
                else f"number rows {_shown_rows(overlap[:1])}"
            raise InvalidInputError(
                f"cannot merge the grouped bootstrap's sums: both statistics {how} in the bootstrap's hash (rows "
                f"{_shown_rows(self.rows)} and {_shown_rows(other.rows)}): profile the later part with "
                f"row_offset={after} (--row-offset {after}), or with ci=False")
        return GroupTotals(self.totals + other.totals, self.columns, self.groups, self.seed, self.info,
                           self.rows + other.rows)

    @classmethod
    def from_arrays(cls, index: Any, quantities: Any, columns: tuple[str, ...], *, seed: int = 0,
                    groups: int = DEFAULT_GROUPS, info: dict | None = None,
                    rows: tuple[tuple[int, int], ...] | None = None) -> "GroupTotals":
        """Sum the (n, m) already weighted per-row ``quantities`` into the groups of ``index``
        (``rows``: the ranges of the index, when recorded)."""
        x = np.asarray(quantities, dtype=np.float64)
        g = row_groups(index, seed, groups)
        if x.ndim != 2 or x.shape != (g.shape[0], len(columns)):
            raise InvalidInputError(f"quantities must have shape ({g.shape[0]}, {len(columns)}), got {x.shape}")
        return cls(group_sums(g, x, groups), tuple(columns), groups, seed, info, rows)

    def full(self) -> np.ndarray:
        """The full-sample totals (m,)."""
        return self.totals.sum(axis=0)

    def replicate_totals(self, n_resamples: int = 2000, seed: int = 0) -> np.ndarray:
        """(n_resamples, m): Poisson(1) group weights ``default_rng(seed)`` times the totals."""
        if not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
            raise InvalidInputError(f"n_resamples must be a positive integer, got {n_resamples!r}")
        weights = np.random.default_rng(seed).poisson(1.0, size=(int(n_resamples), self.groups))
        return weights.astype(np.float64) @ self.totals


def check_row_offset(row_offset: Any) -> int:
    """``row_offset`` checked: the position of a part's first row in the rows of the whole, an
    integer in [0, 2**62) (:func:`row_groups` hashes it exactly)."""
    if not isinstance(row_offset, (int, np.integer)) or isinstance(row_offset, bool) or not 0 <= row_offset < 1 << 62:
        raise InvalidInputError(f"row_offset must be an integer in [0, 2**62), got {row_offset!r}")
    return int(row_offset)


def _row_ranges(rows: Any) -> tuple[tuple[int, int], ...]:
    """``rows`` checked and normalised: sorted disjoint ranges, adjacent ones joined, empty ones dropped."""
    if not (isinstance(rows, (tuple, list)) and all(
            isinstance(r, (tuple, list)) and len(r) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                 for v in r) and 0 <= r[0] <= r[1] < 1 << 62
            for r in rows)):
        raise InvalidInputError("rows must be (start, stop) integer pairs, 0 <= start <= stop < 2**62")
    out: list[tuple[int, int]] = []
    for start, stop in sorted((r[0], r[1]) for r in rows if r[0] < r[1]):
        if out and start < out[-1][1]:
            raise InvalidInputError(f"rows must be disjoint ranges, got {_shown_rows(rows)}")
        if out and start == out[-1][1]:
            out[-1] = (out[-1][0], stop)
        else:
            out.append((start, stop))
    return tuple(out)


def _shown_rows(rows: Any) -> str:
    """Ranges as the rows they hold: ``0–999, 2000–2499``."""
    return ", ".join(f"{a}–{b - 1}" for a, b in rows) or "none"


def _same(a: Any, b: Any) -> bool:
    """The same value of an info (class labels compared as lists)."""
    return np.asarray(a, dtype=object).tolist() == np.asarray(b, dtype=object).tolist()


class Intervals(NamedTuple):
    """{name: :class:`~beyondchance.ConfidenceInterval`} percentile intervals (each unpacks
    as ``low, high``) and a one-line description of the method."""

    intervals: dict[str, ConfidenceInterval]
    method: str


def _percentile(values: np.ndarray, confidence: float) -> ConfidenceInterval:
    v = values[np.isfinite(values)]
    if v.size == 0:
        return ConfidenceInterval(np.nan, np.nan, float(confidence), "percentile")
    half = (1 - confidence) / 2
    lo, hi = np.quantile(v, [half, 1 - half])
    return ConfidenceInterval(float(lo), float(hi), float(confidence), "percentile")


def _method(t: GroupTotals, n_resamples: int, seed: int, confidence: float) -> str:
    return (f"grouped Poisson bootstrap: {n_resamples} replicates (seed {seed}) of {t.groups} row groups "
            f"(hash seed {t.seed}), {confidence:.0%} percentile intervals")


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise InvalidInputError(f"confidence must lie in (0, 1), got {confidence!r}")


# --- labels ---------------------------------------------------------------------------------------

def label_columns(k: int) -> tuple[str, ...]:
    """The k² confusion cells, ``cell[i,j]``: true class i, predicted j."""
    return tuple(f"cell[{i},{j}]" for i in range(k) for j in range(k))


def labeling_intervals(totals: GroupTotals, metrics: Any = ("accuracy",), *, n_resamples: int = 2000,
                       seed: int = 0, confidence: float = 0.95, pos_label: Any = 1, average: Any = None,
                       zero_division: Any = np.nan) -> Intervals:
    r"""Percentile intervals of labeling metrics from replicate confusion matrices.

    Replicate :math:`b` is :math:`C^{*}_b = \sum_g P_{bg} C_g` (the (k, k) weighted
    confusion matrix of group g); each metric is
    :func:`~beyondchance.measures.confusion.metric_from_matrices` of the stack.

    >>> y = np.array([0, 1, 1, 0, 1] * 40); f = np.array([0, 1, 0, 0, 1] * 40)
    >>> t = group_totals_from_arrays("labels", y, y_pred=f, weight=np.linspace(0.5, 2, 200))
    >>> low, high = labeling_intervals(t, ["f1"], n_resamples=200).intervals["f1"]
    >>> bool(low < 0.8 < high)
    True
    """
    from ..measures.confusion import ConfusionMatrix
    from ..measures.registry import get_metric
    from .bootstrap_resampling import _UNSET, _MatrixEvaluator

    _check_confidence(confidence)
    labels = (totals.info or {}).get("classes")
    k = 0 if labels is None else len(labels)
    if k == 0 or totals.columns != label_columns(k):
        raise InvalidInputError("labeling_intervals needs group totals of kind 'labels'")
    assert labels is not None  # k > 0
    cm = ConfusionMatrix(totals.full().reshape(k, k), labels, pos_label)
    reps = totals.replicate_totals(n_resamples, seed).reshape(-1, k, k)
    out = {}
    for name in [metrics] if isinstance(metrics, str) else metrics:
        metric = get_metric(name)
        chosen = average if average is not None else (_UNSET if k == 2 else "macro")
        evaluator = _MatrixEvaluator(cm, metric, chosen, {}, zero_division)
        out[metric.name] = _percentile(evaluator(reps), confidence)
    return Intervals(out, _method(totals, n_resamples, seed, confidence))


# --- regression -----------------------------------------------------------------------------------


def regression_intervals(totals: GroupTotals, *, n_resamples: int = 2000, seed: int = 0,
                         confidence: float = 0.95) -> Intervals:
    r"""Intervals of mse, mae, r2, d2_absolute_error, pinball_loss and d2_pinball_score.

    With :math:`W = \sum w`, per replicate: mse = Σw(y−ŷ)²/W, mae = Σw|y−ŷ|/W,
    r2 = 1 − Σw(y−ŷ)² / (Σwy² − (Σwy)²/W), d2 = 1 − Σw|y−ŷ| / Σw|y−m|.  The median
    m is the full-sample weighted median, kept in every replicate: the baseline risk
    :math:`R(c) = \sum w|y - c| / W` is minimised at m, so re-estimating the median
    in a replicate changes it only to second order (first-order correct).  The pinball
    loss of level τ (the totals' ``info["quantile"] = (τ, q)``, q the sample's τ-quantile,
    kept likewise) from :math:`\ell_\tau(r) = (|r| + (2\tau - 1)\,r)/2`, r = y − ŷ:
    pinball_loss = (Σw|y−ŷ| + (2τ−1)Σw(y−ŷ)) / 2W and d2_pinball_score =
    1 − (Σw|y−ŷ| + (2τ−1)Σw(y−ŷ)) / (Σw|y−q| + (2τ−1)(Σwy − qW)).

    >>> rng = np.random.default_rng(0); y = rng.normal(size=300); f = y + rng.normal(scale=0.5, size=300)
    >>> t = group_totals_from_arrays("regression", y, y_pred=f)
    >>> low, high = regression_intervals(t, n_resamples=200).intervals["r2"]
    >>> bool(0.6 < low < high < 0.9)
    True
    """
    _check_confidence(confidence)
    if totals.columns != REGRESSION_COLUMNS:
        raise InvalidInputError("regression_intervals needs group totals of kind 'regression'")
    # regression totals carry their quantile in the info (None there fails as before)
    values = regression_replicate_values(totals.replicate_totals(n_resamples, seed), cast(dict, totals.info)["quantile"])
    return Intervals({k: _percentile(v, confidence) for k, v in values.items()},
                     _method(totals, n_resamples, seed, confidence))


def regression_replicate_values(replicates: np.ndarray, quantile: tuple[float, float]) -> dict[str, np.ndarray]:
    """mse, mae, r2, d2_absolute_error, pinball_loss and d2_pinball_score of each (B, 8)
    replicate total; ``quantile`` = (τ, the sample's τ-quantile) (formulas of
    :func:`regression_intervals`)."""
    w, wy, wy2, sq, ab, abm, wr, abq = replicates.T
    tau, q = quantile
    pinball = (ab + (2 * tau - 1) * wr) / 2
    with np.errstate(all="ignore"):
        return {"mse": sq / w, "mae": ab / w, "r2": 1 - sq / (wy2 - wy * wy / w), "d2_absolute_error": 1 - ab / abm,
                "pinball_loss": pinball / w,
                "d2_pinball_score": 1 - pinball / ((abq + (2 * tau - 1) * (wy - q * w)) / 2)}


# --- probabilities --------------------------------------------------------------------------------


def probability_columns(k: int) -> tuple[str, ...]:
    return (*(f"w[{j}]" for j in range(k)), "log_loss", "brier", *label_columns(k))


def probability_intervals(totals: GroupTotals, *, n_resamples: int = 2000, seed: int = 0,
                          confidence: float = 0.95) -> Intervals:
    r"""Intervals of log_loss and brier from replicate sums: Σw·loss / Σw per replicate
    (losses as in :mod:`beyondchance.measures.advantage`: −ln clip(p_y), Σ_k p_k² − 2p_y + 1).

    >>> y = np.array([0, 1, 2] * 50); p = np.tile([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]], (50, 1))
    >>> t = group_totals_from_arrays("probabilities", y, proba=p)
    >>> low, high = probability_intervals(t, n_resamples=200).intervals["log_loss"]
    >>> bool(low <= 0.4594 <= high)
    True
    """
    _check_confidence(confidence)
    k = int(round((-1 + np.sqrt(1 + 4 * (len(totals.columns) - 2))) / 2))
    if totals.columns != probability_columns(k):
        raise InvalidInputError("probability_intervals needs group totals of kind 'probabilities'")
    r = totals.replicate_totals(n_resamples, seed)
    w = r[:, :k].sum(axis=1)
    with np.errstate(all="ignore"):
        values = {"log_loss": r[:, k] / w, "brier": r[:, k + 1] / w}
    return Intervals({n: _percentile(v, confidence) for n, v in values.items()},
                     _method(totals, n_resamples, seed, confidence))


# --- per-row quantities in memory -----------------------------------------------------------------


def group_sums(g: Any, x: np.ndarray, groups: int) -> np.ndarray:
    """(groups, m): the column sums of the (n, m) ``x`` per group ``g`` (one bincount per column)."""
    g = np.asarray(g, dtype=np.intp)
    return np.column_stack([np.bincount(g, weights=x[:, j], minlength=groups) for j in range(x.shape[1])]) \
        if x.shape[1] else np.zeros((groups, 0))


def _cell_sums(key: np.ndarray, w: np.ndarray | None, size: int, groups: int) -> np.ndarray:
    """(groups, size): Σw per (group, cell) of the combined key g·size + cell."""
    return np.bincount(key, weights=w, minlength=groups * size).reshape(groups, size).astype(np.float64)


def label_group_totals(codes_t: np.ndarray, codes_p: np.ndarray, classes: np.ndarray, w: np.ndarray | None, *,
                       seed: int = 0, groups: int = DEFAULT_GROUPS, row_offset: int = 0) -> GroupTotals:
    """:class:`GroupTotals` of kind ``"labels"`` from checked label codes (0 … k−1) and
    weights (None: 1), rows indexed ``row_offset`` … ``row_offset`` + n − 1: one bincount of
    (group, true, predicted).

    >>> t = label_group_totals(np.array([0, 1, 1]), np.array([0, 1, 0]), np.array([0, 1]), None, groups=4)
    >>> t.full().tolist()
    [1.0, 0.0, 1.0, 1.0]
    """
    k = int(classes.shape[0])
    g = row_groups(np.arange(codes_t.shape[0]) + row_offset, seed, groups)
    key = (g * k + codes_t) * k + codes_p
    return GroupTotals(_cell_sums(key, w, k * k, groups), label_columns(k), groups, seed, {"classes": classes})


def probability_group_totals(codes: np.ndarray, proba: np.ndarray, classes: np.ndarray, w: np.ndarray | None, *,
                             seed: int = 0, groups: int = DEFAULT_GROUPS, row_offset: int = 0) -> GroupTotals:
    """:class:`GroupTotals` of kind ``"probabilities"`` (:func:`probability_columns`) from
    checked class codes, an (n, k) probability matrix and weights (None: 1), rows indexed
    from ``row_offset``."""
    n, k = proba.shape
    g = row_groups(np.arange(n) + row_offset, seed, groups)
    q = proba[np.arange(n), codes]
    losses = np.column_stack([-np.log(_clip_proba(q)), np.einsum("ij,ij->i", proba, proba) - 2 * q + 1])
    if w is not None:
        losses *= w[:, None]
    class_w = _cell_sums(g * k + codes, w, k, groups)
    cells = _cell_sums((g * k + codes) * k + np.argmax(proba, axis=1), w, k * k, groups)
    return GroupTotals(np.hstack([class_w, group_sums(g, losses, groups), cells]), probability_columns(k),
                       groups, seed, {"classes": classes})


def regression_group_totals(y: np.ndarray, f: np.ndarray, w: np.ndarray | None, median: float, *,
                            quantile: tuple[float, float] | None = None, seed: int = 0,
                            groups: int = DEFAULT_GROUPS, row_offset: int = 0) -> GroupTotals:
    """:class:`GroupTotals` of kind ``"regression"`` (:data:`REGRESSION_COLUMNS`) from checked
    finite targets, predictions, weights (None: 1), the weighted median of y and
    ``quantile`` = (τ, the weighted τ-quantile of y) of the pinball loss (default the median),
    rows indexed from ``row_offset``."""
    quantile = (0.5, median) if quantile is None else quantile
    g = row_groups(np.arange(y.shape[0]) + row_offset, seed, groups)
    x = regression_row_quantities(y, f, np.ones_like(y) if w is None else w, median, quantile[1])
    return GroupTotals(group_sums(g, x, groups), REGRESSION_COLUMNS, groups, seed,
                       {"median": median, "quantile": quantile})



#: the kinds of per-group totals (``kind=`` of :func:`group_totals_from_arrays` and
#: :func:`beyondchance.engines.compute_group_totals`): the confusion cells of predicted
#: labels (given, or binary scores at a threshold), the class weights, loss sums and arg-max
#: cells of class probabilities, the sums of a regression's measures
GROUP_TOTALS_KINDS: tuple[str, ...] = ("labels", "probabilities", "regression")


def check_group_totals_kind(kind: Any, *, y_pred: Any = None, proba: Any = None, y_score: Any = None,
                            threshold: Any = None, labels: Any = None) -> bool:
    """Check ``kind`` and the predictions it takes (every engine: one message); True when the
    labels are binary scores at a threshold (``kind="labels"`` with ``y_score``).

    >>> check_group_totals_kind("labels", y_pred="f"), check_group_totals_kind(
    ...     "labels", y_score="s", threshold=0.5, labels=(0, 1))
    (False, True)
    """
    if not isinstance(kind, str) or kind not in GROUP_TOTALS_KINDS:
        raise InvalidInputError(
            f"kind must be one of {', '.join(map(repr, GROUP_TOTALS_KINDS))} (the labels of scores at a "
            f"threshold: kind='labels' with y_score= and threshold=); got {kind!r}")
    if kind == "labels":
        if (y_pred is None) == (y_score is None):
            raise InvalidInputError("kind 'labels' takes y_pred (predicted labels) or y_score with threshold "
                                    "(binary labels at the threshold), one of them")
        if y_score is not None and (threshold is None or labels is None):
            raise InvalidInputError("kind 'labels' with y_score needs threshold and labels (negative, positive)")
        return y_score is not None
    if kind == "probabilities" and proba is None:
        raise InvalidInputError("kind 'probabilities' needs proba (one column per class)")
    if kind == "regression" and y_pred is None:
        raise InvalidInputError("kind 'regression' needs y_pred")
    return False


def group_totals_from_arrays(kind: str, y_true: Any, *, y_pred: Any = None, proba: Any = None, weight: Any = None,
                             labels: Any = None, seed: int = 0, groups: int = DEFAULT_GROUPS,
                             median: float | None = None, quantile: float | None = None,
                             quantile_value: float | None = None, y_score: Any = None, threshold: float | None = None,
                             pos_label: Any = None, row_offset: int = 0) -> GroupTotals:
    """:class:`GroupTotals` of arrays, rows indexed ``row_offset`` … ``row_offset`` + n − 1 (the
    memory engine; :func:`check_row_offset`).

    ``kind`` as in :func:`beyondchance.engines.compute_group_totals` (:data:`GROUP_TOTALS_KINDS`);
    ``median``: regression, the weighted median of y when already known; ``quantile``: the level
    τ of the pinball loss (default 0.5), ``quantile_value`` its weighted τ-quantile of y when known;
    ``kind="labels"`` with ``y_score`` and ``threshold`` (instead of ``y_pred``): binary labels
    y_true (positive: ``pos_label``) against ``y_score ≥ threshold``, ``labels`` the
    (negative, positive) classes recorded in the info.
    """
    at = dict(seed=seed, groups=groups, row_offset=check_row_offset(row_offset))
    if check_group_totals_kind(kind, y_pred=y_pred, proba=proba, y_score=y_score, threshold=threshold,
                               labels=labels):
        assert threshold is not None  # checked: y_score comes with its threshold
        is_pos, _ = binary_target(y_true, pos_label=pos_label)
        s = as_1d(y_score, "y_score").astype(np.float64)
        return label_group_totals(is_pos.view(np.int8), (s >= threshold).view(np.int8), np.asarray(labels, dtype=object),
                                  _weights(weight, s.shape[0]), **at)
    if kind == "labels":
        codes_t, codes_p, classes = encode_labels(y_true, y_pred, labels=labels)
        return label_group_totals(codes_t, codes_p, classes, _weights(weight, codes_t.shape[0]), **at)
    if kind == "regression":
        y = as_1d(y_true, "y_true").astype(np.float64)
        f = as_1d(y_pred, "y_pred").astype(np.float64)
        if f.shape != y.shape:
            raise InvalidInputError(f"y_true and y_pred have different lengths: {y.shape[0]} and {f.shape[0]}")
        if not (np.isfinite(y).all() and np.isfinite(f).all()):
            raise InvalidInputError("y_true and y_pred must be finite")
        w = _weights(weight, y.shape[0])
        median = weighted_quantile(y, 0.5, w) if median is None else median
        return regression_group_totals(y, f, w, median, quantile=_quantile(y, w, quantile, quantile_value, median),
                                       **at)
    p = np.asarray(proba, dtype=np.float64)
    codes, _, classes = encode_labels(y_true, labels=labels)
    n, k = codes.shape[0], classes.shape[0]
    if p.ndim != 2 or p.shape != (n, k):
        raise InvalidInputError(f"proba must have shape ({n}, {k}) (rows, classes), got {p.shape}")
    if not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise InvalidInputError("proba must hold finite probabilities in [0, 1]")
    if (np.abs(p.sum(axis=1) - 1) > 1e-6).any():
        raise InvalidInputError("proba rows must sum to 1")
    return probability_group_totals(codes, p, classes, _weights(weight, n), **at)


def regression_row_quantities(y: np.ndarray, f: np.ndarray, w: np.ndarray, median: float,
                              quantile_value: float) -> np.ndarray:
    """(n, 8): w, w·y, w·y², w·(y−ŷ)², w·|y−ŷ|, w·|y−m|, w·(y−ŷ), w·|y−q| (:data:`REGRESSION_COLUMNS`)."""
    d = y - f
    return np.column_stack([w, w * y, w * y * y, w * d * d, w * np.abs(d), w * np.abs(y - median), w * d,
                            w * np.abs(y - quantile_value)])


def _quantile(y: np.ndarray, w: np.ndarray, level: float | None, value: float | None,
              median: float) -> tuple[float, float]:
    """(τ, weighted τ-quantile of y) of the pinball columns: τ = 0.5 (the median) by default."""
    if level is None:
        return 0.5, median
    level = PinballLoss(level).alpha  # checked: in (0, 1)
    return level, weighted_quantile(y, level, w) if value is None else float(value)


def _weights(weight: Any, n: int) -> np.ndarray:
    w = check_sample_weight(weight, n)
    return np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
