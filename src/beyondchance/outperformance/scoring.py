r"""Outperformance score of scoring metrics over Directed-Binary-Tree curves (OPS paper, §3.3).

A scoring metric summarises the whole curve traced by lowering the threshold (paper
Table 3): the area under the ROC, precision–recall (PR), lift or gain curve, its
normalised version NAUC = AUC / ideal AUC (eq. 3), or the curve's height at a fixed x
(precision at a recall, lift or precision at a predicted-positive rate; eq. 9
interpolation).  Its outperformance score at the observed value μ and prevalence π is
the share of random monotone curves that μ beats (eq. 8):

.. math::

    \mathrm{OPS}(\mu;\pi) \approx \frac1G\sum_{g=1}^{G}
        \mathbb 1\{M(\alpha^{(g)}, \beta^{(g)}, \pi) < \mu\},

the curves (α⁽ᵍ⁾, β⁽ᵍ⁾) drawn from the Directed Binary Tree distribution
(:mod:`.dbt`; or a user's sampler).  The reference metric is computed by
:func:`beyondchance.measures.curves.auc_from_rates` / :func:`~beyondchance.measures.curves.value_at_from_rates`,
the same estimators that compute a classifier's AUC or point metric from its scores.
The inequality is strict (a tie is not a win).  Monte Carlo standard error:
√(OPS(1 − OPS)/G) ≤ 0.5/√G; the default G = 114,688 (28 chunks of 4096 curves) keeps it
≤ 0.0015 for every value (G ≥ 111,112 is needed at OPS = 0.5).

Metrics (``SCORING_METRICS``):

======================  ==================  =====================================  ==================
name                    curve               value range                            prevalence
======================  ==================  =====================================  ==================
``roc_auc``             ROC (α, 1 − β)      [0, 1]                                 not used
``pr_auc``              PR                  [0, 1] (average precision by default)  logit-π grid
``lift_auc``            lift                [0, 1 − ln π]                          logit-π grid
``gain_auc``            gain                [0, 1 − π/2]                           exact via ROC
``*_nauc``              (the same)          [0, 1]                                 as the AUC
``precision_at_recall`` PR at recall ``at`` [0, 1]                                 exact via π = 1/2
``lift_at_rate``        lift at q = ``at``  [0, 1/π]                               logit-π grid
``precision_at_rate``   precision at q      [0, 1] (= π · lift: same OPS)          logit-π grid
``prg_auc``             precision–recall    [1 − 1/π, 1] (AUPRG, Flach & Kull)     logit-π grid
                        gain
======================  ==================  =====================================  ==================

How the prevalence is handled — reference values depend on π except for the ROC; the
DBT curves themselves do not, so one set of curves serves every π:

* ``roc_auc``: one reference sample for all π.
* ``gain_auc`` (trapezoid): AUC_gain = π/2 + (1 − π)·AUC_ROC for every curve, so by
  linear invariance OPS_gain(μ; π) = OPS_ROC((μ − π/2)/(1 − π)) — exact at every π.
* ``precision_at_recall``: the interpolated (α̂, β̂) at recall u does not depend on π, and
  precision = 1/(1 + c·α̂/u) with c = (1 − π)/π is decreasing in α̂ for every π; so one
  reference sample at π = 1/2 serves all π through the monotone map
  v ↦ c v/(c v + 1 − v) — exact at every π.
* ``prg_auc`` (:mod:`beyondchance.measures.precision_recall_gain`): stored as logit((AUPRG − lower)/(1 − lower)),
  lower = 1 − 1/π, on the same grid (measured interpolation error, same protocol as
  below, ``benchmarks/bench_prg.py``: ≤ 0.0018, at π = 0.3; raw AUPRG values interpolate
  worse near π = 1, up to 0.018); not in the shipped reference, so its first call at a
  new grid bracket runs the Monte Carlo (≈ 8 s of CPU at the default G) and caches it.
* ``pr_auc``, ``lift_auc``, ``lift_at_rate``: reference values are computed on a grid
  π_i = expit(0.1·i) (|logit π| ≤ 7, i.e. 0.00091 ≤ π ≤ 0.99909) and, for π between two
  grid points, the sorted *transformed* reference values logit(AUC/ideal AUC) (or
  logit(precision)) are interpolated linearly in logit π (quantile interpolation; the
  transform removes the atom at precision 1 and makes the quantiles nearly linear in
  logit π).  Measured interpolation error (the same 16,384 curves, interpolated against
  exact, at π = 0.0023 … 0.94, OPS levels 0.005–0.995; ``benchmarks/bench_ops_scoring.py``
  prints it): ≤ 0.0005 for pr_auc, ≤ 0.0004 for lift_auc, ≤ 0.0010 for lift at a rate
  (rates 0.05 and 0.3) — below the Monte Carlo standard error (≤ 0.0015).
  ``interpolate=False`` computes at π exactly (π outside the grid range always is).
  The two grid points of a bracket are computed in one pass over the curves and cached,
  so a new π in a cached bracket costs one blend of two sorted arrays (< 1 ms).

Shipped reference: the default reference (DBT depth 10, G = 114,688, seed 0) of the ROC,
PR and lift AUCs on the whole prevalence grid, and of the precision at the OPRC's default
recall levels, ships with the package, thinned to 2,049 ranks per array
(:mod:`.shipped`; its OPS differs from the full reference's by at most 0.00048), so
these metrics need no Monte Carlo at run time.

Cache: other references' sorted values are kept in memory and on disk (:mod:`.dbt`,
``$BEYONDCHANCE_CACHE_DIR``; 0.9 MB per array at the default G), keyed by (sampler, G,
seed, quantity, AUC method, ``at``, prevalence key).  The first call at a new bracket
costs one pass over the G curves — measured ≈ 6 s of CPU for pr_auc at the defaults
(drawing the curves ≈ half, average precision at the two grid points the rest), spread
over ``BEYONDCHANCE_NUM_THREADS`` threads (default min(4, CPUs)); a repeated call takes
well under a millisecond from memory, a few milliseconds from disk.

Examples
--------
>>> from beyondchance.outperformance.scoring import scoring_outperformance_score
>>> r = scoring_outperformance_score("roc_auc", 0.5, 0.1, mc_samples=4096)
>>> round(float(r.score), 1)       # AUC 0.5 beats about half of the random monotone curves
0.5
>>> r.method, r.mc_samples
('dbt', 4096)
>>> r = scoring_outperformance_score("precision_at_recall", 0.5, 0.1, at=0.8, mc_samples=4096)
>>> bool(r.score > 0.95)           # paper §3.3: at π = 0.1, precision 0.5 at recall 0.8 beats ~97%
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np

from .._validation import as_float, check_mc_samples, check_prevalence
from .._warnings import InvalidInputError
from ..measures.curves import auc_from_rates, value_at_from_rates
from ..measures.curve_rates import AucMethod, CurveKind
from ..measures.curve_rates import _resolve_method as _curves_resolve_method
from ..measures.precision_recall_gain import prg_auc_from_rates, prg_auc_lower
from .result import OPSResult
from .shipped import shipped_values
from .dbt import (
    CACHE_VERSION,
    CHUNK_SIZE,
    DEFAULT_DEPTH,
    DirectedBinaryTree,
    reference_cache,
    for_each_chunk,
    reference_name,
    resolve_reference,
    sampler_cache_key,
)

__all__ = [
    "SCORING_METRICS",
    "DEFAULT_MC_SAMPLES",
    "GRID_STEP",
    "GRID_LIMIT",
    "scoring_outperformance_score",
    "scoring_metric_from_rates",
    "scoring_metric_upper",
    "scoring_metric_lower",
    "reference_distribution",
    "warm_reference_cache",
    "prevalence_grid",
]

#: Names accepted by :func:`scoring_outperformance_score` (and routed to it by
#: :func:`beyondchance.outperformance_score`).
SCORING_METRICS: tuple[str, ...] = (
    "roc_auc",
    "pr_auc",
    "lift_auc",
    "gain_auc",
    "roc_nauc",
    "pr_nauc",
    "lift_nauc",
    "gain_nauc",
    "precision_at_recall",
    "lift_at_rate",
    "precision_at_rate",
    "prg_auc",
)

#: Default number of reference curves G: SE ≤ 0.5/√G = 0.00148 ≤ 0.0015 for every OPS.
DEFAULT_MC_SAMPLES = 28 * CHUNK_SIZE  # 114,688
#: Spacing of the prevalence grid in logit(π).
GRID_STEP = 0.1
#: The grid covers |logit π| ≤ GRID_LIMIT; outside, π is computed exactly.
GRID_LIMIT = 7.0
#: Point metrics: values of ``at`` evaluated together in one call (memory ∝ batch · chunk).
_AT_BATCH = 8

_KNOWN_OPTIONS = (
    "at",
    "depth",
    "mc_samples",
    "random_state",
    "reference",
    "cache",
    "auc_method",
    "interpolate",
    "method",
)


# =====================================================================================
# metric specifications
# =====================================================================================


def _expit(x: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))


def _logit(p: Any) -> Any:
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(p) - np.log1p(-p)


def _ideal(curve: str, pi: Any) -> Any:
    pi = np.asarray(pi, dtype=np.float64)
    if curve == "lift":
        return 1.0 - np.log(pi)
    if curve == "gain":
        return 1.0 - pi / 2.0
    return np.ones_like(pi)


def _auc_bound(curve: str, method: str | None, pi: Any) -> Any:
    """Largest AUC the estimator can return at π.

    The ideal AUC bounds the estimators that integrate the interpolated curve (and
    every estimator of the ROC and PR curves); the step and trapezoid sums of the lift
    (≤ 1/π, the largest lift) and the step sum of the gain (≤ 1) can exceed it.
    """
    pi = np.asarray(pi, dtype=np.float64)
    if curve == "lift" and method in ("step", "trapezoid"):
        return 1.0 / pi
    if curve == "gain" and method == "step":
        return np.ones_like(pi)
    return _ideal(curve, pi)


@dataclass(frozen=True)
class _Quantity:
    """A per-curve reference quantity that is computed, sorted and cached.

    kind:
      ``"auc"``        AUC of ``curve`` by ``method``; stored as logit(AUC / bound(π)) at π,
                       bound = the largest AUC of the estimator (the ideal AUC for the
                       default estimators), or the raw AUC for the π-free ROC.
      ``"pr_at_recall"``  precision at recall ``at`` at π = 1/2 (π-free, see module doc).
      ``"prec_at_rate"``  logit(precision) at predicted-positive rate ``at`` at π.
    """

    kind: str
    curve: CurveKind | Literal["prg"]
    method: AucMethod | None = None
    at: float | None = None

    @property
    def pi_free(self) -> bool:
        return self.kind == "pr_at_recall" or (self.kind == "auc" and self.curve == "roc")

    def key(self) -> dict[str, Any]:
        return {"kind": self.kind, "curve": self.curve, "method": self.method, "at": self.at}

    def compute(self, a: np.ndarray, b: np.ndarray, pi: float) -> np.ndarray:
        """Transformed values for one chunk of curves at one prevalence."""
        if self.kind == "auc" and self.curve == "prg":
            return _logit(_prg_unit(prg_auc_from_rates(a, b, pi, validate=False), pi))
        if self.kind == "auc":
            assert self.curve != "prg" and self.method is not None  # an AUC of a curve by a resolved method
            v = auc_from_rates(a, b, pi, curve=self.curve, method=self.method, validate=False)
            return v if self.curve == "roc" else _logit(v / _auc_bound(self.curve, self.method, pi))
        raise AssertionError(self.kind)  # point metrics go through compute_at


def _prg_unit(auprg: Any, pi: Any) -> Any:
    """AUPRG mapped onto [0, 1]: (AUPRG − lower)/(1 − lower) = π·AUPRG + 1 − π."""
    pi = np.asarray(pi, dtype=np.float64)
    # clipped: a value on a bound must not round to just outside it (logit → nan)
    return np.clip(pi * np.asarray(auprg, dtype=np.float64) + 1.0 - pi, 0.0, 1.0)


def _compute_at(kind: str, ats: np.ndarray, a: np.ndarray, b: np.ndarray, pi: float) -> np.ndarray:
    """Point metric at several ``at`` values for one chunk: shape (len(ats), n_curves)."""
    if kind == "pr_at_recall":
        return np.asarray(value_at_from_rates(a, b, 0.5, curve="pr", at=ats[:, None], validate=False))
    lift = np.asarray(value_at_from_rates(a, b, pi, curve="lift", at=ats[:, None], validate=False))
    return _logit(pi * lift)


@dataclass(frozen=True)
class _Spec:
    """A user-facing metric: which quantity it reads and how μ maps onto it."""

    name: str
    curve: CurveKind | Literal["prg"]
    family: str  # "auc" | "nauc" | "precision_at_recall" | "lift_at_rate" | "precision_at_rate"
    method: AucMethod | None  # resolved AUC method
    gain_via_roc: bool = False

    @property
    def point(self) -> bool:
        return self.family not in ("auc", "nauc")

    def quantity(self, at: float | None) -> _Quantity:
        if self.family == "precision_at_recall":
            return _Quantity("pr_at_recall", "pr", None, at)
        if self.family in ("lift_at_rate", "precision_at_rate"):
            return _Quantity("prec_at_rate", "lift", None, at)
        if self.gain_via_roc:
            return _Quantity("auc", "roc", "trapezoid")
        return _Quantity("auc", self.curve, self.method)

    def upper(self, pi: np.ndarray) -> np.ndarray:
        """Largest admissible value at π."""
        if self.family == "nauc":
            return self._auc_upper(pi) / _ideal(self.curve, pi)
        if self.family == "auc":
            return self._auc_upper(pi)
        if self.family == "lift_at_rate":
            return 1.0 / pi
        return np.ones_like(pi)

    def lower(self, pi: np.ndarray) -> np.ndarray:
        """Smallest admissible value at π."""
        return prg_auc_lower(pi) if self.curve == "prg" else np.zeros_like(pi)

    def _auc_upper(self, pi: np.ndarray) -> np.ndarray:
        return _auc_bound(self.curve, self.method, pi)

    def to_stored(self, mu: np.ndarray, pi: np.ndarray) -> np.ndarray:
        """Map values μ at π to the stored quantity's coordinate (monotone increasing)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.family in ("auc", "nauc"):
                auc = mu * _ideal(self.curve, pi) if self.family == "nauc" else mu
                if self.curve == "roc":
                    return auc
                if self.curve == "prg":
                    return _logit(_prg_unit(auc, pi))
                if self.gain_via_roc:
                    return (auc - pi / 2.0) / (1.0 - pi)
                return _logit(auc / _auc_bound(self.curve, self.method, pi))
            if self.family == "precision_at_recall":
                c = (1.0 - pi) / pi
                return np.where(mu >= 1.0, 1.0, c * mu / (c * mu + 1.0 - mu))
            if self.family == "lift_at_rate":
                return _logit(mu * pi)
            return _logit(mu)  # precision_at_rate


