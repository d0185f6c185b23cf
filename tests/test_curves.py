"""Tests of beyondchance.measures.curves: scikit-learn agreement, rate space, brute force, bad input."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import integrate
from sklearn import metrics as skm

import beyondchance as bc
from beyondchance import InvalidInputError, UndefinedMeasureError, UndefinedMeasureWarning
from beyondchance.measures.curves import (
    ThresholdCounts,
    auc_from_rates,
    ideal_auc,
    recall_at_precision_from_rates,
    threshold_counts,
    value_at_from_rates,
)

KINDS = ("roc", "pr", "lift", "gain")
METHODS = {
    "roc": ("default", "step", "trapezoid", "interpolated"),
    "pr": ("default", "ap", "step", "trapezoid", "interpolated"),
    "lift": ("default", "step", "trapezoid", "interpolated"),
    "gain": ("default", "step", "trapezoid", "interpolated"),
}
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- data strategies --------------------------------------------------------------


@st.composite
def scored_data(draw, weighted: bool | None = None, min_n: int = 2, max_n: int = 50):
    """(y, s, w): binary labels with both classes (of positive weight), scores, weights."""
    n = draw(st.integers(min_n, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 2, n)
    assume(0 < y.sum() < n)
    kind = draw(st.sampled_from(["few", "ints", "floats", "probabilities", "signed zeros"]))
    if kind == "few":  # heavy ties
        s = rng.integers(0, 3, n).astype(float)
    elif kind == "probabilities":  # non-negative and distinct: the one-sort class split, no ties
        s = rng.random(n)
    elif kind == "signed zeros":  # -0.0 == 0.0 must form one threshold, whichever class holds it
        s = rng.choice([-0.0, 0.0, 0.25, 1.0], n)
    elif kind == "ints":
        s = rng.integers(-20, 20, n).astype(float)
    else:
        s = rng.normal(size=n) + y
    if weighted is None:
        weighted = draw(st.booleans())
    w = None
    if weighted:
        w = rng.random(n) * 3
        w[rng.random(n) < 0.2] = 0.0  # zero weights are dropped
        if draw(st.booleans()):
            w = np.round(w * 2)  # integer weights
        assume(w[y == 1].sum() > 0 and w[y == 0].sum() > 0)
    return y, s, w


def dbt_like_rates(rng, batch: tuple[int, ...], m: int):
    """Random monotone curves with both end points (sorted uniforms, no ties)."""
    a = np.sort(rng.random(batch + (m,)), axis=-1)
    b = np.sort(rng.random(batch + (m,)), axis=-1)[..., ::-1]
    zeros = np.zeros(batch + (1,))
    ones = np.ones(batch + (1,))
    alpha = np.concatenate([zeros, a, ones], axis=-1)
    beta = np.concatenate([ones, b, zeros], axis=-1)
    return alpha, beta


# --- brute force --------------------------------------------------------------------


def brute_points(y, s, w=None):
    """(alpha, recall) at +inf and every distinct threshold of positive weight, by loops.

    Recall is TP / P, as defined (not 1 - beta, which rounds: 1 - (1 - 3/9) is
    0.33333333333333326 and misses a tie with recall 1/3)."""
    y = np.asarray(y) == 1
    s = np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    P = w[y].sum()
    N = w[~y].sum()
    thresholds = sorted({float(v) for v, wi in zip(s, w) if wi > 0}, reverse=True)
    alpha, recall = [0.0], [0.0]
    for t in thresholds:
        tp = sum(wi for yi, si, wi in zip(y, s, w) if yi and si >= t)
        fp = sum(wi for yi, si, wi in zip(y, s, w) if not yi and si >= t)
        alpha.append(fp / N)
        recall.append(tp / P)
    return np.array(alpha), np.array(recall), P / (P + N), np.array([np.inf] + thresholds)


def brute_xy(alpha, recall, pi, kind):
    """Table 3 coordinates, point by point; 0/0 at the origin takes the next point's value."""
    xs, ys = [], []
    for a, r in zip(alpha, recall):
        q = pi * r + (1 - pi) * a
        if kind == "roc":
            xs.append(a), ys.append(r)
        elif kind == "gain":
            xs.append(q), ys.append(r)
        elif kind == "pr":
            xs.append(r), ys.append(pi * r / q if q > 0 else np.nan)
        else:
            xs.append(q), ys.append(r / q if q > 0 else np.nan)
    ys = np.array(ys)
    first = next(i for i, v in enumerate(ys) if not np.isnan(v))
    ys[:first] = ys[first]
    return np.array(xs), ys


