"""Continuous values where labels are expected are refused (issue 36, item 4).

Scores (``0.731``) or real-valued targets given to a function of class labels made a
number without a word: ``prediction_advantage(y, probabilities)`` with the 0/1 loss read
every distinct probability as a class.  The one label check of the door
(``beyondchance._validation.labels``) now refuses a label that is not a whole number, in
one line naming the argument, as scikit-learn's ``type_of_target`` calls it "continuous";
whole numbers as floats (``0.0``, ``1.0``) stay labels and give the value of the integers.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance import InvalidInputError
from beyondchance.measures import pure_loss

Y_TRUE = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
Y_PRED = np.array([0, 1, 0, 0, 1, 1, 0, 1, 1, 0])
SCORES = np.array([0.2, 0.9, 0.4, 0.1, 0.731, 0.6, 0.3, 0.8, 0.7, 0.05])
CONFIDENCE = np.linspace(0.9, 0.5, Y_TRUE.size)


def _value(result):
    """A comparable number of each function's result."""
    if isinstance(result, bc.ConfusionMatrix):
        return result.matrix.tolist(), result.metric("f1")
    if isinstance(result, bc.PACoverageCurve):
        return result.pa.tolist()
    for field in ("score", "estimate", "statistic"):
        if hasattr(result, field):
            return np.asarray(getattr(result, field)).tolist()
    return float(result)


def _scorer_function(name):
    """The function a scikit-learn scorer of ``get_scorer(name)`` calls on (y_true, response)."""
    scorer = bc.get_scorer(name)
    return lambda t, p: scorer._score_func(t, p, **scorer._kwargs)


#: every public function of class labels (y_true, y_pred): name -> call
LABELING = {
    "prediction_advantage (0/1 loss)": lambda t, p: bc.prediction_advantage(t, p),
    "prediction_advantage (cost matrix)": lambda t, p: bc.prediction_advantage(
        t, p, loss=bc.CostMatrixLoss([[0, 1], [3, 0]])),
    "prediction_advantage (label callable)": lambda t, p: bc.prediction_advantage(
        t, p, loss=bc.CallableLoss(lambda f, y: (f != y) * 1.0, prediction="label")),
    "pa_coverage_curve (0/1 loss)": lambda t, p: bc.pa_coverage_curve(t, p, CONFIDENCE),
    "pure_accuracy": lambda t, p: bc.pure_accuracy(t, p),
    "random_accuracy": lambda t, p: bc.random_accuracy(t, p),
    "pure_loss": lambda t, p: pure_loss(t, p),
    "ConfusionMatrix.from_predictions (labeling metrics)": lambda t, p: bc.ConfusionMatrix.from_predictions(t, p),
    "multiclass_outperformance_score (labeling OPS)": lambda t, p: bc.multiclass_outperformance_score("f1", t, p),
    "outperformance_score_ci (labeling OPS)": lambda t, p: bc.outperformance_score_ci(
        "f1", t, p, n_resamples=40, random_state=0),
    "bootstrap_ci (labeling metric)": lambda t, p: bc.bootstrap_ci(
        "accuracy", t, p, n_resamples=40, method="percentile", random_state=0),
    "permutation_test (labeling metric)": lambda t, p: bc.permutation_test(
        "accuracy", t, y_pred=p, n_resamples=99, method="monte-carlo", random_state=0),
    "scorer pure_accuracy": lambda t, p: _scorer_function("pure_accuracy")(t, p),
    "scorer ops_f1 (labeling OPS)": lambda t, p: _scorer_function("ops_f1")(t, p),
}

#: functions whose y_true only is labels (the other argument scores or probabilities)
TRUTH_ONLY = {
    "prediction_advantage (log loss)": lambda t: bc.prediction_advantage(t, SCORES, loss="log_loss"),
    "bayes_marginal_prediction (0/1 loss)": lambda t: bc.bayes_marginal_prediction(t, loss="zero_one").risk,
    "roc_auc": lambda t: bc.roc_auc(t, SCORES),
    "delong_test": lambda t: bc.delong_test(t, SCORES, SCORES[::-1]).pvalue,
    "scorer prediction_advantage_log_loss": lambda t: _scorer_function("prediction_advantage_log_loss")(t, SCORES),
}


