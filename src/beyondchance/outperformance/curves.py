r"""Curves of outperformance scores: the OPRC and the OPS(lift) curve (OPS paper, §4.2–4.3).

The precision–recall curve and the lift curve move with the prevalence: the same
classifier draws a lower PR curve on a more imbalanced test set.  Replacing each height
by its outperformance score standardises the curve (paper Figs. 4(b)–7(b)):

* **OPRC** — OPS(precision) against recall: at each recall level u the classifier's
  precision v (eq. 9 interpolation) and the share of reference curves whose precision at
  recall u is below v, eq. 10: OPS(v, u; π) = Pr{precision < v | recall = u, P = π}.
* **OPS(lift) curve** — OPS(lift) against the predicted-positive rate q: the lift at q
  (eq. 9) and the share of reference curves whose lift at q is below it.  Lift and
  precision at a fixed q differ by the factor 1/π, so the OPS is that of precision at
  the top q (Tables 8–9: "OPS(Lift or Precision)").

The reference (``reference=``):

``"dbt"`` (default)
    Directed-Binary-Tree curves (:mod:`.scoring`), conditional on the x value — what the
    paper's tables print: at recall 0.9 it reproduces Table 6's OPS(Precision) and at
    K = 500 Tables 8–9's OPS(Lift or Precision) (see ``tests/test_ops_scoring.py``).
``"uniform"``
    The labeling-metric OPS of precision (or lift) at π with independent uniform (α, β)
    (:func:`beyondchance.outperformance_score` ``("precision", …)``): exact and fast,
    but it ignores that the point lies at the given recall, so it is not the paper's
    OPRC (at recall 0.9 on Table 6's rows it gives 0.78 / 0.67 / 0.78 instead of the
    printed 0.901 / 0.815 / 0.902).
an int or a callable
    A DBT of that depth or a user's curve sampler, as in :mod:`.scoring`.

Default levels: x = 0.05, 0.10, …, 0.95 and 0.99 (20 points, as the paper's figures).
x = 1 is left out: every DBT curve reaches recall 1 only at its end point (1, 0), where
precision is π and the lift 1, so OPS there is degenerate (1 or 0).

Examples
--------
>>> import numpy as np
>>> from beyondchance.outperformance.curves import ops_precision_recall_curve
>>> rng = np.random.default_rng(0)
>>> y = rng.random(2000) < 0.2
>>> s = y + rng.normal(0, 0.8, 2000)
>>> c = ops_precision_recall_curve(y, s, mc_samples=4096)
>>> c.x.shape, c.kind
((20,), 'oprc')
>>> bool(((c.ops >= 0) & (c.ops <= 1)).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_unit_interval
from .._warnings import InvalidInputError, warn_undefined
from ..measures.curves import threshold_counts
from .._json import jsonable as _jsonable

if TYPE_CHECKING:
    from ..measures.curve_rates import CurveKind

__all__ = ["OPSCurve", "ops_precision_recall_curve", "ops_lift_curve", "DEFAULT_LEVELS"]

#: Default x levels of both curves: 0.05, 0.10, …, 0.95 and 0.99 (20 points).
DEFAULT_LEVELS: np.ndarray = np.r_[np.arange(1, 20) / 20, 0.99].round(10)




@dataclass(frozen=True)
class OPSCurve:
    """A curve of outperformance scores.

    Attributes
    ----------
    kind : ``"oprc"`` (x = recall, y = precision) or ``"ops_lift"`` (x = predicted-positive
        rate, y = lift)
    x : ndarray — the levels
    y : ndarray — the classifier's curve height at x (eq. 9 interpolation)
    ops : ndarray — OPS of y at x
    standard_error : ndarray — Monte Carlo standard error of ``ops`` (0 for exact methods)
    prevalence : float — π of the test set
    reference : str — the reference distribution
    mc_samples : int or None — reference curves (None for exact methods)
    """

    kind: str
    x: np.ndarray
    y: np.ndarray
    ops: np.ndarray
    standard_error: np.ndarray
    prevalence: float
    reference: str
    mc_samples: int | None = None

    @property
    def x_label(self) -> str:
        return "recall" if self.kind == "oprc" else "predicted-positive rate"

    @property
    def y_label(self) -> str:
        return "precision" if self.kind == "oprc" else "lift"

    def __len__(self) -> int:
        return int(self.x.shape[0])

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "kind": self.kind,
            "x_label": self.x_label,
            "y_label": self.y_label,
            "x": _jsonable(self.x),
            "y": _jsonable(self.y),
            "ops": _jsonable(self.ops),
            "standard_error": _jsonable(self.standard_error),
            "prevalence": _jsonable(self.prevalence),
            "reference": self.reference,
            "mc_samples": self.mc_samples,
        }


def _levels(levels: Any, name: str) -> np.ndarray:
    if levels is None:
        return DEFAULT_LEVELS.copy()
    arr = np.atleast_1d(check_unit_interval(levels, name)).astype(np.float64)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be a 1-D array of levels, got shape {arr.shape}")
    if (arr <= 0).any():
        raise InvalidInputError(f"{name} levels must lie in (0, 1], got {float(arr[arr <= 0][0])!r}")
    return arr


def _ops_curve(
    kind: str,
    y_true: Any,
    y_score: Any,
    levels: Any,
    *,
    sample_weight: Any,
    pos_label: Any,
    reference: Any,
    depth: int,
    mc_samples: int | None,
    random_state: Any,
    cache: Any,
    strict: bool,
) -> OPSCurve:
    name = "recall" if kind == "oprc" else "rate"
    x = _levels(levels, name)
    counts = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    curve: CurveKind = "pr" if kind == "oprc" else "lift"
    if not counts.is_defined:
        warn_undefined(
            f"the {kind} curve is undefined: y_true holds one class (prevalence must lie in (0, 1))",
            strict=strict,
        )
        nan = np.full(x.shape, np.nan)
        return OPSCurve(kind, x, nan, nan.copy(), nan.copy(), float(counts.prevalence), "undefined", None)
    pi = float(counts.prevalence)
    y = np.asarray(counts.value_at(curve, x), dtype=np.float64).reshape(x.shape)

    if isinstance(reference, str) and reference.strip().lower() == "uniform":
        from .score import outperformance_score

        # labeling-metric OPS against uniform (α, β): precision (or lift) at π, exact
        r = outperformance_score("precision" if kind == "oprc" else "lift", y, pi)
        ops = np.asarray(r.score, dtype=np.float64).reshape(x.shape)
        se = np.broadcast_to(np.asarray(r.standard_error, dtype=np.float64), x.shape).copy()
        return OPSCurve(kind, x, y, ops, se, pi, r.reference, r.mc_samples)

    from .scoring import scoring_outperformance_score

    if isinstance(reference, str) and reference.strip().lower() == "dbt":
        reference = None
    metric = "precision_at_recall" if kind == "oprc" else "lift_at_rate"
    # an undefined height (cannot happen for a defined curve, kept for safety) stays nan
    ok = np.isfinite(y)
    ops = np.full(x.shape, np.nan)
    se = np.full(x.shape, np.nan)
    if ok.any():
        r = scoring_outperformance_score(
            metric,
            np.clip(y[ok], 0.0, None),
            pi,
            at=x[ok],
            depth=depth,
            mc_samples=mc_samples,
            random_state=random_state,
            reference=reference,
            cache=cache,
        )
        ops[ok] = r.score
        se[ok] = r.standard_error
        ref, n = r.reference, r.mc_samples
    else:  # pragma: no cover - defensive
        ref, n = "undefined", None
    return OPSCurve(kind, x, y, ops, se, pi, ref, n)


def ops_precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    recall: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    reference: Any = "dbt",
    depth: int = 10,
    mc_samples: int | None = None,
    random_state: Any = 0,
    cache: Any = True,
    strict: bool = False,
) -> OPSCurve:
    r"""The OPS(precision)–recall curve (OPRC; OPS paper §4.2, Figs. 4(b), 5(b)).

    At each recall level u: the classifier's precision v(u) by eq. 9 (interpolating
    (α, β) linearly between the neighbouring points of its PR curve) and

    .. math:: \mathrm{OPS}(v, u; \pi) = \Pr\{\text{precision} < v \mid \text{recall} = u, P = \pi\}

    (eq. 10) over Directed-Binary-Tree curves at the test set's prevalence π.  A random
    ranking gives OPS ≈ 0.5 at every recall; the curve is comparable across test sets
    whose prevalences differ.

    Parameters
    ----------
    y_true, y_score : array-like (n,)
        Binary labels and scores (higher = more likely positive).
    recall : array-like, optional
        Recall levels in (0, 1] (default ``DEFAULT_LEVELS``, 20 levels).
    sample_weight : array-like (n,), optional
    pos_label : optional
        The positive label.
    reference : "dbt", "uniform", int or callable
        Reference distribution (see the module docstring); "uniform" uses the
        labeling-metric OPS of precision.
    depth, mc_samples, random_state, cache
        As ``beyondchance.outperformance.scoring.scoring_outperformance_score``.
    strict : bool
        Raise instead of returning nan (with a warning) when y_true holds one class.

    Returns
    -------
    OPSCurve
        ``x`` recall levels, ``y`` precision, ``ops``, ``standard_error``.

    Examples
    --------
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.3, 0.35, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> c = ops_precision_recall_curve(y, s, recall=[0.5, 1.0], mc_samples=2048)
    >>> c.y                                   # precision at recall 0.5 and 1
    array([0.66666667, 0.66666667])
    >>> c.prevalence
    0.5
    """
    return _ops_curve(
        "oprc", y_true, y_score, recall,
        sample_weight=sample_weight, pos_label=pos_label, reference=reference, depth=depth,
        mc_samples=mc_samples, random_state=random_state, cache=cache, strict=strict,
    )


def ops_lift_curve(
    y_true: Any,
    y_score: Any,
    *,
    rate: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    reference: Any = "dbt",
    depth: int = 10,
    mc_samples: int | None = None,
    random_state: Any = 0,
    cache: Any = True,
    strict: bool = False,
) -> OPSCurve:
    r"""The OPS(lift) curve: OPS of the lift against the predicted-positive rate (OPS paper
    §4.3, Figs. 6(b), 7(b)).

    At each rate q (the share K/n of the test set predicted positive): the classifier's
    lift L(q) = recall/q by eq. 9 and the share of reference curves whose lift at q is
    below it.  OPS(lift at q) = OPS(precision at q) (linear invariance, precision = π·lift).

    Parameters
    ----------
    y_true, y_score : array-like (n,)
    rate : array-like, optional
        Predicted-positive rates in (0, 1] (default ``DEFAULT_LEVELS``).
    sample_weight, pos_label, reference, depth, mc_samples, random_state, cache, strict
        As :func:`ops_precision_recall_curve` ("uniform" uses the labeling-metric OPS of
        the lift).

    Returns
    -------
    OPSCurve
        ``x`` rates, ``y`` lift, ``ops``, ``standard_error``.

    Examples
    --------
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.3, 0.35, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> c = ops_lift_curve(y, s, rate=[0.25, 0.5], mc_samples=2048)
    >>> c.y                                   # lift of the top 25% and 50%
    array([1. , 1.5])
    """
    return _ops_curve(
        "ops_lift", y_true, y_score, rate,
        sample_weight=sample_weight, pos_label=pos_label, reference=reference, depth=depth,
        mc_samples=mc_samples, random_state=random_state, cache=cache, strict=strict,
    )
