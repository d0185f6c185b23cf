"""Simulation study of multi-class monitoring (beyondchance.monitoring.decomposition_multiclass).

Population: the bundled credit data (modeldata_credit_data), the target its ``Home``
column restricted to its three largest classes (owner, rent, parents).  A multinomial
logistic regression on the other columns is trained on a random half; its predicted
labels on the other half (the *pool*) define the class-conditional confusion rates
R[k, j] = P(predicted j | true k).

* type I   — reference (n rows at the pool's class distribution) and test set (n rows at
             a class distribution π) drawn class-wise from the pool (rows of class k
             resampled from the pool's class k): the classifier is the same; the share of
             replicates where ``compare`` says "the classifier changed" (Holm over the
             classes) is counted.
* power    — the same with a share f of the test set's predictions replaced by a class
             drawn uniformly at random.
* coverage — of the decomposition's intervals for the expected value (truth: the pool's
             confusion rates at π) and of the classifier effect (truth 0 without noise).
* probabilities — the model's class probabilities (``predict_proba``), reference and test
             set drawn class-wise from the pool as above: coverage of the intervals of the
             expected one-vs-rest ROC AUCs (macro, weighted), log loss and Brier score
             (truth: the pool's class-conditional distributions at π,
             :mod:`beyondchance.monitoring.probabilities`) and of their classifier effect (truth 0).
* probability tests — the verdict of ``compare`` on class probabilities: the share of
             replicates where "the classifier changed" (Holm over the 3 per-class tests and
             the classifier effects of the macro and weighted one-vs-rest ROC AUCs), reference
             and test set drawn class-wise as above; unchanged (type I), and with a share f
             of the test set's rows given their two non-maximal probabilities swapped (the
             predicted labels, so the per-class tests, unchanged: only the AUC tests can see it).
* regression — the same data, target log(Amount) from the other columns (a linear
             regression trained on a random half); reference and test sets of n rows
             resampled from the held-out half.  The share of replicates where ``compare``
             says an error measure changed (5% level, Holm over the 4 measures of the one
             test set), with the test set's predictions unchanged, with their errors scaled
             by 1.1, and with the target shifted (rows drawn with probability ∝ exp(γ·z),
             z the standardised target, errors as they come): the KS test's share too.

Usage::

    PYTHONPATH=src python benchmarks/sim_monitoring_multiclass.py [--reps 200] [--n 5000] [--resamples 500]
        [--quick] [--parts type1,power,coverage,probabilities,probability-tests,regression]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from beyondchance.measures.confusion import ConfusionMatrix
from beyondchance.datasets import load_r
from beyondchance.monitoring.decomposition_multiclass import (ClassStatistics, compare_class_classifiers, decompose_classes,
                                           decompose_distributions, metrics_at_classes)
from beyondchance.monitoring.probabilities import (DECOMPOSABLE_PROBABILITIES, ProbabilityStatistics,
                                              metrics_at_probabilities)

CLASSES = ("owner", "rent", "parents")
#: class distributions of the test sets (the pool's own is added)
DISTRIBUTIONS = ((0.8, 0.1, 0.1), (0.1, 0.8, 0.1), (0.1, 0.1, 0.8), (0.34, 0.33, 0.33), (0.05, 0.45, 0.5))
METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "f1", "mcc", "kappa")
PARTS = ("type1", "power", "coverage", "probabilities", "probability-tests", "regression")


@dataclass
class Pool:
    y: np.ndarray  # class codes 0..K-1
    pred: np.ndarray
    proba: np.ndarray  # (n, K) class probabilities

    @property
    def distribution(self) -> np.ndarray:
        return np.bincount(self.y, minlength=len(CLASSES)) / self.y.size

    def statistics(self) -> ClassStatistics:
        """The population (the pool's confusion rates)."""
        return ClassStatistics.from_confusion(_cm(self.y, self.pred))


def _cm(y: np.ndarray, pred: np.ndarray) -> ConfusionMatrix:
    k = len(CLASSES)
    return ConfusionMatrix(np.bincount(y * k + pred, minlength=k * k).reshape(k, k).astype(float), list(CLASSES))


def make_pool(seed: int = 0) -> Pool:
    frame = load_r("modeldata_credit_data").frame
    frame = frame[frame["Home"].isin(CLASSES)].dropna()
    y = frame["Home"].map({c: i for i, c in enumerate(CLASSES)}).to_numpy()
    x = frame.drop(columns=["Home"])
    x = np.asarray(__import__("pandas").get_dummies(x, drop_first=True), dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(y.size)
    train, held = idx[: idx.size // 2], idx[idx.size // 2:]
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.5))
    model.fit(x[train], y[train])
    return Pool(y[held], model.predict(x[held]), model.predict_proba(x[held]))


def draw(pool: Pool, rng: np.random.Generator, pi, n: int, noise: float = 0.0) -> ClassStatistics:
    """n rows, each of class k with probability π_k, its prediction that of a random pool row of
    class k (class-wise resampling); a share ``noise`` of the predictions replaced at random."""
    y = rng.choice(len(CLASSES), n, p=np.asarray(pi, float))
    pred = np.empty(n, dtype=int)
    for k in range(len(CLASSES)):
        rows = np.flatnonzero(y == k)
        pred[rows] = rng.choice(pool.pred[pool.y == k], rows.size)
    if noise:
        hit = rng.random(n) < noise
        pred[hit] = rng.integers(0, len(CLASSES), int(hit.sum()))
    return ClassStatistics.from_confusion(_cm(y, pred))


def rejection_rate(pool: Pool, pi, reps: int, n: int, noise: float = 0.0, seed: int = 0) -> float:
    """Share of replicates where the classifier is declared changed (5% level)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        ref = draw(pool, rng, pool.distribution, n)
        new = draw(pool, rng, pi, n, noise)
        hits += compare_class_classifiers(ref, {"new": new})[0].changed
    return hits / reps


def coverage(pool: Pool, pi, reps: int, n: int, resamples: int, seed: int = 0,
             metrics=METRICS) -> dict[str, tuple[float, float]]:
    """metric -> (coverage of expected_ci, coverage of classifier_effect_ci) without a change."""
    rng = np.random.default_rng(seed)
    truth = metrics_at_classes(pool.statistics(), np.asarray(pi, float), metrics)
    hits = {m: [0, 0, 0] for m in metrics}
    for r in range(reps):
        ref = draw(pool, rng, pool.distribution, n)
        new = draw(pool, rng, pi, n)
        for m, d in decompose_classes(ref, new, metrics, n_resamples=resamples, random_state=r).items():
            if d.expected_ci is None or d.classifier_effect_ci is None:
                continue
            t = float(truth[m])
            hits[m][0] += d.expected_ci[0] <= t <= d.expected_ci[1]
            hits[m][1] += d.classifier_effect_ci[0] <= 0 <= d.classifier_effect_ci[1]
            hits[m][2] += 1
    return {m: (h[0] / max(h[2], 1), h[1] / max(h[2], 1)) for m, h in hits.items()}


def draw_rows(pool: Pool, rng: np.random.Generator, pi, n: int) -> np.ndarray:
    """Indices of n pool rows drawn class-wise: each of class k with probability π_k, a random
    pool row of class k."""
    y = rng.choice(len(CLASSES), n, p=np.asarray(pi, float))
    idx = np.empty(n, dtype=int)
    for k in range(len(CLASSES)):
        rows = np.flatnonzero(y == k)
        idx[rows] = rng.choice(np.flatnonzero(pool.y == k), rows.size)
    return idx


def probability_coverage(pool: Pool, pi, reps: int, n: int, resamples: int, seed: int = 0,
                         metrics=DECOMPOSABLE_PROBABILITIES) -> dict[str, tuple[float, float]]:
    """metric -> (coverage of expected_ci, coverage of classifier_effect_ci) of the probability
    metrics, without a change of the classifier."""
    rng = np.random.default_rng(seed)
    labels = list(range(len(CLASSES)))
    truth = metrics_at_probabilities(ProbabilityStatistics.from_rows(pool.y, pool.proba, labels),
                                     np.asarray(pi, float), metrics)
    hits = {m: [0, 0, 0] for m in metrics}
    for r in range(reps):
        a, b = draw_rows(pool, rng, pool.distribution, n), draw_rows(pool, rng, pi, n)
        ref = ProbabilityStatistics.from_rows(pool.y[a], pool.proba[a], labels)
        new = ProbabilityStatistics.from_rows(pool.y[b], pool.proba[b], labels)
        found = decompose_distributions(ref.binned, new.binned, list(metrics), metrics_at_probabilities,
                                        exact=(ref, new), n_resamples=resamples, random_state=r)
        for m, d in found.items():
            if d.expected_ci is None or d.classifier_effect_ci is None:
                continue
            hits[m][0] += d.expected_ci[0] <= float(truth[m]) <= d.expected_ci[1]
            hits[m][1] += d.classifier_effect_ci[0] <= 0 <= d.classifier_effect_ci[1]
            hits[m][2] += 1
    return {m: (h[0] / max(h[2], 1), h[1] / max(h[2], 1)) for m, h in hits.items()}


def swap_runners_up(proba: np.ndarray, share: float, rng: np.random.Generator) -> np.ndarray:
    """A share of the rows with their two non-maximal probabilities swapped (3 classes): the
    arg-max, so the predicted label, stays; the one-vs-rest rankings do not."""
    out = proba.copy()
    rows = np.flatnonzero(rng.random(proba.shape[0]) < share)
    order = np.argsort(out[rows], axis=1)  # ascending: the two smallest first
    lo, mid = order[:, 0], order[:, 1]
    out[rows, lo], out[rows, mid] = proba[rows, mid], proba[rows, lo]
    return out


def probability_rejection_rate(pool: Pool, pi, reps: int, n: int, resamples: int, share: float = 0.0,
                               seed: int = 0) -> dict[str, float]:
    """Share of replicates where compare's verdict on class probabilities says the classifier
    changed ("any"), and where a per-class test / an AUC test rejects after Holm (5% level)."""
    from beyondchance.report.compare_tasks import TESTED_AUCS, auc_tests

    rng = np.random.default_rng(seed)
    labels = list(range(len(CLASSES)))
    hits = {"any": 0, "class tests": 0, "AUC tests": 0}
    for r in range(reps):
        a, b = draw_rows(pool, rng, pool.distribution, n), draw_rows(pool, rng, pi, n)
        pb = swap_runners_up(pool.proba[b], share, rng) if share else pool.proba[b]
        ref = ProbabilityStatistics.from_rows(pool.y[a], pool.proba[a], labels)
        new = ProbabilityStatistics.from_rows(pool.y[b], pb, labels)
        parts = decompose_distributions(ref.binned, new.binned, list(TESTED_AUCS), metrics_at_probabilities,
                                        exact=(ref, new), n_resamples=resamples, random_state=r,
                                        tested=TESTED_AUCS)
        cc = compare_class_classifiers(ClassStatistics.from_confusion(_cm(pool.y[a], pool.proba[a].argmax(1))),
                                       {"new": ClassStatistics.from_confusion(_cm(pool.y[b], pb.argmax(1)))},
                                       more={"new": auc_tests(parts)})[0]
        hits["any"] += cc.changed
        hits["class tests"] += any(t.pvalue_adjusted <= cc.level for t in cc.tests if t.quantity.startswith("class:"))
        hits["AUC tests"] += any(t.pvalue_adjusted <= cc.level for t in cc.tests
                                 if not t.quantity.startswith("class:"))
    return {k: v / reps for k, v in hits.items()}


def regression_pool(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(target, prediction) of the held-out half: log(Amount) from the other credit columns."""
    import pandas as pd
    from sklearn.linear_model import LinearRegression

    frame = load_r("modeldata_credit_data").frame.dropna()
    y = np.log(frame["Amount"].to_numpy(float))
    x = np.asarray(pd.get_dummies(frame.drop(columns=["Amount"]), drop_first=True), dtype=float)
    idx = np.random.default_rng(seed).permutation(y.size)
    train, held = idx[: idx.size // 2], idx[idx.size // 2:]
    model = LinearRegression().fit(x[train], y[train])
    return y[held], model.predict(x[held])


def regression_rates(pool: tuple[np.ndarray, np.ndarray], reps: int, n: int, resamples: int, *,
                     scale: float = 1.0, gamma: float = 0.0, seed: int = 0) -> dict[str, float]:
    """Share of replicates where compare says each error measure changed, and where the KS test
    of the target rejects (5% level)."""
    import warnings

    from beyondchance import compare

    y, f = pool
    z = (y - y.mean()) / y.std()
    tilt = np.exp(gamma * z)
    tilt /= tilt.sum()
    rng = np.random.default_rng(seed)
    hits: dict[str, int] = {}
    for r in range(reps):
        a = rng.integers(0, y.size, n)
        b = rng.choice(y.size, n, p=tilt)
        fb = y[b] + scale * (f[b] - y[b])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = compare({"ref": (y[a], f[a]), "new": (y[b], fb)}, n_resamples=resamples, random_state=r)
        cc = c.classifier_change("new")
        for t in cc.tests:
            hits[t.quantity] = hits.get(t.quantity, 0) + (t.pvalue_adjusted <= cc.level)
        hits["any measure"] = hits.get("any measure", 0) + cc.changed
        hits["KS target"] = hits.get("KS target", 0) + (c.target_shifts[0].pvalue_adjusted <= 0.05)
    return {k: v / reps for k, v in hits.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--resamples", type=int, default=500)
    ap.add_argument("--quick", action="store_true", help="20 replicates, 200 resamples")
    ap.add_argument("--parts", default=",".join(PARTS))
    args = ap.parse_args()
    reps, resamples = (20, 200) if args.quick else (args.reps, args.resamples)
    parts = args.parts.split(",")
    pool = make_pool()
    dists = [tuple(float(p) for p in np.round(pool.distribution, 3))] + list(DISTRIBUTIONS)
    print(f"pool: {pool.y.size} rows, classes {CLASSES}, distribution {np.round(pool.distribution, 3).tolist()}, "
          f"accuracy {np.mean(pool.y == pool.pred):.3f}; n = {args.n}, {reps} replicates, {resamples} resamples")
    start = time.time()
    if "type1" in parts:
        print("\ntype I error of 'the classifier changed' (5% level, Holm over 3 classes):")
        for i, pi in enumerate(dists):
            print(f"  π = {list(pi)}: {rejection_rate(pool, pi, reps, args.n, seed=10 + i):.3f}")
    if "power" in parts:
        print("\npower (a share f of the predictions replaced by a uniformly random class), π = the pool's:")
        for i, f in enumerate((0.02, 0.04, 0.06, 0.1)):
            print(f"  f = {f:.2f}: {rejection_rate(pool, pool.distribution, reps, args.n, noise=f, seed=100 + i):.3f}")
    if "coverage" in parts:
        print("\ncoverage of the 95% intervals (expected value; classifier effect, truth 0):")
        for i, pi in enumerate(dists):
            cov = coverage(pool, pi, reps, args.n, resamples, seed=200 + i)
            print(f"  π = {list(pi)}: " + ", ".join(f"{m} {a:.3f}/{b:.3f}" for m, (a, b) in cov.items()))
    if "probabilities" in parts:
        print("\nprobabilities: coverage of the 95% intervals (expected value; classifier effect, truth 0):")
        for i, pi in enumerate(dists):
            cov = probability_coverage(pool, pi, reps, args.n, resamples, seed=400 + i)
            print(f"  π = {list(pi)}: " + ", ".join(f"{m} {a:.3f}/{b:.3f}" for m, (a, b) in cov.items()))
    if "probability-tests" in parts:
        print("\nprobabilities: share of replicates where the classifier is declared changed (5%, Holm over 3 "
              "class tests and 2 AUC tests):")
        for i, pi in enumerate(dists):
            rates = probability_rejection_rate(pool, pi, reps, args.n, resamples, seed=500 + i)
            print(f"  type I, π = {list(pi)}: " + ", ".join(f"{k} {v:.3f}" for k, v in rates.items()))
        for i, f in enumerate((0.2, 0.4, 0.6)):
            rates = probability_rejection_rate(pool, pool.distribution, reps, args.n, resamples, share=f,
                                               seed=600 + i)
            print(f"  power, runners-up swapped in a share {f:.2f}: " + ", ".join(f"{k} {v:.3f}"
                                                                                 for k, v in rates.items()))
    if "regression" in parts:
        rpool = regression_pool()
        print(f"\nregression: {rpool[0].size} held-out rows, target log(Amount); share of replicates flagged (5%):")
        for label, kw in (("unchanged", {}), ("errors x 1.1", {"scale": 1.1}), ("errors x 1.2", {"scale": 1.2}),
                          ("target shifted, gamma 0.3", {"gamma": 0.3})):
            rates = regression_rates(rpool, reps, args.n, resamples, seed=300, **kw)
            print(f"  {label}: " + ", ".join(f"{k} {v:.3f}" for k, v in rates.items()))
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
