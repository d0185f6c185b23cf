"""DeLong's test: the fast algorithm against the O(n²) definition (ties included), the AUC
against scikit-learn, frequency weights, its type-I error and its agreement with a paired
bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

import beyondchance as bc
from beyondchance.measures.curves import threshold_counts
from beyondchance.inference.delong import delong_covariance, delong_variance_of_counts


def quadratic_delong(is_pos: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong et al. (1988) by the definition: psi over every (positive, negative) pair."""
    k = scores.shape[0]
    x, y = scores[:, is_pos], scores[:, ~is_pos]
    m, n = x.shape[1], y.shape[1]
    psi = (x[:, :, None] > y[:, None, :]) + 0.5 * (x[:, :, None] == y[:, None, :])  # (k, m, n)
    aucs = psi.mean(axis=(1, 2))
    v10 = psi.mean(axis=2)  # (k, m)
    v01 = psi.mean(axis=1)  # (k, n)
    s10 = np.array([[np.sum((v10[r] - aucs[r]) * (v10[s] - aucs[s])) / (m - 1) for s in range(k)] for r in range(k)])
    s01 = np.array([[np.sum((v01[r] - aucs[r]) * (v01[s] - aucs[s])) / (n - 1) for s in range(k)] for r in range(k)])
    return aucs, s10 / m + s01 / n


@pytest.mark.parametrize("seed", range(6))
def test_fast_equals_quadratic_definition_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 300))
    is_pos = rng.random(n) < rng.uniform(0.1, 0.9)
    is_pos[:2], is_pos[2:4] = True, False
    levels = int(rng.integers(2, 12))  # few distinct scores: many ties, within and across classes
    scores = np.round(rng.random((3, n)) * levels + 0.8 * is_pos, 0) / levels
    aucs, cov = delong_covariance(is_pos, scores)
    ref_aucs, ref_cov = quadratic_delong(is_pos, scores)
    np.testing.assert_allclose(aucs, ref_aucs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cov, ref_cov, rtol=0, atol=1e-12)
    for r in range(3):
        assert abs(aucs[r] - roc_auc_score(is_pos, scores[r])) < 1e-12
        # the one-set variance from the counts (the unpaired test of beyondchance.monitoring.decomposition)
        auc, var = delong_variance_of_counts(threshold_counts(is_pos, scores[r]))
        assert abs(auc - ref_aucs[r]) < 1e-12 and abs(var - ref_cov[r, r]) < 1e-12


def test_result_against_the_definition():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 150)
    a = np.round(rng.normal(size=150) + y, 1)
    b = np.round(rng.normal(size=150) + 0.5 * y + 0.3 * a, 1)
    r = bc.delong_test(y, a, b)
    aucs, cov = quadratic_delong(y == 1, np.vstack([a, b]))
    se = np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    z = (aucs[1] - aucs[0]) / se
    assert abs(r.statistic - z) < 1e-10 and abs(r.standard_error - se) < 1e-12
    assert abs(r.pvalue - 2 * stats.norm.sf(abs(z))) < 1e-12
    assert abs(bc.delong_test(y, a, b, alternative="greater").pvalue - stats.norm.sf(z)) < 1e-12
    assert abs(bc.delong_test(y, a, b, alternative="less").pvalue - stats.norm.cdf(z)) < 1e-12
    lo, hi = r.ci
    assert lo < r.difference < hi and abs((hi - lo) / 2 - stats.norm.ppf(0.975) * se) < 1e-12
    assert r.to_dict()["pvalue"] == r.pvalue


def test_frequency_weights_are_repeated_rows_and_others_refused():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    a, b = rng.random(60) + 0.3 * y, rng.random(60)
    w = rng.integers(0, 4, 60)
    r = bc.delong_test(y, a, b, sample_weight=w)
    rep = bc.delong_test(np.repeat(y, w), np.repeat(a, w), np.repeat(b, w))
    assert abs(r.pvalue - rep.pvalue) < 1e-12 and abs(r.auc_a - rep.auc_a) < 1e-12
    with pytest.raises(bc.InvalidInputError, match="frequency weights"):
        bc.delong_test(y, a, b, sample_weight=rng.random(60))


def test_identical_models_and_bad_input():
    y = [0, 1, 0, 1, 1, 0]
    s = [.1, .9, .3, .6, .8, .2]
    r = bc.delong_test(y, s, s)
    assert r.difference == 0 and r.pvalue == 1.0
    with pytest.raises(bc.InvalidInputError, match="two positives and two negatives"):
        bc.delong_test([0, 0, 0, 1], [1, 2, 3, 4], [4, 3, 2, 1])
    with pytest.raises(bc.InvalidInputError, match="different lengths"):
        bc.delong_test([0, 1, 0, 1], [1, 2, 3], [1, 2, 3, 4])
    with pytest.raises(bc.InvalidInputError, match="alternative"):
        bc.delong_test(y, s, s, alternative="bigger")


def test_type_one_error_equal_auc():
    """Two scores with the same population AUC (independent noise): rejection rate at 5%."""
    rng = np.random.default_rng(2024)
    reps, n = 300, 200
    rejected = 0
    for _ in range(reps):
        y = rng.integers(0, 2, n)
        a = y + rng.normal(0, 1.5, n)
        b = y + rng.normal(0, 1.5, n)
        rejected += bc.delong_test(y, a, b).pvalue < 0.05
    assert 0.02 <= rejected / reps <= 0.09


def test_agrees_with_paired_bootstrap_on_large_n():
    rng = np.random.default_rng(5)
    n = 3000
    y = rng.integers(0, 2, n)
    common = rng.normal(size=n)
    a = y + common + rng.normal(0, 1.0, n)
    b = 1.08 * y + common + rng.normal(0, 1.0, n)
    r = bc.delong_test(y, a, b)
    B = 600
    diffs = np.empty(B)
    for i in range(B):
        idx = rng.integers(0, n, n)
        diffs[i] = roc_auc_score(y[idx], b[idx]) - roc_auc_score(y[idx], a[idx])
    se_boot = diffs.std(ddof=1)
    # the bootstrap SE has relative Monte Carlo error about 1/sqrt(2B) = 2.9%
    assert abs(se_boot / r.standard_error - 1) < 0.12
    p_boot = 2 * stats.norm.sf(abs(r.difference) / se_boot)
    assert abs(np.log(p_boot) - np.log(r.pvalue)) < 0.6