def _resolve_spec(metric: Any, auc_method: Any) -> _Spec:
    if not isinstance(metric, str):
        raise InvalidInputError(f"metric must be a name, got {type(metric).__name__}")
    name = metric.strip().lower().replace("-", "_").replace(" ", "_")
    if name not in SCORING_METRICS:
        raise InvalidInputError(
            f"unknown scoring metric {metric!r}; known scoring metrics: {', '.join(SCORING_METRICS)}"
        )
    if name == "prg_auc":
        if auc_method not in (None, "default", "trapezoid"):
            raise InvalidInputError("prg_auc has one estimator (the trapezoid rule of Flach & Kull)")
        return _Spec(name, "prg", "auc", "trapezoid")
    if name in ("precision_at_recall", "lift_at_rate", "precision_at_rate"):
        if auc_method not in (None, "default"):
            raise InvalidInputError(f"auc_method applies to AUC metrics only, not to {name!r}")
        point_curve: CurveKind = "pr" if name == "precision_at_recall" else "lift"
        return _Spec(name, point_curve, name, None)
    curve_name, family = name.split("_")
    curve = cast(CurveKind, curve_name)  # roc, pr, lift or gain: the AUC metrics of SCORING_METRICS
    method = _curves_resolve_method(curve, "default" if auc_method is None else auc_method)
    gain_via_roc = curve == "gain" and method in ("trapezoid", "interpolated")
    return _Spec(name, curve, family, method, gain_via_roc)


