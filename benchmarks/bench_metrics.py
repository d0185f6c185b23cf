"""Labeling metrics on 10⁷ binary labels: beyondchance against scikit-learn, same run.

The set: accuracy, balanced accuracy, F1, Cohen's κ, MCC, the confusion matrix, pure
accuracy and the prediction advantage (0/1 loss).  scikit-learn has no PA; its
equivalent is 1 − zero_one_loss / (1 − max class share).  Pure accuracy is κ, which
scikit-learn computes with ``cohen_kappa_score``.

Two ways of using beyondchance are timed:

* ``one pass``: build the confusion matrix once (the sufficient statistic), derive all
  eight results from it (DESIGN.md's data flow);
* ``separate calls``: every measure called on the raw arrays on its own, as a
  scikit-learn user would.

Usage::

    python benchmarks/bench_metrics.py [--n 10000000] [--repeat 3] [--dtype int64]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import sklearn.metrics as skm

import beyondchance as bc
from beyondchance import ConfusionMatrix


def best_of(func, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out


def sklearn_set(y_true, y_pred):
    share = np.bincount(y_true.astype(np.int64)) / y_true.shape[0]
    return {
        "accuracy": skm.accuracy_score(y_true, y_pred),
        "balanced_accuracy": skm.balanced_accuracy_score(y_true, y_pred),
        "f1": skm.f1_score(y_true, y_pred),
        "kappa": skm.cohen_kappa_score(y_true, y_pred),
        "mcc": skm.matthews_corrcoef(y_true, y_pred),
        "confusion_matrix": skm.confusion_matrix(y_true, y_pred),
        "pure_accuracy": skm.cohen_kappa_score(y_true, y_pred),
        "prediction_advantage": 1 - skm.zero_one_loss(y_true, y_pred) / (1 - share.max()),
    }


NAMES = ("accuracy", "balanced_accuracy", "f1", "kappa", "mcc")


def ours_one_pass(y_true, y_pred):
    cm = ConfusionMatrix.from_predictions(y_true, y_pred)
    out = {name: cm.metric(name) for name in NAMES}
    out["confusion_matrix"] = cm.matrix
    out["pure_accuracy"] = cm.metric("pure_accuracy")
    out["prediction_advantage"] = cm.metric("prediction_advantage")
    return out


def ours_separate_calls(y_true, y_pred):
    out = {name: ConfusionMatrix.from_predictions(y_true, y_pred).metric(name) for name in NAMES}
    out["confusion_matrix"] = ConfusionMatrix.from_predictions(y_true, y_pred).matrix
    out["pure_accuracy"] = bc.pure_accuracy(y_true, y_pred)
    if hasattr(bc, "prediction_advantage"):
        out["prediction_advantage"] = bc.prediction_advantage(y_true, y_pred)
    else:  # pragma: no cover - before the advantage module existed
        out["prediction_advantage"] = ConfusionMatrix.from_predictions(y_true, y_pred).metric("prediction_advantage")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dtype", default="int64", help="label dtype: int64, int32, int8 or bool")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    y_true = rng.uniform(size=args.n) < 0.3
    y_pred = np.where(rng.uniform(size=args.n) < 0.8, y_true, ~y_true)
    y_true, y_pred = y_true.astype(args.dtype), y_pred.astype(args.dtype)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_sk, ref = best_of(lambda: sklearn_set(y_true, y_pred), 1)
    t_one, one = best_of(lambda: ours_one_pass(y_true, y_pred), args.repeat)
    t_sep, sep = best_of(lambda: ours_separate_calls(y_true, y_pred), args.repeat)

    worst = 0.0
    for key, value in ref.items():
        for ours in (one, sep):
            worst = max(worst, float(np.max(np.abs(np.asarray(ours[key], dtype=float) - np.asarray(value, dtype=float)))))
    print(f"n = {args.n:,} binary labels ({args.dtype}), 8 results: {', '.join(ref)}")
    print(f"largest difference from scikit-learn over all results: {worst:.2e}")
    print(f"{'implementation':<36}{'seconds':>10}{'speed-up':>10}")
    print(f"{'scikit-learn (8 function calls)':<36}{t_sk:>10.3f}{1.0:>10.1f}")
    print(f"{'beyondchance, one pass':<36}{t_one:>10.4f}{t_sk / t_one:>10.1f}")
    print(f"{'beyondchance, separate calls':<36}{t_sep:>10.4f}{t_sk / t_sep:>10.1f}")


if __name__ == "__main__":
    main()
