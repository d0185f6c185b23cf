"""ConfusionMatrix and the labeling-metric registry against scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import beyondchance as bc
from beyondchance import ConfusionMatrix, InvalidInputError, UndefinedMeasureWarning
from beyondchance.measures.registry import METRICS, get_metric

TOL = 1e-12


@st.composite
def labeled_predictions(draw, max_classes=4, weighted=True, min_size=1):
    k = draw(st.integers(2, max_classes))
    n = draw(st.integers(min_size, 60))
    y_true = draw(arrays(np.int64, n, elements=st.integers(0, k - 1)))
    y_pred = draw(arrays(np.int64, n, elements=st.integers(0, k - 1)))
    w = None
    if weighted and draw(st.booleans()):
        # zero or at least 0.1: with weight ratios near 1e-7 scikit-learn's own formulas
        # (e.g. MCC via covariances) lose more than 1e-12 to cancellation
        w = draw(arrays(np.float64, n, elements=st.just(0.0) | st.floats(0.1, 10.0)))
        if w.sum() == 0:
            w[0] = 1.0
    return y_true, y_pred, w


def _silently(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


@settings(max_examples=60, deadline=None)
@given(labeled_predictions())
def test_matrix_equals_sklearn_confusion_matrix(data):
    y_true, y_pred, w = data
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=w)
    expected = skm.confusion_matrix(y_true, y_pred, labels=cm.labels, sample_weight=w)
    np.testing.assert_allclose(cm.matrix, expected, rtol=TOL, atol=TOL)
    assert cm.n == pytest.approx(len(y_true) if w is None else w.sum(), rel=TOL)


def test_matrix_with_string_labels_and_explicit_label_order():
    y_true = ["cat", "dog", "dog", "bird"]
    y_pred = ["dog", "dog", "cat", "bird"]
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, labels=["dog", "cat", "bird"], pos_label="dog")
    expected = skm.confusion_matrix(y_true, y_pred, labels=["dog", "cat", "bird"])
    np.testing.assert_array_equal(cm.matrix, expected)
    assert cm.labels.tolist() == ["dog", "cat", "bird"]


BINARY_AGREEMENT = {
    "accuracy": lambda t, p, w: skm.accuracy_score(t, p, sample_weight=w),
    "balanced_accuracy": lambda t, p, w: skm.balanced_accuracy_score(t, p, sample_weight=w),
    "f1": lambda t, p, w: skm.f1_score(t, p, sample_weight=w, zero_division=np.nan),
    "precision": lambda t, p, w: skm.precision_score(t, p, sample_weight=w, zero_division=np.nan),
    "recall": lambda t, p, w: skm.recall_score(t, p, sample_weight=w, zero_division=np.nan),
    "specificity": lambda t, p, w: skm.recall_score(t, p, pos_label=0, sample_weight=w, zero_division=np.nan),
    "npv": lambda t, p, w: skm.precision_score(t, p, pos_label=0, sample_weight=w, zero_division=np.nan),
    "kappa": lambda t, p, w: skm.cohen_kappa_score(t, p, sample_weight=w),
    "pure_accuracy": lambda t, p, w: skm.cohen_kappa_score(t, p, sample_weight=w),
    "mcc": lambda t, p, w: skm.matthews_corrcoef(t, p, sample_weight=w),
    "error": lambda t, p, w: skm.zero_one_loss(t, p, sample_weight=w),
    "informedness": lambda t, p, w: skm.balanced_accuracy_score(t, p, sample_weight=w, adjusted=True),
}


@settings(max_examples=80, deadline=None)
@given(labeled_predictions(max_classes=2, min_size=2))
def test_binary_metrics_agree_with_sklearn(data):
    y_true, y_pred, w = data
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=w, labels=[0, 1])
    both_classes = cm.true_counts.min() > 0
    for name, reference in BINARY_AGREEMENT.items():
        ours = cm.metric(name, zero_division="nan")
        if np.isnan(ours):
            continue  # undefined: sklearn substitutes a value of its own choice
        if name == "informedness" and not both_classes:
            continue  # sklearn averages over the classes present in y_true only
        theirs = _silently(reference, y_true, y_pred, w)
        assert ours == pytest.approx(theirs, abs=TOL), name


@settings(max_examples=100, deadline=None)
@given(labeled_predictions(max_classes=2, min_size=2), st.floats(0.1, 5.0))
def test_fbeta_agrees_with_sklearn(data, beta):
    y_true, y_pred, w = data
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=w, labels=[0, 1])
    ours = cm.metric("fbeta", beta=beta, zero_division="nan")
    if not np.isnan(ours):
        theirs = _silently(skm.fbeta_score, y_true, y_pred, beta=beta, sample_weight=w, zero_division=np.nan)
        assert ours == pytest.approx(theirs, abs=TOL)


@settings(max_examples=60, deadline=None)
@given(labeled_predictions(max_classes=5, min_size=3))
@example((np.ones(19, dtype=int), np.array([2, 1] + [0] * 17), np.full(19, 4.0839537)))  # MCC was 1.2e-9, not undefined
def test_multiclass_metrics_agree_with_sklearn(data):
    y_true, y_pred, w = data
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=w)
    labels = cm.labels
    for average in ("macro", "weighted", "micro"):
        for name, func in (("f1", skm.f1_score), ("precision", skm.precision_score), ("recall", skm.recall_score)):
            per_class = cm.metric(name, average=None, zero_division="nan")
            if np.isnan(per_class).any():
                continue
            ours = cm.metric(name, average=average, zero_division="nan")
            theirs = _silently(func, y_true, y_pred, labels=labels, average=average, sample_weight=w, zero_division=np.nan)
            assert ours == pytest.approx(theirs, abs=TOL), (name, average)
    for name, func in (("kappa", skm.cohen_kappa_score), ("mcc", skm.matthews_corrcoef)):
        ours = cm.metric(name, zero_division="nan")
        if not np.isnan(ours):
            assert ours == pytest.approx(_silently(func, y_true, y_pred, sample_weight=w), abs=TOL), name
    assert cm.metric("accuracy") == pytest.approx(skm.accuracy_score(y_true, y_pred, sample_weight=w), abs=TOL)
    ba = _silently(skm.balanced_accuracy_score, y_true, y_pred, sample_weight=w)
    assert cm.metric("balanced_accuracy") == pytest.approx(ba, abs=TOL)


@settings(max_examples=100, deadline=None)
@given(labeled_predictions(max_classes=5, min_size=2))
def test_pure_accuracy_is_cohens_kappa(data):
    y_true, y_pred, w = data
    ours = _silently(bc.pure_accuracy, y_true, y_pred, sample_weight=w)
    kappa = _silently(skm.cohen_kappa_score, y_true, y_pred, sample_weight=w)
    if not np.isnan(ours):
        assert ours == pytest.approx(kappa, abs=TOL)
        assert bc.measures.pure_loss(y_true, y_pred, sample_weight=w) == pytest.approx(1 - ours, abs=TOL)


def test_random_accuracy_matches_definition():
    # p = 0.3 positives, q = 0.6 predicted positives: RA = 0.3*0.6 + 0.7*0.4 = 0.46
    y_true = np.r_[np.ones(3), np.zeros(7)]
    y_pred = np.r_[np.ones(6), np.zeros(4)]
    assert bc.random_accuracy(y_true, y_pred) == pytest.approx(0.46, abs=TOL)


def test_constant_prediction_has_zero_pure_accuracy():
    y = np.array([0, 1, 1, 0, 0, 0, 1])
    assert bc.pure_accuracy(y, np.zeros_like(y)) == 0.0
    assert bc.pure_accuracy(y, np.ones_like(y)) == 0.0


def test_pure_accuracy_undefined_when_truth_and_prediction_are_one_constant():
    with pytest.warns(UndefinedMeasureWarning):
        assert np.isnan(bc.pure_accuracy([1, 1, 1], [1, 1, 1]))
    with pytest.raises(bc.UndefinedMeasureError):
        bc.pure_accuracy([1, 1, 1], [1, 1, 1], strict=True)


@settings(max_examples=100, deadline=None)
@given(  # rates 0 or above 1e-300: near the underflow, π·β rounds to 0 or a subnormal where n·π·β
    # does not, and DOR = TP·TN / (FP·FN) is nan or overflows on one side only
    st.floats(0.01, 0.99), *[st.floats(0.0, 1.0).filter(lambda r: r == 0 or r > 1e-300)] * 2,
    st.floats(1.0, 1e4),
)
def test_rates_parametrisation_matches_counts(pi, alpha, beta, n):
    """M(π, α, β) evaluated via from_rates equals M on counts of any size n."""
    tp, fn = n * pi * (1 - beta), n * pi * beta
    fp, tn = n * (1 - pi) * alpha, n * (1 - pi) * (1 - alpha)
    cm = ConfusionMatrix.from_counts(tp=tp, fp=fp, fn=fn, tn=tn)
    assert cm.prevalence == pytest.approx(pi)
    assert cm.alpha == pytest.approx(alpha, abs=1e-12)
    assert cm.beta == pytest.approx(beta, abs=1e-12)
    for m in METRICS.values():
        options = {"beta": 2.0} if m.options else {}
        a = m.from_rates(pi, alpha, beta, **options)
        b = cm.metric(m, zero_division="nan", **options)
        if np.isnan(a):
            assert np.isnan(b)
        else:
            assert a == pytest.approx(b, rel=1e-9, abs=1e-12), m.name


def test_every_metric_stays_in_its_declared_range():
    rng = np.random.default_rng(0)
    pi, alpha, beta = rng.uniform(0.01, 0.99, 20000), rng.uniform(size=20000), rng.uniform(size=20000)
    for m in METRICS.values():
        options = {"beta": 0.5} if m.options else {}
        values = m.from_rates(pi, alpha, beta, **options)
        lo, hi = m.range_at(pi)
        ok = np.isnan(values) | ((values >= np.asarray(lo) - 1e-12) & (values <= np.asarray(hi) + 1e-12))
        assert ok.all(), m.name


def test_binary_view_of_multiclass_is_one_vs_rest():
    y_true = [0, 1, 2, 2, 1, 0, 2]
    y_pred = [0, 2, 2, 1, 1, 0, 2]
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, pos_label=2)
    tp, fp, fn, tn = cm.binary_counts()
    assert (tp, fp, fn, tn) == (2.0, 1.0, 1.0, 3.0)
    per_class = cm.metric("recall", average=None)
    np.testing.assert_allclose(per_class, skm.recall_score(y_true, y_pred, average=None))


def test_single_class_data():
    cm = ConfusionMatrix.from_predictions([0, 0, 0], [0, 0, 0])
    assert cm.binary_counts() == (0.0, 0.0, 0.0, 3.0)
    assert cm.metric("accuracy") == 1.0
    with pytest.warns(UndefinedMeasureWarning):
        assert np.isnan(cm.metric("prediction_advantage"))
    with pytest.warns(UndefinedMeasureWarning):
        assert np.isnan(cm.metric("recall"))
    assert cm.metric("recall", zero_division=0.0) == 0.0


def test_labels_in_pred_absent_from_true_are_allowed_and_the_reverse():
    cm = ConfusionMatrix.from_predictions([0, 0, 1, 1], [0, 2, 1, 1])
    assert cm.labels.tolist() == [0, 1, 2]
    assert cm.metric("accuracy") == 0.75
    cm = ConfusionMatrix.from_predictions([0, 2, 1, 1], [0, 0, 1, 1])
    assert cm.true_counts.tolist() == [1, 2, 1]


def test_merge_equals_concatenation():
    rng = np.random.default_rng(1)
    y_true, y_pred = rng.integers(0, 3, 500), rng.integers(0, 3, 500)
    w = rng.uniform(0, 2, 500)
    whole = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=w)
    parts = [ConfusionMatrix.from_predictions(y_true[s], y_pred[s], sample_weight=w[s])
             for s in (slice(0, 100), slice(100, 101), slice(101, 500))]
    merged = parts[2].merge(parts[0]) + parts[1]
    np.testing.assert_allclose(merged.matrix, whole.matrix, rtol=1e-12)
    # different label sets are aligned
    a = ConfusionMatrix.from_predictions([0, 1], [0, 1])
    b = ConfusionMatrix.from_predictions([2, 2], [1, 2])
    assert (a + b).labels.tolist() == [0, 1, 2]
    np.testing.assert_array_equal((a + b).matrix, [[1, 0, 0], [0, 1, 0], [0, 1, 1]])


def test_boolean_and_float_labels():
    cm = ConfusionMatrix.from_predictions([True, False, True], [True, True, False])
    assert cm.binary_counts() == (1.0, 1.0, 1.0, 0.0)
    cm = ConfusionMatrix.from_predictions([1.0, 0.0, 1.0], [1.0, 1.0, 0.0])
    assert cm.binary_counts() == (1.0, 1.0, 1.0, 0.0)


@pytest.mark.parametrize(
    "y_true, y_pred, kwargs, message",
    [
        ([0, 1, 1], [0, 1], {}, "different lengths"),
        ([], [], {}, "empty"),
        ([0.0, np.nan], [0, 1], {}, "NaN"),
        ([0, 1], [0, np.inf], {}, r"infinite value: inf in row 2 \(index 1\)"),
        ([0, 1], [0, 1], {"sample_weight": [1, -1]}, "negative"),
        ([0, 1], [0, 1], {"sample_weight": [1, np.nan]}, "NaN"),
        ([0, 1], [0, 1], {"sample_weight": [1, 1, 1]}, "length"),
        ([0, 1], [0, 1], {"sample_weight": [0, 0]}, "sums to zero"),
        (["a", "b"], [0, 1], {}, "mix string and numeric"),
        ([0, 1, 2], [0, 1, 2], {"labels": [0, 1]}, "not in `labels`"),
        ([[0, 1], [1, 0]], [0, 1], {}, "1-dimensional"),
    ],
)
def test_bad_input_is_a_clear_error(y_true, y_pred, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        ConfusionMatrix.from_predictions(y_true, y_pred, **kwargs)


def test_missing_positive_label_is_reported_when_a_binary_measure_is_asked_for():
    cm = ConfusionMatrix.from_predictions(["a", "b"], ["a", "b"])
    assert cm.metric("accuracy") == 1.0
    with pytest.raises(InvalidInputError, match="pos_label=1 is not one of the labels"):
        cm.metric("f1")
    assert ConfusionMatrix.from_predictions(["a", "b"], ["a", "b"], pos_label="b").metric("f1") == 1.0


def test_unknown_metric_lists_known_names():
    cm = ConfusionMatrix.from_predictions([0, 1], [0, 1])
    with pytest.raises(InvalidInputError, match="known metrics: accuracy, error"):
        cm.metric("acuracy")
    with pytest.raises(InvalidInputError, match="known options"):
        cm.metric("f1", beta=2)
    with pytest.raises(InvalidInputError, match="beta must be positive"):
        cm.metric("fbeta", beta=-1)


def test_aliases_resolve():
    assert get_metric("TPR") is METRICS["recall"]
    assert get_metric("youden-j") is METRICS["informedness"]
    assert get_metric("cohen_kappa") is METRICS["kappa"]


def test_average_binary_on_multiclass_is_an_error():
    cm = ConfusionMatrix.from_predictions([0, 1, 2], [0, 1, 2])
    with pytest.raises(InvalidInputError, match="two classes"):
        cm.metric("f1", average="binary")
    with pytest.raises(InvalidInputError, match="average must be"):
        cm.metric("f1", average="samples")


def test_bad_matrix_construction():
    with pytest.raises(InvalidInputError, match="square"):
        ConfusionMatrix(np.ones((2, 3)), np.array([0, 1]))
    with pytest.raises(InvalidInputError, match="non-negative"):
        ConfusionMatrix(np.array([[1, -1], [0, 1]]), np.array([0, 1]))
    with pytest.raises(InvalidInputError, match="labels"):
        ConfusionMatrix(np.ones((2, 2)), np.array([0, 1, 2]))


# --- zero_division: scikit-learn's policy, class by class ------------------------------------


def test_weighted_recall_ignores_a_class_without_support():
    """A class that is only predicted has weight 0 in the weighted average (issue 11)."""
    y_true, y_pred = [0, 1, 1, 0], [0, 1, 2, 0]
    cm = ConfusionMatrix.from_predictions(y_true, y_pred)
    expected = _silently(skm.recall_score, y_true, y_pred, average="weighted")
    with pytest.warns(UndefinedMeasureWarning, match="recall is undefined .* for class 2: counted as 0"):
        assert cm.metric("recall", average="weighted") == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("zero_division", [0, 1, np.nan])
def test_numeric_zero_division_is_substituted_per_class(zero_division):
    """Macro precision with class 2 never predicted: sklearn gives 4/9 for zero_division=0."""
    y_true, y_pred = [0, 1, 2, 2], [0, 1, 1, 1]
    cm = ConfusionMatrix.from_predictions(y_true, y_pred)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a number is an explicit choice: no warning
        ours = cm.metric("precision", average="macro", zero_division=zero_division)
    theirs = skm.precision_score(y_true, y_pred, average="macro", zero_division=zero_division)
    assert ours == pytest.approx(theirs, abs=TOL)


@st.composite
def _predictions_with_label_set(draw):
    """Labels 0..k-1 with classes that are never predicted, never true, or neither."""
    k = draw(st.integers(2, 5))
    n = draw(st.integers(1, 30))
    true_set = draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=k, unique=True))
    pred_set = draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=k, unique=True))
    y_true = np.array(draw(st.lists(st.sampled_from(true_set), min_size=n, max_size=n)))
    y_pred = np.array(draw(st.lists(st.sampled_from(pred_set), min_size=n, max_size=n)))
    w = None
    if draw(st.booleans()):
        w = draw(arrays(np.float64, n, elements=st.just(0.0) | st.floats(0.1, 10.0)))
        if w.sum() == 0:
            w[0] = 1.0
    return y_true, y_pred, w, np.arange(k)


@settings(max_examples=150, deadline=None)
@given(
    _predictions_with_label_set(),
    st.sampled_from(["macro", "weighted", "micro"]),
    st.sampled_from(["warn", 0, 1, np.nan]),
    st.sampled_from([1.0, 0.5, 2.0]),
)
def test_averages_equal_sklearn_precision_recall_fscore_support(data, average, zero_division, beta):
    y_true, y_pred, w, labels = data
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=w, labels=labels)
    theirs = _silently(
        skm.precision_recall_fscore_support, y_true, y_pred, beta=beta, labels=labels, average=average,
        sample_weight=w, zero_division=zero_division,
    )[:3]
    ours = [
        _silently(cm.metric, "precision", average=average, zero_division=zero_division),
        _silently(cm.metric, "recall", average=average, zero_division=zero_division),
        _silently(cm.metric, "fbeta", average=average, zero_division=zero_division, beta=beta),
    ]
    if beta == 1.0:
        assert _silently(cm.metric, "f1", average=average, zero_division=zero_division) == ours[2]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOL, equal_nan=True)


def test_bootstrap_estimate_and_interval_follow_the_per_class_policy():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    p = np.where(rng.random(200) < 0.7, y, rng.integers(0, 3, 200))
    p[p == 2] = 1  # class 2 is never predicted
    for zero_division in (0, 1, "warn"):
        expected = _silently(skm.precision_score, y, p, average="macro", zero_division=zero_division)
        res = _silently(bc.bootstrap_ci, "precision", y, p, average="macro", zero_division=zero_division,
                        n_resamples=200, random_state=0)
        assert res.estimate == pytest.approx(expected, abs=TOL)
        assert res.n_undefined == 0 and res.low <= res.estimate <= res.high


def test_lr_undefined_messages_name_the_case():
    """LR+ without false positives is TPR / 0 (infinite), not 0/0; LR− with every row
    predicted positive is 0/0: the warnings and the report's notes say which."""
    from beyondchance.measures.registry import undefined_case
    from beyondchance.report import evaluate

    cm = ConfusionMatrix.from_predictions([0, 1, 1, 0, 1], [0, 1, 0, 0, 1])
    with pytest.warns(UndefinedMeasureWarning, match=r"lr_plus is undefined .*no false positives: "
                                                     r"LR\+ = TPR / FPR = 0.667 / 0, infinite"):
        assert np.isnan(cm.metric("lr_plus"))
    with pytest.warns(UndefinedMeasureWarning, match=r"every row predicted positive: LR− = FNR / TNR = 0/0"):
        assert np.isnan(ConfusionMatrix.from_predictions([0, 1, 1, 0], [1, 1, 1, 1]).metric("lr_minus"))
    with pytest.warns(UndefinedMeasureWarning, match=r"no true negatives: LR− = FNR / TNR = 0.5 / 0, infinite"):
        ConfusionMatrix.from_predictions([0, 1, 1, 0], [1, 1, 0, 1]).metric("lr_minus")
    assert undefined_case("lr_plus", 0, 0, 2, 3) == "no row predicted positive: LR+ = TPR / FPR = 0/0"
    assert undefined_case("lr_plus", 0, 1, 0, 3).startswith("no positives")
    assert undefined_case("precision", 0, 0, 2, 3) == "0/0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate([0, 1, 1, 0, 1] * 20, [0, 1, 0, 0, 1] * 20, metrics=["lr_plus", "lr_minus"], ci=False)
    assert "lr_plus is undefined: no false positives: LR+ = TPR / FPR = 0.667 / 0, infinite" in r.notes
    assert not any("0/0" in n for n in r.notes)


