"""One statistics type (issue 36, item 3): ``profile`` and the ``StatisticsAccumulator`` give
the same ``TaskStatistics``, which compares with ``==``, converts to JSON values, shows itself
in one line and says what it gives without the rows; ``compute_statistics`` and
``SufficientStatistics`` are no longer public names."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pytest

import beyondchance as bc


def _rows(n=900, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.round(np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), 3), rng.integers(1, 4, n).astype(float)


def _report_values(statistics):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = bc.evaluate(statistics, random_state=0)
    return report.to_dict()["metrics"]  # every metric: value, interval, p-value


@pytest.mark.parametrize("weighted", [False, True])
def test_accumulator_over_three_batches_equals_profile_of_all(weighted):
    y, s, w = _rows()
    acc = bc.StatisticsAccumulator()
    for part in np.array_split(np.arange(y.size), 3):
        acc.update(y_true=y[part], y_score=s[part], sample_weight=w[part] if weighted else None)
    streamed = acc.compute()
    whole = bc.profile(y, s, sample_weight=w if weighted else None)
    assert isinstance(streamed, bc.TaskStatistics)
    assert streamed == whole
    assert _report_values(streamed) == _report_values(whole)


def test_accumulator_of_table_batches_saves_and_merges(tmp_path):
    pd = pytest.importorskip("pandas")
    y, s, _ = _rows(300, seed=2)
    frame = pd.DataFrame({"label": y, "score": s})
    acc = bc.StatisticsAccumulator(y_true="label", y_score="score")
    for start in (0, 100, 200):
        acc.update(frame.iloc[start:start + 100])
    back = bc.read_statistics(acc.compute().save(tmp_path / "stream.bcstats"))
    assert back == bc.profile(y, s)
    assert acc.compute() + bc.profile(y, s, row_offset=300) == bc.profile(np.r_[y, y], np.r_[s, s])


@pytest.mark.parametrize("case", [
    dict(y_true=[0, 1, 1, 0, 1], y_score=[0.1, 0.8, 0.4, 0.3, 0.9]),
    dict(y_true=["a", "b", "c", "a", "b"], y_pred=["a", "b", "b", "a", "c"], sample_weight=[1.0, 2, 1, 0.5, 1]),
    dict(y_true=[0, 1, 2, 1], y_score=np.array([[.7, .2, .1], [.1, .8, .1], [.2, .2, .6], [.3, .4, .3]])),
    dict(y_true=[1.5, 2.0, 3.25, 0.5], y_pred=[1.0, 2.5, 3.0, 1.0]),
])
def test_save_and_read_round_trip_is_equal(tmp_path, case):
    case = dict(case)
    st = bc.profile(case.pop("y_true"), case.pop("y_score", None), **case)
    assert bc.read_statistics(st.save(tmp_path / "st.bcstats")) == st


def test_equal_and_not_equal():
    y, s, w = _rows(200)
    a = bc.profile(y, s)
    assert a == bc.profile(y, s) and not (a != bc.profile(y, s))
    assert a != bc.profile(y[:-1], s[:-1])  # other counts
    assert a != bc.profile(y, (s > 0.5).astype(int), task="binary-labels")  # another task
    assert a != bc.profile(y, s, sample_weight=w, ci=False)  # weighted
    assert a != bc.profile(y, s, score_bins=10)  # other statistics
    assert a != "a string" and a.__hash__ is None
    p = bc.profile([0, 1, 2, 1], np.array([[.7, .2, .1], [.1, .8, .1], [.2, .2, .6], [.3, .4, .3]]))
    q = copy.deepcopy(p)
    p.stats.loss_sums.sums["brier"] = q.stats.loss_sums.sums["brier"] = float("nan")
    assert p == q  # NaN equals NaN in the saved form
    q.stats.loss_sums.sums["brier"] = 0.5
    assert p != q


def test_repr_is_one_short_line_and_print_says_what_it_gives():
    y, s, w = _rows()
    cases = [bc.profile(y, s), bc.profile(np.where(y == 1, "a long positive class", "a long negative one"), s,
                                             sample_weight=w),
             bc.profile(y, s, score_bins=100), bc.profile(np.arange(900) % 12, y_pred=np.arange(900) % 7),
             bc.profile(s, y_pred=s + 0.1, task="regression")]
    for st in cases:
        text = repr(st)
        assert text.startswith("TaskStatistics(") and "\n" not in text and len(text) <= 80, text
        assert st.task in text
    assert repr(cases[0]) == f"TaskStatistics(binary-scores, 900 rows, 0/1, prevalence {cases[0].stats.prevalence:.2g}, " \
                             "exact scores)"
    summary = str(cases[1])
    assert all(len(line) <= 80 for line in summary.splitlines())
    assert "Without the rows" in summary and "Not without the rows" in summary and "random_state=0" in summary
    assert "prevalence" in cases[1]._repr_html_() and "Not without the rows" in cases[1]._repr_html_()


def test_to_dict_is_json():
    y, s, w = _rows(100)
    for st in (bc.profile(y, s, sample_weight=w), bc.profile(np.where(y == 1, "yes", "no"), s)):
        d = st.to_dict()
        back = json.loads(json.dumps(d, allow_nan=False))
        assert back["metadata"]["task"] == "binary-scores" and back["metadata"]["n_rows"] == 100
        assert back["statistics"]["$type"] == "TaskStatistics"


def test_compute_statistics_and_sufficient_statistics_are_not_public():
    for name in ("compute_statistics", "SufficientStatistics"):
        assert name not in bc.__all__ and name not in bc.engines.__all__
        with pytest.raises(AttributeError):
            getattr(bc, name)
