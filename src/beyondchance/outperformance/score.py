r"""The public entry point: :func:`outperformance_score` for any metric (OPS paper, section 3).

Labeling metrics (one confusion matrix: F1, MCC, κ, …, or a user's vectorised
``M(prevalence, alpha, beta)``) are scored against independent uniform Type-I and
Type-II errors (:mod:`beyondchance.outperformance.labeling`); scoring metrics (curve
summaries: ROC/PR/lift/gain AUC and NAUC, precision at a recall, lift at a rate) against
random monotone curves drawn from the Directed Binary Tree distribution
(:mod:`beyondchance.outperformance.scoring`, imported only when such a metric is asked
for).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Callable, Literal, cast

from .._warnings import InvalidInputError
from ..measures.registry import ALIASES, METRICS, LabelingMetric
from .result import OPSResult
from .labeling import LabelingMethod, labeling_outperformance_score

__all__ = ["outperformance_score"]

_SCORING_MODULE = "beyondchance.outperformance.scoring"
#: only for the error message when the scoring module cannot be imported; the module's
#: own ``SCORING_METRICS`` is the list of record
_EXPECTED_SCORING = ("roc_auc", "pr_auc", "lift_auc", "gain_auc", "precision_at_recall", "lift_at_rate")


def _normalise(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _scoring_module() -> tuple[ModuleType | None, str]:
    """The scoring module, or None and the reason it is unavailable.

    Only the module's own absence is treated as "unavailable"; an import error raised
    from inside it (a bug or a missing dependency of that module) propagates.
    """
    try:
        return importlib.import_module(_SCORING_MODULE), ""
    except ModuleNotFoundError as exc:
        if exc.name == _SCORING_MODULE:
            return None, f"{_SCORING_MODULE} is not available"
        raise


def _is_labeling_name(key: str) -> bool:
    return key in METRICS or key in ALIASES


def outperformance_score(
    metric: str | LabelingMetric | Callable[..., Any],
    value: Any,
    prevalence: Any,
    *,
    method: Literal["auto", "exact", "closed-form", "monte-carlo"] | str = "auto",
    mc_samples: int | None = None,
    random_state: Any = 0,
    **options: Any,
) -> OPSResult:
    r"""Outperformance score: the share of all possible classifiers at prevalence π that a
    metric value beats (OPS paper, Definition 1, eq. 6).

    .. math::

        \mathrm{OPS}_M(\mu;\pi) = \Pr\{M(\pi, A, B) < \mu\},\qquad
        A, B \sim \mathrm{Uniform}[0,1] \text{ independent}

    for labeling metrics (``>`` for lower-is-better metrics; strict inequality, so a
    reference classifier that ties with μ is not counted as beaten), and the analogous
    probability over Directed-Binary-Tree curves for scoring metrics.  OPS is linear
    invariant: metrics related by M₂ = a·M₁ + b (a > 0, a, b functions of π) give the
    same OPS, e.g. lift and precision.

    Parameters
    ----------
    metric : str, LabelingMetric or callable
        A labeling metric name or alias (see :data:`beyondchance.measures.METRICS`), a scoring
        metric name (``"roc_auc"``, ``"pr_auc"``, ``"lift_auc"``, ``"gain_auc"``,
        ``"precision_at_recall"``, ``"lift_at_rate"``, NAUC variants — see
        ``beyondchance.outperformance.scoring.SCORING_METRICS``), or a vectorised
        callable ``M(prevalence, alpha, beta, **options)``.
    value : float or array-like
        The observed metric value(s) μ.
    prevalence : float or array-like
        The test set's prevalence π in (0, 1), broadcast against ``value``.
    method : str
        Labeling metrics: ``"auto"`` (closed form for F1, else exact), ``"exact"``
        (area to ≤ 1e-9), ``"closed-form"`` (F1, eq. 7), ``"monte-carlo"``.  Scoring
        metrics: passed on to the scoring module when not ``"auto"``.
    mc_samples : int, optional
        Size of the Monte Carlo reference: random classifiers' (α, β) draws for a labeling
        metric with ``method="monte-carlo"``, Directed-Binary-Tree curves for a scoring
        metric (default: the shipped reference of 114,688 curves).
    random_state : None, int or numpy Generator
        Seed of the Monte Carlo draws (default 0: for a scoring metric the shipped
        reference; None: fresh entropy, as everywhere in the package).
    **options
        Metric options: ``beta`` (F-β), ``greater_is_better`` (callables), or the scoring
        module's options (e.g. the recall or rate of a point metric, the DBT depth).

    Returns
    -------
    OPSResult

    Examples
    --------
    >>> from beyondchance import outperformance_score
    >>> round(outperformance_score("f1", 0.6, 0.1).score, 3)    # F1 = 0.6 is good at π = 0.1 …
    0.958
    >>> round(outperformance_score("f1", 0.6, 0.5).score, 3)    # … and poor at π = 0.5
    0.643
    >>> r = outperformance_score("lift", 4.0, 0.1)   # = OPS of precision 0.4 (linear invariance)
    >>> r.score == outperformance_score("precision", 0.4, 0.1).score
    True
    """
    labeling_method = cast(LabelingMethod, method)  # checked by labeling_outperformance_score
    if isinstance(metric, LabelingMetric) or callable(metric) and not isinstance(metric, str):
        return labeling_outperformance_score(
            metric, value, prevalence, method=labeling_method, mc_samples=mc_samples, random_state=random_state, **options
        )
    if not isinstance(metric, str):
        raise InvalidInputError(
            f"metric must be a metric name or a callable M(prevalence, alpha, beta), got {type(metric).__name__}"
        )
    key = _normalise(metric)
    if _is_labeling_name(key):
        return labeling_outperformance_score(
            metric, value, prevalence, method=labeling_method, mc_samples=mc_samples, random_state=random_state, **options
        )

    module, why = _scoring_module()
    if module is not None and key in tuple(module.SCORING_METRICS):
        kwargs = dict(options)
        if method != "auto":
            kwargs["method"] = method
        if mc_samples is not None:
            kwargs["mc_samples"] = mc_samples
        kwargs["random_state"] = random_state
        return module.scoring_outperformance_score(key, value, prevalence, **kwargs)

    labeling = ", ".join(METRICS)
    if module is not None:
        scoring = ", ".join(module.SCORING_METRICS)
        raise InvalidInputError(
            f"unknown metric {metric!r}; labeling metrics: {labeling}; scoring metrics: {scoring}"
        )
    looks_scoring = key in _EXPECTED_SCORING or "auc" in key or "_at_" in key
    prefix = (
        f"scoring metric {metric!r} is not available ({why})"
        if looks_scoring
        else f"unknown metric {metric!r}"
    )
    raise InvalidInputError(
        f"{prefix}; labeling metrics: {labeling}; scoring metrics "
        f"({', '.join(_EXPECTED_SCORING)}, NAUC variants) need {_SCORING_MODULE}, which is not available"
    )
