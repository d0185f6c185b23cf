"""The shipped DBT reference table (beyondchance.outperformance.shipped).

* the OPS read from the table differs from the OPS of the same 114,688 reference curves
  computed afresh by at most the table's stated bound;
* it agrees with an independent Monte Carlo (another seed) within the Monte Carlo errors;
* the paper's Table 6–7 PR AUC values keep their OPS within ±0.002;
* with an empty cache directory, the report's OPS of the AUCs, the OPRC and the OPS(lift)
  curve need no Monte Carlo at all.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from beyondchance.experiments.paper_values_ops import TABLE4, TABLE6_7
from beyondchance.outperformance import scoring, shipped
from beyondchance.outperformance.curves import DEFAULT_LEVELS
from beyondchance.outperformance.dbt import clear_reference_cache
from beyondchance.report import evaluate

ops = scoring.scoring_outperformance_score

pytestmark = pytest.mark.skipif(shipped._load() is None, reason="the reference table is not built")


def _prevalences(seed: int, k: int) -> np.ndarray:
    """k random prevalences of the grid's range (logit-uniform)."""
    rng = np.random.default_rng(seed)
    return 1.0 / (1.0 + np.exp(-rng.uniform(-scoring.GRID_LIMIT, scoring.GRID_LIMIT, k)))


def test_the_table_describes_the_default_reference():
    meta = shipped._load()["meta"]
    assert meta["reference_key"]["n_samples"] == scoring.DEFAULT_MC_SAMPLES
    assert meta["reference_key"]["seed"] == 0
    assert meta["bound"] == pytest.approx(shipped.BOUND)
    assert 0 < meta["measured_max_difference"] <= shipped.BOUND
    names = {a["name"] for a in meta["arrays"]}
    assert {"roc_auc", "pr_auc", "lift_auc"} <= names


@pytest.mark.parametrize("metric", ["roc_auc", "pr_auc", "lift_auc", "gain_auc", "pr_nauc"])
def test_table_is_the_fresh_reference_within_its_bound(metric):
    # two random prevalences (one pass over the curves computes both afresh)
    pi = np.repeat(_prevalences(20261123 + len(metric), 2), 19)
    values = np.tile(np.linspace(0.05, 0.95, 19), 2) * scoring.scoring_metric_upper(metric, pi)
    table = np.asarray(ops(metric, values, pi).score, dtype=np.float64)
    fresh = np.asarray(ops(metric, values, pi, cache=False).score, dtype=np.float64)
    assert np.max(np.abs(table - fresh)) <= shipped.BOUND + 1e-12, metric


def _lift_table() -> dict:
    tables = [t for t in shipped._tables() if t["file"] == shipped.LIFT_TABLE_FILE]
    if not tables:
        pytest.skip("the lift table is not built")
    return tables[0]


def test_lift_table_is_the_fresh_reference_within_its_bound():
    """The OPS(lift) curve's rates on the grid (257 knots): the stated bound holds against
    the same 114,688 curves computed afresh, at a random prevalence."""
    meta = _lift_table()["meta"]
    bound = (int(np.max(np.diff(shipped.knot_positions(scoring.DEFAULT_MC_SAMPLES, shipped.LIFT_KNOTS)))) - 1) \
        / scoring.DEFAULT_MC_SAMPLES
    assert meta["bound"] == pytest.approx(bound) and 0 < meta["measured_max_difference"] <= bound
    assert meta["reference_key"] == shipped._load()["meta"]["reference_key"]
    levels = np.asarray(DEFAULT_LEVELS, dtype=np.float64)
    p = float(_prevalences(9, 1)[0])
    values = np.linspace(0.2, 0.9, levels.size) * float(scoring.scoring_metric_upper("lift_at_rate", p))
    table = np.asarray(ops("lift_at_rate", values, p, at=levels).score)
    fresh = np.asarray(ops("lift_at_rate", values, p, at=levels, cache=False).score)
    assert np.max(np.abs(table - fresh)) <= bound + 1e-12


def test_oprc_levels_are_the_fresh_reference_within_its_bound():
    levels = np.asarray(DEFAULT_LEVELS, dtype=np.float64)
    p = float(_prevalences(7, 1)[0])
    values = np.full(levels.shape, 0.5)
    table = np.asarray(ops("precision_at_recall", values, p, at=levels).score)
    fresh = np.asarray(ops("precision_at_recall", values, p, at=levels, cache=False).score)
    assert np.max(np.abs(table - fresh)) <= shipped.BOUND + 1e-12


def test_table_agrees_with_an_independent_monte_carlo():
    G = 16_384
    # standard errors of the two samples (0.5/sqrt(G)), the bound and the logit-π interpolation error
    tol = 4 * 0.5 * math.sqrt(1 / G + 1 / scoring.DEFAULT_MC_SAMPLES) + shipped.BOUND + 0.0005
    for metric, p in zip(["pr_auc", "lift_auc"], _prevalences(11, 2)):
        values = np.linspace(0.1, 0.9, 9) * float(scoring.scoring_metric_upper(metric, p))
        table = np.asarray(ops(metric, values, p).score)
        other = np.asarray(ops(metric, values, p, mc_samples=G, random_state=123, cache="memory").score)
        assert np.max(np.abs(table - other)) <= tol, (metric, p)


def test_paper_table_6_7_pr_auc_ops_unchanged():
    mu = np.array([row["pr_auc"] for row in TABLE6_7.values()])
    pi = np.array([TABLE4[key]["prevalence"] for key in TABLE6_7])
    table = np.asarray(ops("pr_auc", mu, pi).score)
    fresh = np.asarray(ops("pr_auc", mu, pi, cache=False).score)  # the reference drawn afresh, as before
    assert np.max(np.abs(table - fresh)) <= 0.002


def test_no_monte_carlo_with_an_empty_cache(tmp_path, monkeypatch):

    monkeypatch.setenv("BEYONDCHANCE_CACHE_DIR", str(tmp_path))
    clear_reference_cache(disk=False)

    def no_monte_carlo(*args, **kwargs):
        raise AssertionError("a Monte Carlo ran although the reference ships with the package")

    monkeypatch.setattr(scoring, "for_each_chunk", no_monte_carlo)
    rng = np.random.default_rng(5)
    y = (rng.random(3000) < 0.17).astype(int)
    s = np.clip(0.25 * y + rng.normal(0.4, 0.2, y.size), 0, 1)
    r = evaluate(y, s, ci=False)
    for name in ("roc_auc", "pr_auc", "lift_auc"):
        assert 0 <= r[name].ops <= 1
    oprc = r.oprc()
    assert np.isfinite(oprc["ops"]).any()
    if any(t["file"] == shipped.LIFT_TABLE_FILE for t in shipped._tables()):
        assert np.isfinite(r.ops_lift()["ops"]).any()
    assert list(tmp_path.rglob("*.npz")) == []  # nothing was drawn, nothing written