def test_jaccard_fdr_for_likelihood_ratios_and_dor():
    """Issue 14, item 5: from the counts, equal to scikit-learn (jaccard_score,
    class_likelihood_ratios) and to PyCM's definitions (FDR = FP/(TP+FP), FOR =
    FN/(FN+TN), DOR = LR+/LR−), weighted and per class."""
    import sklearn.metrics as skm

    from beyondchance import outperformance_score

    rng = np.random.default_rng(14)
    y = rng.integers(0, 2, 500)
    p = np.where(rng.random(500) < 0.75, y, 1 - y)
    w = rng.uniform(0.5, 2.0, 500)
    cm = ConfusionMatrix.from_predictions(y, p, sample_weight=w)
    tp, fp, fn, tn = cm.tp, cm.fp, cm.fn, cm.tn
    assert cm.metric("jaccard") == pytest.approx(skm.jaccard_score(y, p, sample_weight=w), abs=1e-12)
    assert cm.metric("csi") == cm.metric("jaccard")
    lr_plus, lr_minus = skm.class_likelihood_ratios(y, p, sample_weight=w)
    assert cm.metric("lr_plus") == pytest.approx(lr_plus, abs=1e-12)
    assert cm.metric("lr_minus") == pytest.approx(lr_minus, abs=1e-12)
    assert cm.metric("fdr") == pytest.approx(fp / (tp + fp), abs=1e-15) == pytest.approx(1 - cm.metric("precision"))
    assert cm.metric("for") == pytest.approx(fn / (fn + tn), abs=1e-15) == pytest.approx(1 - cm.metric("npv"))
    assert cm.metric("dor") == pytest.approx(lr_plus / lr_minus, rel=1e-12)
    k3 = rng.integers(0, 3, 300)
    q3 = np.where(rng.random(300) < 0.6, k3, rng.integers(0, 3, 300))
    cm3 = ConfusionMatrix.from_predictions(k3, q3)
    for average in ("macro", "weighted", "micro"):
        assert cm3.metric("jaccard", average=average) == pytest.approx(
            skm.jaccard_score(k3, q3, average=average), abs=1e-12), average
    # undefined, as in scikit-learn: LR+ without false positives, DOR without errors
    perfect = ConfusionMatrix.from_predictions([0, 1, 1, 0], [0, 1, 1, 0])
    assert np.isnan(perfect.metric("lr_plus")) and np.isnan(perfect.metric("dor"))
    # the likelihood ratios' OPS is prevalence-free: v/2 below 1, 1 − 1/(2v) above (LR+)
    for v in (0.4, 1.0, 3.0):
        expected = v / 2 if v <= 1 else 1 - 1 / (2 * v)
        for pi in (0.05, 0.5):
            assert outperformance_score("lr_plus", v, pi).score == pytest.approx(expected, abs=1e-15)
            assert outperformance_score("lr_minus", v, pi).score == pytest.approx(1 - expected, abs=1e-15)
            mc = outperformance_score("lr_plus", v, pi, method="monte-carlo", mc_samples=200_000, random_state=1)
            assert abs(mc.score - expected) <= 4 * mc.standard_error
