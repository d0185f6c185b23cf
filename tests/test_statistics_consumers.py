"""Kept statistics wherever rows are (issue 30, items 2 and 4): ``evaluate(statistics)``,
``compare`` with statistics on either side, ``estimate_performance(statistics, window)``,
``check`` gates and the command line (``profile`` → ``report`` / ``compare`` / ``check``) give
the numbers of the rows; a corrupted, foreign or newer file is one line and exit status 2.

Numpy data: fixed seeds (np.random.default_rng(<int>)) in each test."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.cli import main
from beyondchance.report import compare_reports
from beyondchance.statistics.file_format import _canonical

N = 300
OPTIONS = dict(n_resamples=200, mc_samples=1024, random_state=7)
CLI_OPTIONS = ["--n-resamples", "200", "--mc-samples", "1024", "--seed", "7"]


def _data(seed: int, n: int = N, pi: float = 0.4) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pi).astype(int)
    y3 = rng.integers(0, 3, n)
    yr = rng.normal(size=n)
    return dict(y=y, s=np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1).round(3), w=rng.integers(1, 4, n).astype(float),
                y3=y3, pred3=np.where(rng.random(n) < 0.6, y3, rng.integers(0, 3, n)),
                p3=rng.dirichlet([1.0, 1.0, 1.0], n), yr=yr, fr=yr + rng.normal(size=n))


#: (the rows as evaluate takes them, the task) of each case
def _case(name: str, d: dict[str, np.ndarray]) -> tuple[dict, str]:
    return {
        "binary scores": (dict(y_true=d["y"], y_score=d["s"]), "binary-scores"),
        "binary scores weighted": (dict(y_true=d["y"], y_score=d["s"], sample_weight=d["w"]), "binary-scores"),
        "binary labels": (dict(y_true=d["y"], y_pred=(d["s"] >= 0.5).astype(int)), "binary-labels"),
        "multiclass labels": (dict(y_true=d["y3"], y_pred=d["pred3"]), "multiclass-labels"),
        "probabilities": (dict(y_true=d["y3"], y_score=d["p3"]), "multiclass-probabilities"),
        "regression": (dict(y_true=d["yr"], y_pred=d["fr"]), "regression"),
    }[name]


CASES = ["binary scores", "binary scores weighted", "binary labels", "multiclass labels", "probabilities",
         "regression"]


def _rows(report) -> dict:
    return {k: (m.value, m.baseline, m.ops, None if m.ci is None else (m.ci.low, m.ci.high))
            for k, m in report.metrics.items()}


def _profile(kw: dict, task: str, tmp_path, name: str = "ref.bcstats", **options):
    """The statistics of the rows, through their file (what a user keeps)."""
    return bc.read_statistics(bc.profile(**kw, task=task, random_state=7, **options).save(tmp_path / name))


@pytest.mark.parametrize("case", CASES)
def test_evaluate_of_statistics_is_the_report_of_the_rows(case, tmp_path):
    kw, task = _case(case, _data(0))
    kept = _profile(kw, task, tmp_path)
    rows = bc.evaluate(**kw, task=task, **OPTIONS)
    assert _rows(bc.evaluate(kept, **OPTIONS)) == _rows(rows)
    assert _rows(bc.evaluate(data=kept, **OPTIONS)) == _rows(rows)
    assert _rows(bc.evaluate(data=str(tmp_path / "ref.bcstats"), **OPTIONS)) == _rows(rows)


def test_binned_statistics_are_within_their_stated_bound(tmp_path):
    kw, task = _case("binary scores", _data(1))
    report = bc.evaluate(_profile(kw, task, tmp_path, score_bins=20), **OPTIONS)
    rows = bc.evaluate(**kw, **OPTIONS)
    bound = report.score_statistic["auc_error_bound"]
    assert abs(report["roc_auc"].value - rows["roc_auc"].value) <= bound["roc_auc"]
    assert abs(report["pr_auc"].value - rows["pr_auc"].value) <= bound["pr_auc"]
    assert report["f1"].value == rows["f1"].value  # the threshold 0.5 is a bin edge: the labels are exact


def test_options_fixed_by_the_profile_are_refused(tmp_path):
    kw, task = _case("binary scores", _data(2))
    kept = _profile(kw, task, tmp_path)
    with pytest.raises(bc.InvalidInputError, match="score_bins does not apply to statistics"):
        bc.evaluate(kept, score_bins=10)
    with pytest.raises(bc.InvalidInputError, match="not binary-labels"):
        bc.evaluate(kept, task="binary-labels")
    with pytest.raises(bc.InvalidInputError, match="paired comparison of two models needs the rows"):
        bc.compare_models(kept, {"a": kw["y_score"], "b": kw["y_score"]})


#: the start of the one note of a report from statistics naming the p-values that need the rows
WITHOUT_ROWS = "p-values from statistics without the rows"


def _needing_rows(kept, rows) -> set[str]:
    """The rows of ``kept`` (a report from statistics) whose p-value is missing or is not the
    one of the rows (another value or another method)."""
    return {k for k, m in rows.metrics.items() if m.pvalue is not None and (
        kept[k].pvalue is None or kept[k].pvalue_method != m.pvalue_method
        or kept[k].pvalue != pytest.approx(m.pvalue, rel=1e-9))}


@pytest.mark.parametrize("case", ["binary scores weighted", "binary scores weighted binned", "binary labels weighted",
                                  "multiclass labels weighted", "probabilities", "regression", "regression weighted"])
def test_the_pvalues_that_need_the_rows_are_named_in_one_note(case, tmp_path):
    """Each p-value of the statistics that is missing or not the rows' (the permutation CLT
    instead of the rows' Monte Carlo permutations) is named by one note, which says what to
    keep instead; the rows' report has no such note, the reasons say the same."""
    d = _data(14, n=200)
    kw = {"binary scores weighted": dict(y_true=d["y"], y_score=d["s"], sample_weight=d["w"]),
          "binary scores weighted binned": dict(y_true=d["y"], y_score=d["s"], sample_weight=d["w"]),
          "binary labels weighted": dict(y_true=d["y"], y_pred=(d["s"] >= 0.5).astype(int), sample_weight=d["w"]),
          "multiclass labels weighted": dict(y_true=d["y3"], y_pred=d["pred3"], sample_weight=d["w"]),
          "probabilities": dict(y_true=d["y3"], y_score=d["p3"]),
          "regression": dict(y_true=d["yr"], y_pred=d["fr"]),
          "regression weighted": dict(y_true=d["yr"], y_pred=d["fr"], sample_weight=d["w"])}[case]
    binned = dict(score_bins=1000) if "binned" in case else {}
    kept = bc.evaluate(bc.read_statistics(bc.profile(**kw, random_state=7, **binned).save(tmp_path / "r.bcstats")),
                       **OPTIONS)
    rows = bc.evaluate(**kw, **OPTIONS)
    named = [n for n in kept.notes if n.startswith(WITHOUT_ROWS)]
    assert len(named) == 1 and len(set(kept.notes)) == len(kept.notes), kept.notes
    assert not any(n.startswith(WITHOUT_ROWS) for n in rows.notes)
    needed = _needing_rows(kept, rows)
    assert needed and needed <= set(re.findall(r"[a-z0-9_]+", named[0].split(":")[1].split(" —")[0])), named[0]
    assert "keep them, not only their statistics" in named[0]
    for k in needed:
        if kept[k].pvalue is None:
            assert "keep them, not only their statistics" in kept[k].pvalue_method, kept[k].pvalue_method
    assert kept.to_dict()["notes"] == list(kept.notes)