# =====================================================================================
# the prevalence grid
# =====================================================================================


def prevalence_grid() -> np.ndarray:
    """The prevalences π_i = expit(GRID_STEP · i), |GRID_STEP · i| ≤ GRID_LIMIT.

    >>> g = prevalence_grid()
    >>> len(g), round(float(g[0]), 5), round(float(g[-1]), 5)
    (141, 0.00091, 0.99909)
    """
    n = int(round(GRID_LIMIT / GRID_STEP))
    return _expit(GRID_STEP * np.arange(-n, n + 1))


def _grid_bracket(pi: float) -> tuple[tuple[int, float], ...] | None:
    """((i, weight), …) of the grid points whose blend gives π; None off the grid."""
    x = float(_logit(pi))
    n = int(round(GRID_LIMIT / GRID_STEP))
    if not -GRID_LIMIT <= x <= GRID_LIMIT:
        return None
    t = x / GRID_STEP
    i = int(np.floor(t))
    w = t - i
    if w < 1e-9:
        return ((i, 1.0),)
    if w > 1 - 1e-9:
        return ((i + 1, 1.0),)
    if i + 1 > n:  # pragma: no cover - guarded by the range check
        return None
    return ((i, 1.0 - w), (i + 1, w))


def _grid_pi(i: int) -> float:
    return float(_expit(GRID_STEP * i))


