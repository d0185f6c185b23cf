"""The input rules of :mod:`beyondchance._validation`, through the public functions that use them.

Missing labels are refused naming the value and its row; labels mixing strings and
numbers are refused (never a raw ``TypeError``); integer labels compare exactly at
any size; weights whose total would overflow the measures' sums are refused.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import beyondchance as bc
from beyondchance import ConfusionMatrix, InvalidInputError
from beyondchance.engines import compute_statistics
from beyondchance._validation import MISSING_STRINGS

BIG = 2**64 - 2  # uint64 labels BIG and BIG + 1: one apart, equal as float64


def _entry_points(y_true, y_pred, score):
    """Every public route by which labels come in: counts, curves, PA, report, engines."""
    return {
        "ConfusionMatrix": lambda: ConfusionMatrix.from_predictions(y_true, y_pred),
        "roc_auc": lambda: bc.roc_auc(y_true, score),
        "pr_auc": lambda: bc.measures.pr_auc(y_true, score),
        "prediction_advantage": lambda: bc.prediction_advantage(y_true, y_pred),
        "evaluate": lambda: bc.evaluate(y_true, score, ci=False),
        # the engines' bundle (internal since issue 36); bc.profile of a plain list mixing "1" and 1
        # reads every label as text (np.asarray) and is not refused yet: the one-road work's
        "compute_statistics": lambda: compute_statistics(y_true=y_true, y_score=score),
    }


def _labels_with(value, row, n=300, strings=False):
    rng = np.random.default_rng(row)
    y = rng.integers(0, 2, n).astype(object)
    if strings:
        y = np.where(y == 1, "yes", "no").astype(object)
    y[row - 1] = value
    return y


MISSING = [None, np.nan, float("nan"), pd.NA, pd.NaT, "", "   ", "NA", "N/A", "null", "NaN", "<NA>"]


@pytest.mark.parametrize("value", MISSING, ids=repr)
@pytest.mark.parametrize("strings", [False, True], ids=["0/1 labels", "string labels"])
def test_a_missing_label_is_named_with_its_row(value, strings):
    y = _labels_with(value, row=17, strings=strings)
    pred = np.where(np.arange(300) % 2 == 0, y[0], y[1] if y[1] != y[0] else y[2])
    pred[16] = y[0]
    score = np.linspace(0, 1, 300)
    shown = "NaN" if isinstance(value, float) else repr(value)
    for route, call in _entry_points(y, pred, score).items():
        if strings and route != "ConfusionMatrix" and route != "prediction_advantage":
            continue  # string labels need pos_label for the score routes
        with pytest.raises(InvalidInputError) as err:
            call()
        message = str(err.value)
        assert "has 1 missing value(s) (first in data row 17" in message, (route, message)
        if isinstance(value, (str, float)):  # NaN, or text spelling a missing value: shown
            assert f"row 17: {shown})" in message, (route, message)
        assert "\n" not in message


def test_the_missing_spellings_are_pandas_read_csv_defaults():
    """The rule for strings is the one every CSV reader of the ecosystem applies."""
    import io

    frame = pd.read_csv(io.StringIO("y\n" + "\n".join(sorted(MISSING_STRINGS)) + "\n"), dtype=str)
    assert frame["y"].isna().all()


def test_pandas_boolean_with_a_missing_value():
    y = pd.Series([True, False, None, True, False], dtype="boolean")
    score = [0.9, 0.1, 0.5, 0.8, 0.2]
    for route, call in _entry_points(y, y.fillna(True), score).items():
        with pytest.raises(InvalidInputError, match=r"has 1 missing value\(s\) \(first in data row 3\)"):
            call()


@pytest.mark.parametrize("container", [np.array, list], ids=["object array", "list"])
def test_labels_mixing_strings_and_numbers_are_refused(container):
    values = ["1", 1, 0, "0", 1, 0]
    y = container(np.array(values, dtype=object)) if container is np.array else values
    score = [0.1, 0.9, 0.2, 0.3, 0.8, 0.4]
    for route, call in _entry_points(y, [1, 1, 0, 0, 1, 0], score).items():
        with pytest.raises(InvalidInputError) as err:
            call()
        assert "mixes string and numeric labels: '1' in row 1 (index 0), 1 in row 2 (index 1)" in str(err.value), route


def test_a_mix_deep_in_the_data_is_found():
    y = np.array([0, 1] * 1000 + ["1"], dtype=object)
    with pytest.raises(InvalidInputError, match=r"'1' in row 2001 \(index 2000\)"):
        ConfusionMatrix.from_predictions(y, np.zeros(2001, dtype=int))


def _relabelled(y, classes):
    """The same labels as small integers (their rank among ``classes``)."""
    return np.searchsorted(np.asarray(classes, dtype=object), np.asarray(y, dtype=object).astype(object))


@pytest.mark.parametrize(
    "y_true, y_pred",
    [
        (np.array([BIG, BIG + 1, BIG + 1, BIG], dtype=np.uint64), np.array([BIG, BIG + 1, BIG, BIG], dtype=np.uint64)),
        # uint64 with signed integers: numpy's promotion to float64 merged BIG and BIG + 1
        (np.array([BIG, BIG + 1, BIG + 1, BIG], dtype=np.uint64), np.array([0, 1, 0, -1])),
        # with float predictions (whole numbers: a fraction is a score, not a label)
        (np.array([BIG, BIG + 1, BIG + 1, BIG], dtype=np.uint64), np.array([0.0, 1.0, 0.0, 3.0])),
        (np.array([-(2**63), 2**63 - 1, 2**63 - 1, 5]), np.array([2**63 - 1, 2**63 - 1, 5, 5])),
    ],
)
def test_large_integer_labels_are_compared_exactly(y_true, y_pred):
    classes = sorted(set(y_true.tolist()) | set(y_pred.tolist()))
    t, p = _relabelled(y_true.tolist(), classes), _relabelled(y_pred.tolist(), classes)
    cm = ConfusionMatrix.from_predictions(y_true, y_pred)
    assert cm.labels.tolist() == classes
    np.testing.assert_array_equal(cm.matrix, ConfusionMatrix.from_predictions(t, p).matrix)
    assert bc.prediction_advantage(y_true, y_pred) == bc.prediction_advantage(t, p)


def test_uint64_labels_near_two_to_the_64_in_score_measures():
    y = np.array([BIG, BIG + 1, BIG + 1, BIG, BIG + 1], dtype=np.uint64)
    score = [0.1, 0.8, 0.4, 0.5, 0.9]
    y01 = (y == BIG + 1).astype(int)
    assert bc.roc_auc(y, score, pos_label=np.uint64(BIG + 1)) == bc.roc_auc(y01, score)
    assert bc.measures.pr_auc(y, score, pos_label=BIG + 1) == bc.measures.pr_auc(y01, score)


def test_integers_beyond_float64_precision_are_refused_as_real_values():
    y = np.array([BIG, BIG + 1, BIG + 1, BIG], dtype=np.uint64)
    with pytest.raises(InvalidInputError, match=r"beyond 2\*\*53.*in row 1 \(index 0\)"):
        bc.prediction_advantage(y, [1.0, 2.0, 3.0, 4.0], loss="squared")


@pytest.mark.parametrize(
    "call",
    [
        lambda w: bc.prediction_advantage([0.0, 1.0, 2.0, 0.5], [0.0, 1.0, 1.0, 0.5], loss="squared", sample_weight=w),
        lambda w: bc.prediction_advantage([0, 1, 1, 0], [0, 1, 0, 0], sample_weight=w),
        lambda w: ConfusionMatrix.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], sample_weight=w),
        lambda w: bc.roc_auc([0, 1, 1, 0], [0.1, 0.9, 0.3, 0.2], sample_weight=w),
        lambda w: bc.evaluate([0, 1, 1, 0], [0.1, 0.9, 0.3, 0.2], sample_weight=w, ci=False),
    ],
    ids=["pa squared", "pa labels", "confusion", "roc_auc", "evaluate"],
)
def test_weights_whose_total_overflows_are_refused(call):
    with pytest.raises(InvalidInputError, match="sample_weight sums to more than float64 holds"):
        call([1e308] * 4)


def test_weights_up_to_the_accepted_total_give_the_unweighted_values():
    """Every measure depends on weight ratios only; at the largest accepted total
    (1e75) nothing overflows, MCC's product of four totals included."""
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 3, 40), rng.integers(0, 3, 40)
    big = np.full(40, 1e75 / 40)
    for name in ("mcc", "kappa", "accuracy", "prediction_advantage"):
        a = ConfusionMatrix.from_predictions(y, p, sample_weight=big).metric(name)
        b = ConfusionMatrix.from_predictions(y, p).metric(name)
        assert a == pytest.approx(b, rel=1e-12), name
    with pytest.raises(InvalidInputError, match="above 1e\\+75"):
        ConfusionMatrix.from_predictions(y, p, sample_weight=big * 1.01)


