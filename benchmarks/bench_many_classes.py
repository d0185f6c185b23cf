"""Benchmark: a multi-class labels report (``ci=False``, the command line's ``--no-ci``)
as the number of classes K grows, against scikit-learn on the same arrays, same run.

The report computes every default labeling metric, the best constant of each (its value
for every "always predict class c"), the advantage, the OPS and the per-class table;
scikit-learn computes the point values only: ``accuracy_score`` with the macro
``f1_score``, and ``classification_report`` (per-class precision, recall, F1).  The work
of the report grows as the rows plus K² for the confusion matrix (the constants: O(K)
each, from the class totals); it used to grow as K⁴ (1,000 rows: 300 classes 23 s, 1,000
classes over 150 s).  Goal (issue "Bounded and sealed"): 1,000 classes on 10⁵ rows in
seconds.  K is at most ``MAX_CLASSES`` = 10⁴.

The labels: class k drawn with probability ∝ (k + 1)^-½ (skewed, few ties between the
largest classes), the prediction right 60% of the time, else a class drawn uniformly.

    python benchmarks/bench_many_classes.py                     # K = 10, 100, 1,000, 10⁴ on 10⁵ rows
    python benchmarks/bench_many_classes.py --rows 1000 --classes 100 300 1000 --repeat 3
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def make_labels(k: int, rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = 1.0 / np.sqrt(np.arange(1, k + 1))
    y = rng.choice(k, size=rows, p=p / p.sum())
    pred = np.where(rng.random(rows) < 0.6, y, rng.integers(0, k, rows))
    return y, pred


def best_of(func, repeat: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out


def ours(y: np.ndarray, p: np.ndarray):
    from beyondchance import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(y, y_pred=p, ci=False, task="multiclass-labels")


def sklearn_point_values(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    import sklearn.metrics as skm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skm.accuracy_score(y, p), skm.f1_score(y, p, average="macro")


def sklearn_report(y: np.ndarray, p: np.ndarray) -> str:
    import sklearn.metrics as skm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skm.classification_report(y, p, zero_division=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--classes", type=int, nargs="+", default=[10, 100, 1_000, 10_000])
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs of each")
    args = ap.parse_args()

    ours(*make_labels(3, 100))  # imports and first-use costs out of the timings
    sklearn_point_values(*make_labels(3, 100))
    print(f"multi-class labels report, ci=False, {args.rows:,} rows; best of {args.repeat}")
    header = (f"{'classes':>8} {'report (s)':>11} {'sklearn acc+F1 (s)':>19} {'ratio':>7} "
              f"{'sklearn class. report (s)':>26} {'ratio':>7}  check")
    print(header)
    print("-" * len(header))
    for k in args.classes:
        y, p = make_labels(k, args.rows)
        t_ours, report = best_of(lambda y=y, p=p: ours(y, p), args.repeat)
        t_pv, (acc, f1) = best_of(lambda y=y, p=p: sklearn_point_values(y, p), args.repeat)
        t_cr, _ = best_of(lambda y=y, p=p: sklearn_report(y, p), args.repeat)
        same = (abs(report["accuracy"].value - acc) < 1e-12 and abs(report["f1"].value - f1) < 1e-12)
        print(f"{k:>8,} {t_ours:>11.3f} {t_pv:>19.3f} {t_ours / t_pv:>7.1f} {t_cr:>26.3f} {t_ours / t_cr:>7.1f}  "
              f"{'accuracy and macro F1 equal' if same else 'DIFFERENT VALUES'}")


if __name__ == "__main__":
    main()
