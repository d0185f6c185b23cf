"""Time bootstrap_ci against scipy.stats.bootstrap (paired, vectorized) in one run.

For each measure: our percentile and BCa intervals, and scipy.stats.bootstrap on the
same data with the same number of resamples and the same statistic written as a
vectorised numpy function (the fastest way to use scipy here).  Printed: seconds,
the ratio scipy / ours, and both intervals (they must agree up to Monte Carlo error;
the column "|Δ|/SE" is the largest end-point difference in units of the bootstrap
standard error).

scipy's BCa computes an exact jackknife with n leave-one-out evaluations of a
statistic over n - 1 points (O(n²)); at n = 10^5 that takes about a minute per
statistic on this machine, so by default it is run at full size for accuracy only and
for every measure in a second table at n = 10^4 (``--scipy-bca-all`` runs them all at
full size).

The prediction advantage is timed three ways: "(callable)" passes the function
behind an opaque wrapper (bootstrap_ci's generic path, one call per resample),
"(fast)" passes the function itself (per-resample sums; same seed, same resamples, so
the largest difference of the two bootstrap distributions is printed too), and scipy.
A first table times ways of drawing the resample counts (the floor of every row path).

Usage::

    /work/venv/bin/python benchmarks/bench_bootstrap.py [--n 100000] [--resamples 2000]
        [--only "PA squared" "PA log" ...] [--no-draws] [--small-n 0]
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings
from typing import Any, Callable

import numpy as np
import scipy.stats as sps

import beyondchance as bc

# --- the statistics, vectorised along the last axis, for scipy ------------------------


def _counts(yt, yp, axis=-1):
    tp = np.sum(yt & yp, axis=axis, dtype=np.float64)
    fp = np.sum(~yt & yp, axis=axis, dtype=np.float64)
    fn = np.sum(yt & ~yp, axis=axis, dtype=np.float64)
    n = yt.shape[axis]
    return tp, fp, fn, n - tp - fp - fn


def s_accuracy(yt, yp, axis=-1):
    return np.mean(yt == yp, axis=axis)


def s_f1(yt, yp, axis=-1):
    tp, fp, fn, _ = _counts(yt, yp, axis)
    return 2 * tp / (2 * tp + fp + fn)


def s_mcc(yt, yp, axis=-1):
    tp, fp, fn, tn = _counts(yt, yp, axis)
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def s_pure_accuracy(yt, yp, axis=-1):
    p = np.mean(yt, axis=axis)
    q = np.mean(yp, axis=axis)
    ra = p * q + (1 - p) * (1 - q)
    return (np.mean(yt == yp, axis=axis) - ra) / (1 - ra)


def s_pa01(yt, yp, axis=-1):
    # the BMP (majority class) is re-estimated in every resample
    p = np.mean(yt, axis=axis)
    return 1 - np.mean(yt != yp, axis=axis) / np.minimum(p, 1 - p)


def s_pa_squared(y, f, axis=-1):
    # the BMP of the squared loss is the mean, re-estimated in every resample
    mean = np.mean(y, axis=axis, keepdims=True)
    return 1 - np.sum((y - f) ** 2, axis=axis) / np.sum((y - mean) ** 2, axis=axis)


def s_pa_log(y, q, axis=-1):
    # the BMP of the log loss is the resample's prior p; its risk is the entropy H(p)
    p = np.mean(y, axis=axis)
    entropy = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    logloss = -np.mean(y * np.log(q) + (1 - y) * np.log(1 - q), axis=axis)
    return 1 - logloss / entropy


def s_pa_absolute(y, f, axis=-1):
    # the BMP of the absolute loss is the resample's median
    med = np.median(y, axis=axis, keepdims=True)
    return 1 - np.sum(np.abs(y - f), axis=axis) / np.sum(np.abs(y - med), axis=axis)


_REAL_STATS = (s_pa_squared, s_pa_log, s_pa_absolute)


def _cases(n: int, seed: int) -> list[tuple[str, Any, Callable, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    p = np.where(rng.random(n) < 0.85, y, ~y)
    yi, pi = y.astype(np.int64), p.astype(np.int64)
    yr = rng.gamma(2.0, 1.0, n)
    fr = yr + rng.normal(0, 0.8, n)
    cases = [
        ("accuracy", "accuracy", s_accuracy, yi, pi),
        ("f1", "f1", s_f1, yi, pi),
        ("mcc", "mcc", s_mcc, yi, pi),
        ("pure accuracy (name)", "pure_accuracy", s_pure_accuracy, yi, pi),
        ("pure accuracy (callable)", bc.pure_accuracy, s_pure_accuracy, yi, pi),
        ("PA 0/1 (name)", "prediction_advantage", s_pa01, yi, pi),
    ]
    yc = (rng.random(n) < 0.3).astype(np.int64)
    qc = np.clip(np.where(yc == 1, rng.beta(4, 2, n), rng.beta(2, 4, n)), 1e-6, 1 - 1e-6)
    pa = bc.prediction_advantage

    def opaque(loss):  # the function behind a wrapper: bootstrap_ci's generic callable path
        def measure(yt, yp, sample_weight=None):
            return pa(yt, yp, loss=loss, sample_weight=sample_weight)
        measure.__name__ = "prediction_advantage"
        return measure

    def fast(loss):  # the function itself (here with its loss bound): the sums fast path
        return functools.partial(pa, loss=loss)

    cases += [
        ("PA 0/1 (callable)", opaque("zero_one"), s_pa01, yi, pi),
        ("PA squared (callable)", opaque("squared"), s_pa_squared, yr, fr),
        ("PA squared (fast)", fast("squared"), s_pa_squared, yr, fr),
        ("PA log loss (callable)", opaque("log_loss"), s_pa_log, yc, qc),
        ("PA log loss (fast)", fast("log_loss"), s_pa_log, yc, qc),
        ("PA absolute (callable)", opaque("absolute"), s_pa_absolute, yr, fr),
        ("PA absolute (fast)", fast("absolute"), s_pa_absolute, yr, fr),
    ]
    return cases


def _scipy_data(stat: Callable, yt: np.ndarray, yp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if stat in _REAL_STATS:
        return yt.astype(np.float64), yp
    return yt.astype(bool), yp.astype(bool)


def _time(func: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = func()
    return time.perf_counter() - t0, out


def _ours(measure, yt, yp, method, b, seed):
    return _time(lambda: bc.bootstrap_ci(measure, yt, yp, n_resamples=b, method=method, random_state=seed))


def _scipy(stat, yt, yp, method, b, seed, batch):
    data = _scipy_data(stat, yt, yp)
    return _time(
        lambda: sps.bootstrap(
            data, stat, paired=True, vectorized=True, n_resamples=b, method=method,
            batch=batch, rng=np.random.default_rng(seed),
        )
    )


def _draw_table(n: int, b: int, seed: int) -> None:
    """Ways to draw B resamples of n rows as count vectors, timed on a share of B."""
    from beyondchance.inference.bootstrap_resampling import _chunk_size, _draw_counts

    chunk = _chunk_size(2 * n, b)  # what bootstrap_ci uses for n rows
    timed = max(chunk, min(b, 200))
    rng = np.random.default_rng(seed)
    m = np.ones(n, dtype=np.int64)
    p = np.full(n, 1.0 / n)

    def in_chunks(draw):
        done = 0
        while done < timed:
            size = min(chunk, timed - done)
            draw(size)
            done += size

    def int_bincount_flat(size):  # one bincount over the chunk, rows offset
        idx = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
        return np.bincount(idx.ravel(), minlength=size * n).reshape(size, n)

    methods = [
        ("integers(int32) + bincount per row [used]", lambda size: _draw_counts(rng, m, n, size)),
        ("integers(int64) + one flat bincount", int_bincount_flat),
        ("multinomial(n, 1/n, size=chunk)", lambda size: rng.multinomial(n, p, size=size)),
        ("poisson(1) [NOT the same distribution]", lambda size: rng.poisson(1.0, size=(size, n))),
    ]
    print(f"Drawing the counts of B = {b:,} resamples of n = {n:,} rows (chunks of {chunk}; "
          f"timed on {timed} resamples, scaled to B)")
    head = f"{'method':<44}{'ms / resample':>14}{'s for B':>9}"
    print(head)
    print("-" * len(head))
    for label, draw in methods:
        sec, _ = _time(lambda: in_chunks(draw))
        print(f"{label:<44}{1e3 * sec / timed:>14.3f}{sec * b / timed:>9.2f}")
    print()


def _diff(ours, ref) -> float:
    se = ref.standard_error
    ci = ref.confidence_interval
    return max(abs(ours.low - ci.low), abs(ours.high - ci.high)) / se


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--small-n", type=int, default=10_000, help="n of the all-measures BCa table")
    ap.add_argument("--scipy-bca-all", action="store_true", help="scipy BCa for every measure at --n")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None,
                    help="run only the rows whose label contains one of these strings")
    ap.add_argument("--no-draws", action="store_true", help="skip the table of count-drawing methods")
    args = ap.parse_args()
    b, n = args.resamples, args.n
    batch = max(1, 4_000_000 // n)  # bounds scipy's memory (batch x n per sample)

    def selected(cases):
        if not args.only:
            return cases
        return [c for c in cases if any(key.lower() in c[0].lower() for key in args.only)]

    if not args.no_draws:
        _draw_table(n, b, args.seed)

    print(f"bootstrap_ci vs scipy.stats.bootstrap(paired=True, vectorized=True, batch={batch}); "
          f"n = {n:,}, B = {b:,}, numpy {np.__version__}, scipy {__import__('scipy').__version__}")
    head = (f"{'measure':<26}{'ours pct s':>11}{'ours BCa s':>11}{'scipy pct s':>12}{'ratio pct':>10}"
            f"{'scipy BCa s':>12}{'ratio BCa':>10}{'|Δ|/SE pct':>11}{'|Δ|/SE BCa':>11}  jackknife")
    print(head)
    print("-" * len(head))
    runs = {}
    for label, measure, stat, yt, yp in selected(_cases(n, args.seed)):
        t_pct, r_pct = _ours(measure, yt, yp, "percentile", b, 1)
        t_bca, r_bca = _ours(measure, yt, yp, "bca", b, 1)
        runs[label] = (t_pct, r_pct, t_bca, r_bca)
        s_pct, ref_pct = _scipy(stat, yt, yp, "percentile", b, 2, batch)
        if args.scipy_bca_all or label == "accuracy":
            s_bca, ref_bca = _scipy(stat, yt, yp, "BCa", b, 2, batch)
            bca_cols = f"{s_bca:>12.2f}{s_bca / t_bca:>10.3g}"
            d_bca = f"{_diff(r_bca, ref_bca):>11.2f}"
        else:
            bca_cols, d_bca = f"{'(small n)':>12}{'':>10}", f"{'':>11}"
        print(f"{label:<26}{t_pct:>11.3f}{t_bca:>11.3f}{s_pct:>12.2f}{s_pct / t_pct:>10.3g}"
              f"{bca_cols}{_diff(r_pct, ref_pct):>11.2f}{d_bca}  {r_bca.jackknife}")

    pairs = [(lab, lab.replace("(fast)", "(callable)")) for lab in runs if lab.endswith("(fast)")]
    pairs = [(f, c) for f, c in pairs if c in runs]
    if pairs:
        print("\nPA fast path vs the generic callable path, same seed (so the same resamples)")
        head3 = (f"{'loss':<14}{'fast pct s':>11}{'call pct s':>11}{'speed-up':>9}{'fast BCa s':>11}"
                 f"{'call BCa s':>11}{'speed-up':>9}{'max |Δθ*|':>11}  BCa jackknife fast / callable")
        print(head3)
        print("-" * len(head3))
        for f, c in pairs:
            tf, rf, tfb, rfb = runs[f]
            tc, rc, tcb, rcb = runs[c]
            diff = np.nanmax(np.abs(rf.distribution - rc.distribution))
            print(f"{f.split('(')[0].replace('PA ', ''):<14}{tf:>11.2f}{tc:>11.2f}{tc / tf:>9.3g}{tfb:>11.2f}"
                  f"{tcb:>11.2f}{tcb / tfb:>9.3g}{diff:>11.1e}  {rfb.jackknife} / {rcb.jackknife}")

    if not args.scipy_bca_all and args.small_n:
        n2 = args.small_n
        batch2 = max(1, 4_000_000 // n2)
        print(f"\nBCa at n = {n2:,}, B = {b:,} (scipy's exact jackknife is O(n^2))")
        head2 = f"{'measure':<26}{'ours BCa s':>11}{'scipy BCa s':>12}{'ratio':>8}{'|Δ|/SE':>8}  ours / scipy interval"
        print(head2)
        print("-" * len(head2))
        for label, measure, stat, yt, yp in selected(_cases(n2, args.seed)):
            t_bca, r_bca = _ours(measure, yt, yp, "bca", b, 1)
            s_bca, ref = _scipy(stat, yt, yp, "BCa", b, 2, batch2)
            ci = ref.confidence_interval
            print(f"{label:<26}{t_bca:>11.3f}{s_bca:>12.2f}{s_bca / t_bca:>8.3g}{_diff(r_bca, ref):>8.2f}"
                  f"  [{r_bca.low:.4f}, {r_bca.high:.4f}] / [{ci.low:.4f}, {ci.high:.4f}]")


if __name__ == "__main__":
    main()