# --- through the command line ---------------------------------------------------------------


@pytest.mark.parametrize("cell", ["", "NA", "N/A"])
def test_cli_names_a_missing_string_label_and_its_row(tmp_path, cell):
    """pyarrow reads a string column's blank / NA cells as strings, not nulls."""
    rng = np.random.default_rng(0)
    lines = ["y,s"] + [f"{'yes' if rng.random() < 0.5 else 'no'},{rng.random():.3f}" for _ in range(300)]
    lines[17] = f"{cell},0.5"
    path = tmp_path / "f.csv"
    path.write_text("\n".join(lines) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "beyondchance.cli", "report", str(path), "--y-true", "y", "--y-score", "s",
         "--pos-label", "yes"],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("beyondchance: error:"), out.stderr
    if cell:  # text: the validation layer names it
        assert lines[0] == (f"beyondchance: error: y_true has 1 missing value(s) (first in data row 17: {cell!r}); "
                            "a class spelled like a missing value, such as 'NA', needs another name")
    else:  # an empty cell is a null for every engine's CSV reader (engines/_files.py)
        assert lines[0] == f"beyondchance: error: column 'y' of {path} has 1 missing value(s) (first in data row 17)"


def test_a_nan_score_is_refused_with_its_row():
    """The error of a NaN or infinite score names the first one and its row (and column)."""
    import beyondchance as bc
    from beyondchance._validation import as_float

    with pytest.raises(InvalidInputError, match=r"^y_score has 2 missing value\(s\) \(first in data row 3: NaN\)$"):
        bc.evaluate([0, 1, 0, 1], [0.1, 0.2, np.nan, np.nan], ci=False)
    with pytest.raises(InvalidInputError, match=r"^y_score holds a non-finite value \(inf in data row 2\)$"):
        as_float([0.1, np.inf, 0.3], "y_score")
    with pytest.raises(InvalidInputError, match=r"^column 2 of y_score has 1 missing value\(s\) \(first in data row 2: NaN\)$"):
        as_float(np.array([[0.1, 0.9], [0.5, np.nan]]), "y_score")
