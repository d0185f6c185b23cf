"""Figures of a report (matplotlib, object API: no pyplot state, no display needed).

Every function returns a :class:`matplotlib.figure.Figure`; :func:`figure_png_base64`
turns one into an inline ``data:`` URI for the self-contained HTML page.

* :func:`roc_figure` — ROC curve, the constant score's diagonal, the threshold's point;
* :func:`pr_oprc_figure` — precision–recall curve and the OPRC (OPS of precision
  against recall, OPS paper Fig. 4);
* :func:`lift_ops_figure` — lift curve and the OPS(lift) curve (Fig. 6);
* :func:`pa_coverage_figure` — PA–coverage curve (PA paper, section 6);
* :func:`metrics_figure` — advantage and (where a metric has one) OPS of every metric (any task);
* :func:`score_histogram_figure` — the scores of each class (binary scores);
* :func:`compare_figure` — nominal values and OPS across test sets.
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

import numpy as np

from ..formatting import shorten
from .terminal import _has_ops

__all__ = [
    "roc_figure",
    "pr_oprc_figure",
    "lift_ops_figure",
    "pa_coverage_figure",
    "decision_curve_figure",
    "metrics_figure",
    "score_histogram_figure",
    "compare_figure",
    "report_figures",
    "figure_png_base64",
]

_BLUE = "#1f5fa8"
_RED = "#c0392b"
_GREEN = "#2e8b57"
_GREY = "#7f7f7f"
_ORANGE = "#d9822b"
_MAX_POINTS = 2000
#: text artists carrying text from the data (test-set names): shown as given, never as
#: mathtext ($...$) or LaTeX
_LITERAL = {"parse_math": False, "usetex": False}


def _figure(width: float = 6.4, height: float = 4.2, ncols: int = 1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, axes


def figure_png_base64(fig: Any, *, dpi: int = 110) -> str:
    """The figure as a base64 PNG (for ``<img src="data:image/png;base64,...">``)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _thin(*arrays: np.ndarray, max_points: int = _MAX_POINTS) -> tuple[np.ndarray, ...]:
    n = arrays[0].shape[0]
    if n <= max_points:
        return arrays
    idx = np.unique(np.round(np.linspace(0, n - 1, max_points)).astype(np.intp))
    return tuple(a[idx] for a in arrays)


def _point_label(report: Any) -> str:
    return "the given labels" if report.threshold is None else f"threshold {report.threshold:g}"


def _threshold_point(report: Any) -> tuple[float, float, float, float] | None:
    cm = report.confusion
    if cm is None or report.counts is None:
        return None
    tp, fp, fn, tn = cm.binary_counts()
    P, N = tp + fn, fp + tn
    if P <= 0 or N <= 0:
        return None
    q = (tp + fp) / (P + N)
    precision = tp / (tp + fp) if tp + fp > 0 else float("nan")
    return fp / N, tp / P, precision, q