def brute_trapezoid(x, y):
    return sum((x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2 for i in range(1, len(x)))


def brute_interpolated(alpha, recall, pi, kind):
    """Area under eq. 9's curve (linear in (alpha, beta)) by adaptive quadrature per segment."""
    total = 0.0
    for i in range(1, len(alpha)):
        a0, a1, r0, r1 = alpha[i - 1], alpha[i], recall[i - 1], recall[i]

        def point(t):
            a = a0 + t * (a1 - a0)
            r = r0 + t * (r1 - r0)
            return a, r, pi * r + (1 - pi) * a

        if kind == "lift":
            dq = point(1)[2] - point(0)[2]
            if dq <= 0:
                continue
            f = lambda t: point(t)[1] / point(t)[2] * dq  # noqa: E731
        else:  # pr
            dr = point(1)[1] - point(0)[1]
            if dr <= 0:
                continue
            f = lambda t: pi * point(t)[1] / point(t)[2] * dr  # noqa: E731
        total += integrate.quad(f, 0, 1, epsabs=1e-13, epsrel=1e-12)[0]
    return total


def brute_value_at(alpha, recall, pi, kind, u, tie_tol=0.0):
    """Eq. 9 by a loop; among points exactly at x = u the largest y counts.

    ``tie_tol`` absorbs rounding differences when ``u`` is one of the tested code's
    own x values (the brute-force x may differ from it in the last bit)."""
    x, y = brute_xy(alpha, recall, pi, kind)
    at = [y[i] for i in range(len(x)) if abs(x[i] - u) <= tie_tol]
    if at:
        return max(at)
    for i in range(1, len(x)):
        if x[i - 1] < u < x[i]:
            if kind in ("pr", "lift") and alpha[i - 1] == 0 and recall[i - 1] == 0:
                return y[i]  # constant along a segment leaving the origin (exact limit)
            t = (u - x[i - 1]) / (x[i] - x[i - 1])
            a = alpha[i - 1] + t * (alpha[i] - alpha[i - 1])
            r = recall[i - 1] + t * (recall[i] - recall[i - 1])
            return brute_xy(np.array([1.0, a]), np.array([1.0, r]), pi, kind)[1][1]
    raise AssertionError("no segment found")


# --- agreement with scikit-learn ---------------------------------------------------------


@FAST
@given(scored_data())
def test_auc_matches_sklearn(data):
    y, s, w = data
    assert abs(bc.roc_auc(y, s, sample_weight=w) - skm.roc_auc_score(y, s, sample_weight=w)) < 1e-12
    ap = bc.average_precision(y, s, sample_weight=w)
    assert abs(ap - skm.average_precision_score(y, s, sample_weight=w)) < 1e-12
    assert bc.measures.pr_auc(y, s, sample_weight=w) == ap  # AP is the default PR AUC


@FAST
@given(scored_data())
def test_curves_match_sklearn(data):
    y, s, w = data
    roc = bc.roc_curve(y, s, sample_weight=w)
    fpr, tpr, thr = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    assert np.array_equal(roc.thresholds, thr)
    np.testing.assert_allclose(roc.x, fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(roc.y, tpr, rtol=0, atol=1e-12)

    pr = bc.precision_recall_curve(y, s, sample_weight=w)
    precision, recall, thr_pr = skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=False)
    # sklearn: increasing thresholds and a final (recall 0, precision 1) point
    assert np.array_equal(pr.thresholds[1:], thr_pr[::-1])
    np.testing.assert_allclose(pr.x[1:], recall[::-1][1:], rtol=0, atol=1e-12)
    np.testing.assert_allclose(pr.y[1:], precision[::-1][1:], rtol=0, atol=1e-12)
    # our first point: recall 0 with the precision of the highest threshold
    assert pr.x[0] == 0 and pr.y[0] == pr.y[1]


def test_sklearn_label_conventions():
    y = np.array(["spam", "ham", "spam", "ham", "spam"])
    s = np.array([0.9, 0.2, 0.4, 0.4, 0.7])
    ours = bc.roc_auc(y, s, pos_label="spam")
    assert ours == pytest.approx(skm.roc_auc_score(y == "spam", s), abs=1e-15)
    ym = np.where(y == "spam", 1, -1)
    assert bc.roc_auc(ym, s) == ours  # {-1, 1}: 1 is positive
    assert bc.roc_auc(y == "spam", s) == ours  # booleans
    assert bc.roc_auc((y == "spam").astype(float), s) == ours
    # pos_label=0 flips the classes
    assert bc.roc_auc((y == "ham").astype(int), -s, pos_label=0) == pytest.approx(
        skm.roc_auc_score(y == "ham", s), abs=1e-15
    )


def test_sklearn_agreement_large_with_ties():
    rng = np.random.default_rng(7)
    n = 200_000
    y = (rng.random(n) < 0.1).astype(int)
    s = np.round(rng.normal(size=n) + y, 2)
    counts = threshold_counts(y, s)
    assert abs(counts.auc("roc") - skm.roc_auc_score(y, s)) < 1e-12
    assert abs(counts.auc("pr") - skm.average_precision_score(y, s)) < 1e-12


@FAST
@given(scored_data(weighted=False, max_n=80))
def test_unweighted_counts_equal_the_weighted_algorithm(data):
    # two algorithms: per-class sorts merged by binary search / one argsort with weights
    y, s, _ = data
    for yy in (y, np.ones_like(y), np.zeros_like(y)):  # both classes, then one class only
        fast = threshold_counts(yy, s)
        slow = threshold_counts(yy, s, sample_weight=np.ones(s.shape[0]))
        for name in ("thresholds", "tps", "fps"):
            np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))


