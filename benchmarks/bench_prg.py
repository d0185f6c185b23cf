"""Precision-recall-gain: the OPS of AUPRG through the DBT reference.

1. the interpolation error across the logit-pi grid: interpolated against exact OPS on
   the same reference curves (no Monte Carlo noise in the difference), at OPS levels
   0.005-0.995, for pi between grid points (the protocol of bench_ops_scoring.py);
2. the cost of a first call at a new grid bracket at the default G (114,688 curves) and
   of a cached call.

    PYTHONPATH=src python benchmarks/bench_prg.py [--interp-samples 16384]

Uses a fresh cache directory (nothing of the user's cache is read or written).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--interp-samples", type=int, default=16384)
    args = parser.parse_args()
    os.environ["BEYONDCHANCE_CACHE_DIR"] = tempfile.mkdtemp(prefix="bc-prg-bench-")
    from beyondchance import outperformance_score as ops
    from beyondchance.outperformance import scoring as S

    G = args.interp_samples
    pis = [0.0023, 0.013, 0.047, 0.091, 0.19, 0.3, 0.55, 0.83, 0.94]
    print(f"Interpolation across the logit-pi grid (step {S.GRID_STEP}) for prg_auc: max |OPS_interp - OPS_exact| "
          f"over OPS levels 0.005-0.995,\nsame {G:,} curves, at pi = {pis}")
    t0 = time.perf_counter()
    errs = []
    for pi in pis:
        ref = S.reference_distribution("prg_auc", pi, mc_samples=G)
        mu = np.quantile(ref, np.linspace(0.005, 0.995, 199))
        exact = ops("prg_auc", mu, pi, mc_samples=G, interpolate=False).score
        interp = ops("prg_auc", mu, pi, mc_samples=G).score
        errs.append(float(np.max(np.abs(interp - exact))))
    j = int(np.argmax(errs))
    print(f"  prg_auc  max error {errs[j]:.5f} (at pi = {pis[j]}); per pi: {' '.join(f'{e:.4f}' for e in errs)}"
          f"  [{time.perf_counter() - t0:.0f} s]")
    print(f"  (1/G = {1 / G:.5f}; Monte Carlo SE at the default G <= {0.5 / np.sqrt(S.DEFAULT_MC_SAMPLES):.5f})")

    t0, c0 = time.perf_counter(), time.process_time()
    r = ops("prg_auc", 0.3, 0.11)
    print(f"\nfirst call at a new bracket, G = {S.DEFAULT_MC_SAMPLES:,}: wall {time.perf_counter() - t0:.1f} s, "
          f"CPU {time.process_time() - c0:.1f} s (OPS {r.score:.4f} +/- {r.standard_error:.4f})")
    t0 = time.perf_counter()
    for _ in range(20):
        ops("prg_auc", 0.3, 0.105)
    print(f"cached call (same bracket): {(time.perf_counter() - t0) / 20 * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
