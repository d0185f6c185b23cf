"""Reading is safe on untrusted files (issue 30): a forged statistics file — every field valid
on its own, the checksum recomputed (anyone can) — whose fields disagree with each other is
one InvalidInputError line naming the field when read, and whatever a mutated file holds,
every consumer (``read_statistics``, ``evaluate``, ``compare``, ``estimate_performance``,
``beyondchance report FILE``) ends with a report or one such line: never another exception,
never exit status 3.

Numpy data: fixed seed (np.random.default_rng(0), in test_statistics_file._data); the
random mutations are Hypothesis's (derandomized in CI, see tests/conftest.py)."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_statistics_file import _case, _data

import beyondchance as bc
from beyondchance.cli import main
from beyondchance.statistics.file_format import _canonical, _decode, _encode

CASES = ["binary scores", "binary scores binned", "binary scores weighted", "binary labels",
         "multiclass labels weighted", "probabilities", "regression weighted"]
OPTIONS = dict(n_resamples=50, mc_samples=256, random_state=7)
CLI_OPTIONS = ["--n-resamples", "50", "--mc-samples", "256", "--seed", "7"]
WINDOW = np.linspace(0.05, 0.95, 60)


@functools.lru_cache(maxsize=None)
def _document(case: str) -> str:
    """The saved file of ``case`` (60 rows), as its text (read at collection: the forgeries that
    apply to it)."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "s.bcstats"
        return bc.profile(**_case(case, _data(0, 60)), random_state=7).save(path).read_text()


def _forge(case: str, edit, path):
    """The file of ``case`` with ``edit`` applied to its statistics' fields, checksum recomputed;
    None when ``edit`` does not apply (returns False)."""
    doc = json.loads(_document(case))
    if edit(doc["statistics"]["fields"]) is False:
        return None
    doc.pop("sha256")
    doc["sha256"] = hashlib.sha256(_canonical(doc)).hexdigest()
    path.write_text(json.dumps(doc))
    return path


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert isinstance(exc, bc.InvalidInputError) and "\n" not in text, (type(exc), text)
    return text


