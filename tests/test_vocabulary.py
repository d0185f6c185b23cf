"""One vocabulary across the Python API: the parameters and result fields of every public
name (``beyondchance.__all__`` and the ``__all__`` of every subpackage) use ``y_true``,
``y_score``, ``y_pred``, ``y_proba``, ``sample_weight``, ``pvalue`` (``pvalue_adjusted``),
``n_resamples`` and ``random_state``, never their other spellings."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import beyondchance as bc

#: other spellings of the vocabulary's words, as parameter or field names
FORBIDDEN = {
    "y": "y_score / y_pred", "y_prob": "y_proba", "weight": "sample_weight", "weights": "sample_weight",
    "p_value": "pvalue", "adjusted_p_value": "pvalue_adjusted", "p_values": "pvalues",
    "seed": "random_state", "n_bootstrap": "n_resamples", "n_boot": "n_resamples",
    # the reference's and the window's rows (issue 38, item 5)
    "y_reference": "y_true", "scores_reference": "y_score", "scores_window": "y_score_window",
    "window_sample_weight": "sample_weight_window",
}

#: the same spellings where they mean something else, each with its reason
EXEMPT = {
    # the y coordinates of a curve, not a target
    ("Curve", "y"), ("OPSCurve", "y"),
    # scikit-learn's own (X, y) convention of estimators and of data sets
    ("Dataset", "y"), ("KernelLogisticRegression", "y"), ("PluginThresholdClassifier", "y"),
    ("DecisionCurveDisplay", "y"), ("PACoverageDisplay", "y"), ("ReliabilityDisplay", "y"),
    # a sum of weights (of a bin, a cell, a set), not a weight per row
    ("ReliabilityTable", "weight"), ("ReliabilityDisplay", "weight"), ("LossSums", "weight"),
    ("Moments", "weight"), ("ValueHistogram", "weight"), ("BinnedScoreCounts", "weight"),
    # the engine seam's column of weights, passed between the report and a runner
    ("Scan", "weight"),
}


def _public_objects():
    seen = {}
    for name in bc.__all__:
        seen[f"beyondchance.{name}"] = getattr(bc, name)
    for sub in bc.__dir__():
        module = getattr(bc, sub)
        if inspect.ismodule(module) and sub != "experiments":
            for name in getattr(module, "__all__", ()):
                seen.setdefault(f"beyondchance.{sub}.{name}", getattr(module, name))
    return seen


def _callables(obj):
    if inspect.isclass(obj):
        yield obj.__init__
        for attr, member in vars(obj).items():
            if not attr.startswith("_"):
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if inspect.isfunction(member):
                    yield member
    elif callable(obj):
        yield obj


def wrong_parameters(objects: dict) -> list[str]:
    """The parameters of ``objects`` (qualified name -> object) spelled against the vocabulary."""
    wrong = []
    for qualname, obj in objects.items():
        for fn in _callables(obj):
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            wrong += [f"{qualname}({p}=): use {FORBIDDEN[p]}" for p in params
                      if p in FORBIDDEN and (qualname.rsplit(".", 1)[-1], p) not in EXEMPT]
    return sorted(set(wrong))


def test_parameters_use_the_vocabulary():
    wrong = wrong_parameters(_public_objects())
    assert not wrong, "\n".join(wrong)


def test_result_fields_use_the_vocabulary():
    wrong = []
    for qualname, obj in _public_objects().items():
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            wrong += [f"{qualname}.{f.name}: use {FORBIDDEN.get(f.name, 'pvalue')}" for f in dataclasses.fields(obj)
                      if (f.name in FORBIDDEN or "p_value" in f.name)
                      and (qualname.rsplit(".", 1)[-1], f.name) not in EXEMPT]
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_a_wrong_name():
    """The scan is not blind: a function, a classmethod and a constructor with other
    spellings are caught, and an exempt pair is not."""
    def f(y_true, y, *, weight=None):  # noqa: ARG001
        return None

    class Result:
        def __init__(self, p_value):  # noqa: ARG002
            pass

        @classmethod
        def from_arrays(cls, y_true, y_prob):  # noqa: ARG003
            return cls(0.0)

    class Curve:  # exempt: its y is a coordinate
        def __init__(self, x, y):  # noqa: ARG002
            pass

    found = wrong_parameters({"t.f": f, "t.Result": Result, "t.Curve": Curve})
    assert found == ["t.Result(p_value=): use pvalue", "t.Result(y_prob=): use y_proba",
                     "t.f(weight=): use sample_weight", "t.f(y=): use y_score / y_pred"]


def test_evaluate_takes_scores_or_labels_by_name():
    rng = np.random.default_rng(20261127)
    print("seed 20261127")
    y = rng.integers(0, 2, 200)
    s = np.clip(0.3 * y + rng.uniform(size=200) * 0.7, 0, 1)
    labels = (s >= 0.5).astype(int)
    by_position = bc.evaluate(y, labels, ci=False, mc_samples=1024)
    by_name = bc.evaluate(y, y_pred=labels, ci=False, mc_samples=1024)
    assert by_position.task == by_name.task == "binary-labels"
    assert by_position["f1"].value == by_name["f1"].value
    scores = bc.evaluate(y, y_score=s, ci=False, mc_samples=1024)
    assert scores.task == "binary-scores" and scores["roc_auc"].value == pytest.approx(bc.roc_auc(y, s), abs=1e-12)
    both = bc.evaluate(y, s, y_pred=labels, ci=False, mc_samples=1024)
    assert both["f1"].value == by_name["f1"].value and both["roc_auc"].value == scores["roc_auc"].value
    with pytest.raises(bc.InvalidInputError, match="y_score .* or y_pred"):
        bc.evaluate(y)


def test_one_list_of_task_names():
    """The statistics layer's tasks ARE the report's (one tuple), each with its statistics;
    the names of 0.1 are refused with the new name, by every entry point."""
    import pandas as pd

    from beyondchance.engines import compute_statistics
    from beyondchance.measures.task_metrics import TASKS
    from beyondchance.statistics import STATISTICS, SufficientStatistics, sufficient

    assert sufficient.TASKS is TASKS and bc.statistics.TASKS is TASKS and bc.report.TASKS is TASKS
    assert tuple(STATISTICS) == TASKS
    assert STATISTICS["binary-labels"] == STATISTICS["multiclass-labels"]  # one bundle for the label tasks
    y, s, f = [0, 1, 1, 0], [0.2, 0.7, 0.4, 0.1], [0, 1, 0, 0]
    old = {"binary": "'binary-scores'", "labels": "'binary-labels' or 'multiclass-labels'",
           "probabilities": "'multiclass-probabilities'"}
    for name, new in old.items():
        message = f"task '{name}' is now {new}"
        with pytest.raises(bc.InvalidInputError, match=message):
            compute_statistics(y_true=y, y_pred=f, task=name)
        with pytest.raises(bc.InvalidInputError, match=message):
            bc.StatisticsAccumulator(task=name)
        with pytest.raises(bc.InvalidInputError, match=message):
            SufficientStatistics(name)
    with pytest.raises(bc.InvalidInputError, match="task 'binary' is now 'binary-scores'"):
        compute_statistics(pd.DataFrame({"y": y, "s": s}), y_true="y", y_score="s", task="binary", engine="duckdb")
    # the new names, and the detection (task="auto") kept
    assert compute_statistics(y_true=y, y_score=s).task == "binary-scores"
    assert compute_statistics(y_true=y, y_pred=f).task == "multiclass-labels"
    assert compute_statistics(y_true=y, y_pred=f, task="binary-labels").task == "binary-labels"
    assert compute_statistics(y_true=[0, 1, 2], y_proba=np.eye(3)).task == "multiclass-probabilities"
    assert compute_statistics(y_true=[0.5, 1.5], y_pred=[1.0, 1.0]).task == "regression"


# --- one interval type: ConfidenceInterval(low, high, level, method) --------------------------------

#: interval fields that stay pairs, each with its reason: the OPS at the two ends of the metric's
#: interval, in the metric's order (a lower-is-better metric gives the larger OPS first)
PAIR_FIELDS = {("MetricResult", "ops_ci"), ("Change", "ops_ci"), ("Change", "reference_ops_ci")}


def _interval_fields(objects: dict) -> list[str]:
    """The fields named ``ci`` or ``*_ci`` of the public dataclasses not typed as a ConfidenceInterval."""
    wrong = []
    for qualname, obj in objects.items():
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            for f in dataclasses.fields(obj):
                if (f.name == "ci" or f.name.endswith("_ci")) and (qualname.rsplit(".", 1)[-1], f.name) not in PAIR_FIELDS:
                    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
                    if "ConfidenceInterval" not in kind and "MetricCI" not in kind:
                        wrong.append(f"{qualname}.{f.name}: {kind}")
    return sorted(set(wrong))


def test_interval_fields_are_confidence_intervals():
    wrong = _interval_fields(_public_objects())
    assert not wrong, "\n".join(wrong)

    @dataclasses.dataclass
    class Result:  # the scan is not blind: a pair is caught, an interval and an exempt pair are not
        ci: tuple[float, float]
        band_ci: bc.ConfidenceInterval
        ops_ci: tuple[float, float]

    pair = "tuple[float, float]"
    assert _interval_fields({"t.Result": Result, "t.MetricResult": Result}) == [
        f"t.MetricResult.ci: {pair}", f"t.Result.ci: {pair}", f"t.Result.ops_ci: {pair}"]


def test_confidence_interval_unpacks_indexes_and_serialises():
    ci = bc.ConfidenceInterval(0.25, 0.5, level=0.9, method="percentile")
    low, high = ci
    assert (low, high) == (0.25, 0.5) == tuple(ci) and (ci[0], ci[-1], len(ci)) == (0.25, 0.5, 2)
    undefined = np.float64("nan")
    assert 0.25 in ci and 0.5 in ci and 0.6 not in ci and undefined not in ci
    assert np.asarray(ci).tolist() == [0.25, 0.5] and ci == pytest.approx((0.25, 0.5))
    assert ci.to_dict() == {"low": 0.25, "high": 0.5, "level": 0.9, "method": "percentile"}
    assert bc.ConfidenceInterval(float("nan"), 1.0, 0.95, "bca").to_dict()["low"] is None
    assert bc.inference.ConfidenceInterval is bc.ConfidenceInterval
    with pytest.raises(dataclasses.FrozenInstanceError):
        ci.low = 0.0  # type: ignore[misc]


def test_metric_ci_is_a_confidence_interval():
    fields = [f.name for f in dataclasses.fields(bc.report.MetricCI)]
    assert fields[:4] == ["low", "high", "level", "method"] and "confidence_level" not in fields
    rng = np.random.default_rng(20261128)
    print("seed 20261128")
    y = rng.integers(0, 2, 300)
    s = np.clip(0.3 * y + rng.uniform(size=300) * 0.7, 0, 1)
    row = bc.evaluate(y, s, n_resamples=200, mc_samples=1024)["f1"]
    assert isinstance(row.ci, bc.report.MetricCI) and isinstance(row.ci, bc.ConfidenceInterval)
    low, high = row.ci
    assert (low, high) == (row.ci.low, row.ci.high) and row.ci.level == 0.95 and row.ci.method == "bca"
    d = row.ci.to_dict()
    assert d["level"] == 0.95 and "confidence_level" not in d
    assert set(d) == {"low", "high", "method", "level", "n_resamples", "resampling", "lower_bound", "upper_bound"}
    assert row.to_dict()["ci"] == d


def test_result_types_give_confidence_intervals():
    from beyondchance.inference.poisson_bootstrap import (
        group_totals_from_arrays,
        labeling_intervals,
    )

    rng = np.random.default_rng(20261129)
    print("seed 20261129")
    y = rng.integers(0, 2, 400)
    s = np.clip(0.3 * y + rng.uniform(size=400) * 0.7, 0, 1)
    s2 = np.clip(0.2 * y + rng.uniform(size=400) * 0.8, 0, 1)
    p = (s >= 0.5).astype(int)

    boot = bc.bootstrap_ci("accuracy", y, p, n_resamples=200, method="percentile", random_state=0)
    assert boot.interval == bc.ConfidenceInterval(boot.low, boot.high, 0.95, "percentile")
    redo = boot.confidence_interval(0.8)
    assert isinstance(redo, bc.ConfidenceInterval) and (redo.level, redo.method) == (0.8, "percentile")

    ops = bc.outperformance_score_ci("f1", y, p, n_resamples=200, random_state=0)
    assert ops.interval == bc.ConfidenceInterval(ops.low, ops.high, ops.confidence_level, ops.method)

    dl = bc.delong_test(y, s, s2)
    assert isinstance(dl.ci, bc.ConfidenceInterval) and (dl.ci.level, dl.ci.method) == (0.95, "wald")
    assert dl.to_dict()["ci"] == [dl.ci.low, dl.ci.high]

    models = bc.compare_models(y, {"a": s, "b": s2}, metrics=["roc_auc", "f1"], n_resamples=200)
    for diff in models.differences:
        assert isinstance(diff.ci, bc.ConfidenceInterval) and diff.ci.level == 0.95
        assert diff.ci.method == ("wald" if diff.test == "DeLong" else "percentile")

    totals = group_totals_from_arrays("labels", y, y_pred=p)
    intervals = labeling_intervals(totals, ["f1"], n_resamples=200, confidence=0.9).intervals
    assert intervals["f1"] == bc.ConfidenceInterval(*intervals["f1"], 0.9, "percentile")

    ref_y = (rng.random(3000) < 0.3).astype(int)
    ref_s = np.clip(0.5 + 0.25 * (2 * ref_y - 1) + rng.normal(0, 0.2, 3000), 0, 1)
    win_y = (rng.random(3000) < 0.1).astype(int)
    win_s = np.clip(0.5 + 0.25 * (2 * win_y - 1) + rng.normal(0, 0.2, 3000), 0, 1)
    est = bc.estimate_performance(ref_y, ref_s, win_s, n_resamples=200, random_state=0)
    assert isinstance(est.prevalence_ci, bc.ConfidenceInterval) and est.prevalence_ci.level == 0.95
    assert all(m.ci is None or isinstance(m.ci, bc.ConfidenceInterval) for m in est.metrics.values())


def test_decomposition_intervals_are_confidence_intervals():
    from beyondchance.measures.curves import threshold_counts
    from beyondchance.monitoring.decomposition import decompose
    from beyondchance.monitoring.set_statistics import SetStatistics
    from beyondchance.monitoring.classifier_change import classifier_change_tests

    rng = np.random.default_rng(20261130)
    print("seed 20261130")

    def sample(pi, n=3000):
        y = (rng.random(n) < pi).astype(int)
        return threshold_counts(y, np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.2, n), 0, 1).round(3))

    ref = SetStatistics.from_counts(sample(0.3), threshold=0.5)
    new = SetStatistics.from_counts(sample(0.1), threshold=0.5)
    d = decompose(ref, new, ["precision"], n_resamples=200, random_state=0)["precision"]
    for ci in (d.expected_ci, d.prevalence_effect_ci, d.classifier_effect_ci):
        assert isinstance(ci, bc.ConfidenceInterval) and ci.level == 0.95 and ci.method in ("bca", "percentile")
    tests = classifier_change_tests(ref, new)
    wanted = {"roc_auc": "wald", "fpr": "newcombe", "fnr": "newcombe"}
    assert tests and all(isinstance(t.difference_ci, bc.ConfidenceInterval)
                         and t.difference_ci.method == wanted[t.quantity] for t in tests)
    assert d.to_dict()["expected_ci"] == [d.expected_ci.low, d.expected_ci.high]


def test_one_word_for_an_interval_that_reaches_the_constant():
    """The report's rows, the demo and ``beats_by_interval`` say "unclear" where the interval
    reaches the constant's value; "undecided" was the demo's word for it."""
    import pathlib

    from beyondchance.inference.significance import beats_by_interval

    assert beats_by_interval(-0.1, 0.2) == "unclear"
    root = pathlib.Path(bc.__file__).parent
    wrong = [str(p.relative_to(root)) for p in root.rglob("*.py") if "undecided" in p.read_text(encoding="utf-8")]
    assert not wrong, f"say 'unclear', not 'undecided': {wrong}"
