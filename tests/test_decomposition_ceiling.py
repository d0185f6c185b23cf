"""Monitoring near the ceiling (issue 37, item 5): with a classifier of ROC AUC 0.9994 and no
change between the reference and the window, the classifier-effect intervals of the ROC AUC
and of the PR AUC hold 0 about as often as their level says (they held it in 0.84 of windows
before the logit scale; ``benchmarks/sim_monitoring.py --parts ceiling``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from beyondchance.measures.curves import threshold_counts
from beyondchance.monitoring.decomposition import decompose
from beyondchance.monitoring.set_statistics import SetStatistics
from beyondchance.monitoring.decomposition_intervals import empirical_logit, logit_difference_interval

SEED = 20261207
REPLICATES = 120


def test_classifier_effect_of_aucs_near_one_covers_zero():
    """A quick version of the benchmark's cell (AUC 0.9994, 1000 rows, π = 0.2), 120 windows,
    200 resamples: before, 0.84 of the intervals held 0; at 0.95 the count of misses is
    Bin(120, 0.05), at most 12 (0.90) with probability 0.996."""
    print(f"seed {SEED}, {REPLICATES} replicates")
    delta = float(np.sqrt(2) * norm.ppf(0.9994))
    rng = np.random.default_rng(SEED)

    def sample() -> SetStatistics:
        y = (rng.random(1000) < 0.2).astype(int)
        return SetStatistics.from_counts(threshold_counts(y, rng.normal(0, 1, 1000) + delta * y), threshold=delta / 2)

    held = {"roc_auc": 0, "pr_auc": 0}
    for r in range(REPLICATES):
        d = decompose(sample(), sample(), list(held), n_resamples=200, random_state=r)
        for m in held:
            ci = d[m].classifier_effect_ci
            held[m] += ci is not None and ci[0] <= 0 <= ci[1]
    print(held)
    assert all(h >= 0.90 * REPLICATES for h in held.values()), held


def test_logit_interval_holds_zero_exactly_when_the_logit_difference_does():
    """The interval is carried back at the expected value: it holds 0 exactly when the logit
    difference's does, and an AUC of 1 (no misordered pair) is read half a pair from 1."""
    rng = np.random.default_rng(SEED)
    obs, exp = 1 - rng.gamma(4, 1e-4, 1000), 1 - rng.gamma(4, 1e-4, 1000)
    for shift in (-3e-4, 0.0, 3e-4):
        ci = logit_difference_interval(0.9996 + shift, 0.9996, 0.9996 + shift, 0.9996, obs + shift, exp, 0.95, None,
                                       (1e5, 1e5))
        delta = empirical_logit(obs + shift, 1e5) - empirical_logit(exp, 1e5)
        lo, hi = np.percentile(delta, [2.5, 97.5])
        assert (ci.low <= 0 <= ci.high) == (lo <= 0 <= hi)
        assert ci.low < shift < ci.high
    assert float(empirical_logit(1.0, 50)) == pytest.approx(np.log(99))
