"""Label-free estimates of windows that leave the reference's score range, or where the
estimator is undefined: never a traceback, never a confident number the data do not support."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from beyondchance import InvalidInputError, estimate_performance
from beyondchance.cli import main
from beyondchance.measures.curves import threshold_counts
from beyondchance.monitoring.label_free import SUPPORT_LEVEL, _support_pvalue
from beyondchance.monitoring.set_statistics import SetStatistics


def _population(rng, pi, n):
    y = (rng.random(n) < pi).astype(int)
    return y, 1 / (1 + np.exp(-(-1.5 + 3 * y + rng.normal(0, 1, n))))


def test_the_default_threshold_comes_from_the_reference_alone():
    """A window with a few scores above 1 once made the default threshold 0 (every row
    predicted positive, TPR − FPR = 0) and the estimate crashed inside numpy."""
    rng = np.random.default_rng(11)
    y, s = _population(rng, 0.2, 2000)
    window = np.clip(_population(rng, 0.3, 2000)[1] + 0.05, 0, 2)
    assert window.max() > 1
    for method in ("acc", "em"):
        a = estimate_performance(y, s, window, method=method, n_resamples=200, random_state=0)
        b = estimate_performance(y, s, window, method=method, threshold=0.5, n_resamples=200, random_state=0)
        assert a.prevalence == b.prevalence and a.prevalence_ci == b.prevalence_ci


def test_adjusted_classify_and_count_without_separation_is_a_clear_error():
    rng = np.random.default_rng(12)
    y, s = _population(rng, 0.2, 2000)
    with pytest.raises(InvalidInputError, match=r"TPR − FPR = 0:.*method=.em."):
        estimate_performance(y, s, s, threshold=float(s.min()), n_resamples=200)
    est = estimate_performance(y, s, s, threshold=float(s.min()), method="em", n_resamples=200)
    assert 0.1 < est.prevalence < 0.3


def test_the_support_bound_is_conservative_under_label_shift():
    """Windows drawn from the reference's own class-conditional distributions (only the
    prevalence moved, the smaller class 50 rows): the bound's rejection rate at 5% stays
    at most 5% (1,000 replicates, seed 13)."""
    rng = np.random.default_rng(13)
    rejected = 0
    reps = 1000
    for _ in range(reps):
        y = np.r_[np.ones(50, int), np.zeros(950, int)]
        s = rng.normal(1.5 * y, 1.0)
        ref = SetStatistics.from_counts(threshold_counts(y, s), threshold=0.75)
        w = rng.normal(1.5 * (rng.random(3000) < 0.5), 1.0)
        p = _support_pvalue(ref, int((w > s.max()).sum()), int((w < s.min()).sum()), w.size)
        rejected += p <= 0.05
    assert rejected / reps <= 0.05


def test_a_window_beyond_the_reference_range_fails_the_assumption():
    rng = np.random.default_rng(14)
    y, s = _population(rng, 0.2, 2000)
    s_ref = s * 0.5  # scores in [0, 0.5]
    window = _population(rng, 0.2, 1000)[1] * 0.5 + 0.3  # 40% of them above the reference's largest
    est = estimate_performance(y, s_ref, window, threshold=0.25, method="em", n_resamples=200)
    assert est.support_pvalue < SUPPORT_LEVEL and not est.assumption_holds
    assert "beyond the reference's score range" in est.verdict and "not to be trusted" in est.verdict
    same = estimate_performance(y, s_ref, _population(rng, 0.4, 1000)[1] * 0.5, threshold=0.25, n_resamples=200)
    assert same.support_pvalue >= SUPPORT_LEVEL


def test_an_estimated_prevalence_of_one_leaves_the_prediction_advantage_undefined(tmp_path):
    """At π̂ = 100% the constant prediction is perfect: the projected PA was −10^9, now null
    with a caveat (library and CLI JSON)."""
    rng = np.random.default_rng(15)
    y, s = _population(rng, 0.2, 2000)
    window = s[y == 1][:600]  # only positives
    est = estimate_performance(y, s, window, n_resamples=200)
    assert est.prevalence > 1 - 1 / 1200
    assert np.isnan(est.metrics["prediction_advantage"].value) and est.metrics["prediction_advantage"].ci is None
    assert any("prediction advantage is undefined" in c for c in est.caveats)
    assert np.isfinite(est.metrics["f1"].value)
    ref, win = tmp_path / "ref.csv", tmp_path / "win.csv"
    ref.write_text("y,s\n" + "\n".join(f"{a},{b}" for a, b in zip(y, s)))
    win.write_text("s\n" + "\n".join(map(str, window)))
    result = CliRunner().invoke(main, ["compare", str(ref), str(win), "--y-true", "y", "--y-score", "s",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    lf = json.loads(result.stdout)["label_free"][0]
    assert lf["metrics"]["prediction_advantage"] == {"metric": "prediction_advantage", "value": None, "ci": None}
