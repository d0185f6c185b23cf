"""The Python API refuses what it cannot read ("Bounded and sealed"): one-column tables read as
their column, more columns refused; datetime, timedelta and Decimal values refused; masked
elements refused; iterators refused; pandas inputs with different indexes refused; class
probability columns named by the classes read in the class order.  Every rule lives in
:mod:`beyondchance._validation` (and :mod:`beyondchance.engines.detect` for ``evaluate``),
so each is checked here through the public functions."""

from __future__ import annotations

import datetime
import decimal
import warnings

import numpy as np
import pandas as pd
import pytest

import beyondchance as bc
from beyondchance._warnings import InvalidInputError

pytestmark = pytest.mark.hostile

N = 200


def _binary(seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    s = np.clip(0.3 * y + 0.7 * rng.random(N), 0, 1)
    return y, s


def _evaluate(y_true, y_score=None, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bc.evaluate(y_true, y_score, ci=False, mc_samples=1024, **kwargs)


def _routes():
    """(name of the predictions' argument, call): the public functions, of scores or labels."""
    return {
        "roc_auc": ("y_score", lambda y, p, **kw: bc.roc_auc(y, p, **kw)),
        "average_precision": ("y_score", lambda y, p, **kw: bc.average_precision(y, p, **kw)),
        "prediction_advantage": ("y_pred", lambda y, p, **kw: bc.prediction_advantage(y, p, **kw)),
        "pure_accuracy": ("y_pred", lambda y, p, **kw: bc.pure_accuracy(y, p, **kw)),
        "evaluate": ("y_score", lambda y, p, **kw: _evaluate(y, p, **kw)["roc_auc"].value),
    }


ROUTES = list(_routes())


def _call(route, y, s, **kw):
    return _routes()[route][1](y, s, **kw)


def _labels(s):
    return (np.asarray(s) > 0.5).astype(int)


def _predictions(route, s):
    """What the route takes as its second argument: scores, or predicted labels."""
    return s if _routes()[route][0] == "y_score" else _labels(s)


# --- 1. one-column tables --------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
def test_a_one_column_frame_is_read_as_its_column(route):
    y, s = _binary()
    w = np.random.default_rng(1).random(N) + 0.5
    p = _predictions(route, s)
    expected = _call(route, y, p, sample_weight=w)
    frames = dict(y_true=pd.DataFrame({"y": y}), preds=pd.DataFrame({"p": p}), weight=pd.DataFrame({"w": w}))
    got = _call(route, frames["y_true"], frames["preds"], sample_weight=frames["weight"])
    assert got == pytest.approx(expected, abs=1e-12)


def test_a_one_column_polars_frame_is_read_as_its_column():
    pl = pytest.importorskip("polars")
    y, s = _binary()
    assert bc.roc_auc(pl.DataFrame({"y": y}), pl.DataFrame({"s": s})) == pytest.approx(bc.roc_auc(y, s), abs=1e-12)
    assert bc.pure_accuracy(y, pl.DataFrame({"p": _labels(s)})) == pytest.approx(bc.pure_accuracy(y, _labels(s)))


@pytest.mark.parametrize("route", ["prediction_advantage", "pure_accuracy"])
def test_a_frame_of_several_columns_where_one_is_expected_is_refused(route):
    y, s = _binary()
    labels = _labels(s)
    three = pd.DataFrame({"a": labels, "b": labels, "c": labels})
    with pytest.raises(InvalidInputError, match=r"^y_pred is a table with 3 columns where one column"):
        _call(route, y, three)
    with pytest.raises(InvalidInputError, match=r"^y_true is a table with 2 columns"):
        _call(route, pd.DataFrame({"a": y, "b": y}), labels)


@pytest.mark.parametrize("route", ROUTES)
def test_sample_weight_of_several_columns_is_refused(route):
    y, s = _binary()
    w = pd.DataFrame({"w": np.ones(N), "v": np.ones(N)})
    with pytest.raises(InvalidInputError, match=r"^sample_weight is a table with 2 columns"):
        _call(route, y, _predictions(route, s), sample_weight=w)


# --- 2. datetime, timedelta, Decimal ---------------------------------------------------

ODD_VALUES = {
    "datetime64": (lambda s: (s * 1e9).astype("datetime64[ns]"), "datetime"),
    "pandas datetime with a time zone": (
        lambda s: pd.Series(pd.to_datetime(s * 1e9).tz_localize("UTC")), "datetime"),
    "datetime objects": (lambda s: np.array([datetime.datetime(2020, 1, 1) + datetime.timedelta(days=v)
                                             for v in s], dtype=object), "datetime"),
    "timedelta64": (lambda s: (s * 1e9).astype("timedelta64[ns]"), "timedelta"),
    "Decimal": (lambda s: np.array([decimal.Decimal(str(v)) for v in s], dtype=object), "decimal.Decimal"),
    "Decimal list": (lambda s: [decimal.Decimal(str(v)) for v in s], "decimal.Decimal"),
}


@pytest.mark.parametrize("kind", list(ODD_VALUES))
@pytest.mark.parametrize("route", ROUTES)
def test_datetime_timedelta_and_decimal_values_are_refused(route, kind):
    y, s = _binary()
    make, word = ODD_VALUES[kind]
    name = _routes()[route][0]
    with pytest.raises(InvalidInputError, match=rf"^{name} holds {word} values; "):
        _call(route, y, make(_predictions(route, s).astype(float)))


@pytest.mark.parametrize("route", ROUTES)
def test_datetime_labels_and_weights_are_refused(route):
    y, s = _binary()
    with pytest.raises(InvalidInputError, match=r"^y_true holds datetime values"):
        _call(route, y.astype("datetime64[D]"), _predictions(route, s))
    with pytest.raises(InvalidInputError, match=r"^sample_weight holds timedelta values"):
        _call(route, y, _predictions(route, s), sample_weight=np.ones(N).astype("timedelta64[s]"))


# --- 3. masked arrays ------------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
def test_masked_elements_are_refused_and_counted(route):
    y, s = _binary()
    p = _predictions(route, s)
    mask = np.zeros(N, dtype=bool)
    mask[[3, 50, 120]] = True
    name = _routes()[route][0]
    with pytest.raises(InvalidInputError, match=rf"^{name} is a masked array with 3 masked element\(s\) of {N}.*"
                                                r"compressed\(\).*filled\(value\)"):
        _call(route, y, np.ma.masked_array(p, mask=mask))
    with pytest.raises(InvalidInputError, match=r"^y_true is a masked array with 3 masked"):
        _call(route, np.ma.masked_array(y, mask=mask), p)


@pytest.mark.parametrize("route", ROUTES)
def test_an_unmasked_masked_array_is_read_as_its_data(route):
    y, s = _binary()
    p = _predictions(route, s)
    expected = _call(route, y, p)
    got = _call(route, np.ma.masked_array(y), np.ma.masked_array(p, mask=np.zeros(N, dtype=bool)),
                sample_weight=np.ma.masked_array(np.ones(N)))
    assert got == pytest.approx(expected, abs=1e-12)


# --- 4. iterators ----------------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
def test_generators_and_iterators_are_refused(route):
    y, s = _binary()
    p = _predictions(route, s)
    name = _routes()[route][0]
    with pytest.raises(InvalidInputError, match=rf"^{name} is a generator \(an iterator.*list\({name}\)"):
        _call(route, y, (v for v in p))
    with pytest.raises(InvalidInputError, match=r"^y_true is a map \(an iterator"):
        _call(route, map(int, y), p)
    with pytest.raises(InvalidInputError, match=r"^sample_weight is a list_iterator"):
        _call(route, y, p, sample_weight=iter(np.ones(N).tolist()))


def test_sets_and_mappings_are_refused():
    with pytest.raises(InvalidInputError, match=r"^y_score is a set, not a sequence"):
        bc.roc_auc([0, 1, 1], {0.2, 0.4, 0.9})
    with pytest.raises(InvalidInputError, match=r"^y_pred is a dict_values, not a sequence"):
        bc.pure_accuracy([0, 1, 1], {"a": 0, "b": 1, "c": 1}.values())


# --- 5. pandas indexes -----------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
def test_pandas_inputs_with_different_indexes_are_refused(route):
    y, s = _binary()
    p = _predictions(route, s)
    name = _routes()[route][0]
    shuffled = np.random.default_rng(2).permutation(N)
    yt = pd.Series(y, index=shuffled)
    with pytest.raises(InvalidInputError, match=rf"^y_true and {name} are pandas objects with different indexes "
                                                r"\(the same labels in another order\).*to_numpy\(\).*reset_index"):
        _call(route, yt, pd.Series(p))
    with pytest.raises(InvalidInputError, match=r"different indexes \(different labels\)"):
        _call(route, pd.Series(y, index=np.arange(N) + 1000), pd.Series(p))
    with pytest.raises(InvalidInputError, match=r"^y_true and sample_weight are pandas objects"):
        _call(route, yt, p if name == "y_score" else pd.Series(p, index=shuffled),
              sample_weight=pd.Series(np.ones(N)))


@pytest.mark.parametrize("route", ROUTES)
def test_pandas_inputs_with_equal_indexes_pass(route):
    y, s = _binary()
    p = _predictions(route, s)
    expected = _call(route, y, p)
    index = np.random.default_rng(3).permutation(N) + 7
    frame = pd.DataFrame({"y": y, "p": p, "w": np.ones(N)}, index=index)
    assert _call(route, frame["y"], frame["p"], sample_weight=frame["w"]) == pytest.approx(expected, abs=1e-12)
    # a filtered frame against its own column, and the suggested escape: positions
    part = frame.iloc[::2]
    assert _call(route, part["y"], part[["p"]]) == pytest.approx(_call(route, y[::2], p[::2]), abs=1e-12)
    other = pd.Series(p, index=np.arange(N))
    assert _call(route, frame["y"], other.to_numpy()) == pytest.approx(expected, abs=1e-12)


# --- 6. probability columns named by the classes ---------------------------------------


def test_binary_probability_columns_named_by_the_classes_are_read_by_name():
    """The finding: pd.DataFrame({1: s, 0: 1 - s}) was read by position (AUC 0.148)."""
    y, s = _binary()
    named = pd.DataFrame({1: s, 0: 1 - s})
    assert round(bc.roc_auc(y, s), 3) == 0.852
    assert bc.roc_auc(y, named) == pytest.approx(bc.roc_auc(y, s), abs=1e-12)
    assert _evaluate(y, named)["roc_auc"].value == pytest.approx(bc.roc_auc(y, s), abs=1e-12)
    # the curves of one score per row take the positive class's column
    assert bc.measures.pr_auc(y, named) == pytest.approx(bc.measures.pr_auc(y, s), abs=1e-12)
    text = np.where(y == 1, "yes", "no")
    both = pd.DataFrame({"yes": s, "no": 1 - s})
    assert bc.measures.pr_auc(text, both, pos_label="yes") == pytest.approx(bc.measures.pr_auc(y, s), abs=1e-12)
    assert bc.measures.pr_auc(text, both, pos_label="no") == pytest.approx(
        bc.measures.pr_auc(1 - y, 1 - s), abs=1e-12)
    # log loss: the probability of each class from its own column
    assert bc.prediction_advantage(y, named, loss="log_loss") == pytest.approx(
        bc.prediction_advantage(y, s, loss="log_loss"), abs=1e-12)


def _multiclass(seed: int = 4, classes=(0, 1, 2)):
    rng = np.random.default_rng(seed)
    k = len(classes)
    codes = rng.integers(0, k, N)
    logits = rng.normal(size=(N, k)) + 1.5 * np.eye(k)[codes]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return np.asarray(classes)[codes], p


def _multiclass_values(y, proba, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (bc.roc_auc(y, proba, **kwargs), bc.average_precision(y, proba, **kwargs),
                bc.prediction_advantage(y, proba, loss="log_loss", **kwargs),
                _evaluate(y, proba, **kwargs)["log_loss"].value)


@pytest.mark.parametrize("classes", [(0, 1, 2), ("a", "b", "c"), (3, 7, 9)])
def test_multiclass_columns_named_by_the_classes_are_put_in_the_class_order(classes):
    y, p = _multiclass(classes=classes)
    expected = _multiclass_values(y, p)
    order = [2, 0, 1]
    named = pd.DataFrame(p[:, order], columns=[classes[i] for i in order])
    assert _multiclass_values(y, named) == pytest.approx(expected, abs=1e-12)
    # text names (a CSV header) match the classes' text
    text = pd.DataFrame(p[:, order], columns=[str(classes[i]) for i in order])
    assert _multiclass_values(y, text) == pytest.approx(expected, abs=1e-12)


def test_labels_set_the_class_order_and_named_columns_follow_it():
    y, p = _multiclass()
    labels = [2, 0, 1]
    by_labels = _multiclass_values(y, p[:, labels], labels=labels)
    named = pd.DataFrame(p, columns=[0, 1, 2]).iloc[:, [1, 2, 0]]  # named 1, 2, 0
    assert _multiclass_values(y, named, labels=labels) == pytest.approx(by_labels, abs=1e-12)


def test_default_column_names_keep_the_reading_by_position_and_foreign_ones_are_refused():
    y, p = _multiclass(classes=(1, 2, 3))
    expected = _multiclass_values(y, p)
    assert _multiclass_values(y, pd.DataFrame(p)) == pytest.approx(expected, abs=1e-12)  # RangeIndex 0, 1, 2
    foreign = pd.DataFrame(p, columns=["p_a", "p_b", "p_c"])
    assert _multiclass_values(y, foreign, labels=[1, 2, 3]) == pytest.approx(expected, abs=1e-12)
    with pytest.raises(InvalidInputError, match=r"^y_score columns p_a, p_b, p_c do not name the classes \(1, 2, 3\)"):
        _evaluate(y, foreign)


@pytest.mark.parametrize(
    ("columns", "detail"),
    [([0, 1, 3], "0, 1, 3"), ([2, 1, 1], "2, 1, 1"), ([5, 1, 2], "5, 1, 2")],
)
def test_column_names_that_look_like_classes_but_disagree_are_refused(columns, detail):
    y, p = _multiclass()
    frame = pd.DataFrame(p, columns=pd.Index(columns))
    calls = {
        "y_score": [lambda: bc.roc_auc(y, frame), lambda: bc.average_precision(y, frame), lambda: _evaluate(y, frame)],
        "y_pred": [lambda: bc.prediction_advantage(y, frame, loss="log_loss")],
    }
    for name, fns in calls.items():
        for call in fns:
            with pytest.raises(InvalidInputError, match=rf"^{name} columns {detail} do not name the classes "
                                                        r"\(0, 1, 2\): name them after the classes \(p_0, ...\) or give "
                                                        r"labels= \(--labels\) in their order$"):
                call()


def test_binary_columns_that_disagree_with_the_classes_are_refused():
    y, s = _binary()
    with pytest.raises(InvalidInputError, match=r"^y_score columns 1, 5 do not name the classes \(0, 1\)"):
        bc.measures.pr_auc(y, pd.DataFrame({1: s, 5: 1 - s}))
    with pytest.raises(InvalidInputError, match=r"^y_score columns 1, 5 do not name the classes \(0, 1\)"):
        _evaluate(y, pd.DataFrame({1: s, 5: 1 - s}))


def test_evaluate_names_the_argument_it_was_given():
    y, s = _binary()
    with pytest.raises(InvalidInputError, match=r"^y_score holds datetime values"):
        _evaluate(y, s.astype("datetime64[s]"))
    with pytest.raises(InvalidInputError, match=r"^y_pred is a generator"):
        _evaluate(y, y_pred=(v for v in _labels(s)))


def test_evaluate_pairs_scores_and_labels_by_their_index_too():
    y, s = _binary()
    scores = pd.Series(s, index=np.arange(N)[::-1])
    with pytest.raises(InvalidInputError, match=r"^y_score and y_pred are pandas objects with different indexes"):
        _evaluate(y, scores, y_pred=pd.Series(_labels(s)))
    same = _evaluate(y, scores, y_pred=pd.Series(_labels(s), index=scores.index))
    assert same["roc_auc"].value == pytest.approx(bc.roc_auc(y, s), abs=1e-12)
