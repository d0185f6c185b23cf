"""The one-vs-rest score counts of class probabilities (issue 12, item 1): their AUCs equal
scikit-learn's roc_auc_score(multi_class="ovr") and average_precision_score of the
binarized labels, weighted or not; merged chunks equal the whole; the binned counts
stay within their stated bound; the probabilities report carries the macro AUCs with
the OPS per class."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.preprocessing import label_binarize

import beyondchance as bc
from beyondchance import InvalidInputError
from beyondchance.engines.memory import statistics_from_arrays
from beyondchance.statistics.scores import ClassScoreCounts


def _problem(seed: int, n: int = 400, k: int = 3, decimals: int = 2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 1.2 * np.eye(k)[y]
    p = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), decimals)
    return y, p / p.sum(axis=1, keepdims=True), rng.uniform(0.0, 2.0, n)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5), weighted=st.booleans(), decimals=st.integers(1, 3))
def test_ovr_aucs_are_sklearns(seed, k, weighted, decimals):
    y, p, w = _problem(seed, k=k, decimals=decimals)
    if np.bincount(y, minlength=k).min() == 0:
        return
    sw = w if weighted else None
    cs = statistics_from_arrays(y, y_proba=p, sample_weight=sw).class_scores
    yb = label_binarize(y, classes=np.arange(k)) if k > 2 else np.column_stack([y == 0, y == 1])
    for average in ("macro", "weighted", None):
        roc = [skm.roc_auc_score(yb[:, j], p[:, j], sample_weight=sw) for j in range(k)]
        ap = [skm.average_precision_score(yb[:, j], p[:, j], sample_weight=sw) for j in range(k)]
        support = yb.T @ (np.ones(y.size) if sw is None else sw)
        expect = {None: (roc, ap), "macro": (np.mean(roc), np.mean(ap)),
                  "weighted": (np.average(roc, weights=support), np.average(ap, weights=support))}[average]
        np.testing.assert_allclose(cs.auc("roc", average=average), expect[0], atol=1e-12)
        np.testing.assert_allclose(cs.auc("pr", average=average), expect[1], atol=1e-12)
    if k > 2:
        assert cs.auc("roc") == pytest.approx(skm.roc_auc_score(y, p, multi_class="ovr", sample_weight=sw), abs=1e-12)


def test_merge_of_chunks_is_the_whole():
    y, p, w = _problem(7, n=900, k=4)
    whole = statistics_from_arrays(y, y_proba=p, sample_weight=w).class_scores
    parts = [statistics_from_arrays(y[i:i + 300], y_proba=p[i:i + 300], sample_weight=w[i:i + 300],
                                    labels=[0, 1, 2, 3]).class_scores for i in range(0, 900, 300)]
    merged = parts[0].merge(parts[1]) + parts[2]
    for a, b in zip(whole.counts, merged.counts):
        np.testing.assert_array_equal(a.thresholds, b.thresholds)
        np.testing.assert_allclose(a.tps, b.tps, rtol=1e-12)
        np.testing.assert_allclose(a.fps, b.fps, rtol=1e-12)


@pytest.mark.parametrize("bins", [10, 100])
def test_binned_within_stated_bound(bins):
    y, p, w = _problem(3, n=2000, k=3, decimals=4)
    exact = statistics_from_arrays(y, y_proba=p, sample_weight=w).class_scores
    binned = statistics_from_arrays(y, y_proba=p, sample_weight=w, score_bins=bins).class_scores
    assert exact.auc_error_bound() == 0.0 and not binned.exact
    for kind in ("roc", "pr"):
        for j, (e, b) in enumerate(zip(exact.counts, binned.counts)):
            assert abs(e.auc(kind, method="ap" if kind == "pr" else "default")
                       - b.auc(kind, method="ap" if kind == "pr" else "default")) <= b.auc_error_bound(kind) + 1e-12
        assert abs(exact.auc(kind) - binned.auc(kind)) <= binned.auc_error_bound(kind) + 1e-12


def test_undefined_without_every_class_and_bad_construction():
    y, p, _ = _problem(2, n=60, k=3)
    keep = y != 2
    stats = statistics_from_arrays(y[keep], y_proba=p[keep], labels=[0, 1, 2])
    with pytest.raises(InvalidInputError, match="every class"):
        stats.class_scores.auc("roc")
    with pytest.raises(InvalidInputError, match="average"):
        stats.class_scores.auc("roc", average="micro")
    with pytest.raises(InvalidInputError, match="one score statistic per class"):
        ClassScoreCounts([0, 1, 2], stats.class_scores.counts[:2])
    with pytest.raises(InvalidInputError, match="different classes"):
        stats.class_scores.merge(ClassScoreCounts([5, 6, 7], stats.class_scores.counts))


def test_report_rows_and_ops_per_class():
    y, p, w = _problem(11, n=1500, k=3)
    r = bc.evaluate(y, p, sample_weight=w, n_resamples=200)
    roc, ap = r["roc_auc"], r["pr_auc"]
    assert roc.value == pytest.approx(skm.roc_auc_score(y, p, multi_class="ovr", sample_weight=w), abs=1e-12)
    yb = label_binarize(y, classes=[0, 1, 2])
    assert ap.value == pytest.approx(skm.average_precision_score(yb, p, sample_weight=w), abs=1e-12)
    prev = np.bincount(y, weights=w) / w.sum()
    assert ap.baseline == pytest.approx(prev.mean()) and roc.baseline == 0.5
    per_class = bc.outperformance_score("roc_auc", [skm.roc_auc_score(y == j, p[:, j], sample_weight=w)
                                                   for j in range(3)], prev)
    assert roc.ops == pytest.approx(float(np.mean(per_class.score)), abs=1e-12)
    assert roc.ci is None and any("one-vs-rest AUCs have no interval" in n for n in r.notes)
    assert "one-vs-rest" in roc.verdict
