"""Coverage of the per-class intervals of the reports (issue 14, item 4): test sets drawn
from a known 3 x 3 confusion distribution; the share of 95% percentile intervals (cell
resamples) that hold the true one-vs-rest precision, recall and F1.

    PYTHONPATH=src python benchmarks/per_class_coverage.py [n_sets] [n_rows] [n_resamples]

tests/test_per_class.py runs the quick mode (200 sets of 400 rows, 500 resamples).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_per_class import _coverage  # noqa: E402

if __name__ == "__main__":
    n_sets, n, b = (int(a) for a in (sys.argv[1:] + ["2000", "400", "1000"][len(sys.argv) - 1:])[:3])
    for rows in (n, 4 * n):
        cov = _coverage(n_sets, rows, b, seed=2024)
        print(f"{n_sets} sets of {rows} rows, {b} resamples, {3 * n_sets} intervals per metric: "
              + ", ".join(f"{k} {v:.4f}" for k, v in cov.items()))