def roc_figure(report: Any):
    """ROC curve with the constant score's diagonal and the threshold's operating point."""
    c = report.curve("roc")
    fig, (ax,) = _figure(5.2, 4.4)
    x, y = _thin(c.x, c.y)
    m = report.metrics.get("roc_auc")
    ax.plot(x, y, color=_BLUE, lw=2, label=f"model (AUC {c.auc():.3f})")
    ax.plot([0, 1], [0, 1], ls="--", color=_GREY, label="constant score (AUC 0.5)")
    pt = _threshold_point(report)
    if pt is not None:
        ax.plot(pt[0], pt[1], "o", color=_ORANGE, ms=7, label=_point_label(report))
    title = "ROC curve"
    if m is not None and m.ops is not None:
        title += f" — OPS(AUC) {m.ops:.3f}"
    ax.set(xlabel="false positive rate α", ylabel="recall 1 − β", xlim=(0, 1), ylim=(0, 1.01), title=title)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def pr_oprc_figure(report: Any, *, levels: Any = None):
    """Precision–recall curve and the OPRC (OPS of precision at 20 recall levels, or ``levels``)."""
    c = report.curve("pr")
    fig, (ax, ax2) = _figure(10.0, 4.2, 2)
    x, y = _thin(c.x, c.y)
    pi = report.prevalence
    ax.plot(x, y, color=_BLUE, lw=2, label=f"model (AP {report.metrics['pr_auc'].value:.3f})"
            if "pr_auc" in report.metrics else "model")
    ax.axhline(pi, ls="--", color=_GREY, label=f"constant score (precision = π = {pi:.3f})")
    pt = _threshold_point(report)
    if pt is not None and math.isfinite(pt[2]):
        ax.plot(pt[1], pt[2], "o", color=_ORANGE, ms=7, label=_point_label(report))
    ax.set(xlabel="recall 1 − β", ylabel="precision", xlim=(0, 1), ylim=(0, 1.02), title="Precision–recall curve")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(alpha=0.3)
    o = report.oprc(levels=levels)
    _ops_panel(ax2, o["x"], o["ops"], o["method"], "recall 1 − β", "OPS(precision)",
               "OPRC: OPS of precision at each recall", report, "precision")
    return fig


def _ops_panel(ax: Any, x: np.ndarray, ops: np.ndarray | None, method: str | None, xlabel: str,
               ylabel: str, title: str, report: Any, fallback_metric: str) -> None:
    if ops is None:
        ax.text(0.5, 0.5, "OPS of this point metric is not available", ha="center", va="center",
                transform=ax.transAxes, color=_GREY)
        ax.set(xlabel=xlabel, ylabel=ylabel, title=title, xlim=(0, 1), ylim=(0, 1.02))
        return
    ax.plot(x, ops, "o-", color=_GREEN, lw=2, ms=4, label="model")
    ax.axhline(0.5, ls=":", color=_GREY, label="median possible classifier")
    ax.set(xlabel=f"{xlabel}\nreference: {method}", ylabel=ylabel, title=title, xlim=(0, 1), ylim=(0, 1.02))
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)


def lift_ops_figure(report: Any, *, levels: Any = None):
    """Lift curve (with the ideal and the constant) and the OPS(lift) curve."""
    c = report.curve("lift")
    fig, (ax, ax2) = _figure(10.0, 4.2, 2)
    x, y = _thin(c.x, c.y)
    pi = report.prevalence
    ax.plot(x[1:], y[1:], color=_BLUE, lw=2, label="model")
    q = np.linspace(max(1e-3, pi / 20), 1, 400)
    ax.plot(q, np.minimum(1 / pi, 1 / q), color=_GREEN, lw=1, ls="-.", label="ideal classifier")
    ax.axhline(1.0, ls="--", color=_GREY, label="constant score (lift 1)")
    ax.set(xlabel="predicted-positive rate q", ylabel="lift = precision / π", xlim=(0, 1),
           ylim=(0, 1.05 / pi), title="Lift curve")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(alpha=0.3)
    o = report.ops_lift(levels=levels)
    _ops_panel(ax2, o["x"], o["ops"], o["method"], "predicted-positive rate q", "OPS(lift)",
               "OPS(lift) curve", report, "lift")
    return fig


