"""Statistics you can keep (issue 30, items 1 and 3): ``profile`` → ``save`` → ``read_statistics``
gives the same statistics and the same report; the statistics of parts merge to those of the
whole; a file that is not ours, truncated, changed or of a newer schema is one clear error;
memory, DuckDB and Spark write the same file from the same Parquet or CSV rows.

Numpy data: fixed seeds (np.random.default_rng(<int>)) in each test."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.inference.permutation.rows import SquaredErrorSums
from beyondchance.report import report_from_statistics
from beyondchance.statistics import file_format as statistics_file
from beyondchance.statistics.file_format import TYPES, _canonical, _encode
from beyondchance.statistics.task_statistics import TaskStatistics

N = 240
REPORT = dict(n_resamples=200, mc_samples=1024, random_state=7)


def _data(seed: int = 0, n: int = N) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y3 = rng.integers(0, 3, n)
    yr = rng.normal(size=n)
    return dict(y=y, s=np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1), w=rng.integers(1, 4, n).astype(float),
                y3=y3, pred3=np.where(rng.random(n) < 0.6, y3, rng.integers(0, 3, n)),
                p3=rng.dirichlet([1.0, 1.0, 1.0], n), yr=yr, fr=yr + rng.normal(size=n))


def _case(name: str, d: dict[str, np.ndarray]) -> dict:
    return {
        "binary scores": dict(y_true=d["y"], y_score=d["s"]),
        "binary scores binned": dict(y_true=d["y"], y_score=d["s"], score_bins=20),
        "binary scores weighted": dict(y_true=d["y"], y_score=d["s"], sample_weight=d["w"]),
        "binary labels": dict(y_true=d["y"], y_pred=(d["s"] >= 0.5).astype(int)),
        "binary text labels": dict(y_true=np.where(d["y"] == 1, "yes", "no"), y_score=d["s"]),
        "multiclass labels": dict(y_true=d["y3"], y_pred=d["pred3"]),
        "multiclass labels weighted": dict(y_true=d["y3"], y_pred=d["pred3"], sample_weight=d["w"]),
        "probabilities": dict(y_true=d["y3"], y_score=d["p3"]),
        "regression": dict(y_true=d["yr"], y_pred=d["fr"]),
        "regression weighted": dict(y_true=d["yr"], y_pred=d["fr"], sample_weight=d["w"]),
    }[name]


CASES = ["binary scores", "binary scores binned", "binary scores weighted", "binary labels", "binary text labels",
         "multiclass labels", "multiclass labels weighted", "probabilities", "regression", "regression weighted"]


def _encoded(x) -> dict:
    """``x`` as the file holds it: equal encodings are equal statistics, to the last bit."""
    return _encode(x, "", {**TYPES, "TaskStatistics": TaskStatistics})


def _rows(report) -> dict:
    return {k: (m.value, None if m.ci is None else (m.ci.low, m.ci.high)) for k, m in report.metrics.items()}


@pytest.mark.parametrize("case", CASES)
def test_save_then_read_gives_the_same_statistics_and_report(case, tmp_path):
    st_ = bc.profile(**_case(case, _data(0)), random_state=7)
    back = bc.read_statistics(st_.save(tmp_path / "reference.json"))
    # identical: every field, every float64 bit (the encoding compares arrays by their bytes)
    assert _encoded(back) == _encoded(st_)
    assert back.stats is not st_.stats and back.inputs is None and back.row_source is None
    assert _rows(report_from_statistics(back, **REPORT)) == _rows(report_from_statistics(st_, **REPORT))


@pytest.mark.parametrize("case", [c for c in CASES if "binned" not in c])
def test_the_report_of_read_statistics_is_the_report_of_the_rows(case, tmp_path):
    """Same values and intervals as evaluate() on the rows with the same seed (the grouped
    bootstrap's sums are profiled with it)."""
    kw = _case(case, _data(1))
    back = bc.read_statistics(bc.profile(**kw, random_state=7).save(tmp_path / "s.json"))
    kept, rows = _rows(report_from_statistics(back, **REPORT)), _rows(bc.evaluate(**kw, **REPORT))
    assert kept.keys() == rows.keys()
    assert sum(ci is not None for _, ci in kept.values()) > 0
    for name, (value, ci) in rows.items():
        assert kept[name][0] == pytest.approx(value, rel=1e-9, nan_ok=True), name
        assert (kept[name][1] is None) == (ci is None), name
        if ci is not None:
            assert kept[name][1] == pytest.approx(ci, rel=1e-9, nan_ok=True), name


def test_the_file_holds_its_metadata_and_exact_floats(tmp_path):
    s = np.array([0.1, 1 / 3, 0.7, 2 ** -40, 0.9])
    st_ = bc.profile([0, 1, 0, 1, 1], s, sample_weight=[1.0, 0.1, 2.5, 1e-300, 3.0], threshold=0.5)
    doc = json.loads((p := st_.save(tmp_path / "s.json")).read_text())
    assert list(doc)[:2] == ["format", "schema_version"] and doc["schema_version"] == statistics_file.SCHEMA_VERSION
    assert doc["library_version"] == bc.__version__ and doc["created"].endswith("Z")
    meta = doc["metadata"]
    assert (meta["task"], meta["classes"], meta["positive_label"], meta["n_rows"], meta["weighted"]) == \
        ("binary-scores", [0, 1], 1, 5, True)
    assert meta["threshold"] == 0.5 and meta["total_weight"] == pytest.approx(6.6)
    assert meta["bootstrap"] == {"groups": 1024, "random_state": 0, "rows": [[0, 5]]}
    back = bc.read_statistics(p)
    assert back.stats.thresholds.tobytes() == st_.stats.thresholds.tobytes()
    assert back.stats.tps.tobytes() == st_.stats.tps.tobytes()


def test_profile_of_a_table_records_its_columns(tmp_path):
    pd = pytest.importorskip("pandas")
    d = _data(2, 60)
    df = pd.DataFrame({"label": d["y"], "score": d["s"]})
    st_ = bc.profile("label", "score", data=df, engine="memory", ci=False)
    assert st_.columns == {"y_true": "label", "y_score": ["score"]}
    assert bc.read_statistics(st_.save(tmp_path / "t.json")).columns == st_.columns
    assert _encoded(st_.stats) == _encoded(bc.profile(d["y"], d["s"], ci=False).stats)


# =====================================================================================
# merge
# =====================================================================================

#: fields that are sums of real numbers (losses, values): equal to rounding, not exactly
APPROX = {"sums", "mean", "m2", "wsum", "first", "second", "observed"}


def _assert_same(a, b, where="", exact=True, approx=APPROX):
    if isinstance(a, SquaredErrorSums):  # the same sums about another shift: move the whole's to the merge's
        b = SquaredErrorSums(a.shift, {k: 0.0 for k in b.sums}).merge(b)
    if dataclasses.is_dataclass(a):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            _assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}", exact and f.name not in approx,
                         approx)
    elif isinstance(a, np.ndarray):
        if exact or a.dtype.kind not in "f":
            np.testing.assert_array_equal(a, b, err_msg=where)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-9, err_msg=where)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _assert_same(a[k], b[k], f"{where}[{k!r}]", exact, approx)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{i}]", exact, approx)
    elif isinstance(a, float) and not exact:
        assert a == pytest.approx(b, rel=1e-10, abs=1e-9), where
    else:
        assert a == b or (isinstance(a, float) and np.isnan(a) and np.isnan(b)), where


