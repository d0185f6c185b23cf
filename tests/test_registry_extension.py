"""A new labeling metric is one registry entry (the design rule of the registry).

A toy metric that no module of the package knows is registered at run time with
``monkeypatch.setitem`` on ``METRICS`` and ``ALIASES`` only -- after every module of the
package has been imported, so that no list built from the registry at import time can
contain it -- and must then reach every consumer: the confusion matrix, the
outperformance score, the report (value, constant baseline, advantage, OPS, interval,
p-value) of binary and multi-class labels, weighted or not, every engine (memory,
DuckDB, Spark), the comparison of test sets, the CLI and the invariance checks of
tests/test_common.py.  Every expected number is computed by hand below from the toy's
definition, not read from the library.

The toy: ``toy = TPR + TNR/2 - 1/2 = 1 - β - α/2`` (an asymmetric, re-scaled Youden
index: range [-1/2, 1]).  It is asymmetric on purpose: a consumer that swapped the
classes or the cells would get another number.

Its OPS (A, B ~ U[0, 1]): toy < μ  <=>  S = B + A/2 > 1 - μ, and S, the sum of U[0, 1]
and U[0, 1/2], has the CDF F(s) = s² (s <= 1/2), s - 1/4 (1/2 <= s <= 1),
1 - (3/2 - s)² (1 <= s <= 3/2), so OPS(μ) = 1 - F(1 - μ), whatever the prevalence.
"""

from __future__ import annotations

import importlib
import json
import math
import pkgutil
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from click.testing import CliRunner

import beyondchance as bc
import test_common as common
from beyondchance import ConfusionMatrix
from beyondchance.measures.registry import ALIASES, METRICS, LabelingMetric, get_metric
from beyondchance.report import evaluate

#: the seed of every bootstrap and permutation draw here (printed by the tests that draw)
SEED = 20261127
#: few resamples: the test is about the plumbing, not the intervals' accuracy
N_RESAMPLES = 200
FAST = dict(n_resamples=N_RESAMPLES, random_state=SEED, mc_samples=256)


def _toy(tp, fp, fn, tn):
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    pos, neg = tp + fn, tn + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where((pos == 0) | (neg == 0), np.nan, tp / pos + 0.5 * tn / neg - 0.5)
    return out[()] if out.ndim == 0 else out


TOY = LabelingMetric("toy", _toy, -0.5, 1.0, True, "TPR + TNR/2 − 1/2", "per-class", None,
                     aliases=("toy_alias",))


def toy_ops(mu: float) -> float:
    """The toy's OPS by hand (module docstring)."""
    s = 1 - mu
    cdf = s * s if s <= 0.5 else (s - 0.25 if s <= 1 else 1 - (1.5 - s) ** 2)
    return 1 - cdf


# --- the data, and its numbers by hand -------------------------------------------------
# binary: TP = 30, FN = 10, FP = 12, TN = 48 (n = 100, π = 0.4)
Y_TRUE = np.r_[np.ones(40), np.zeros(60)].astype(int)
Y_PRED = np.r_[np.ones(30), np.zeros(10), np.ones(12), np.zeros(48)].astype(int)
#: weight 2 on the first 20 rows (true positives): TP = 50, FN = 10, FP = 12, TN = 48 (π = 0.5)
WEIGHT = np.r_[np.full(20, 2.0), np.ones(80)]

#: (value, prevalence, baseline, advantage) by hand, unweighted and weighted.  The baseline
#: is the better constant: always positive TPR = 1, TNR = 0 -> 1/2; always negative -> 0
HAND = {
    False: dict(value=30 / 40 + 0.5 * 48 / 60 - 0.5, prevalence=0.4, baseline=0.5),   # 0.65
    True: dict(value=50 / 60 + 0.5 * 48 / 60 - 0.5, prevalence=0.5, baseline=0.5),    # 11/15
}
for _h in HAND.values():
    _h["advantage"] = (_h["value"] - 0.5) / (1 - 0.5)   # the ideal is 1
assert math.isclose(HAND[False]["value"], 0.65) and math.isclose(HAND[True]["value"], 11 / 15)


