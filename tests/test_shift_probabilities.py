"""The decomposition of the one-vs-rest ROC AUCs and the probability losses (shift_probabilities).

The expected values are checked against scikit-learn on data built by class-wise
resampling of the reference (each class's rows replicated an integer number of times, so
the class-conditional distributions are exactly the reference's): there the test set's
own values *are* the reference classifier at the test set's class distribution.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import log_loss, roc_auc_score

import beyondchance as bc
from beyondchance.monitoring.decomposition_multiclass import decompose_distributions
from beyondchance.monitoring.probabilities import (DECOMPOSABLE_PROBABILITIES, ProbabilityStatistics,
                                              metrics_at_probabilities)
from beyondchance.report import compare

NAMES = list(DECOMPOSABLE_PROBABILITIES)


def _rows(n: int, pi, seed: int = 0, k: int = 3, ties: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.choice(k, n, p=pi)
    P = rng.dirichlet(np.ones(k), n)
    P[np.arange(n), y] += 0.4
    P /= P.sum(1, keepdims=True)
    if ties:  # few distinct scores per column: ties within and across classes
        P = np.round(P, 1)
        P[:, -1] = 1 - P[:, :-1].sum(1)
        P = np.clip(P, 0, 1)
        P /= P.sum(1, keepdims=True)
    return y, P


def _sklearn(y, P, w=None) -> dict[str, float]:
    k = P.shape[1]
    onehot = np.eye(k)[y]
    return {"roc_auc": roc_auc_score(y, P, multi_class="ovr", average="macro", sample_weight=w),
            "roc_auc_weighted": roc_auc_score(y, P, multi_class="ovr", average="weighted", sample_weight=w),
            "log_loss": log_loss(y, P, sample_weight=w, labels=np.arange(k)),
            "brier": float(np.average(((P - onehot) ** 2).sum(1), weights=w))}


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_own_distribution_is_own_value(ties, weighted):
    y, P = _rows(700, [0.5, 0.3, 0.2], seed=1, ties=ties)
    w = np.random.default_rng(2).random(y.size) + 0.2 if weighted else None
    s = ProbabilityStatistics.from_rows(y, P, [0, 1, 2], w)
    got = metrics_at_probabilities(s, s.prevalences, NAMES)
    for m, v in _sklearn(y, P, w).items():
        assert float(got[m]) == pytest.approx(v, rel=1e-12, abs=1e-12), m


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_classwise_resampling_expected_equals_observed(ties, weighted):
    """Test set = class k's rows of the reference replicated r_k times: the reference at the
    test set's class distribution scores what scikit-learn computes on the test set."""
    y, P = _rows(600, [0.4, 0.35, 0.25], seed=3, ties=ties)
    w = np.random.default_rng(4).random(y.size) + 0.2 if weighted else None
    ref = ProbabilityStatistics.from_rows(y, P, [0, 1, 2], w)
    for reps in ((1, 3, 5), (4, 1, 2), (2, 2, 7)):
        idx = np.concatenate([np.repeat(np.flatnonzero(y == k), r) for k, r in enumerate(reps)])
        wt = None if w is None else w[idx]
        new = ProbabilityStatistics.from_rows(y[idx], P[idx], [0, 1, 2], wt)
        expected = metrics_at_probabilities(ref, new.prevalences, NAMES)
        for m, v in _sklearn(y[idx], P[idx], wt).items():
            assert float(expected[m]) == pytest.approx(v, rel=1e-12, abs=1e-12), (m, reps)
        d = decompose_distributions(ref.binned, new.binned, NAMES, metrics_at_probabilities, exact=(ref, new),
                                    n_resamples=0)
        for m in NAMES:
            assert abs(d[m].classifier_effect) < 1e-12 and d[m].value == pytest.approx(_sklearn(
                y[idx], P[idx], wt)[m], rel=1e-12), m