def test_the_note_of_the_pvalues_that_need_the_rows_in_every_output(tmp_path):
    d = _data(15, n=200)
    pd.DataFrame({"y": d["y"], "s": d["s"], "w": d["w"]}).to_csv(tmp_path / "rows.csv", index=False)
    ref = tmp_path / "ref.bcstats"
    assert _invoke("profile", tmp_path / "rows.csv", "--y-true", "y", "--y-score", "s", "--weight", "w", "--out", ref,
                   "--seed", "7").exit_code == 0
    terminal = _invoke("report", ref, "--details", *CLI_OPTIONS)
    assert terminal.exit_code == 0 and " ".join(terminal.stdout.split()).count(WITHOUT_ROWS) == 1, terminal.stdout
    for fmt in ("json", "html"):
        out = _invoke("report", ref, "--format", fmt, "--out", tmp_path / f"r.{fmt}", *CLI_OPTIONS)
        assert out.exit_code == 0, out.output
        assert html.unescape((tmp_path / f"r.{fmt}").read_text()).count(WITHOUT_ROWS) == 1, fmt
    assert bc.evaluate(bc.read_statistics(ref), **OPTIONS).to_markdown().count(WITHOUT_ROWS) == 1
    rows = _invoke("report", tmp_path / "rows.csv", "--y-true", "y", "--y-score", "s", "--weight", "w", "--details",
                   *CLI_OPTIONS)
    assert rows.exit_code == 0 and WITHOUT_ROWS not in " ".join(rows.stdout.split())