def _consume(path, case: str) -> list[str]:
    """The one-line refusals of every consumer of the file (each ends with its result or one
    InvalidInputError line); the reader's first, if any."""
    result = CliRunner().invoke(main, ["report", str(path), *CLI_OPTIONS])
    assert result.exit_code in (0, 2), (result.exit_code, result.output[-600:])
    if result.exit_code == 2:
        err = result.stderr.strip()
        assert err.startswith("beyondchance: error:") and "\n" not in err, err
    try:
        statistics = bc.read_statistics(path)
    except bc.InvalidInputError as exc:
        assert result.exit_code == 2
        return [_one_line(exc)]
    consumers = [lambda: bc.evaluate(statistics, **OPTIONS),
                 lambda: bc.compare({"ref": statistics, "w": statistics}, **OPTIONS)]
    if case.startswith("binary scores"):
        consumers.append(lambda: bc.estimate_performance(statistics, WINDOW, n_resamples=50))
    refusals = [] if result.exit_code == 0 else [result.stderr.strip()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for run in consumers:
            try:
                run()
            except bc.InvalidInputError as exc:
                refusals.append(_one_line(exc))
    return refusals


# =====================================================================================
# forgeries: each field valid alone, inconsistent with the others
# =====================================================================================


def _get(fields: dict, name: str):
    """The decoded value of ``name`` (``a.b``: field b of the statistic a)."""
    *parents, last = name.split(".")
    for p in parents:
        fields = fields[p]["fields"]
    return _decode(fields[last], {})


def _set(name: str, value):
    """An edit setting the field ``name`` (``a.b`` as :func:`_get`) to ``value`` (or to
    ``value(old)`` when callable); not applicable (False) where the field is absent or None,
    or where ``value(old)`` is False."""
    def edit(fields):
        node = fields
        *parents, last = name.split(".")
        for p in parents:
            if not isinstance(node.get(p), dict) or "fields" not in node[p]:
                return False
            node = node[p]["fields"]
        if node.get(last) is None:
            return False
        new = value(_decode(node[last], {})) if callable(value) else value
        if new is False:
            return False
        node[last] = _encode(new, "")
        return None
    return edit


def _both(*edits):
    def edit(fields):
        return False if any(e(fields) is False for e in edits) else None
    return edit


def _changed(a: np.ndarray, i: int, v) -> np.ndarray:
    a = np.array(a)
    a[i] = v
    return a


def _unbinned_ok(fields):
    return None if fields["stats"]["$type"] != "BinnedScoreCounts" else False


def _unweighted(edit):
    return lambda f: edit(f) if f["weighted"] is False else False


def _other_label(classes: np.ndarray):
    return "zz" if classes.dtype.kind in "UO" else (classes.max() + 10 if classes.size else 7)


#: (name, edit of the TaskStatistics fields (False: not applicable), what the refusal names: a regex)
FORGERIES = [
    ("classes one more (counts0 too)", _both(_set("classes", lambda c: np.append(c, _other_label(c)) if c.size
                                                  else False), _set("counts0", lambda c: np.append(c, 0.0))),
     "classes"),
    ("classes one fewer (its rows to the first)", _both(
        _set("classes", lambda c: c[:-1] if c.size else False),
        _set("counts0", lambda c: _changed(c, 0, c[0] + c[-1])[:-1] if c.size else False)), "class"),
    ("classes and counts0 empty", lambda f: _both(_set("classes", lambda c: c[:0]), _set("counts0", lambda c: c[:0]),
                                                  _set("true_classes", lambda c: c[:0]))(f)
     if _get(f, "classes").size else False, "class"),
    ("classes duplicated", _set("classes", lambda c: np.repeat(c[:1], c.size) if c.size > 1 else False), "classes"),
    ("classes reordered", _set("classes", lambda c: c[::-1] if c.size > 1 else False), "counts0|classes"),
    ("huge k, tiny arrays", _both(_set("classes", lambda c: np.arange(9000) if c.size else False),
                                  _set("counts0", lambda c: np.concatenate([c, np.zeros(9000 - c.size)]))), "class"),
    ("counts0 negative", _set("counts0", lambda c: _changed(c, 0, -3.0) if c.size else False), "counts0"),
    ("counts0 NaN", _set("counts0", lambda c: _changed(c, 0, np.nan) if c.size else False), "counts0"),
    ("counts0 infinite", _set("counts0", lambda c: _changed(c, 0, np.inf) if c.size else False), "counts0"),
    ("counts0 fractional", _set("counts0", lambda c: _changed(c, 0, c[0] + 0.5) if c.size else False), "counts0"),
    ("counts0 not summing to n_rows", _set("counts0", lambda c: _changed(c, 0, c[0] + 5) if c.size else False),
     "counts0"),
    ("n_rows larger", _set("n_rows", lambda n: n + 7), "n_rows"),
    ("n_rows zero", _set("n_rows", 0), "n_rows"),
    ("n_rows huge", _set("n_rows", 10 ** 15), "n_rows"),
    ("true_classes not among the classes", _set("true_classes", lambda c: np.array([_other_label(c)])
                                                 if c.size else False), "true_classes"),
    ("true_classes empty", _set("true_classes", lambda c: c[:0] if c.size else False), "true_classes"),
    ("positive label not a class", _set("positive", lambda p: (99, p[1], p[2])), "positive"),
    ("positive label is the negative", _set("positive", lambda p: (p[1], p[1], p[2])), "positive"),
    ("weighted flag dropped", lambda f: f.update(weighted=False) if f["weighted"] else False, "weight"),
    ("weighted flag raised", lambda f: f.update(weighted=True) if not f["weighted"] and (
        f["task"].endswith("-labels") or f["stats"]["$type"] == "ThresholdCounts") else False, "weight"),
    ("a quantile on a task of classes", lambda f: f.update(quantile=0.5) if f["task"] != "regression" else False,
     "quantile"),
    # binary scores
    ("scores of another positive class", lambda f: _set("stats.pos_label", 7)(f) if f["task"] == "binary-scores"
     else False, "positive"),
    ("score counts of more rows", _unweighted(_set("stats.tps", lambda t: t * 2)), "rows"),
    ("score counts of fewer rows", _unweighted(_both(_unbinned_ok, _set("stats.fps", lambda t: t[:-1]),
                                                     _set("stats.tps", lambda t: t[:-1]),
                                                     _set("stats.thresholds", lambda t: t[:-1]))), "rows"),
    ("thresholds twice infinite", _set("stats.thresholds", lambda t: _changed(_changed(t, 0, np.inf), 1, np.inf)),
     "thresholds"),
    ("bin key outside its smin's bin", _set("stats.keys", lambda k: _changed(k, -1, k[-1] + 500)), "keys"),
    ("bin key below zero", _set("stats.keys", lambda k: _changed(k, 0, -3)), "keys"),
    ("units of more rows than n_rows", _set("units.tps", lambda t: t + 1000), "units"),
    ("score cells of other rows", _set("score_cells.rows", lambda r: r * 3), "score_cells"),
    ("score cells NaN rows", _set("score_cells.rows", lambda r: _changed(r, 0, np.nan)), "rows"),
    # labels
    ("confusion matrix one class larger", _both(
        _set("stats.matrix", lambda m: np.pad(m, ((0, 1), (0, 1)))),
        _set("stats.labels", lambda c: np.append(c, _other_label(c)))), "stats"),
    ("confusion matrix of other labels", _set("stats.labels", lambda c: c + 1 if c.dtype.kind in "iu" else False),
     "stats"),
    ("confusion counts of more rows", _unweighted(_set("stats.matrix", lambda m: m * 2)), "rows"),
    ("cells of other classes", _set("cells.classes", lambda c: c + 1), "cells"),
    # grouped bootstrap sums
    ("totals column renamed", _set("totals.columns", lambda c: ("x",) + c[1:]), "totals"),
    ("totals one column fewer", _both(_set("totals.columns", lambda c: c[:-1]),
                                      _set("totals.totals", lambda t: t[:, :-1])), "totals"),
    ("totals of other rows", _set("totals.rows", lambda r: ((r[0][0], r[-1][1] + 5),)), "totals"),
    ("totals NaN", _set("totals.totals", lambda t: _changed(t, (0, 0), np.nan)), "totals"),
    ("totals infinite", _set("totals.totals", lambda t: _changed(t, (0, 0), np.inf)), "totals"),
    ("totals of no group", _both(_set("totals.groups", 0), _set("totals.totals", lambda t: t[:0])), "groups"),
    ("totals info without threshold", lambda f: _set("totals.info", lambda i: {k: v for k, v in i.items()
                                                                                if k != "threshold"})(f)
     if f["task"] == "binary-scores" else False, "threshold"),
    ("totals info of other classes", lambda f: _set("totals.info", lambda i: {**i, "classes": (5,)})(f)
     if f["task"] != "regression" else False, "totals"),
    ("totals info without median", lambda f: _set("totals.info", {})(f) if f["task"] == "regression" else False,
     "totals"),
    # sufficient statistics (probabilities, regression)
    ("label counts of other classes", _set("stats.label_counts.labels", lambda c: c + 5), "stats"),
    ("label counts of other rows", _unweighted(_set("stats.label_counts.counts", lambda c: c * 2)), "stats"),
    ("loss sums of another weight", _set("stats.loss_sums.weight", lambda w: w * 2), "stats"),
    ("moments of another weight", _set("stats.moments.weight", lambda w: w * 2), "stats"),
    ("histogram of another weight", _set("stats.targets.weight", lambda w: w * 2), "stats"),
    ("class scores of other classes", _set("stats.class_scores.classes", lambda c: c + 5), "stats"),
    ("permutation loss sums of other classes", _set("stats.permutation_loss_sums.classes", lambda c: c + 5), "stats"),
    ("squared error sums without a term", _set("stats.squared_error_sums.sums",
                                               lambda s: {k: v for k, v in s.items() if k != "sse"}), "sums"),
    ("squared error sums NaN", _set("stats.squared_error_sums.shift", float("nan")), "shift"),
]


def _applicable():
    out = []
    for case in CASES:
        for name, edit, match in FORGERIES:
            if edit(json.loads(_document(case))["statistics"]["fields"]) is not False:
                out.append(pytest.param(case, edit, match, id=f"{case}: {name}"))
    return out


@pytest.mark.parametrize("case, edit, match", _applicable())
def test_a_forged_file_is_refused_naming_the_field(case, edit, match, tmp_path):
    path = _forge(case, edit, tmp_path / "forged.bcstats")
    refusals = _consume(path, case)
    assert refusals, "read and reported without a refusal"
    assert "a corrupted statistics file (" in refusals[0] and re.search(match, refusals[0]), refusals


# =====================================================================================
# random mutations of the decoded JSON
# =====================================================================================


def _sites(x, path=()):
    """(path, kind) of every place of the statistics' JSON a mutation may touch."""
    if isinstance(x, dict):
        if set(x) == {"$array"}:
            yield path, "array"
            return
        for k, v in x.items():
            if path and path[-1] == "fields":
                yield path + (k,), "key"
            yield from _sites(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _sites(v, path + (i,))
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, "number"


NUMBERS = st.sampled_from([0, 1, -1, 2, 3, 0.5, -0.5, 1e300, -1e300, 10 ** 12, 2 ** 63, 5e-324, 0.1])
VALUES = st.one_of(NUMBERS, st.sampled_from([{"$float": "nan"}, {"$float": "inf"}, {"$float": "-inf"}, True,
                                             None, "zz", [], {"$tuple": []}]))


def _mutate(doc: dict, data) -> str:
    fields = doc["statistics"]
    sites = list(_sites(fields))
    path, kind = data.draw(st.sampled_from(sites), label="site")
    parent = fields
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    if kind == "key":
        if data.draw(st.booleans(), label="drop"):
            del parent[key]
            return f"drop {path}"
        parent[key] = data.draw(VALUES, label="value")
        return f"replace {path}"
    if kind == "number":
        parent[key] = data.draw(VALUES, label="value")
        return f"number {path}"
    a = _decode(parent[key], {})
    op = data.draw(st.sampled_from(["set", "shrink", "grow", "swap", "empty"]), label="op")
    flat = a.reshape(-1).copy() if a.ndim else a.reshape(1).copy()
    if op == "set" and flat.size:
        i = data.draw(st.integers(0, flat.size - 1), label="index")
        v = data.draw(NUMBERS if a.dtype.kind not in "UO" else st.sampled_from(["zz", 7, True]), label="item")
        try:
            flat[i] = v
        except (OverflowError, ValueError):
            flat[i] = 0
        a = flat.reshape(a.shape)
    elif op == "shrink" and a.ndim and a.shape[0]:
        a = a[:-1]
    elif op == "grow" and a.ndim:
        a = np.concatenate([a, a[-1:] if a.shape[0] else np.zeros((1,) + a.shape[1:], a.dtype)])
    elif op == "swap" and a.ndim and a.shape[0] > 1:
        a = a[::-1]
    elif op == "empty" and a.ndim:
        a = a[:0]
    parent[key] = _encode(np.ascontiguousarray(a), "")
    return f"{op} {path}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(CASES), data=st.data())
def test_any_mutation_of_a_valid_file_is_a_report_or_one_line(case, data, tmp_path):
    doc = json.loads(_document(case))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate(doc, data)
    doc.pop("sha256")
    doc["sha256"] = hashlib.sha256(_canonical(doc)).hexdigest()
    path = tmp_path / "mutated.bcstats"
    path.write_text(json.dumps(doc))
    _consume(path, case)


def test_the_unforged_files_are_read_and_reported(tmp_path):
    for case in CASES:
        path = tmp_path / "s.bcstats"
        path.write_text(_document(case))
        assert _consume(path, case) == [], case
