"""scikit-learn-style displays: the plotted data is the library's computation, the
constant predictor's line is where it belongs, several models share one axes, and
from_estimator = from_predictions on the estimator's scores (bundled Pima data)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

import beyondchance as bc  # noqa: E402
from beyondchance.datasets import load_keel  # noqa: E402
from beyondchance.display import (  # noqa: E402
    GainDisplay,
    LiftDisplay,
    OPRCDisplay,
    OPSLiftDisplay,
    PACoverageDisplay,
    PrecisionRecallGainDisplay,
    ReliabilityDisplay,
)

G = 2048  # reference curves for the OPS displays in tests


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def pima():
    d = load_keel("pima")
    X_tr, X_te, y_tr, y_te = train_test_split(d.X, d.y, test_size=0.4, random_state=0, stratify=d.y)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)
    w = np.random.default_rng(14).uniform(0.2, 2.0, y_te.size)
    return model, X_te, y_te, model.predict_proba(X_te)[:, 1], w


def _xy(line):
    return np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)


def test_lift_and_gain_plot_the_curves(pima):
    _, _, y, s, w = pima
    d = LiftDisplay.from_predictions(y, s, sample_weight=w, name="logreg")
    c = bc.lift_curve(y, s, sample_weight=w)
    x, yy = _xy(d.line_)
    np.testing.assert_array_equal(x, c.x)
    np.testing.assert_array_equal(yy, c.y)
    assert d.lift_auc == c.auc()
    assert _xy(d.chance_level_)[1].tolist() == [1.0, 1.0]
    assert d.line_.get_label() == f"logreg (AUC = {c.auc():0.2f})"
    g = GainDisplay.from_predictions(y, s, sample_weight=w)
    cg = bc.gain_curve(y, s, sample_weight=w)
    np.testing.assert_array_equal(np.c_[cg.x, cg.y], g.line_.get_xydata())
    assert g.chance_level_.get_xydata().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert g.ax_.get_xlabel().startswith("Predicted-positive rate") and g.figure_ is g.ax_.figure


def test_precision_recall_gain_display(pima):
    _, _, y, s, w = pima
    d = PrecisionRecallGainDisplay.from_predictions(y, s, sample_weight=w)
    c = bc.precision_recall_gain_curve(y, s, sample_weight=w)
    np.testing.assert_array_equal(d.line_.get_xydata(), np.c_[c.recall_gain, c.precision_gain])
    assert d.auprg == bc.prg_auc(y, s, sample_weight=w)
    assert _xy(d.chance_level_)[1].tolist() == [0.0, 0.0]


def test_reliability_display_matches_calibration_curve(pima):
    from sklearn.calibration import calibration_curve

    _, _, y, s, _ = pima
    d = ReliabilityDisplay.from_predictions(y, s, n_bins=8)
    prob_true, prob_pred = calibration_curve(y, s, n_bins=8)
    x, yy = _xy(d.line_)
    np.testing.assert_allclose(x, prob_pred, rtol=0, atol=1e-12)
    np.testing.assert_allclose(yy, prob_true, rtol=0, atol=1e-12)
    assert d.expected_calibration_error == bc.expected_calibration_error(y, s, n_bins=8)
    assert d.chance_level_.get_xydata().tolist() == [[0.0, 0.0], [1.0, 1.0]]


def test_ops_curve_displays_plot_the_ops_curves(pima):
    _, _, y, s, w = pima
    levels = [0.1, 0.3, 0.5, 0.7, 0.9]
    d = OPRCDisplay.from_predictions(y, s, sample_weight=w, recall=levels, mc_samples=G)
    c = bc.ops_precision_recall_curve(y, s, sample_weight=w, recall=levels, mc_samples=G)
    np.testing.assert_array_equal(d.line_.get_xydata(), np.c_[c.x, c.ops])
    np.testing.assert_array_equal(d.precision_line_.get_xydata(), np.c_[c.x, c.y])
    assert _xy(d.chance_level_)[1].tolist() == [0.5, 0.5]
    bare = OPRCDisplay.from_predictions(y, s, recall=levels, mc_samples=G, plot_precision=False)
    assert bare.precision_line_ is None and len(bare.ax_.lines) == 2
    lift = OPSLiftDisplay.from_predictions(y, s, sample_weight=w, rate=levels, mc_samples=G)
    cl = bc.ops_lift_curve(y, s, sample_weight=w, rate=levels, mc_samples=G)
    np.testing.assert_array_equal(lift.line_.get_xydata(), np.c_[cl.x, cl.ops])
    np.testing.assert_array_equal(lift.values, cl.y)


def test_pa_coverage_display(pima):
    model, X, y, s, w = pima
    d = PACoverageDisplay.from_estimator(model, X, y, sample_weight=w)
    conf = model.predict_proba(X).max(axis=1)
    c = bc.pa_coverage_curve(y, model.predict(X), conf, sample_weight=w)
    np.testing.assert_array_equal(d.line_.get_xydata(), np.c_[c.coverage, c.pa])
    assert d.area == c.area and d.line_.get_label() == f"Pipeline (area = {c.area:0.2f})"
    assert d.chance_level_.get_xydata().tolist() == [[0.0, 0.0], [1.0, 0.0]]
    # a probability loss predicts with predict_proba
    p = PACoverageDisplay.from_estimator(model, X, y, loss="log_loss", coverages=10)
    cp = bc.pa_coverage_curve(y, model.predict_proba(X), conf, loss="log_loss", coverages=10, labels=model.classes_)
    np.testing.assert_allclose(p.pa, cp.pa, rtol=0, atol=1e-12)
    # no predict_proba: |decision_function| is the confidence
    svc = make_pipeline(StandardScaler(), LinearSVC()).fit(X, y)
    v = PACoverageDisplay.from_estimator(svc, X, y)
    cv = bc.pa_coverage_curve(y, svc.predict(X), np.abs(svc.decision_function(X)))
    np.testing.assert_array_equal(v.pa, cv.pa)


@pytest.mark.parametrize("cls, extra", [
    (LiftDisplay, {}), (GainDisplay, {}), (PrecisionRecallGainDisplay, {}), (ReliabilityDisplay, {}),
    (OPRCDisplay, {"recall": [0.2, 0.6], "mc_samples": G}), (OPSLiftDisplay, {"rate": [0.2, 0.6], "mc_samples": G}),
])
def test_from_estimator_equals_from_predictions_and_shares_axes(pima, cls, extra):
    model, X, y, s, _ = pima
    est = cls.from_estimator(model, X, y, **extra)
    pred = cls.from_predictions(y, s, name="scores", **extra)
    np.testing.assert_array_equal(est.line_.get_xydata(), pred.line_.get_xydata())
    assert est.line_.get_label().startswith("Pipeline")
    # a second model on the same axes, without a second chance line
    noisy = s + np.random.default_rng(0).normal(0, 0.3, s.size)
    if cls is ReliabilityDisplay:
        noisy = np.clip(noisy, 0, 1)
    other = cls.from_predictions(y, noisy, name="noisy", ax=est.ax_, plot_chance_level=False, color="tab:red", **extra)
    assert other.ax_ is est.ax_ and other.figure_ is est.figure_ and other.chance_level_ is None
    labels = [t.get_text() for t in est.ax_.get_legend().get_texts()]
    assert any(t.startswith("Pipeline") for t in labels) and any(t.startswith("noisy") for t in labels)
    assert matplotlib.colors.same_color(other.line_.get_color(), "tab:red")


def test_plot_redraws_with_another_name_and_chance_style(pima):
    _, _, y, s, _ = pima
    d = GainDisplay.from_predictions(y, s, plot_chance_level=False)
    assert d.chance_level_ is None
    fig, ax = plt.subplots()
    d.plot(ax=ax, name="again", chance_level_kw={"color": "tab:green", "label": "diagonal"})
    assert d.ax_ is ax and d.line_.get_label().startswith("again (AUC")
    assert d.chance_level_.get_label() == "diagonal"
    assert matplotlib.colors.same_color(d.chance_level_.get_color(), "tab:green")


def test_string_labels_and_pos_label():
    rng = np.random.default_rng(5)
    y = rng.choice(["ham", "spam"], 200)
    s = rng.uniform(size=200) + (y == "spam") * 0.5
    d = LiftDisplay.from_predictions(y, s, pos_label="spam")
    c = bc.lift_curve(y, s, pos_label="spam")
    np.testing.assert_array_equal(d.line_.get_ydata(), c.y)
    assert "spam" in d.ax_.get_xlabel()
    # without pos_label: the one rule of every door, the minority class
    minority = "spam" if (y == "spam").sum() < (y == "ham").sum() else "ham"
    np.testing.assert_array_equal(LiftDisplay.from_predictions(y, s).line_.get_ydata(),
                                  bc.lift_curve(y, s, pos_label=minority).y)
    X = np.c_[s]
    model = LogisticRegression().fit(X, y)
    e = PrecisionRecallGainDisplay.from_estimator(model, X, y)  # positive class: classes_[-1] = "spam"
    assert e.auprg == pytest.approx(bc.prg_auc(y, model.predict_proba(X)[:, 1], pos_label="spam"), abs=1e-15)


def test_one_class_is_a_clear_error():
    with pytest.warns(bc.UndefinedMeasureWarning), pytest.raises(bc.InvalidInputError, match="both classes"):
        LiftDisplay.from_predictions([1, 1, 1], [0.2, 0.4, 0.9])
    with pytest.warns(bc.UndefinedMeasureWarning), pytest.raises(bc.InvalidInputError, match="both classes"):
        PrecisionRecallGainDisplay.from_predictions([0, 0], [0.2, 0.4])
    with pytest.raises(bc.InvalidInputError, match="y_proba must lie in"):
        ReliabilityDisplay.from_predictions([0, 1], [0.2, 1.4])
