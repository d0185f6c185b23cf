"""``evaluate(y, y_score)`` keeps no second full-size copy of its rows (issue 12 (b): the peak
memory of 10 million rows).

Nothing here is timed: the arrays of the rows' length that are alive at three moments are
counted by :mod:`tracemalloc` (numpy's buffers are traced; the inputs, made before tracing
starts, are not).  On ``n`` continuous scores (all distinct) the score counts of the report
(:class:`~beyondchance.measures.curves.ThresholdCounts`: thresholds, tps and fps, each n + 1
long) are the three arrays the report needs; issue 36's memory scan kept besides them the
labels' codes it had encoded once (n integers) through the whole report, the weights per
distinct score (two more arrays of n) through the score bootstrap, and a reference cycle
(the statistics ↔ their row source) kept everything alive after the call until the garbage
collector ran: repeated calls piled up 240 MB each at 10 million rows.
"""

from __future__ import annotations

import gc
import importlib
import tracemalloc

import numpy as np
import pytest

from beyondchance.measures.binary_scores import ScoreCells
from beyondchance.report import evaluate

evaluate_module = importlib.import_module("beyondchance.report.evaluate")  # the name is the function's too

N = 1_000_000  # large enough that a column (8 MB) stands out from the bootstrap's chunks (2 MB)
SEED = 0


@pytest.fixture
def rows() -> tuple[np.ndarray, np.ndarray]:
    """benchmarks/bench_issue12.py's rows (b): int8 labels at 10 % prevalence, float64 scores."""
    print(f"seed {SEED}, {N:,} rows")
    rng = np.random.default_rng(SEED)
    y = (rng.random(N) < 0.1).astype(np.int8)
    return y, rng.random(N) * 0.6 + 0.4 * y


def _columns_alive() -> int:
    """Traced blocks at least as large as a float64 column of the N rows."""
    return sum(1 for t in tracemalloc.take_snapshot().traces if t.size >= 8 * N)


@pytest.fixture
def traced(rows):
    """The rows, made before tracemalloc starts (not counted); the garbage collector off (a cycle's
    arrays then stay counted); both restored after."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        yield rows
    finally:
        tracemalloc.stop()
        if enabled:
            gc.enable()


def test_the_report_and_its_bootstrap_hold_only_the_score_counts(traced, monkeypatch):
    y, s = traced
    seen: dict[str, int] = {}
    build, bootstrap = evaluate_module.report_from_statistics, ScoreCells.bootstrap

    def counted_build(*args, **kwargs):
        seen["report"] = _columns_alive()
        return build(*args, **kwargs)

    def counted_bootstrap(self, *args, **kwargs):
        seen["bootstrap"] = _columns_alive()
        return bootstrap(self, *args, **kwargs)

    monkeypatch.setattr(evaluate_module, "report_from_statistics", counted_build)
    monkeypatch.setattr(ScoreCells, "bootstrap", counted_bootstrap)
    report = evaluate(y, s)
    assert report.task == "binary-scores"
    assert seen == {"report": 3, "bootstrap": 3}  # thresholds, tps, fps; no labels' codes, no weights per score


def test_evaluate_frees_its_arrays_without_the_garbage_collector(traced):
    y, s = traced
    report = evaluate(y, s)
    assert report.task == "binary-scores"
    del report
    assert _columns_alive() == 0
