"""Outperformance score of labeling metrics and the public dispatcher.

References checked against: the OPS paper's Table 5 (transcribed below), a brute-force
midpoint grid over (α, β), an independent quadrature path (brentq + quad on
``LabelingMetric.from_rates``), Monte Carlo, closed forms derived here, and the linear
invariance property (OPS paper, section 3.1).
"""

from __future__ import annotations

import json
import math
import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance import InvalidInputError, OPSResult, outperformance_score
from beyondchance.measures.registry import METRICS, get_metric
from beyondchance.outperformance import labeling as L
from beyondchance.outperformance.labeling import (
    f1_outperformance_closed_form,
    labeling_outperformance_score,
)

BUILTINS = sorted(METRICS)
SCORING_MODULE = "beyondchance.outperformance.scoring"


def _finite_range(name, p):
    lo, hi = get_metric(name).range_at(p)
    return float(max(lo, -50.0)), float(min(hi, 50.0))


def _random_pairs(name, rng, k, p_lo=0.03, p_hi=0.97):
    """k random (μ, π) with μ uniform in the metric's range at π (interior)."""
    out = []
    for _ in range(k):
        p = float(rng.uniform(p_lo, p_hi))
        lo, hi = _finite_range(name, p)
        out.append((float(lo + (hi - lo) * rng.uniform(0.02, 0.98)), p))
    return out


def _general(name, mu, p, **options):
    """The general quadrature path (brentq + quad) on the metric's count definition."""
    m = get_metric(name)
    s = 1.0 if m.greater_is_better else -1.0
    return L._general_area(lambda a, b: s * m.from_rates(np.full(np.shape(a), p), a, b, **options), s * mu)


# --- Table 5 of the OPS paper ----------------------------------------------------------

# OPS paper (Zhao, Bui, Yu & Dzieciolowski), section 4.1, Table 5: "The XgBoost
# classifiers' prediction performances given t = 0.19" — test set, prevalence π,
# f1, OPS(f1), MCC, OPS(MCC), as printed.
TABLE5 = [
    ("Heart Disease / General", 0.091, 0.408, 0.892, 0.348, 0.874),
    ("Heart Disease / Elder", 0.19, 0.453, 0.799, 0.3, 0.779),
    ("Heart Disease / Hospital", 0.3, 0.614, 0.85, 0.468, 0.859),
    ("Loan Default / General", 0.112, 0.361, 0.825, 0.268, 0.798),
    ("Loan Default / Low-income", 0.203, 0.475, 0.806, 0.316, 0.787),
    ("Loan Default / Risky", 0.3, 0.514, 0.735, 0.344, 0.78),
]


@pytest.mark.parametrize("row", TABLE5, ids=[r[0] for r in TABLE5])
def test_table5_f1_and_mcc(row):
    _, p, f1, ops_f1, mcc, ops_mcc = row
    assert outperformance_score("f1", f1, p).score == pytest.approx(ops_f1, abs=0.002)
    assert outperformance_score("f1", f1, p, method="exact").score == pytest.approx(ops_f1, abs=0.002)
    assert outperformance_score("mcc", mcc, p).score == pytest.approx(ops_mcc, abs=0.002)


def test_table5_vectorised():
    p = np.array([r[1] for r in TABLE5])
    res = outperformance_score("mcc", [r[4] for r in TABLE5], p)
    np.testing.assert_allclose(res.score, [r[5] for r in TABLE5], atol=0.002)


# --- F1: the paper's closed form against the exact area --------------------------------


def test_f1_closed_form_equals_exact_area():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.001, 0.999, 5000)
    mu = rng.uniform(0, 1, 5000)
    closed = f1_outperformance_closed_form(mu, p)
    exact = labeling_outperformance_score("f1", mu, p, method="exact").score
    np.testing.assert_allclose(closed, exact, rtol=0, atol=1e-12)
    # both branches of eq. 7 were exercised
    c = 2 * p / (1 + p)
    assert (mu <= c).sum() > 100 and (mu > c).sum() > 100