# =====================================================================================
# computing and caching reference samples
# =====================================================================================


@dataclass(frozen=True)
class _Context:
    sampler: Any
    mc_samples: int
    seed: int
    cache: Any  # True | False | "memory"

    @property
    def sampler_key(self) -> str | None:
        return sampler_cache_key(self.sampler)

    def reference_key(self) -> dict[str, Any] | None:
        """What identifies the reference sample; None when it must not be reused."""
        if self.cache is False or self.sampler_key is None:
            return None
        return {"v": CACHE_VERSION, "reference": self.sampler_key, "n_samples": self.mc_samples,
                "seed": self.seed, "chunk": CHUNK_SIZE}

    def key(self, q: _Quantity, pikey: Any) -> dict[str, Any] | None:
        ref = self.reference_key()
        return None if ref is None else {**ref, "quantity": q.key(), "prevalence": pikey}


def _pikey_value(pikey: Any) -> float:
    """π of a prevalence key: ("grid", i), ("exact", π) or None (π-free)."""
    if pikey is None:
        return 0.5
    kind, v = pikey
    return _grid_pi(v) if kind == "grid" else float(v)


def _ensure(ctx: _Context, entries: list[tuple[_Quantity, Any]]) -> dict[tuple[_Quantity, Any], np.ndarray]:
    """Sorted reference values for each (quantity, prevalence key); missing ones are
    computed in one pass over the reference curves and cached."""
    out: dict[tuple[_Quantity, Any], np.ndarray] = {}
    missing: list[tuple[_Quantity, Any]] = []
    disk = ctx.cache is True
    for entry in dict.fromkeys(entries):
        key = ctx.key(*entry)
        arr = None if key is None else reference_cache.get(key, disk=disk)
        if arr is None and key is not None:  # the default reference ships with the package
            reference = ctx.reference_key()
            assert reference is not None  # the key holds the reference's
            arr = shipped_values(reference, entry[0].key(), entry[1])
            if arr is not None:
                reference_cache.put(key, arr, disk=False)
        if arr is None:
            missing.append(entry)
        else:
            out[entry] = arr
    if not missing:
        return out

    buffers = {entry: np.empty(ctx.mc_samples) for entry in missing}
    # point metrics: batch the `at` values that share a kind and a prevalence
    point_groups: dict[tuple[str, Any], list[tuple[_Quantity, Any]]] = {}
    auc_entries: list[tuple[_Quantity, Any]] = []
    for entry in missing:
        q, pikey = entry
        if q.kind == "auc":
            auc_entries.append(entry)
        else:
            point_groups.setdefault((q.kind, pikey), []).append(entry)

    def work(chunk: tuple[slice, np.ndarray, np.ndarray]) -> None:
        rows, a, b = chunk
        for entry in auc_entries:
            q, pikey = entry
            buffers[entry][rows] = q.compute(a, b, _pikey_value(pikey))
        for (kind, pikey), group in point_groups.items():
            pi = _pikey_value(pikey)
            for start in range(0, len(group), _AT_BATCH):
                part = group[start : start + _AT_BATCH]
                ats = np.array([q.at for q, _ in part], dtype=np.float64)
                vals = _compute_at(kind, ats, a, b, pi)
                for j, entry in enumerate(part):
                    buffers[entry][rows] = vals[j]

    # chunks are independent (own random stream, disjoint rows of the buffers): numpy
    # releases the GIL in its loops, so threads use the cores; results do not depend on
    # the number of threads
    for_each_chunk(work, ctx.sampler, ctx.mc_samples, ctx.seed)

    for entry, values in buffers.items():
        values.sort()  # nan (undefined values, user samplers only) sort last: never "below"
        values.setflags(write=False)
        key = ctx.key(*entry)
        if key is not None:
            reference_cache.put(key, values, disk=disk)
        out[entry] = values
    return out