def _same_comparison(a, b) -> None:
    assert [r.name for r in a.reports] == [r.name for r in b.reports]
    for x, y in zip(a.reports, b.reports):
        assert _rows(x) == _rows(y), x.name
    assert [(c.test_set, c.metric, c.direction, c.expected_value, c.classifier_effect, c.classifier_effect_ci)
            for c in a.changes] == [(c.test_set, c.metric, c.direction, c.expected_value, c.classifier_effect,
                                     c.classifier_effect_ci) for c in b.changes]
    assert [(c.test_set, [(t.quantity, t.pvalue) for t in c.tests]) for c in a.classifier_changes] == \
        [(c.test_set, [(t.quantity, t.pvalue) for t in c.tests]) for c in b.classifier_changes]


@pytest.mark.parametrize("case", ["binary scores", "binary labels", "multiclass labels", "regression"])
@pytest.mark.parametrize("side", ["reference", "window"])
def test_compare_with_statistics_on_either_side_is_the_comparison_of_the_rows(case, side, tmp_path):
    (ref, task), (new, _) = _case(case, _data(3)), _case(case, _data(4, pi=0.2))
    sets = {"reference": tuple(ref.values()), "2024-05": tuple(new.values())}
    rows = bc.compare(sets, task=task, **OPTIONS)
    kept = dict(sets)
    kept[side if side == "reference" else "2024-05"] = _profile(ref if side == "reference" else new, task, tmp_path)
    _same_comparison(bc.compare(kept, task=task, **OPTIONS), rows)
    if case == "regression":
        assert [(t.test_set, t.pvalue) for t in rows.target_shifts] == \
            [(t.test_set, t.pvalue) for t in bc.compare(kept, task=task, **OPTIONS).target_shifts]


def test_compare_of_statistics_with_a_window_without_labels(tmp_path):
    kw, task = _case("binary scores", _data(5))
    window = _data(6, pi=0.15)["s"]
    rows = bc.compare({"reference": (kw["y_true"], kw["y_score"]), "today": (None, window)}, **OPTIONS)
    kept = bc.compare({"reference": _profile(kw, task, tmp_path), "today": (None, window)}, **OPTIONS)
    (_, a), (_, b) = rows.label_free[0], kept.label_free[0]
    assert (a.prevalence, a.prevalence_ci) == (b.prevalence, b.prevalence_ci)


def test_compare_of_binned_statistics_with_a_window_without_labels_states_the_bound(tmp_path):
    """The window's estimate from a binned reference in compare is estimate_performance's, with
    its bound and its one caveat (compare rebuilds the bins from the report's counts)."""
    kw, task = _case("binary scores", _data(5))
    window = _data(6, pi=0.15)["s"]
    ref = _profile({**kw, "score_bins": 20}, task, tmp_path)
    (_, est), = bc.compare({"reference": ref, "today": (None, window)}, **OPTIONS).label_free
    direct = bc.estimate_performance(ref, window, threshold=0.5, metrics=list(est.metrics),
                                     n_resamples=OPTIONS["n_resamples"], random_state=OPTIONS["random_state"])
    assert est.binned_error_bound == direct.binned_error_bound and est.binned_error_bound["roc_auc"] > 0
    assert (est.prevalence, est.prevalence_ci) == (direct.prevalence, direct.prevalence_ci)
    assert sum("binned into floor(score * 20)" in c for c in est.caveats) == 1