MERGED = ["binary scores", "binary scores binned", "binary scores weighted", "binary labels", "multiclass labels",
          "multiclass labels weighted", "probabilities", "regression", "regression weighted"]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), parts=st.integers(2, 5), case=st.sampled_from(MERGED))
def test_random_splits_merged_in_any_order_equal_the_whole(seed, parts, case):
    rng = np.random.default_rng(seed)
    kw = _case(case, _data(seed, n=int(rng.integers(parts * 3, 60))))
    kw["labels"] = [0, 1, 2] if kw["y_true"].dtype.kind in "iu" and "3" in case or "multiclass" in case \
        or case == "probabilities" else ([0, 1] if case.startswith("binary") else None)
    n = kw["y_true"].shape[0]
    cuts = np.sort(rng.choice(np.arange(1, n), parts - 1, replace=False))
    pieces = np.split(rng.permutation(n), cuts)  # random rows in each part, any part sizes

    def part(idx):
        return bc.profile(**{k: (v[idx] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}, ci=False)

    stats = [part(idx) for idx in pieces]
    order = rng.permutation(parts)
    merged = stats[order[0]]
    for i in order[1:]:
        merged = merged + stats[i]
    whole = bc.profile(**kw, ci=False)
    assert merged.n_rows == whole.n_rows
    np.testing.assert_array_equal(merged.counts0, whole.counts0)
    for name in ("stats", "units", "given", "cells", "score_cells", "loss_sums"):
        _assert_same(getattr(merged, name), getattr(whole, name), name)


def test_merged_statistics_give_the_report_of_the_whole():
    d = _data(3)
    half = N // 2
    a = bc.profile(d["y"][:half], d["s"][:half], ci=False)
    b = bc.profile(d["y"][half:], d["s"][half:], ci=False)
    assert _rows(report_from_statistics(b + a, **REPORT)) == _rows(bc.evaluate(d["y"], d["s"], **REPORT))


@pytest.mark.parametrize("other, message", [
    (dict(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0]), "tasks 'binary-scores' and 'binary-labels'"),
    (dict(y_true=[0, 2, 2, 0], y_score=[0.1, 0.8, 0.3, 0.6]), "different classes"),
    (dict(y_true=[0, 1, 1, 0], y_score=[0.1, 0.8, 0.3, 0.6], pos_label=0), "different positive labels"),
    (dict(y_true=[0, 1, 1, 0], y_score=[0.1, 0.8, 0.3, 0.6], score_bins=10), "BinnedScoreCounts"),
    (dict(y_true=[0, 1, 1, 0], y_score=[0.1, 0.8, 0.3, 0.6], sample_weight=[1.0, 2, 1, 1]), "weighted"),
])
def test_merging_statistics_of_different_kinds_is_one_clear_error(other, message):
    base = bc.profile([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.5], ci=False)
    with pytest.raises(bc.InvalidInputError, match=message) as info:
        base + bc.profile(**other, ci=False)
    assert "\n" not in str(info.value)


