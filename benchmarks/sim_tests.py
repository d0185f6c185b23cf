"""Type-I error of every test of issue 15 under its null, by simulation.

For each test: the share of replicates whose p-value is at most 0.05 under the null
(target within [0.03, 0.07] at 2,000 replicates), its Monte Carlo standard error, and
the seed.  The tests' quick versions (300 replicates, [0.02, 0.09]) live in
tests/test_delong.py, tests/test_model_comparison.py, tests/test_permutation.py and
tests/test_permutation_rows.py.

Scenarios
---------
* permutation tests (labels: exact mid-p, and the conservative exact p-value; scores:
  Monte Carlo, exact at n = 12, and the binned losses of 3,000 distinct scores on 200
  bins): random labels (π = 0.3), predictions independent of them;
* row permutation tests (:mod:`beyondchance.inference.permutation.rows`): weighted binary and
  multi-class rows (exponential weights), three-class probability rows (Dirichlet) and
  regression targets (normal or exponential) independent of the predictions; the
  permutation CLT of the squared error;
* the permutation CLT of weighted cells (:mod:`beyondchance.inference.permutation.clt`, the test of
  weighted rows beyond the row-draw budget and on DuckDB/Spark): weighted labels and
  scores independent of each other at n = 200 and 20,000 (exponential weights; log-normal
  at n = 200), three classes at n = 150 — measured in docs/howto/decide.rst;
* the permutation CLT of the loss sum (:mod:`beyondchance.inference.permutation.loss`, the test of
  the log loss and Brier score of probabilities beyond the row-draw budget and on
  DuckDB/Spark): labels independent of 3-class probability rows (Dirichlet) or of binary
  scores, exponential weights, n = 50 to 20,000 — measured below and in docs/howto/decide.rst;
* the permutation CLT of the absolute-error and pinball loss sums
  (:mod:`beyondchance.inference.permutation.absolute_error`, the test of the MAE, pinball loss and their D²
  beyond the row-draw budget and on DuckDB/Spark): log-normal targets independent of
  normal predictions, weighted (exponential) and not, n = 200 and 20,000; n = 50, log-normal
  weights, discrete targets with ties, τ = 0.99 — measured below;
* the permutation CLT of the one-vs-rest ROC AUCs (:mod:`beyondchance.inference.permutation.auc`,
  the test of the macro and prevalence-weighted ROC AUC of class probabilities beyond the
  row-draw budget and on DuckDB/Spark): labels independent of 3-class Dirichlet(1)
  probability rows, exponential weights or none, n = 200 and 20,000 — measured below and in
  docs/howto/decide.rst;
* McNemar's test of accuracy against the majority class, and caret's binomial test
  against the no-information rate: a predictor whose
  population accuracy equals the majority rate exactly but which is not constant
  (π = 0.3; predicts positive with probability 0.7 for positives and 0.3 for
  negatives: accuracy 0.7 · 0.7 + 0.3 · 0.7 = 0.7);
* DeLong: two scores with the same population AUC — independent noise, and a shared
  component (correlated models);
* McNemar and the paired bootstrap (F1, PR AUC, log loss): two models of equal
  population performance (independent noise of the same size);
* multi-class permutation tests (3 classes): labels and predictions drawn independently.

Usage: ``python benchmarks/sim_tests.py [--quick] [--replicates R] [--only TEXT]``

Measured (full run, 2,000 replicates per test, seeds 1000 + the test's position; the two
"200 bins" lines from ``--only "200 bins"`` after the binned losses changed, same seeds)::

    type-I error at level 0.05: 2000 replicates per test (target [0.03, 0.07] for the defaults)
    test                                                                                    rate    s.e.  in range  default  seconds
    permutation, exact mid-p: prediction advantage (labels, n=200)                        0.0425  0.0045       yes      yes      0.2
    permutation, exact mid-p: F1 (labels, n=200)                                          0.0485  0.0048       yes      yes      0.2
    permutation, exact mid-p: MCC (labels, n=60)                                          0.0435  0.0046       yes      yes      0.2
    permutation, exact mid-p: prediction advantage (labels, n=2000)                       0.0555  0.0051       yes      yes      0.3
    permutation, exact mid-p: ROC AUC (n=12)                                              0.0565  0.0052       yes      yes      1.1
    permutation, exact (mid_p=False): prediction advantage (labels, n=200)                0.0355  0.0041       yes       no      0.2
    permutation, exact (mid_p=False): MCC (labels, n=60)                                  0.0225  0.0033        NO       no      0.2
    permutation, exact (mid_p=False): ROC AUC (n=12)                                      0.0295  0.0038        NO       no      2.5
    permutation, Monte Carlo 1000: ROC AUC (n=200)                                        0.0510  0.0049       yes      yes     36.0
    permutation, Monte Carlo 1000: average precision (n=200)                              0.0520  0.0050       yes      yes     36.2
    permutation, Monte Carlo 1000, 200 bins: Brier (n=3000)                               0.0440  0.0046       yes      yes     40.2
    permutation, Monte Carlo 1000, 200 bins: log loss (n=3000)                            0.0475  0.0048       yes      yes     53.7
    McNemar mid-p: accuracy vs the majority class (n=300, boundary null)                  0.0495  0.0049       yes      yes      1.0
    McNemar (mid_p=False): accuracy vs the majority class (n=300, boundary null)          0.0395  0.0044       yes       no      1.0
    binomial (caret): accuracy vs no-information rate (n=300, boundary null)              0.1070  0.0069        NO       no      0.7
    DeLong: equal AUC, independent models (n=200)                                         0.0490  0.0048       yes      yes      1.5
    DeLong: equal AUC, correlated models (n=200)                                          0.0485  0.0048       yes      yes      1.3
    McNemar exact: equal accuracy (n=300)                                                 0.0395  0.0044       yes      yes     39.6
    paired bootstrap 500: F1 (n=300)                                                      0.0470  0.0047       yes      yes     23.2
    paired bootstrap 500: average precision (n=300)                                       0.0525  0.0050       yes      yes     56.1
    paired bootstrap 500: log loss (n=300)                                                0.0525  0.0050       yes      yes     22.2
    permutation, Monte Carlo 1000: MCC (3 classes, n=150)                                 0.0360  0.0042       yes      yes      1.5
    permutation, Monte Carlo 1000: macro F1 (3 classes, n=150)                            0.0505  0.0049       yes      yes      2.0
    rows, Monte Carlo 1000: weighted ROC AUC (n=200)                                      0.0490  0.0048       yes      yes     34.8
    rows, Monte Carlo 1000: weighted average precision (n=200)                            0.0460  0.0047       yes      yes     39.9
    rows, Monte Carlo 1000: weighted F1 (labels, n=200)                                   0.0520  0.0050       yes      yes     12.4
    rows, Monte Carlo 1000: weighted prediction advantage (labels, n=200)                 0.0440  0.0046       yes      yes     12.1
    rows, Monte Carlo 1000: weighted log loss (n=200)                                     0.0430  0.0045       yes      yes     26.0
    rows, Monte Carlo 1000: weighted MCC (3 classes, n=150)                               0.0550  0.0051       yes      yes      6.4
    rows, Monte Carlo 1000: one-vs-rest ROC AUC macro (3-class probabilities, n=150)      0.0540  0.0051       yes      yes     62.5
    rows, Monte Carlo 1000: one-vs-rest ROC AUC weighted (3-class probabilities, n=150)   0.0500  0.0049       yes      yes     55.2
    rows, Monte Carlo 1000: one-vs-rest avg. precision macro (3-class probabilities, n=150)  0.0480  0.0048       yes      yes     47.4
    rows, Monte Carlo 1000: log loss (3-class probabilities, n=150)                       0.0510  0.0049       yes      yes      6.4
    rows, Monte Carlo 1000: Brier (3-class probabilities, n=150)                          0.0540  0.0051       yes      yes      6.2
    permutation CLT: MSE / R² (regression, normal y, n=50)                                0.0500  0.0049       yes      yes      0.1
    permutation CLT: MSE / R² (regression, exponential y, n=200)                          0.0495  0.0049       yes      yes      0.1
    permutation CLT: MSE / R² (regression, weighted, n=200)                               0.0425  0.0045       yes      yes      0.1
    rows, Monte Carlo 1000: MAE / D² (regression, exponential y, n=200)                   0.0480  0.0048       yes      yes     13.0
    rows, Monte Carlo 1000: pinball 0.8 (regression, weighted, n=200)                     0.0520  0.0050       yes      yes     19.2

The permutation CLT of the loss sum (``--only "loss CLT"``, seeds 1058 to 1069, 2,000
replicates per cell, 1 min 56 s wall on a shared machine, 20 s of CPU; the last line from
``--only sharp``)::

    loss CLT: weighted log loss (3-class probabilities, n=200)                            0.0460  0.0047       yes      yes      3.5
    loss CLT: weighted log loss (binary scores, n=200)                                    0.0485  0.0048       yes      yes      2.4
    loss CLT: weighted Brier (3-class probabilities, n=200)                               0.0520  0.0050       yes      yes      3.0
    loss CLT: weighted Brier (binary scores, n=200)                                       0.0510  0.0049       yes      yes      2.2
    loss CLT: weighted log loss (3-class probabilities, n=20000)                          0.0515  0.0049       yes      yes     28.8
    loss CLT: weighted log loss (binary scores, n=20000)                                  0.0520  0.0050       yes      yes     18.9
    loss CLT: weighted Brier (3-class probabilities, n=20000)                             0.0495  0.0049       yes      yes     28.5
    loss CLT: weighted Brier (binary scores, n=20000)                                     0.0525  0.0050       yes      yes     13.6
    loss CLT: log loss (3-class probabilities, unweighted, n=200)                         0.0500  0.0049       yes      yes      3.2
    loss CLT: weighted log loss (3-class, sharp Dirichlet(0.3) probabilities, n=200)      0.0320  0.0039       yes      yes      2.4
    loss CLT: weighted log loss (3-class probabilities, n=50)                             0.0425  0.0045       yes      yes      1.4
    loss CLT: weighted log loss (3-class, sharp Dirichlet(0.3) probabilities, n=20000)    0.0535  0.0050       yes      yes     19.6

The permutation CLT of the absolute-error and pinball loss sums (``--only "absolute CLT"``,
seeds 1070 to 1082, 2,000 replicates per cell, 1 min 19 s wall on a shared machine, 41 s of CPU)::

    absolute CLT: weighted MAE / D² (log-normal y, n=200)                                 0.0455  0.0047       yes      yes      0.7
    absolute CLT: weighted pinball 0.9 / D² (log-normal y, n=200)                         0.0510  0.0049       yes      yes      0.7
    absolute CLT: unweighted MAE / D² (log-normal y, n=200)                               0.0490  0.0048       yes      yes      0.7
    absolute CLT: unweighted pinball 0.9 / D² (log-normal y, n=200)                       0.0455  0.0047       yes      yes      0.7
    absolute CLT: weighted MAE / D² (log-normal y, n=20000)                               0.0480  0.0048       yes      yes     17.0
    absolute CLT: weighted pinball 0.9 / D² (log-normal y, n=20000)                       0.0585  0.0052       yes      yes     15.3
    absolute CLT: unweighted MAE / D² (log-normal y, n=20000)                             0.0535  0.0050       yes      yes     16.4
    absolute CLT: unweighted pinball 0.9 / D² (log-normal y, n=20000)                     0.0545  0.0051       yes      yes     19.4
    absolute CLT: weighted MAE / D² (log-normal y, n=50)                                  0.0575  0.0052       yes      yes      0.7
    absolute CLT: log-normal(0, 1.5) weights, MAE / D² (log-normal y, n=200)              0.0395  0.0044       yes      yes      0.7
    absolute CLT: weighted MAE / D² (Poisson(2) y, integer predictions, n=200)            0.0565  0.0052       yes      yes      0.7
    absolute CLT: weighted pinball 0.99 / D² (log-normal y, n=200)                        0.0485  0.0048       yes      yes      1.6
    absolute CLT: weighted pinball 0.99 / D² (log-normal y, n=2000)                       0.0505  0.0049       yes      yes      2.3

The permutation CLT of the one-vs-rest ROC AUCs (``--only "AUC CLT"``, seeds 1083 to 1090,
2,000 replicates per cell, 73 s summed over the cells on a shared machine)::

    AUC CLT: weighted macro ROC AUC (3 classes, n=200)                                    0.0490  0.0048       yes      yes      1.1
    AUC CLT: weighted prevalence-weighted ROC AUC (3 classes, n=200)                      0.0490  0.0048       yes      yes      1.0
    AUC CLT: unweighted macro ROC AUC (3 classes, n=200)                                  0.0530  0.0050       yes      yes      0.8
    AUC CLT: unweighted prevalence-weighted ROC AUC (3 classes, n=200)                    0.0510  0.0049       yes      yes      1.2
    AUC CLT: weighted macro ROC AUC (3 classes, n=20000)                                  0.0450  0.0046       yes      yes     17.5
    AUC CLT: weighted prevalence-weighted ROC AUC (3 classes, n=20000)                    0.0445  0.0046       yes      yes     17.5
    AUC CLT: unweighted macro ROC AUC (3 classes, n=20000)                                0.0595  0.0053       yes      yes     17.2
    AUC CLT: unweighted prevalence-weighted ROC AUC (3 classes, n=20000)                  0.0470  0.0047       yes      yes     16.8

The joint permutation CLT of the one-vs-rest tables of the average precisions
(``--only "AP CLT"``, seeds 1091 to 1094, 2,000 replicates per cell, 500 normal draws per
p-value, 7 min wall on a shared machine)::

    AP CLT 500: weighted macro average precision (3 classes, n=2000)                      0.0435  0.0046       yes      yes     77.1
    AP CLT 500: unweighted macro average precision (3 classes, n=2000)                    0.0460  0.0047       yes      yes    135.7
    AP CLT 500: weighted macro average precision (3 classes, n=20000)                     0.0520  0.0050       yes      yes    120.0
    AP CLT 500: unweighted macro average precision (3 classes, n=20000)                   0.0530  0.0050       yes      yes     87.1

"default" marks what the report and the library use by default (the target applies to
those: every one is within [0.03, 0.07]).  The conservative exact p-values
(``mid_p=False``) fall below 0.03 at small n (a coarse null: TP takes few values), as
Fisher's exact test does; caret's binomial test exceeds the level because it takes the
no-information rate as known.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import beyondchance as bc
from beyondchance.measures.losses import PinballLoss
from beyondchance.measures.curves import threshold_counts
from beyondchance.inference.permutation.permutation_test import permutation_tests_of_scores
from beyondchance.inference.permutation.clt import PermutationCells, clt_tests_of_labels, clt_tests_of_scores
from beyondchance.inference.permutation.rows import (
    binary_statistic,
    multiclass_statistic,
    probabilities_statistic,
    regression_statistic,
    row_permutation_tests,
    squared_loss_test,
)

LEVEL = 0.05


def permutation_scenario(measure: str, n: int, rng: np.random.Generator, n_resamples: int,
                         mid_p: bool = True) -> float:
    y = (rng.random(n) < 0.3).astype(int)
    if (y == 0).all() or (y == 1).all():
        y[0] = 1 - y[0]
    s = rng.random(n)
    pred = (s < rng.uniform(0.2, 0.8)).astype(int) if measure in bc.measures.METRICS else s
    return bc.permutation_test(measure, y, pred, n_resamples=n_resamples, random_state=rng, mid_p=mid_p).pvalue


def binned_loss_scenario(measure: str, n: int, rng: np.random.Generator, n_resamples: int) -> float:
    """The report's test of a loss of more than MAX_SCORE_BINS distinct scores: the binned
    loss over PERMUTATION_BINS bins."""
    from beyondchance.report.pvalues import PERMUTATION_BINS

    y = (rng.random(n) < 0.3).astype(int)
    tc = threshold_counts(y, rng.random(n))
    return permutation_tests_of_scores((measure,), tc, n_resamples=n_resamples, random_state=rng,
                                       max_bins=PERMUTATION_BINS)[measure].pvalue


def weighted_binary_scenario(measure: str, n: int, rng: np.random.Generator, n_resamples: int) -> float:
    """Weighted rows (exponential weights), scores independent of the labels."""
    y = (rng.random(n) < 0.3).astype(int)
    y[:2] = [0, 1]
    s, w = rng.random(n), rng.exponential(size=n)
    stat = binary_statistic(y == 1, w, pred=s >= 0.5, scores=s, names=(measure,))
    greater = measure not in ("log_loss", "brier")
    return row_permutation_tests(stat, n, {measure: greater}, n_resamples=n_resamples, random_state=rng)[measure].pvalue


def clt_scenario(measure: str, n: int, rng: np.random.Generator, n_resamples: int, weights: str = "exponential",
                 k: int = 2) -> float:
    """Weighted rows (exponential or log-normal weights), predictions or scores independent of
    the labels: the permutation CLT of the weighted cells (the test the report uses beyond
    the row-draw budget and on DuckDB/Spark), the report's bins (one cell per distinct score
    up to 1,000, else 200)."""
    from beyondchance.report.pvalues import _permutation_bins

    w = rng.exponential(size=n) if weights == "exponential" else rng.lognormal(0.0, 1.5, size=n)
    if k > 2:
        c, pred = rng.integers(0, k, n), rng.integers(0, k, n)
        cells = PermutationCells.from_codes(pred, c, w, keys=np.arange(k), classes=np.arange(k))
        return clt_tests_of_labels(cells, (measure,), n_resamples=n_resamples, random_state=rng)[measure].pvalue
    y = (rng.random(n) < 0.3).astype(int)
    y[:2] = [0, 1]
    s = rng.random(n)
    if measure in bc.measures.METRICS:
        cells = PermutationCells.from_codes(s < rng.uniform(0.2, 0.8), y, w, keys=[False, True], classes=[0, 1])
        return clt_tests_of_labels(cells, (measure,), pos=1, n_resamples=n_resamples, random_state=rng)[measure].pvalue
    cells = PermutationCells.of_scores(y == 1, s, w)
    return clt_tests_of_scores(cells, (measure,), max_bins=_permutation_bins(cells.keys.size),
                               n_resamples=n_resamples, random_state=rng)[measure].pvalue


def loss_clt_scenario(measure: str, n: int, rng: np.random.Generator, k: int = 3, weighted: bool = True,
                      alpha: float = 1.0) -> float:
    """The permutation CLT of the loss sum (:mod:`beyondchance.inference.permutation.loss`, the test of
    the log loss and Brier score beyond the row-draw budget and on DuckDB/Spark): labels
    (classes of prevalences 0.5, 0.3, 0.2; binary: π = 0.3) independent of the probability
    rows (Dirichlet(α); binary: uniform scores), exponential weights unless unweighted."""
    from beyondchance.inference.permutation.loss import PermutationLossSums

    w = rng.exponential(size=n) if weighted else None
    if k == 2:
        y = rng.random(n) < 0.3
        y[:2] = [False, True]
        return PermutationLossSums.of_scores(y, rng.random(n), w, losses=(measure,)).test(measure).pvalue
    c = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    c[:3] = [0, 1, 2]
    sums = PermutationLossSums.of_proba(c, rng.dirichlet(np.full(3, alpha), n), w, losses=(measure,))
    return sums.test(measure).pvalue


def absolute_clt_scenario(loss: str, n: int, rng: np.random.Generator, weighted: bool = True,
                          alpha: float = 0.9, weights: str = "exponential", discrete: bool = False) -> float:
    """The permutation CLT of the absolute-error or pinball loss sum
    (:mod:`beyondchance.inference.permutation.absolute_error`, the test of the MAE, the pinball loss and their
    D² beyond the row-draw budget and on DuckDB/Spark): log-normal(0, 1) targets (skewed)
    independent of normal(1, 1) predictions (``discrete``: Poisson(2) targets and integer
    predictions 0..4, many ties), exponential (or log-normal(0, 1.5)) weights unless
    unweighted; the pinball loss of level ``alpha``."""
    from beyondchance.inference.permutation.absolute_error import absolute_loss_test

    if discrete:
        y, pred = rng.poisson(2.0, size=n).astype(float), rng.integers(0, 5, size=n).astype(float)
    else:
        y, pred = rng.lognormal(0.0, 1.0, size=n), rng.normal(1.0, 1.0, size=n)
    w = (rng.exponential(size=n) if weights == "exponential" else rng.lognormal(0.0, 1.5, size=n)) if weighted \
        else None
    return absolute_loss_test(y, pred, w, alpha=None if loss == "absolute" else alpha).pvalue
def auc_clt_scenario(measure: str, n: int, rng: np.random.Generator, weighted: bool = True) -> float:
    """The permutation CLT of the one-vs-rest ROC AUCs (:mod:`beyondchance.inference.permutation.auc`,
    the test of the AUCs of class probabilities beyond the row-draw budget and on
    DuckDB/Spark): labels (prevalences 0.5, 0.3, 0.2) independent of Dirichlet(1) probability
    rows, exponential weights unless unweighted."""
    from beyondchance.inference.permutation.auc import PermutationAUCSums

    w = rng.exponential(size=n) if weighted else None
    c = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    c[:3] = [0, 1, 2]
    return PermutationAUCSums.of_proba(c, rng.dirichlet(np.ones(3), n), w).test(measure).pvalue


def ap_clt_scenario(measure: str, n: int, rng: np.random.Generator, weighted: bool = True,
                    n_resamples: int = 500) -> float:
    """The joint permutation CLT of the one-vs-rest tables (:mod:`beyondchance.inference.permutation.average_precision`,
    the test of the average precisions of class probabilities beyond the row-draw budget):
    labels (prevalences 0.5, 0.3, 0.2) independent of Dirichlet(1) probability rows,
    exponential weights unless unweighted, 100 bins per column, ``n_resamples`` normal draws."""
    from beyondchance.inference.permutation.average_precision import PermutationAPTables, ap_clt_tests

    w = rng.exponential(size=n) if weighted else None
    c = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    c[:3] = [0, 1, 2]
    t = PermutationAPTables.of_proba(c, rng.dirichlet(np.ones(3), n), w)
    return ap_clt_tests(t, (measure,), n_resamples=n_resamples, random_state=rng)[measure].pvalue


def weighted_multiclass_scenario(measure: str, n: int, rng: np.random.Generator, n_resamples: int) -> float:
    c, pred, w = rng.integers(0, 3, n), rng.integers(0, 3, n), rng.exponential(size=n)
    stat = multiclass_statistic(c, pred, 3, w, (measure,))
    return row_permutation_tests(stat, n, {measure: True}, n_resamples=n_resamples, random_state=rng)[measure].pvalue


def probabilities_scenario(measure: str, n: int, rng: np.random.Generator, n_resamples: int) -> float:
    """Three classes, probability rows (Dirichlet) independent of the labels, unweighted."""
    c, P = rng.integers(0, 3, n), rng.dirichlet(np.ones(3), n)
    c[:3] = [0, 1, 2]
    stat = probabilities_statistic(c, P, None, (measure,))
    greater = measure not in ("log_loss", "brier")
    return row_permutation_tests(stat, n, {measure: greater}, n_resamples=n_resamples, random_state=rng)[measure].pvalue


def regression_scenario(loss: str, n: int, rng: np.random.Generator, n_resamples: int, skewed: bool = False,
                        weighted: bool = False) -> float:
    """Targets (normal, or exponential when ``skewed``) independent of normal predictions."""
    y = rng.exponential(size=n) if skewed else rng.normal(size=n)
    pred = rng.normal(size=n)
    w = rng.exponential(size=n) if weighted else None
    if loss == "squared":
        return squared_loss_test(y, pred, w).pvalue
    stat = regression_statistic(y, pred, w, {loss: "absolute" if loss == "absolute" else PinballLoss(0.8)})
    return row_permutation_tests(stat, n, {loss: False}, n_resamples=n_resamples, random_state=rng)[loss].pvalue


def multiclass_scenario(measure: str, n: int, rng: np.random.Generator, n_resamples: int) -> float:
    from beyondchance.inference.permutation.permutation_test import permutation_test_of_matrix

    cm = np.zeros((3, 3))
    np.add.at(cm, (rng.integers(0, 3, n), rng.integers(0, 3, n)), 1)
    return permutation_test_of_matrix(measure, cm, n_resamples=n_resamples, random_state=rng).pvalue


def constant_scenario(n: int, rng: np.random.Generator, method: str, mid_p: bool = True) -> float:
    y = (rng.random(n) < 0.3).astype(int)
    pred = np.where(y == 1, rng.random(n) < 0.7, rng.random(n) < 0.3).astype(int)
    return bc.permutation_test("accuracy", y, pred, method=method, mid_p=mid_p).pvalue


def delong_scenario(n: int, rng: np.random.Generator, shared: bool) -> float:
    y = rng.integers(0, 2, n)
    common = rng.normal(0, 1.0, n) if shared else 0.0
    a = y + common + rng.normal(0, 1.2, n)
    b = y + common + rng.normal(0, 1.2, n)
    return bc.delong_test(y, a, b).pvalue


def paired_scenario(metric: str, n: int, rng: np.random.Generator, n_resamples: int) -> float:
    y = rng.integers(0, 2, n)
    if metric == "log_loss":
        a = 1 / (1 + np.exp(-(2 * y - 1 + rng.normal(0, 1.2, n))))
        b = 1 / (1 + np.exp(-(2 * y - 1 + rng.normal(0, 1.2, n))))
    else:
        a, b = y + rng.normal(0, 1.2, n), y + rng.normal(0, 1.2, n)
    c = bc.compare_models(y, {"a": a, "b": b}, metrics=[metric], threshold=0.5, n_resamples=n_resamples,
                          random_state=rng)
    return c.differences[0].pvalue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 replicates and fewer resamples")
    parser.add_argument("--replicates", type=int, default=None)
    parser.add_argument("--only", metavar="TEXT", help="run only the tests whose name contains TEXT")
    args = parser.parse_args()
    reps = args.replicates or (300 if args.quick else 2000)
    mc = 300 if args.quick else 1000  # Monte Carlo permutations per p-value
    boot = 200 if args.quick else 500  # paired bootstrap resamples per p-value
    # (name, draw, whether the test is a default of the report / library: the target applies to those)
    scenarios = [
        ("permutation, exact mid-p: prediction advantage (labels, n=200)",
         lambda rng: permutation_scenario("prediction_advantage", 200, rng, mc), True),
        ("permutation, exact mid-p: F1 (labels, n=200)", lambda rng: permutation_scenario("f1", 200, rng, mc), True),
        ("permutation, exact mid-p: MCC (labels, n=60)", lambda rng: permutation_scenario("mcc", 60, rng, mc), True),
        ("permutation, exact mid-p: prediction advantage (labels, n=2000)",
         lambda rng: permutation_scenario("prediction_advantage", 2000, rng, mc), True),
        ("permutation, exact mid-p: ROC AUC (n=12)", lambda rng: permutation_scenario("roc_auc", 12, rng, mc), True),
        ("permutation, exact (mid_p=False): prediction advantage (labels, n=200)",
         lambda rng: permutation_scenario("prediction_advantage", 200, rng, mc, mid_p=False), False),
        ("permutation, exact (mid_p=False): MCC (labels, n=60)",
         lambda rng: permutation_scenario("mcc", 60, rng, mc, mid_p=False), False),
        ("permutation, exact (mid_p=False): ROC AUC (n=12)",
         lambda rng: permutation_scenario("roc_auc", 12, rng, mc, mid_p=False), False),
        (f"permutation, Monte Carlo {mc}: ROC AUC (n=200)", lambda rng: permutation_scenario("roc_auc", 200, rng, mc),
         True),
        (f"permutation, Monte Carlo {mc}: average precision (n=200)",
         lambda rng: permutation_scenario("pr_auc", 200, rng, mc), True),
        (f"permutation, Monte Carlo {mc}, 200 bins: Brier (n=3000)",
         lambda rng: binned_loss_scenario("brier", 3000, rng, mc), True),
        (f"permutation, Monte Carlo {mc}, 200 bins: log loss (n=3000)",
         lambda rng: binned_loss_scenario("log_loss", 3000, rng, mc), True),
        ("McNemar mid-p: accuracy vs the majority class (n=300, boundary null)",
         lambda rng: constant_scenario(300, rng, "mcnemar"), True),
        ("McNemar (mid_p=False): accuracy vs the majority class (n=300, boundary null)",
         lambda rng: constant_scenario(300, rng, "mcnemar", mid_p=False), False),
        ("binomial (caret): accuracy vs no-information rate (n=300, boundary null)",
         lambda rng: constant_scenario(300, rng, "binomial"), False),
        ("DeLong: equal AUC, independent models (n=200)", lambda rng: delong_scenario(200, rng, False), True),
        ("DeLong: equal AUC, correlated models (n=200)", lambda rng: delong_scenario(200, rng, True), True),
        ("McNemar exact: equal accuracy (n=300)", lambda rng: paired_scenario("accuracy", 300, rng, boot), True),
        (f"paired bootstrap {boot}: F1 (n=300)", lambda rng: paired_scenario("f1", 300, rng, boot), True),
        (f"paired bootstrap {boot}: average precision (n=300)", lambda rng: paired_scenario("pr_auc", 300, rng, boot),
         True),
        (f"paired bootstrap {boot}: log loss (n=300)", lambda rng: paired_scenario("log_loss", 300, rng, boot), True),
        (f"permutation, Monte Carlo {mc}: MCC (3 classes, n=150)",
         lambda rng: multiclass_scenario("mcc", 150, rng, mc), True),
        (f"permutation, Monte Carlo {mc}: macro F1 (3 classes, n=150)",
         lambda rng: multiclass_scenario("f1", 150, rng, mc), True),
        (f"rows, Monte Carlo {mc}: weighted ROC AUC (n=200)",
         lambda rng: weighted_binary_scenario("roc_auc", 200, rng, mc), True),
        (f"rows, Monte Carlo {mc}: weighted average precision (n=200)",
         lambda rng: weighted_binary_scenario("pr_auc", 200, rng, mc), True),
        (f"rows, Monte Carlo {mc}: weighted F1 (labels, n=200)",
         lambda rng: weighted_binary_scenario("f1", 200, rng, mc), True),
        (f"rows, Monte Carlo {mc}: weighted prediction advantage (labels, n=200)",
         lambda rng: weighted_binary_scenario("prediction_advantage", 200, rng, mc), True),
        (f"rows, Monte Carlo {mc}: weighted log loss (n=200)",
         lambda rng: weighted_binary_scenario("log_loss", 200, rng, mc), True),
        (f"rows, Monte Carlo {mc}: weighted MCC (3 classes, n=150)",
         lambda rng: weighted_multiclass_scenario("mcc", 150, rng, mc), True),
        (f"rows, Monte Carlo {mc}: one-vs-rest ROC AUC macro (3-class probabilities, n=150)",
         lambda rng: probabilities_scenario("roc_auc", 150, rng, mc), True),
        (f"rows, Monte Carlo {mc}: one-vs-rest ROC AUC weighted (3-class probabilities, n=150)",
         lambda rng: probabilities_scenario("roc_auc_weighted", 150, rng, mc), True),
        (f"rows, Monte Carlo {mc}: one-vs-rest avg. precision macro (3-class probabilities, n=150)",
         lambda rng: probabilities_scenario("pr_auc", 150, rng, mc), True),
        (f"rows, Monte Carlo {mc}: log loss (3-class probabilities, n=150)",
         lambda rng: probabilities_scenario("log_loss", 150, rng, mc), True),
        (f"rows, Monte Carlo {mc}: Brier (3-class probabilities, n=150)",
         lambda rng: probabilities_scenario("brier", 150, rng, mc), True),
        ("permutation CLT: MSE / R² (regression, normal y, n=50)",
         lambda rng: regression_scenario("squared", 50, rng, mc), True),
        ("permutation CLT: MSE / R² (regression, exponential y, n=200)",
         lambda rng: regression_scenario("squared", 200, rng, mc, skewed=True), True),
        ("permutation CLT: MSE / R² (regression, weighted, n=200)",
         lambda rng: regression_scenario("squared", 200, rng, mc, weighted=True), True),
        (f"rows, Monte Carlo {mc}: MAE / D² (regression, exponential y, n=200)",
         lambda rng: regression_scenario("absolute", 200, rng, mc, skewed=True), True),
        (f"rows, Monte Carlo {mc}: pinball 0.8 (regression, weighted, n=200)",
         lambda rng: regression_scenario("pinball", 200, rng, mc, weighted=True), True),
    ]
    # The permutation CLT of weighted cells (issue 15, item 1).  The report runs it on weighted
    # scores only beyond the row-draw budget (more than 62,500 rows), in at most 1,000 cells:
    # more than 62 rows per cell on average.  The score rows at n = 200 (one row per cell) are a
    # layout it never meets, so they are not defaults; the labels' cells are the same tables at any n.
    for n in (200, 20_000):
        for measure, title in (("f1", "F1 (labels"), ("prediction_advantage", "prediction advantage (labels"),
                               ("mcc", "MCC (labels"), ("roc_auc", "ROC AUC ("), ("pr_auc", "average precision ("),
                               ("brier", "Brier ("), ("log_loss", "log loss (")):
            scenarios.append((f"permutation CLT {mc}: weighted {title}{', ' if '(labels' in title else ''}n={n})",
                              lambda rng, m=measure, n=n: clt_scenario(m, n, rng, mc), "(labels" in title or n > 200))
    scenarios += [
        (f"permutation CLT {mc}: weighted MCC (3 classes, n=150)",
         lambda rng: clt_scenario("mcc", 150, rng, mc, k=3), True),
        (f"permutation CLT {mc}: weighted macro F1 (3 classes, n=150)",
         lambda rng: clt_scenario("f1", 150, rng, mc, k=3), True),
        (f"permutation CLT {mc}: log-normal(0, 1.5) weights, F1 (labels, n=200)",
         lambda rng: clt_scenario("f1", 200, rng, mc, weights="lognormal"), True),
        (f"permutation CLT {mc}: log-normal(0, 1.5) weights, ROC AUC (n=200)",
         lambda rng: clt_scenario("roc_auc", 200, rng, mc, weights="lognormal"), False),
        (f"permutation CLT {mc}: log-normal(0, 1.5) weights, average precision (n=200)",
         lambda rng: clt_scenario("pr_auc", 200, rng, mc, weights="lognormal"), False),
    ]
    for n in (200, 20_000):  # the permutation CLT of the loss sum (issue 15: losses beyond the budget, engines)
        for measure, title in (("log_loss", "log loss"), ("brier", "Brier")):
            scenarios.append((f"loss CLT: weighted {title} (3-class probabilities, n={n})",
                              lambda rng, m=measure, n=n: loss_clt_scenario(m, n, rng), True))
            scenarios.append((f"loss CLT: weighted {title} (binary scores, n={n})",
                              lambda rng, m=measure, n=n: loss_clt_scenario(m, n, rng, k=2), True))
    scenarios += [
        ("loss CLT: log loss (3-class probabilities, unweighted, n=200)",
         lambda rng: loss_clt_scenario("log_loss", 200, rng, weighted=False), True),
        ("loss CLT: weighted log loss (3-class, sharp Dirichlet(0.3) probabilities, n=200)",
         lambda rng: loss_clt_scenario("log_loss", 200, rng, alpha=0.3), True),
        ("loss CLT: weighted log loss (3-class probabilities, n=50)",
         lambda rng: loss_clt_scenario("log_loss", 50, rng), True),
        ("loss CLT: weighted log loss (3-class, sharp Dirichlet(0.3) probabilities, n=20000)",
         lambda rng: loss_clt_scenario("log_loss", 20_000, rng, alpha=0.3), True),
    ]
    for n in (200, 20_000):  # the permutation CLT of the absolute and pinball losses (issue 15: beyond the budget)
        for weighted in (True, False):
            for loss, title in (("absolute", "MAE / D²"), ("pinball", "pinball 0.9 / D²")):
                scenarios.append((f"absolute CLT: {'weighted' if weighted else 'unweighted'} {title} "
                                  f"(log-normal y, n={n})",
                                  lambda rng, lo=loss, n=n, wt=weighted: absolute_clt_scenario(lo, n, rng, wt), True))
    scenarios += [
        ("absolute CLT: weighted MAE / D² (log-normal y, n=50)",
         lambda rng: absolute_clt_scenario("absolute", 50, rng), True),
        ("absolute CLT: log-normal(0, 1.5) weights, MAE / D² (log-normal y, n=200)",
         lambda rng: absolute_clt_scenario("absolute", 200, rng, weights="lognormal"), True),
        ("absolute CLT: weighted MAE / D² (Poisson(2) y, integer predictions, n=200)",
         lambda rng: absolute_clt_scenario("absolute", 200, rng, discrete=True), True),
        ("absolute CLT: weighted pinball 0.99 / D² (log-normal y, n=200)",
         lambda rng: absolute_clt_scenario("pinball", 200, rng, alpha=0.99), True),
        ("absolute CLT: weighted pinball 0.99 / D² (log-normal y, n=2000)",
         lambda rng: absolute_clt_scenario("pinball", 2000, rng, alpha=0.99), True),
    ]
    for n in (200, 20_000):  # the permutation CLT of the one-vs-rest ROC AUCs (issue 15: AUCs beyond the budget)
        for weighted in (True, False):
            for measure, title in (("roc_auc", "macro ROC AUC"), ("roc_auc_weighted", "prevalence-weighted ROC AUC")):
                scenarios.append((f"AUC CLT: {'weighted' if weighted else 'unweighted'} {title} (3 classes, n={n})",
                                  lambda rng, m=measure, n=n, wt=weighted: auc_clt_scenario(m, n, rng, weighted=wt),
                                  True))
    for n in (2000, 20_000):  # the joint CLT of the one-vs-rest tables (issue 15: APs beyond the budget)
        for weighted in (True, False):
            scenarios.append((f"AP CLT 500: {'weighted' if weighted else 'unweighted'} macro average precision "
                              f"(3 classes, n={n})",
                              lambda rng, n=n, wt=weighted: ap_clt_scenario("pr_auc", n, rng, weighted=wt), True))
    seeds = {name: 1000 + i for i, (name, _, _) in enumerate(scenarios)}  # one seed per test, whatever --only picks
    if args.only:  # the seeds of the tests run
        print("seeds:", ", ".join(str(seeds[name]) for name, _, _ in scenarios if args.only in name))
    if args.only:
        scenarios = [row for row in scenarios if args.only in row[0]]
    print(f"type-I error at level {LEVEL}: {reps} replicates per test (target [0.03, 0.07] for the defaults)")
    print(f"{'test':84s} {'rate':>7s} {'s.e.':>7s} {'in range':>9s} {'default':>8s} {'seconds':>8s}")
    for name, draw, default in scenarios:
        rng = np.random.default_rng(seeds[name])
        t0 = time.perf_counter()
        p = np.array([draw(rng) for _ in range(reps)])
        rate = float(np.mean(p <= LEVEL))
        se = math.sqrt(rate * (1 - rate) / reps)
        ok = "yes" if 0.03 <= rate <= 0.07 else "NO"
        print(f"{name:84s} {rate:7.4f} {se:7.4f} {ok:>9s} {'yes' if default else 'no':>8s} "
              f"{time.perf_counter() - t0:8.1f}", flush=True)


if __name__ == "__main__":
    main()
