"""Data frames as they come (issue 14, item 7): pandas, polars and pyarrow columns and tables
give the report of the same numpy arrays; text and categorical columns are converted by their
own library without a Python object per row, and text labels are encoded by hashing."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beyondchance import InvalidInputError
from beyondchance._validation import as_1d, encode_labels, text_values
from beyondchance.report import evaluate

FAST = dict(n_resamples=200, mc_samples=1024)
NAMES = np.array(["setosa", "versicolor", "virginica"])


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _text_columns(values: np.ndarray) -> dict[str, object]:
    return {
        "pandas object": pd.Series(values.astype(object)),
        "pandas string": pd.Series(values, dtype="string"),
        "pandas string[pyarrow]": pd.Series(values, dtype="string[pyarrow]"),
        "pandas category": pd.Series(values, dtype="category"),
        "polars String": pl.Series(values),
        "polars Categorical": pl.Series(values).cast(pl.Categorical),
        "polars Enum": pl.Series(values).cast(pl.Enum(sorted(set(values.tolist())) + ["unused"])),
        "pyarrow string": pa.array(values),
        "pyarrow large_string": pa.array(values, pa.large_string()),
        "pyarrow dictionary": pa.array(values).dictionary_encode(),
        "pyarrow chunked": pa.chunked_array([values[:50], values[50:]]),
    }


@pytest.fixture(scope="module")
def multiclass():
    rng = np.random.default_rng(3)
    y = NAMES[rng.integers(0, 3, 300)]
    p = np.where(rng.random(300) < 0.6, y, NAMES[rng.integers(0, 3, 300)])
    return y, p, _quiet(evaluate, y, p, **FAST).to_dict()


def test_every_text_column_gives_the_numpy_report(multiclass):
    y, p, expected = multiclass
    yt, yp = _text_columns(y), _text_columns(p)
    for kind in yt:
        got = _quiet(evaluate, yt[kind], yp[kind], **FAST).to_dict()
        assert got["classes"] == expected["classes"], kind  # an unused category is no class
        assert got["metrics"] == expected["metrics"], kind
        assert got["per_class"] == expected["per_class"], kind


def test_text_columns_share_their_strings_instead_of_one_object_per_row(multiclass):
    y, _, _ = multiclass
    for kind, col in _text_columns(y).items():
        if kind == "pandas object":  # numpy's own object array: already as given
            continue
        arr = text_values(col)
        assert arr is not None and arr.dtype == object, kind
        assert arr.tolist() == y.tolist(), kind
        assert len({id(v) for v in arr}) == 3, kind  # one object per distinct label


def test_numbers_and_tables(multiclass):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    s = np.clip(0.3 * y + 0.7 * rng.random(300), 0, 1)
    expected = _quiet(evaluate, y, s, **FAST).to_dict()["metrics"]
    for yt, ys in ((pd.Series(y, dtype="Int64"), pd.Series(s, dtype="Float64")), (pl.Series(y), pl.Series(s)),
                   (pa.array(y), pa.chunked_array([s[:100], s[100:]]))):
        assert _quiet(evaluate, yt, ys, **FAST).to_dict()["metrics"] == expected, type(yt)
    # numeric categories stay numbers (the text path is for text only)
    assert as_1d(pd.Series(y, dtype="category"), "y").dtype.kind == "i"
    assert as_1d(pa.array(y).dictionary_encode(), "y").dtype.kind == "i"
    as_bool = _quiet(evaluate, y.astype(bool), s, **FAST).to_dict()["metrics"]
    for yt in (pd.Series(y.astype(bool), dtype="boolean"), pl.Series(y.astype(bool)), pa.array(y.astype(bool))):
        assert _quiet(evaluate, yt, s, **FAST).to_dict()["metrics"] == as_bool, type(yt)
    # class probabilities as a table of columns
    P = rng.dirichlet([1, 1, 1], 300)
    y3 = NAMES[rng.integers(0, 3, 300)]
    ref = _quiet(evaluate, y3, P, **FAST).to_dict()["metrics"]
    for table in (pd.DataFrame(P, columns=NAMES), pl.DataFrame(P, schema=list(NAMES)),
                  pa.table({c: P[:, i] for i, c in enumerate(NAMES)})):
        got = _quiet(evaluate, pl.Series(y3), table, **FAST)
        assert got.task == "multiclass-probabilities", type(table)
        for name, m in got.to_dict()["metrics"].items():  # a column-major table sums in another order
            for key in ("value", "baseline", "ops"):
                assert (m[key] is None and ref[name][key] is None) or m[key] == pytest.approx(
                    ref[name][key], rel=1e-12, abs=1e-15), (type(table), name, key)


def test_tables_on_the_statistics_path(multiclass):
    y, p, expected = multiclass
    frame = pd.DataFrame({"y": y, "p": p})
    for source in (frame, pl.from_pandas(frame), pa.Table.from_pandas(frame)):
        r = _quiet(evaluate, data=source, y_true="y", y_pred="p", engine="memory", **FAST)
        assert r.to_dict()["metrics"] == expected["metrics"], type(source)
        out = r.to_frame()
        assert isinstance(out, pd.DataFrame) and out.loc["f1", "value"] == pytest.approx(r["f1"].value)
        assert isinstance(r.per_class.to_frame(), pd.DataFrame)


def test_missing_values_in_frames_are_refused_with_their_row():
    for col in (pd.Series(["a", None, "b"], dtype="string"), pd.Series(["a", None, "b"], dtype="category"),
                pl.Series(["a", None, "b"]), pl.Series(["a", None, "b"]).cast(pl.Categorical),
                pa.array(["a", None, "b"]), pa.array(["a", None, "b"]).dictionary_encode()):
        with pytest.raises(InvalidInputError, match=r"missing value.*row 2"):
            evaluate(col, ["a", "b", "b"], ci=False)
    with pytest.raises(InvalidInputError, match=r"missing value\(s\) \(first in data row 1: 'NA'\)"):
        evaluate(pa.array(["NA", "a", "b"]), ["a", "b", "b"], ci=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["b", "a", "ä", "A", "10", "9", "", " x"]), min_size=1, max_size=40),
       st.integers(0, 2**31 - 1), st.sampled_from(["U", "O"]))
def test_hashed_encoding_is_the_sorted_union(values, seed, kind):
    """Text labels are encoded by hashing; classes and codes are those of sorting (np.unique)."""
    rng = np.random.default_rng(seed)
    values = [v for v in values if v.strip()] or ["a"]
    yt = np.array(values, dtype=kind)
    yp = np.array(rng.choice(values, len(values)).tolist(), dtype=kind)
    ct, cp, classes = encode_labels(yt, yp)
    union, inverse = np.unique(np.concatenate([yt, yp]).astype(str), return_inverse=True)
    assert classes.astype(str).tolist() == union.tolist()
    np.testing.assert_array_equal(np.concatenate([ct, cp]), inverse)
    assert as_1d(pa.array(values), "y").tolist() == values