def test_merging_binned_scores_of_different_bins_is_refused():
    a = bc.profile([1, 0, 1, 0], [0.9, 0.2, 0.4, 0.5], score_bins=10, ci=False)
    with pytest.raises(bc.InvalidInputError, match=r"different sizes \(10 and 20\)"):
        a + bc.profile([1, 0], [0.3, 0.6], score_bins=20, ci=False)


#: the cases whose grouped bootstrap's sums merge (weighted binary scores: at one threshold)
BOOTSTRAP_MERGED = ["binary scores weighted", "multiclass labels weighted", "probabilities"]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), parts=st.integers(2, 4), case=st.sampled_from(BOOTSTRAP_MERGED))
def test_contiguous_parts_at_their_row_offsets_merge_to_the_whole_with_its_intervals(seed, parts, case):
    """Rows [a, b) profiled with row_offset=a: the merged bootstrap sums are the whole's (exact
    for integer weights, to rounding for the loss sums of probabilities), so are the intervals."""
    rng = np.random.default_rng(seed)
    kw = _case(case, _data(seed, n=int(rng.integers(parts * 10, 80))))
    kw.update(labels=[0, 1, 2] if case != "binary scores weighted" else [0, 1], random_state=7,
              **({"threshold": 0.5} if case == "binary scores weighted" else {}))
    n = kw["y_true"].shape[0]
    bounds = [0, *np.sort(rng.choice(np.arange(1, n), parts - 1, replace=False)).tolist(), n]

    def part(start, stop):
        return bc.profile(**{k: (v[start:stop] if isinstance(v, np.ndarray) else v) for k, v in kw.items()},
                          row_offset=start)

    stats = [part(a, b) for a, b in zip(bounds, bounds[1:])]
    order = rng.permutation(parts)
    merged = stats[order[0]]
    for i in order[1:]:
        merged = merged + stats[i]
    whole = bc.profile(**kw)
    assert merged.totals.rows == whole.totals.rows == ((0, n),) and merged.next_row_offset == n
    exact = case != "probabilities"
    _assert_same(merged.totals, whole.totals, "totals", exact=exact)
    for name in ("stats", "units", "given", "cells", "score_cells", "loss_sums"):
        _assert_same(getattr(merged, name), getattr(whole, name), name)
    kept, rows = _rows(report_from_statistics(merged, **REPORT)), _rows(report_from_statistics(whole, **REPORT))
    assert sum(ci is not None for _, ci in rows.values()) > 0
    if exact:
        assert kept == rows
    for name, (value, ci) in rows.items():
        assert kept[name][0] == pytest.approx(value, rel=1e-9, nan_ok=True) and (kept[name][1] is None) == (ci is None)
        assert ci is None or kept[name][1] == pytest.approx(ci, rel=1e-9, nan_ok=True), name


