"""Net benefit against its definition by hand, the PA–net-benefit identity on random data
(against bc.prediction_advantage under the cost-weighted 0/1 loss), the display, and the
decision curve in the binary-scores HTML report."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.display import DecisionCurveDisplay


def by_hand(y, s, pt, w=None):
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    treat = s >= pt
    n = w.sum()
    tp = w[treat & (y == 1)].sum()
    fp = w[treat & (y == 0)].sum()
    return tp / n - fp / n * pt / (1 - pt)


@pytest.mark.parametrize("seed", range(3))
def test_net_benefit_is_its_definition(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 250)
    s = np.round(np.clip(0.4 * y + rng.random(250) * 0.7, 0, 1), 2)  # ties on the thresholds too
    w = rng.random(250)
    pts = np.array([0.01, 0.1, 0.25, 0.5, 0.51, 0.77, 0.99])
    for pt in pts:
        assert abs(bc.net_benefit(y, s, pt) - by_hand(y, s, pt)) < 1e-12
        assert abs(bc.net_benefit(y, s, pt, sample_weight=w) - by_hand(y, s, pt, w)) < 1e-12
    dc = bc.decision_curve(y, s, thresholds=pts)
    np.testing.assert_allclose(dc.net_benefit, bc.net_benefit(y, s, pts), atol=1e-15)
    pi = y.mean()
    np.testing.assert_allclose(dc.treat_all, [by_hand(y, np.ones(250), pt) for pt in pts], atol=1e-12)
    np.testing.assert_allclose(dc.treat_all, pi - (1 - pi) * pts / (1 - pts), atol=1e-12)
    assert (dc.treat_none == 0).all() and dc.prevalence == pytest.approx(pi, abs=1e-15)
    assert abs(bc.net_benefit(y, y.astype(float), 0.3) - pi) < 1e-12  # a perfect predictor: NB = π
    assert len(bc.decision_curve(y, s).threshold) == 99


def pa_cost_weighted(y, s, pt):
    costs = bc.CostMatrixLoss([[0.0, 1 - pt], [pt, 0.0]], labels=[0, 1])  # rows predicted, columns true
    return bc.prediction_advantage(y, (s >= pt).astype(int), loss=costs)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 120), pt=st.floats(0.01, 0.99))
def test_pa_net_benefit_identity(seed, n, pt):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n), 2)
    dc = bc.decision_curve(y, s, thresholds=[pt])
    nb, nb_all, pi = dc.net_benefit[0], dc.treat_all[0], dc.prevalence
    expected = pa_cost_weighted(y, s, pt)
    assert abs(dc.prediction_advantage[0] - expected) < 1e-12
    assert abs(dc.prediction_advantage[0] - (nb - max(0.0, nb_all)) / (pi - max(0.0, nb_all))) < 1e-12
    # the sign: better than the better constant strategy exactly when NB beats max(0, NB_all)
    assert (expected > 1e-12) == (nb > max(0.0, nb_all) + 1e-12) or abs(nb - max(0.0, nb_all)) < 1e-12


def test_bad_input():
    y, s = [0, 1, 1, 0], [0.2, 0.8, 0.6, 0.4]
    for pt in (0.0, 1.0, -0.2, 1.5):
        with pytest.raises(bc.InvalidInputError, match="strictly between 0 and 1"):
            bc.net_benefit(y, s, pt)
    with pytest.raises(bc.InvalidInputError, match="probabilities"):
        bc.net_benefit(y, [2.0, 3.0, -1.0, 0.5], 0.5)
    with pytest.raises(bc.InvalidInputError, match="both classes"):
        bc.decision_curve([1, 1, 1, 1], s)
    with pytest.raises(bc.InvalidInputError, match="different lengths"):
        bc.decision_curve([0, 1, 1], s)


def test_display():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    d = DecisionCurveDisplay.from_predictions(y, 1 / (1 + np.exp(-X[:, 0])), name="x0", advantage=True)
    np.testing.assert_array_equal(d.line_.get_ydata(), d.curve.net_benefit)
    np.testing.assert_array_equal(d.pa_line_.get_ydata(), d.curve.prediction_advantage)
    np.testing.assert_array_equal(d.treat_all_line_.get_ydata(), d.curve.treat_all)
    model = LogisticRegression().fit(X, y)
    e = DecisionCurveDisplay.from_estimator(model, X, y)
    np.testing.assert_allclose(e.curve.net_benefit, bc.net_benefit(y, model.predict_proba(X)[:, 1],
                                                                   e.curve.threshold))
    assert e.line_.get_label() == "LogisticRegression"


def test_in_the_binary_scores_html_report():
    from beyondchance.report.render.plots import report_figures

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = np.clip(0.5 + 0.2 * (2 * y - 1) + rng.normal(0, 0.2, 300), 0, 1)
    keys = [k for k, _, _ in report_figures(bc.evaluate(y, s, ci=False, metrics=["f1"]))]
    assert "decision_curve" in keys
    html = bc.evaluate(y, s, ci=False, metrics=["f1"]).to_html()
    assert 'id="plot-decision_curve"' in html
    margins = bc.evaluate(y, 4 * s - 2, ci=False, metrics=["f1"])  # not probabilities: no decision curve
    assert "decision_curve" not in [k for k, _, _ in report_figures(margins)]