def _one_line_error(call, *args) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InvalidInputError) as err:
            call(*args)
    message = str(err.value)
    assert "\n" not in message
    return message


def _same(call, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _value(call(*args))


@pytest.mark.parametrize("name", LABELING)
def test_labeling_function_refuses_continuous_values_and_takes_whole_floats(name):
    call = LABELING[name]
    message = _one_line_error(call, Y_TRUE, SCORES)
    assert message.startswith("y_pred holds continuous values, not labels: 0.2 in row 1 (index 0)"), message
    assert "threshold the scores" in message
    message = _one_line_error(call, SCORES, Y_PRED)
    assert message.startswith("y_true holds continuous values, not labels: 0.2 in row 1 (index 0)"), message
    expected = _same(call, Y_TRUE, Y_PRED)
    np.testing.assert_equal(_same(call, Y_TRUE.astype(float), Y_PRED.astype(float)), expected)  # nan == nan
    np.testing.assert_equal(_same(call, Y_TRUE, Y_PRED.astype(float)), expected)


@pytest.mark.parametrize("name", TRUTH_ONLY)
def test_the_labels_of_a_function_of_scores_refuse_continuous_values(name):
    call = TRUTH_ONLY[name]
    message = _one_line_error(call, SCORES * 3)  # beyond [0, 1]: not read as 0/1 labels either
    assert message.startswith("y_true holds continuous values, not labels: 0.6"), message
    np.testing.assert_equal(_same(call, Y_TRUE.astype(float)), _same(call, Y_TRUE))


def test_only_classification_losses_refuse_real_values():
    y = SCORES * 10
    for loss in ("squared", "absolute", bc.PinballLoss(0.3)):
        assert np.isfinite(bc.prediction_advantage(y, y + 0.25, loss=loss))
    for loss in ("zero_one", bc.CostMatrixLoss([[0, 1], [1, 0]])):
        message = _one_line_error(lambda lo: bc.prediction_advantage(y, y + 0.25, loss=lo), loss)
        assert message.startswith("y_true holds continuous values, not labels: 7.31 in row 5 (index 4)")  # 2.0: whole


def test_an_object_array_of_floats_is_read_as_its_values():
    message = _one_line_error(bc.pure_accuracy, Y_TRUE.astype(object), SCORES.astype(object))
    assert message.startswith("y_pred holds continuous values, not labels: 0.2 in row 1"), message
    assert bc.pure_accuracy(Y_TRUE.astype(float).astype(object), Y_PRED) == bc.pure_accuracy(Y_TRUE, Y_PRED)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=2, max_size=40),
    st.sampled_from(["prediction_advantage (0/1 loss)", "pure_accuracy",
                     "ConfusionMatrix.from_predictions (labeling metrics)",
                     "multiclass_outperformance_score (labeling OPS)"]),
    st.data(),
)
def test_whole_float_labels_give_the_value_of_the_int_labels_and_a_fraction_is_refused(pairs, name, data):
    t = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    call = LABELING[name]

    def outcome(*args):
        try:
            return _same(call, *args)
        except InvalidInputError:  # e.g. pos_label 1 absent: refused either way (the labels shown as floats)
            return "refused"

    np.testing.assert_equal(outcome(t.astype(float), p.astype(float)), outcome(t, p))
    row = data.draw(st.integers(0, len(pairs) - 1))
    fraction = data.draw(st.sampled_from([0.5, 0.25, 1e-6, 0.999]))
    scored = p.astype(float)
    scored[row] += fraction
    message = _one_line_error(call, t, scored)
    shown = f"{scored[row].item()!r} in row {row + 1} (index {row})"
    assert message.startswith(f"y_pred holds continuous values, not labels: {shown}"), message
