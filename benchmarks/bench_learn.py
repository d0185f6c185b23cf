"""Kernel logistic regression + threshold search: where the time goes, and what the
Pure Accuracy paper's full Tables 3–8 protocol would cost on this machine.

    /work/venv/bin/python benchmarks/bench_learn.py [--repeats 3] [--quick]

Part 1 times each stage of ``KernelLogisticRegression.fit`` and of the plug-in
threshold search on synthetic data (2,000 × 30 and 5,000 × 50; the KLR is trained on
60 % as in the 3:1:1 protocol, probabilities are computed for the other 40 %).

Part 2 measures, on every bundled KEEL data set of Table 2 at its real size, one
protocol cell — one split, one noise level: KLR fits for the 6 γ values, predictions
on validation and test, and the threshold searches of the 7 methods (τ-interval for
the 4 τ values) — and multiplies by the 30 splits × 3 noise levels of SPEC §2.  The
KLR fit per (split, noise, γ) is shared by all methods and τ values.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

from beyondchance.datasets import KEEL_DATASETS, load_keel
from beyondchance.learn import KernelLogisticRegression, choose_threshold
from beyondchance.learn import klr as klr_module

GAMMAS = [2.0**-4, 2.0**-2, 2.0**0, 2.0**2, 2.0**4, 2.0**6]
TAUS = [0.1, 0.2, 0.3, 0.4]
METHODS = ["fixed-0.5", "p-cut", "bisection-f1", "grid", "s2", "bisection-pa"]  # + tau-interval × 4
SPLITS, NOISE_LEVELS = 30, 3


def best_of(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def threshold_searches(y_val, eta_val):
    for method in METHODS:
        choose_threshold(y_val, eta_val, strategy=method)
    for tau in TAUS:
        choose_threshold(y_val, eta_val, strategy="tau-interval", tau=tau)


def part1(repeats):
    print("Part 1 — KernelLogisticRegression(gamma=1/d, C=1) + threshold search, best of", repeats)
    header = f"{'data':>10s} {'n_fit':>6s} {'kernel':>8s} {'cholesky':>9s} {'L-BFGS':>8s} {'iters':>6s} " \
             f"{'rank':>5s} {'predict':>8s} {'search':>8s} {'fit()':>8s}  slowest"
    print(header)
    threading_note = []
    for n, d in ((2000, 30), (5000, 50)):
        X, y = make_classification(n, d, n_informative=10, weights=[0.8], flip_y=0.03, random_state=0)
        X = MinMaxScaler().fit_transform(X)
        X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, test_size=0.4, stratify=y, random_state=0)
        gamma, C = 1.0 / d, 1.0
        sw = np.ones(y_fit.size)
        t_kernel, K = best_of(lambda: rbf_kernel(X_fit, gamma=gamma), repeats)

        def factor():
            with klr_module._single_threaded_blas():
                return klr_module._pivoted_cholesky_features(K.copy(), 1e-10)

        t_chol, (phi, _, _) = best_of(factor, repeats)

        def solve():
            with klr_module._single_threaded_blas():
                return klr_module._fit_penalised_logistic(phi, y_fit, 2, sw, C, True, 1e-9, 1000)

        t_lbfgs, (_, _, res) = best_of(solve, repeats)
        t_lbfgs_threads, _ = best_of(
            lambda: klr_module._fit_penalised_logistic(phi, y_fit, 2, sw, C, True, 1e-9, 1000), repeats)
        threading_note.append(f"{n}x{d}: L-BFGS {t_lbfgs:.3f} s single-threaded BLAS vs "
                              f"{t_lbfgs_threads:.3f} s default BLAS threading")
        model = KernelLogisticRegression(gamma=gamma, C=C)
        t_fit, _ = best_of(lambda: model.fit(X_fit, y_fit), repeats)
        t_pred, proba = best_of(lambda: model.predict_proba(X_rest), repeats)
        eta = proba[:, 1]
        t_search, _ = best_of(lambda: threshold_searches(y_rest, eta), repeats)
        parts = {"kernel": t_kernel, "cholesky": t_chol, "L-BFGS": t_lbfgs, "predict_proba": t_pred,
                 "threshold search (10)": t_search}
        slowest = max(parts, key=parts.get)
        print(f"{n}x{d:<5d} {y_fit.size:6d} {t_kernel:8.3f} {t_chol:9.3f} {t_lbfgs:8.3f} {res.nit:6d} "
              f"{phi.shape[1]:5d} {t_pred:8.3f} {t_search:8.4f} {t_fit:8.3f}  {slowest}")
    print("(seconds; 'search' = 6 methods + tau-interval for 4 τ on the 40 % held out; "
          "fit() = the public fit, kernel + Cholesky + L-BFGS + back-substitution)")
    print("why fit() runs its L-BFGS loop with one BLAS thread: " + "; ".join(threading_note))


def protocol_cell(name, seed=0):
    """One split and noise level of the protocol for one data set: 6 KLR fits, their
    predictions on validation and test, and the 10 threshold searches per fit."""
    data = load_keel(name)
    X_tv, X_te, y_tv, y_te = train_test_split(data.X, data.y, test_size=0.2, stratify=data.y, random_state=seed)
    X_tr, X_va, y_tr, y_va = train_test_split(X_tv, y_tv, test_size=0.25, stratify=y_tv, random_state=seed)
    scaler = MinMaxScaler().fit(X_tr)
    X_tr, X_va, X_te = scaler.transform(X_tr), np.clip(scaler.transform(X_va), 0, 1), np.clip(scaler.transform(X_te), 0, 1)
    t = {"fit": 0.0, "predict": 0.0, "search": 0.0}
    iters = []
    for gamma in GAMMAS:
        t0 = time.perf_counter()
        model = KernelLogisticRegression(gamma=gamma, C=10.0).fit(X_tr, y_tr)
        t1 = time.perf_counter()
        eta_va = model.predict_proba(X_va)[:, 1]
        model.predict_proba(X_te)
        t2 = time.perf_counter()
        threshold_searches(y_va, eta_va)
        t3 = time.perf_counter()
        t["fit"] += t1 - t0
        t["predict"] += t2 - t1
        t["search"] += t3 - t2
        iters.append(model.n_iter_)
    return name, y_tr.size, t, iters


def part2(jobs):
    names = [n for n in KEEL_DATASETS if n != "haberman"]
    print(f"\nPart 2 — one protocol cell per data set (6 γ fits, C = 10, + predictions + 7 methods × τ),"
          f" measured; projected × {SPLITS} splits × {NOISE_LEVELS} noise levels")
    print(f"{'data set':20s} {'n_train':>7s} {'fit':>7s} {'predict':>8s} {'search':>7s} {'cell':>7s} "
          f"{'projected':>10s} {'L-BFGS iters':>14s}")
    t0 = time.perf_counter()
    cells = [protocol_cell(name) for name in names]
    wall_seq = time.perf_counter() - t0
    total = {"fit": 0.0, "predict": 0.0, "search": 0.0}
    for name, n_tr, t, iters in cells:
        cell = sum(t.values())
        for k in total:
            total[k] += t[k]
        print(f"{name:20s} {n_tr:7d} {t['fit']:7.3f} {t['predict']:8.3f} {t['search']:7.3f} {cell:7.3f} "
              f"{cell * SPLITS * NOISE_LEVELS / 60:9.2f}m {min(iters):>6d}-{max(iters):<6d}")
    cell_sum = sum(total.values())
    proj = cell_sum * SPLITS * NOISE_LEVELS
    print(f"{'all 14':20s} {'':7s} {total['fit']:7.3f} {total['predict']:8.3f} {total['search']:7.3f} "
          f"{cell_sum:7.3f} {proj / 60:9.2f}m")
    print(f"slowest part: {max(total, key=total.get)} ({max(total.values()) / cell_sum:.0%} of the time)")
    print(f"projected full protocol (14 × 30 × 3 × 6 = {14 * SPLITS * NOISE_LEVELS * 6} KLR fits), "
          f"one process: {proj / 60:.1f} min (wall time of the measured cells: {wall_seq:.1f} s)")
    if jobs > 1:
        t0 = time.perf_counter()
        Parallel(n_jobs=jobs)(delayed(protocol_cell)(name) for name in names)
        wall_par = time.perf_counter() - t0
        print(f"the same 14 cells with joblib n_jobs={jobs}: {wall_par:.1f} s wall, including the start "
              f"of the worker processes => at most {wall_par * SPLITS * NOISE_LEVELS / 60:.1f} min")
    print("target: ≤ 30 min on this 2-core machine")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="part 1 only")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()}")
    part1(args.repeats)
    if not args.quick:
        part2(args.jobs)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
