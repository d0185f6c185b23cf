"""The permutation CLT of the log loss and Brier score (beyondchance.permutation_loss)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from beyondchance.baselines import get_loss
from beyondchance.permutation_loss import PermutationLossSums, class_losses


def _loss_sum(loss: str, codes: np.ndarray, proba: np.ndarray, w: np.ndarray) -> float:
    """Σ_j w_j ℓ(p_j, y_j) with the library's per-row losses."""
    name = "cross_entropy" if loss == "log_loss" else loss
    return float(np.dot(w, get_loss(name).sample_losses_proba(proba, codes)))


@pytest.mark.parametrize("loss", ["log_loss", "brier"])
@pytest.mark.parametrize("n", [4, 6, 7])
def test_moments_equal_the_exact_permutation_moments(loss, n):
    """Mean and variance of the weighted loss sum over all n! permutations of the (label,
    weight) pairs against the probability rows (3 classes, weighted, a tiny probability clipped)."""
    rng = np.random.default_rng(n)
    proba = rng.dirichlet(np.ones(3) * 0.7, size=n)
    proba[0] = [1.0, 0.0, 0.0]  # the log loss's clipping
    codes, w = rng.integers(0, 3, n), rng.exponential(size=n)
    w[1] = 0.0  # a zero weight: its prediction is permuted too
    values = np.array([_loss_sum(loss, codes[list(p)], proba, w[list(p)])
                       for p in itertools.permutations(range(n))])
    sums = PermutationLossSums.of_proba(codes, proba, w)
    mean, var = sums.moments(loss)
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    assert var == pytest.approx(values.var(), rel=1e-9)
    assert sums.observed[loss] == pytest.approx(_loss_sum(loss, codes, proba, w), rel=1e-12)


@pytest.mark.parametrize("loss", ["log_loss", "brier"])
def test_binary_scores_moments_exact(loss):
    """Binary scores (K = 2, the binary report's losses): exact moments at n = 7."""
    from beyondchance.score_statistics import loss_terms

    rng = np.random.default_rng(3)
    n = 7
    s, y, w = rng.random(n), rng.integers(0, 2, n) == 1, rng.exponential(size=n)
    pos, neg = loss_terms(s, loss)

    def total(yy, ww):
        return float(np.dot(ww, np.where(yy, pos, neg)))

    values = np.array([total(y[list(p)], w[list(p)]) for p in itertools.permutations(range(n))])
    sums = PermutationLossSums.of_scores(y, s, w)
    mean, var = sums.moments(loss)
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    assert var == pytest.approx(values.var(), rel=1e-9)
    assert sums.observed[loss] == pytest.approx(total(y, w), rel=1e-12)


def test_class_losses_are_the_library_losses():
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(4), size=50)
    proba[0] = [0, 0, 1, 0]
    for loss, name in (("log_loss", "cross_entropy"), ("brier", "brier")):
        table = class_losses(proba, loss)
        for k in range(4):
            np.testing.assert_array_equal(table[:, k], get_loss(name).sample_losses_proba(proba, np.full(50, k)))


def test_merge_and_chunks():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), size=300)
    codes, w = rng.integers(0, 3, 300), rng.exponential(size=300)
    whole = PermutationLossSums.of_proba(codes, proba, w)
    parts = [PermutationLossSums.of_proba(codes[i::3], proba[i::3], w[i::3]) for i in range(3)]
    merged = parts[0] + parts[1] + parts[2]
    for loss in ("log_loss", "brier"):
        a, b = whole.test(loss), merged.test(loss)
        assert a.pvalue == pytest.approx(b.pvalue, rel=1e-9) and a.null_std == pytest.approx(b.null_std, rel=1e-9)
    assert merged.to_dict()["n"] == 300


def test_constant_predictions_give_p_one():
    proba = np.tile([0.2, 0.3, 0.5], (40, 1))
    rng = np.random.default_rng(2)
    r = PermutationLossSums.of_proba(rng.integers(0, 3, 40), proba, rng.exponential(size=40)).test("brier")
    assert r.pvalue == 1.0 and r.null_std == 0.0