def test_overlapping_rows_and_a_regressions_bootstrap_sums_do_not_merge():
    d = _data(4, 40)
    weighted = dict(y_true=d["y3"], y_pred=d["pred3"], sample_weight=d["w"], labels=[0, 1, 2])
    a, b = (bc.profile(**{k: (v[s] if isinstance(v, np.ndarray) else v) for k, v in weighted.items()})
            for s in (slice(0, 20), slice(20, 30)))
    with pytest.raises(bc.InvalidInputError) as info:
        a + b  # both numbered from 0
    assert str(info.value) == ("cannot merge the grouped bootstrap's sums: both statistics number their rows from 0 "
                               "in the bootstrap's hash (rows 0–19 and 0–9): profile the later part with "
                               "row_offset=20 (--row-offset 20), or with ci=False")
    later = bc.profile(**{k: (v[20:30] if isinstance(v, np.ndarray) else v) for k, v in weighted.items()},
                       row_offset=a.next_row_offset)
    assert (a + later).totals.rows == ((0, 30),) and (later + a).next_row_offset == 30
    with pytest.raises(bc.InvalidInputError, match=r"rows 5–14 in the bootstrap's hash .*row_offset=20 "):
        a + dataclasses.replace(later, totals=dataclasses.replace(later.totals, rows=((5, 15),)))
    with pytest.raises(bc.InvalidInputError, match="profile every part with ci=True, or every part with ci=False"):
        a + bc.profile(**{k: (v[20:] if isinstance(v, np.ndarray) else v) for k, v in weighted.items()}, ci=False)
    scores = dict(y_true=d["y"], y_score=d["s"], sample_weight=d["w"])
    with pytest.raises(bc.InvalidInputError, match="sums of a different threshold"):
        bc.profile(**scores, threshold=0.5) + bc.profile(**scores, threshold=0.6, row_offset=40)
    with pytest.raises(bc.InvalidInputError, match="sums of a different random_state"):
        bc.profile(**scores) + bc.profile(**scores, random_state=1, row_offset=40)
    r0, r1 = (bc.profile(y_true=d["yr"][s], y_pred=d["fr"][s], row_offset=s.start) for s in (slice(0, 20), slice(20, 40)))
    assert r0.totals is not None
    with pytest.raises(bc.InvalidInputError, match="about the median of all its rows") as info:
        r0 + r1
    assert "\n" not in str(info.value)
    assert (bc.profile(y_true=d["yr"], y_pred=d["fr"], ci=False) + bc.profile(y_true=d["yr"], y_pred=d["fr"],
                                                                           ci=False)).n_rows == 80
    with pytest.raises(bc.InvalidInputError, match="cannot merge TaskStatistics with int"):
        a.merge(1)
    with pytest.raises(bc.InvalidInputError, match="row_offset must be an integer"):
        bc.profile(**weighted, row_offset=-1)


def test_a_file_without_the_rows_of_its_bootstrap_sums_numbers_them_from_0(tmp_path):
    """A schema-1 file written before ``GroupTotals.rows``: its sums number its rows 0 … n − 1."""
    d = _data(6, 50)
    kw = dict(y_true=d["y"], y_score=d["s"], sample_weight=d["w"], threshold=0.5)
    path = bc.profile(**{k: v[:30] for k, v in kw.items() if k != "threshold"}, threshold=0.5).save(tmp_path / "a.json")
    doc = json.loads(path.read_text())
    del doc["statistics"]["fields"]["totals"]["fields"]["rows"]
    old = bc.read_statistics(_resigned(path, doc))
    assert old.totals.rows is None and old.next_row_offset == 30
    later = bc.profile(**{k: v[30:] for k, v in kw.items() if k != "threshold"}, threshold=0.5, row_offset=30)
    merged, whole = old + later, bc.profile(**kw)
    assert merged.totals.rows == ((0, 50),)
    np.testing.assert_array_equal(merged.totals.totals, whole.totals.totals)


def test_weighted_statistics_report_at_their_threshold_and_positive_label_only():
    st_ = bc.profile([0, 1, 1, 0], [0.1, 0.8, 0.3, 0.6], sample_weight=[1.0, 2, 1, 1], threshold=0.5)
    with pytest.raises(bc.InvalidInputError, match="profiled at threshold 0.5"):
        report_from_statistics(st_, threshold=0.7, **REPORT)
    with pytest.raises(bc.InvalidInputError, match="positive class"):
        report_from_statistics(st_, pos_label=0, **REPORT)


# =====================================================================================
# refusals: not ours, truncated, changed, newer, hostile
# =====================================================================================


def _saved(tmp_path):
    return bc.profile([0, 1, 1, 0, 1], [0.1, 0.8, 0.3, 0.6, 0.9], ci=False).save(tmp_path / "s.json")


def _resigned(path, doc):
    """``doc`` written to ``path`` with a valid checksum (a forged or newer file, not a corrupted one)."""
    doc = {k: v for k, v in doc.items() if k != "sha256"}
    doc["sha256"] = hashlib.sha256(_canonical(doc)).hexdigest()
    path.write_text(json.dumps(doc))
    return path


def _nested(depth):
    out = 1
    for _ in range(depth):
        out = [out]
    return out


