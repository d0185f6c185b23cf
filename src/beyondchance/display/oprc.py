"""OPRC display: precision and its outperformance score against recall (OPS paper, Fig. 4)."""

from __future__ import annotations

from typing import Any

from ..outperformance.curves import ops_precision_recall_curve
from ._ops_curve_display import OPS_OPTIONS, OPSCurveDisplay

__all__ = ["OPRCDisplay"]


class OPRCDisplay(OPSCurveDisplay):
    r"""The OPRC: OPS of the precision at each recall level, and the precision itself.

    OPS paper, section 4.2, Figs. 4(b), 5(b): at recall u the classifier's precision
    (eq. 9) and the share of random monotone (Directed-Binary-Tree) curves whose
    precision at u is lower (eq. 10), at the labels' prevalence π — the data of
    :func:`beyondchance.ops_precision_recall_curve`.  ``line_`` is the OPS curve,
    ``precision_line_`` the precision (``plot_precision=False`` leaves it out); a random
    ranking scores OPS ≈ 0.5 at every recall (the chance line).

    ``from_predictions`` / ``from_estimator`` accept the options of
    :func:`~beyondchance.ops_precision_recall_curve`: ``recall`` (levels), ``reference``,
    ``depth``, ``mc_samples``, ``random_state``, ``cache``.

    Parameters
    ----------
    levels : ndarray, the recall levels
    values : ndarray, the precision at each level
    ops : ndarray, its OPS
    standard_error : ndarray, optional, Monte Carlo standard error of ``ops``
    prevalence : float, optional
    reference : str, optional
    name : str, optional
    pos_label : optional

    Attributes
    ----------
    line_, precision_line_, chance_level_, ax_, figure_ : after ``plot``

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from beyondchance.display import OPRCDisplay
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.3, 0.35, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> d = OPRCDisplay.from_predictions(y, s, recall=[0.5, 1.0], mc_samples=2048)
    >>> d.precision_line_.get_ydata().round(4).tolist()
    [0.6667, 0.6667]
    """

    _xlabel = "Recall"
    _options = ("recall",) + OPS_OPTIONS
    _function = staticmethod(ops_precision_recall_curve)
    _what = "OPRC"
    _x, _y = "levels", "ops"

    def plot(self, ax: Any = None, *, name: str | None = None, plot_chance_level: bool = True,
             chance_level_kw: dict | None = None, plot_precision: bool = True, **kwargs: Any) -> "OPRCDisplay":
        """As ``plot``; ``plot_precision`` also draws the precision
        (``precision_line_``, dotted, in the OPS line's colour)."""
        super().plot(ax, name=name, plot_chance_level=plot_chance_level, chance_level_kw=chance_level_kw, **kwargs)
        self.precision_line_ = None
        if plot_precision:
            own = self.line_.get_label()
            label = "precision" if own.startswith("_") else f"{own}: precision"
            (self.precision_line_,) = self.ax_.plot(self.levels, self.values, linestyle=":", color=self.line_.get_color(),
                                                    label=label)
            self.ax_.set_ylabel("OPS of precision (solid), precision (dotted)")
            self.ax_.legend(loc="best")
        return self
