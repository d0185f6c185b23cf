"""Benchmark (c): ROC AUC + average precision + ROC and PR curves on 10^7 scores.

Compares beyondchance.measures.curves with scikit-learn on the same data in one run:

* scikit-learn: ``roc_auc_score``, ``average_precision_score``, ``roc_curve``,
  ``precision_recall_curve`` (four calls, each sorting the scores again);
* beyondchance, shared statistic: ``threshold_counts`` once (one sort), then the
  two curves and the two AUCs derived from it;
* beyondchance, one call per quantity: ``roc_auc``, ``average_precision``,
  ``roc_curve``, ``precision_recall_curve`` (each rebuilds the statistic), for an
  honest per-call comparison.

The results are checked against scikit-learn (AUCs to 1e-12, curves point by point).

Usage::

    python benchmarks/bench_curves.py [--n 10000000] [--repeat 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn import metrics as skm

import beyondchance as bc


def make_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Binary labels (~10% positive) and informative scores, 30% of them rounded (ties)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(np.int64)
    s = rng.normal(size=n) + 1.2 * y
    tied = rng.random(n) < 0.3
    s[tied] = np.round(s[tied], 2)
    return y, s


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def run_sklearn(y, s):
    times = {}
    res = {}
    res["roc_auc"], times["roc_auc"] = timed(skm.roc_auc_score, y, s)
    res["ap"], times["average_precision"] = timed(skm.average_precision_score, y, s)
    res["roc"], times["roc_curve"] = timed(skm.roc_curve, y, s, drop_intermediate=False)
    res["pr"], times["precision_recall_curve"] = timed(skm.precision_recall_curve, y, s, drop_intermediate=False)
    return res, times


def run_shared(y, s):
    t0 = time.perf_counter()
    counts, t_stat = timed(bc.threshold_counts, y, s)
    roc = counts.curve("roc")
    pr = counts.curve("pr")
    res = {"roc_auc": roc.auc(), "ap": pr.auc(), "roc": roc, "pr": pr, "counts": counts}
    return res, {"statistic": t_stat, "total": time.perf_counter() - t0}


def run_per_call(y, s):
    times = {}
    res = {}
    res["roc_auc"], times["roc_auc"] = timed(bc.roc_auc, y, s)
    res["ap"], times["average_precision"] = timed(bc.average_precision, y, s)
    res["roc"], times["roc_curve"] = timed(bc.roc_curve, y, s)
    res["pr"], times["precision_recall_curve"] = timed(bc.precision_recall_curve, y, s)
    return res, times


def check(sk, ours) -> None:
    assert abs(sk["roc_auc"] - ours["roc_auc"]) < 1e-12, (sk["roc_auc"], ours["roc_auc"])
    assert abs(sk["ap"] - ours["ap"]) < 1e-12, (sk["ap"], ours["ap"])
    fpr, tpr, thr = sk["roc"]
    roc = ours["roc"]
    assert np.array_equal(thr, roc.thresholds)
    assert np.max(np.abs(fpr - roc.x)) < 1e-12 and np.max(np.abs(tpr - roc.y)) < 1e-12
    precision, recall, thr_pr = sk["pr"]
    pr = ours["pr"]
    # scikit-learn: increasing thresholds, plus a final (recall 0, precision 1) point
    assert np.array_equal(thr_pr[::-1], pr.thresholds[1:])
    assert np.max(np.abs(recall[::-1][1:] - pr.x[1:])) < 1e-12
    assert np.max(np.abs(precision[::-1][1:] - pr.y[1:])) < 1e-12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=1, help="repetitions (best time is reported)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    y, s = make_data(args.n, args.seed)
    n_distinct = np.unique(s).size
    print(f"n = {args.n:,}  positives = {y.mean():.4f}  distinct scores = {n_distinct:,}")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (single-threaded code)")

    best_sk = best_shared = best_call = None
    for _ in range(args.repeat):
        sk, t_sk = run_sklearn(y, s)
        ours, t_ours = run_shared(y, s)
        call, t_call = run_per_call(y, s)
        check(sk, ours)
        check(sk, call)
        if best_sk is None or sum(t_sk.values()) < sum(best_sk.values()):
            best_sk = t_sk
        if best_shared is None or t_ours["total"] < best_shared["total"]:
            best_shared = t_ours
        if best_call is None or sum(t_call.values()) < sum(best_call.values()):
            best_call = t_call
        del sk, ours, call

    print(f"load average after: {os.getloadavg()[0]:.2f}; best of {args.repeat} run(s) per side")
    total_sk = sum(best_sk.values())
    total_call = sum(best_call.values())
    print("results agree with scikit-learn (AUCs to 1e-12, curves point by point)")
    print()
    print(f"{'quantity':26s} {'scikit-learn':>13s} {'beyondchance':>13s} {'ratio':>7s}")
    for key in best_sk:
        print(f"{key:26s} {best_sk[key]:12.3f}s {best_call[key]:12.3f}s {best_sk[key] / best_call[key]:6.1f}x")
    print(f"{'sum of the four calls':26s} {total_sk:12.3f}s {total_call:12.3f}s {total_sk / total_call:6.1f}x")
    print()
    print(
        f"all four from one statistic: {best_shared['total']:.3f}s "
        f"(statistic {best_shared['statistic']:.3f}s, curves + AUCs "
        f"{best_shared['total'] - best_shared['statistic']:.3f}s)"
    )
    print(f"speed-up vs scikit-learn's four calls: {total_sk / best_shared['total']:.1f}x")


if __name__ == "__main__":
    main()