def test_a_changed_classifier_has_a_classifier_effect():
    """The test set's scores mixed with noise (the ranking degrades): the AUCs' classifier
    effect is negative, its interval excludes 0, the expected value's interval holds the truth."""
    y, P = _rows(3000, [0.5, 0.3, 0.2], seed=5)
    ref = ProbabilityStatistics.from_rows(y, P, [0, 1, 2])
    y2, P2 = _rows(3000, [0.2, 0.3, 0.5], seed=6)
    blurred = 0.5 * P2 + 0.5 * np.random.default_rng(12).dirichlet(np.ones(3), y2.size)
    new = ProbabilityStatistics.from_rows(y2, blurred, [0, 1, 2])
    d = decompose_distributions(ref.binned, new.binned, NAMES, metrics_at_probabilities, exact=(ref, new),
                                n_resamples=300, random_state=0)
    for m in ("roc_auc", "roc_auc_weighted"):
        assert d[m].classifier_effect_ci[1] < 0 < d[m].classifier_effect_ci[1] - d[m].classifier_effect_ci[0]
    unblurred = metrics_at_probabilities(ProbabilityStatistics.from_rows(y2, P2, [0, 1, 2]),
                                         new.prevalences, NAMES)
    for m in NAMES:  # the reference classifier at π' (up to sampling): the unblurred test set
        lo, hi = d[m].expected_ci
        assert lo <= float(unblurred[m]) <= hi, m
        assert d[m].expected_ci[0] <= d[m].expected_value <= d[m].expected_ci[1]


def test_binning_only_moves_the_resampling():
    """More distinct scores than bins: the point estimates are exact (scikit-learn's), the
    binned statistic differs, and the intervals are centred on the exact estimates."""
    y, P = _rows(5000, [0.5, 0.3, 0.2], seed=7)
    s = ProbabilityStatistics.from_rows(y, P, [0, 1, 2])
    assert s.binned.hists[0].shape[0] < s.hists[0].shape[0]
    exact = metrics_at_probabilities(s, s.prevalences, ["roc_auc"])["roc_auc"]
    binned = metrics_at_probabilities(s.binned, s.binned.prevalences, ["roc_auc"])["roc_auc"]
    assert float(exact) == pytest.approx(roc_auc_score(y, P, multi_class="ovr"), rel=1e-12)
    assert 0 < abs(float(exact) - float(binned)) < 1e-3


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 16), k=st.integers(3, 5), n=st.integers(20, 120),
       mult=st.lists(st.integers(1, 4), min_size=5, max_size=5))
def test_invariants(seed, k, n, mult):
    """Row order does not matter; integer weights = repeated rows; at its own class
    distribution the statistic gives its own values; the expected values are mixtures."""
    y, P = _rows(n, np.ones(k) / k, seed=seed, k=k)
    if np.unique(y).size < k:
        return
    s = ProbabilityStatistics.from_rows(y, P, list(range(k)))
    perm = np.random.default_rng(seed).permutation(n)
    shuffled = ProbabilityStatistics.from_rows(y[perm], P[perm], list(range(k)))
    r = np.asarray(mult[:k])[y]
    repeated = ProbabilityStatistics.from_rows(np.repeat(y, r), np.repeat(P, r, axis=0), list(range(k)))
    weighted = ProbabilityStatistics.from_rows(y, P, list(range(k)), r.astype(float))
    pi = np.random.default_rng(seed + 1).dirichlet(np.ones(k))
    a, b = (metrics_at_probabilities(x, pi, NAMES) for x in (s, shuffled))
    assert all(float(a[m]) == pytest.approx(float(b[m]), rel=1e-12, abs=1e-12) for m in NAMES)
    b, c = (metrics_at_probabilities(x, pi, NAMES) for x in (repeated, weighted))
    assert all(float(b[m]) == pytest.approx(float(c[m]), rel=1e-12, abs=1e-12) for m in NAMES)
    own = metrics_at_probabilities(s, s.prevalences, NAMES)
    for m, v in _sklearn(y, P).items():
        assert float(own[m]) == pytest.approx(v, rel=1e-9, abs=1e-12), m
    # the losses are linear in π'; each class's AUC lies between its pairwise AUCs
    ends = [metrics_at_probabilities(s, np.eye(k)[j], ["log_loss"])["log_loss"] for j in range(k)]
    assert float(a["log_loss"]) == pytest.approx(float(np.dot(pi, ends)), rel=1e-12)
    assert 0 <= float(a["roc_auc"]) <= 1