def test_f1_closed_form_against_quadrature():
    rng = np.random.default_rng(1)
    for mu, p in _random_pairs("f1", rng, 4):
        assert f1_outperformance_closed_form(mu, p) == pytest.approx(_general("f1", mu, p), abs=1e-9)


# --- exact areas against independent computations --------------------------------------


@pytest.mark.parametrize("name", BUILTINS)
def test_exact_against_brute_force_grid(name):
    """Midpoint grid N×N over (α, β).  For each β-row the beaten α form an interval
    (monotonicity, tested below), so the row count errs by ≤ h/2, and the midpoint sum of
    the monotone row lengths by ≤ h/2: |grid − exact| ≤ h = 1/N."""
    n = 2000
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    m = get_metric(name)
    p = float(rng.uniform(0.05, 0.95))
    lo, hi = _finite_range(name, p)
    mus = lo + (hi - lo) * rng.uniform(0.05, 0.95, 3)
    g = (np.arange(n) + 0.5) / n
    counts = np.zeros(mus.size)
    for start in range(0, n, 250):
        alpha, beta = np.broadcast_arrays(g[None, :], g[start : start + 250, None])
        with np.errstate(all="ignore"):
            v = np.broadcast_to(m.from_rates(p, alpha, beta), alpha.shape).ravel()
        beaten = v[:, None] < mus if m.greater_is_better else v[:, None] > mus
        counts += beaten.sum(axis=0)
    grid = counts / n**2
    exact = labeling_outperformance_score(name, mus, p, method="exact").score
    np.testing.assert_allclose(exact, grid, rtol=0, atol=1.0 / n)


@pytest.mark.parametrize("name", BUILTINS)
def test_exact_against_general_quadrature(name):
    rng = np.random.default_rng(7 + BUILTINS.index(name))
    pairs = _random_pairs(name, rng, 2) + _random_pairs(name, rng, 1, 0.001, 0.01)
    for mu, p in pairs:
        exact = labeling_outperformance_score(name, mu, p, method="exact").score
        assert exact == pytest.approx(_general(name, mu, p), abs=1e-9), (mu, p)


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_fbeta_option_exact(beta):
    rng = np.random.default_rng(3)
    for mu, p in _random_pairs("fbeta", rng, 2):
        exact = outperformance_score("fbeta", mu, p, beta=beta).score
        assert exact == pytest.approx(_general("fbeta", mu, p, beta=beta), abs=1e-9)
    # β → the F-β of β = 1 is F1
    assert outperformance_score("fbeta", 0.4, 0.2, beta=1.0).score == pytest.approx(
        outperformance_score("f1", 0.4, 0.2).score, abs=1e-14
    )


@pytest.mark.parametrize("name", ["mcc", "markedness"])
def test_quadratic_boundaries_hard_cases(name):
    """μ near 0, ±1 and (markedness) near π, extreme prevalences: the change of variable
    keeps Gauss–Legendre exact where the discriminant's square root is nearly singular."""
    p = np.array([0.3, 0.9, 1e-3, 0.999, 0.45, 0.2, 0.6, 0.05])
    mu = np.array([1e-4, -2e-4, 0.999999, -0.99999, 0.4501, -0.2, 0.6 - 1e-5, 0.0])
    exact = labeling_outperformance_score(name, mu, p, method="exact").score
    general = np.array([_general(name, m, q) for m, q in zip(mu, p)])
    np.testing.assert_allclose(exact, general, rtol=0, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["mcc", "markedness"]),
    st.floats(0.001, 0.999),
    st.floats(-1, 1),
    st.floats(0, 1),
)
def test_quadratic_boundary_solves_the_metric(name, p, mu, beta):
    """α*(β) from the quadratic really is where M(π, α, β) = μ (evaluated from the counts)."""
    astar = L._CURVES[name][0](np.float64(beta), mu, p)
    if 1e-9 < astar < 1 - 1e-9 and 1e-9 < beta < 1 - 1e-9:
        assert get_metric(name).from_rates(p, astar, beta) == pytest.approx(mu, abs=1e-8)


