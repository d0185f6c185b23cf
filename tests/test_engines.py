"""The same predictions through every engine (memory, DuckDB, Spark local mode) give
identical counts and the same metrics; bad input is refused by every engine."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance import InvalidInputError
from beyondchance.engines import compute_statistics
from beyondchance.measures.curves import ThresholdCounts
from beyondchance.engines import detect_engine
from beyondchance.statistics.sufficient import SufficientStatistics
from beyondchance.report import evaluate

REL = 1e-12


def make_frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    P = rng.dirichlet(np.ones(3), n)
    yr = rng.normal(size=n) * 3
    return pd.DataFrame({
        "y": y,
        "score": np.clip(np.round(0.35 * y + 0.65 * rng.random(n), 3), 0, 1),
        "margin": rng.normal(size=n) + y,
        "w": rng.integers(0, 4, n).astype(float),
        "label": rng.choice(["a", "b", "c"], n),
        "pred": rng.choice(["a", "b", "c", "d"], n),
        "p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2],
        # the same probabilities named by their classes, as a report reads class-probability columns
        "p_a": P[:, 0], "p_b": P[:, 1], "p_c": P[:, 2],
        "yr": np.round(yr, 1),
        "fr": yr + rng.normal(size=n),
        "ys": np.where(y == 1, "pos", "neg"),
    })


#: (keyword arguments, description) — one case per task and option
CASES = [
    dict(y_true="y", y_score="score", sample_weight="w"),
    dict(y_true="y", y_score="score", score_bins=20),
    dict(y_true="y", y_score="margin", sample_weight="w", threshold=0.0),
    dict(y_true="ys", y_score="score", pos_label="pos"),
    dict(y_true="label", y_pred="pred", sample_weight="w"),
    dict(y_true="label", y_proba=["p0", "p1", "p2"], sample_weight="w"),
    dict(y_true="label", y_proba=["p0", "p1", "p2"], score_bins=50),
    dict(y_true="yr", y_pred="fr", sample_weight="w", pinball_alphas=[0.9]),
    dict(y_true="yr", y_pred="fr", target_bin_width=0.5),
]


def assert_same(a: SufficientStatistics, b: SufficientStatistics) -> None:
    """Identical counts, sums equal to rounding, the same measures."""
    assert a.task == b.task and a.threshold == b.threshold and a.pos_label == b.pos_label
    for name in ("confusion", "label_counts", "loss_sums", "scores", "class_scores", "moments", "targets"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
    if a.confusion is not None:
        assert np.array_equal(a.confusion.labels, b.confusion.labels)
        assert np.array_equal(a.confusion.matrix, b.confusion.matrix)
    if a.label_counts is not None:
        assert np.array_equal(a.label_counts.labels, b.label_counts.labels)
        assert np.array_equal(a.label_counts.counts, b.label_counts.counts)
    if a.loss_sums is not None:
        assert a.loss_sums.weight == b.loss_sums.weight
        assert set(a.loss_sums.sums) == set(b.loss_sums.sums)
        for k in a.loss_sums.sums:
            assert np.isclose(a.loss_sums.sums[k], b.loss_sums.sums[k], rtol=1e-10), k
    if isinstance(a.scores, ThresholdCounts):
        for f in ("thresholds", "tps", "fps"):
            assert np.array_equal(getattr(a.scores, f), getattr(b.scores, f)), f
    elif a.scores is not None:
        for f in ("keys", "smin", "pos", "neg"):
            assert np.array_equal(getattr(a.scores, f), getattr(b.scores, f)), f
    if a.class_scores is not None:
        assert np.array_equal(a.class_scores.classes, b.class_scores.classes)
        for ca, cb in zip(a.class_scores.counts, b.class_scores.counts):
            fields = ("thresholds", "tps", "fps") if isinstance(ca, ThresholdCounts) else ("keys", "smin", "pos", "neg")
            for f in fields:
                assert np.array_equal(getattr(ca, f), getattr(cb, f)), f
    assert (a.permutation_cells is None) == (b.permutation_cells is None)
    if a.permutation_cells is not None:  # weighted: the cells of the permutation CLT
        x, y = a.permutation_cells, b.permutation_cells
        assert np.array_equal(x.keys, y.keys) and np.array_equal(x.classes, y.classes)
        assert np.array_equal(x.rows, y.rows)
        np.testing.assert_allclose(x.weights, y.weights, rtol=1e-12)
        np.testing.assert_allclose(x.squares, y.squares, rtol=1e-12)
    assert (a.squared_error_sums is None) == (b.squared_error_sums is None)
    if a.squared_error_sums is not None:  # weighted regression: the sums of the squared error's CLT
        x, y = a.squared_error_sums.test(), b.squared_error_sums.test()  # sums around other shifts: the test
        for k in ("statistic", "pvalue", "null_mean", "null_std"):
            assert getattr(x, k) == pytest.approx(getattr(y, k), rel=1e-9), k
    assert (a.permutation_loss_sums is None) == (b.permutation_loss_sums is None)
    if a.permutation_loss_sums is not None:  # the sums of the log and Brier losses' permutation CLT
        x, y = a.permutation_loss_sums, b.permutation_loss_sums
        assert x.n == y.n and np.array_equal(x.classes, y.classes) and set(x.first) == set(y.first)
        np.testing.assert_allclose(x.weights, y.weights, rtol=1e-12)
        np.testing.assert_allclose(x.squares, y.squares, rtol=1e-12)
        for k in x.first:
            np.testing.assert_allclose(x.first[k], y.first[k], rtol=1e-10)
            np.testing.assert_allclose(x.second[k], y.second[k], rtol=1e-10)
            assert x.observed[k] == pytest.approx(y.observed[k], rel=1e-10)
    if a.moments is not None:
        assert a.moments.weight == b.moments.weight
        assert np.isclose(a.moments.mean, b.moments.mean, rtol=1e-12, atol=1e-14)
        assert np.isclose(a.moments.m2, b.moments.m2, rtol=1e-10)
    if a.targets is not None:
        for f in ("keys", "weight", "vmin", "vmax"):
            assert np.array_equal(getattr(a.targets, f), getattr(b.targets, f)), f
        assert np.allclose(a.targets.wsum, b.targets.wsum, rtol=1e-12, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sa, sb = a.summary(), b.summary()
    assert sa.keys() == sb.keys()
    for k in sa:
        if isinstance(sa[k], str):
            assert sa[k] == sb[k]
        else:
            assert np.isclose(sa[k], sb[k], rtol=1e-9, equal_nan=True), (k, sa[k], sb[k])


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return make_frame()


@pytest.fixture(scope="module")
def parquet_dir(tmp_path_factory, frame) -> str:
    """The frame written in 4 chunks (row groups of 100) to a directory of Parquet files."""
    d = tmp_path_factory.mktemp("parts")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    for i, start in enumerate(range(0, len(frame), 150)):
        pq.write_table(table.slice(start, 150), d / f"part-{i}.parquet", row_group_size=100)
    return str(d)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_memory_and_duckdb_identical(case, frame, parquet_dir):
    mem = compute_statistics(frame, **case)  # auto: memory
    assert_same(mem, compute_statistics(frame, engine="duckdb", **case))
    assert_same(mem, compute_statistics(os.path.join(parquet_dir, "*.parquet"), **case))  # auto: duckdb
    assert_same(mem, compute_statistics(os.path.join(parquet_dir, "*.parquet"), engine="memory", **case))


def test_duckdb_csv_and_directory_and_arrays(frame, parquet_dir, tmp_path):
    case = dict(y_true="y", y_score="score", sample_weight="w")
    csv = tmp_path / "data.csv"
    frame.to_csv(csv, index=False)
    mem = compute_statistics(None, y_true=frame.y.to_numpy(), y_score=frame.score.to_numpy(), sample_weight=frame.w.to_numpy())
    assert_same(mem, compute_statistics(str(csv), **case))
    assert_same(mem, compute_statistics(parquet_dir, **case))
    assert_same(mem, compute_statistics(pa.Table.from_pandas(frame), engine="duckdb", **case))
    import duckdb

    con = duckdb.connect()
    rel = con.from_df(frame)
    assert detect_engine(rel) == "duckdb"
    assert_same(mem, compute_statistics(rel, connection=con, **case))


def test_measures_against_scikit_learn_through_duckdb(parquet_dir, frame):
    import sklearn.metrics as skm

    st_ = compute_statistics(parquet_dir, y_true="y", y_score="score", sample_weight="w")
    assert np.isclose(st_.auc("roc"), skm.roc_auc_score(frame.y, frame.score, sample_weight=frame.w), rtol=REL)
    assert np.isclose(st_.auc("pr"), skm.average_precision_score(frame.y, frame.score, sample_weight=frame.w), rtol=REL)
    pred = (frame.score >= 0.5).astype(int)
    assert np.isclose(st_.metric("f1"), skm.f1_score(frame.y, pred, sample_weight=frame.w), rtol=REL)
    rg = compute_statistics(parquet_dir, y_true="yr", y_pred="fr", sample_weight="w")
    assert np.isclose(rg.prediction_advantage().value, skm.r2_score(frame.yr, frame.fr, sample_weight=frame.w), rtol=1e-10)
    assert np.isclose(
        rg.prediction_advantage("absolute").value,
        skm.d2_absolute_error_score(frame.yr, frame.fr, sample_weight=frame.w), rtol=1e-10,
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 40), st.sampled_from([None, 5]))
def test_property_memory_equals_duckdb(seed, n, bins):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "y": rng.integers(0, 2, n),
        "s": np.round(rng.random(n), int(rng.integers(1, 4))),
        "w": rng.integers(0, 3, n).astype(float),
    })
    df.loc[0, "w"] = 1.0  # a positive total weight (one class only is allowed: measures are nan)
    kw = dict(y_true="y", y_score="s", sample_weight="w", score_bins=bins)
    assert_same(compute_statistics(df, **kw), compute_statistics(df, engine="duckdb", **kw))


# =====================================================================================
# bad input: every engine refuses it with an InvalidInputError
# =====================================================================================

BAD = [
    (dict(score=[0.1, np.nan, 0.3]), dict(y_true="y", y_score="score"), "y_score"),
    (dict(w=[1.0, -1.0, 1.0]), dict(y_true="y", y_score="score", sample_weight="w"), "negative"),
    (dict(w=[0.0, 0.0, 0.0]), dict(y_true="y", y_score="score", sample_weight="w"), "sums to zero"),
    # the internal compute_statistics on DuckDB counts the bad rows; the public doors name the row
    # (tests/test_same_line_every_door.py)
    (dict(w=[1.0, np.inf, 1.0]), dict(y_true="y", y_score="score", sample_weight="w"),
     "non-finite value|sample_weight contains NULL, NaN or infinite values"),
    (dict(y=[0, 1, 2]), dict(y_true="y", y_score="score"), "binary"),
    (dict(), dict(y_true="y", y_score="nope"), "not found"),
    (dict(), dict(y_true="y", y_score="score", statistics=["moments"]), "statistics for task"),
    (dict(p0=[0.5, 0.5, 0.5], p1=[0.5, 0.6, 0.5]), dict(y_true="y", y_proba=["p0", "p1"]), "sum to 1"),
    (dict(p0=[-0.1, 0.5, 0.5], p1=[1.1, 0.5, 0.5]), dict(y_true="y", y_proba=["p0", "p1"]), "negative"),
    (dict(p0=[0.5, 0.5, 0.5], p1=[0.5, 0.5, 0.5]), dict(y_true="y", y_proba=["p0"]), "columns"),
    (dict(yr=[1.0, np.inf, 2.0], fr=[1.0, 1.0, 1.0]), dict(y_true="yr", y_pred="fr"), "y_true"),
]


def _bad_frame(**overrides) -> pd.DataFrame:
    base = {"y": [0, 1, 1], "score": [0.1, 0.5, 0.9], "w": [1.0, 1.0, 1.0], "p0": [0.5, 0.5, 0.5],
            "p1": [0.5, 0.5, 0.5], "yr": [1.0, 2.0, 3.0], "fr": [1.0, 2.0, 2.5]}
    base.update(overrides)
    return pd.DataFrame(base)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("overrides,kwargs,match", BAD)
def test_bad_input_every_engine(engine, overrides, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        compute_statistics(_bad_frame(**overrides), engine=engine, **kwargs)


def test_null_labels_and_files(tmp_path):
    t = pa.table({"y": pa.array([0, None, 1]), "s": [0.1, 0.2, 0.3]})
    path = tmp_path / "nulls.parquet"
    pq.write_table(t, path)
    with pytest.raises(InvalidInputError, match="y_true|column 'y' of .* missing value"):
        compute_statistics(str(path), y_true="y", y_score="s")
    with pytest.raises(InvalidInputError, match="y_true|column 'y' of .* missing value"):
        compute_statistics(str(path), y_true="y", y_score="s", engine="memory")
    empty = tmp_path / "empty.parquet"
    pq.write_table(t.slice(0, 0), empty)
    with pytest.raises(InvalidInputError, match="empty"):
        compute_statistics(str(empty), y_true="y", y_score="s")
    with pytest.raises(InvalidInputError, match="cannot read"):
        compute_statistics(str(tmp_path / "missing.parquet"), y_true="y", y_score="s")
    with pytest.raises(InvalidInputError, match="format"):
        compute_statistics(str(tmp_path / "data.json"), y_true="y", y_score="s")
    with pytest.raises(InvalidInputError, match="engine must be"):
        compute_statistics(str(path), y_true="y", y_score="s", engine="hive")
    with pytest.raises(InvalidInputError, match="needs a source"):
        compute_statistics(None, y_true=[0, 1], y_score=[0.1, 0.2], engine="duckdb")


def test_files_are_not_modified(parquet_dir):
    before = {f: os.path.getmtime(os.path.join(parquet_dir, f)) for f in os.listdir(parquet_dir)}
    compute_statistics(parquet_dir, y_true="y", y_score="score")
    assert before == {f: os.path.getmtime(os.path.join(parquet_dir, f)) for f in os.listdir(parquet_dir)}


def test_top_level_exports():
    assert hasattr(bc, "StatisticsAccumulator") and "StatisticsAccumulator" in bc.__all__
    for name in ("compute_statistics", "SufficientStatistics"):  # issue 36: one statistics type, TaskStatistics
        assert name not in bc.__all__ and name not in bc.engines.__all__
    assert "SufficientStatistics" in bc.statistics.__all__  # the stats inside TaskStatistics, documented there
    assert "BinnedScoreCounts" in bc.statistics.__all__ and "BinnedScoreCounts" not in bc.__all__


# =====================================================================================
# Spark (local mode): the session-scoped ``spark`` fixture of conftest.py, small data
# =====================================================================================


# =====================================================================================
# reports from the engines' statistics equal evaluate() on the rows (every task)
# =====================================================================================


#: task -> (evaluate_source columns, the same columns as arrays for evaluate)
REPORT_CASES = {
    "binary-scores": (dict(y_true="y", y_score="score"), ["y", "score"]),
    "binary-labels": (dict(y_true="y", y_pred="bl"), ["y", "bl"]),
    "multiclass-labels": (dict(y_true="label", y_pred="pred"), ["label", "pred"]),
    "multiclass-probabilities": (dict(y_true="label", y_score=["p_a", "p_b", "p_c"]), ["label", ["p_a", "p_b", "p_c"]]),
    "regression": (dict(y_true="yr", y_pred="fr"), ["yr", "fr"]),
}
_ROW_INTERVALS = ("log_loss", "brier", "mse", "mae", "r2", "d2_absolute_error", "pinball_loss", "d2_pinball_score")
FAST_REPORT = dict(n_resamples=200, mc_samples=256, random_state=3)


def assert_report_equals_rows(source, frame, task: str, weighted: bool, engine: str, options: dict | None = None,
                              **kwargs):
    """The engine's report: the task and counts of evaluate() on the rows, every value and
    every interval (cell bootstrap, grouped bootstrap of the rows: same seed, same
    replicates) to rounding.  ``options``: report options of both calls.  Returns the
    report of the rows."""
    import warnings

    cols, arrays = REPORT_CASES[task]
    weight = "w" if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = evaluate(data=source, engine=engine, sample_weight=weight, **cols, **kwargs, **(options or {}), **FAST_REPORT)
        mem = evaluate(*(frame[c].to_numpy() for c in arrays),
                       sample_weight=None if weight is None else frame["w"].to_numpy(), **(options or {}),
                       **FAST_REPORT)
    assert eng.task == mem.task == task and eng.n == mem.n
    if weighted:
        assert eng.total_weight == pytest.approx(mem.total_weight, rel=REL)
    for name, m in mem.metrics.items():
        e = eng[name]
        for key in ("value", "baseline", "advantage", "ops"):
            a, b = getattr(e, key), getattr(m, key)
            assert (a is None and b is None) or a == pytest.approx(b, rel=1e-9, abs=1e-12, nan_ok=True), (name, key)
        # the p-value against chance: from the statistics, or memory's row test on the fetched rows
        assert m.pvalue is not None and e.pvalue == pytest.approx(m.pvalue, rel=1e-9), (name, e.pvalue_method)
        assert e.pvalue_method.startswith(m.pvalue_method), (name, e.pvalue_method, m.pvalue_method)
        if task == "multiclass-probabilities" and m.kind == "scoring":  # one-vs-rest AUCs: no interval
            assert m.ci is None and e.ci is None, name
            continue
        assert m.ci is not None and e.ci is not None, name
        assert (e.ci.method, e.ci.n_resamples, e.ci.resampling) == (m.ci.method, m.ci.n_resamples, m.ci.resampling)
        assert (e.ci.low, e.ci.high) == pytest.approx((m.ci.low, m.ci.high), rel=1e-9, abs=1e-12), name
        grouped = (task in ("multiclass-probabilities", "regression") and name in _ROW_INTERVALS) or (
            weighted and m.kind in ("labeling", "advantage"))
        assert ("grouped Poisson" in e.ci.resampling) == grouped, (name, e.ci.resampling)
    assert not any("not computed" in note for note in eng.notes)
    assert_same_per_class(eng, mem, task)
    return mem


def assert_same_per_class(eng, mem, task: str) -> None:
    """The per-class table and the confusion matrix (issue 14, item 4): from the confusion
    counts, so the same on every engine, intervals included (same seed, same resamples)."""
    if task == "regression":
        assert eng.per_class is None and mem.per_class is None
        return
    a, b = eng.per_class.to_frame(), mem.per_class.to_frame()
    assert a.index.equals(b.index) and list(a.columns) == list(b.columns)
    numeric = a.select_dtypes("number").columns
    np.testing.assert_allclose(a[numeric].to_numpy(float), b[numeric].to_numpy(float), rtol=1e-9, atol=1e-12)
    assert (a["baseline_prediction"] == b["baseline_prediction"]).all()
    labeling = b.xs("f1", level="metric").index.size * 3  # precision, recall, F1 (the AUCs have no interval)
    lab = b[b.index.get_level_values("metric").isin(["precision", "recall", "f1"])]
    defined = np.isfinite(lab["value"].to_numpy(float))  # undefined: recall of a class only predicted
    assert lab.shape[0] == labeling and defined.sum() >= 6
    assert (np.isfinite(lab["ci_low"].to_numpy(float)) == defined).all()
    assert eng.per_class.ci_method == mem.per_class.ci_method
    ca, cb = eng.to_dict()["confusion_matrix"], mem.to_dict()["confusion_matrix"]
    assert ca["labels"] == cb["labels"]
    np.testing.assert_allclose(ca["matrix"], cb["matrix"], rtol=1e-12)
    np.testing.assert_allclose(np.array(ca["rates"], float), np.array(cb["rates"], float), rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("task", list(REPORT_CASES))
def test_report_duckdb_equals_rows(frame, task, weighted):
    frame = frame.assign(bl=(frame["score"] >= 0.5).astype(np.int64))
    assert_report_equals_rows(frame, frame, task, weighted, "duckdb")


@pytest.mark.parametrize("weighted", [False, True])
def test_quantile_regression_report_duckdb_equals_rows(frame, weighted):
    """The pinball rows of a quantile model (the τ-quantile of y, a second aggregation) and
    their grouped-bootstrap intervals: DuckDB = the rows."""
    mem = assert_report_equals_rows(frame, frame, "regression", weighted, "duckdb", options=dict(quantile=0.9))
    assert {"pinball_loss", "d2_pinball_score"} <= set(mem.metrics)


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_report_spark_equals_rows(spark, frame):
    """Every task, with and without weights, through Spark SQL (one test: one JVM); and the
    pinball rows of a quantile model."""
    frame = frame.assign(bl=(frame["score"] >= 0.5).astype(np.int64))
    sdf = spark.createDataFrame(frame)
    for task in REPORT_CASES:
        for weighted in (False, True):
            assert_report_equals_rows(sdf, frame, task, weighted, "spark", session=spark)
    mem = assert_report_equals_rows(sdf, frame, "regression", True, "spark", options=dict(quantile=0.25), session=spark)
    assert {"pinball_loss", "d2_pinball_score"} <= set(mem.metrics)


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark_local_identical(spark, frame, parquet_dir):
    """All tasks through Spark SQL equal the in-memory statistics (one test: one JVM under xdist)."""
    sdf = spark.createDataFrame(frame)
    assert detect_engine(sdf) == "spark"
    spark_cases = [  # one per task (each Spark query costs seconds): binary, labels, probabilities, regression
        dict(y_true="ys", y_score="score", sample_weight="w", pos_label="pos"),
        CASES[4],
        CASES[5],
        dict(y_true="yr", y_pred="fr", sample_weight="w", pinball_alphas=[0.9], target_bin_width=0.5),
    ]
    for case in spark_cases:
        assert_same(compute_statistics(frame, **case), compute_statistics(sdf, **case))
    # a path read by Spark
    case = dict(y_true="y", y_score="score", sample_weight="w", score_bins=50)
    assert_same(compute_statistics(frame, **case), compute_statistics(parquet_dir, engine="spark", spark=spark, **case))
    with pytest.raises(InvalidInputError, match="y_score"):
        compute_statistics(spark.createDataFrame(_bad_frame(score=[0.1, float("nan"), 0.3])), y_true="y", y_score="score")


def test_duckdb_reads_csv_yes_no_labels_as_text_like_pyarrow(tmp_path):
    """DuckDB's sniffer would read yes/no as BOOLEAN; the engine keeps them as text, so the
    positive label "yes" means the same in every engine (true/false stays boolean)."""
    import duckdb

    from beyondchance.engines.duckdb import DuckDBRunner

    path = tmp_path / "yes_no.csv"
    path.write_text("label,flag,score\nyes,true,0.9\nno,false,0.2\nno,true,0.4\nyes,false,0.7\n")
    assert duckdb.sql(f"DESCRIBE SELECT * FROM read_csv('{path}', header = true)").fetchall()[0][1] == "BOOLEAN"
    runner = DuckDBRunner(str(path))
    try:
        assert runner.column_kinds() == {"label": "string", "flag": "bool", "score": "float"}
    finally:
        runner.close()
    stats = compute_statistics(str(path), y_true="label", y_score="score", pos_label="yes", engine="duckdb")
    memory = compute_statistics(
        {"label": np.array(["yes", "no", "no", "yes"]), "score": np.array([0.9, 0.2, 0.4, 0.7])},
        y_true="label", y_score="score", pos_label="yes", engine="memory",
    )
    assert stats.auc("roc") == memory.auc("roc") == 1.0



def test_weighted_labels_without_group_totals_get_no_cell_interval():
    """Weighted cells are not counts: without the grouped bootstrap's totals (an engine
    without a row order) the labeling metrics get no interval and a note — never a cell
    bootstrap of the weighted cells."""
    from beyondchance.measures.confusion import ConfusionMatrix
    from beyondchance.report.evaluation_context import _Collector, _Context
    from beyondchance.report.tasks.labels import NO_ROW_ORDER, labels_rows

    ctx = _Context(level=0.95, n_resamples=200, ci=True, seed=0, collector=_Collector(), step=lambda m: None,
                   strict=False)
    cm = ConfusionMatrix(np.array([[40.5, 3.25], [7.0, 12.5]]), np.array([0, 1]), pos_label=None)
    counts = np.array([30.0, 15.0])
    weighted = labels_rows(cm, counts, ctx, binary=True, pos_label=None, n_rows=45, weighted=True)
    assert all(m["ci"] is None for m in weighted["metrics"].values())
    assert NO_ROW_ORDER in weighted["notes"]
    unweighted = labels_rows(ConfusionMatrix(np.array([[40, 3], [7, 12]]), np.array([0, 1])), counts, ctx,
                             binary=True, pos_label=None, n_rows=62, weighted=False)
    assert all(m["ci"] is not None for m in unweighted["metrics"].values())


def test_regression_detected_from_a_score_column_keeps_its_intervals(tmp_path):
    """A float y_true with a float y_score column is detected as regression after the
    first read (which kept no row positions): a second read gives the grouped bootstrap's
    sums, and the intervals equal evaluate() on the rows."""
    import warnings

    rng = np.random.default_rng(5)
    y = rng.normal(size=400).round(3)
    f = y + rng.normal(scale=0.5, size=400)
    pd.DataFrame({"y": y, "f": f}).to_parquet(tmp_path / "r.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = evaluate(data=str(tmp_path / "r.parquet"), y_true="y", y_score="f", engine="duckdb", **FAST_REPORT)
        mem = evaluate(y, f, **FAST_REPORT)
    assert eng.task == mem.task == "regression"
    for name, m in mem.metrics.items():
        assert (eng[name].ci.low, eng[name].ci.high) == pytest.approx((m.ci.low, m.ci.high), rel=1e-9), name
