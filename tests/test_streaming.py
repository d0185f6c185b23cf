"""The streaming accumulator: batches of any table type, in any chunking and any order,
give the statistics ``profile`` gives for the whole stream at once (a TaskStatistics: equal
counts, sums to rounding); merging accumulators of two workers equals one accumulator; a bad
batch leaves the state unchanged."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance import InvalidInputError, StatisticsAccumulator

from test_engines import make_frame

CASES = [
    dict(y_true="y", y_score="score", sample_weight="w"),
    dict(y_true="y", y_score="score", score_bins=10),
    dict(y_true="label", y_pred="pred", sample_weight="w"),
    dict(y_true="label", y_score=["p0", "p1", "p2"], sample_weight="w", labels=["a", "b", "c"]),
    dict(y_true="yr", y_pred="fr", sample_weight="w"),
]


def _to(kind: str, df: pd.DataFrame):
    if kind == "pandas":
        return df
    if kind == "arrow":
        return pa.Table.from_pandas(df, preserve_index=False)
    if kind == "batch":
        return pa.RecordBatch.from_pandas(df, preserve_index=False)
    if kind == "dict":
        return {c: df[c].to_numpy() for c in df.columns}
    pl = pytest.importorskip("polars")
    return pl.from_pandas(df)


def _whole(df: pd.DataFrame, case: dict, **options) -> bc.TaskStatistics:
    """``profile`` of all the rows, with the accumulator's arguments."""
    kw = dict(case)
    y_true, y_score = kw.pop("y_true"), kw.pop("y_score", None)
    if "yr" == y_true:  # a regression's bootstrap sums do not merge: the accumulator keeps none
        options.setdefault("ci", False)
    return bc.profile(y_true, y_score, data=df, engine="memory", **kw, **options)


def _close(a, b, where="report"):
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12), where
    else:
        assert a == b, where


def assert_same(whole: bc.TaskStatistics, streamed: bc.TaskStatistics) -> None:
    """Equal statistics, or — where sums of real numbers were added in another order — the
    same report to rounding (every value, interval and p-value with the same seed)."""
    assert isinstance(streamed, bc.TaskStatistics)
    if whole == streamed:
        return
    assert (whole.task, whole.n_rows, whole.weighted) == (streamed.task, streamed.n_rows, streamed.weighted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(bc.evaluate(whole).to_dict(), bc.evaluate(streamed).to_dict())


@pytest.mark.parametrize("kind", ["pandas", "arrow", "batch", "dict", "polars"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['y_true']}-{len(c)}")
def test_batches_equal_one_shot(kind, case):
    df = make_frame(300, seed=1)
    acc = StatisticsAccumulator(**case)
    for start in range(0, len(df), 70):
        acc.update(_to(kind, df.iloc[start:start + 70]))
    assert acc.n_batches == 5
    assert_same(_whole(df, case), acc.compute())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 8))
def test_any_chunking_and_order_and_workers(seed, k):
    rng = np.random.default_rng(seed)
    df = make_frame(int(rng.integers(10, 120)), seed=seed % 1000)
    df["w"] = df["w"] + 1.0  # no zero-weight chunk
    case = dict(y_true="y", y_score="score", sample_weight="w", labels=[0, 1], ci=False)  # ci: sums by row position
    cuts = np.sort(rng.integers(0, len(df) + 1, k - 1))
    chunks = [c for c in np.split(rng.permutation(len(df)), cuts) if c.size]
    a, b = StatisticsAccumulator(**case), StatisticsAccumulator(**case)
    for i, c in enumerate(chunks):
        (a if i % 2 else b).update(df.iloc[c])
    merged = b.merge(a) if seed % 2 else a + b
    if merged.n_batches == 0:
        return
    assert merged.n_batches == len(chunks)
    assert merged.compute() == _whole(df, dict(y_true="y", y_score="score", sample_weight="w"), ci=False)


def test_workers_with_rows_apart_keep_the_bootstrap_sums():
    """Two workers' accumulators merge with their bootstrap sums when their rows are numbered
    apart (``row_offset``): the intervals of the whole, with the same seed."""
    df = make_frame(200, seed=3)
    case = dict(y_true="y", y_score="score", sample_weight="w")
    a = StatisticsAccumulator(**case).update(df.iloc[:80]).update(df.iloc[80:120])
    b = StatisticsAccumulator(**case, row_offset=120).update(df.iloc[120:])
    assert (a + b).compute() == _whole(df, case)
    with pytest.raises(InvalidInputError, match="row_offset"):
        (a + StatisticsAccumulator(**case).update(df.iloc[120:])).compute()