def _refused(path, match):
    with pytest.raises(bc.InvalidInputError, match=match) as info:
        bc.read_statistics(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_a_foreign_file_is_refused(tmp_path):
    (tmp_path / "a.json").write_text('{"task": "binary-scores"}')
    _refused(tmp_path / "a.json", "not a beyondchance statistics file")
    (tmp_path / "b.csv").write_text("y,s\n0,0.1\n")
    _refused(tmp_path / "b.csv", r"not a beyondchance statistics file \(not JSON\)")
    (tmp_path / "c.bin").write_bytes(b"\x80\x04\x95pickle")
    _refused(tmp_path / "c.bin", "not a beyondchance statistics file")
    _refused(tmp_path / "missing.json", "cannot read the statistics file")


def test_a_truncated_file_is_refused(tmp_path):
    p = _saved(tmp_path)
    p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
    _refused(p, "truncated or corrupted")


def test_a_changed_file_fails_its_checksum(tmp_path):
    p = _saved(tmp_path)
    doc = json.loads(p.read_text())
    doc["statistics"]["fields"]["n_rows"] = 6
    p.write_text(json.dumps(doc))
    _refused(p, "checksum does not match")


#: files written by schema 1 (beyondchance at 7eeb1b8, before GroupTotals.rows), of the rows of
#: _schema1_rows(): they must read, and give the report of those rows, in every later version
SCHEMA1 = Path(__file__).parent / "data" / "statistics-schema1"


def _schema1_rows() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 60)
    s = np.round(rng.random(60) * 0.5 + y * 0.3, 3)
    return dict(y=y, s=s, w=rng.integers(1, 4, 60).astype(float))


@pytest.mark.parametrize("name, kwargs", [
    ("binary-scores", lambda d: dict(y_true=d["y"], y_score=d["s"], ci=False)),
    ("binary-labels-weighted", lambda d: dict(y_true=d["y"], y_pred=(d["s"] >= 0.5).astype(int),
                                              sample_weight=d["w"], random_state=3)),
])
def test_a_schema_1_file_still_reads_as_the_statistics_of_its_rows(name, kwargs):
    path = SCHEMA1 / f"{name}.bcstats"
    assert json.loads(path.read_text())["schema_version"] == 1 < statistics_file.SCHEMA_VERSION
    old, now = bc.read_statistics(path), bc.profile(**kwargs(_schema1_rows()))
    if now.totals is not None:  # schema 1 did not record the rows its sums number: 0 … n − 1
        assert old.totals.rows is None and now.totals.rows == ((0, 60),) and old.next_row_offset == 60
        old = dataclasses.replace(old, totals=dataclasses.replace(old.totals, rows=now.totals.rows))
    assert _encoded(old) == _encoded(now)
    assert _rows(bc.evaluate(old, **REPORT)) == _rows(bc.evaluate(now, **REPORT))


def test_a_newer_schema_is_refused(tmp_path):
    p = _saved(tmp_path)
    doc = json.loads(p.read_text())
    doc["schema_version"] = statistics_file.SCHEMA_VERSION + 1
    _refused(_resigned(p, doc), "newer beyondchance .* upgrade beyondchance")


@pytest.mark.parametrize("edit, match", [
    (lambda s: s.update({"$type": "Popen"}), "unknown type 'Popen'"),
    (lambda s: s["fields"].update(n_rows="6"), "wrong type"),
    (lambda s: s["fields"]["counts0"]["$array"].update(shape=[3]), r"shape \[3\] holding 16 bytes"),
    (lambda s: s["fields"]["counts0"]["$array"].update(dtype="complex128"), "unknown kind"),
    (lambda s: s["fields"].update(stats={"$float": "nan"}), "statistics of type float"),
    (lambda s: s["fields"]["stats"]["fields"].update(thresholds=[0.5, "x"]), r"ThresholdCounts"),
    (lambda s: s["fields"]["stats"]["fields"].update(tps={"$array": {"dtype": "float64", "shape": [1],
                                                                     "data": "AAAAAAAA8D8="}}), "ThresholdCounts"),
    (lambda s: s["fields"].update(reason={"$dict": [[{"$tuple": []}, 1]]}), "key"),
    (lambda s: s["fields"].update(reason=_nested(statistics_file.MAX_DEPTH + 1)), "nested deeper"),
])
def test_a_forged_file_is_refused_without_building_anything_else(tmp_path, edit, match):
    p = _saved(tmp_path)
    doc = json.loads(p.read_text())
    edit(doc["statistics"])
    _refused(_resigned(p, doc), "corrupted statistics file .*" + match)


def test_strict_json_and_bounded_size(tmp_path, monkeypatch):
    p = _saved(tmp_path)
    text = p.read_text().replace('"n_rows":5', '"n_rows":NaN')
    p.write_text(text)
    _refused(p, "truncated or corrupted .*NaN")
    p.write_text(text.replace('"n_rows":NaN', '"n_rows":1e999'))
    _refused(p, "truncated or corrupted .*not finite")
    p = _saved(tmp_path)
    monkeypatch.setattr(statistics_file, "MAX_FILE_BYTES", 100)
    _refused(p, "more than a statistics file may hold")