def _count_below(sorted_values: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Number of reference values strictly below t (t is never nan: values are validated;
    nan reference values — undefined metrics of a user's curves — sort last and are never
    counted as beaten)."""
    return np.searchsorted(sorted_values, t, side="left")


# =====================================================================================
# validation
# =====================================================================================


def _check_options(options: dict[str, Any]) -> None:
    unknown = sorted(set(options) - set(_KNOWN_OPTIONS))
    if unknown:
        raise InvalidInputError(
            f"unknown option(s) {unknown} for a scoring metric; known options: {', '.join(_KNOWN_OPTIONS)}"
        )


def _check_seed(random_state: Any) -> int:
    """The reference's seed: an int as given, drawn from a Generator or, for None, from fresh
    entropy (as scikit-learn's ``random_state=None``)."""
    if random_state is None:
        random_state = np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) and random_state >= 0:
        return int(random_state)
    raise InvalidInputError(
        f"random_state must be None, a non-negative integer or a numpy Generator, got {random_state!r}"
    )


def _one_off_in_memory(cache: Any, random_state: Any) -> Any:
    """``cache``, but in memory only for a seed drawn afresh at each call (None, a Generator):
    the disk is not filled with one-off reference files."""
    fresh = random_state is None or isinstance(random_state, np.random.Generator)
    return "memory" if cache is True and fresh else cache


def _check_mc_samples(mc_samples: Any) -> int:
    if mc_samples is None:
        return DEFAULT_MC_SAMPLES
    return check_mc_samples(mc_samples, "mc_samples")


def _check_cache(cache: Any) -> Any:
    if cache is True or cache is False or cache == "memory":
        return cache
    raise InvalidInputError(f"cache must be True, False or 'memory', got {cache!r}")


def _check_method(method: Any) -> None:
    if method not in ("auto", "dbt", "monte-carlo"):
        raise InvalidInputError(
            f"scoring metrics are computed by Monte Carlo over reference curves; method must be "
            f"'auto', 'dbt' or 'monte-carlo', got {method!r}"
        )


def _check_at(spec: _Spec, at: Any) -> np.ndarray | None:
    if not spec.point:
        if at is not None:
            raise InvalidInputError(f"at= applies to point metrics only, not to {spec.name!r}")
        return None
    if at is None:
        what = "recall" if spec.family == "precision_at_recall" else "predicted-positive rate"
        raise InvalidInputError(f"{spec.name!r} needs at= (the {what} in (0, 1])")
    arr = as_float(at, "at")
    bad = (arr <= 0) | (arr > 1)
    if bad.any():
        raise InvalidInputError(f"at must lie in (0, 1], got {arr[bad].ravel()[0]!r}")
    return arr


# =====================================================================================
# the public functions
# =====================================================================================


def scoring_metric_from_rates(
    metric: str,
    alpha: Any,
    beta: Any,
    prevalence: Any,
    *,
    at: Any = None,
    auc_method: str = "default",
    validate: bool = True,
) -> Any:
    r"""The value of a scoring metric on curves given by their (α, β) points.

    The estimator of the reference curves and of a classifier's own curve (its
    :meth:`~beyondchance.measures.curves.ThresholdCounts.rates`): AUC by
    :func:`~beyondchance.measures.curves.auc_from_rates` (NAUC = AUC / ideal AUC), points by
    :func:`~beyondchance.measures.curves.value_at_from_rates` (eq. 9), precision at a rate = π ·
    lift at that rate.  Batched as those functions (curves ``(..., m)``, π
    broadcastable); ``at`` must be a scalar here.

    >>> import numpy as np
    >>> a = np.array([0.0, 0.0, 0.5, 1.0]); b = np.array([1.0, 0.5, 0.0, 0.0])
    >>> float(scoring_metric_from_rates("roc_auc", a, b, 0.2))
    0.875
    >>> float(scoring_metric_from_rates("precision_at_rate", a, b, 0.5, at=0.5))
    0.75
    """
    spec = _resolve_spec(metric, auc_method)
    at_arr = _check_at(spec, at)
    if at_arr is not None and at_arr.ndim:
        raise InvalidInputError("at must be a scalar here")
    if spec.curve == "prg":
        return prg_auc_from_rates(alpha, beta, prevalence, validate=validate)
    if not spec.point:
        assert spec.method is not None  # resolved for every AUC metric
        value = auc_from_rates(alpha, beta, prevalence, curve=spec.curve, method=spec.method, validate=validate)
        return value / _ideal(spec.curve, prevalence) if spec.family == "nauc" else value
    assert at_arr is not None  # a point metric has its at
    curve: CurveKind = "pr" if spec.family == "precision_at_recall" else "lift"
    value = value_at_from_rates(alpha, beta, prevalence, curve=curve, at=float(at_arr), validate=validate)
    if spec.family == "precision_at_rate":
        value = value * np.asarray(prevalence, dtype=np.float64)
    return value


def scoring_metric_upper(metric: str, prevalence: Any, *, auc_method: str = "default") -> Any:
    """Largest value the metric's estimator can return at π (its OPS is 1 there).

    >>> float(scoring_metric_upper("lift_at_rate", 0.25))
    4.0
    """
    return _resolve_spec(metric, auc_method).upper(np.asarray(prevalence, dtype=np.float64))


def scoring_metric_lower(metric: str, prevalence: Any, *, auc_method: str = "default") -> Any:
    """Smallest value the metric's estimator can return at π (its OPS is 0 there):
    0, except AUPRG's 1 − 1/π.

    >>> float(scoring_metric_lower("prg_auc", 0.25)), float(scoring_metric_lower("pr_auc", 0.25))
    (-3.0, 0.0)
    """
    return _resolve_spec(metric, auc_method).lower(np.asarray(prevalence, dtype=np.float64))


def scoring_outperformance_score(
    metric: str,
    value: Any,
    prevalence: Any,
    *,
    at: Any = None,
    depth: int = DEFAULT_DEPTH,
    mc_samples: int | None = None,
    random_state: Any = 0,
    reference: Any = None,
    cache: Any = True,
    auc_method: str = "default",
    interpolate: bool = True,
    method: str = "auto",
    **options: Any,
) -> OPSResult:
    r"""Outperformance score of a scoring metric: the share of random monotone curves it beats.

    OPS paper, section 3.3, eq. 8 (AUC) and eq. 10 (a point of the curve):

    .. math::

        \mathrm{OPS}(\mu;\pi) \approx \frac1G\sum_g
            \mathbb 1\{M(\alpha^{(g)}_{1..J}, \beta^{(g)}_{1..J}, \pi) < \mu\},

    the G curves drawn from the Directed Binary Tree distribution (``depth`` levels,
    2^depth − 1 points plus the end points (0, 1) and (1, 0)), the reference metric
    computed by the same estimator as the classifier's (:mod:`beyondchance.measures.curves`).
    A random ranking has ROC AUC ≈ 0.5 and OPS ≈ 0.5; the ideal classifier has OPS 1.

    Parameters
    ----------
    metric : str
        One of :data:`SCORING_METRICS`.
    value : float or array-like
        The observed metric value(s) μ, in [0, ideal AUC(π)] (NAUC, precision: [0, 1];
        lift at a rate: [0, 1/π]).
    prevalence : float or array-like
        π in (0, 1), broadcast against ``value`` (and ``at``).
    at : float or array-like, optional
        Point metrics only (required there): the recall (``precision_at_recall``) or
        the predicted-positive rate K/n (``lift_at_rate``, ``precision_at_rate``), in
        (0, 1]; broadcast against ``value``.
    depth : int
        DBT depth (levels) when ``reference`` is None.  Default 10 (1023 points).
    mc_samples : int, optional
        Number of reference curves G (default :data:`DEFAULT_MC_SAMPLES` = 114,688, so
        that the standard error is ≤ 0.0015).  The first G curves of a seed do not
        depend on how many are drawn.
    random_state : None, int or numpy Generator
        Seed of the reference sample (default 0: a fixed, cached reference, the shipped one
        at the default ``mc_samples``).  None draws a seed from fresh entropy and a
        Generator from itself (then nothing is written to the disk cache).
    reference : None, int, "uniform" or callable
        None: the DBT of ``depth``; an int: the DBT of that depth; ``"uniform"``:
        :class:`~beyondchance.outperformance.dbt.UniformCurves` with 2^depth − 1 points
        (i.i.d. uniform errors, sorted; one point = the labeling metrics' reference); a callable
        ``f(n_curves, rng) -> (alpha, beta)`` returning arrays (n_curves, m) of curves
        by decreasing threshold with both end points (validated); give it a string
        attribute ``cache_key`` to enable caching.  It is called once per chunk of
        4096 curves with that chunk's own Generator, possibly from worker threads.
    cache : True, False or "memory"
        Cache the sorted reference values in memory and on disk (True), memory only,
        or not at all.
    auc_method : str
        AUC estimator (:func:`beyondchance.measures.curves.auc_from_rates`): ``"default"``
        (roc, gain: trapezoid; pr: ``"ap"`` = average precision; lift:
        ``"interpolated"``), ``"ap"``, ``"step"``, ``"trapezoid"``, ``"interpolated"``.
        Use the one that computed ``value``.
    interpolate : bool
        Interpolate π-dependent references across the logit-π grid (default) or compute
        at π exactly (slower for each new π, no interpolation error).
    method : str
        ``"auto"``, ``"dbt"`` or ``"monte-carlo"`` (all the same: Monte Carlo over the
        reference curves); accepted for the dispatcher
        :func:`beyondchance.outperformance_score`.

    Returns
    -------
    OPSResult
        ``score`` and ``standard_error`` (√(OPS(1−OPS)/G)) as floats, or arrays of the
        broadcast shape; ``method="dbt"`` (``"monte-carlo"`` for a user sampler);
        ``options`` records ``at``, the AUC method, depth, seed and how π was handled.

    Examples
    --------
    >>> r = scoring_outperformance_score("pr_auc", [0.354, 0.42], [0.091, 0.19], mc_samples=8192)
    >>> r.score.round(2)      # OPS paper Table 6 prints 0.869 and 0.797
    array([0.87, 0.8 ])
    >>> bool((r.standard_error < 0.005).all())
    True
    """
    _check_options(options)
    _check_method(method)
    spec = _resolve_spec(metric, auc_method)
    at_arr = _check_at(spec, at)
    sampler = resolve_reference(reference, depth)
    seed = _check_seed(random_state)
    G = _check_mc_samples(mc_samples)
    cache = _one_off_in_memory(_check_cache(cache), random_state)
    if not isinstance(interpolate, (bool, np.bool_)):
        raise InvalidInputError(f"interpolate must be True or False, got {interpolate!r}")
    mu_in, pi_in = as_float(value, "value"), check_prevalence(prevalence)
    bshape, mu, pi, ats = _broadcast_values(spec, mu_in, pi_in, at_arr)
    plans, inverse, how = _reference_plans(spec, pi, ats, interpolate=bool(interpolate))
    below = _count_below_plans(_Context(sampler, G, seed, cache), plans, inverse, spec.to_stored(mu, pi))
    score = below / G
    se = np.sqrt(score * (1.0 - score) / G)
    scalar = len(bshape) == 0
    opts = _ops_options(spec, sampler, seed, how, ats, at_arr, bshape)
    user = not isinstance(sampler, DirectedBinaryTree)
    return OPSResult(
        score=float(score[0]) if scalar else score.reshape(bshape),
        metric=spec.name,
        value=float(mu[0]) if scalar else np.broadcast_to(mu_in, bshape).copy(),
        prevalence=float(pi[0]) if scalar else np.broadcast_to(pi_in, bshape).copy(),
        method="monte-carlo" if user else "dbt",
        standard_error=float(se[0]) if scalar else se.reshape(bshape),
        reference=f"{reference_name(sampler)}; {G} curves, seed {seed}",
        mc_samples=G,
        options=opts,
    )


def _broadcast_values(spec: _Spec, mu_in: np.ndarray, pi_in: np.ndarray, at_arr: np.ndarray | None
                      ) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray | None]:
    """(the broadcast shape, then value, prevalence and ``at`` raveled to it), each value
    checked to lie in the metric's range at its prevalence."""
    arrays = [mu_in, pi_in] + ([at_arr] if at_arr is not None else [])
    try:
        bshape = np.broadcast_shapes(*(x.shape for x in arrays))
    except ValueError as exc:
        raise InvalidInputError(
            f"value, prevalence{' and at' if at_arr is not None else ''} have incompatible shapes "
            f"{', '.join(str(x.shape) for x in arrays)}"
        ) from exc
    mu = np.broadcast_to(mu_in, bshape).ravel()
    pi = np.broadcast_to(pi_in, bshape).ravel()
    ats = np.broadcast_to(at_arr, bshape).ravel() if at_arr is not None else None
    upper, lower = spec.upper(pi), spec.lower(pi)
    bad = (mu < lower - 1e-12 * np.abs(lower)) | (mu > upper * (1 + 1e-12))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"value must lie in [{float(lower[j]):.6g}, {float(upper[j]):.6g}] for {spec.name} at prevalence "
            f"{float(pi[j]):.6g}, got {float(mu[j])!r}"
        )
    return bshape, mu, pi, ats


