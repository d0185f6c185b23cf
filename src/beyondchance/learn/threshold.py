r"""The plug-in threshold classifier: h(x) = 1{η̂(x) > δ}, δ chosen on a held-out split.

The Pure Accuracy paper's learner (section 6): split the training data into S₁ and
S₂, estimate the posterior η̂ on S₁ (any probabilistic classifier; the paper uses
kernel logistic regression, :class:`~beyondchance.learn.KernelLogisticRegression`),
and choose δ on S₂ with one of the strategies of
:func:`~beyondchance.learn.choose_threshold` — the τ-interval search of Algorithm 2 by
default, which targets Theorem 1's optimum δ* = (1/2 − p)·PA* + p.

Compared with scikit-learn's :class:`~sklearn.model_selection.TunedThresholdClassifierCV`
(which maximises a scorer over a grid of thresholds, by default with cross-validation
and a refit on all data), this estimator offers the paper's strategies and its
protocol (one S₁/S₂ split, η̂ from S₁ only), and also accepts scikit-learn scorers as
objectives.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.model_selection import check_cv, train_test_split
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d, indexable

from .._validation import check_sample_weight
from .._warnings import InvalidInputError
from ._strategies import STRATEGIES, ThresholdChoice, choose_threshold

__all__ = ["PluginThresholdClassifier"]


def _subset(values: Any, idx: np.ndarray) -> Any:
    return None if values is None else _safe_indexing(values, idx)


class PluginThresholdClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    r"""Wrap a probabilistic classifier; choose its decision threshold on S₂.

    ``fit`` trains a clone of ``estimator`` on S₁, computes the positive-class score
    s(x) on S₂ and chooses δ there; ``predict`` returns the positive class iff
    s(x) > δ.  The score is ``predict_proba[:, pos]`` or, for estimators without
    ``predict_proba`` (or with ``response_method="decision_function"``), the sigmoid
    σ(d(x)) = 1/(1 + e^{−d(x)}) of ``decision_function``: thresholds then live on that
    (uncalibrated) probability scale, δ = 1/2 is d(x) = 0, and the p-dependent
    strategies (``p-cut``, ``tau-interval``, ``bisection*``) assume it is calibrated —
    wrap the estimator in :class:`~sklearn.calibration.CalibratedClassifierCV` if not.

    Parameters
    ----------
    estimator : classifier
        Any scikit-learn classifier with ``predict_proba`` or ``decision_function``.
    strategy : str, default="tau-interval"
        ``"fixed-0.5"``, ``"p-cut"``, ``"grid"``, ``"s2"``, ``"bisection"``,
        ``"bisection-f1"``, ``"bisection-pa"`` or ``"tau-interval"`` (Algorithm 2);
        see :func:`~beyondchance.learn.choose_threshold`.
    objective : str, LabelingMetric, scorer or callable, default="pure_accuracy"
        Maximised by ``grid``/``s2``/``bisection`` and reported (on S₂) as
        ``objective_value_`` for every strategy: a ``beyondchance.measures.registry`` name
        (``"pure_accuracy"``, ``"prediction_advantage"``, ``"f1"``, …), a scikit-learn
        scorer scoring labels (e.g. ``make_scorer(f1_score)``, ``"balanced_accuracy"``)
        or ``metric(y_true, y_pred[, sample_weight])``.
    validation_size : float in (0, 1), default=0.2
        Share of the training data held out (stratified) as S₂ — the paper's
        Algorithm 2 uses 8:2.  Ignored when ``cv`` or ``X_val`` is given.
    cv : None, int, splitter, iterable or "prefit", default=None
        None: the single hold-out split above.  A cross-validation scheme: the
        estimator is fitted on each training fold, the out-of-fold scores of all
        samples are pooled into one S₂ (cross-fitting), and the estimator is refitted
        on all data.  ``"prefit"``: ``estimator`` is already fitted and used as is;
        all the data passed to ``fit`` is S₂.
    tau : float in (0, 0.5), default=0.382
        Interval reduction ratio of ``tau-interval``.
    eps : float in (0, 1), default=1e-4
        Stopping width of ``tau-interval`` / ``bisection``.
    n_thresholds : int, default=101
        Grid size of ``grid`` (0, 0.01, …, 1).
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        Where the score comes from ("auto": ``predict_proba`` if available).
    pos_label : label, optional
        The positive class (default: ``classes_[1]``).
    refit : bool or "auto", default="auto"
        Refit the estimator on all of the training data after choosing δ.  "auto"
        means False for a hold-out split (the paper: η̂ comes from S₁ only) and True
        with ``cv`` (required there).  Ignored with ``"prefit"`` and ``X_val``.
    random_state : int, RandomState or None
        Seeds the hold-out split.

    Attributes
    ----------
    estimator_ : classifier
        The fitted estimator producing η̂.
    classes_ : ndarray of shape (2,)
    threshold_ : float
        δ, on the score scale described above.
    objective_value_ : float
        The objective's value on S₂ at δ.
    n_iter_ : int or None
        Iterations of ``tau-interval`` / ``bisection*`` (None for other strategies).
    prevalence_ : float
        p, the positive share of S₂ used by ``p-cut`` and ``tau-interval``.
    threshold_choice_ : ThresholdChoice
        The full result of the search.
    score_method_ : str
        ``"predict_proba"`` or ``"sigmoid(decision_function)"``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = make_classification(600, weights=[0.85], random_state=0)
    >>> clf = PluginThresholdClassifier(LogisticRegression(), random_state=0).fit(X, y)
    >>> 0.15 < clf.threshold_ < 0.5, clf.n_iter_
    (True, 20)
    >>> clf.predict(X[:5]).tolist() == (clf.decision_function(X[:5]) > 0).astype(int).tolist()
    True
    """

    # set by fit
    classes_: np.ndarray
    _pos_idx: int
    score_method_: str
    estimator_: Any
    threshold_: float

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "strategy": [StrOptions(set(STRATEGIES))],
        "objective": "no_validation",
        "validation_size": [Interval(Real, 0, 1, closed="neither")],
        "cv": ["cv_object", StrOptions({"prefit"}), None],
        "tau": [Real],
        "eps": [Real],
        "n_thresholds": [Interval(Integral, 2, None, closed="left")],
        "response_method": [StrOptions({"auto", "predict_proba", "decision_function"})],
        "pos_label": "no_validation",
        "refit": ["boolean", StrOptions({"auto"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator: Any,
        *,
        strategy: str = "tau-interval",
        objective: Any = "pure_accuracy",
        validation_size: float = 0.2,
        cv: Any = None,
        tau: float = 0.382,
        eps: float = 1e-4,
        n_thresholds: int = 101,
        response_method: str = "auto",
        pos_label: Any = None,
        refit: bool | str = "auto",
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.strategy = strategy
        self.objective = objective
        self.validation_size = validation_size
        self.cv = cv
        self.tau = tau
        self.eps = eps
        self.n_thresholds = n_thresholds
        self.response_method = response_method
        self.pos_label = pos_label
        self.refit = refit
        self.random_state = random_state

    def __sklearn_tags__(self):
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        try:
            inner = get_tags(self.estimator)
            tags.input_tags.sparse = inner.input_tags.sparse
            tags.input_tags.allow_nan = inner.input_tags.allow_nan
        except Exception:  # pragma: no cover - estimators without tags
            pass
        return tags

    # --- scores ---------------------------------------------------------------------

    def _score_method(self, est: Any) -> str:
        if self.response_method == "predict_proba" or (
            self.response_method == "auto" and hasattr(est, "predict_proba")
        ):
            if not hasattr(est, "predict_proba"):
                raise InvalidInputError(
                    f"estimator {type(est).__name__} has no predict_proba (response_method='predict_proba')"
                )
            return "predict_proba"
        if hasattr(est, "decision_function"):
            return "sigmoid(decision_function)"
        raise InvalidInputError(
            f"estimator {type(est).__name__} has neither predict_proba nor decision_function; "
            "the plug-in rule needs a score to threshold"
        )

    def _positive_scores(self, est: Any, X: Any, method: str, classes: np.ndarray, pos_idx: int) -> np.ndarray:
        if method == "predict_proba":
            proba = np.asarray(est.predict_proba(X), dtype=np.float64)
            return np.clip(proba[:, pos_idx], 0.0, 1.0)
        d = np.asarray(est.decision_function(X), dtype=np.float64).ravel()
        s = expit(d)  # decision_function > 0 means classes[1]
        return s if pos_idx == 1 else 1.0 - s

    # --- fit --------------------------------------------------------------------------

    def fit(
        self,
        X: Any,
        y: Any,
        sample_weight: Any = None,
        *,
        X_val: Any = None,
        y_val: Any = None,
        sample_weight_val: Any = None,
        **fit_params: Any,
    ) -> "PluginThresholdClassifier":
        """Fit the estimator on S₁ and choose the threshold on S₂.

        Parameters
        ----------
        X, y : training data (two classes).
        sample_weight : array-like, optional
            Passed to the estimator's ``fit`` (on S₁) and used in the objective (on S₂).
        X_val, y_val, sample_weight_val : optional
            An explicit S₂: the estimator is fitted on all of (X, y).  Inside a
            :class:`~sklearn.pipeline.Pipeline` note that ``X_val`` is *not* passed
            through the preceding steps.
        **fit_params
            Passed to the estimator's ``fit``.
        """
        self._validate_params()
        if not (isinstance(self.tau, Real) and 0.0 < self.tau < 0.5):
            raise InvalidInputError(f"tau must lie in the open interval (0, 0.5), got {self.tau!r}")
        if not (isinstance(self.eps, Real) and 0.0 < self.eps < 1.0):
            raise InvalidInputError(f"eps must lie in the open interval (0, 1), got {self.eps!r}")
        X = indexable(X)[0]  # sparse -> CSR, non-indexable iterables -> arrays
        y_arr = self._check_binary_target(y, "y")
        n = _num_samples(X)
        if y_arr.shape[0] != n:
            raise InvalidInputError(f"X has {n} samples but y has {y_arr.shape[0]}")
        sw = check_sample_weight(sample_weight, n)

        prefit = isinstance(self.cv, str) and self.cv == "prefit"
        refit = (self.cv is not None and not prefit) if self.refit == "auto" else bool(self.refit)
        if X_val is not None or y_val is not None:
            if X_val is None or y_val is None:
                raise InvalidInputError("pass both X_val and y_val (or neither)")
            if prefit:
                raise InvalidInputError("X_val/y_val cannot be combined with cv='prefit'")
            y_val_arr = self._check_binary_target(y_val, "y_val")
            X_val = indexable(X_val)[0]
            est = clone(self.estimator).fit(X, y_arr, **self._weights(sw), **fit_params)
            X2, y2, sw2 = X_val, y_val_arr, sample_weight_val
            refit = False
        elif prefit:
            check_is_fitted(self.estimator)
            est, X2, y2, sw2 = self.estimator, X, y_arr, sw
            refit = False
        elif self.cv is not None:
            if not refit:
                raise InvalidInputError("with cv the estimator must be refitted on all data (refit=True)")
            est = None
            X2, y2, sw2, scores = X, y_arr, sw, self._out_of_fold_scores(X, y_arr, sw, fit_params)
        else:
            idx = np.arange(n)
            try:
                idx1, idx2 = train_test_split(
                    idx, test_size=self.validation_size, stratify=y_arr, random_state=self.random_state
                )
            except ValueError as exc:
                raise InvalidInputError(
                    f"cannot hold out a stratified validation split S₂ of size "
                    f"{self.validation_size} from {n} samples: {exc}"
                ) from exc
            est = clone(self.estimator).fit(
                _subset(X, idx1), y_arr[idx1], **self._weights(_subset(sw, idx1)),
                **self._subset_params(fit_params, idx1, n),
            )
            X2, y2, sw2 = _subset(X, idx2), y_arr[idx2], _subset(sw, idx2)

        if est is not None:
            self.classes_, self._pos_idx = self._classes(est.classes_)
            self.score_method_ = self._score_method(est)
            scores = self._positive_scores(est, X2, self.score_method_, self.classes_, self._pos_idx)
        choice = choose_threshold(
            y2,
            scores,
            strategy=self.strategy,
            objective=self.objective,
            tau=self.tau,
            eps=self.eps,
            n_thresholds=self.n_thresholds,
            sample_weight=sw2,
            pos_label=self.classes_[self._pos_idx],
        )
        if refit:
            est = clone(self.estimator).fit(X, y_arr, **self._weights(sw), **fit_params)
        self.estimator_ = est
        self.threshold_choice_: ThresholdChoice = choice
        self.threshold_ = choice.threshold
        self.objective_value_ = choice.objective_value
        self.n_iter_ = choice.n_iter
        self.prevalence_ = choice.prevalence
        if hasattr(est, "n_features_in_"):
            self.n_features_in_ = est.n_features_in_
        if hasattr(est, "feature_names_in_"):
            self.feature_names_in_ = est.feature_names_in_
        return self

    @staticmethod
    def _weights(sw: Any) -> dict[str, Any]:
        return {} if sw is None else {"sample_weight": sw}

    @staticmethod
    def _subset_params(params: dict[str, Any], idx: np.ndarray, n: int) -> dict[str, Any]:
        out = {}
        for key, value in params.items():
            out[key] = _safe_indexing(value, idx) if _num_samples_or_none(value) == n else value
        return out

    def _check_binary_target(self, y: Any, name: str) -> np.ndarray:
        if y is None:
            raise InvalidInputError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        y_arr = np.asarray(y)
        if y_arr.size == 0:
            raise InvalidInputError(f"{name} is empty: 0 samples")
        if y_arr.ndim == 2 and y_arr.shape[1] == 1:
            y_arr = column_or_1d(y_arr, warn=True)
        check_classification_targets(y_arr)
        kind = type_of_target(y_arr, input_name=name)
        if kind == "binary" and np.unique(y_arr).size < 2:
            raise InvalidInputError(
                f"{name} has only one class ({np.unique(y_arr)[0]!r}); the plug-in rule needs 2 classes"
            )
        if kind != "binary":
            classes = np.unique(y_arr)
            if kind == "multiclass" or classes.size < 2:
                detail = f"{classes.size} class{'es' if classes.size != 1 else ''}"
                raise InvalidInputError(
                    f"{name} has {detail}; the plug-in threshold rule 1{{η̂(x) > δ}} is binary. "
                    "Only binary classification is supported."
                )
            raise InvalidInputError(f"{name} must be a binary target, got type {kind!r}")
        return y_arr

    def _classes(self, classes: np.ndarray) -> tuple[np.ndarray, int]:
        classes = np.asarray(classes)
        if classes.size != 2:
            raise InvalidInputError(f"the estimator has {classes.size} classes; the plug-in rule is binary")
        if self.pos_label is None:
            return classes, 1
        match = np.flatnonzero(classes == self.pos_label)
        if match.size == 0:
            raise InvalidInputError(f"pos_label={self.pos_label!r} is not one of the classes {classes.tolist()}")
        return classes, int(match[0])

    def _out_of_fold_scores(self, X: Any, y: np.ndarray, sw: Any, fit_params: dict[str, Any]) -> np.ndarray:
        cv = check_cv(self.cv, y, classifier=True)
        n = y.shape[0]
        scores = np.full(n, np.nan)
        self.classes_, self._pos_idx = self._classes(np.unique(y))
        method = None
        for train, test in cv.split(X, y):
            if np.unique(y[train]).size < 2:
                raise InvalidInputError("a training fold of cv has only one class")
            est = clone(self.estimator).fit(
                _subset(X, train), y[train], **self._weights(_subset(sw, train)),
                **self._subset_params(fit_params, train, n),
            )
            method = method or self._score_method(est)
            scores[test] = self._positive_scores(_FoldView(est, self.classes_), _subset(X, test), method,
                                                 self.classes_, self._pos_idx)
        if np.isnan(scores).any():
            raise InvalidInputError("cv must put every sample in exactly one test fold (a partition)")
        assert method is not None  # two classes, every sample scored: at least one fold ran
        self.score_method_ = method
        return scores

    # --- predict ----------------------------------------------------------------------

    def _scores(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "threshold_")
        return self._positive_scores(self.estimator_, X, self.score_method_, self.classes_, self._pos_idx)

    def decision_function(self, X: Any) -> np.ndarray:
        """s(x) − δ (positive ⇔ ``classes_[1]`` is predicted; sign flipped when
        ``pos_label`` is ``classes_[0]``)."""
        d = self._scores(X) - self.threshold_
        return d if self._pos_idx == 1 else -d

    def predict(self, X: Any) -> np.ndarray:
        """``pos_label`` iff s(x) > δ, else the other class."""
        positive = self._scores(X) > self.threshold_
        pos = self.classes_[self._pos_idx]
        neg = self.classes_[1 - self._pos_idx]
        return np.where(positive, pos, neg)

    def predict_proba(self, X: Any) -> np.ndarray:
        """The wrapped estimator's probabilities (columns in ``classes_`` order);
        [1 − σ(d), σ(d)] for a ``decision_function``-only estimator."""
        check_is_fitted(self, "threshold_")
        if self.score_method_ == "predict_proba":
            return self.estimator_.predict_proba(X)
        s = expit(np.asarray(self.estimator_.decision_function(X), dtype=np.float64).ravel())
        return np.column_stack((1.0 - s, s))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


class _FoldView:
    """A fold's estimator, checked to know the same two classes as the full data."""

    def __init__(self, est: Any, classes: np.ndarray) -> None:
        if not np.array_equal(np.asarray(est.classes_), classes):
            raise InvalidInputError("every training fold of cv must contain both classes")
        self._est = est

    def __getattr__(self, name: str) -> Any:
        return getattr(self._est, name)


def _num_samples_or_none(value: Any) -> int | None:
    try:
        return _num_samples(value)
    except TypeError:
        return None