def test_statistics_of_a_report_in_memory_are_not_saved(tmp_path):
    st_ = dataclasses.replace(bc.profile([0, 1], [0.2, 0.7], ci=False), totals=lambda thr: None)
    with pytest.raises(bc.InvalidInputError, match="beyondchance.profile"):
        st_.save(tmp_path / "x.json")
    with pytest.raises(bc.InvalidInputError, match="object is not a type of the statistics file"):
        statistics_file.write_file(object(), {}, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
    assert isinstance(st_, TaskStatistics)


# =====================================================================================
# engines: the same file from every engine
# =====================================================================================

#: profile() options of each case, on the columns of _table
ENGINE_CASES = {
    "binary scores": dict(y_true="y", y_score="s"),
    "binary scores binned": dict(y_true="y", y_score="s", score_bins=20),
    "binary scores weighted": dict(y_true="y", y_score="s", sample_weight="w"),
    "binary scores weighted binned": dict(y_true="y", y_score="s", sample_weight="w", score_bins=20),
    "binary labels": dict(y_true="y", y_pred="p"),
    "multiclass labels": dict(y_true="y3", y_pred="pred3"),
    "multiclass labels weighted": dict(y_true="y3", y_pred="pred3", sample_weight="w"),
    "probabilities": dict(y_true="y3", y_score=["p0", "p1", "p2"]),
    "regression weighted": dict(y_true="yr", y_pred="fr", sample_weight="w"),
}


def _table(tmp_path, fmt: str) -> str:
    """_data(5) as a Parquet or CSV file (scores with 3 decimals: ties, and the same doubles
    from every CSV reader)."""
    pd = pytest.importorskip("pandas")
    d = _data(5)
    p3 = np.round(d["p3"], 3)
    df = pd.DataFrame({"y": d["y"], "s": np.round(d["s"], 3), "w": d["w"], "p": (d["s"] >= 0.5).astype(int),
                       "y3": d["y3"], "pred3": d["pred3"], "p0": p3[:, 0], "p1": p3[:, 1],
                       "p2": 1 - p3[:, 0] - p3[:, 1], "yr": np.round(d["yr"], 3), "fr": np.round(d["fr"], 3)})
    path = tmp_path / f"rows.{fmt}"
    df.to_parquet(path, index=False) if fmt == "parquet" else df.to_csv(path, index=False)
    return str(path)


#: the fields of real-number sums an engine adds in its own order: those of APPROX, the grouped
#: bootstrap's sums per group, the regression's mean (the shift of its squared errors) and the
#: permutation cells' sums of squared weights
ENGINE_APPROX = APPROX | {"totals", "shift", "squares"}


def _without_sums(x):
    """An encoded statistic without its fields of :data:`ENGINE_APPROX`."""
    if isinstance(x, dict):
        return {"$type": x["$type"], "fields": {k: _without_sums(v) for k, v in x["fields"].items()
                                                if k not in ENGINE_APPROX}} if "$type" in x \
            else {k: _without_sums(v) for k, v in x.items()}
    return [_without_sums(v) for v in x] if isinstance(x, list) else x


def _assert_same_file(a_path, b_path) -> None:
    """Two saved files hold the same statistics: every count, label and score to the last bit
    (dtypes too); the sums of real numbers (losses, values: :data:`ENGINE_APPROX`) to
    rounding, their order of summation being the engine's; the same metadata.  Only
    "created" and the checksum may differ."""
    docs = [json.loads(p.read_text()) for p in (a_path, b_path)]
    assert docs[0]["metadata"] == docs[1]["metadata"]
    a, b = bc.read_statistics(a_path), bc.read_statistics(b_path)
    assert _without_sums(_encoded(a)) == _without_sums(_encoded(b))
    _assert_same(a, b, approx=ENGINE_APPROX)


def _engine_file(tmp_path, data: str, engine: str, case: str, session=None, ci: bool = True, row_offset: int = 0):
    st_ = bc.profile(data=data, engine=engine, session=session, random_state=3, ci=ci, row_offset=row_offset,
                     **ENGINE_CASES[case])
    return st_.save(tmp_path / f"{engine}-{case}.bcstats")


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("case", list(ENGINE_CASES))
def test_memory_and_duckdb_write_the_same_file(case, fmt, tmp_path):
    """Parquet: the rows numbered from an offset beyond 2**31 − 1 (the hash's prime) in both."""
    data = _table(tmp_path, fmt)
    offset = 2**31 + 5 if fmt == "parquet" else 0
    _assert_same_file(_engine_file(tmp_path, data, "memory", case, row_offset=offset),
                      _engine_file(tmp_path, data, "duckdb", case, row_offset=offset))


@pytest.mark.parametrize("case, fmt", [("binary scores", "csv"), ("binary scores weighted binned", "parquet"),
                                       ("multiclass labels weighted", "csv")])
def test_spark_writes_the_memory_engines_file(case, fmt, tmp_path, spark):
    """Without the bootstrap's sums (ci=False: Spark's row numbering is slow, and its sums are
    compared through the reports in test_engines); a CSV's integer labels are 64-bit here too."""
    data = _table(tmp_path, fmt)
    _assert_same_file(_engine_file(tmp_path, data, "memory", case, ci=False),
                      _engine_file(tmp_path, data, "spark", case, session=spark, ci=False))


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_the_weight_column_may_be_the_score_column(engine, tmp_path):
    """``--y-score s --weight s``: the memory engine counted the rows of positive weight per
    score under the weight's column name, so the indicator replaced the scores (one threshold,
    1.0) and the report was an internal error; every engine now gives the arrays' statistics."""
    data = _table(tmp_path, "parquet")
    kept = bc.profile(data=data, engine=engine, y_true="y", y_score="s", sample_weight="s", random_state=3)
    pd = pytest.importorskip("pandas")
    frame = pd.read_parquet(data)
    rows = bc.profile(frame["y"].to_numpy(), frame["s"].to_numpy(), sample_weight=frame["s"].to_numpy(), random_state=3)
    _assert_same(dataclasses.replace(kept, columns=None), rows, approx=ENGINE_APPROX)
    a, b = bc.evaluate(kept, **REPORT).metrics, bc.evaluate(rows, **REPORT).metrics
    assert a.keys() == b.keys() and all(a[k].value == pytest.approx(b[k].value, rel=1e-12, nan_ok=True) for k in a)


def test_profiling_scores_sums_no_loss_on_an_engine(tmp_path, monkeypatch):
    """profile (and evaluate(data=)) asks the engine for the score counts only: its per-label
    query of binary scores takes no logarithm (two a row were most of its time on 10^8 rows);
    compute_statistics, which returns the loss sums, takes them."""
    from beyondchance.engines import duckdb as duckdb_engine

    queries = []
    run = duckdb_engine.DuckDBRunner.run
    monkeypatch.setattr(duckdb_engine.DuckDBRunner, "run", lambda self, sql: queries.append(sql) or run(self, sql))
    data = _table(tmp_path, "parquet")
    bc.profile(data=data, engine="duckdb", ci=False, score_bins=20, **ENGINE_CASES["binary scores"])
    assert queries and not any("LN(" in q for q in queries)
    bc.compute_statistics(data, y_true="y", y_score="s", engine="duckdb")
    assert any("LN(" in q for q in queries)


# =====================================================================================
# the command line: --row-offset, and the files of --by merge
# =====================================================================================


def _cli(*args):
    from click.testing import CliRunner

    from beyondchance.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def _rows_csv(tmp_path, n: int = 90):
    pd = pytest.importorskip("pandas")
    d = _data(8, n)
    frame = pd.DataFrame({"y": d["y"], "s": np.round(d["s"], 3), "w": d["w"],
                          "day": np.resize(["2024-05-10", "2024-05-02", "2024-05-03"], n)})
    return frame


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_cli_row_offset_makes_the_later_file_merge_with_the_earlier(engine, tmp_path):
    frame = _rows_csv(tmp_path)
    first, later = tmp_path / "first.csv", tmp_path / "later.csv"
    frame[:50].to_csv(first, index=False)
    frame[50:].to_csv(later, index=False)
    args = ["--y-true", "y", "--y-score", "s", "--weight", "w", "--seed", "3", "--engine", engine]
    assert _cli("profile", first, *args, "--out", tmp_path / "a.bcstats").exit_code == 0
    a = bc.read_statistics(tmp_path / "a.bcstats")
    result = _cli("profile", later, *args, "--out", tmp_path / "b.bcstats", "--row-offset", a.next_row_offset)
    assert result.exit_code == 0, result.output
    merged = bc.read_statistics(tmp_path / "b.bcstats") + a
    whole = bc.profile(frame["y"].to_numpy(), frame["s"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                       random_state=3)
    assert merged.totals.rows == ((0, 90),)
    np.testing.assert_array_equal(merged.totals.totals, whole.totals.totals)
    bad = _cli("profile", later, *args, "--out", tmp_path / "c.bcstats", "--row-offset", "-1")
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1 and "--row-offset" in bad.output


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_cli_by_files_merge_to_the_rows_ordered_by_group(engine, tmp_path):
    """Each group's rows numbered after the groups written before it: the files of all the
    groups, merged in any order, are the statistics of the rows sorted (stably) by group."""
    frame = _rows_csv(tmp_path)
    frame.to_csv(tmp_path / "rows.csv", index=False)
    result = _cli("profile", tmp_path / "rows.csv", "--by", "day", "--y-true", "y", "--y-score", "s", "--weight", "w",
                  "--seed", "3", "--engine", engine, "--out", tmp_path / "day.bcstats", "--row-offset", "7")
    assert result.exit_code == 0, result.output
    days = ["2024-05-10", "2024-05-03", "2024-05-02"]  # merged in another order than written
    parts = [bc.read_statistics(tmp_path / f"day.{day}.bcstats") for day in days]
    assert [p.totals.rows for p in parts] == [((67, 97),), ((37, 67),), ((7, 37),)]
    merged = parts[0] + parts[1] + parts[2]
    ordered = frame.sort_values("day", kind="stable")
    whole = bc.profile(ordered["y"].to_numpy(), ordered["s"].to_numpy(), sample_weight=ordered["w"].to_numpy(),
                       random_state=3, row_offset=7)
    assert merged.totals.rows == whole.totals.rows == ((7, 97),)
    np.testing.assert_array_equal(merged.totals.totals, whole.totals.totals)
    assert _rows(report_from_statistics(merged, **REPORT)) == _rows(report_from_statistics(whole, **REPORT))


def _profile_cli(tmp_path, engine: str, files: list, *extra: str) -> None:
    result = _cli("profile", *files, "--y-true", "y", "--y-score", "s", "--engine", engine, "--out",
                  tmp_path / f"{engine}.bcstats", *extra)
    assert result.exit_code == 0, result.output


def test_spark_profile_of_several_files_writes_the_memory_engines_file(tmp_path, spark):
    """``beyondchance profile A B`` on Spark: the two files as one table, the memory engine's file."""
    pd = pytest.importorskip("pandas")
    frame = pd.read_parquet(_table(tmp_path, "parquet"))
    files = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    frame.iloc[:100].to_parquet(files[0], index=False)
    frame.iloc[100:].to_parquet(files[1], index=False)
    for engine in ("memory", "spark"):
        _profile_cli(tmp_path, engine, files, "--weight", "w", "--score-bins", "20", "--row-offset", "5")
    _assert_same_file(tmp_path / "memory.bcstats", tmp_path / "spark.bcstats")
    assert bc.read_statistics(tmp_path / "spark.bcstats").n_rows == N


def test_spark_profile_by_writes_the_memory_engines_files(tmp_path, spark):
    """``beyondchance profile FILE --by day`` on Spark: one file per group, each the memory engine's
    (two groups, exact unweighted scores: each group is its own Spark scan)."""
    pd = pytest.importorskip("pandas")
    frame = pd.read_parquet(_table(tmp_path, "parquet"))
    frame["day"] = np.repeat(["2024-05-02", "2024-05-01"], N // 2)
    frame.to_parquet(tmp_path / "days.parquet", index=False)
    for engine in ("memory", "spark"):
        _profile_cli(tmp_path, engine, [tmp_path / "days.parquet"], "--by", "day", "--no-ci")
    for day in ("2024-05-01", "2024-05-02"):
        _assert_same_file(tmp_path / f"memory.{day}.bcstats", tmp_path / f"spark.{day}.bcstats")
        assert bc.read_statistics(tmp_path / f"spark.{day}.bcstats").n_rows == N // 2


def test_cli_labels_take_the_type_of_y_true_on_every_engine(tmp_path):
    """``--labels 0,1,2`` of an integer y_true: the classes are the integers 0, 1, 2 in the saved
    file and in the report, on memory and DuckDB alike (DuckDB gave the text '0', '1', '2': the
    command line had no y_true to type them by; the scan types them by the column's kind)."""
    data = _table(tmp_path, "csv")
    args = ["--y-true", "y3", "--y-score", "p0", "--y-score", "p1", "--y-score", "p2", "--labels", "0,1,2"]
    for engine in ("memory", "duckdb"):
        result = _cli("profile", data, *args, "--engine", engine, "--out", tmp_path / f"{engine}.bcstats")
        assert result.exit_code == 0, result.output
        report = _cli("report", data, *args, "--engine", engine, "--no-ci", "--format", "json")
        assert report.exit_code == 0, report.output
        assert json.loads(report.output)["classes"] == [0, 1, 2]
    _assert_same_file(tmp_path / "memory.bcstats", tmp_path / "duckdb.bcstats")
    assert bc.read_statistics(tmp_path / "duckdb.bcstats").classes.tolist() == [0, 1, 2]