def test_compare_of_probabilities_says_what_needs_the_rows(tmp_path):
    (ref, task), (new, _) = _case("probabilities", _data(7)), _case("probabilities", _data(8))
    sets = {"reference": tuple(ref.values()), "new": tuple(new.values())}
    rows = bc.compare(sets, **OPTIONS)
    kept = bc.compare({"reference": _profile(ref, task, tmp_path), "new": sets["new"]}, **OPTIONS)
    for x, y in zip(rows.reports, kept.reports):
        assert _rows(x) == _rows(y)
    undecomposed = [n for n in kept.notes if "not decomposed" in n]
    assert len(undecomposed) == 1 and len(set(kept.notes)) == len(kept.notes), kept.notes
    assert undecomposed[0].startswith("reference: statistics") and "keep the rows of every set" in undecomposed[0]
    assert "classifier effects" in undecomposed[0] and "DuckDB" not in undecomposed[0]
    # what is left out: the decomposition of the AUCs and losses, and the AUCs' tests of the classifier
    undone = {c.metric for c in kept.changes if c.direction == "not decomposed"}
    assert undone - {c.metric for c in rows.changes if c.direction == "not decomposed"} == \
        {"roc_auc", "roc_auc_weighted", "log_loss", "brier"}
    assert [t.quantity for c in kept.classifier_changes for t in c.tests if "roc_auc" in t.quantity] == []
    new_rows = tmp_path / "new.parquet"
    pd.DataFrame({"y": new["y_true"], **{f"p{j}": new["y_score"][:, j] for j in range(3)}}).to_parquet(new_rows)
    bc.profile(**ref, task=task, random_state=7).save(tmp_path / "ref.bcstats")
    terminal = _invoke("compare", tmp_path / "ref.bcstats", new_rows, "--y-true", "y", "--y-score", "p0", "--y-score",
                       "p1", "--y-score", "p2", "--details", *CLI_OPTIONS)
    assert terminal.exit_code == 0, terminal.output
    for text in (kept.to_json(), kept.to_markdown(), html.unescape(kept.to_html(plots=False)), terminal.stdout):
        assert " ".join(text.split()).count("are not decomposed, nor their classifier effects tested") == 1
    # the p-values of the reference's statistics: one note too, beside it
    assert sum(WITHOUT_ROWS in n for n in kept.notes) == 1 and not any(WITHOUT_ROWS in n for n in rows.notes)


def test_compare_reports_without_probabilities_says_why_not_decomposed():
    (ref, _), (new, _) = _case("probabilities", _data(7)), _case("probabilities", _data(8))
    reports = [bc.evaluate(**ref, name="a", **OPTIONS), bc.evaluate(**new, name="b", **OPTIONS)]
    notes = [n for n in compare_reports(reports).notes if "not decomposed" in n]
    assert len(notes) == 1 and "probabilities=" in notes[0] and "DuckDB" not in notes[0]


def test_compare_of_regression_statistics_names_the_pvalues_that_need_the_rows(tmp_path):
    (ref, task), (new, _) = _case("regression", _data(16)), _case("regression", _data(17))
    kept = bc.compare({"reference": _profile(ref, task, tmp_path), "new": tuple(new.values())}, task=task, **OPTIONS)
    named = [n for n in kept.notes if WITHOUT_ROWS in n]
    assert len(named) == 1 and named[0].startswith("reference: ") and "mae, d2_absolute_error none" in named[0]
    assert kept.reports[0]["mae"].pvalue is None and kept.reports[1]["mae"].pvalue is not None


def test_cli_compare_models_of_a_statistics_file_is_one_line(csv_rows, tmp_path):
    ref = tmp_path / "ref.bcstats"
    assert _invoke("profile", csv_rows, "--y-true", "y", "--y-score", "s", "--out", ref, "--no-ci").exit_code == 0
    result = _invoke("compare-models", ref, "--y-true", "y", "--y-score", "s", "--y-score", "t")
    err = result.stderr.strip()
    assert result.exit_code == 2 and "\n" not in err, result.output
    assert "is a statistics file: a paired comparison of two models needs the rows" in err
    assert "on the same rows" in err and "keep the rows with every model's scores" in err


def test_compare_refuses_statistics_of_another_task_or_positive_class(tmp_path):
    kw, task = _case("binary scores", _data(9))
    with pytest.raises(bc.InvalidInputError, match="'reference': these statistics are of a binary-scores task"):
        bc.compare({"new": (kw["y_true"], (kw["y_score"] > 0.5).astype(int)),
                    "reference": _profile(kw, task, tmp_path)}, task="binary-labels", ci=False)
    with pytest.raises(bc.InvalidInputError, match="count 1 as the positive class, not 0"):
        bc.compare({"reference": _profile(kw, task, tmp_path), "new": (kw["y_true"], kw["y_score"])}, pos_label=0,
                   ci=False)