def exact_permutation_midp() -> float:
    """The exact permutation test of unweighted labels by hand: with both margins fixed
    (40 positives, 42 predicted positive of 100), the toy is increasing in TP, which is
    hypergeometric; mid-p = P(TP > 30) + P(TP = 30) / 2."""
    total = math.comb(100, 42)
    pmf = {k: math.comb(40, k) * math.comb(60, 42 - k) / total for k in range(0, 41)}
    return sum(p for k, p in pmf.items() if k > 30) + pmf[30] / 2


# multi-class: rows true, columns predicted
MATRIX = np.array([[8, 1, 1], [2, 6, 2], [0, 3, 7]])
#: one-vs-rest (TPR, TNR) per class: 0 -> (8/10, 18/20), 1 -> (6/10, 16/20), 2 -> (7/10, 17/20)
PER_CLASS = [0.8 + 0.45 - 0.5, 0.6 + 0.4 - 0.5, 0.7 + 0.425 - 0.5]   # 0.75, 0.5, 0.625
MACRO = sum(PER_CLASS) / 3                                             # 0.625
#: always predicting one class: 1/2 for it, 0 for the two others (equal supports)
MACRO_BASELINE = 0.5 / 3


def _matrix_rows(matrix):
    t, p = [], []
    for i, row in enumerate(matrix):
        for j, c in enumerate(row):
            t += [i] * int(c)
            p += [j] * int(c)
    return np.array(t), np.array(p)


# --- registration ------------------------------------------------------------------------


def _import_every_module() -> None:
    import beyondchance

    for info in pkgutil.walk_packages(beyondchance.__path__, "beyondchance."):
        importlib.import_module(info.name)


@pytest.fixture
def toy(monkeypatch):
    """The toy, registered (and unregistered at teardown) after every module is imported."""
    _import_every_module()
    assert "toy" not in METRICS and "toy_alias" not in ALIASES
    monkeypatch.setitem(METRICS, "toy", TOY)
    monkeypatch.setitem(ALIASES, "toy_alias", "toy")
    return TOY


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("toy")
    frame = pd.DataFrame({"y": Y_TRUE, "p": Y_PRED, "w": WEIGHT})
    frame.to_parquet(d / "toy.parquet", index=False)
    frame.to_csv(d / "toy.csv", index=False)
    return dict(frame=frame, parquet=d / "toy.parquet", csv=d / "toy.csv")


def _evaluate(weighted: bool):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bc.evaluate(Y_TRUE, Y_PRED, sample_weight=WEIGHT if weighted else None,
                           metrics=["toy", "accuracy"], **FAST)


def assert_hand_row(row, weighted: bool) -> None:
    """The toy's report row against the hand-computed numbers."""
    h = HAND[weighted]
    assert row.name == "toy" and row.kind == "labeling" and row.greater_is_better
    assert row.value == pytest.approx(h["value"], abs=1e-12)
    assert row.baseline == pytest.approx(h["baseline"], abs=1e-12)
    assert row.baseline_prediction == "always predicting 1"
    assert row.ideal == 1.0
    assert row.advantage == pytest.approx(h["advantage"], abs=1e-12)
    assert row.ops == pytest.approx(toy_ops(h["value"]), abs=1e-9)


# --- (a) the confusion matrix and the registry ------------------------------------------------


def test_the_confusion_matrix_and_the_lookups_see_the_toy(toy):
    assert get_metric("toy") is TOY and get_metric("TOY-alias") is TOY
    assert "toy" in bc.metric_names()
    cm = ConfusionMatrix.from_predictions(Y_TRUE, Y_PRED)
    assert cm.metric("toy") == pytest.approx(0.65, abs=1e-12)
    assert cm.metric("toy_alias") == pytest.approx(0.65, abs=1e-12)
    assert cm.metrics()["toy"] == pytest.approx(0.65, abs=1e-12)
    assert TOY.compute(tp=30, fp=12, fn=10, tn=48) == pytest.approx(0.65, abs=1e-12)
    assert TOY.from_rates(0.4, 12 / 60, 10 / 40) == pytest.approx(0.65, abs=1e-12)   # (π, α, β)
    cmw = ConfusionMatrix.from_predictions(Y_TRUE, Y_PRED, sample_weight=WEIGHT)
    assert cmw.metric("toy") == pytest.approx(11 / 15, abs=1e-12)
    mc = ConfusionMatrix.from_predictions(*_matrix_rows(MATRIX))
    assert np.asarray(mc.metric("toy", average=None)) == pytest.approx(PER_CLASS, abs=1e-12)
    assert mc.metric("toy", average="macro") == pytest.approx(MACRO, abs=1e-12)


