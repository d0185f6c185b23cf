"""Issue 37 item 4: the label-free estimate knows what it cannot see — its label-shift test
(Anderson–Darling to the fitted mixture, ``monitoring.label_shift_test``) keeps its level under
pure label shift, catches a strong concept shift, and the verdict says when a window is too
small to tell the two apart.  Quick versions of ``benchmarks/sim_monitoring.py --parts
label-shift-test``; binormal scores, seeds printed."""

from __future__ import annotations

import numpy as np
from scipy.stats import binom

from beyondchance import estimate_performance
from beyondchance.measures.curves import threshold_counts
from beyondchance.monitoring.set_statistics import SetStatistics
from beyondchance.monitoring.label_free import EM_BINS, TEST_BINS, _coarse, _window_counts
from beyondchance.monitoring.label_shift_test import POWER_TARGET, class_balanced_bins, label_shift_test

SEED = 37
REPS = 80
D = 2.0  # the positives' binormal separation in the reference


def _binormal(rng, n, pi, d=D):
    y = (rng.random(n) < pi).astype(int)
    return y, np.round(rng.normal(d * y, 1.0), 2)


def _rejections(window_pi, drop, m, reps=REPS, seed=SEED, resamples=200):
    """How many of ``reps`` windows of ``m`` rows the test rejects at 5% (reference 2,000 rows at 0.2)."""
    print(f"seed {seed}, {reps} replicates, window {m} rows at π = {window_pi}, separation drop {drop:.0%}")
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        y, s = _binormal(rng, 2000, 0.2)
        ref = SetStatistics.from_counts(threshold_counts(y, s), threshold=D / 2)
        _, s_new = _binormal(rng, m, window_pi, D * (1 - drop))
        test = label_shift_test(ref, _window_counts(ref, s_new, np.ones(m)), m, _coarse(ref, EM_BINS),
                                class_balanced_bins(ref, TEST_BINS), resamples, rng)
        hits += test.pvalue <= 0.05
    return hits


def test_the_level_holds_under_pure_label_shift():
    # measured 4 and 4 of 80 (seed 37); P(X >= 11 | Bin(80, 0.05)) = 0.002, and a level of 15% fails with
    # probability 0.67 per prevalence
    for pi in (0.1, 0.4):
        hits = _rejections(pi, 0.0, 1000)
        assert hits <= 10, (pi, hits, binom.sf(hits - 1, REPS, 0.05))


def test_a_strong_concept_shift_is_caught():
    # the positives' separation halved, prevalence unchanged, a 2,000-row reference: measured 63 of 80 (seed 37;
    # the benchmark, with a 5,000-row reference, 0.96); a power of 0.79 falls below 50 of 80 with probability 0.0002,
    # a power of 0.5 reaches it with probability 0.016
    hits = _rejections(0.2, 0.5, 2000)
    assert hits >= 50, hits


def _estimate(m, window_pi, drop, seed, n_reference=3000):
    rng = np.random.default_rng(seed)
    y, s = _binormal(rng, n_reference, 0.2)
    _, s_new = _binormal(rng, m, window_pi, D * (1 - drop))
    return estimate_performance(y, s, s_new, threshold=D / 2, metrics=("f1",), n_resamples=300, random_state=seed)


def test_the_verdict_says_what_the_window_cannot_see():
    # a small window under label shift passes, but its test has little power: the verdict says so, in one line
    small = _estimate(100, 0.1, 0.0, SEED)
    print(small.verdict)
    assert small.assumption_holds and small.assumption_power < POWER_TARGET
    assert "cannot tell" in small.verdict and "weaker classifier" in small.verdict and "\n" not in small.verdict
    # a large window with the positives' separation halved: the assumption fails, no confident number
    shifted = _estimate(5000, 0.2, 0.5, SEED + 1)
    print(shifted.verdict)
    assert not shifted.assumption_holds
    assert "label-shift assumption fails" in shifted.verdict and "not to be trusted" in shifted.verdict
    # large sets under label shift (10,000 rows each, the window at 0.3): the test has the power, and the verdict
    # does not hedge
    large = _estimate(10000, 0.3, 0.0, SEED + 2, n_reference=10000)
    print(large.verdict, large.assumption_power)
    assert large.assumption_holds and large.assumption_power >= POWER_TARGET
    assert "cannot tell" not in large.verdict


def test_the_test_is_reproducible_and_the_same_from_statistics():
    from beyondchance.monitoring.label_free import estimate_from_statistics
    from beyondchance.statistics.values import ValueHistogram

    rng = np.random.default_rng(SEED)
    y, s = _binormal(rng, 2000, 0.2)
    _, s_new = _binormal(rng, 800, 0.2, D * 0.75)
    a = estimate_performance(y, s, s_new, threshold=1.0, metrics=("f1",), n_resamples=200, random_state=5)
    b = estimate_from_statistics(threshold_counts(y, s), ValueHistogram.from_values(s_new), n_window_rows=800,
                                 threshold=1.0, metrics=("f1",), n_resamples=200, random_state=5)
    assert (a.assumption_statistic, a.assumption_pvalue, a.assumption_power) == \
        (b.assumption_statistic, b.assumption_pvalue, b.assumption_power)