@pytest.mark.parametrize("weighted", [False, True])
def test_estimate_performance_from_statistics_is_that_of_the_rows(weighted, tmp_path):
    d = _data(10, n=2000)
    window = _data(11, n=2000, pi=0.15)["s"]
    w = d["w"] if weighted else None
    rows = bc.estimate_performance(d["y"], d["s"], window, sample_weight=w, n_resamples=200)
    kept = _profile(dict(y_true=d["y"], y_score=d["s"], sample_weight=w), "binary-scores", tmp_path, ci=False)
    for est in (bc.estimate_performance(kept, window, n_resamples=200),
                bc.estimate_performance(kept, y_score_window=window, n_resamples=200)):
        assert (est.prevalence, est.prevalence_ci) == (rows.prevalence, rows.prevalence_ci)
        assert {k: (m.value, m.ci) for k, m in est.metrics.items()} == {k: (m.value, m.ci)
                                                                          for k, m in rows.metrics.items()}
    with pytest.raises(bc.InvalidInputError, match="needs the statistics of binary scores"):
        bc.estimate_performance(_profile(_case("binary labels", d)[0], "binary-labels", tmp_path, "l.bcstats"), window)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), bins=st.sampled_from([10, 20, 100, 1000]), edge=st.booleans())
def test_estimate_from_binned_statistics_is_within_its_stated_bound(seed, bins, edge):
    """Every bound the binned estimate states holds against the estimate of the exact scores
    (random data; a threshold k / bins or anywhere): at a bin edge the prevalence and the
    labeling metrics are exact (bound 0)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(200, 600))
    y = (rng.random(n) < rng.uniform(0.2, 0.6)).astype(int)
    s = np.clip(0.5 + 0.2 * (2 * y - 1) + rng.normal(0, 0.25, n), 0, 1).round(int(rng.integers(2, 5)))
    window = np.clip(0.5 + 0.2 * (2 * (rng.random(n) < rng.uniform(0.05, 0.5)) - 1) + rng.normal(0, 0.25, n), 0, 1)
    threshold = float(rng.integers(3 * bins // 10, 7 * bins // 10 + 1)) / bins if edge else rng.uniform(0.3, 0.7)
    # a bin edge: the smallest double of its bin (not 0.57 with 100 bins: 0.57 * 100 = 56.99...)
    edge = edge and math.floor(np.nextafter(threshold, 0) * bins) < math.floor(threshold * bins)
    exact = bc.estimate_performance(y, s, window, threshold=threshold, n_resamples=40)
    est = bc.estimate_performance(bc.profile(y, s, score_bins=bins, ci=False), window, threshold=threshold,
                                  n_resamples=40)
    bound = est.binned_error_bound
    errors = {"prevalence": abs(est.prevalence - exact.prevalence),
              **{k: abs(m.value - exact.metrics[k].value) for k, m in est.metrics.items()}}
    assert bound["prevalence"] is not None and bound["roc_auc"] is not None
    for name, b in bound.items():
        if b is not None and not (name in est.metrics and math.isnan(est.metrics[name].value)
                                  and math.isnan(exact.metrics[name].value)):  # undefined in both
            assert errors[name] <= b + 1e-12, (name, errors[name], b)
    if edge:
        assert bound["prevalence"] == 0 and bound["f1"] == 0 and bound["pr_auc"] is not None
    assert sum("binned into floor(score * " in c for c in est.caveats) == 1
    assert exact.binned_error_bound is None and est.to_dict()["binned_error_bound"] == bound


def test_the_binned_estimates_bound_is_reached():
    """Adversarial: the bin [0.5, 0.6) of the threshold 0.55 holds rows of both classes above it and
    one negative of weight 1e-9 below (so the binned reference counts the whole bin negative):
    the exact rates are the box's far corner, and the error is the stated bound, 0.5."""
    pos = np.repeat([0.8, 0.58, 0.2], [70, 20, 10])
    neg = np.repeat([0.2, 0.58, 0.8, 0.51], [60, 30, 10, 1])
    y, s = np.repeat([1, 0], [pos.size, neg.size]), np.concatenate([pos, neg])
    w = np.concatenate([np.ones(200), [1e-9]])
    window = np.repeat([0.8, 0.2], [40, 60])  # q = 0.4
    exact = bc.estimate_performance(y, s, window, sample_weight=w, threshold=0.55, n_resamples=40)
    est = bc.estimate_performance(bc.profile(y, s, sample_weight=w, score_bins=10, ci=False), window,
                                  threshold=0.55, n_resamples=40)
    assert est.prevalence == pytest.approx(0.5) and exact.prevalence == pytest.approx(0.0, abs=1e-9)
    assert est.binned_error_bound["prevalence"] == pytest.approx(abs(est.prevalence - exact.prevalence), rel=1e-6)
    assert est.binned_error_bound["accuracy"] is None  # a threshold inside a bin: no bound for the labeling metrics