def test_the_outperformance_score_of_the_toy(toy):
    for mu in (0.65, 11 / 15, 0.3, -0.2):
        for pi in (0.4, 0.1):   # the toy reads (α, β) only: its OPS does not depend on π
            r = bc.outperformance_score("toy", mu, prevalence=pi)
            assert r.score == pytest.approx(toy_ops(mu), abs=1e-9), (mu, pi)
    assert bc.outperformance_score("toy", 0.5, prevalence=0.4).score == pytest.approx(0.75, abs=1e-9)
    assert bc.outperformance_score("toy", -0.5, prevalence=0.4).score == pytest.approx(0.0, abs=1e-9)


# --- (b) the report ------------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_the_report_has_a_toy_row(toy, weighted):
    print(f"seed {SEED}, {N_RESAMPLES} resamples")
    r = _evaluate(weighted)
    assert list(r.metrics) == ["toy", "accuracy"]
    assert r.task == "binary-labels" and r.prevalence == pytest.approx(HAND[weighted]["prevalence"])
    row = r.metrics["toy"]
    assert_hand_row(row, weighted)
    ops = bc.outperformance_score("toy", row.value, prevalence=r.prevalence)
    assert row.ops == pytest.approx(ops.score, abs=1e-12) and row.ops_method == ops.method
    # the interval: around the value, from the requested resamples; the OPS of its ends
    assert row.ci is not None and row.ci.n_resamples == N_RESAMPLES
    assert row.ci.low < row.value < row.ci.high
    assert row.ops_ci == pytest.approx((toy_ops(row.ci.low), toy_ops(row.ci.high)), abs=1e-9)
    # the p-value of "no better than chance"
    assert row.pvalue is not None, "no p-value for the toy"
    if weighted:   # Monte Carlo permutations of the rows: none of the draws reaches 11/15
        assert "permutation" in row.pvalue_method and row.pvalue == pytest.approx(1 / (N_RESAMPLES + 1))
    else:
        assert row.pvalue_method.startswith("exact permutation")
        assert row.pvalue == pytest.approx(exact_permutation_midp(), rel=1e-9)
    assert not any("toy" in note for note in r.notes), r.notes


def test_the_multiclass_report_has_a_toy_row(toy):
    print(f"seed {SEED}, {N_RESAMPLES} resamples")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = bc.evaluate(*_matrix_rows(MATRIX), metrics=["toy"], **FAST)
    row = r.metrics["toy"]
    assert r.task == "multiclass-labels"
    assert row.value == pytest.approx(MACRO, abs=1e-12)
    assert row.baseline == pytest.approx(MACRO_BASELINE, abs=1e-12)
    assert row.advantage == pytest.approx((MACRO - MACRO_BASELINE) / (1 - MACRO_BASELINE), abs=1e-12)
    assert row.ops == pytest.approx(np.mean([toy_ops(v) for v in PER_CLASS]), abs=1e-9)   # 0.848958…
    assert row.ci is not None and row.ci.low < row.value < row.ci.high
    assert row.pvalue is not None and "permutation" in row.pvalue_method


