"""Benchmark: issue 12's speed targets, measured in one run (best of ``--repeat``).

(a) ``evaluate(y, y_pred)`` (binary labels, intervals and OPS) against scikit-learn's
    confusion_matrix + f1 + cohen_kappa + matthews_corrcoef + balanced_accuracy +
    accuracy on the same arrays: target ≥ 50×.
(b) ``evaluate(y, y_score)`` (intervals and OPS) against scikit-learn's roc_auc_score +
    average_precision_score + roc_curve + precision_recall_curve: target ≥ 20×, and the
    peak memory of a process doing only that (the high-water mark of a child): target ≤ 1.5 GB.
(c) ``threshold_counts`` + ROC and PR curves + both AUCs from that one statistic, against
    ``np.sort`` of the scores: target ≤ 2.5×.
(d) ``beyondchance demo`` with an empty cache directory, wall time: target ≤ 8 s.

The reference cache is a fresh temporary directory (the shipped reference is used where
it exists).  On a shared machine the ratios move with the load: the load average is
printed.

    python benchmarks/bench_issue12.py [--rows 10000000] [--repeat 3] [--skip-demo]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("BEYONDCHANCE_CACHE_DIR", tempfile.mkdtemp(prefix="bc-bench12-"))

# the child's own high-water mark: VmHWM (ru_maxrss keeps the parent's across fork/exec on Linux,
# so it reported this process's peak after the timings, not the child's)
_PEAK = """
import resource, sys, numpy as np
from beyondchance.report import evaluate
rng = np.random.default_rng(0); n = int(sys.argv[1])
y = (rng.random(n) < 0.1).astype(np.int8); s = rng.random(n) * 0.6 + 0.4 * y
evaluate(y, s)
try:
    print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def own_peak() -> float | None:
    """This process's resident high-water mark in GB (None where /proc is absent)."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) * 1024 / 1e9
    except OSError:
        return None


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def row(label: str, ours: float, theirs: float | None, ratio: float, target: str, ok: bool) -> None:
    other = "" if theirs is None else f"{theirs:9.3f} s"
    print(f"{label:<44} {ours:9.3f} s {other:>11}  ratio {ratio:7.2f}  target {target:<8} {'PASS' if ok else 'FAIL'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-demo", action="store_true")
    args = ap.parse_args()
    from sklearn import metrics as skm

    from beyondchance.measures.curves import threshold_counts
    from beyondchance.report import evaluate

    n = args.rows
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.1).astype(np.int64)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    s = rng.random(n) * 0.6 + 0.4 * y
    print(f"{n:,} rows; best of {args.repeat}; CPUs {os.cpu_count()}; load average {os.getloadavg()[0]:.2f}")
    evaluate(y[:1000], pred[:1000]), evaluate(y[:1000], s[:1000])  # imports and first-use costs out of the timings

    def sk_labels():
        skm.confusion_matrix(y, pred), skm.f1_score(y, pred), skm.cohen_kappa_score(y, pred)
        skm.matthews_corrcoef(y, pred), skm.balanced_accuracy_score(y, pred), skm.accuracy_score(y, pred)

    t_sk, t_bc = best(sk_labels, args.repeat), best(lambda: evaluate(y, pred), args.repeat)
    row("(a) evaluate(y, y_pred) vs 6 sklearn metrics", t_bc, t_sk, t_sk / t_bc, ">= 50x", t_sk / t_bc >= 50)

    def sk_scores():
        skm.roc_auc_score(y, s), skm.average_precision_score(y, s), skm.roc_curve(y, s)
        skm.precision_recall_curve(y, s)

    t_sk, t_bc = best(sk_scores, args.repeat), best(lambda: evaluate(y, s), args.repeat)
    row("(b) evaluate(y, y_score) vs 4 sklearn calls", t_bc, t_sk, t_sk / t_bc, ">= 20x", t_sk / t_bc >= 20)
    out = subprocess.run([sys.executable, "-c", _PEAK, str(n)], check=True, capture_output=True, text=True)
    peak = int(out.stdout.split()[-1]) * 1024 / 1e9
    print(f"{'    peak memory of evaluate(y, y_score)':<44} {peak:9.2f} GB{'':>24}target <= 1.5 GB {'PASS' if peak <= 1.5 else 'FAIL'}")
    if (mine := own_peak()) is not None:
        print(f"{'    (this process so far, all the calls above)':<44} {mine:9.2f} GB")

    def curves():
        tc = threshold_counts(y, s)
        tc.curve("roc"), tc.curve("pr"), tc.auc("roc"), tc.auc("pr", method="ap")

    t_sort, t_bc = best(lambda: np.sort(s), args.repeat), best(curves, args.repeat)
    row("(c) curves + AUCs from one statistic vs sort", t_bc, t_sort, t_bc / t_sort, "<= 2.5x", t_bc / t_sort <= 2.5)

    if not args.skip_demo:
        walls = []
        for _ in range(args.repeat):
            env = {**os.environ, "BEYONDCHANCE_CACHE_DIR": tempfile.mkdtemp(prefix="bc-demo-")}
            with tempfile.TemporaryDirectory() as d:
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "beyondchance.cli", "demo", "--out", os.path.join(d, "demo.html")],
                               env=env, check=True, capture_output=True)
                walls.append(time.perf_counter() - t0)
        w = min(walls)
        print(f"{'(d) demo, empty cache directory':<44} {w:9.3f} s{'':>27}target <= 8 s    {'PASS' if w <= 8 else 'FAIL'}"
              f"  (runs: {' '.join(f'{x:.2f}' for x in walls)} s)")


if __name__ == "__main__":
    main()
