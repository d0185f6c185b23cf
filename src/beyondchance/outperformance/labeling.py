r"""Outperformance score of labeling metrics (OPS paper, section 3.2, eqs. 6–7).

A labeling metric M is a function of one confusion matrix.  Re-parametrised as
(n, π, α, β) — prevalence π, Type-I error α = FP/(FP+TN), Type-II error
β = FN/(TP+FN) — with the counts (n = 1)

.. math::

    TP = \pi(1-\beta),\quad FN = \pi\beta,\quad FP = (1-\pi)\alpha,\quad TN = (1-\pi)(1-\alpha),

its outperformance score at the value μ is the share of all possible classifiers
(A, B ~ Uniform[0, 1] independent) that the value μ beats (eq. 6):

.. math::

    \mathrm{OPS}_M(\mu; \pi) = \Pr\{M(\pi, A, B) < \mu\}
        = \int_0^1\!\!\int_0^1 \mathbb 1\{M(\pi, \alpha, \beta) < \mu\}\,d\alpha\,d\beta ,

with the inequality flipped (``M > μ``) for lower-is-better metrics (error, FPR,
FNR).  **Ties:** the inequality is strict, as in the paper: a reference classifier
scoring exactly μ is not counted as beaten.  For the built-in metrics the level set
{M = μ} has area zero, so this matters only for a user's metric that is constant on
a region (an atom of the reference distribution), where OPS jumps at that value.
Points where M is undefined (0/0, e.g. precision at α = 0, β = 1) are never counted
as beaten; for every built-in they form a set of area zero.

Three ways to compute it:

``"closed-form"``
    F1 only, the paper's eq. 7: with c = 2π/(1+π) and t = (1+π)μ / (2π(2−μ)),
    OPS = t if μ ≤ c, else t − ((1+π)μ − 2π)² / (2π(1−π)μ(2−μ)).
``"exact"``
    The area to ≤ 1e-9, vectorised over (μ, π) pairs.  Every built-in metric is
    non-increasing in α for fixed β (and in β for fixed α) — worse errors never give a
    better score, checked numerically in the tests — so for each β the beaten set is
    an interval α > α*(β).  For 16 metrics the boundary is a straight line in (α, β)
    (the metric is a ratio of functions linear in α and β, so {M < μ} is a half-plane)
    and the area of a half-plane in the unit square is exact (the distribution of
    w_a·A + w_b·B is trapezoidal); G-mean's boundary α* = 1 − μ²/(1−β) integrates to
    μ²(1 − 2 ln μ); for MCC and markedness α*(β) is a root of a quadratic in the
    predicted-positive rate q, integrated by Gauss–Legendre quadrature between the
    points where the boundary leaves the square, after a change of variable that
    removes the square-root singularity of the discriminant (12 nodes, error
    estimated against 8 nodes; a pair whose estimate exceeds 1e-10 is recomputed
    with :func:`scipy.integrate.quad`).  Metrics without an analytic boundary (a
    user's vectorised callable ``M(prevalence, alpha, beta)``) take the general
    path: for each β the set {α : M < μ} is located on a grid of α and its ends are
    refined with :func:`scipy.optimize.brentq` (non-monotone metrics give several
    intervals), and the length is integrated over β with :func:`scipy.integrate.quad`,
    split at the β where the boundary meets α = 0 or α = 1.
``"monte-carlo"``
    The share of ``mc_samples`` uniform (α, β) draws that μ beats, with its standard
    error √(OPS(1 − OPS)/n).  The same draws serve every pair (common random numbers);
    the metric is evaluated once per distinct prevalence and all values at that
    prevalence are counted by one sorted search.

Every analytic boundary is derived from the metric's definition on the counts; the
tests check each one against :meth:`~beyondchance.measures.registry.LabelingMetric.from_rates`
(residual at the boundary, a brute-force grid and the general quadrature path).

**Linear invariance** (section 3.1): if M₂ = a·M₁ + b with a > 0 (a, b may depend on
π) then OPS_M₂(aμ + b; π) = OPS_M₁(μ; π) — lift = precision/π, informedness =
2·balanced accuracy − 1, error = 1 − accuracy (lower is better) score alike.

>>> from beyondchance.outperformance.labeling import labeling_outperformance_score
>>> r = labeling_outperformance_score("f1", 0.408, 0.091)   # OPS paper, Table 5
>>> round(r.score, 3), r.method
(0.892, 'closed-form')
>>> round(labeling_outperformance_score("mcc", 0.348, 0.091).score, 3)
0.874
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Literal

import numpy as np
from numpy.polynomial.legendre import leggauss
from scipy import integrate, optimize

from .._validation import as_float, check_prevalence
from .._warnings import InvalidInputError
from ..measures.registry import LabelingMetric, get_metric
from .result import OPSResult

__all__ = [
    "LabelingMethod",
    "labeling_outperformance_score",
    "f1_outperformance_closed_form",
    "DEFAULT_MC_SAMPLES",
]

LabelingMethod = Literal["auto", "exact", "closed-form", "monte-carlo"]

#: Monte Carlo sample size when none is given.
DEFAULT_MC_SAMPLES = 100_000

_METHODS = ("auto", "exact", "closed-form", "monte-carlo")
_CLOSED_FORMS = ("f1",)
#: pairs per block in the vectorised exact path (bounds the memory of the node arrays)
_BLOCK = 1 << 16
#: estimated quadrature error above which a pair is recomputed with scipy's quad
_GL_TOL = 1e-10
_QUAD_EPSABS = 1e-12


def _reference(greater_is_better: bool) -> str:
    event = "M(pi, A, B) < value" if greater_is_better else "M(pi, A, B) > value (lower is better)"
    return f"uniform (alpha, beta) on [0, 1]^2; OPS = Pr{{{event}}}"


# --- closed form of the paper -------------------------------------------------------


def f1_outperformance_closed_form(value: Any, prevalence: Any) -> Any:
    r"""OPS of the F1 score, the paper's closed form (OPS paper, Example 2, eq. 7).

    .. math::

        c = \frac{2\pi}{1+\pi},\quad t = \frac{(1+\pi)\mu}{2\pi(2-\mu)},\qquad
        \mathrm{OPS}_{f1}(\mu;\pi) = \begin{cases} t, & \mu \le c\\
        t - \dfrac{((1+\pi)\mu - 2\pi)^2}{2\pi(1-\pi)\mu(2-\mu)}, & \mu > c\end{cases}

    No input checks (see :func:`labeling_outperformance_score`); vectorised.

    >>> round(float(f1_outperformance_closed_form(0.6, 0.1)), 4)
    0.9577
    >>> round(float(f1_outperformance_closed_form(0.6, 0.5)), 4)
    0.6429
    """
    mu = np.asarray(value, dtype=np.float64)
    p = np.asarray(prevalence, dtype=np.float64)
    c = 2 * p / (1 + p)
    t = (1 + p) * mu / (2 * p * (2 - mu))
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = ((1 + p) * mu - 2 * p) ** 2 / (2 * p * (1 - p) * mu * (2 - mu))
    out = np.where(mu <= c, t, t - corr)
    out = np.clip(out, 0.0, 1.0)
    return out[()] if out.ndim == 0 else out


# --- exact areas: half-planes -------------------------------------------------------


def _halfplane_area(wa: Any, wb: Any, c: Any) -> np.ndarray:
    r"""Area of {(α, β) ∈ [0, 1]² : w_a α + w_b β > c} for w_a, w_b ≥ 0.

    S = w_a A + w_b B with A, B uniform has the trapezoidal CDF (lo ≤ hi the weights)
    F(c) = c²/(2·lo·hi) on [0, lo], (c − lo/2)/hi on [lo, hi],
    1 − (lo + hi − c)²/(2·lo·hi) on [hi, lo + hi]; the area is 1 − F(c).
    """
    wa, wb, c = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (wa, wb, c)))
    lo = np.minimum(wa, wb)
    hi = np.maximum(wa, wb)
    with np.errstate(divide="ignore", invalid="ignore"):
        f_low = c * c / (2 * lo * hi)
        f_mid = (c - lo / 2) / hi
        f_high = 1 - (lo + hi - c) ** 2 / (2 * lo * hi)
    cdf = np.where(
        c <= 0,
        0.0,
        np.where(c >= lo + hi, 1.0, np.where(c <= lo, f_low, np.where(c <= hi, f_mid, f_high))),
    )
    # both weights zero: S = 0, Pr{0 > c}
    cdf = np.where(hi == 0, (c >= 0).astype(np.float64), cdf)
    return np.clip(1.0 - cdf, 0.0, 1.0)


def _fbeta_plane(mu, p, beta=1.0):
    # (1+b²)TP < μ((1+b²)TP + b²FN + FP), TP = π(1−β), FN = πβ, FP = (1−π)α
    b2 = np.square(np.asarray(beta, dtype=np.float64))
    k = (1 + b2) * p
    return mu * (1 - p), mu * b2 * p + (1 - mu) * k, (1 - mu) * k


def _kappa_plane(mu, p):
    # κ = 2π(1−π)(1−α−β) / ((1−2π)q + π),  q = π(1−β) + (1−π)α  (denominator > 0)
    return (1 - p) * (2 * p + mu * (1 - 2 * p)), p * (2 * (1 - p) - mu * (1 - 2 * p)), 2 * p * (1 - p) * (1 - mu)


def _precision_plane(mu, p):
    # π(1−β) < μ(π(1−β) + (1−π)α)
    return mu * (1 - p), (1 - mu) * p, (1 - mu) * p


def _npv_plane(mu, p):
    # (1−π)(1−α) < μ((1−π)(1−α) + πβ)
    return (1 - mu) * (1 - p), mu * p, (1 - mu) * (1 - p)


def _pa_plane(mu, p):
    # 1 − ((1−π)α + πβ)/min(π, 1−π) < μ
    return 1 - p, p, (1 - mu) * np.minimum(p, 1 - p)


def _ones(x):
    return np.ones_like(x)


def _zeros(x):
    return np.zeros_like(x)


#: name → (μ, π, **options) ↦ (w_a, w_b, c): the beaten set is {w_a α + w_b β > c}
_HALFPLANES: dict[str, Callable[..., tuple[Any, Any, Any]]] = {
    "accuracy": lambda mu, p: (1 - p, p, 1 - mu),
    "error": lambda mu, p: (1 - p, p, mu),
    "recall": lambda mu, p: (_zeros(mu), _ones(mu), 1 - mu),
    "specificity": lambda mu, p: (_ones(mu), _zeros(mu), 1 - mu),
    "fpr": lambda mu, p: (_ones(mu), _zeros(mu), mu),
    "fnr": lambda mu, p: (_zeros(mu), _ones(mu), mu),
    "precision": _precision_plane,
    "lift": lambda mu, p: _precision_plane(mu * p, p),
    "npv": _npv_plane,
    "f1": lambda mu, p: _fbeta_plane(mu, p, 1.0),
    "fbeta": _fbeta_plane,
    "balanced_accuracy": lambda mu, p: (_ones(mu), _ones(mu), 2 - 2 * mu),
    "informedness": lambda mu, p: (_ones(mu), _ones(mu), 1 - mu),
    "kappa": _kappa_plane,
    "pure_accuracy": _kappa_plane,  # binary pure accuracy = Cohen's κ
    "kappa_linear": _kappa_plane,  # weighted κ of two classes = Cohen's κ
    "kappa_quadratic": _kappa_plane,
    "prediction_advantage": _pa_plane,
}


def _g_mean_area(mu, p):
    # √((1−α)(1−β)) < μ  ⟺  α > 1 − μ²/(1−β);  ∫₀¹ min(1, μ²/(1−β)) dβ = μ²(1 − 2 ln μ)
    mu = np.asarray(mu, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = mu * mu * (1 - 2 * np.log(mu))
    return np.clip(np.where(mu > 0, out, 0.0), 0.0, 1.0)


# --- exact areas: quadratic boundaries (MCC, markedness) ---------------------------


def _mcc_alpha_star(beta, mu, p):
    r"""α at which MCC(π, α, β) = μ (MCC is decreasing in α).

    With q = π(1−β) + (1−π)α, MCC = √(π/(1−π))·(1−β−q)/√(q(1−q)); squaring gives
    A q² − B q + C = 0, A = π + μ²(1−π), B = 2π(1−β) + μ²(1−π), C = π(1−β)², whose
    discriminant is μ²(1−π)(4πβ(1−β) + μ²(1−π)); the smaller root for μ ≥ 0, the
    larger for μ < 0 (sign of 1−β−q).
    """
    m = mu * mu
    a = p + m * (1 - p)
    b = 2 * p * (1 - beta) + m * (1 - p)
    c = p * (1 - beta) ** 2
    sd = np.sqrt(np.maximum(m * (1 - p) * (4 * p * beta * (1 - beta) + m * (1 - p)), 0.0))
    q = np.where(mu >= 0, 2 * c / (b + sd), (b + sd) / (2 * a))
    return (q - p * (1 - beta)) / (1 - p)


def _mk_alpha_star(beta, mu, p):
    r"""α at which markedness(π, α, β) = μ (markedness is decreasing in α).

    Markedness = π(1−β−q)/(q(1−q)); the boundary solves μq² − (μ+π)q + π(1−β) = 0,
    whose root in [0, 1] is unique (the polynomial is ≥ 0 at q = 0 and ≤ 0 at q = 1);
    discriminant (μ+π)² − 4μπ(1−β), evaluated in the cancellation-free form.
    """
    b = mu + p
    sd = np.sqrt(np.maximum(b * b - 4 * mu * p * (1 - beta), 0.0))
    c = p * (1 - beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(b >= 0, 2 * c / (b + sd), (b - sd) / (2 * mu))
    return (q - p * (1 - beta)) / (1 - p)


def _mcc_map(lo, hi, mu, p, x):
    """β(φ) = (1 − r cos φ)/2, r² = 1 + μ²(1−π)/π: the discriminant becomes π r² sin² φ."""
    r = np.sqrt(1 + mu * mu * (1 - p) / p)
    f_lo = np.arccos(np.clip((1 - 2 * lo) / r, -1, 1))
    f_hi = np.arccos(np.clip((1 - 2 * hi) / r, -1, 1))
    half = (f_hi - f_lo) / 2
    phi = (f_lo + half)[:, None] + half[:, None] * x
    beta = 0.5 - (0.5 * r)[:, None] * np.cos(phi)
    jac = (0.5 * r * half)[:, None] * np.sin(phi)
    return beta, jac


def _mk_map(lo, hi, mu, p, x):
    """β = β_s ± s², β_s the zero of the (linear in β) discriminant, when it is near."""
    with np.errstate(divide="ignore", invalid="ignore"):
        bs = 1 - (mu + p) ** 2 / (4 * mu * p)
    length = hi - lo
    near = np.isfinite(bs) & (np.abs(bs - np.clip(bs, lo, hi)) < length)
    bs = np.where(near, bs, 0.0)
    sgn = np.where(mu > 0, 1.0, -1.0)
    s_lo = np.sqrt(np.abs(lo - bs))
    s_hi = np.sqrt(np.abs(hi - bs))
    half_s = (s_hi - s_lo) / 2
    s = (s_lo + half_s)[:, None] + half_s[:, None] * x
    beta_s = bs[:, None] + sgn[:, None] * s * s
    jac_s = 2 * sgn[:, None] * s * half_s[:, None]
    half = length / 2
    beta_i = (lo + half)[:, None] + half[:, None] * x
    beta = np.where(near[:, None], beta_s, beta_i)
    jac = np.where(near[:, None], jac_s, np.broadcast_to(half[:, None], beta_i.shape))
    return beta, jac


#: name → (α*(β; μ, π), change of variable).  Both metrics are invariant under the
#: class swap (π, α, β) → (1−π, β, α), so the β where the boundary meets α = c is
#: α*(c; μ, 1−π).
_CURVES: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "mcc": (_mcc_alpha_star, _mcc_map),
    "markedness": (_mk_alpha_star, _mk_map),
}


@lru_cache(maxsize=4)
def _gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return leggauss(n)


def _curve_area(name: str, mu: np.ndarray, p: np.ndarray) -> np.ndarray:
    r"""Beaten area ∫₀¹ (1 − clip(α*(β), 0, 1)) dβ for a metric decreasing in α and β.

    α* is non-increasing in β: the integrand is 0 below β₁ (α* = 1), 1 above β₀
    (α* = 0) and smooth in between, so the area is (1 − β₀) + ∫_{β₁}^{β₀} (1 − α*) dβ.
    """
    astar, cmap = _CURVES[name]
    with np.errstate(divide="ignore", invalid="ignore"):
        b1 = np.clip(np.nan_to_num(astar(np.ones_like(mu), mu, 1 - p), nan=0.0), 0.0, 1.0)
        b0 = np.clip(np.nan_to_num(astar(np.zeros_like(mu), mu, 1 - p), nan=1.0), 0.0, 1.0)
    b1 = np.minimum(b1, b0)

    def gl(n: int) -> np.ndarray:
        x, w = _gauss_legendre(n)
        beta, jac = cmap(b1, b0, mu, p, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = astar(beta, mu[:, None], p[:, None])
        a = np.clip(np.nan_to_num(a, nan=0.0), 0.0, 1.0)
        return ((1 - a) * jac) @ w

    fine = gl(12)
    coarse = gl(8)
    area = fine + (1 - b0)
    bad = ~(np.abs(fine - coarse) <= _GL_TOL)
    for i in np.flatnonzero(bad):
        m_i, p_i = float(mu[i]), float(p[i])

        def integrand(beta: float) -> float:
            with np.errstate(divide="ignore", invalid="ignore"):
                a = float(astar(np.float64(beta), m_i, p_i))
            return 1.0 - min(max(a if a == a else 0.0, 0.0), 1.0)

        val = integrate.quad(integrand, b1[i], b0[i], epsabs=_QUAD_EPSABS, epsrel=0, limit=200)[0]
        area[i] = val + (1 - b0[i])
    return np.clip(area, 0.0, 1.0)


def _likelihood_ratio_area(v: np.ndarray) -> np.ndarray:
    r"""Area of {(x, y) ∈ [0, 1]²: y < v·x}: v/2 for v ≤ 1, 1 − 1/(2v) beyond.

    The OPS of the likelihood ratios, which do not depend on π: LR+ = (1 − β)/α beats
    the classifiers with 1 − β < LR+·α; LR− = β/(1 − α) (lower is better) beats those
    with β > LR−·(1 − α), the area 1 − A(LR−).

    >>> _likelihood_ratio_area(np.array([0.0, 0.5, 1.0, 2.0, np.inf])).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    v = np.asarray(v, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v <= 1, np.maximum(v, 0.0) / 2, 1 - 1 / (2 * v))