def test_the_comparison_decomposes_the_toy(toy):
    """compare(): the toy reads (α, β) only, so a change of prevalence alone changes
    nothing and its whole change is the classifier's."""
    rng = np.random.default_rng(SEED)
    print(f"seed {SEED}")

    def scores(n, pi):
        y = (rng.uniform(size=n) < pi).astype(int)
        return y, np.clip(0.3 * y + 0.7 * rng.uniform(size=n), 0, 1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = bc.compare({"ref": scores(300, 0.4), "new": scores(300, 0.2)}, metrics=["toy"], **FAST)
    change = next(ch for ch in c.changes if ch.metric == "toy")
    d = change.decomposition
    assert d is not None, "no decomposition of the toy"
    assert d.prevalence_effect == pytest.approx(0.0, abs=1e-12)
    assert d.expected_value == pytest.approx(d.reference_value, abs=1e-12)
    assert d.classifier_effect == pytest.approx(d.value - d.reference_value, abs=1e-12)


# --- (c) every engine --------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("engine", ["memory", "duckdb", "spark"])
def test_every_engine_gives_memorys_toy_row(toy, files, engine, weighted, request):

    print(f"seed {SEED}, {N_RESAMPLES} resamples")
    spark = request.getfixturevalue("spark") if engine == "spark" else None
    source = dict(files["frame"]) if engine == "memory" else str(files["parquet"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = evaluate(data=source, y_true="y", y_pred="p", sample_weight="w" if weighted else None, engine=engine,
                              session=spark, metrics=["toy"], **FAST)
    mem = _evaluate(weighted).metrics["toy"]
    assert eng.engine == engine and list(eng.metrics) == ["toy"]
    row = eng.metrics["toy"]
    assert_hand_row(row, weighted)
    for key in ("value", "baseline", "advantage", "ops", "pvalue"):
        assert getattr(row, key) == pytest.approx(getattr(mem, key), rel=1e-9, abs=1e-12), key
    assert row.pvalue_method.startswith(mem.pvalue_method), row.pvalue_method   # + where the rows came from
    assert row.ci is not None and (row.ci.method, row.ci.n_resamples) == (mem.ci.method, mem.ci.n_resamples)
    assert (row.ci.low, row.ci.high) == pytest.approx((mem.ci.low, mem.ci.high), rel=1e-9, abs=1e-12)
    assert row.ops_ci == pytest.approx(mem.ops_ci, rel=1e-9, abs=1e-12)
    assert not any("not computed" in note for note in eng.notes), eng.notes


# --- (d) the invariance checks of test_common.py ---------------------------------------------------


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
@pytest.mark.parametrize("check", common.CHECKS, ids=lambda f: f.__name__.removeprefix("check_"))
def test_the_invariances_hold_for_the_toy(toy, check, kind):
    check(get_metric("toy"), kind)


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_the_toy_agrees_with_scikit_learn(toy, kind):
    """toy = recall of the class + half the recall of the rest − 1/2 (one-vs-rest, macro)."""
    y_true, y_pred = common._data(kind)
    cm = ConfusionMatrix.from_predictions(y_true, y_pred)
    classes = np.unique(y_true)
    if kind == "binary":
        expected = skm.recall_score(y_true, y_pred) + 0.5 * skm.recall_score(y_true, y_pred, pos_label=0) - 0.5
        assert cm.metric("toy") == pytest.approx(expected, abs=1e-12)
    else:
        per_class = [skm.recall_score(y_true == k, y_pred == k) + 0.5 * skm.recall_score(y_true != k, y_pred != k)
                     - 0.5 for k in classes]
        assert cm.metric("toy", average="macro") == pytest.approx(np.mean(per_class), abs=1e-12)


# --- (e) the CLI, in-process (the registration lives in this process only) -------------------------


@pytest.mark.parametrize("engine, weighted", [("memory", False), ("duckdb", True)])
def test_the_cli_reports_the_toy(toy, files, engine, weighted):
    from beyondchance.cli import main

    print(f"seed {SEED}, {N_RESAMPLES} resamples")
    args = ["report", str(files["csv"]), "--y-true", "y", "--y-pred", "p", "--metrics", "toy_alias",
            "--engine", engine, "--n-resamples", str(N_RESAMPLES), "--seed", str(SEED), "--format", "json",
            *(["--weight", "w"] if weighted else [])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert list(out["metrics"]) == ["toy"]
    row, h = out["metrics"]["toy"], HAND[weighted]
    assert row["value"] == pytest.approx(h["value"], abs=1e-12)
    assert row["baseline"] == pytest.approx(h["baseline"], abs=1e-12)
    assert row["advantage"] == pytest.approx(h["advantage"], abs=1e-12)
    assert row["ops"] == pytest.approx(toy_ops(h["value"]), abs=1e-9)
    mem = _evaluate(weighted).metrics["toy"]
    assert row["pvalue"] == pytest.approx(mem.pvalue, rel=1e-9)
    assert (row["ci"]["low"], row["ci"]["high"]) == pytest.approx((mem.ci.low, mem.ci.high), rel=1e-9)


def test_the_cli_table_shows_the_toy(toy, files):
    from beyondchance.cli import main

    result = CliRunner().invoke(main, ["report", str(files["csv"]), "--y-true", "y", "--y-pred", "p",
                                       "--metrics", "toy", "--no-ci"])
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.lstrip("│ ").startswith("toy "))
    assert "0.650" in line and "0.500" in line and "+0.300" in line and "0.877" in line, line
