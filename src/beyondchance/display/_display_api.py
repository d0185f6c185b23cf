"""What every display shares: scikit-learn's Display API on top of beyondchance's curves.

A display holds the computed data (constructor arguments), draws it with
``plot`` (``ax=`` to draw on existing axes, so several models share one axes) and
is built from labels and scores by ``from_predictions`` or from a fitted classifier by
``from_estimator`` (scores from ``predict_proba`` / ``decision_function`` by
scikit-learn's own ``_get_response_values_binary``, as its displays do; scikit-learn
and matplotlib are imported when a display is used, not with the package).  After
``plot``: ``line_`` (the curve), ``chance_level_`` (the constant predictor's line,
or None), ``ax_`` and ``figure_``.  Displays only draw: every number comes from the
library's functions, which validate the input.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["CurveDisplay"]


def _style(defaults: dict, user: dict) -> dict:
    """scikit-learn's merge of default and user matplotlib keywords (aliases like ``c``)."""
    from sklearn.utils._plotting import _validate_style_kwargs

    return _validate_style_kwargs(defaults, user)


class CurveDisplay:
    """Base class: a curve of binary scores, one line per model, and a chance line.

    Subclasses set ``_x``, ``_y`` (names of the attributes plotted), the axis labels,
    ``_summary`` (attribute shown in the legend, e.g. the area) and implement
    ``_compute(y_true, y_score, *, sample_weight, pos_label, **options)`` returning the
    constructor's keyword arguments and ``_chance()`` returning the chance line's
    ``(x, y, label)``.
    """

    _x: ClassVar[str]
    _y: ClassVar[str]
    _xlabel: ClassVar[str]
    _ylabel: ClassVar[str]
    _summary: ClassVar[str | None] = None
    _summary_label: ClassVar[str] = ""
    #: keyword options of ``from_predictions`` passed to the computation, not to the plot
    _options: ClassVar[tuple[str, ...]] = ()
    _line_defaults: ClassVar[dict[str, Any]] = {}
    _limits: ClassVar[dict[str, Any]] = {}

    name: str | None
    pos_label: Any

    if TYPE_CHECKING:
        # each subclass has its own keyword-only constructor (the keys of ``_compute``'s dict and ``name``)
        def __init__(self, **kwargs: Any) -> None: ...

    # --- to implement -------------------------------------------------------------

    @classmethod
    def _compute(cls, y_true: Any, y_score: Any, *, sample_weight: Any, pos_label: Any) -> dict:
        # subclasses add their keyword options (``_options``) as keyword-only parameters
        raise NotImplementedError

    def _chance(self) -> tuple[Any, Any, str]:
        raise NotImplementedError

    # --- drawing ------------------------------------------------------------------

    def _label(self, name: str | None) -> str | None:
        value = getattr(self, self._summary) if self._summary else None
        if value is None or not math.isfinite(value):
            return name
        summary = f"{self._summary_label} = {value:0.2f}"
        return summary if name is None else f"{name} ({summary})"

    def plot(
        self,
        ax: Any = None,
        *,
        name: str | None = None,
        plot_chance_level: bool = True,
        chance_level_kw: dict | None = None,
        **kwargs: Any,
    ) -> Self:
        """Draw the curve (and the constant predictor's line) on ``ax`` (new axes if None).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Draw here; pass the ``ax_`` of another display to put several models on one axes.
        name : str, optional
            The legend name (default: the one given at construction).
        plot_chance_level : bool, default True
            Also draw the constant predictor's line (``chance_level_``).
        chance_level_kw : dict, optional
            Matplotlib keywords of the chance line.
        **kwargs
            Matplotlib keywords of the curve.

        Returns
        -------
        self, with ``line_``, ``chance_level_``, ``ax_`` and ``figure_`` set.
        """
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
        name = self.name if name is None else name
        line_kw = _style({**self._line_defaults, "label": self._label(name)}, kwargs)
        x, y = np.asarray(getattr(self, self._x)), np.asarray(getattr(self, self._y))
        (self.line_,) = self.ax_.plot(x, y, **line_kw)
        self.chance_level_ = None
        if plot_chance_level:
            cx, cy, label = self._chance()
            style = _style({"color": "k", "linestyle": "--", "label": label}, chance_level_kw or {})
            (self.chance_level_,) = self.ax_.plot(cx, cy, **style)
        suffix = f" (positive label: {self.pos_label})" if getattr(self, "pos_label", None) is not None else ""
        self.ax_.set(xlabel=self._xlabel + suffix, ylabel=self._ylabel, **self._limits)
        if line_kw.get("label") is not None or self.chance_level_ is not None:
            self.ax_.legend(loc="best")
        return self

    # --- construction ----------------------------------------------------------------

    @classmethod
    def _split(cls, kwargs: dict) -> tuple[dict, dict]:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k in cls._options}
        return options, kwargs

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_score: Any,
        *,
        sample_weight: Any = None,
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        plot_chance_level: bool = True,
        chance_level_kw: dict | None = None,
        **kwargs: Any,
    ) -> Self:
        """Compute from labels and scores, then plot.

        ``kwargs`` holds the computation's options listed in the class docstring;
        the rest goes to ``plot`` (matplotlib keywords of the curve).
        """
        options, plot_kw = cls._split(dict(kwargs))
        data = cls._compute(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label, **options)
        display = cls(**data, name="Classifier" if name is None else name)
        return display.plot(ax=ax, plot_chance_level=plot_chance_level, chance_level_kw=chance_level_kw, **plot_kw)

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        sample_weight: Any = None,
        response_method: str = "auto",
        pos_label: Any = None,
        name: str | None = None,
        ax: Any = None,
        plot_chance_level: bool = True,
        chance_level_kw: dict | None = None,
        **kwargs: Any,
    ) -> Self:
        """Scores of a fitted binary classifier on ``X`` (``predict_proba`` of the positive
        class, else ``decision_function``; ``response_method`` chooses), then
        ``from_predictions``."""
        from sklearn.utils._response import _get_response_values_binary

        y_score, pos_label = _get_response_values_binary(
            estimator, X, response_method=response_method, pos_label=pos_label
        )
        name = type(estimator).__name__ if name is None else name
        return cls.from_predictions(
            y, y_score, sample_weight=sample_weight, pos_label=pos_label, name=name, ax=ax,
            plot_chance_level=plot_chance_level, chance_level_kw=chance_level_kw, **kwargs,
        )


def check_defined(curve_x: Any, what: str) -> None:
    """A curve of nan (a class absent from y_true, already warned about) cannot be drawn."""
    if np.all(np.isnan(np.asarray(curve_x, dtype=np.float64))):
        raise InvalidInputError(f"the {what} is undefined: y_true must hold both classes")