def test_a_threshold_whose_product_rounds_down_is_not_a_bin_edge():
    """0.57 * 100 = 56.99...: a score of exactly 0.57 is in bin 56 with the scores below it, so
    the binned estimate at 0.57 is not exact, and its bound says so (and holds)."""
    y = np.repeat([1, 0], 50)
    s = np.repeat([0.8, 0.57, 0.2, 0.565], [25, 25, 40, 10])
    window = np.repeat([0.8, 0.2], [30, 70])
    exact = bc.estimate_performance(y, s, window, threshold=0.57, n_resamples=40)
    est = bc.estimate_performance(bc.profile(y, s, score_bins=100, ci=False), window, threshold=0.57, n_resamples=40)
    assert (exact.prevalence, est.prevalence) == pytest.approx((0.3, 0.6))
    assert 0.3 <= est.binned_error_bound["prevalence"] < 1


# =====================================================================================
# the command line
# =====================================================================================


def _invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def csv_rows(tmp_path):
    d = _data(12)
    path = tmp_path / "rows.csv"
    pd.DataFrame({"y": d["y"], "s": d["s"], "day": np.repeat(["2024-05-10", "2024-05-02", "2024-05-03"], N // 3)}
                 ).to_csv(path, index=False)
    return path


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cli_profile_then_report_check_and_compare_give_the_rows_numbers(csv_rows, tmp_path):
    ref = tmp_path / "ref.bcstats"
    result = _invoke("profile", csv_rows, "--y-true", "y", "--y-score", "s", "--out", ref, "--seed", "7")
    assert result.exit_code == 0, result.output
    kept = _json(_invoke("report", ref, "--format", "json", *CLI_OPTIONS))
    rows = _json(_invoke("report", csv_rows, "--y-true", "y", "--y-score", "s", "--format", "json", *CLI_OPTIONS))
    assert kept["metrics"] == rows["metrics"]
    require = ["--require", "lower(roc_auc) > 0.5", "--require", "value(f1) > 0.99"]
    gate_kept, gate_rows = _invoke("check", ref, *require, *CLI_OPTIONS, "--format", "json"), \
        _invoke("check", csv_rows, "--y-true", "y", "--y-score", "s", *require, *CLI_OPTIONS, "--format", "json")
    assert gate_kept.exit_code == gate_rows.exit_code == 1
    assert json.loads(gate_kept.stdout)["requirements"] == json.loads(gate_rows.stdout)["requirements"]
    both = _json(_invoke("compare", ref, csv_rows, "--y-true", "y", "--y-score", "s", "--format", "json",
                         *CLI_OPTIONS))
    assert [r["metrics"] for r in both["test_sets"]] == [rows["metrics"], rows["metrics"]]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_cli_profile_by_writes_one_file_per_group(engine, csv_rows, tmp_path):
    out = tmp_path / "day.bcstats"
    result = _invoke("profile", csv_rows, "--by", "day", "--y-true", "y", "--y-score", "s", "--out", out,
                     "--engine", engine, "--no-ci")
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(csv_rows)
    for day in ("2024-05-02", "2024-05-03", "2024-05-10"):
        part = frame[frame["day"] == day]
        kept = bc.read_statistics(tmp_path / f"day.{day}.bcstats")
        whole = bc.profile(part["y"].to_numpy(), part["s"].to_numpy(), ci=False)
        assert kept.n_rows == len(part) and kept.stats.tps.tolist() == whole.stats.tps.tolist()
        assert kept.stats.fps.tolist() == whole.stats.fps.tolist()


def _statistics(path) -> dict:
    document = json.loads(path.read_text())
    return {k: document[k] for k in ("statistics", "metadata")}


def _same_content(a, b, where: str = "") -> list[str]:
    """Where two files' contents differ: counts, labels and the rest exactly, sums of real
    numbers (float64 arrays and numbers) to rounding (relative 1e-12: the engines add in
    different orders)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [where]
        if set(a) == {"$array"} and a["$array"].get("dtype") == "float64" == b["$array"].get("dtype"):
            x, y = (np.frombuffer(base64.b64decode(v["$array"]["data"]), "<f8") for v in (a, b))
            return [] if a["$array"]["shape"] == b["$array"]["shape"] and np.allclose(x, y, rtol=1e-12, atol=0) \
                else [where]
        return [w for k in a for w in _same_content(a[k], b[k], f"{where}/{k}")]
    if isinstance(a, list) and isinstance(b, list):
        return [where] if len(a) != len(b) else [w for i, (x, y) in enumerate(zip(a, b))
                                                 for w in _same_content(x, y, f"{where}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if math.isclose(a, b, rel_tol=1e-12) else [where]
    return [] if a == b and type(a) is type(b) else [where]


@pytest.mark.parametrize("case", ["scores", "probabilities", "regression"])
def test_cli_profile_writes_the_same_content_on_every_engine(case, tmp_path, request):
    d = _data(13)
    frame, args = {
        "scores": ({"y": d["y"], "s": d["s"], "w": d["w"]}, ["--y-score", "s", "--weight", "w"]),
        "probabilities": ({"y": d["y3"], **{f"p{j}": d["p3"][:, j] for j in range(3)}},
                          ["--y-score", "p0", "--y-score", "p1", "--y-score", "p2"]),
        "regression": ({"y": d["yr"], "f": d["fr"]}, ["--y-pred", "f"]),
    }[case]
    path = tmp_path / ("rows.csv" if case == "scores" else "rows.parquet")  # CSV: each engine infers the types
    pd.DataFrame(frame).to_csv(path, index=False) if case == "scores" else pd.DataFrame(frame).to_parquet(path)
    engines = ["memory", "duckdb"] + (["spark"] if case == "scores" else [])  # one Spark case: its start is slow
    written = {}
    for engine in engines:
        if engine == "spark":
            request.getfixturevalue("spark")  # skips where Spark cannot run
        out = tmp_path / f"{engine}.bcstats"
        result = _invoke("profile", path, "--y-true", "y", *args, "--out", out, "--engine", engine)
        assert result.exit_code == 0, result.output
        written[engine] = _statistics(out)
    for engine, content in written.items():
        assert not _same_content(content, written["memory"]), (engine, _same_content(content, written["memory"]))
    if case == "scores":  # counts only (weights of whole numbers): identical to the last bit
        assert all(content == written["memory"] for content in written.values())


def _newer(path, out):
    document = json.loads(path.read_text())
    document.pop("sha256")
    document["schema_version"] += 1
    document["sha256"] = hashlib.sha256(_canonical(document)).hexdigest()
    out.write_text(json.dumps(document))
    return out


@pytest.mark.parametrize("command", ["report", "compare", "check"])
def test_cli_corrupted_foreign_and_newer_files_exit_2_with_one_line(command, csv_rows, tmp_path):
    ref = tmp_path / "ref.bcstats"
    assert _invoke("profile", csv_rows, "--y-true", "y", "--y-score", "s", "--out", ref, "--no-ci").exit_code == 0
    text = ref.read_text()
    files = {
        "truncated": (tmp_path / "cut.bcstats", text[: len(text) // 2], "a truncated or corrupted statistics file"),
        "changed": (tmp_path / "changed.bcstats", text.replace('"n_rows":300', '"n_rows":301'),
                    "the checksum does not match"),
        "foreign": (tmp_path / "foreign.bcstats", '{"format": "other"}', "not a beyondchance statistics file"),
    }
    for path, content, _ in files.values():
        path.write_text(content)
    cases = [(path, message) for path, _, message in files.values()]
    cases.append((_newer(ref, tmp_path / "newer.bcstats"), "written by a newer beyondchance"))
    extra = {"report": [], "compare": [csv_rows, "--y-true", "y", "--y-score", "s"],
             "check": ["--require", "value(f1) > 0"]}[command]
    for path, message in cases:
        result = _invoke(command, path, *extra)
        assert result.exit_code == 2, (path, result.output)
        err = result.stderr.strip()
        assert err.startswith("beyondchance: error:") and "\n" not in err and message in err, (path, err)
    result = _invoke(command, ref, *(extra if command != "compare" else [ref]), "--weight", "w")
    assert result.exit_code == 2 and "drop --weight" in result.stderr, result.output