def _builtin_exact(name: str, mu: np.ndarray, p: np.ndarray, options: dict) -> np.ndarray | None:
    """Vectorised exact area for a registered metric, or None if it has no analytic boundary."""
    if name == "lr_plus":
        return _likelihood_ratio_area(mu)
    if name == "lr_minus":
        return 1 - _likelihood_ratio_area(mu)
    if name in _HALFPLANES:
        return _halfplane_area(*_HALFPLANES[name](mu, p, **options))
    if name == "g_mean":
        return _g_mean_area(mu, p)
    if name in _CURVES:
        out = np.empty_like(mu)
        for start in range(0, mu.size, _BLOCK):
            sl = slice(start, start + _BLOCK)
            out[sl] = _curve_area(name, mu[sl], p[sl])
        return out
    return None


# --- exact areas: the general path (any metric, via quad + brentq) ------------------


#: how far inside the unit square the general path evaluates its edges
_EDGE = 1e-12


def _general_area(score: Callable[[np.ndarray, np.ndarray], np.ndarray], threshold: float, *, n_grid: int = 129) -> float:
    r"""∬ 1{score(α, β) < threshold} dα dβ for one (μ, π) pair, by nested 1-D solvers.

    ``score`` is vectorised over α and β (the metric, sign-flipped for lower-is-better
    metrics, at a fixed π).  For each β the beaten α form a union of intervals: the
    indicator is taken on ``n_grid`` points, each change is refined by
    :func:`scipy.optimize.brentq` on score − threshold (or by bisection on the
    indicator where the metric touches the threshold without crossing it, i.e. on
    ties), and the lengths are added.  Features narrower than the grid spacing are
    missed.  The length is integrated over β with :func:`scipy.integrate.quad`, split
    at the β where the boundary meets α = 0 or α = 1 (kinks of the integrand).
    """
    # the end points 1e-12 inside the square: a metric undefined on its edge (LR− at
    # α = 1) still shows the side of the threshold that the edge's neighbourhood is on
    grid = np.linspace(0.0, 1.0, n_grid)
    grid[0], grid[-1] = _EDGE, 1.0 - _EDGE

    def value(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(score(a, b), dtype=np.float64) - threshold

    def beaten(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return value(a, b) < 0  # nan → not beaten

    def edge(f: Callable[[float], float], x0: float, x1: float) -> float:
        """The point in (x0, x1) where the indicator f(x) < 0 changes."""
        f0, f1 = f(x0), f(x1)
        if np.isfinite(f0) and np.isfinite(f1) and f0 * f1 < 0:
            return optimize.brentq(f, x0, x1, xtol=1e-15, rtol=4 * np.finfo(float).eps)
        s0 = f0 < 0
        for _ in range(60):  # bisection on the indicator (ties, nan)
            xm = 0.5 * (x0 + x1)
            if xm <= x0 or xm >= x1:
                break
            if (f(xm) < 0) == s0:
                x0 = xm
            else:
                x1 = xm
        return 0.5 * (x0 + x1)

    def crossings(ind: np.ndarray, f: Callable[[float], float]) -> list[float]:
        idx = np.flatnonzero(ind[1:] != ind[:-1])
        return [edge(f, grid[i], grid[i + 1]) for i in idx]

    def length(b: float) -> float:
        bb = np.full(n_grid, b)
        ind = beaten(grid, bb)
        cuts = crossings(ind, lambda a: float(value(np.array([a]), np.array([b]))[0]))
        if not cuts:
            return 1.0 if ind[0] else 0.0
        pts = np.concatenate([[0.0], cuts, [1.0]])  # the edge strips belong to their neighbours
        seg = np.diff(pts)
        on = (np.arange(seg.size) % 2 == 0) == bool(ind[0])
        return float(seg[on].sum())

    kinks: list[float] = []
    for a_edge in (_EDGE, 1.0 - _EDGE):
        aa = np.full(n_grid, a_edge)
        ind = beaten(aa, grid)
        def at_edge(b: float, a_edge: float = a_edge) -> float:
            return float(value(np.array([a_edge]), np.array([b]))[0])

        kinks += crossings(ind, at_edge)
    pts = np.unique(np.clip(np.concatenate([[0.0, 1.0], kinks]), 0.0, 1.0))
    total = 0.0
    for lo, hi in zip(pts[:-1], pts[1:]):
        if hi > lo:
            total += integrate.quad(length, lo, hi, epsabs=_QUAD_EPSABS, epsrel=1e-12, limit=200)[0]
    return min(max(total, 0.0), 1.0)


# --- Monte Carlo --------------------------------------------------------------------


def _monte_carlo(
    score: Callable[[Any, np.ndarray, np.ndarray], np.ndarray],
    thresholds: np.ndarray,
    p: np.ndarray,
    mc_samples: int,
    random_state: Any,
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(random_state)
    a = rng.random(mc_samples)
    b = rng.random(mc_samples)
    out = np.empty_like(thresholds)
    uniq, inv = np.unique(p, return_inverse=True)
    for k, pk in enumerate(uniq):
        with np.errstate(all="ignore"):
            vals = np.asarray(score(np.full(mc_samples, pk), a, b), dtype=np.float64)
        vals = np.sort(vals)  # nan sorted last: never counted as beaten
        sel = inv == k
        out[sel] = np.searchsorted(vals, thresholds[sel], side="left") / mc_samples
    se = np.sqrt(out * (1 - out) / mc_samples)
    return out, se


# --- user callables -----------------------------------------------------------------


def _callable_name(func: Any) -> str:
    return getattr(func, "__name__", None) or type(func).__name__


def _check_vectorised(func: Callable[..., Any], p0: float, options: dict) -> None:
    """Refuse a callable that does not map arrays to arrays element by element."""
    name = _callable_name(func)
    pp = np.full(4, p0)
    a = np.array([0.1, 0.5, 0.9, 0.3])
    b = np.array([0.2, 0.7, 0.4, 0.9])
    hint = "write it with numpy operations (or wrap it in numpy.vectorize)"
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(func(pp, a, b, **options), dtype=np.float64)
            single = [np.asarray(func(pp[i : i + 1], a[i : i + 1], b[i : i + 1], **options), dtype=np.float64) for i in range(4)]
    except Exception as exc:  # the user's code failing on arrays
        raise InvalidInputError(
            f"metric callable {name!r} is not vectorised: calling it on arrays of shape (4,) "
            f"raised {type(exc).__name__}: {exc}; {hint}"
        ) from exc
    if out.shape != (4,):
        raise InvalidInputError(
            f"metric callable {name!r} is not vectorised: on arrays of shape (4,) it returned "
            f"shape {out.shape}; {hint}"
        )
    single_vals = np.array([s.reshape(-1)[0] if s.size == 1 else np.nan for s in single])
    if not np.allclose(out, single_vals, rtol=1e-12, atol=1e-12, equal_nan=True):
        raise InvalidInputError(
            f"metric callable {name!r} is not element-wise: its value for one (prevalence, alpha, "
            f"beta) depends on the other elements of the arrays; {hint}"
        )


# --- validation -----------------------------------------------------------------------


def _check_method(method: Any) -> LabelingMethod:
    if method not in _METHODS:
        raise InvalidInputError(f"method must be one of {list(_METHODS)}, got {method!r}")
    return method


def _check_mc_samples(mc_samples: Any) -> int:
    if isinstance(mc_samples, bool) or not isinstance(mc_samples, (int, np.integer)) or mc_samples < 1:
        raise InvalidInputError(f"mc_samples must be a positive integer, got {mc_samples!r}")
    return int(mc_samples)


def _check_values(value: Any, prevalence: Any) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    mu = as_float(value, "value", finite=False)
    p_raw = as_float(prevalence, "prevalence", finite=False)
    if mu.size == 0:
        raise InvalidInputError("value is empty")
    if p_raw.size == 0:
        raise InvalidInputError("prevalence is empty")
    if not np.isfinite(mu).all():
        raise InvalidInputError("value contains NaN or infinite values")
    p = check_prevalence(p_raw)
    try:
        mu, p = np.broadcast_arrays(mu, p)
    except ValueError as exc:
        raise InvalidInputError(
            f"value (shape {mu.shape}) and prevalence (shape {p.shape}) cannot be broadcast together"
        ) from exc
    return mu.ravel().astype(np.float64), p.ravel().astype(np.float64), mu.shape


def _check_range(metric: LabelingMetric, mu: np.ndarray, p: np.ndarray) -> None:
    lo, hi = metric.range_at(p)
    lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), mu.shape)
    hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), mu.shape)
    slack = 1e-12 * np.maximum(1.0, np.abs(np.where(np.isfinite(hi), hi, 1.0)))
    bad = (mu < lo - slack) | (mu > hi + slack)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"value {float(mu[i])!r} is outside the range [{lo[i]:.6g}, {hi[i]:.6g}] of metric "
            f"{metric.name!r} at prevalence {float(p[i]):.6g}"
        )


