"""Benchmark: a multi-class labels report (``ci=False``, the command line's ``--no-ci``;
``--ci``: with its intervals) as the number of classes K grows, against scikit-learn on the same arrays, same run.

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

With ``--ci`` the report is timed with its intervals and p-values on (the default 2,000
resamples), alone: the cell bootstrap of the nine metrics (one set of draws), the
per-class intervals and the permutation test draw B resamples of at most n non-empty
cells and sum each to its row, column and diagonal totals, O(n + K) per resample; they
used to build B·K² matrices (1,000 rows: 300 classes ≈ 47 s, 1,000 classes out of memory).

    python benchmarks/bench_many_classes.py                     # K = 10, 100, 1,000, 10⁴ on 10⁵ rows
    python benchmarks/bench_many_classes.py --rows 1000 --classes 100 300 1000 --repeat 3
    python benchmarks/bench_many_classes.py --ci --rows 10000   # intervals on
    python benchmarks/bench_many_classes.py --ci --quick        # K = 10, 100 on 2,000 rows, 200 resamples
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


def ours(y: np.ndarray, p: np.ndarray, n_resamples: int = 0):
    """The report; ``n_resamples`` > 0: with intervals and p-values of that many resamples."""
    from beyondchance import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(y, y_pred=p, ci=n_resamples > 0, n_resamples=max(n_resamples, 2000),
                        task="multiclass-labels", random_state=0)


def with_intervals(classes: list[int], rows: int, repeat: int, n_resamples: int) -> None:
    """The table of the report with intervals on (``--ci``)."""
    import resource

    print(f"multi-class labels report with intervals, {rows:,} rows, {n_resamples:,} resamples; best of {repeat}")
    header = f"{'classes':>8} {'non-empty cells':>16} {'report (s)':>11} {'peak RSS (MB)':>14}  accuracy [interval]"
    print(header)
    print("-" * len(header))
    for k in classes:
        y, p = make_labels(k, rows)
        cells = np.unique(y.astype(np.int64) * k + p).size
        t, report = best_of(lambda y=y, p=p: ours(y, p, n_resamples), repeat)
        ci = report["accuracy"].ci
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{k:>8,} {cells:>16,} {t:>11.3f} {rss:>14.0f}  {report['accuracy'].value:.4f} "
              f"[{ci.low:.4f}, {ci.high:.4f}]", flush=True)


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
    ap.add_argument("--ci", action="store_true", help="time the report with its intervals and p-values on")
    ap.add_argument("--n-resamples", type=int, default=2000)
    ap.add_argument("--quick", action="store_true", help="--ci on K = 10, 100, 2,000 rows, 200 resamples (tests)")
    args = ap.parse_args()
    if args.quick:
        args.ci, args.rows, args.classes, args.n_resamples = True, 2000, [10, 100], 200
    if args.ci:
        ours(*make_labels(3, 100), n_resamples=200)  # imports and first-use costs out of the timings
        with_intervals(args.classes, args.rows, args.repeat, args.n_resamples)
        return

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
