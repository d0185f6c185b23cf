"""Precision-recall-gain curve and AUPRG against the authors' reference algorithm
(Flach & Kull 2015; github.com/meeliskull/prg, prg.py: create_prg_curve / calc_auprg),
transcribed below with weighted counts; and the OPS of prg_auc through the DBT reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.outperformance.dbt import sample_dbt
from beyondchance.outperformance.scoring import reference_distribution, scoring_metric_from_rates
from beyondchance.measures.precision_recall_gain import prg_auc_from_rates


# --- the reference implementation, transcribed (loops, dict of arrays, as the original) ---

def _pg(tp, fn, fp, tn):
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 1.0 - ((tp + fn) / (fp + tn)) * (fp / tp)
    return np.where(tn + fn == 0, 0.0, g)


def _rg(tp, fn, fp, tn):
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 1.0 - ((tp + fn) / (fp + tn)) * (fn / tp)
    return np.where(tn + fn == 0, 1.0, g)


def reference_prg(labels, scores, weights):
    order = np.argsort(-scores, kind="stable")
    labels, scores, weights = labels[order], scores[order], weights[order]
    seg_score, pos, neg = [], [], []
    for i in range(len(labels)):
        if i == 0 or scores[i - 1] != scores[i]:
            seg_score.append(scores[i]); pos.append(0.0); neg.append(0.0)
        if labels[i] == 1:
            pos[-1] += weights[i]
        else:
            neg[-1] += weights[i]
    n_pos, n_neg = sum(pos), sum(neg)
    pts = {"score": np.r_[np.inf, seg_score], "TP": np.r_[0.0, np.cumsum(pos)], "FP": np.r_[0.0, np.cumsum(neg)]}
    pts["FN"], pts["TN"] = n_pos - pts["TP"], n_neg - pts["FP"]
    pts["precision_gain"] = _pg(pts["TP"], pts["FN"], pts["FP"], pts["TN"])
    pts["recall_gain"] = _rg(pts["TP"], pts["FN"], pts["FP"], pts["TN"])
    pts["is_crossing"] = np.zeros(len(pts["TP"]))
    n = n_pos + n_neg
    # the crossing of the y-axis (recall gain 0)
    j = int(np.amin(np.where(pts["recall_gain"] >= 0)[0]))
    if pts["recall_gain"][j] > 0:
        d_tp = pts["TP"][j] - pts["TP"][j - 1]
        a = (n_pos * n_pos / n - pts["TP"][j - 1]) / d_tp if d_tp > 0 else 0.5
        new = {k: pts[k][j - 1] + a * (pts[k][j] - pts[k][j - 1]) for k in ("TP", "FP", "FN", "TN")}
        new_pg = float(_pg(new["TP"], new["FN"], new["FP"], new["TN"]))
        for k in pts:
            value = {"precision_gain": new_pg, "recall_gain": 0.0, "is_crossing": 1.0, "score": pts["score"][j]}.get(k)
            pts[k] = np.insert(pts[k], j, new[k] if value is None else value)
    # crossings of the x-axis (precision gain 0) where recall gain >= 0: they lie on the
    # straight segment in gain space, so they leave the area unchanged; inserted as the original
    x, y = pts["recall_gain"], pts["precision_gain"]
    i = 1
    while i < len(x):
        with np.errstate(invalid="ignore"):
            crosses = y[i] * y[i - 1] < 0 and x[i - 1] >= 0
        if crosses:
            cross_x = x[i - 1] + (-y[i - 1]) / (y[i] - y[i - 1]) * (x[i] - x[i - 1])
            for k in pts:
                value = {"precision_gain": 0.0, "recall_gain": cross_x, "is_crossing": 2.0}.get(k, pts[k][i])
                pts[k] = np.insert(pts[k], i, value)
            x, y = pts["recall_gain"], pts["precision_gain"]
            i += 1
        i += 1
    area = 0.0
    for i in range(1, len(x)):
        if (not np.isnan(x[i - 1])) and x[i - 1] >= 0:
            area += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2
    return pts, area


@st.composite
def scored(draw):
    n = draw(st.integers(2, 50))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(lambda v: 0 < sum(v) < len(v)))
    s = draw(st.lists(st.integers(0, 8) | st.floats(0, 1), min_size=n, max_size=n))
    w = draw(st.lists(st.sampled_from([1.0, 2.0, 0.5]) | st.floats(0.01, 4.0), min_size=n, max_size=n))
    return np.array(y), np.array(s, dtype=float), np.array(w)


@settings(max_examples=200, deadline=None)
@given(scored(), st.booleans())
def test_auprg_and_curve_equal_reference_implementation(data, weighted):
    y, s, w = data
    w = w if weighted else np.ones(y.size)
    pts, area = reference_prg(y, s, w)
    sw = w if weighted else None
    assert bc.prg_auc(y, s, sample_weight=sw) == pytest.approx(area, abs=1e-12)
    curve = bc.precision_recall_gain_curve(y, s, sample_weight=sw)
    assert curve.auc() == pytest.approx(area, abs=1e-12)
    # the reference's points from the y-axis crossing on, without the x-axis crossings
    keep = (pts["recall_gain"] >= 0) & (pts["is_crossing"] != 2)
    np.testing.assert_allclose(curve.recall_gain, pts["recall_gain"][keep], rtol=0, atol=1e-12)
    np.testing.assert_allclose(curve.precision_gain, pts["precision_gain"][keep], rtol=0, atol=1e-12)
    assert curve.is_crossing.sum() <= 1
    # the rate-space estimator on the classifier's own (alpha, beta) = the score-space one
    counts = bc.threshold_counts(y, s, sample_weight=sw)
    a, b = counts.rates()
    assert scoring_metric_from_rates("prg_auc", a, b, counts.prevalence) == pytest.approx(area, abs=1e-12)


def test_batched_rates_equal_one_by_one_and_bounds():
    a, b = sample_dbt(64, 5, random_state=np.random.default_rng(5))
    pi = np.random.default_rng(6).uniform(0.02, 0.98, 64)
    batch = prg_auc_from_rates(a, b, pi)
    single = [prg_auc_from_rates(a[i], b[i], pi[i]) for i in range(64)]
    np.testing.assert_allclose(batch, single, rtol=0, atol=1e-15)
    assert ((batch >= bc.measures.precision_recall_gain.prg_auc_lower(pi) - 1e-12) & (batch <= 1 + 1e-12)).all()


def test_perfect_constant_and_reversed_rankings():
    y = np.array([0, 0, 0, 1, 1, 0, 0, 1, 0, 0])
    assert bc.prg_auc(y, y) == 1.0
    assert bc.prg_auc(y, np.zeros(10)) == 0.0
    assert bc.prg_auc(y, -y) < 0


def test_one_class_is_undefined():
    with pytest.warns(bc.UndefinedMeasureWarning):
        assert np.isnan(bc.prg_auc([1, 1, 1], [0.1, 0.2, 0.3]))
    with pytest.warns(bc.UndefinedMeasureWarning):
        assert np.isnan(bc.precision_recall_gain_curve([0, 0], [0.1, 0.2]).auc())


def test_string_labels_and_pos_label():
    y = np.array(["no", "yes", "yes", "no", "yes"])
    s = [0.1, 0.9, 0.8, 0.7, 0.3]
    assert bc.prg_auc(y, s, pos_label="yes") == bc.prg_auc((y == "yes").astype(int), s)
    assert bc.prg_auc(y, s) == bc.prg_auc(y, s, pos_label="no")  # without pos_label: the minority class


# --- OPS through the Directed Binary Tree reference ---------------------------------

G = 4096  # tests: a small reference (standard error ≤ 0.008), cached in this session's directory


def test_ops_is_the_share_of_dbt_curves_beaten():
    pi = 0.23
    ref = reference_distribution("prg_auc", pi, mc_samples=G)
    values = np.array([-1.0, -0.2, 0.0, 0.2, 0.5, 0.9])
    r = bc.outperformance_score("prg_auc", values, pi, mc_samples=G, interpolate=False)
    np.testing.assert_array_equal(r.score, np.searchsorted(ref, values, side="left") / G)
    assert r.method == "dbt" and r.mc_samples == G
    assert (np.diff(r.score) >= 0).all()
    assert bc.outperformance_score("prg_auc", bc.measures.precision_recall_gain.prg_auc_lower(pi), pi, mc_samples=G).score == 0.0
    assert bc.outperformance_score("prg_auc", 1.0, pi, mc_samples=G).score > 0.99


def test_reference_values_are_auprg_of_the_dbt_curves():
    from beyondchance.outperformance.dbt import DirectedBinaryTree, reference_chunks

    pi = 0.4
    ref = reference_distribution("prg_auc", pi, mc_samples=G, cache=False)
    (_, a, b), = list(reference_chunks(DirectedBinaryTree(10), G, 0))
    np.testing.assert_allclose(ref, np.sort(prg_auc_from_rates(a, b, pi)), rtol=0, atol=1e-9)
    # a random monotone curve has AUPRG about 0, as a random ranking
    assert abs(float(np.median(ref))) < 0.05


def test_ops_value_range_is_checked():
    with pytest.raises(bc.InvalidInputError, match="value must lie in"):
        bc.outperformance_score("prg_auc", -3.5, 0.25, mc_samples=G)  # lower bound 1 − 1/π = −3
    with pytest.raises(bc.InvalidInputError, match="value must lie in"):
        bc.outperformance_score("prg_auc", 1.01, 0.25, mc_samples=G)


def test_ops_prg_auc_scorer_equals_the_functions():
    from sklearn.linear_model import LogisticRegression

    from beyondchance.datasets import load_keel

    d = load_keel("haberman")
    model = LogisticRegression().fit(d.X, d.y)
    scorer = bc.make_scorer("ops_prg_auc", mc_samples=G)
    p = model.predict_proba(d.X)[:, 1]
    value = bc.prg_auc(d.y, p)
    expected = bc.outperformance_score("prg_auc", value, d.y.mean(), mc_samples=G).score
    assert scorer(model, d.X, d.y) == expected
    assert "ops_prg_auc" in bc.learn.scorer_names()


def test_ops_interval_keeps_negative_auprg():
    # a poor ranking: AUPRG below 0 in the data and in the resamples (not clipped at 0)
    rng = np.random.default_rng(21)
    y = (rng.uniform(size=400) < 0.2).astype(int)
    s = rng.uniform(size=400) - 0.3 * y
    value = bc.prg_auc(y, s)
    assert value < 0
    ci = bc.outperformance_score_ci("prg_auc", y, s, n_resamples=200, random_state=0, mc_samples=G)
    assert ci.value == pytest.approx(value, abs=1e-12)
    assert ci.estimate == bc.outperformance_score("prg_auc", value, y.mean(), mc_samples=G).score
    assert 0 <= ci.low <= ci.estimate <= ci.high < 0.5


def test_multiclass_one_vs_rest_ops_of_auprg():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 3, 300)
    P = rng.dirichlet([1, 1, 1], 300)
    P[np.arange(300), y] += 0.5
    P /= P.sum(axis=1, keepdims=True)
    r = bc.multiclass_outperformance_score("prg_auc", y, P, mc_samples=G)
    values = [bc.prg_auc((y == k).astype(int), P[:, k]) for k in range(3)]
    np.testing.assert_allclose(r.values, values, rtol=0, atol=1e-12)
    expected = [bc.outperformance_score("prg_auc", v, (y == k).mean(), mc_samples=G).score for k, v in enumerate(values)]
    np.testing.assert_array_equal(r.scores, expected)
    assert r.score == pytest.approx(np.mean(expected), abs=1e-15)