def test_long_curves_are_summed_by_blocks_without_changing_the_area():
    from beyondchance.measures.curve_rates import _BLOCK, _auc_rates_dense, _auc_xy
    from beyondchance.measures.curve_rates import _resolve_method as _resolve

    rng = np.random.default_rng(11)
    n = 6 * _BLOCK
    y = (rng.random(n) < 0.2).astype(int)
    s = rng.normal(size=n) + y
    s[: n // 3] = np.round(s[: n // 3], 3)  # ties as well
    counts = threshold_counts(y, s)
    assert counts.thresholds.shape[0] > 4 * _BLOCK  # the blocked path runs
    a, tpr = counts._alpha_tpr()
    pi = np.asarray(counts.prevalence)[None]
    for kind in KINDS:
        curve = counts.curve(kind)
        for method in METHODS[kind]:
            resolved = _resolve(kind, method)
            dense = float(_auc_rates_dense(a, tpr, pi, kind, resolved))
            assert counts.auc(kind, method=method) == pytest.approx(dense, rel=1e-13)
            if resolved != "interpolated" or kind in ("roc", "gain"):
                whole = float(_auc_xy(curve.x, curve.y, resolved))
                assert curve.auc(method) == pytest.approx(whole, rel=1e-13)
    assert abs(counts.auc("roc") - skm.roc_auc_score(y, s)) < 1e-12
    assert abs(counts.auc("pr") - skm.average_precision_score(y, s)) < 1e-12
    fpr, tpr_sk, _ = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_array_equal(counts.curve("roc").y, tpr_sk)  # recall is tps / n_pos, bit for bit
    np.testing.assert_array_equal(counts.curve("roc").x, fpr)


def test_blocked_area_skips_a_long_run_at_the_origin():
    # a long run of copies of the end point (alpha, beta) = (0, 1), where q = 0 and
    # precision / lift are 0/0, lies entirely inside the first blocks
    from beyondchance.measures.curve_rates import _BLOCK

    m = 3 * _BLOCK
    alpha = np.concatenate([np.zeros(m), np.linspace(0, 1, 1001)[1:]])
    beta = np.concatenate([np.ones(m), 1 - np.linspace(0, 1, 1001)[1:] ** 0.5])
    for kind in KINDS:
        for method in METHODS[kind]:
            long_ = auc_from_rates(alpha, beta, 0.3, curve=kind, method=method)
            short = auc_from_rates(alpha[m - 1 :], beta[m - 1 :], 0.3, curve=kind, method=method)
            assert np.isfinite(long_)
            assert long_ == pytest.approx(short, rel=1e-13)


# --- rate space == score space ------------------------------------------------------------


@FAST
@given(scored_data())
def test_score_auc_equals_rate_auc(data):
    y, s, w = data
    counts = threshold_counts(y, s, sample_weight=w)
    a, b = counts.rates()
    pi = counts.prevalence
    for kind in KINDS:
        curve = counts.curve(kind)
        # the curve's own alpha/beta are the statistic's (same formula)
        np.testing.assert_array_equal(curve.alpha, a)
        np.testing.assert_array_equal(curve.beta, b)
        # one kernel on both sides; the statistic holds recall as tps / n_pos, the rate
        # functions as 1 - beta, which can differ in the last bit
        for method in METHODS[kind]:
            from_rates = auc_from_rates(a, b, pi, curve=kind, method=method)
            assert counts.auc(kind, method=method) == pytest.approx(from_rates, rel=1e-13, abs=1e-15)
            assert curve.auc(method) == pytest.approx(from_rates, rel=1e-13, abs=1e-15)
        for u in (0.0, 0.3, 0.5, 0.9, 1.0):
            assert counts.value_at(kind, u) == pytest.approx(
                value_at_from_rates(a, b, pi, curve=kind, at=u), rel=1e-13, abs=1e-15
            )


@FAST
@given(scored_data())
def test_brute_force_points_and_axes(data):
    y, s, w = data
    alpha, recall, pi, thr = brute_points(y, s, w)
    counts = threshold_counts(y, s, sample_weight=w)
    a, b = counts.rates()
    np.testing.assert_array_equal(counts.curve("roc").thresholds, thr)
    np.testing.assert_allclose(a, alpha, atol=1e-12)
    np.testing.assert_allclose(b, 1 - recall, atol=1e-12)
    assert counts.prevalence == pytest.approx(pi, abs=1e-12)
    for kind in KINDS:
        x, yy = brute_xy(alpha, recall, pi, kind)
        curve = counts.curve(kind)
        np.testing.assert_allclose(curve.x, x, atol=1e-12)
        np.testing.assert_allclose(curve.y, yy, rtol=1e-12, atol=1e-12)
        # trapezoid and step-wise sums by loops
        assert counts.auc(kind, method="trapezoid") == pytest.approx(brute_trapezoid(x, yy), abs=1e-12)
        step = sum((x[i] - x[i - 1]) * yy[i] for i in range(1, len(x)))
        assert counts.auc(kind, method="step") == pytest.approx(step, abs=1e-12)
    x, yy = brute_xy(alpha, recall, pi, "pr")
    ap = sum((x[i] - x[i - 1]) * yy[i] for i in range(1, len(x)))
    assert counts.auc("pr", method="ap") == pytest.approx(ap, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(scored_data(max_n=25))
def test_interpolated_auc_by_quadrature(data):
    y, s, w = data
    alpha, recall, pi, _ = brute_points(y, s, w)
    counts = threshold_counts(y, s, sample_weight=w)
    for kind in ("lift", "pr"):
        expected = brute_interpolated(alpha, recall, pi, kind)
        assert counts.auc(kind, method="interpolated") == pytest.approx(expected, rel=1e-9, abs=1e-10)
    # roc and gain are linear along a segment: interpolated == trapezoid
    for kind in ("roc", "gain"):
        assert counts.auc(kind, method="interpolated") == counts.auc(kind, method="trapezoid")


@FAST
@given(scored_data())
def test_gain_auc_closed_form_and_nauc_range(data):
    y, s, w = data
    counts = threshold_counts(y, s, sample_weight=w)
    pi = counts.prevalence
    # gain AUC = pi/2 + (1 - pi) * ROC AUC (q = pi*r + (1-pi)*alpha is linear)
    assert counts.auc("gain") == pytest.approx(pi / 2 + (1 - pi) * counts.auc("roc"), abs=1e-12)
    for kind in KINDS:
        nauc = counts.nauc(kind)
        assert -1e-12 <= nauc <= 1 + 1e-12, (kind, nauc)
    assert counts.nauc("pr", method="interpolated") <= 1 + 1e-12


def test_ideal_classifier_reaches_ideal_auc():
    # perfect two-valued scores: the interpolated lift AUC is exactly 1 - ln(pi)
    for pi_n in (1, 3, 10):
        y = np.r_[np.ones(pi_n), np.zeros(30 - pi_n)].astype(int)
        s = y.astype(float)
        pi = pi_n / 30
        assert bc.lift_auc(y, s) == pytest.approx(1 - np.log(pi), rel=1e-13)
        assert bc.gain_auc(y, s) == pytest.approx(1 - pi / 2, rel=1e-13)
        assert bc.roc_auc(y, s) == 1.0
        assert bc.average_precision(y, s) == 1.0
        for kind in KINDS:
            assert bc.measures.curve_nauc(y, s, curve=kind) == pytest.approx(1.0, rel=1e-13)
    # the trapezoid over-estimates with tied scores (documented): 5.95 vs 3.30 at pi = 0.1
    y = np.r_[np.ones(3), np.zeros(27)].astype(int)
    assert bc.lift_auc(y, y.astype(float), method="trapezoid") == pytest.approx(1 + 0.9 * 5.5)


@pytest.mark.parametrize("n_pos, n", [(1, 10), (3, 7), (50, 100)])
def test_trivial_constant_score(n_pos, n):
    y = np.r_[np.ones(n_pos), np.zeros(n - n_pos)].astype(int)
    s = np.full(n, 0.3)
    pi = n_pos / n
    assert bc.roc_auc(y, s) == 0.5
    assert bc.average_precision(y, s) == pytest.approx(pi, abs=1e-15)
    assert bc.lift_auc(y, s) == pytest.approx(1.0, abs=1e-15)
    assert bc.gain_auc(y, s) == 0.5
    assert bc.lift_at_k(y, s, 1) == pytest.approx(1.0)
    assert bc.precision_at_recall(y, s, 0.3) == pytest.approx(pi)


def test_ideal_auc_against_paper_tables():
    # OPS paper Tables 8 and 9: AUC(lift) / NAUC(lift) at the printed prevalences
    rows = [
        (0.091, 2.278, 0.67),
        (0.19, 1.745, 0.656),
        (0.3, 1.806, 0.82),
        (0.112, 1.915, 0.601),
        (0.203, 1.807, 0.696),
        (0.3, 1.621, 0.736),
    ]
    for pi, auc, nauc in rows:
        assert auc / ideal_auc(pi, curve="lift") == pytest.approx(nauc, abs=0.002)
    assert ideal_auc(0.25, curve="gain") == 0.875
    assert ideal_auc(0.25, curve="roc") == ideal_auc(0.25, curve="pr") == 1.0
    np.testing.assert_allclose(ideal_auc([0.1, 0.5], curve="lift"), 1 - np.log([0.1, 0.5]))


# --- batched rate functions ----------------------------------------------------------------


def test_rate_functions_batched_equal_loop():
    rng = np.random.default_rng(3)
    alpha, beta = dbt_like_rates(rng, (7,), 30)
    pis = rng.uniform(0.05, 0.6, 7)
    for kind in KINDS:
        for method in METHODS[kind]:
            batched = auc_from_rates(alpha, beta, pis, curve=kind, method=method)
            looped = [auc_from_rates(alpha[i], beta[i], pis[i], curve=kind, method=method) for i in range(7)]
            np.testing.assert_allclose(batched, looped, rtol=1e-14, atol=0)
        at = rng.random(7)
        batched = value_at_from_rates(alpha, beta, pis, curve=kind, at=at)
        looped = [value_at_from_rates(alpha[i], beta[i], pis[i], curve=kind, at=at[i]) for i in range(7)]
        np.testing.assert_allclose(batched, looped, rtol=1e-14, atol=0)
    p = rng.uniform(0.1, 0.9, 7)
    batched = recall_at_precision_from_rates(alpha, beta, pis, precision=p)
    looped = [recall_at_precision_from_rates(alpha[i], beta[i], pis[i], precision=p[i]) for i in range(7)]
    np.testing.assert_allclose(batched, looped, rtol=1e-14, atol=0)


def test_rate_functions_large_stack_by_groups_of_rows_equal_loop():
    """A stack of more than 2 * _BLOCK points is summed by groups of rows: same values."""
    from beyondchance.measures.curve_rates import _BLOCK

    rng = np.random.default_rng(5)
    rows = 2 * _BLOCK // 400 + 3
    alpha, beta = dbt_like_rates(rng, (rows,), 400)
    assert alpha.size > 2 * _BLOCK
    for pis in (rng.uniform(0.05, 0.6, rows), 0.2):
        for kind in KINDS:
            for method in METHODS[kind]:
                batched = auc_from_rates(alpha, beta, pis, curve=kind, method=method)
                looped = [auc_from_rates(alpha[i], beta[i], np.broadcast_to(pis, rows)[i], curve=kind,
                                         method=method) for i in range(rows)]
                np.testing.assert_allclose(batched, looped, rtol=1e-14, atol=0)


def test_rate_functions_broadcast_prevalence_grid():
    rng = np.random.default_rng(4)
    alpha, beta = dbt_like_rates(rng, (5,), 20)
    grid = np.array([0.1, 0.3, 0.5])[:, None]
    out = auc_from_rates(alpha, beta, grid, curve="pr")
    assert out.shape == (3, 5)
    for j, pi in enumerate(grid[:, 0]):
        np.testing.assert_allclose(out[j], auc_from_rates(alpha, beta, pi, curve="pr"), rtol=1e-15)
    out = value_at_from_rates(alpha, beta, grid, curve="pr", at=0.9)
    assert out.shape == (3, 5)
    # a single curve evaluated at many x values
    v = value_at_from_rates(alpha[0], beta[0], 0.2, curve="lift", at=np.linspace(0, 1, 11))
    assert v.shape == (11,)
    assert float(auc_from_rates(alpha[0], beta[0], 0.2)) == auc_from_rates(alpha[0], beta[0], 0.2)


def test_rate_functions_brute_force_on_random_curves():
    rng = np.random.default_rng(5)
    alpha, beta = dbt_like_rates(rng, (4,), 12)
    pis = [0.1, 0.25, 0.5, 0.8]
    for i, pi in enumerate(pis):
        a, b = alpha[i], beta[i]
        for kind in KINDS:
            x, y = brute_xy(a, 1 - b, pi, kind)
            assert auc_from_rates(a, b, pi, curve=kind, method="trapezoid") == pytest.approx(
                brute_trapezoid(x, y), abs=1e-13
            )
            for u in (0.0, 0.05, 0.37, 0.9, 1.0, x[3]):
                assert value_at_from_rates(a, b, pi, curve=kind, at=u) == pytest.approx(
                    brute_value_at(a, 1 - b, pi, kind, u), abs=1e-13
                )
        for kind in ("lift", "pr"):
            assert auc_from_rates(a, b, pi, curve=kind, method="interpolated") == pytest.approx(
                brute_interpolated(a, 1 - b, pi, kind), rel=1e-9
            )


def test_value_at_is_linear_interpolation_of_rates():
    # eq. 9 with the paper's symbols on a hand-made curve: pi = 0.2
    a = np.array([0.0, 0.1, 0.4, 1.0])
    b = np.array([1.0, 0.5, 0.2, 0.0])
    # recall points 0, 0.5, 0.8, 1; at recall 0.6: t = 1/3 between points 1 and 2
    ah, bh = 0.1 + (0.4 - 0.1) / 3, 0.5 + (0.2 - 0.5) / 3
    prec = 0.2 * (1 - bh) / (0.2 * (1 - bh) + 0.8 * ah)
    assert value_at_from_rates(a, b, 0.2, curve="pr", at=0.6) == pytest.approx(prec, abs=1e-15)
    # ROC: y at x is np.interp where no vertical segment sits at x
    for u in (0.05, 0.2, 0.7):
        assert value_at_from_rates(a, b, 0.2, curve="roc", at=u) == pytest.approx(np.interp(u, a, 1 - b))


# --- point metrics -----------------------------------------------------------------------


@FAST
@given(scored_data(weighted=False), st.floats(0.0, 1.0))
def test_precision_at_recall_brute_force(data, recall):
    y, s, _ = data
    alpha, tpr, pi, _ = brute_points(y, s)
    expected = brute_value_at(alpha, tpr, pi, "pr", recall)
    assert bc.precision_at_recall(y, s, recall) == pytest.approx(expected, abs=1e-12)


@FAST
@given(scored_data(), st.data())
def test_value_at_brute_force_all_curves(data, draw):
    """Eq. 9 on every curve, at its own points (ties, vertical runs) and in between."""
    y, s, w = data
    alpha, recall, pi, _ = brute_points(y, s, w)
    counts = threshold_counts(y, s, sample_weight=w)
    for kind in KINDS:
        grid = counts.curve(kind).x  # exact ties with the curve's own points
        u = draw.draw(st.sampled_from(list(grid)) | st.floats(0.0, 1.0))
        expected = brute_value_at(alpha, recall, pi, kind, u, tie_tol=1e-13 if u in grid else 0.0)
        assert counts.value_at(kind, u) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_value_at_ties_take_the_best_point():
    # scores with a vertical ROC run at alpha = 0.5 and a flat-recall PR run at recall 0.5
    y = [1, 0, 1, 0]
    s = [0.9, 0.8, 0.5, 0.5]
    # points (alpha, recall): (0,0), (0,.5), (.5,.5), (1,1)
    assert bc.measures.curve_value_at(y, s, curve="roc", at=0.5) == 0.5
    assert bc.measures.curve_value_at(y, s, curve="roc", at=0.0) == 0.5  # top of the vertical run
    assert bc.precision_at_recall(y, s, 0.5) == 1.0  # first point of the flat run
    y = [1, 0, 0, 1]
    s = [0.9, 0.8, 0.7, 0.5]
    # ROC (alpha, recall): (0,0), (0,.5), (.5,.5), (1,.5), (1,1): vertical run at alpha 1
    assert bc.measures.curve_value_at(y, s, curve="roc", at=1.0) == 1.0
    assert bc.measures.curve_value_at(y, s, curve="roc", at=0.75) == 0.5
    assert bc.precision_at_recall(y, s, 0.5) == 1.0


@FAST
@given(scored_data(weighted=False), st.data())
def test_precision_and_lift_at_k_brute_force(data, draw):
    y, s, _ = data
    n = len(y)
    k = draw.draw(st.integers(1, n))
    # top k with ties at the cut shared pro rata (random tie-breaking in expectation)
    order = np.argsort(-s, kind="stable")
    cut = s[order[k - 1]]
    above = s > cut
    tied = s == cut
    tp = y[above].sum() + (k - above.sum()) / tied.sum() * y[tied].sum()
    expected = tp / k
    assert bc.precision_at_k(y, s, k) == pytest.approx(expected, abs=1e-12)
    assert bc.precision_at_k(y, s, rate=k / n) == pytest.approx(expected, abs=1e-12)
    assert bc.lift_at_k(y, s, k) == pytest.approx(expected / y.mean(), rel=1e-12)
    if len(np.unique(s)) == n:  # no ties: the plain share of positives in the top k
        assert bc.precision_at_k(y, s, k) == pytest.approx(y[order[:k]].mean(), abs=1e-12)


@FAST
@given(scored_data(), st.floats(0.05, 1.0))
def test_recall_at_precision_by_dense_search(data, p):
    y, s, w = data
    alpha, recall, pi, _ = brute_points(y, s, w)
    # dense search over every segment of eq. 9's curve
    best = -np.inf
    t = np.linspace(0, 1, 2001)
    for i in range(1, len(alpha)):
        a = alpha[i - 1] + t * (alpha[i] - alpha[i - 1])
        r = recall[i - 1] + t * (recall[i] - recall[i - 1])
        q = pi * r + (1 - pi) * a
        ok = (q > 0) & (pi * r >= (p - 1e-12) * q)
        if ok.any():
            best = max(best, r[ok].max())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        got = bc.recall_at_precision(y, s, p, sample_weight=w)
    if best == -np.inf:
        assert np.isnan(got)
    else:
        step = np.max(np.abs(np.diff(recall)))
        assert best - 1e-12 <= got <= best + step / 2000 + 1e-12


@FAST
@given(scored_data())
def test_recall_at_precision_at_the_curves_own_precisions(data):
    # each point qualifies for its own precision, despite rounding in pi*r - p*q
    y, s, w = data
    counts = threshold_counts(y, s, sample_weight=w)
    tps, fps = counts.tps, counts.fps
    for tp, fp in zip(tps, fps):
        if tp == 0:
            continue
        p = tp / (tp + fp)
        best = max(t for t, f in zip(tps, fps) if t > 0 and t / (t + f) >= p) / tps[-1]
        assert counts.recall_at_precision(p) >= best - 1e-12


def test_recall_at_precision_exact_points():
    y = [1, 1, 0, 1, 0, 0]
    s = [6, 5, 4, 3, 2, 1]
    # precision 1 up to recall 2/3; at recall 1 precision 3/4
    assert bc.recall_at_precision(y, s, 1.0) == pytest.approx(2 / 3)
    assert bc.recall_at_precision(y, s, 0.75) == pytest.approx(1.0)
    with pytest.warns(UndefinedMeasureWarning):
        assert np.isnan(bc.recall_at_precision([0, 1], [1, 0], 0.9))
    with pytest.raises(UndefinedMeasureError):
        bc.recall_at_precision([0, 1], [1, 0], 0.9, strict=True)


def test_recall_at_precision_rates_edge_cases():
    # a repeated origin point must not count as reaching any precision
    a = np.array([0.0, 0.0, 0.5, 1.0])
    b = np.array([1.0, 1.0, 0.2, 0.0])
    prec2 = 0.5 * 0.8 / (0.5 * 0.8 + 0.5 * 0.5)
    assert np.isnan(recall_at_precision_from_rates(a, b, 0.5, precision=prec2 + 0.01))
    assert recall_at_precision_from_rates(a, b, 0.5, precision=prec2) == pytest.approx(0.8)
    # precision exactly reached at a point (up to rounding): that point counts
    assert recall_at_precision_from_rates(a, b, 0.5, precision=0.5) == 1.0
    assert recall_at_precision_from_rates(a, b, 0.5, precision=0.0) == 1.0


def test_point_metrics_accept_arrays():
    y = [0, 1, 1, 0, 1, 0, 0, 1]
    s = [0.1, 0.8, 0.6, 0.6, 0.9, 0.2, 0.3, 0.4]
    levels = np.array([0.25, 0.5, 0.75])
    out = bc.precision_at_recall(y, s, levels)
    assert out.shape == (3,)
    for lv, o in zip(levels, out):
        assert o == bc.precision_at_recall(y, s, lv)
    curve = bc.lift_curve(y, s)
    assert curve.value_at(0.5) == bc.lift_at_k(y, s, 4)


# --- the statistic ---------------------------------------------------------------------


@FAST
@given(scored_data(), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_merge_of_chunks_equals_one_shot(data, n_chunks, seed):
    y, s, w = data
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))
    parts = np.array_split(idx, n_chunks)
    parts = [p for p in parts if p.size and (w is None or w[p].sum() > 0)]
    assume(parts)
    stats = [threshold_counts(y[p], s[p], sample_weight=None if w is None else w[p]) for p in parts]
    merged = stats[0]
    for st_ in stats[1:]:
        merged = merged + st_
    whole = threshold_counts(y, s, sample_weight=w)
    np.testing.assert_array_equal(merged.thresholds, whole.thresholds)
    np.testing.assert_allclose(merged.tps, whole.tps, atol=1e-12)
    np.testing.assert_allclose(merged.fps, whole.fps, atol=1e-12)


@FAST
@given(scored_data(weighted=False), st.integers(0, 2**32 - 1))
def test_weight_invariances(data, seed):
    y, s, _ = data
    rng = np.random.default_rng(seed)
    base = threshold_counts(y, s)
    perm = rng.permutation(len(y))
    for kind in KINDS:
        ref = base.auc(kind)
        # sample order
        assert threshold_counts(y[perm], s[perm]).auc(kind) == pytest.approx(ref, abs=1e-12)
        # weights of ones == no weights
        assert threshold_counts(y, s, sample_weight=np.ones(len(y))).auc(kind) == pytest.approx(ref, abs=1e-12)
    # integer weights == repeated rows; zero weights == removed rows
    reps = rng.integers(0, 3, len(y))
    assume(0 < y[reps > 0].sum() < (reps > 0).sum())
    weighted = threshold_counts(y, s, sample_weight=reps)
    repeated = threshold_counts(np.repeat(y, reps), np.repeat(s, reps))
    np.testing.assert_array_equal(weighted.thresholds, repeated.thresholds)
    np.testing.assert_allclose(weighted.tps, repeated.tps)
    np.testing.assert_allclose(weighted.fps, repeated.fps)


@FAST
@given(scored_data())
def test_score_table_round_trip(data):
    y, s, w = data
    whole = threshold_counts(y, s, sample_weight=w)
    ww = np.ones(len(y)) if w is None else w
    # an engine's GROUP BY score, in arbitrary order, with duplicated rows
    uniq, inv = np.unique(s, return_inverse=True)
    pos = np.bincount(inv, weights=ww * (y == 1))
    neg = np.bincount(inv, weights=ww * (y == 0))
    order = np.random.default_rng(0).permutation(uniq.size)
    table = ThresholdCounts.from_score_table(
        np.r_[uniq[order], uniq[:1]], np.r_[pos[order], 0.0], np.r_[neg[order], 0.0]
    )
    np.testing.assert_array_equal(table.thresholds, whole.thresholds)
    np.testing.assert_allclose(table.tps, whole.tps, atol=1e-12)
    np.testing.assert_allclose(table.fps, whole.fps, atol=1e-12)
    back = ThresholdCounts.from_score_table(*whole.score_table())
    np.testing.assert_allclose(back.tps, whole.tps, atol=1e-12)
    with pytest.raises(InvalidInputError):
        ThresholdCounts.from_score_table([0.1], [-1.0], [1.0])
    with pytest.raises(InvalidInputError):
        ThresholdCounts.from_score_table([0.1], [0.0], [0.0])


def test_threshold_counts_public_constructor_and_to_dict():
    c = ThresholdCounts([0.9, 0.5], [1, 2], [0, 3])
    assert c.prevalence == 0.4
    assert c.auc("roc") == pytest.approx(skm.roc_auc_score([1, 1, 0, 0, 0], [0.9, 0.5, 0.5, 0.5, 0.5]))
    json.dumps(c.to_dict(), allow_nan=False)
    curve = c.curve("pr")
    d = curve.to_dict()
    assert d["thresholds"][0] is None and d["thresholds"][1:] == [0.9, 0.5]
    json.dumps(d, allow_nan=False)
    assert len(curve) == 3
    for bad in (([0.5, 0.9], [1, 2], [0, 3]), ([0.9, 0.5], [2, 1], [0, 3]), ([0.9], [1, 2], [0, 3])):
        with pytest.raises(InvalidInputError):
            ThresholdCounts(*bad)
    with pytest.raises(InvalidInputError):
        c.merge(ThresholdCounts([1.0], [1], [1], pos_label="x"))
    with pytest.raises(InvalidInputError):
        c.merge("not counts")
    # arrays are read-only
    with pytest.raises(ValueError):
        c.tps[0] = 5


def test_curve_objects():
    y = [0, 1, 0, 1, 1, 0]
    s = [0.2, 0.9, 0.6, 0.6, 0.4, 0.1]
    for fn, kind in (
        (bc.roc_curve, "roc"),
        (bc.precision_recall_curve, "pr"),
        (bc.lift_curve, "lift"),
        (bc.gain_curve, "gain"),
    ):
        c = fn(y, s)
        assert c.kind == kind
        assert c.thresholds[0] == np.inf
        assert c.tps[0] == c.fps[0] == 0 and c.tps[-1] == 3 and c.fps[-1] == 3
        assert c.auc() == bc.measures.curve_auc(y, s, curve=kind)
        assert c.nauc() == pytest.approx(c.auc() / c.ideal_auc)
        assert np.all(np.diff(c.x) >= 0)
        with pytest.raises((AttributeError, TypeError)):
            c.kind = "x"  # frozen


# --- bad input ----------------------------------------------------------------------------

SCORE_FUNCS = [
    bc.roc_auc,
    bc.average_precision,
    bc.measures.pr_auc,
    bc.lift_auc,
    bc.gain_auc,
    bc.roc_curve,
    bc.precision_recall_curve,
    bc.lift_curve,
    bc.gain_curve,
    threshold_counts,
    lambda y, s, **kw: bc.precision_at_recall(y, s, 0.5, **kw),
    lambda y, s, **kw: bc.precision_at_k(y, s, 1, **kw),
]


@pytest.mark.parametrize("fn", SCORE_FUNCS)
@pytest.mark.parametrize(
    "y, s, w, match",
    [
        ([0, 1, 1], [0.1, 0.2], None, "different lengths"),
        ([], [], None, "empty"),
        ([0, 1], [0.1, np.nan], None, r"y_score has 1 missing value\(s\) \(first in data row 2: NaN\)"),
        ([0, 1], [0.1, np.inf], None, "y_score holds a non-finite value"),
        ([0, 1], [0.1, 0.2], [1.0, np.nan], r"sample_weight has 1 missing value\(s\) \(first in data row 2: NaN\)"),
        ([0, 1], [0.1, 0.2], [1.0, -1.0], "negative"),
        ([0, 1], [0.1, 0.2], [1.0], "sample_weight has length"),
        ([0, 1, 2], [0.1, 0.2, 0.3], None, "binary"),
        ([0, 1, np.nan], [0.1, 0.2, 0.3], None, r"y_true has 1 missing value\(s\) \(first in data row 3: NaN\)"),
        ([0.0, 0.5], [0.1, 0.2], None, "continuous values, not labels"),
        ([0, 1], ["x", "y"], None, "numeric"),
    ],
)
def test_bad_score_input(fn, y, s, w, match):
    with pytest.raises(InvalidInputError, match=match):
        fn(y, s, sample_weight=w)


def test_bad_pos_label():
    with pytest.raises(InvalidInputError, match="pos_label"):
        bc.roc_auc(["a", "b"], [0.1, 0.2], pos_label="c")


@pytest.mark.parametrize("y", [[1, 1, 1], [0, 0, 0], ["a", "a"]])
def test_one_class_is_undefined(y):
    s = np.linspace(0, 1, len(y))
    kw = {"pos_label": "a"} if isinstance(y[0], str) else {}
    for fn in (bc.roc_auc, bc.average_precision, bc.lift_auc, bc.gain_auc, bc.measures.pr_auc):
        with pytest.warns(UndefinedMeasureWarning, match="undefined"):
            assert np.isnan(fn(y, s, **kw))
        with pytest.raises(UndefinedMeasureError):
            fn(y, s, strict=True, **kw)
    with pytest.warns(UndefinedMeasureWarning):
        c = bc.roc_curve(y, s, **kw)
    assert np.isnan(c.x).all() and np.isnan(c.auc())
    with pytest.warns(UndefinedMeasureWarning):
        assert np.isnan(bc.precision_at_recall(y, s, 0.5, **kw))
    with pytest.raises(UndefinedMeasureError):
        bc.roc_curve(y, s, strict=True, **kw)


def test_bad_options():
    y, s = [0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8]
    with pytest.raises(InvalidInputError, match="curve must be one of"):
        bc.measures.curve_auc(y, s, curve="det")
    with pytest.raises(InvalidInputError, match="method must be one of"):
        bc.measures.curve_auc(y, s, method="simpson")
    with pytest.raises(InvalidInputError, match="applies to curve='pr' only"):
        bc.measures.curve_auc(y, s, curve="roc", method="ap")
    assert bc.measures.curve_auc(y, s, curve="pr", method="step") == bc.average_precision(y, s)
    with pytest.raises(InvalidInputError, match="at must lie"):
        bc.precision_at_recall(y, s, 1.5)
    with pytest.raises(InvalidInputError, match="k must lie"):
        bc.precision_at_k(y, s, 5)
    with pytest.raises(InvalidInputError, match="k must lie"):
        bc.precision_at_k(y, s, 0)
    with pytest.raises(InvalidInputError, match="exactly one"):
        bc.precision_at_k(y, s)
    with pytest.raises(InvalidInputError, match="exactly one"):
        bc.lift_at_k(y, s, 2, rate=0.5)
    with pytest.raises(InvalidInputError, match="rate must"):
        bc.lift_at_k(y, s, rate=0.0)
    with pytest.raises(InvalidInputError, match="precision must lie"):
        bc.recall_at_precision(y, s, 2.0)


@pytest.mark.parametrize("fn", [auc_from_rates, value_at_from_rates, recall_at_precision_from_rates])
def test_bad_rates(fn):
    a = np.array([0.0, 0.3, 1.0])
    b = np.array([1.0, 0.4, 0.0])
    fn(a, b, 0.3)  # valid
    for pi in (0.0, 1.0, -0.1, 1.5, np.nan):
        with pytest.raises(InvalidInputError, match="prevalence"):
            fn(a, b, pi)
    cases = [
        (np.array([0.0, 0.5, 0.3, 1.0]), np.array([1.0, 0.5, 0.4, 0.0]), "non-decreasing"),
        (np.array([0.0, 0.3, 0.6, 1.0]), np.array([1.0, 0.2, 0.4, 0.0]), "non-increasing"),
        (np.array([0.1, 0.3, 1.0]), b, "start at the end point"),
        (a, np.array([1.0, 0.4, 0.1]), "end at the end point"),
        (np.array([0.0, np.nan, 1.0]), b, "alpha contains NaN"),
        (np.array([0.0, 1.5, 1.0]), b, "alpha must lie"),
        (a, np.array([1.0, -0.2, 0.0]), "beta must lie"),
        (np.array([0.0]), np.array([1.0]), "at least 2 points"),
        (np.zeros((2, 3)), np.ones((3, 3)), "incompatible shapes"),
    ]
    for aa, bb, match in cases:
        with pytest.raises(InvalidInputError, match=match):
            fn(aa, bb, 0.3)
    with pytest.raises(InvalidInputError, match="broadcast"):
        fn(np.stack([a, a]), np.stack([b, b]), np.array([0.2, 0.3, 0.4]))


def test_bad_rate_options():
    a = np.array([0.0, 0.3, 1.0])
    b = np.array([1.0, 0.4, 0.0])
    with pytest.raises(InvalidInputError, match="curve must be one of"):
        auc_from_rates(a, b, 0.3, curve="cost")
    with pytest.raises(InvalidInputError, match="at must lie"):
        value_at_from_rates(a, b, 0.3, at=-0.1)
    with pytest.raises(InvalidInputError, match="at of shape"):
        value_at_from_rates(np.stack([a, a]), np.stack([b, b]), 0.3, at=[0.1, 0.2, 0.3])
    with pytest.raises(InvalidInputError, match="prevalence"):
        ideal_auc(1.0, curve="lift")


def test_precision_at_recall_on_a_flat_recall_run_takes_its_first_point():
    # issue 11: two curve points share recall 3/9 (thresholds 10 and 1); eq. 9 is 0/0
    # there and the best of them counts: at threshold 10, TP = 3 and FP = 3
    y = [0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1]
    s = [-17, -19, 14, 10, 13, 1, 12, -7, -2, 11, -16, -8, -16, -2, 19, -15, -5, -4]
    alpha, recall, pi, _ = brute_points(y, s)
    expected = brute_value_at(alpha, recall, pi, "pr", 1 / 3)
    assert expected == pytest.approx(3 / (3 + 3), abs=1e-12)
    assert bc.precision_at_recall(y, s, 1 / 3) == pytest.approx(expected, abs=1e-12)
