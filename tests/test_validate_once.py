"""Each input is checked and its labels encoded once per ``evaluate()`` call (issue 12, item 3).

Counted on the label tasks (binary and multi-class labels) and on binary scores, with
weights: the task detection encodes the labels once and the report reuses that
encoding.  Not yet so for probabilities and regression (their detection and report
still validate separately).
"""

from __future__ import annotations

import importlib
from collections import Counter

import numpy as np
import pytest

from beyondchance.report import evaluate

# the module (the package attribute of the same name is the function)
report_evaluate = importlib.import_module("beyondchance.report.evaluate")

COUNTED = ("encode_labels", "check_sample_weight", "check_consistent_length")


@pytest.fixture
def calls(monkeypatch):
    counter: Counter = Counter()
    for name in COUNTED:
        original = getattr(report_evaluate, name)

        def counting(*args, _name=name, _original=original, **kwargs):
            counter[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(report_evaluate, name, counting)
    return counter


@pytest.mark.parametrize("k", [2, 4])
def test_label_reports_encode_and_validate_once(calls, k):
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, 500)
    pred = np.where(rng.random(500) < 0.7, y, rng.integers(0, k, 500))
    w = rng.uniform(0.5, 2.0, 500)
    r = evaluate(y, pred, sample_weight=w, ci=False)
    assert r.task == ("binary-labels" if k == 2 else "multiclass-labels")
    assert calls == Counter({name: 1 for name in COUNTED}), calls


def test_binary_score_report_encodes_and_validates_once(calls):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    s = np.clip(0.3 * y + rng.random(500) * 0.7, 0, 1)
    r = evaluate(y, s, sample_weight=rng.uniform(0.5, 2.0, 500), ci=False, dbt_samples=1024)
    assert r.task == "binary-scores"
    assert calls == Counter({name: 1 for name in COUNTED}), calls