def _shape_out(x: np.ndarray, shape: tuple[int, ...]) -> Any:
    x = x.reshape(shape)
    return float(x) if x.ndim == 0 else x


# --- the public entry point ------------------------------------------------------------


def labeling_outperformance_score(
    metric: str | LabelingMetric | Callable[..., Any],
    value: Any,
    prevalence: Any,
    *,
    method: LabelingMethod = "auto",
    mc_samples: int | None = None,
    random_state: Any = None,
    greater_is_better: bool | None = None,
    **options: Any,
) -> OPSResult:
    r"""Outperformance score of a labeling-metric value at a prevalence (OPS paper, eq. 6).

    OPS_M(μ; π) = Pr{M(π, A, B) < μ}, A, B ~ Uniform[0, 1] independent (``>`` for
    lower-is-better metrics): the share of all classifiers at prevalence π that the
    value μ beats.  What a trivial classifier (α + β = 1) scores depends on the metric:
    0.5 for informedness, balanced accuracy, MCC and κ, but 0.94 for the accuracy 0.9
    of "always negative" at π = 0.1.

    Parameters
    ----------
    metric : str, LabelingMetric or callable
        A name or alias of :mod:`beyondchance.measures.registry` (``"f1"``, ``"mcc"``,
        ``"kappa"`` …), or a vectorised callable ``M(prevalence, alpha, beta, **options)``
        evaluated element-wise on arrays.
    value : float or array-like
        The metric value(s) μ; must lie in the metric's range at the prevalence.
    prevalence : float or array-like
        π in (0, 1); broadcast against ``value``.
    method : {"auto", "exact", "closed-form", "monte-carlo"}
        ``"auto"`` is ``"closed-form"`` for F1 (eq. 7) and ``"exact"`` otherwise.
    mc_samples : int, optional
        Monte Carlo draws (default 100 000).
    random_state : None, int or numpy Generator
        Seed of the Monte Carlo draws.
    greater_is_better : bool, optional
        Direction of a callable metric (default True); registered metrics carry their own.
    **options
        Metric options, e.g. ``beta`` for ``"fbeta"``.

    Returns
    -------
    OPSResult
        ``score`` (float, or an array shaped like the broadcast inputs), ``method``,
        ``standard_error`` (Monte Carlo only), ``reference``.

    Examples
    --------
    >>> round(labeling_outperformance_score("accuracy", 0.9, 0.1).score, 4)  # "always negative"
    0.9444
    >>> round(labeling_outperformance_score("mcc", 0.0, 0.1).score, 4)       # any trivial classifier
    0.5
    >>> r = labeling_outperformance_score("mcc", [0.2, 0.4], 0.3)
    >>> r.score.round(4).tolist(), r.method
    ([0.6694, 0.8178], 'exact')
    >>> r = labeling_outperformance_score("mcc", 0.4, 0.3, method="monte-carlo", random_state=0)
    >>> abs(r.score - 0.8178) < 4 * r.standard_error
    True
    """
    method = _check_method(method)
    mu, p, shape = _check_values(value, prevalence)

    if isinstance(metric, (str, LabelingMetric)):
        m = get_metric(metric)
        unknown = set(options) - set(m.options)
        if unknown:
            raise InvalidInputError(
                f"metric {m.name!r} takes no option(s) {sorted(unknown)}; "
                f"known options: {list(m.options) or 'none'}"
            )
        m.from_rates(0.5, 0.5, 0.5, **options)  # validates option values (e.g. beta > 0)
        if greater_is_better is not None and bool(greater_is_better) != m.greater_is_better:
            raise InvalidInputError(
                f"greater_is_better={greater_is_better!r} contradicts metric {m.name!r}, which is "
                f"{'higher' if m.greater_is_better else 'lower'}-is-better; the option is for callables"
            )
        gib = m.greater_is_better
        name = m.name
        _check_range(m, mu, p)

        def metric_fn(pp: Any, a: Any, b: Any) -> Any:
            return m.from_rates(pp, a, b, **options)

    elif callable(metric):
        name = _callable_name(metric)
        gib = True if greater_is_better is None else bool(greater_is_better)
        _check_vectorised(metric, float(p[0]), options)
        m = None

        def metric_fn(pp: Any, a: Any, b: Any) -> Any:
            pp, a, b = np.broadcast_arrays(np.asarray(pp, float), np.asarray(a, float), np.asarray(b, float))
            return metric(pp, a, b, **options)

    else:
        raise InvalidInputError(
            f"metric must be a metric name or a callable M(prevalence, alpha, beta), got {type(metric).__name__}"
        )

    sign = 1.0 if gib else -1.0
    if method == "auto":
        method = "closed-form" if name in _CLOSED_FORMS and m is not None else "exact"
    if mc_samples is not None:
        mc_samples = _check_mc_samples(mc_samples)
    reference = _reference(gib)

    if method == "closed-form":
        if m is None or name not in _CLOSED_FORMS:
            raise InvalidInputError(
                f"method='closed-form' is available for {list(_CLOSED_FORMS)} only (OPS paper, eq. 7); "
                f"use method='exact' for {name!r}"
            )
        score = f1_outperformance_closed_form(mu, p)
        return OPSResult(
            score=_shape_out(np.asarray(score, dtype=np.float64), shape), metric=name, value=value,
            prevalence=prevalence, method="closed-form", reference=reference, options=dict(options),
        )

    if method == "monte-carlo":
        n = DEFAULT_MC_SAMPLES if mc_samples is None else mc_samples
        score, se = _monte_carlo(lambda pp, a, b: sign * metric_fn(pp, a, b), sign * mu, p, n, random_state)
        return OPSResult(
            score=_shape_out(score, shape), metric=name, value=value, prevalence=prevalence,
            method="monte-carlo", standard_error=_shape_out(se, shape), reference=reference,
            mc_samples=n, options=dict(options),
        )

    # exact
    score = _builtin_exact(name, mu, p, options) if m is not None else None
    if score is None:
        score = np.empty_like(mu)
        for i in range(mu.size):
            p_i = p[i]

            def scorer(a: np.ndarray, b: np.ndarray, p_i: float = p_i) -> np.ndarray:
                return sign * np.asarray(metric_fn(np.full(np.shape(a), p_i), a, b), dtype=np.float64)

            score[i] = _general_area(scorer, sign * mu[i])
    return OPSResult(
        score=_shape_out(np.asarray(score, dtype=np.float64), shape), metric=name, value=value,
        prevalence=prevalence, method="exact", reference=reference, options=dict(options),
    )