def pa_coverage_figure(report: Any):
    """PA against coverage: the most confident predictions kept, BMP re-estimated on them."""
    cov = report.pa_coverage(levels=200)
    fig, (ax,) = _figure(5.2, 4.2)
    ok = np.isfinite(cov.pa)
    ax.plot(cov.coverage[ok], cov.pa[ok], color=_BLUE, lw=2,
            label=f"model (area {cov.area:.3f})" if math.isfinite(cov.area) else "model")
    ax.axhline(0.0, ls="--", color=_GREY, label="covered subset's majority class (PA 0)")
    lo = float(np.nanmin(cov.pa[ok])) if ok.any() else -1.0
    ax.set(xlabel="coverage (share of the most confident predictions kept)", ylabel="prediction advantage",
           xlim=(0, 1), ylim=(min(-0.1, lo - 0.05), 1.02),
           title="PA–coverage (confidence |score − threshold|)")
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def score_histogram_data(report: Any, *, bins: int = 40) -> dict[str, Any]:
    """Histogram of the scores of each class, from the report's score counts (every engine):
    keys ``edges`` (bins + 1), ``positive`` and ``negative`` (each class's share of its
    weight per bin) and the ``threshold``."""
    from ...measures.binary_scores import per_threshold

    scores, pos, neg = per_threshold(report._need_counts("the score histogram"))
    lo, hi = float(scores.min()), float(scores.max())
    if 0.0 <= lo and hi <= 1.0:
        lo, hi = 0.0, 1.0
    elif lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    out = {"edges": edges, "threshold": report.threshold}
    for key, w in (("positive", pos), ("negative", neg)):
        counts = np.histogram(scores, bins=edges, weights=w)[0]
        out[key] = counts / counts.sum() if counts.sum() > 0 else counts
    return out


def score_histogram_figure(report: Any):
    """The scores of each class (share of the class per bin) and the threshold."""
    h = score_histogram_data(report)
    fig, (ax,) = _figure(6.4, 3.6)
    for key, color, label in (("negative", _BLUE, report.negative_label), ("positive", _RED, report.positive_label)):
        ax.stairs(h[key], h["edges"], color=color, lw=1.8, fill=False, label=f"class {shorten(label)} ({key})")
        ax.stairs(h[key], h["edges"], color=color, alpha=0.15, fill=True)
    if h["threshold"] is not None:
        ax.axvline(h["threshold"], color=_GREY, ls="--", label=f"threshold {h['threshold']:g}")
    ax.set(xlabel="score", ylabel="share of the class", title="Scores of each class")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def decision_curve_figure(report: Any):
    """Net benefit with treat-all / treat-none, and the same curve as a prediction advantage."""
    from ...measures.decision_curve import decision_curve_from_counts
    from ...display.decision_curve import DecisionCurveDisplay

    fig, axes = _figure(10.0, 4.2, 2)
    DecisionCurveDisplay(decision_curve_from_counts(report.counts)).plot(axes, advantage=True)
    return fig


def metrics_figure(report: Any):
    """Advantage over the best constant prediction for every metric, and its OPS beside it
    (no OPS panel where no metric has one: regression)."""
    rows = [m for m in report.metrics.values()]
    names = [m.title for m in rows]
    adv = np.array([m.advantage if math.isfinite(m.advantage) else np.nan for m in rows])
    ops = np.array([np.nan if m.ops is None else m.ops for m in rows])
    height = max(2.8, 0.32 * len(rows) + 1.2)
    with_ops = _has_ops(report)
    fig, axes = _figure(10.0 if with_ops else 6.4, height, 2 if with_ops else 1)
    ax = axes[0]
    yy = np.arange(len(rows))[::-1]
    colors = [_GREEN if (math.isfinite(a) and a > 0) else _RED for a in adv]
    ax.barh(yy, np.nan_to_num(adv, nan=0.0), color=colors)
    for y_, a in zip(yy, adv):
        if not math.isfinite(a):
            ax.text(0.01, y_, "undefined", va="center", fontsize=8, color=_GREY)
    ax.axvline(0, color="black", lw=1)
    ax.set_yticks(yy, names, fontsize=8)
    finite = adv[np.isfinite(adv)]
    left = min(-0.1, float(finite.min()) - 0.05) if finite.size else -0.1
    ax.set(xlim=(max(left, -1.5), 1.0), xlabel="advantage: (value − constant) / (perfect − constant)",
           title="Advantage over the best constant prediction")
    ax.grid(axis="x", alpha=0.3)
    if not with_ops:
        return fig
    ax2 = axes[1]
    ax2.barh(yy, np.nan_to_num(ops, nan=0.0), color=_BLUE)
    for y_, o in zip(yy, ops):
        if not math.isfinite(o):
            ax2.text(0.01, y_, "n/a", va="center", fontsize=8, color=_GREY)
    ax2.axvline(0.5, color=_GREY, ls=":", lw=1)
    ax2.set_yticks(yy, [""] * len(rows))
    ax2.set(xlim=(0, 1), xlabel="outperformance score", title="OPS at this prevalence")
    ax2.grid(axis="x", alpha=0.3)
    return fig


