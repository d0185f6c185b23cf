"""scikit-learn scorers (issue 14, item 2): each scorer's fold values equal the measure
computed by hand (with scikit-learn's metrics where they compute the same quantity) on
the fold's rows, in cross_validate, GridSearchCV and TunedThresholdClassifierCV, with
string labels and pos_label."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.datasets import make_classification, make_regression
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, TunedThresholdClassifierCV, cross_val_score, \
    cross_validate

import beyondchance as bc
from beyondchance import InvalidInputError
from beyondchance.outperformance.scoring import scoring_outperformance_score


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=600, weights=[0.75], flip_y=0.1, random_state=0)
    return X, np.where(y == 1, "pos", "neg")


def test_cross_validate_scores_equal_the_measures_on_each_fold(data):
    X, y = data
    scoring = {
        "pa": bc.get_scorer("prediction_advantage"),
        "pa_log_loss": bc.make_scorer("prediction_advantage_log_loss", pos_label="neg"),
        "pure": bc.get_scorer("pure_accuracy"),
        "ops_f1": bc.make_scorer("ops_f1", pos_label="pos"),
        "ops_pr_auc_neg": bc.make_scorer("ops_pr_auc", pos_label="neg"),
        "ops_roc_auc": bc.get_scorer("ops_roc_auc"),
    }
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    res = cross_validate(LogisticRegression(), X, y, cv=cv, scoring=scoring, return_estimator=True,
                         return_indices=True)
    for k, (est, test) in enumerate(zip(res["estimator"], res["indices"]["test"])):
        yt, pred = y[test], est.predict(X[test])
        proba = est.predict_proba(X[test])
        col = {c: i for i, c in enumerate(est.classes_)}
        err, err0 = np.mean(yt != pred), min(np.mean(yt == "pos"), np.mean(yt == "neg"))
        assert res["test_pa"][k] == pytest.approx(1 - err / err0, abs=1e-12)
        # PA under log loss: 1 - LL(model) / LL(the fold's class frequencies)
        p_neg = np.mean(yt == "neg")
        ll = skm.log_loss(yt == "neg", proba[:, col["neg"]])
        ll0 = skm.log_loss(yt == "neg", np.full(yt.size, p_neg))
        assert res["test_pa_log_loss"][k] == pytest.approx(1 - ll / ll0, abs=1e-12)
        assert res["test_pure"][k] == pytest.approx(bc.pure_accuracy(yt, pred), abs=1e-12)
        pi = np.mean(yt == "pos")
        f1 = skm.f1_score(yt, pred, pos_label="pos")
        assert res["test_ops_f1"][k] == pytest.approx(bc.outperformance_score("f1", f1, pi).score, abs=1e-12)
        ap_neg = skm.average_precision_score(yt == "neg", proba[:, col["neg"]])
        assert res["test_ops_pr_auc_neg"][k] == pytest.approx(
            scoring_outperformance_score("pr_auc", ap_neg, 1 - pi).score, abs=1e-12)
        auc = skm.roc_auc_score(yt == "pos", est.decision_function(X[test]))
        assert res["test_ops_roc_auc"][k] == pytest.approx(scoring_outperformance_score("roc_auc", auc, pi).score,
                                                           abs=1e-12)


def test_grid_search_and_tuned_threshold(data):
    X, y = data
    grid = GridSearchCV(LogisticRegression(), {"C": [0.001, 1.0]}, cv=3, scoring=bc.get_scorer("ops_pr_auc")).fit(X, y)
    scores = grid.cv_results_["mean_test_score"]
    assert np.all((scores >= 0) & (scores <= 1)) and grid.best_params_ in ({"C": 0.001}, {"C": 1.0})
    tuned = TunedThresholdClassifierCV(LogisticRegression(), scoring=bc.make_scorer("ops_f1", pos_label="pos"),
                                       cv=3).fit(X, y)
    assert 0 < tuned.best_score_ <= 1 and 0 < tuned.best_threshold_ < 1
    assert set(tuned.predict(X)) <= {"neg", "pos"}


def test_pa_under_squared_loss_is_r2_in_cross_validation():
    X, y = make_regression(n_samples=200, n_features=5, noise=20.0, random_state=1)
    ours = cross_val_score(LinearRegression(), X, y, cv=5, scoring=bc.get_scorer("prediction_advantage_squared"))
    r2 = cross_val_score(LinearRegression(), X, y, cv=5, scoring="r2")
    np.testing.assert_allclose(ours, r2, atol=1e-12)


def test_the_trivial_predictor_scores_zero_and_names_are_checked(data):
    X, y = data
    dummy = DummyClassifier(strategy="most_frequent").fit(X, y)
    assert bc.get_scorer("prediction_advantage")(dummy, X, y) == 0.0
    assert bc.get_scorer("pure_accuracy")(dummy, X, y) == 0.0
    with pytest.raises(InvalidInputError, match="unknown scorer 'ops_nonsense'"):
        bc.get_scorer("ops_nonsense")
    with pytest.raises(InvalidInputError, match="loss must be one of"):
        bc.make_scorer("prediction_advantage", loss="hinge")
    assert "ops_mcc" in bc.learn.scorer_names() and "prediction_advantage_brier" in bc.learn.scorer_names()


def test_multiclass_ops_scorer_is_the_macro_one_vs_rest_ops():
    X, y = make_classification(n_samples=450, n_classes=3, n_informative=4, random_state=2)
    est = LogisticRegression(max_iter=500).fit(X[:300], y[:300])
    pred = est.predict(X[300:])
    expected = bc.multiclass_outperformance_score("f1", y[300:], pred).score
    assert bc.get_scorer("ops_f1")(est, X[300:], y[300:]) == pytest.approx(expected, abs=1e-12)


def test_ops_scorer_with_one_class_in_the_fold_truth():
    """A fold whose truth holds one class while the predictions hold both: the positive
    class is the same for truth and predictions (the last label of both)."""
    from sklearn.dummy import DummyClassifier

    X = np.zeros((8, 1))
    y = np.array(["neg"] * 8)
    est = DummyClassifier(strategy="constant", constant="pos").fit(X, np.array(["neg", "pos"] * 4))
    cm = bc.ConfusionMatrix.from_predictions(y == "pos", est.predict(X) == "pos", labels=[False, True],
                                             pos_label=True)
    assert cm.fp == 8 and cm.tp == 0
    # no positives in the truth: prevalence 0, where no OPS exists — a clear error, never the
    # OPS of "neg" taken as the positive class (prevalence 1)
    with pytest.raises(InvalidInputError, match="prevalence must lie in \\(0, 1\\), got 0.0"):
        bc.get_scorer("ops_precision")(est, X, y)