def _reference_plans(spec: _Spec, pi: np.ndarray, ats: np.ndarray | None, *, interpolate: bool
                     ) -> tuple[list[list[tuple[tuple[_Quantity, Any], float]]], np.ndarray, set[str]]:
    """One (quantity, prevalence-key) plan per distinct (π, at) pair: a prevalence-free
    reference, the exact prevalence, or a blend of two logit-prevalence grid points; each
    value's plan index; and how the prevalence was handled, in words."""
    how: set[str] = set()
    uniq_at: list[float | None]
    if ats is None:
        uniq, inverse = np.unique(pi, return_inverse=True)
        uniq_at = [None] * len(uniq)
    else:
        pairs, inverse = np.unique(np.stack([pi, ats], axis=1), axis=0, return_inverse=True)
        uniq, uniq_at = pairs[:, 0], [float(x) for x in pairs[:, 1]]
    plans: list[list[tuple[tuple[_Quantity, Any], float]]] = []
    for p, a in zip(uniq, uniq_at):
        q = spec.quantity(a)
        if q.pi_free:
            plans.append([((q, None), 1.0)])
            how.add("prevalence-free reference" if q.kind == "auc" and not spec.gain_via_roc else "exact map")
            continue
        bracket = _grid_bracket(float(p)) if interpolate else None
        if bracket is None:
            plans.append([((q, ("exact", float(p))), 1.0)])
            how.add("exact prevalence")
        else:
            plans.append([((q, ("grid", i)), w) for i, w in bracket])
            how.add("logit-prevalence grid" if len(bracket) > 1 else "exact prevalence (grid point)")
    return plans, np.asarray(inverse).ravel(), how


