"""One ``evaluate()`` call checks and coerces each input once (DESIGN: ``_validation`` is the
one place inputs are checked; nothing below re-checks).

Every checking helper of :mod:`beyondchance._validation` is wrapped wherever a module of
the package looks it up; a call counts when it is not nested in another helper and its
first argument shares memory with one of the inputs (numpy inputs of the final dtypes
pass through the coercions unchanged, so a re-check of an input is seen as such).
"""

from __future__ import annotations

import sys
import warnings
from collections import Counter

import numpy as np
import pytest

import beyondchance._validation as V
from beyondchance.report import evaluate

HELPERS = (
    "as_1d", "as_float", "as_float_1d", "as_float_2d", "check_label_pair", "check_probabilities",
    "check_sample_weight", "encode_labels", "encode_label_arrays",
)


@pytest.fixture
def checks(monkeypatch):
    """Install the counters; returns (inputs registry, Counter of (helper, input name))."""
    inputs: dict[str, np.ndarray] = {}
    counts: Counter = Counter()
    depth = [0]
    originals = {name: getattr(V, name) for name in HELPERS if hasattr(V, name)}

    def wrap(name, func):
        def wrapper(*args, **kwargs):
            if depth[0] == 0 and args:
                for input_name, arr in inputs.items():
                    if isinstance(args[0], np.ndarray) and np.shares_memory(args[0], arr):
                        counts[(name, input_name)] += 1
            depth[0] += 1
            try:
                return func(*args, **kwargs)
            finally:
                depth[0] -= 1
        return wrapper

    for mod_name, mod in list(sys.modules.items()):
        if mod_name == "beyondchance" or mod_name.startswith("beyondchance."):
            for name, func in originals.items():
                if getattr(mod, name, None) is func:
                    monkeypatch.setattr(mod, name, wrap(name, func))
    return inputs, counts


def _data(task: str):
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    if task == "binary-scores":
        return y, np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    if task == "binary-labels":
        return y, rng.integers(0, 2, n)
    if task == "multiclass-labels":
        return rng.integers(0, 3, n), rng.integers(0, 3, n)
    if task == "multiclass-probabilities":
        return rng.integers(0, 3, n), rng.dirichlet(np.ones(3), n)
    t = rng.normal(size=n)
    return t, t + rng.normal(size=n)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("task", ["binary-scores", "binary-labels", "multiclass-labels",
                                  "multiclass-probabilities", "regression"])
def test_each_input_is_checked_once(checks, task, weighted):
    inputs, counts = checks
    y_true, y = _data(task)
    w = np.random.default_rng(1).random(y_true.shape[0]) if weighted else None
    inputs.update(y_true=y_true, y=y, **({"sample_weight": w} if weighted else {}))
    # the row bootstraps (weighted data, probability losses, regression) resample the rows
    # themselves: they are to be replaced by the grouped bootstrap of the statistics
    cells_only = not weighted and task in ("binary-scores", "binary-labels", "multiclass-labels")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(y_true, y, sample_weight=w, ci=cells_only, n_resamples=100, mc_samples=256)
    assert r.task == task
    repeated = {key: c for key, c in counts.items() if c > 1}
    assert not repeated, f"inputs checked more than once: {repeated}"
    encodes = sum(c for (h, name), c in counts.items() if h.startswith("encode") and name == "y_true")
    # a regression's y_true too: the one detector counts y_true's distinct values before the task
    # is known (the label scan of every engine; how many decides scores or values, engines.detect)
    assert encodes == 1
    assert sum(c for (h, name), c in counts.items() if name == "y_true") >= 1
    assert sum(c for (h, name), c in counts.items() if name == "y") >= 1
    if weighted:
        assert counts[("check_sample_weight", "sample_weight")] == 1