def report_figures(report: Any) -> list[tuple[str, str, Any]]:
    """(key, caption, figure) of every plot that applies to the report."""
    out = [("metrics", "Advantage over the best constant prediction and outperformance score of each metric."
            if _has_ops(report) else "Advantage over the best constant prediction of each metric.", metrics_figure)]
    if report.counts is not None and report.counts.is_defined:
        out += [
            ("roc", "ROC curve; the dashed diagonal is a constant score.", roc_figure),
            ("pr", "Precision–recall curve (the dashed line is a constant score: precision = prevalence) "
                   "and the OPRC, the OPS of the precision at 20 recall levels (OPS paper, Fig. 4).",
             pr_oprc_figure),
            ("lift", "Lift curve with the ideal classifier and the OPS(lift) curve (OPS paper, Fig. 6).",
             lift_ops_figure),
            ("pa_coverage", "PA–coverage curve: at each coverage the most confident predictions are kept "
                            "and the baseline (majority class) is re-estimated on them (PA paper, section 6).",
             pa_coverage_figure),
            ("score_histogram", "Scores of each class: the share of the class's rows (weight) in each bin; "
                                "the dashed line is the threshold.", score_histogram_figure),
        ]
        if report.counts.thresholds[-1] >= 0 and report.counts.thresholds[0] <= 1:  # probabilities
            out.append(("decision_curve", "Decision curve: net benefit of treating when the predicted probability "
                                          "is at least the threshold probability, against treat-all and treat-none "
                                          "(Vickers & Elkin 2006); right: the same as a prediction advantage under "
                                          "the cost-weighted 0/1 loss, 0 = the better constant strategy.",
                        decision_curve_figure))
    if report.threshold is None:  # labels given with the scores: no confidence |score − threshold|
        out = [item for item in out if item[0] != "pa_coverage"]
    return [(key, caption, func(report)) for key, caption, func in out]


def _expected_band(ax: Any, comparison: Any, name: str, x: np.ndarray) -> None:
    """What the reference classifier would score at each set's prevalence, with its interval
    as a band (the reference: its own value)."""
    exp, lo, hi = (np.full(x.shape, np.nan) for _ in range(3))
    for i, r in enumerate(comparison.reports):
        if r.name == comparison.reference and name in r.metrics:
            exp[i] = lo[i] = hi[i] = r.metrics[name].value
            continue
        c = comparison.change(r.name, name)
        if c is not None and c.decomposition is not None:
            exp[i] = c.expected_value
            if c.expected_ci is not None:
                lo[i], hi[i] = c.expected_ci
    if not any(c.decomposition is not None and c.metric == name for c in comparison.changes):
        return
    ax.fill_between(x, lo, hi, color=_GREY, alpha=0.35, lw=0, label="reference classifier at this prevalence")
    ax.plot(x, exp, "d:", color="#555555", lw=1.2, ms=4)


def _compare_metrics(comparison: Any) -> tuple[str, ...]:
    """The metrics a comparison's figure shows by default: up to three, the focus first."""
    prefer = [comparison.focus, "f1", "pr_auc", "prediction_advantage", "mcc", "accuracy", "r2"]
    return tuple(dict.fromkeys(m for m in prefer if m and m in comparison.metric_names))[:3]


def _ops_bound(r: Any, name: str, side: int) -> float:
    """One bound (0: lower, 1: upper) of a report's OPS interval of a metric (NaN: none)."""
    return np.nan if name not in r.metrics or r.metrics[name].ops_ci is None else r.metrics[name].ops_ci[side]


