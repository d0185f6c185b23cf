"""Benchmark: outperformance score of labeling metrics for 10^5 (μ, π) pairs.

Target (issue "Outperformance score", benchmark (a)): ≤ 1 s per metric for 10^5 pairs.
Times the public ``outperformance_score`` (input checks included) for F1 by the paper's
closed form (eq. 7) and the exact area for F1, MCC, κ, balanced accuracy, markedness and
G-mean; then, on a random subsample, the error of the fast exact path against the general
path (brentq + scipy.integrate.quad on the metric's count definition) and the speed-up
over that path, all measured in this run.

    /work/venv/bin/python benchmarks/bench_ops_labeling.py [--pairs 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from beyondchance import outperformance_score

from beyondchance.measures import get_metric
CASES = [
    ("f1", "closed-form"),
    ("f1", "exact"),
    ("mcc", "exact"),
    ("kappa", "exact"),
    ("balanced_accuracy", "exact"),
    ("markedness", "exact"),
    ("g_mean", "exact"),
]


def _pairs(name: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    p = rng.uniform(0.001, 0.999, n)
    lo, hi = get_metric(name).range_at(p)
    mu = lo + (hi - lo) * rng.uniform(0, 1, n)
    return mu, p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", type=int, default=200, help="pairs checked against the quad path")
    args = ap.parse_args()
    rng = np.random.default_rng(2024)

    print(f"OPS of labeling metrics for {args.pairs:,} random (value, prevalence) pairs "
          f"(best of {args.repeat}; target <= 1 s)")
    print(f"{'metric':<18} {'method':<12} {'seconds':>8} {'target':>7}   "
          f"{'max |err| vs quad':>17} {'quad s/pair':>11} {'speed-up':>9}")
    for name, method in CASES:
        mu, p = _pairs(name, args.pairs, rng)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = outperformance_score(name, mu, p, method=method)
            times.append(time.perf_counter() - t0)
        best = min(times)

        m = get_metric(name)
        idx = rng.choice(args.pairs, size=min(args.check, args.pairs), replace=False)
        t0 = time.perf_counter()
        # a callable metric takes the general path (brentq + quad); same definition
        sub = outperformance_score(lambda pp, a, b: m.from_rates(pp, a, b), mu[idx], p[idx],
                                   greater_is_better=m.greater_is_better)
        ref = np.asarray(sub.score)
        per_pair = (time.perf_counter() - t0) / idx.size
        err = float(np.max(np.abs(res.score[idx] - ref)))
        speedup = per_pair * args.pairs / best
        ok = "ok" if best <= 1.0 else "SLOW"
        print(f"{name:<18} {method:<12} {best:8.3f} {ok:>7}   {err:17.2e} {per_pair:11.4f} {speedup:8.0f}x")


if __name__ == "__main__":
    main()
