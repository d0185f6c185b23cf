"""Coverage of the grouped Poisson bootstrap (beyondchance.inference.poisson_bootstrap) on weighted data.

Finite populations built from the bundled ISLR ``Default`` data (10 000 rows,
``beyondchance.datasets.load_r("islr_default")``), each row with a fixed sampling
weight (gamma(1.5), doubled for defaulters):

* binary: y = default, ŷ = [logistic regression score ≥ 0.2] (fitted once on the
  population); weighted F1, MCC and accuracy;
* regression: y = balance, ŷ = least-squares fit on income, student, default; weighted
  R² and MAE;
* multi-class: y = balance tercile (3 classes), probabilities of a multinomial
  logistic regression on income, student, default; weighted log loss.

Each simulation draws ``--n`` rows with replacement, computes the group totals
(memory engine, ``--groups`` groups, hash seed = simulation index) and the
``--confidence`` percentile intervals from ``--resamples`` replicates; the truth is
the population's weighted value.  Printed: coverage ± Monte Carlo standard error
sqrt(c(1 − c)/S) and the mean interval width.

Usage::

    PYTHONPATH=src python benchmarks/sim_group_bootstrap.py [--sims 500] [--n 1000] [--resamples 1000]
        [--groups 1024] [--seed 0] [--confidence 0.95]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.linear_model import LinearRegression, LogisticRegression

from beyondchance.measures.losses import _clip_proba
from beyondchance.measures.confusion import ConfusionMatrix
from beyondchance.datasets import load_r
from beyondchance.inference.poisson_bootstrap import (
    group_totals_from_arrays, labeling_intervals, probability_intervals, regression_intervals,
)


def population(seed: int) -> dict:
    data = load_r("islr_default")
    frame = data.frame
    rng = np.random.default_rng(seed)
    y = data.y
    w = rng.gamma(1.5, 1.0, y.size) * (1 + y)
    student = (frame["student"] == "Yes").to_numpy(dtype=np.float64)
    income = frame["income"].to_numpy(dtype=np.float64) / 1e4
    balance = frame["balance"].to_numpy(dtype=np.float64)
    xb = np.column_stack([balance / 1e3, income, student])
    f = (LogisticRegression().fit(xb, y).predict_proba(xb)[:, 1] >= 0.2).astype(np.int64)
    xr = np.column_stack([income, student, y])
    fr = LinearRegression().fit(xr, balance).predict(xr)
    yc = np.searchsorted(np.quantile(balance, [1 / 3, 2 / 3]), balance, side="right")
    pc = LogisticRegression(max_iter=1000).fit(xr, yc).predict_proba(xr)
    cm = ConfusionMatrix.from_predictions(y, f, sample_weight=w, labels=[0, 1], pos_label=1)
    mean = np.average(balance, weights=w)
    truth = {
        "F1": cm.metric("f1"), "MCC": cm.metric("mcc"), "accuracy": cm.metric("accuracy"),
        "R2": 1 - np.sum(w * (balance - fr) ** 2) / np.sum(w * (balance - mean) ** 2),
        "MAE": np.average(np.abs(balance - fr), weights=w),
        "log loss (3 classes)": np.average(-np.log(_clip_proba(pc[np.arange(yc.size), yc])), weights=w),
    }
    return dict(y=y, f=f, w=w, balance=balance, fr=fr, yc=yc, pc=pc, truth=truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, default=500)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--confidence", type=float, default=0.95)
    args = parser.parse_args()
    pop = population(args.seed)
    truth = pop["truth"]
    hits = {k: 0 for k in truth}
    widths = {k: 0.0 for k in truth}
    rng = np.random.default_rng(args.seed + 1)
    start = time.perf_counter()
    for s in range(args.sims):
        rows = rng.integers(0, pop["y"].size, args.n)
        w = pop["w"][rows]
        opts = dict(n_resamples=args.resamples, seed=s, confidence=args.confidence)
        t = group_totals_from_arrays("labels", pop["y"][rows], y_pred=pop["f"][rows], weight=w, labels=[0, 1],
                                     seed=s, groups=args.groups)
        got = labeling_intervals(t, ["f1", "mcc", "accuracy"], **opts).intervals
        found = {"F1": got["f1"], "MCC": got["mcc"], "accuracy": got["accuracy"]}
        t = group_totals_from_arrays("regression", pop["balance"][rows], y_pred=pop["fr"][rows], weight=w, seed=s,
                                     groups=args.groups)
        got = regression_intervals(t, **opts).intervals
        found.update({"R2": got["r2"], "MAE": got["mae"]})
        t = group_totals_from_arrays("probabilities", pop["yc"][rows], proba=pop["pc"][rows], weight=w,
                                     labels=[0, 1, 2], seed=s, groups=args.groups)
        found["log loss (3 classes)"] = probability_intervals(t, **opts).intervals["log_loss"]
        for k, (lo, hi) in found.items():
            hits[k] += lo <= truth[k] <= hi
            widths[k] += hi - lo
    seconds = time.perf_counter() - start
    print(f"grouped Poisson bootstrap: {args.sims} simulations of n = {args.n} weighted rows (ISLR Default "
          f"population, 10 000 rows), {args.resamples} replicates of {args.groups} groups each, "
          f"seed {args.seed}, {args.confidence:.0%} percentile intervals; {seconds:.0f} s")
    print(f"{'measure':<22} {'truth':>10} {'coverage':>9} {'± MC s.e.':>10} {'mean width':>11}")
    for k in truth:
        c = hits[k] / args.sims
        print(f"{k:<22} {truth[k]:>10.4f} {c:>9.3f} {np.sqrt(c * (1 - c) / args.sims):>10.3f} "
              f"{widths[k] / args.sims:>11.4f}")


if __name__ == "__main__":
    main()
