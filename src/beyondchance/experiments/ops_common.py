"""Helpers shared by the OPS reproductions: OPS of scoring metrics over the Directed
Binary Tree (DBT) reference with a quick/full sample size, and the OPRC / OPS(lift)
curves (:mod:`beyondchance.outperformance.curves`) as one table.

Scoring OPS are computed in as few calls as possible: one call with arrays of values,
prevalences and ``at`` computes every missing reference in one pass over the DBT curves
(:mod:`beyondchance.outperformance.scoring`), so the experiments collect their values
first and score them together.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pandas as pd

from ..outperformance import outperformance_score

__all__ = ["QUICK_MC_SAMPLES", "scoring_available", "default_mc_samples", "scoring_ops", "ops_curves"]

#: DBT reference curves per OPS in quick mode (4 chunks of 4096; standard error ≤ 0.004);
#: full mode uses the scoring module's default (114,688; standard error ≤ 0.0015)
QUICK_MC_SAMPLES = 16_384


def scoring_available() -> bool:
    """Whether the DBT scoring module is importable."""
    try:
        importlib.import_module("beyondchance.outperformance.scoring")
    except ModuleNotFoundError as exc:
        if exc.name == "beyondchance.outperformance.scoring":
            return False
        raise
    return True


def default_mc_samples(quick: bool) -> int:
    """Number of DBT reference curves per OPS: fewer in quick mode."""
    if not quick and scoring_available():
        from ..outperformance.scoring import DEFAULT_MC_SAMPLES

        return int(DEFAULT_MC_SAMPLES)
    return QUICK_MC_SAMPLES


def scoring_ops(metric: str, value: Any, prevalence: Any, *, at: Any = None, quick: bool = False,
                seed: int = 0, mc_samples: int | None = None, **options: Any) -> tuple[Any, Any]:
    """(OPS, Monte Carlo standard error) of a scoring metric, broadcast over value,
    prevalence and ``at``; nan where the value is nan or the scoring module is missing."""
    v, p = np.broadcast_arrays(np.asarray(value, dtype=float), np.asarray(prevalence, dtype=float))
    if at is not None:
        v, p, a = np.broadcast_arrays(v, p, np.asarray(at, dtype=float))
    scalar = v.ndim == 0
    score = np.full(v.shape, np.nan)
    se = np.full(v.shape, np.nan)
    ok = np.isfinite(v) & np.isfinite(p)
    if scoring_available() and ok.any():
        if at is not None:
            options["at"] = a[ok]
        # quick mode: π exactly (one reference array per distinct (π, at), half the work of
        # a grid bracket for a one-off run); full mode: the library's logit-π grid (error
        # ≤ 0.0006, below the Monte Carlo error), whose brackets are shared by nearby
        # prevalences across repetitions and keep the on-disk cache bounded
        options.setdefault("interpolate", not quick)
        r = outperformance_score(metric, v[ok], p[ok], random_state=seed,
                                 mc_samples=mc_samples or default_mc_samples(quick), **options)
        score[ok] = r.score
        se[ok] = r.standard_error
    if scalar:
        return float(score), float(se)
    return score, se


def ops_curves(y_true: Any, y_score: Any, *, mc_samples: int, seed: int) -> pd.DataFrame:
    """The OPRC and the OPS(lift) curve at the library's 20 default levels, as one frame
    (columns curve, x, y, ops, se_ops, prevalence)."""
    from ..outperformance.curves import ops_lift_curve, ops_precision_recall_curve

    frames = []
    for c in (ops_precision_recall_curve(y_true, y_score, mc_samples=mc_samples, random_state=seed),
              ops_lift_curve(y_true, y_score, mc_samples=mc_samples, random_state=seed)):
        frames.append(pd.DataFrame({"curve": c.kind, "x": c.x, "y": c.y, "ops": c.ops,
                                    "se_ops": c.standard_error, "prevalence": c.prevalence}))
    return pd.concat(frames, ignore_index=True)