def test_compare_decomposes_the_aucs_and_losses():
    """bc.compare of probabilities: the four rows carry the decomposition (observed = the
    report's value, class-wise resampled test set: classifier effect 0), the verdict reads the
    per-class tests and the AUCs' classifier effects, and average precision stays undecomposed."""
    y, P = _rows(900, [0.5, 0.3, 0.2], seed=8)
    idx = np.concatenate([np.repeat(np.flatnonzero(y == k), r) for k, r in enumerate((1, 2, 4))])
    c = bc.compare({"ref": (y, P), "new": (y[idx], P[idx])}, n_resamples=200)
    for m in NAMES:
        ch = c.change("new", m)
        assert ch.decomposition is not None and ch.direction == "no significant change", m
        assert ch.value == pytest.approx(_sklearn(y[idx], P[idx])[m], rel=1e-12)
        assert abs(ch.classifier_effect) < 1e-12 and ch.classifier_effect_ci[0] <= 0 <= ch.classifier_effect_ci[1]
        assert ch.expected_ci[0] <= ch.expected_value <= ch.expected_ci[1]
    assert c.change("new", "pr_auc").direction == "not decomposed"
    assert [t.quantity for t in c.classifier_change("new").tests] == [
        "class:0", "class:1", "class:2", "classifier effect:roc_auc", "classifier effect:roc_auc_weighted"]
    assert not c.classifier_change("new").changed
    out = json.loads(json.dumps(c.to_dict(), allow_nan=False))
    row = next(r for r in out["changes"] if r["metric"] == "roc_auc_weighted")
    assert row["expected_ci"] is not None and row["classifier_effect_ci"] is not None
    assert "exp " in c.decomposition_text("new", "log_loss")


def test_compare_weighted_and_text_labels():
    y, P = _rows(800, [0.3, 0.3, 0.4], seed=9)
    names = np.array(["cat", "dog", "eel"])
    w = np.random.default_rng(10).random(y.size) + 0.5
    c = bc.compare({"a": (names[y[:400]], P[:400], w[:400]), "b": (names[y[400:]], P[400:], w[400:])},
                   n_resamples=100)
    ch = c.change("b", "roc_auc")
    assert ch.value == pytest.approx(roc_auc_score(y[400:], P[400:], multi_class="ovr", sample_weight=w[400:]),
                                     rel=1e-12)
    assert ch.classifier_effect_ci is not None