def test_arrays_as_keywords_and_training_loop():
    rng = np.random.default_rng(5)
    acc = StatisticsAccumulator()
    ys, ss = [], []
    for _ in range(4):  # e.g. one update per epoch's validation batch
        y = rng.integers(0, 2, 50)
        s = rng.random(50)
        acc.update(y_true=y, y_score=s)
        ys.append(y)
        ss.append(s)
    assert acc.task == "binary-scores"
    assert acc.compute() == bc.profile(np.concatenate(ys), np.concatenate(ss))
    acc.reset()
    with pytest.raises(InvalidInputError, match="no batch"):
        acc.compute()


def test_the_first_batch_fixes_classes_and_positive_class():
    """A later batch lacking a class merges (profiled with the first's classes); one with a new
    class is refused naming labels=; string labels take profile's positive class (the minority),
    and compute() refuses when the first batch's minority is not all the rows'."""
    acc = StatisticsAccumulator().update(y_true=[0, 1, 1], y_score=[0.1, 0.8, 0.6])
    acc.update(y_true=[0, 0], y_score=[0.3, 0.2])
    assert acc.compute() == bc.profile([0, 1, 1, 0, 0], [0.1, 0.8, 0.6, 0.3, 0.2])
    labels = StatisticsAccumulator().update(y_true=["a", "b"], y_pred=["a", "b"])
    with pytest.raises(InvalidInputError, match=r"batch 2 has the class 'c'.*labels="):
        labels.update(y_true=["a", "c"], y_pred=["a", "b"])
    up_front = StatisticsAccumulator(labels=["a", "b", "c"]).update(y_true=["a", "b"], y_pred=["a", "b"])
    assert up_front.update(y_true=["a", "c"], y_pred=["a", "b"]).compute().n_rows == 4
    y = np.array(["no", "yes", "yes"] + ["no"] * 6 + ["yes"] * 2)
    s = np.linspace(0.1, 0.9, y.size)
    first = StatisticsAccumulator().update(y_true=y[:3], y_score=s[:3])
    assert first.compute() == bc.profile(y[:3], s[:3]) and first.compute().positive[0] == "no"
    with pytest.raises(InvalidInputError, match="pos_label="):
        first.update(y_true=y[3:], y_score=s[3:]).compute()
    given = StatisticsAccumulator(pos_label="yes").update(y_true=y[:3], y_score=s[:3]).update(y_true=y[3:],
                                                                                           y_score=s[3:])
    assert given.compute() == bc.profile(y, s, pos_label="yes")


def test_bad_batch_leaves_state_unchanged():
    acc = StatisticsAccumulator(y_true="y", y_score="s")
    acc.update({"y": [0, 1], "s": [0.2, 0.8]})
    before = acc.compute()
    with pytest.raises(InvalidInputError, match="y_score"):
        acc.update({"y": [0, 1], "s": [0.2, np.nan]})
    with pytest.raises(InvalidInputError, match="not found"):
        acc.update({"y": [0, 1]})
    assert acc.compute() == before and acc.n_batches == 1


def test_accumulator_errors():
    with pytest.raises(InvalidInputError, match="column name"):
        StatisticsAccumulator(y_true=np.array([0, 1]))
    acc = StatisticsAccumulator()
    with pytest.raises(InvalidInputError, match="no column names"):
        acc.update({"y": [0, 1]})
    with pytest.raises(InvalidInputError, match="needs a batch"):
        acc.update()
    named = StatisticsAccumulator(y_true="y", y_score="s")
    with pytest.raises(InvalidInputError, match="not both"):
        named.update({"y": [0], "s": [0.1]}, y_true=[0], y_score=[0.1])
    with pytest.raises(InvalidInputError, match="table"):
        named.update([0, 1])
    with pytest.raises(InvalidInputError, match="is now 'binary-scores'"):
        StatisticsAccumulator(task="binary")
    acc.update(y_true=[0, 1], y_score=[0.1, 0.9])
    other = StatisticsAccumulator()
    other.update(y_true=[0, 1], y_pred=[0, 1])
    with pytest.raises(InvalidInputError, match="tasks"):
        acc.merge(other).compute()
    with pytest.raises(InvalidInputError, match="cannot merge"):
        acc.merge(object())


def test_update_takes_sample_weight_like_profile():
    # issue 11: one name for the weights, sample_weight= (as profile); no alias
    y, s, w = [1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6], [1.0, 2.0, 0.5, 3.0]
    expected = bc.profile(y, s, sample_weight=w)
    assert StatisticsAccumulator().update(y_true=y, y_score=s, sample_weight=w).compute() == expected
    with pytest.raises(TypeError, match="weight"):
        StatisticsAccumulator().update(y_true=y, y_score=s, weight=w)
