"""The streaming accumulator: batches of any table type, in any chunking and any order,
give the statistics of the whole stream at once; merging accumulators of two workers
equals one accumulator; a bad batch leaves the state unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beyondchance import InvalidInputError, StatisticsAccumulator, compute_statistics

from test_engines import assert_same, make_frame

CASES = [
    dict(y_true="y", y_score="score", sample_weight="w"),
    dict(y_true="y", y_score="score", score_bins=10),
    dict(y_true="label", y_pred="pred", sample_weight="w"),
    dict(y_true="label", y_proba=["p0", "p1", "p2"], sample_weight="w", labels=["a", "b", "c"]),
    dict(y_true="yr", y_pred="fr", sample_weight="w", target_bin_width=1.0),
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


@pytest.mark.parametrize("kind", ["pandas", "arrow", "batch", "dict", "polars"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['y_true']}-{len(c)}")
def test_batches_equal_one_shot(kind, case):
    df = make_frame(300, seed=1)
    acc = StatisticsAccumulator(**case)
    for start in range(0, len(df), 70):
        acc.update(_to(kind, df.iloc[start:start + 70]))
    assert acc.n_batches == 5
    assert_same(compute_statistics(df, **case), acc.compute())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 8))
def test_any_chunking_and_order_and_workers(seed, k):
    rng = np.random.default_rng(seed)
    df = make_frame(int(rng.integers(10, 120)), seed=seed % 1000)
    df["w"] = df["w"] + 1.0  # no zero-weight chunk
    case = dict(y_true="y", y_score="score", sample_weight="w")
    cuts = np.sort(rng.integers(0, len(df) + 1, k - 1))
    chunks = [c for c in np.split(rng.permutation(len(df)), cuts) if c.size]
    a, b = StatisticsAccumulator(**case), StatisticsAccumulator(**case)
    for i, c in enumerate(chunks):
        (a if i % 2 else b).update(df.iloc[c])
    merged = b.merge(a) if seed % 2 else a + b
    if merged.n_batches == 0:
        return
    assert merged.n_batches == len(chunks)
    assert_same(compute_statistics(df, **case), merged.compute())


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
    assert_same(compute_statistics(None, y_true=np.concatenate(ys), y_score=np.concatenate(ss)), acc.compute())
    acc.reset()
    with pytest.raises(InvalidInputError, match="no batch"):
        acc.compute()


def test_bad_batch_leaves_state_unchanged():
    acc = StatisticsAccumulator(y_true="y", y_score="s")
    acc.update({"y": [0, 1], "s": [0.2, 0.8]})
    before = acc.compute()
    with pytest.raises(InvalidInputError, match="y_score"):
        acc.update({"y": [0, 1], "s": [0.2, np.nan]})
    with pytest.raises(InvalidInputError, match="not found"):
        acc.update({"y": [0, 1]})
    assert acc.compute() is before and acc.n_batches == 1


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
    fixed = StatisticsAccumulator(task="binary-scores")
    with pytest.raises(InvalidInputError, match="takes y_score"):
        fixed.update(y_true=[0, 1], y_pred=[0, 1])
    acc.update(y_true=[0, 1], y_score=[0.1, 0.9])
    other = StatisticsAccumulator()
    other.update(y_true=[0, 1], y_pred=[0, 1])
    with pytest.raises(InvalidInputError, match="different tasks"):
        acc.merge(other)
    with pytest.raises(InvalidInputError, match="cannot merge"):
        acc.merge(object())


def test_update_takes_sample_weight_like_compute_statistics():
    # issue 11: one name for the weights, sample_weight= (as compute_statistics); no alias
    y, s, w = [1, 0, 1, 0], [0.9, 0.2, 0.4, 0.6], [1.0, 2.0, 0.5, 3.0]
    expected = compute_statistics(pd.DataFrame({"y": y, "s": s, "w": w}), y_true="y", y_score="s", sample_weight="w")
    assert_same(expected, StatisticsAccumulator().update(y_true=y, y_score=s, sample_weight=w).compute())
    with pytest.raises(TypeError, match="weight"):
        StatisticsAccumulator().update(y_true=y, y_score=s, weight=w)