def _flag_marks(ax: Any, comparison: Any, name: str, x: np.ndarray, vals: np.ndarray) -> None:
    """The flags (the classifier effect: ▲ / ▼) under each set's nominal value."""
    for xi, r in zip(x, comparison.reports):  # the flags: the classifier effect, at the nominal value
        flag = comparison.flag(r.name, name)
        if flag and np.isfinite(vals[xi]):
            ax.annotate(flag, (xi, vals[xi]), textcoords="offset points", xytext=(0, -14),
                        ha="center", color=_GREEN if flag == "▲" else _RED, fontsize=12)


def _ops_line(ax: Any, reports: Any, name: str, title: str, x: np.ndarray, ops: np.ndarray) -> None:
    """The OPS of a metric across the sets, with its intervals as error bars (nothing without an OPS)."""
    if not np.isfinite(ops).any():
        return
    lo = np.array([_ops_bound(r, name, 0) for r in reports])
    hi = np.array([_ops_bound(r, name, 1) for r in reports])
    ax.plot(x, ops, "s--", color=_GREEN, lw=2, label=f"OPS({title})")
    ok = np.isfinite(lo) & np.isfinite(hi)
    if ok.any():
        ax.errorbar(x[ok], ops[ok], yerr=[ops[ok] - lo[ok], hi[ok] - ops[ok]], fmt="none",
                    ecolor=_GREEN, capsize=3, lw=1)


def _panel_limits(vals: np.ndarray, ops: np.ndarray) -> tuple[float, float]:
    """The y range of a metric's panel: [0, 1] widened to every finite value and OPS (with a margin)."""
    finite = np.concatenate([vals[np.isfinite(vals)], ops[np.isfinite(ops)]])
    low = min(0.0, float(finite.min()) - 0.05) if finite.size else 0.0
    high = max(1.0, float(finite.max()) + 0.05) if finite.size else 1.0
    return low, high


def _metric_panel(ax: Any, comparison: Any, name: str, x: np.ndarray) -> None:
    """One metric's panel: its nominal value, the reference classifier's expected band, the flags and the OPS."""
    reports = comparison.reports
    vals = np.array([r.metrics[name].value if name in r.metrics else np.nan for r in reports])
    ops = np.array([np.nan if name not in r.metrics or r.metrics[name].ops is None else r.metrics[name].ops
                    for r in reports])
    title = reports[0].metrics[name].title.split(" (")[0]
    ax.plot(x, vals, "o-", color=_BLUE, lw=2, label=f"nominal {title}")
    _expected_band(ax, comparison, name, x)
    _flag_marks(ax, comparison, name, x, vals)
    _ops_line(ax, reports, name, title, x, ops)
    ax.set(title=title, ylim=_panel_limits(vals, ops))
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)


def compare_figure(comparison: Any, *, metrics: tuple[str, ...] | None = None):
    """Prevalence, nominal value and OPS (with its interval) of a few metrics across test sets, and
    (binary tasks) what the reference classifier would score at each set's prevalence (a band)."""
    reports = comparison.reports
    names = [str(r.name) for r in reports]
    if metrics is None:
        metrics = _compare_metrics(comparison)
    prev = [np.nan if r.prevalence is None else r.prevalence for r in reports]
    with_prevalence = bool(np.isfinite(prev).any())  # no empty panel where no set has one (regression)
    n = len(metrics) + with_prevalence
    fig, axes = _figure(4.0 * n, 3.8, n)
    x = np.arange(len(reports))
    if with_prevalence:
        axes[0].bar(x, prev, color=_GREY)
        axes[0].set(title="Prevalence", ylim=(0, max(0.05, np.nanmax(prev) * 1.2)))
    for ax, name in zip(axes[int(with_prevalence):], metrics):
        _metric_panel(ax, comparison, name, x)
    tilted = len(names) > 4
    for ax in axes:
        ax.set_xticks(x, [shorten(n) for n in names], rotation=45 if tilted else 0,
                      ha="right" if tilted else "center", fontsize=8, **_LITERAL)
    return fig
