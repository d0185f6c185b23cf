"""OPS(lift) display: the outperformance score of the lift against the predicted-positive rate."""

from __future__ import annotations

from ..outperformance.curves import ops_lift_curve
from ._ops_curve_display import OPS_OPTIONS, OPSCurveDisplay

__all__ = ["OPSLiftDisplay"]


class OPSLiftDisplay(OPSCurveDisplay):
    r"""The OPS(lift) curve: OPS of the lift at each predicted-positive rate (OPS paper Figs. 6(b), 7(b)).

    At each rate q = K/n: the share of random monotone (Directed-Binary-Tree) curves
    whose lift at q is below the classifier's — the data of
    :func:`beyondchance.ops_lift_curve` (``values`` holds the lift itself, drawn by
    :class:`LiftDisplay`).  A random ranking scores OPS ≈ 0.5 (the chance line).

    ``from_predictions`` / ``from_estimator`` accept the options of
    :func:`~beyondchance.ops_lift_curve`: ``rate`` (levels), ``reference``, ``depth``,
    ``mc_samples``, ``random_state``, ``cache``.

    Parameters
    ----------
    levels : ndarray, the predicted-positive rates
    values : ndarray, the lift at each rate
    ops : ndarray, its OPS
    standard_error, prevalence, reference, name, pos_label : optional

    Attributes
    ----------
    line_, chance_level_, ax_, figure_ : after ``plot``

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from beyondchance.display import OPSLiftDisplay
    >>> d = OPSLiftDisplay.from_predictions([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6], rate=[0.25, 1.0])
    >>> d.values.tolist()     # lift at the two rates; OPS at rate 1 is 0: every curve has lift 1 there
    [2.0, 1.0]
    >>> float(d.ops[1])
    0.0
    """

    _xlabel = "Predicted-positive rate"
    _ylabel = "OPS of lift"
    _options = ("rate",) + OPS_OPTIONS
    _function = staticmethod(ops_lift_curve)
    _what = "OPS(lift) curve"
    _x, _y = "levels", "ops"