def _count_below_plans(ctx: _Context, plans: list[list[tuple[tuple[_Quantity, Any], float]]], inverse: np.ndarray,
                       t: np.ndarray) -> np.ndarray:
    """How many reference curves each stored value ``t`` beats, from its plan's sorted
    reference values (a blend of two sorted arrays is sorted)."""
    below = np.empty(t.shape)
    refs = _ensure(ctx, [entry for plan in plans for entry, _ in plan])
    order = np.argsort(inverse, kind="stable")
    groups = np.split(order, np.cumsum(np.bincount(inverse, minlength=len(plans)))[:-1])
    for plan, idx in zip(plans, groups):
        if len(plan) == 1:
            s = refs[plan[0][0]]
        else:
            (e0, w0), (e1, w1) = plan
            s = w0 * refs[e0] + w1 * refs[e1]
        below[idx] = _count_below(s, t[idx])
    return below


def _ops_options(spec: _Spec, sampler: Any, seed: Any, how: set[str], ats: np.ndarray | None,
                 at_arr: np.ndarray | None, bshape: tuple[int, ...]) -> dict[str, Any]:
    """The result's ``options``: the seed, how the prevalence was handled, the DBT depth,
    the point's ``at`` or the AUC method, the grid step."""
    opts: dict[str, Any] = {"random_state": seed, "prevalence_handling": ", ".join(sorted(how))}
    if isinstance(sampler, DirectedBinaryTree):
        opts["depth"] = sampler.depth
    if spec.point:
        assert ats is not None and at_arr is not None  # a point metric has its at
        opts["at"] = float(ats[0]) if len(bshape) == 0 else np.broadcast_to(at_arr, bshape).copy()
    else:
        opts["auc_method"] = "ap" if spec.curve == "pr" and spec.method == "step" else spec.method
    if "logit-prevalence grid" in how:
        opts["grid_step_logit"] = GRID_STEP
    return opts


