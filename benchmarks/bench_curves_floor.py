"""How close can curves + AUCs from one statistic get to ``np.sort``?  (issue 12, target (c))

Target (c) of issue 12 asks for ``threshold_counts`` + the ROC and PR curves + ROC AUC
and average precision within 2.5× of ``np.sort`` of the scores.  This script measures,
in one run on the same 10^7 scores as ``bench_issue12.py``:

1. ``np.sort(s)`` — the yardstick;
2. the class sort alone (``curves._sorted_by_class``: one integer sort with the class in
   the sign bit) — the least any curve needs, since the curve is a function of the
   scores of each class in order;
3. the floor of the outputs: the class sort plus writing the six (k + 1)-long float64
   arrays the API returns (thresholds, tps, fps, FPR, TPR, precision), each by one
   vectorised pass with no arithmetic (``np.copyto``);
4. beyondchance as it is (``threshold_counts`` + ``curve("roc")`` + ``curve("pr")`` +
   ``auc("roc")`` + ``auc("pr", method="ap")``);
5. if numba is installed (it is not a dependency): a fully fused compiled kernel — the
   class sort, then one pass merging the two sorted classes into thresholds, tps and
   fps, and one pass writing FPR, TPR and precision while summing both AUCs.

Usage::

    python benchmarks/bench_curves_floor.py [--rows 10000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from bench_issue12 import best  # the script's folder is on sys.path


def compiled_kernels():
    """The fused numba kernels, or None without numba."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(cache=False, nogil=True)
    def merge_desc(neg, pos, thr, tps, fps):  # pragma: no cover - compiled
        i, j, k, tp, fp = neg.shape[0] - 1, pos.shape[0] - 1, 0, 0.0, 0.0
        thr[0], tps[0], fps[0] = np.inf, 0.0, 0.0
        while i >= 0 or j >= 0:
            t = neg[i] if j < 0 or (i >= 0 and neg[i] >= pos[j]) else pos[j]
            while i >= 0 and neg[i] == t:
                fp += 1.0
                i -= 1
            while j >= 0 and pos[j] == t:
                tp += 1.0
                j -= 1
            k += 1
            thr[k], tps[k], fps[k] = t, tp, fp
        return k

    @numba.njit(cache=False, nogil=True)
    def rates_and_aucs(tps, fps, k, fpr, tpr, prec):  # pragma: no cover - compiled
        n_neg, n_pos, roc, ap = fps[k], tps[k], 0.0, 0.0
        fpr[0], tpr[0], prec[0] = 0.0, 0.0, 1.0
        for m in range(1, k + 1):
            tp, fp = tps[m], fps[m]
            fpr[m], tpr[m], prec[m] = fp / n_neg, tp / n_pos, tp / (tp + fp)
            roc += (fp - fps[m - 1]) * (tp + tps[m - 1])
            ap += (tp - tps[m - 1]) * prec[m]
        return roc * 0.5 / (n_neg * n_pos), ap / n_pos

    return merge_desc, rates_and_aucs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from beyondchance.measures.threshold_counts import _sorted_by_class, threshold_counts

    n = args.rows
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.1).astype(np.int64)
    s = rng.random(n) * 0.6 + 0.4 * y
    pos = y == 1
    print(f"{n:,} rows; best of {args.repeat}; CPUs {os.cpu_count()}; load average {os.getloadavg()[0]:.2f}")

    def outputs_floor():
        neg, p = _sorted_by_class(pos, s)
        for _ in range(6):
            np.copyto(np.empty(n + 1)[1:], s)

    def ours():
        tc = threshold_counts(y, s)
        tc.curve("roc"), tc.curve("pr"), tc.auc("roc"), tc.auc("pr", method="ap")

    t_sort = best(lambda: np.sort(s), args.repeat)
    rows = [("np.sort(s)", t_sort),
            ("class sort (_sorted_by_class)", best(lambda: _sorted_by_class(pos, s), args.repeat)),
            ("class sort + writing the 6 output arrays", best(outputs_floor, args.repeat)),
            ("beyondchance: counts, 2 curves, 2 AUCs", best(ours, args.repeat))]
    kernels = compiled_kernels()
    if kernels is not None:
        merge_desc, rates_and_aucs = kernels

        def fused():
            neg, p = _sorted_by_class(pos, s)
            thr, tps, fps = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1)
            k = merge_desc(neg, p, thr, tps, fps)
            return rates_and_aucs(tps, fps, k, np.empty(k + 1), np.empty(k + 1), np.empty(k + 1))

        tc = threshold_counts(y, s)
        roc, avg = fused()  # compiles
        assert abs(roc - tc.auc("roc")) < 1e-12 and abs(avg - tc.auc("pr", method="ap")) < 1e-12
        rows.append(("numba fused kernel (not a dependency)", best(fused, args.repeat)))
    else:
        print("numba is not installed: the fused-kernel row is skipped (pip install numba to measure it)")
    for label, t in rows:
        print(f"{label:<44} {t:8.3f} s   {t / t_sort:5.2f}× np.sort")


if __name__ == "__main__":
    main()
