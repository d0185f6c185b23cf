"""Quick version of benchmarks/validity_table.py (issue 37, item 6): the issue's three cells,
each row's interval coverage and its rate of "better" under the null, against the issue's
done-when criteria.

Cells (seed ``SEED``, printed; replicate counts in ``REPLICATES``):

* binary scores, n = 100, prevalence 0.05 (about 5 positives): "better" under the null
  (scores independent of the labels) and the headline's claim rate;
* 3-class labels, n = 300, shares 0.5/0.3/0.2: "better" under two nulls (predictions
  uniform, and drawn with the label shares, independent of the labels), coverage under the
  alternative (right with probability 0.6);
* binary scores, n = 100, prevalence 0.3: coverage of every row (PR AUC among them).

Monte Carlo margins (m replicates, z = 2.576, i.e. 99% two-sided / 99.5% one-sided):

* a rate under the null fails when it exceeds 0.05 + z·√(0.05·0.95/m): with a true rate of
  exactly 5% this happens in about 0.5% of runs (normal approximation), so a failure says
  the rate is above 5%;
* a coverage fails when its 99% Wilson interval misses [0.93, 0.98] (the row declines to
  give an interval in every replicate: passes, as the issue allows).

On the base of issue 37 the multi-class macro precision and F1 failed under both nulls
(95–100% "better"); they pass since the verdict needs the test of chance as well.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import validity_table as vt  # noqa: E402

SEED = 37
Z = 2.576
BINARY_ROWS = ("accuracy", "balanced_accuracy", "precision", "recall", "specificity", "f1", "mcc", "kappa",
               "pure_accuracy", "prediction_advantage", "roc_auc", "pr_auc", "lift_auc", "log_loss", "brier")
MULTICLASS_ROWS = ("accuracy", "balanced_accuracy", "precision", "recall", "f1", "mcc", "kappa", "pure_accuracy",
                   "prediction_advantage")

RARE = vt.Cell("binary", 100, (0.05,))
THREE = vt.Cell("3class", 300, (0.5, 0.3, 0.2))
COMMON = vt.Cell("binary", 100, (0.3,))
#: (cell, scenario) -> replicates, about a minute of CPU in all: a 3-class report costs ~0.06 s,
#: a binary-scores report at n = 100 ~0.15 s (3 positives took ~7 s until a report enumerated
#: at most 10 times its Monte Carlo draws: 40 replicates of the rare cell then)
REPLICATES = {(RARE, "scores-null"): 150, (THREE, "labels-null-uniform"): 100, (THREE, "labels-null-shares"): 100,
              (THREE, "labels"): 100, (COMMON, "scores"): 150}


class _Tallies(dict):
    """Each (cell, scenario) simulated on first use (``-k`` runs only what it selects)."""

    def __missing__(self, key):
        cell, scenario = key
        r = REPLICATES[key]
        print(f"\nvalidity quick: {cell.name} {scenario}, {r} replicates, seed {SEED}")
        self[key] = vt.run_cell(cell, r, SEED, scenarios=(scenario,))[scenario]
        return self[key]


@pytest.fixture(scope="module")
def tallies():
    return _Tallies()


def _null_limit(m: int) -> float:
    return vt.NULL_MAX + Z * math.sqrt(vt.NULL_MAX * (1 - vt.NULL_MAX) / m)


def _check_null_rate(k: int, m: int, what: str):
    assert m > 0
    limit = _null_limit(m)
    assert k / m <= limit, (f"{what}: {k}/{m} = {k / m:.3f} under the null, above 0.05 + {Z}·s.e. = {limit:.3f} "
                            f"(seed {SEED})")


def _check_coverage(t: dict, name: str, what: str):
    c = t["rows"][name]
    if c["with_ci"] == 0:
        return  # the row declines to give an interval: allowed
    low, high = vt.wilson(c["covered"], c["with_ci"], z=Z)
    assert high >= vt.COVERAGE_RANGE[0] and low <= vt.COVERAGE_RANGE[1], (
        f"{what}: coverage {c['covered']}/{c['with_ci']} = {c['covered'] / c['with_ci']:.3f}, 99% Wilson "
        f"[{low:.3f}, {high:.3f}] misses [0.93, 0.98] (population value {c['population']:.4f}, seed {SEED})")


# --- binary scores, n = 100, prevalence 0.05: "better" under the null ----------------------------

#: 40 replicates: 0.05 + z·s.e. = 0.139 is the most this many can resolve (the ROC AUC measured
#: 3/50 on the base of issue 37 in the benchmark, and passed here)
@pytest.mark.parametrize("name", BINARY_ROWS)
def test_rare_positives_null_better_rate(tallies, name):
    t = tallies[(RARE, "scores-null")]
    _check_null_rate(t["rows"][name]["better"], t["rows"][name]["replicates"], f"{RARE.name} {name}")


def test_rare_positives_null_headline(tallies):
    t = tallies[(RARE, "scores-null")]
    _check_null_rate(t["headline_claims"], t["replicates"] - t["errors"], f"{RARE.name} headline")


# --- 3-class labels, n = 300, shares 0.5/0.3/0.2 -------------------------------------------------

@pytest.mark.parametrize("scenario", ["labels-null-uniform", "labels-null-shares"])
@pytest.mark.parametrize("name", MULTICLASS_ROWS)
def test_three_class_null_better_rate(tallies, scenario, name):
    t = tallies[(THREE, scenario)]
    _check_null_rate(t["rows"][name]["better"], t["rows"][name]["replicates"], f"{THREE.name} {scenario} {name}")


@pytest.mark.parametrize("scenario", ["labels-null-uniform", "labels-null-shares"])
def test_three_class_null_headline(tallies, scenario):
    t = tallies[(THREE, scenario)]
    _check_null_rate(t["headline_claims"], t["replicates"] - t["errors"], f"{THREE.name} {scenario} headline")


@pytest.mark.parametrize("name", MULTICLASS_ROWS)
def test_three_class_coverage(tallies, name):
    _check_coverage(tallies[(THREE, "labels")], name, f"{THREE.name} {name}")


# --- binary scores, n = 100, prevalence 0.3: coverage ---------------------------------------------

@pytest.mark.parametrize("name", BINARY_ROWS)
def test_common_coverage(tallies, name):
    _check_coverage(tallies[(COMMON, "scores")], name, f"{COMMON.name} {name}")


# --- the population values the coverage rests on ----------------------------------------------------


@pytest.mark.parametrize("pi", [0.05, 0.3])
def test_population_values_agree_with_scikit_learn_on_a_large_sample(pi):
    """Quadratures of average precision, log loss and Brier score against scikit-learn on
    2·10⁵ rows.  Loose tolerances (on 2·10⁶ rows ``--check`` of the script measured differences
    ≤ 0.001): they catch a wrong formula (the null's log loss 0.806 against the alternative's
    0.787 at π = 0.05 differ by 0.019), not sampling noise."""
    chk = vt.check_population(pi, rows=200_000, seed=SEED)
    tol = {"pr_auc": 0.012, "log_loss": 0.006, "brier": 0.003}
    for name, (quad, sample) in chk.items():
        assert abs(quad - sample) <= tol[name], (name, quad, sample)


def test_closed_forms():
    pop = vt.binormal_population(0.3, vt.D_BINORMAL)
    assert pop["roc_auc"] == pytest.approx(0.75, abs=1e-12)
    null = vt.binormal_population(0.3, 0.0)
    assert null["pr_auc"] == pytest.approx(0.3, abs=1e-7) and null["lift_auc"] == pytest.approx(1.0, abs=1e-7)
    assert null["mcc"] == pytest.approx(0.0, abs=1e-12) and null["kappa"] == pytest.approx(0.0, abs=1e-12)
    three = vt.labeling_population(vt.three_class_joint((0.5, 0.3, 0.2), "labels"))
    assert three["accuracy"] == pytest.approx(0.6) and three["recall"] == pytest.approx(0.6)
    assert three["prediction_advantage"] == pytest.approx(1 - 0.4 / 0.5)


def test_headline_rule():
    class R:
        verdict = ("Better than always predicting 0: accuracy 80.0% vs 70.0%, prediction advantage +0.333.",)

    class NotSig:
        verdict = (R.verdict[0][:-1] + " — but not significantly: the interval includes 0.",)

    class No:
        verdict = ("Accuracy 60.0% is no better than always predicting 0 (70.0%): prediction advantage -0.333.",)

    assert vt.headline_claims(R) and not vt.headline_claims(NotSig) and not vt.headline_claims(No)
