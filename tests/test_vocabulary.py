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
    by_position = bc.evaluate(y, labels, ci=False, dbt_samples=1024)
    by_name = bc.evaluate(y, y_pred=labels, ci=False, dbt_samples=1024)
    assert by_position.task == by_name.task == "binary-labels"
    assert by_position["f1"].value == by_name["f1"].value
    scores = bc.evaluate(y, y_score=s, ci=False, dbt_samples=1024)
    assert scores.task == "binary-scores" and scores["roc_auc"].value == pytest.approx(bc.roc_auc(y, s), abs=1e-12)
    both = bc.evaluate(y, s, y_pred=labels, ci=False, dbt_samples=1024)
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
