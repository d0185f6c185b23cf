r"""OPS paper, Figs. 1 and 3: the OPS functions of F1, of AUC(PRC) and of precision at a
fixed recall, and how they move with the prevalence π.

``ops-figure1``
    Fig. 1 (section 3.2, Example 2): the (α, β) unit square at π = 0.1 and π = 0.5 with
    the straight line F1(π, α, β) = μ (μ = 0.6) and the region it beats shaded — its
    area is OPS_f1(μ; π) — and, panel (c), OPS_f1 against μ for several π (eq. 7).
``ops-figure3``
    Fig. 3 (section 3.3, Example 3): OPS of AUC(PRC) and of precision at recall 0.8
    against μ for π = 0.1, …, 0.5, over the Directed-Binary-Tree reference curves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..measures.registry import get_metric
from ..outperformance.labeling import f1_outperformance_closed_form, labeling_outperformance_score
from . import paper_values_ops as paper
from .registry import ExperimentContext, ExperimentResult, comparison_table, register

__all__ = ["run_figure1", "run_figure3"]

_PAPER = "Outperformance Score (Zhao, Bui, Yu & Dzieciolowski)"
#: the F1 value drawn in panels (a)–(b) (Example 1's "f1 = 0.6")
_MU_GEOMETRY = 0.6
#: prevalences of panel (c)
_PI_CURVES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)


def _f1_geometry(pi: float, mu: float, grid: int) -> dict[str, float]:
    """Area of {F1(π, α, β) < μ} measured on a midpoint grid of the unit square."""
    g = (np.arange(grid) + 0.5) / grid
    a, b = np.meshgrid(g, g, indexing="xy")
    f1 = get_metric("f1").from_rates(pi, a, b)
    beaten = np.nan_to_num(f1, nan=np.inf) < mu
    tpc = float(get_metric("f1").from_rates(pi, 1.0, 0.0))  # trivial positive classifier (α, β) = (1, 0)
    return {
        "prevalence": pi,
        "mu": mu,
        "area_grid": float(beaten.mean()),
        "grid_cells": grid * grid,
        "ops_closed_form": float(f1_outperformance_closed_form(mu, pi)),
        "ops_exact": float(labeling_outperformance_score("f1", mu, pi, method="exact").score),
        "tpc_f1": tpc,
        "tpc_beaten": bool(tpc < mu),
        # the boundary line F1 = μ: 2π(1−β) = μ(π(2−β) + (1−π)α)  ⇔  β = (2π − μ(2π + (1−π)α)) / (π(2 − μ))
        "boundary_beta_at_alpha0": (2 * pi - mu * 2 * pi) / (pi * (2 - mu)),
        "boundary_beta_at_alpha1": (2 * pi - mu * (2 * pi + (1 - pi))) / (pi * (2 - mu)),
    }


def _plot_figure1(geometry: pd.DataFrame, curves: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    g = np.linspace(0, 1, 401)
    a, b = np.meshgrid(g, g, indexing="xy")
    for ax, (_, row) in zip(axes[:2], geometry.iterrows()):
        pi, mu = row["prevalence"], row["mu"]
        f1 = get_metric("f1").from_rates(pi, a, b)
        beaten = np.where(np.nan_to_num(f1, nan=np.inf) < mu, 1.0, np.nan)
        ax.contourf(a, b, beaten, levels=[0.5, 1.5], colors=["tab:red"], alpha=0.3)
        ax.plot(g, (2 * pi - mu * (2 * pi + (1 - pi) * g)) / (pi * (2 - mu)), color="tab:red", lw=2,
                label=f"f1 = {mu:g}")
        for other in (0.2, 0.4, 0.8):
            ax.plot(g, (2 * pi - other * (2 * pi + (1 - pi) * g)) / (pi * (2 - other)), color="grey", lw=0.8, ls=":")
        ax.plot([1], [0], "ko", ms=7, clip_on=False)
        ax.annotate(f"TPC: f1 = {row['tpc_f1']:.4f}", (1, 0), xytext=(0.52, 0.06), fontsize=9)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("Type-I error α")
        ax.set_ylabel("Type-II error β")
        ax.set_title(f"({'ab'[int(pi == 0.5)]}) π = {pi:g}: OPS_f1({mu:g}) = {row['ops_closed_form']:.3f}\n"
                     "(shaded: performances beaten)", fontsize=10)
        ax.legend(loc="upper right", fontsize=8)
    ax = axes[2]
    for pi, part in curves.groupby("prevalence"):
        ax.plot(part["mu"], part["ops"], label=f"π = {pi:g}")
    ax.axvline(_MU_GEOMETRY, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("f1 score μ")
    ax.set_ylabel("OPS_f1(μ; π)")
    ax.set_title("(c) OPS function of f1 for several π", fontsize=10)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


@register("ops-figure1", "OPS paper Fig. 1: geometry and OPS function of f1", _PAPER + ", Fig. 1 (section 3.2)")
def run_figure1(ctx: ExperimentContext) -> ExperimentResult:
    """Fig. 1: the region of the (α, β) square that F1 = 0.6 beats at π = 0.1 and 0.5,
    and OPS_f1 against μ for several π (eq. 7, checked against the exact area)."""
    grid = 1000 if ctx.quick else 4000
    geometry = pd.DataFrame([_f1_geometry(pi, _MU_GEOMETRY, grid) for pi in (0.1, 0.5)])

    mu = np.linspace(0.0, 1.0, 201)
    rows = []
    for pi in ctx.track(_PI_CURVES, "OPS_f1 curves"):
        closed = f1_outperformance_closed_form(mu, pi)
        exact = labeling_outperformance_score("f1", mu, pi, method="exact").score
        rows.append(pd.DataFrame({"prevalence": pi, "mu": mu, "ops": closed, "ops_exact": exact,
                                  "tpc_f1": 2 * pi / (1 + pi)}))
    curves = pd.concat(rows, ignore_index=True)

    ops06 = {pi: float(f1_outperformance_closed_form(_MU_GEOMETRY, pi)) for pi in _PI_CURVES}
    max_dev_exact = float(np.max(np.abs(curves["ops"] - curves["ops_exact"])))
    grid_err = float(np.max(np.abs(geometry["area_grid"] - geometry["ops_closed_form"])))
    row01, row05 = geometry.iloc[0], geometry.iloc[1]

    comparison = comparison_table([
        {"quantity": "f1 of the trivial positive classifier, π = 0.5 (Example 1)",
         "paper": paper.TEXT_CLAIMS["tpc_f1_pi_0.5"], "ours": row05["tpc_f1"], "tolerance": 5e-5},
        {"quantity": "f1 of the trivial positive classifier, π = 0.1 (Example 1)",
         "paper": paper.TEXT_CLAIMS["tpc_f1_pi_0.1"], "ours": row01["tpc_f1"], "tolerance": 5e-5},
    ])
    claims = {
        "Eq. 7 (closed form) equals the exact area of {f1 < μ} on the whole μ grid (≤ 1e-9)": max_dev_exact <= 1e-9,
        f"The boundary f1 = μ is a straight line in (α, β) and the shaded area equals OPS_f1 "
        f"(grid of {grid}² cells, |area − OPS| ≤ 2/{grid})": grid_err <= 2.0 / grid,
        "At π = 0.1, f1 = 0.6 beats the trivial positive classifier (TPC in the beaten region)": bool(row01["tpc_beaten"]),
        "At π = 0.5, f1 = 0.6 does not beat the trivial positive classifier": not bool(row05["tpc_beaten"]),
        "For f1 = 0.6 the OPS increases as π decreases (Fig. 1c)": bool(
            np.all(np.diff([ops06[p] for p in sorted(ops06)]) < 0)),
        "Each OPS_f1(·; π) is non-decreasing in μ, from 0 at μ = 0 to 1 at μ = 1": bool(
            all(np.all(np.diff(part["ops"].to_numpy()) >= -1e-12) and abs(part["ops"].iloc[0]) < 1e-12
                and abs(part["ops"].iloc[-1] - 1) < 1e-12 for _, part in curves.groupby("prevalence"))),
    }
    notes = [
        f"OPS_f1(0.6; π) for π = {', '.join(f'{p:g}' for p in _PI_CURVES)}: "
        + ", ".join(f"{ops06[p]:.4f}" for p in _PI_CURVES) + ".",
        f"Largest |eq. 7 − exact area| over {len(curves)} (μ, π) pairs: {max_dev_exact:.2e}; "
        f"largest |grid area − eq. 7| in panels (a)-(b): {grid_err:.2e}.",
        "The paper prints no numbers for Fig. 1 beyond Example 1's trivial-classifier f1 values; "
        "the figure is compared by shape (the shaded region at π = 0.1 contains the TPC corner (1, 0), "
        "at π = 0.5 it does not).",
        "Axes: x = Type-I error α, y = Type-II error β, so 'better' (higher f1) lies to the lower left.",
    ]
    return ExperimentResult(
        "ops-figure1", "OPS paper Fig. 1",
        tables={"figure1_geometry": geometry, "figure1_ops_f1_curves": curves},
        figures={"figure1": _plot_figure1(geometry, curves)},
        comparison=comparison, claims=claims, notes=notes,
    )


# =====================================================================================
# Fig. 3
# =====================================================================================

_PI_FIG3 = (0.1, 0.2, 0.3, 0.4, 0.5)
_RECALL_FIG3 = 0.8


def _plot_figure3(frame: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    for ax, (metric, title, xlabel) in zip(axes, [
        ("pr_auc", "(a) OPS of AUC(PRC)", "AUC(PRC) μ"),
        ("precision_at_recall", f"(b) OPS of precision | recall = {_RECALL_FIG3:g}", "precision μ"),
    ]):
        part = frame[frame["metric"] == metric]
        for pi, curve in part.groupby("prevalence"):
            ax.plot(curve["mu"], curve["ops"], label=f"π = {pi:g}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("OPS")
        ax.set_title(title, fontsize=10)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.01)
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


@register("ops-figure3", "OPS paper Fig. 3: OPS of AUC(PRC) and of precision | recall = 0.8",
          _PAPER + ", Fig. 3 and Example 3 (section 3.3)")
def run_figure3(ctx: ExperimentContext) -> ExperimentResult:
    """Fig. 3: OPS of AUC(PRC) and of precision at recall 0.8 against μ for π = 0.1 … 0.5,
    Monte Carlo over Directed-Binary-Tree reference curves."""
    from .ops_common import default_mc_samples, scoring_available, scoring_ops

    mu = np.round(np.linspace(0.0, 1.0, 51 if ctx.quick else 201), 10)
    frames = []
    for pi in ctx.track(_PI_FIG3, "DBT OPS curves"):
        for metric, at in (("pr_auc", None), ("precision_at_recall", _RECALL_FIG3)):
            ops, se = scoring_ops(metric, mu, np.full(mu.shape, pi), at=at, quick=ctx.quick, seed=ctx.seed)
            frames.append(pd.DataFrame({"metric": metric, "at": at if at is not None else np.nan, "prevalence": pi,
                                        "mu": mu, "ops": ops, "se_ops": se}))
    frame = pd.concat(frames, ignore_index=True)

    def ops_at(metric: str, value: float, pi: float) -> tuple[float, float]:
        at = _RECALL_FIG3 if metric == "precision_at_recall" else None
        return scoring_ops(metric, value, pi, at=at, quick=ctx.quick, seed=ctx.seed)

    auc06 = {pi: ops_at("pr_auc", 0.6, pi) for pi in _PI_FIG3}
    prec05 = {pi: ops_at("precision_at_recall", 0.5, pi) for pi in _PI_FIG3}
    # the paper prints whole percentages: ±0.005 rounding plus 3 Monte Carlo standard errors
    tol_auc = 0.005 + 3 * float(auc06[0.1][1])
    tol_prec = 0.005 + 3 * float(prec05[0.1][1])
    comparison = comparison_table([
        {"quantity": "OPS of AUC(PRC) = 0.6 at π = 0.1 (Example 3: 'outperforms 96%')",
         "paper": paper.TEXT_CLAIMS["ops_pr_auc_0.6_pi_0.1"], "ours": auc06[0.1][0], "tolerance": tol_auc,
         "mc_se": auc06[0.1][1]},
        {"quantity": "OPS of precision = 0.5 at recall 0.8, π = 0.1 (Fig. 3b: 'beating 97%')",
         "paper": paper.TEXT_CLAIMS["ops_precision_0.5_at_recall_0.8_pi_0.1"], "ours": prec05[0.1][0],
         "tolerance": tol_prec, "mc_se": prec05[0.1][1]},
    ])
    claims: dict[str, bool] = {}
    notes = [
        "Reference: Monte Carlo over Directed Binary Tree curves (section 3.3) with "
        f"{default_mc_samples(ctx.quick) or 'the library default number of'} curves per OPS (seed {ctx.seed}); AUC(PRC) "
        "is average precision for the reference curves as for a classifier's curve; precision at a recall "
        "interpolates (α, β) linearly (eq. 9).",
        "OPS(AUC(PRC) = 0.6) for π = " + ", ".join(f"{p:g}: {auc06[p][0]:.4f}" for p in _PI_FIG3) + ".",
        "OPS(precision = 0.5 | recall 0.8) for π = " + ", ".join(f"{p:g}: {prec05[p][0]:.4f}" for p in _PI_FIG3) + ".",
    ]
    if scoring_available():
        claims[f"At π = 0.1 an AUC(PRC) of 0.6 outperforms 96% of classifiers (ours {auc06[0.1][0]:.3f}, "
               f"tolerance ±{tol_auc:.3f})"] = bool(comparison["within"].iloc[0])
        claims[f"At π = 0.1 and recall 0.8, precision 0.5 beats 97% of classifiers (ours {prec05[0.1][0]:.3f}, "
               f"tolerance ±{tol_prec:.3f})"] = bool(comparison["within"].iloc[1])
        claims["For AUC(PRC) = 0.6 the OPS increases as the data become more imbalanced (π 0.5 → 0.1)"] = bool(
            np.all(np.diff([auc06[p][0] for p in _PI_FIG3]) < 0))
        claims["For precision 0.5 at recall 0.8 the OPS increases as π decreases"] = bool(
            np.all(np.diff([prec05[p][0] for p in _PI_FIG3]) < 0))
        claims["Each OPS curve is non-decreasing in μ (same reference sample for every μ)"] = bool(all(
            np.all(np.diff(g["ops"].to_numpy()) >= -1e-12) for _, g in frame.groupby(["metric", "prevalence"])))
    else:
        notes.append("The DBT scoring module (beyondchance.outperformance.scoring) is not available: OPS left blank.")
    return ExperimentResult(
        "ops-figure3", "OPS paper Fig. 3",
        tables={"figure3_ops_curves": frame},
        figures={"figure3": _plot_figure3(frame)},
        comparison=comparison, claims=claims, notes=notes,
    )