def _inverse_stored(spec: _Spec, t: np.ndarray, pi: float) -> np.ndarray:
    """Metric values from the stored coordinate (inverse of :meth:`_Spec.to_stored`)."""
    with np.errstate(over="ignore"):
        if spec.family in ("auc", "nauc"):
            if spec.curve == "roc":
                auc = t
            elif spec.curve == "prg":
                return (_expit(t) - 1.0 + pi) / pi
            elif spec.gain_via_roc:
                auc = pi / 2.0 + (1.0 - pi) * t
            else:
                auc = _expit(t) * _auc_bound(spec.curve, spec.method, pi)
            return auc / _ideal(spec.curve, pi) if spec.family == "nauc" else auc
        if spec.family == "precision_at_recall":
            c = (1.0 - pi) / pi
            return t / (t + c * (1.0 - t))
        prec = _expit(t)
        return prec / pi if spec.family == "lift_at_rate" else prec


def reference_distribution(
    metric: str,
    prevalence: float,
    *,
    at: float | None = None,
    depth: int = DEFAULT_DEPTH,
    mc_samples: int | None = None,
    random_state: Any = 0,
    reference: Any = None,
    cache: Any = True,
    auc_method: str = "default",
) -> np.ndarray:
    """The sorted reference values of a scoring metric at one prevalence (exact π).

    The G values of the metric over the reference curves, in the metric's own units
    (for plotting its distribution, OPS paper Fig. 3, or checking OPS by hand).

    >>> v = reference_distribution("roc_auc", 0.2, mc_samples=4096)
    >>> v.shape, bool((v[1:] >= v[:-1]).all()), bool(0.45 < float(np.median(v)) < 0.55)
    ((4096,), True, True)
    """
    spec = _resolve_spec(metric, auc_method)
    at_arr = _check_at(spec, at)
    if at_arr is not None and at_arr.ndim:
        raise InvalidInputError("at must be a scalar here")
    pi = float(check_prevalence(prevalence))
    ctx = _Context(resolve_reference(reference, depth), _check_mc_samples(mc_samples), _check_seed(random_state),
                   _one_off_in_memory(_check_cache(cache), random_state))
    q = spec.quantity(None if at_arr is None else float(at_arr))
    entry = (q, None if q.pi_free else ("exact", pi))
    stored = _ensure(ctx, [entry])[entry]
    return _inverse_stored(spec, np.asarray(stored), pi)


def warm_reference_cache(
    metric: str,
    prevalences: Any = None,
    *,
    at: Any = None,
    depth: int = DEFAULT_DEPTH,
    mc_samples: int | None = None,
    random_state: Any = 0,
    reference: Any = None,
    auc_method: str = "default",
) -> int:
    """Precompute (and cache on disk) the reference values a metric needs.

    ``prevalences=None`` computes every grid point (141 of them; minutes at the default
    G); otherwise the grid brackets of the given prevalences.  All in one pass over the
    reference curves.  Returns the number of reference arrays now cached.

    >>> warm_reference_cache("roc_auc", mc_samples=1024)
    1
    """
    spec = _resolve_spec(metric, auc_method)
    at_arr = _check_at(spec, at)
    ats = [None] if at_arr is None else [float(x) for x in np.unique(at_arr)]
    ctx = _Context(resolve_reference(reference, depth), _check_mc_samples(mc_samples), _check_seed(random_state), True)
    if prevalences is None:
        n = int(round(GRID_LIMIT / GRID_STEP))
        pikeys: list[Any] = [("grid", i) for i in range(-n, n + 1)]
    else:
        pikeys = []
        for p in np.unique(check_prevalence(np.atleast_1d(prevalences))):
            br = _grid_bracket(float(p))
            pikeys += [("exact", float(p))] if br is None else [("grid", i) for i, _ in br]
    entries: list[tuple[_Quantity, Any]] = []
    for a in ats:
        q = spec.quantity(a)
        entries += [(q, None)] if q.pi_free else [(q, k) for k in pikeys]
    entries = list(dict.fromkeys(entries))
    _ensure(ctx, entries)
    return len(entries)