@pytest.mark.parametrize("name", ["mcc", "markedness"])
def test_class_swap_symmetry_used_for_kinks(name):
    rng = np.random.default_rng(11)
    p, a, b = rng.uniform(0.01, 0.99, (3, 1000))
    m = get_metric(name)
    np.testing.assert_allclose(m.from_rates(p, a, b), m.from_rates(1 - p, b, a), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_metrics_are_monotone_in_both_errors(name):
    """The exact path relies on it: a larger α or β never gives a better value."""
    m = get_metric(name)
    g = np.linspace(0.0, 1.0, 201)
    for p in (0.02, 0.3, 0.5, 0.85):
        alpha, beta = np.broadcast_arrays(g[None, :], g[:, None])  # rows β, columns α
        with np.errstate(all="ignore"):
            v = np.broadcast_to(m.from_rates(p, alpha, beta), alpha.shape)
        v = v if m.greater_is_better else -v
        da = np.diff(v, axis=1)
        db = np.diff(v, axis=0)
        assert not (da[np.isfinite(da)] > 1e-12).any()
        assert not (db[np.isfinite(db)] > 1e-12).any()


# --- Monte Carlo ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUILTINS)
def test_exact_against_monte_carlo(name):
    rng = np.random.default_rng(100 + BUILTINS.index(name))
    pairs = _random_pairs(name, rng, 3)
    mu = np.array([m for m, _ in pairs])
    p = np.array([q for _, q in pairs])
    exact = outperformance_score(name, mu, p, method="exact").score
    mc = outperformance_score(name, mu, p, method="monte-carlo", mc_samples=200_000, random_state=5)
    assert mc.method == "monte-carlo" and mc.mc_samples == 200_000
    se = np.asarray(mc.standard_error)
    np.testing.assert_allclose(se, np.sqrt(mc.score * (1 - mc.score) / 200_000))
    assert (np.abs(mc.score - exact) <= 4 * np.maximum(se, 1 / 200_000)).all()


def test_monte_carlo_is_reproducible_and_seedable():
    a = outperformance_score("kappa", 0.3, 0.2, method="monte-carlo", mc_samples=5000, random_state=1)
    b = outperformance_score("kappa", 0.3, 0.2, method="monte-carlo", mc_samples=5000, random_state=1)
    c = outperformance_score("kappa", 0.3, 0.2, method="monte-carlo", mc_samples=5000, random_state=2)
    assert a.score == b.score and a.score != c.score
    g = outperformance_score(
        "kappa", 0.3, 0.2, method="monte-carlo", mc_samples=5000, random_state=np.random.default_rng(1)
    )
    assert g.score == a.score


# --- linear invariance (OPS paper, section 3.1) ------------------------------------------


def test_linear_invariance_builtin_pairs():
    rng = np.random.default_rng(4)
    p = rng.uniform(0.02, 0.98, 200)
    u = rng.uniform(0, 1, 200)
    # lift = precision / π
    np.testing.assert_allclose(
        outperformance_score("lift", u / p, p).score, outperformance_score("precision", u, p).score, atol=1e-12
    )
    # informedness = 2·BA − 1
    np.testing.assert_allclose(
        outperformance_score("informedness", 2 * u - 1, p).score,
        outperformance_score("balanced_accuracy", u, p).score,
        atol=1e-12,
    )
    # error = 1 − accuracy, lower is better
    np.testing.assert_allclose(
        outperformance_score("error", 1 - u, p).score, outperformance_score("accuracy", u, p).score, atol=1e-12
    )
    # fnr = 1 − recall, fpr = 1 − specificity (lower is better)
    np.testing.assert_allclose(outperformance_score("fnr", 1 - u, p).score, outperformance_score("recall", u, p).score, atol=1e-12)
    np.testing.assert_allclose(outperformance_score("fpr", 1 - u, p).score, outperformance_score("specificity", u, p).score, atol=1e-12)
    # prediction advantage = 1 − error/min(π, 1−π): a > 0 depends on π
    m = np.minimum(p, 1 - p)
    np.testing.assert_allclose(
        outperformance_score("prediction_advantage", 1 - (1 - u) / m, p).score,
        outperformance_score("accuracy", u, p).score,
        atol=1e-12,
    )
    # binary pure accuracy is Cohen's κ
    k = rng.uniform(-0.2, 1, 200)
    k = np.maximum(k, get_metric("kappa").range_at(p)[0])
    np.testing.assert_allclose(
        outperformance_score("pure_accuracy", k, p).score, outperformance_score("kappa", k, p).score, atol=1e-15
    )


def test_linear_invariance_with_a_callable():
    """M₂ = a(π)·F1 + b(π) through the general (callable) path equals OPS_f1(μ)."""
    f1 = get_metric("f1")

    def affine_f1(prevalence, alpha, beta):
        return (1 + prevalence) * 3 * f1.from_rates(prevalence, alpha, beta) + prevalence**2 - 2

    for mu, p in [(0.3, 0.1), (0.7, 0.45), (0.55, 0.8)]:
        a, b = 3 * (1 + p), p**2 - 2
        got = outperformance_score(affine_f1, a * mu + b, p).score
        assert got == pytest.approx(f1_outperformance_closed_form(mu, p), abs=1e-9)


# --- user callables: general path, ties, non-monotone ---------------------------------------


def test_callable_matches_builtin():
    mcc = get_metric("mcc")
    res = outperformance_score(lambda p, a, b: mcc.from_rates(p, a, b), [0.1, 0.5], [0.2, 0.6])
    np.testing.assert_allclose(res.score, outperformance_score("mcc", [0.1, 0.5], [0.2, 0.6]).score, atol=1e-9)
    assert res.method == "exact" and res.metric == "<lambda>"


def test_callable_lower_is_better():
    def loss(p, a, b):
        return p * b + (1 - p) * a  # the error rate

    got = outperformance_score(loss, 0.25, 0.3, greater_is_better=False).score
    assert got == pytest.approx(outperformance_score("error", 0.25, 0.3).score, abs=1e-9)
    assert "> value" in outperformance_score(loss, 0.25, 0.3, greater_is_better=False, method="monte-carlo", mc_samples=100).reference


def test_non_monotone_callable():
    """M = (α − ½)² + β: OPS(μ) = ∫₀^μ 2√(μ − β) dβ = (4/3) μ^{3/2} for μ ≤ ¼."""

    def bowl(p, a, b):
        return (a - 0.5) ** 2 + b

    for mu in (0.01, 0.1, 0.25):
        assert outperformance_score(bowl, mu, 0.5).score == pytest.approx(4 / 3 * mu**1.5, abs=1e-9)


def test_ties_use_strict_inequality():
    """M = max(0, 1 − α − β) has an atom of mass ½ at 0: OPS(0) = Pr{M < 0} = 0, and
    OPS(μ) = Pr{α + β > 1 − μ} = 1 − (1 − μ)²/2 for μ > 0."""

    def clipped_informedness(p, a, b):
        return np.maximum(0.0, 1 - a - b)

    assert outperformance_score(clipped_informedness, 0.0, 0.3).score == pytest.approx(0.0, abs=1e-12)
    assert outperformance_score(clipped_informedness, 0.1, 0.3).score == pytest.approx(1 - 0.9**2 / 2, abs=1e-9)
    mc = outperformance_score(clipped_informedness, 0.0, 0.3, method="monte-carlo", mc_samples=1000, random_state=0)
    assert mc.score == 0.0


def test_callable_options_are_forwarded():
    def shifted(p, a, b, shift=0.0):
        return 1 - a - b + shift

    base = outperformance_score("informedness", 0.2, 0.4).score
    assert outperformance_score(shifted, 0.7, 0.4, shift=0.5).score == pytest.approx(base, abs=1e-9)


# --- vectorisation -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["f1", "mcc", "markedness", "g_mean", "kappa", "npv"])
def test_array_in_equals_loop_over_scalars(name):
    rng = np.random.default_rng(21)
    pairs = _random_pairs(name, rng, 25)
    mu = np.array([m for m, _ in pairs])
    p = np.array([q for _, q in pairs])
    vec = outperformance_score(name, mu, p).score
    loop = np.array([outperformance_score(name, m, q).score for m, q in pairs])
    assert isinstance(outperformance_score(name, mu[0], p[0]).score, float)
    np.testing.assert_allclose(vec, loop, rtol=0, atol=1e-15)


def test_broadcasting_and_shapes():
    mu = np.array([[0.1], [0.3], [0.5]])
    p = np.array([0.1, 0.2, 0.4, 0.5])
    res = outperformance_score("mcc", mu, p)
    assert res.score.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            assert res.score[i, j] == pytest.approx(outperformance_score("mcc", float(mu[i, 0]), float(p[j])).score, abs=1e-15)
    mc = outperformance_score("mcc", mu, p, method="monte-carlo", mc_samples=1000, random_state=0)
    assert mc.score.shape == (3, 4) and np.shape(mc.standard_error) == (3, 4)
    cf = outperformance_score("f1", [0.2, 0.4], 0.3, method="closed-form")
    assert cf.score.shape == (2,)
    # callables are vectorised too
    cal = outperformance_score(lambda p, a, b: 1 - a - b, [0.0, 0.5], 0.3)
    np.testing.assert_allclose(cal.score, [0.5, 0.875], atol=1e-9)


def test_scores_lie_in_unit_interval_and_grow_with_value():
    rng = np.random.default_rng(8)
    for name in BUILTINS:
        p = float(rng.uniform(0.05, 0.95))
        lo, hi = _finite_range(name, p)
        mu = np.linspace(lo, hi, 101)
        s = outperformance_score(name, mu, p).score
        assert ((s >= 0) & (s <= 1)).all()
        d = np.diff(s)
        # the ends of the range score 0 and 1; an unbounded metric (likelihood ratios, DOR)
        # is cut at 50 here, which does not beat every classifier
        bounded = np.isfinite(get_metric(name).range_at(p)).all()
        if get_metric(name).greater_is_better:
            assert (d >= -1e-12).all(), name
            assert s[0] == pytest.approx(0, abs=1e-12) and (s[-1] == pytest.approx(1, abs=1e-12) or not bounded)
        else:
            assert (d <= 1e-12).all(), name
            assert s[0] == pytest.approx(1, abs=1e-12) and (s[-1] == pytest.approx(0, abs=1e-12) or not bounded)


def test_trivial_classifiers_score_one_half_on_chance_corrected_metrics():
    for name in ("mcc", "kappa", "informedness", "markedness", "pure_accuracy"):
        assert outperformance_score(name, 0.0, 0.17).score == pytest.approx(0.5, abs=1e-12)


def test_g_mean_closed_form_derivation():
    # Pr{(1−A)(1−B) < μ²} = Pr{U·V < μ²} (U, V uniform) = μ²(1 − ln μ²)
    for mu in (0.05, 0.4, 0.9):
        assert outperformance_score("g_mean", mu, 0.3).score == pytest.approx(mu**2 * (1 - math.log(mu**2)), abs=1e-14)


# --- the result object -----------------------------------------------------------------------


def test_result_object():
    r = outperformance_score("fbeta", [0.2, 0.6], 0.25, beta=2.0)
    assert isinstance(r, OPSResult)
    assert r.metric == "fbeta" and r.options == {"beta": 2.0} and r.standard_error == 0.0
    assert r.mc_samples is None and "uniform" in r.reference
    d = json.loads(json.dumps(r.to_dict()))
    assert d["score"] == pytest.approx(list(r.score))
    assert float(outperformance_score("f1", 0.5, 0.5)) == outperformance_score("f1", 0.5, 0.5).score
    assert outperformance_score("F1-Score", 0.5, 0.5).metric == "f1"  # aliases resolved
    assert outperformance_score(bc.measures.get_metric("mcc"), 0.2, 0.3).metric == "mcc"
    with pytest.raises(Exception):
        r.score = 0.0  # frozen


# --- the dispatcher and scoring metrics ------------------------------------------------------


def test_dispatcher_routes_scoring_names(monkeypatch):
    calls = []
    fake = types.ModuleType(SCORING_MODULE)
    fake.SCORING_METRICS = ("roc_auc", "pr_auc", "lift_nauc")

    def scoring_outperformance_score(metric, value, prevalence, **options):
        calls.append((metric, value, prevalence, options))
        return OPSResult(score=0.5, metric=metric, value=value, prevalence=prevalence, method="dbt")

    fake.scoring_outperformance_score = scoring_outperformance_score
    monkeypatch.setitem(sys.modules, SCORING_MODULE, fake)
    r = outperformance_score("PR-AUC", 0.4, 0.1, random_state=3, depth=8)
    assert r.method == "dbt"
    assert calls == [("pr_auc", 0.4, 0.1, {"random_state": 3, "depth": 8})]
    outperformance_score("roc_auc", 0.8, 0.2, method="monte-carlo", mc_samples=50)
    # the dispatcher's default seed is 0 (None: fresh entropy), passed on as every other option
    assert calls[-1][3] == {"method": "monte-carlo", "mc_samples": 50, "random_state": 0}
    # labeling names never reach the scoring module
    outperformance_score("f1", 0.5, 0.3)
    assert len(calls) == 2
    with pytest.raises(InvalidInputError) as exc:
        outperformance_score("no_such_metric", 0.5, 0.3)
    msg = str(exc.value)
    assert "no_such_metric" in msg and "lift_nauc" in msg and "mcc" in msg and "f1" in msg


def test_dispatcher_without_scoring_module(monkeypatch):
    monkeypatch.setitem(sys.modules, SCORING_MODULE, None)  # import fails: module not found
    with pytest.raises(InvalidInputError, match="scoring metric 'roc_auc' is not available") as exc:
        outperformance_score("roc_auc", 0.8, 0.3)
    assert "mcc" in str(exc.value)
    with pytest.raises(InvalidInputError, match="unknown metric 'bogus'") as exc:
        outperformance_score("bogus", 0.8, 0.3)
    assert "roc_auc" in str(exc.value) and "kappa" in str(exc.value)
    # labeling metrics do not need the scoring module
    assert outperformance_score("kappa", 0.0, 0.3).score == pytest.approx(0.5)


# --- bad input (SPEC §6) ---------------------------------------------------------------------


@pytest.mark.parametrize("prevalence", [0.0, 1.0, -0.2, 1.5, np.nan, [0.2, 1.0]])
def test_bad_prevalence(prevalence):
    with pytest.raises(InvalidInputError, match="prevalence"):
        outperformance_score("f1", 0.5, prevalence)


@pytest.mark.parametrize(
    "name, value, prevalence",
    [
        ("f1", 1.2, 0.3),
        ("f1", -0.01, 0.3),
        ("mcc", -1.5, 0.3),
        ("lift", 10.5, 0.1),  # lift ≤ 1/π
        ("kappa", -0.9, 0.1),  # κ ≥ −2π(1−π)/(π² + (1−π)²) ≈ −0.22 at π = 0.1
        ("prediction_advantage", -9.5, 0.1),  # PA ≥ 1 − 1/min(π, 1−π) = −9
        ("error", [0.2, 1.1], 0.5),
    ],
)
def test_value_outside_range(name, value, prevalence):
    with pytest.raises(InvalidInputError, match="outside the range"):
        outperformance_score(name, value, prevalence)


def test_value_at_range_ends_is_accepted():
    assert outperformance_score("lift", 1 / 0.1, 0.1).score == pytest.approx(1.0)
    assert outperformance_score("prediction_advantage", -9.0, 0.1).score == pytest.approx(0.0)


def test_bad_values():
    with pytest.raises(InvalidInputError, match="value contains NaN"):
        outperformance_score("f1", np.nan, 0.3)
    with pytest.raises(InvalidInputError, match="value must be numeric"):
        outperformance_score("f1", "high", 0.3)
    with pytest.raises(InvalidInputError, match="value is empty"):
        outperformance_score("f1", [], 0.3)
    with pytest.raises(InvalidInputError, match="cannot be broadcast"):
        outperformance_score("f1", [0.1, 0.2, 0.3], [0.1, 0.2])


def test_unknown_metric_lists_known_names():
    with pytest.raises(InvalidInputError) as exc:
        outperformance_score("f2_score", 0.5, 0.3)
    for name in ("accuracy", "f1", "mcc", "lift", "roc_auc"):
        assert name in str(exc.value)
    with pytest.raises(InvalidInputError, match="metric must be a metric name or a callable"):
        outperformance_score(3, 0.5, 0.3)


def test_non_vectorised_callables():
    def scalar_only(p, a, b):
        return math.sqrt((1 - a) * (1 - b))  # math on arrays fails

    def returns_scalar(p, a, b):
        return float(np.mean(1 - a - b))

    def not_elementwise(p, a, b):
        return 1 - a - b - np.mean(a)

    def branches(p, a, b):
        return 1.0 if a + b < 1 else 0.0  # truth value of an array is ambiguous

    for func in (scalar_only, returns_scalar, not_elementwise, branches):
        with pytest.raises(InvalidInputError, match=f"metric callable '{func.__name__}' is not"):
            outperformance_score(func, 0.5, 0.3)
    # numpy.vectorize makes it acceptable
    ok = outperformance_score(np.vectorize(branches), 0.5, 0.3, method="monte-carlo", mc_samples=2000, random_state=0)
    assert ok.score == pytest.approx(0.5, abs=0.05)


def test_bad_options():
    with pytest.raises(InvalidInputError, match="method must be one of"):
        outperformance_score("f1", 0.5, 0.3, method="trapezoid")
    with pytest.raises(InvalidInputError, match="closed-form"):
        outperformance_score("mcc", 0.5, 0.3, method="closed-form")
    with pytest.raises(InvalidInputError, match="closed-form"):
        outperformance_score(lambda p, a, b: 1 - a, 0.5, 0.3, method="closed-form")
    for n in (0, -5, 2.5, True):
        with pytest.raises(InvalidInputError, match="mc_samples"):
            outperformance_score("f1", 0.5, 0.3, method="monte-carlo", mc_samples=n)
    with pytest.raises(InvalidInputError, match="takes no option"):
        outperformance_score("mcc", 0.5, 0.3, beta=2.0)
    with pytest.raises(InvalidInputError, match="beta must be positive"):
        outperformance_score("fbeta", 0.5, 0.3, beta=-1.0)
    with pytest.raises(InvalidInputError, match="greater_is_better"):
        outperformance_score("error", 0.5, 0.3, greater_is_better=True)


def test_value_outside_range_message_shows_plain_numbers():
    with pytest.raises(InvalidInputError) as info:
        outperformance_score("prediction_advantage", np.array([-9.9]), np.float64(0.1))
    assert str(info.value) == (
        "value -9.9 is outside the range [-9, 1] of metric 'prediction_advantage' at prevalence 0.1"
    )