@pytest.mark.parametrize("score_bins", [None, 20])
@pytest.mark.parametrize("weighted", [False, True])
def test_sql_statistics_equal_the_rows(weighted, score_bins):
    """DuckDB's ProbabilityStatistics (histograms, loss sums, the bootstrap's groups of rows)
    equal those of the rows in file order — of the scores in the engine's bins with
    ``score_bins`` — so the engines decompose exactly as memory does."""
    import pandas as pd

    from beyondchance.engines.duckdb import DuckDBRunner
    from beyondchance.engines.sql_replicates import sql_probability_statistics

    y, P = _rows(700, [0.5, 0.3, 0.2], seed=12, ties=True)
    P[:300] = _rows(300, [0.5, 0.3, 0.2], seed=13)[1]  # ties and distinct scores
    w = np.random.default_rng(14).exponential(1.0, y.size) if weighted else None
    frame = pd.DataFrame({"y": y, "p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "w": 1.0 if w is None else w})
    mem = ProbabilityStatistics.from_codes(y, P, (0, 1, 2), w, seed=5)
    binned = ProbabilityStatistics.from_codes(y, P, (0, 1, 2), w, seed=5, score_bins=score_bins)
    runner = DuckDBRunner(frame)
    try:
        sql = sql_probability_statistics(runner, y_true="y", proba=["p0", "p1", "p2"],
                                         weight="w" if weighted else None, classes=[0, 1, 2],
                                         score_bins=score_bins, seed=5)
    finally:
        runner.close()
    for a, b in zip(binned.hists + binned.groups.hists, sql.hists + sql.groups.hists):
        assert a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=1e-12)
    for m in ("log_loss", "brier"):
        assert np.allclose(mem.losses[m], sql.losses[m], rtol=1e-12)
        assert np.allclose(mem.groups.losses[m], sql.groups.losses[m], rtol=1e-12, atol=1e-12)


def test_engines_decompose_as_memory():
    """compare on DuckDB (data frames) gives the decomposition of memory with the same seed:
    the same values, expected values and intervals."""
    import pandas as pd

    y, P = _rows(600, [0.5, 0.3, 0.2], seed=11)
    w = np.random.default_rng(15).random(y.size) + 0.5
    parts = (("a", slice(0, 300)), ("b", slice(300, 600)))
    frames = {name: pd.DataFrame({"y": y[s], "p0": P[s, 0], "p1": P[s, 1], "p2": P[s, 2], "w": w[s]})
              for name, s in parts}
    kw = dict(n_resamples=100, mc_samples=1024, random_state=3)
    eng = compare(frames, y_true="y", y_score=["p0", "p1", "p2"], sample_weight="w", engine="duckdb", **kw)
    mem = bc.compare({name: (y[s], P[s], w[s]) for name, s in parts}, **kw)
    for m in NAMES:
        a, b = mem.change("b", m), eng.change("b", m)
        assert b.decomposition is not None, m
        for field in ("value", "expected_value", "classifier_effect"):
            assert getattr(b, field) == pytest.approx(getattr(a, field), rel=1e-9, abs=1e-12), (m, field)
        for field in ("expected_ci", "classifier_effect_ci"):
            assert np.allclose(getattr(b, field), getattr(a, field), rtol=1e-9, atol=1e-12), (m, field)


@pytest.mark.parametrize("weighted", [False, True])
def test_binned_probabilities_decompose_alike_on_every_engine(weighted):
    """score_bins: the AUCs shown are those of the binned class scores, and their decomposition
    (and the losses', from the exact rows) is the same on memory and DuckDB — memory's scan
    gave none ("no row order (a DuckDB relation)"), DuckDB's the decomposition."""
    import pandas as pd

    y, P = _rows(400, [0.5, 0.3, 0.2], seed=16)
    w = np.random.default_rng(17).random(y.size) + 0.5
    frames = {name: pd.DataFrame({"y": y[s], "p0": P[s, 0], "p1": P[s, 1], "p2": P[s, 2], "w": w[s]})
              for name, s in (("a", slice(0, 200)), ("b", slice(200, 400)))}
    kw = dict(y_true="y", y_score=["p0", "p1", "p2"], sample_weight="w" if weighted else None, score_bins=10,
              n_resamples=100, mc_samples=1024, random_state=3)
    mem, eng = compare(frames, engine="memory", **kw), compare(frames, engine="duckdb", **kw)
    assert mem.notes == eng.notes and not any("not decomposed" in note for note in mem.notes)
    assert len(mem.classifier_changes[0].tests) == len(eng.classifier_changes[0].tests)
    for m in NAMES:
        a, b = mem.change("b", m), eng.change("b", m)
        assert a.reference_value == pytest.approx(mem.reports[0].metrics[m].value, rel=1e-12), m  # binned
        for field in ("value", "expected_value", "classifier_effect"):
            assert getattr(a, field) is not None, (m, field)
            assert getattr(b, field) == pytest.approx(getattr(a, field), rel=1e-9, abs=1e-12), (m, field)
        for field in ("expected_ci", "classifier_effect_ci"):
            assert np.allclose(getattr(b, field), getattr(a, field), rtol=1e-9, atol=1e-12), (m, field)


def test_simulation_quick_coverage():
    """The simulation's probabilities part (benchmarks/sim_monitoring_multiclass.py), a few
    replicates: the intervals of the expected values and of the classifier effect cover."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "sim_monitoring_multiclass.py"
    spec = importlib.util.spec_from_file_location("sim_monitoring_multiclass", path)
    sim = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = sim
    spec.loader.exec_module(sim)
    cov = sim.probability_coverage(sim.make_pool(), (0.1, 0.8, 0.1), 40, 2000, 150, seed=31)
    assert set(cov) == set(NAMES)
    for m, (expected, effect) in cov.items():
        assert expected >= 0.85 and effect >= 0.85, (m, expected, effect)


@pytest.mark.parametrize("seed", range(6))
def test_bca_p_value_inverts_the_interval(seed):
    """p ≤ 1 − level exactly when the level's BCa interval (shifted onto the exact estimate)
    excludes 0 — up to the percentiles' discreteness — with and without the acceleration."""
    from beyondchance.monitoring.decomposition import _interval, bca_pvalue

    rng = np.random.default_rng(seed)
    draws = rng.gamma(4.0, 0.01, 2000) - 0.04 + rng.normal(0, 0.02)  # skewed, centre anywhere near 0
    centre = float(np.quantile(draws, rng.uniform(0.2, 0.8)))  # ẑ₀ ≠ 0
    jack = [(rng.normal(0, 1, 50) ** 3, np.ones(50))] if seed % 2 else None
    for tail in (0.003, 0.01, 0.03, 0.07, 0.15, 0.5, 0.9, 0.97):  # 0 at this quantile of the draws
        exact = centre - float(np.quantile(draws, tail))
        p = bca_pvalue(exact, centre, draws, jack)
        assert 0 < p <= 1
        for level in (0.8, 0.9, 0.95, 0.99):
            lo, hi = _interval(exact, centre, draws, level, jack)
            if abs(p - (1 - level)) > 0.005:
                assert (lo > 0 or hi < 0) == (p < 1 - level), (tail, level, lo, hi, p)


def test_changed_probabilities_are_detected_by_the_auc_tests():
    """A test set whose class probabilities changed but whose arg-max labels did not (the two
    runners-up swapped in most rows): the per-class tests cannot see it, the one-vs-rest ROC
    AUCs' classifier effects do, and the verdict names them; unchanged, nothing is flagged."""
    y, P = _rows(6000, [0.5, 0.3, 0.2], seed=21)
    order = np.argsort(P, axis=1)
    Q = P.copy()
    rows = np.arange(3000, 6000)[np.random.default_rng(22).random(3000) < 0.7]
    Q[rows, order[rows, 0]], Q[rows, order[rows, 1]] = P[rows, order[rows, 1]], P[rows, order[rows, 0]]
    assert np.array_equal(Q.argmax(1), P.argmax(1))
    c = bc.compare({"ref": (y[:3000], P[:3000]), "same": (y[3000:], P[3000:]), "new": (y[3000:], Q[3000:])},
                   n_resamples=300, random_state=2)
    assert not c.classifier_change("same").changed
    cc = c.classifier_change("new")
    flagged = [t.quantity for t in cc.tests if t.pvalue_adjusted <= cc.level]
    assert cc.changed and flagged and all(q.startswith("classifier effect:") for q in flagged), cc
    line = next(v for v in c.verdict if v.startswith("new"))
    assert "the classifier changed" in line and "would score" in line
    tested = [t["quantity"] for t in c.to_dict()["classifier_changes"][1]["tests"]]
    assert tested[-2:] == ["classifier effect:roc_auc", "classifier effect:roc_auc_weighted"]


def test_bca_p_value_when_every_draw_lies_on_one_side():
    """Every draw above the estimate (ẑ₀ infinite): the interval falls back to an end of the
    draws, and the p-value is finite and agrees with it — it was nan, dropping the test."""
    from beyondchance.monitoring.decomposition import _interval, bca_pvalue

    rng = np.random.default_rng(3)
    draws = rng.uniform(0.01, 0.1, 500)
    jack = [(rng.normal(0, 1, 50) ** 3, np.ones(50))]
    p = bca_pvalue(0.05, 0.0, draws, jack)
    lo, hi = _interval(0.05, 0.0, draws, 0.95, jack)
    assert np.isfinite(p) and (p < 0.05) == (lo > 0 or hi < 0), (p, lo, hi)
