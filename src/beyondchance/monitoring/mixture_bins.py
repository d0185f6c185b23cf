"""The reference's score bins as the parts of a mixture: the bin of a window's score, and the
window's prevalence by EM (Saerens, Latinne & Decaestecker 2002) — shared by the label-free
estimate (:mod:`.label_free`) and its label-shift test (:mod:`.label_shift_test`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .set_statistics import SetStatistics

_EM_TOL = 1e-8
_EM_MAX_ITER = 1000


def _window_bins(s: SetStatistics, scores: np.ndarray) -> np.ndarray:
    """Bin index (the reference's bins, by decreasing score) of each window score: the
    boundary between two bins is the threshold where it separates them, else the midpoint."""
    assert s.bin_scores is not None  # a reference of scores
    hi, lo = s.bin_scores[:, 0], s.bin_scores[:, 1]
    bounds = (lo[:-1] + hi[1:]) / 2
    if 0 < s.cut < hi.shape[0]:
        bounds[s.cut - 1] = s.threshold
    # bin = number of boundaries strictly above the score
    return bounds.shape[0] - np.searchsorted(bounds[::-1], scores, side="right")


def _em(ref_pos: np.ndarray, ref_neg: np.ndarray, window: np.ndarray) -> Any:
    """Saerens et al. (2002) EM of the prior, the posteriors calibrated on the reference:
    within each bin, p_r(1 | bin) = the reference's share of positives there.  Arrays (B, K)
    or (K,): the reference's class weights and the window's weights per bin; returns (B,)."""
    rp, rn, w = (np.atleast_2d(x) for x in (ref_pos, ref_neg, window))
    P, N = rp.sum(1, keepdims=True), rn.sum(1, keepdims=True)
    pr = P / (P + N)
    with np.errstate(invalid="ignore", divide="ignore"):
        like1, like0 = rp / P, rn / N  # the class-conditional bin probabilities
    w = w / w.sum(axis=1, keepdims=True)
    pi = pr.copy()
    for _ in range(_EM_MAX_ITER):
        num = pi * like1
        den = num + (1 - pi) * like0
        post = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
        new = (w * post).sum(axis=1, keepdims=True)
        if np.max(np.abs(new - pi)) < _EM_TOL:
            pi = new
            break
        pi = new
    return pi[:, 0]
