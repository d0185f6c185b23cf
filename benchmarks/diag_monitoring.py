"""Small experiments behind the interval fixes of the monitoring study (docs/monitoring.md, "Diagnosis").

* ``auc``   — the reference's ROC AUC interval (the label-free projected ROC AUC and the
              decomposition's expected ROC AUC): coverage of the percentile and of the BCa
              interval, bias of the estimate, bootstrap sd against the sampling sd, mean â.
* ``sd``    — the decomposition at one prevalence: mean and sampling sd of the classifier effect
              and of the expected value against the bootstrap sd (interval width / 3.92).
* ``embins`` — EM's prevalence estimate by the number of reference bins (5, 10, 20, 40; equal
              reference weight): bias, sd and root mean square error.
* ``lfsd``  — one label-free cell of the study (data, method, π) on many windows: per quantity the
              bias and bias/sd of the estimate, its sampling sd against the mean bootstrap sd, the
              studentized error T = (estimate − truth)/bootstrap sd (sd and 2.5/97.5% quantiles),
              the variation of the bootstrap sd over windows and its correlation with the error, and
              the coverage of the percentile and of the library's interval (BCa for EM).
* ``lfscale`` — EM's intervals with and without the variance-bias scale
              (``label_shift._variance_bias_scale``) on the same windows and resamples: sampling sd
              against both bootstrap sds, both coverages and the side of the misses.
* ``lfsampling`` — EM's prevalence on many (reference, window) pairs, no bootstrap: bias,
              sampling sd, mean delta-method se, Wald coverage (the precise sampling sd).
* ``lfstudent`` — EM's prevalence: the delta-method se at the estimated and at the true
              cells (the plug-in's bias), the plain bootstrap sd (``--refit-edges``: with EM's bin
              edges re-derived in every resample), coverage of plain BCa, bootstrap-t and Wald.
* ``lfcross`` — the sampling variance of the label-free prevalence split between the reference
              and the window: K references crossed with the same M windows (two-way analysis of
              variance), against the bootstrap sd of the reference alone and of the window alone
              (the first P pairs).
* ``refspread`` — the spread of a label-free cell's references: the sd of their exact ROC AUC
              (the projected ROC AUC is the reference's own) over the cell's draws (reference, then
              window, as ``sim_monitoring.label_free_coverage`` draws them), against the AUC's
              sampling sd at the reference's size from the pool's placements (DeLong et al. 1988:
              Var = Var(F₀(X₁))/n₁ + Var(1 − F₁(X₀))/n₀, ties ½): whether a cell's references are
              more spread than their law.
* ``familywise`` — the family-wise part of the study (one reference, a test set at each of its six
              prevalences, the same draws and seed as ``sim_monitoring --parts familywise``): per
              test set and test (FPR, FNR, ROC AUC) the share of replicates whose own p-value is
              at most 5% and whose Holm-adjusted one is.
* ``lfaccel`` — EM's BCa interval of the prevalence with its acceleration â moved by a constant
              (−0.04 … +0.08): coverage and the side of the misses, the mean jackknife â, and the
              slope of the bootstrap sd on the estimate (BCa's model has sd ∝ 1 + a·θ).

Usage::

    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py auc --data default --reps 1000 --seed 7
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py sd --data default --pi 0.05 --reps 300 --seed 21
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py embins --data caravan --pi 0.3 --reps 200 --seed 14
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfsd --data caravan --method em --pi 0.3 --reps 600 --seed 16
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfscale --data caravan --method em --pi 0.3 --reps 600 --seed 16
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfscale --data caravan --method em --pi 0.3 --reps 1500 --seed 17
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfsampling --data caravan --pi 0.3 --reps 4000 --seed 101
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfstudent --data caravan --pi 0.3 --reps 1500 --seed 17
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfstudent --data caravan --pi 0.3 --reps 150 --seed 19 --refit-edges
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfcross --data caravan --method em --pi 0.3 --reps 400 --seed 17
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfcross --data credit --method em --pi 0.05 --reps 100 --windows 200 --pairs 20 --seed 5
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py lfaccel --data caravan --pi 0.3 --reps 300 --seed 16
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py refspread --data credit --pi 0.05 --reps 1000 --seed 42
    PYTHONPATH=src:benchmarks python benchmarks/diag_monitoring.py familywise --data credit --n 1000 --reps 2000 --seed 6
"""

from __future__ import annotations

import argparse

import numpy as np

import sim_monitoring as S
from beyondchance.measures.curves import threshold_counts
from beyondchance.monitoring.label_free import (EM_BINS, _bootstrap, _coarse, _em, _em_variance, _estimator, _inside, _window_bins,
                                      _window_counts)
from beyondchance.monitoring.decomposition import _exact, _interval, decompose, metrics_at
from beyondchance.monitoring.set_statistics import SetStatistics
from beyondchance.monitoring.classifier_change import compare_classifiers
from beyondchance.inference.bootstrap import _acceleration_of_samples
from beyondchance.inference.bootstrap import _interval as _bca


def auc(pool: S.Pool, reps: int, seed: int, n: int = 5000, resamples: int = 500) -> None:
    truth = float(np.squeeze(metrics_at(pool.stats(), 0.5, ["roc_auc"])["roc_auc"]))
    rng = np.random.default_rng(seed)
    hits = {"percentile": 0, "BCa": 0}
    err, boot_sd, acc = [], [], []
    for r in range(reps):
        st = SetStatistics.from_counts(threshold_counts(*S.draw(pool, rng, pool.y.mean(), n)), threshold=pool.threshold)
        exact = float(np.squeeze(metrics_at(_exact(st), 0.5, ["roc_auc"])["roc_auc"]))
        binned = float(np.squeeze(metrics_at(st, 0.5, ["roc_auc"])["roc_auc"]))
        star = np.squeeze(metrics_at(st.resample(resamples, np.random.default_rng(r)), 0.5, ["roc_auc"])["roc_auc"])
        jk, rows = st.coarse(200).leave_one_out()
        jack = [(np.squeeze(metrics_at(jk, 0.5, ["roc_auc"])["roc_auc"]), rows)]
        lo, hi = np.quantile(star, [0.025, 0.975]) + exact - binned
        hits["percentile"] += lo <= truth <= hi
        lo, hi = _interval(exact, binned, star, 0.95, jack)
        hits["BCa"] += lo <= truth <= hi
        err.append(exact - truth)
        boot_sd.append(np.std(star))
        acc.append(_acceleration_of_samples(jack))
    print(f"{pool.name}: reference ROC AUC {truth:.5f}, {reps} references (seed {seed}): coverage "
          + ", ".join(f"{k} {v / reps:.3f}" for k, v in hits.items())
          + f"; bias {np.mean(err):+.5f}, sampling sd {np.std(err):.5f}, bootstrap sd {np.mean(boot_sd):.5f}, "
          f"mean acceleration {np.mean(acc):+.4f}")


def sd(pool: S.Pool, pi: float, reps: int, seed: int, n: int = 5000, resamples: int = 500) -> None:
    names = ["accuracy", "precision", "f1", "roc_auc"]
    rng = np.random.default_rng(seed)
    out = {m: ([], [], [], []) for m in names}
    for r in range(reps):
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        new = S._stats(pool, *S.draw(pool, rng, pi, n))
        for m, d in decompose(ref, new, names, n_resamples=resamples, random_state=r).items():
            for lst, x in zip(out[m], (d.classifier_effect, np.diff(d.classifier_effect_ci)[0] / 3.92,
                                       d.expected_value, np.diff(d.expected_ci)[0] / 3.92)):
                lst.append(x)
    print(f"{pool.name} at π = {pi}, {reps} replicates (seed {seed}):")
    for m, (ce, ce_w, ex, ex_w) in out.items():
        print(f"  {m:10s} classifier effect: mean {np.mean(ce):+.5f}, sd {np.std(ce):.5f}, bootstrap sd "
              f"{np.mean(ce_w):.5f} | expected: sd {np.std(ex):.5f}, bootstrap sd {np.mean(ex_w):.5f}")


def embins(pool: S.Pool, pi: float, reps: int, seed: int, n: int = 5000) -> None:
    rng = np.random.default_rng(seed)
    res: dict[int, list] = {b: [] for b in (5, 10, 20, 40)}
    for _ in range(reps):
        y_ref, s_ref = S.draw(pool, rng, pool.y.mean(), n)
        ref = SetStatistics.from_counts(threshold_counts(y_ref, s_ref), threshold=pool.threshold)
        _, s_new = S.draw(pool, rng, pi, n)
        window = np.bincount(_window_bins(ref, s_new), minlength=ref.pos.shape[0]).astype(float)
        cum = np.cumsum(ref.pos + ref.neg)
        for bins, values in res.items():
            edges = np.searchsorted(cum, cum[-1] * np.arange(1, bins) / bins, side="left") + 1
            starts = np.unique(np.r_[0, edges[edges < cum.size]])
            values.append(_em(*(np.add.reduceat(x, starts) for x in (ref.pos, ref.neg, window)))[0])
    print(f"{pool.name}, EM at π = {pi}, {reps} replicates (seed {seed}):")
    for bins, values in res.items():
        v = np.asarray(values)
        print(f"  {bins:2d} bins: bias {v.mean() - pi:+.4f} (se {v.std() / np.sqrt(v.size):.4f}), sd {v.std():.4f}, "
              f"rmse {np.sqrt(np.mean((v - pi) ** 2)):.4f}")


def lfsd(pool: S.Pool, method: str, pi: float, reps: int, seed: int, n: int = 5000, resamples: int = 500,
         metrics=S.METRICS) -> None:
    names = list(metrics)
    truth = {"prevalence": pi, **{m: float(np.squeeze(v)) for m, v in metrics_at(pool.stats(), pi, names).items()}}
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {m: [] for m in truth}
    for r in range(reps):  # the study's windows (sim_monitoring.label_free_coverage), the library's bootstrap
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        window = _window_counts(ref, S.draw(pool, rng, pi, n)[1], np.ones(n))
        groups = _coarse(ref, EM_BINS)
        pi_hat = float(_estimator(method, groups)(ref, window)[0])
        exact = metrics_at(_exact(ref), _inside(pi_hat), names)
        boot = _bootstrap(ref, window, n, method, groups, names, resamples, np.random.default_rng(r))
        cells = {"prevalence": (pi_hat, boot.binned_pi, boot.pi_star, boot.jack_pi)}
        cells.update({m: (float(np.squeeze(exact[m])), float(np.squeeze(boot.m_binned[m])), boot.m_star[m],
                          boot.jack_metrics.get(m)) for m in names})
        for m, (value, binned, star, jack) in cells.items():
            star = np.asarray(star, dtype=float).reshape(-1)
            lo, hi = np.quantile(star[np.isfinite(star)], [0.025, 0.975]) + value - binned
            ci = _interval(value, binned, star, 0.95, jack) or (np.nan, np.nan)
            rows[m].append((value, np.nanstd(star), lo, hi, *ci))
    print(f"{pool.name}, label-free {method} at π = {pi}, {reps} windows (seed {seed}), {resamples} resamples:")
    for m, v in rows.items():
        v, t = np.asarray(v), truth[m]
        err, boot_sd = v[:, 0] - t, v[:, 1]
        sd_ = err.std(ddof=1)
        z = err / boot_sd
        print(f"  {m:10s} bias {err.mean():+.5f} (se {sd_ / np.sqrt(reps):.5f}, bias/sd {err.mean() / sd_:+.3f}), "
              f"sd {sd_:.5f}, bootstrap sd {boot_sd.mean():.5f} (ratio {boot_sd.mean() / sd_:.3f}, cv "
              f"{boot_sd.std() / boot_sd.mean():.3f}, corr with the error {np.corrcoef(err, boot_sd)[0, 1]:+.2f}); "
              f"T sd {z.std():.3f}, quantiles {np.quantile(z, 0.025):+.2f} / {np.quantile(z, 0.975):+.2f}; coverage "
              f"percentile {np.mean((v[:, 2] <= t) & (t <= v[:, 3])):.3f}, library {np.mean((v[:, 4] <= t) & (t <= v[:, 5])):.3f}"
              f" (interval below the truth {np.mean(v[:, 5] < t):.3f}, above {np.mean(v[:, 4] > t):.3f})")


def lfscale(pool: S.Pool, method: str, pi: float, reps: int, seed: int, n: int = 5000, resamples: int = 500,
            metrics=S.METRICS) -> None:
    """The library's intervals with and without EM's variance-bias scale (``_bootstrap``'s
    ``correct_scale``) on the same windows and the same resamples: per quantity the sampling sd
    against both bootstrap sds, and both coverages with the side of the misses."""
    names = list(metrics)
    truth = {"prevalence": pi, **{m: float(np.squeeze(v)) for m, v in metrics_at(pool.stats(), pi, names).items()}}
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {m: [] for m in truth}
    scales = []
    for r in range(reps):
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        window = _window_counts(ref, S.draw(pool, rng, pi, n)[1], np.ones(n))
        groups = _coarse(ref, EM_BINS)
        pi_hat = float(_estimator(method, groups)(ref, window)[0])
        exact = metrics_at(_exact(ref), _inside(pi_hat), names)
        row = {m: [pi_hat if m == "prevalence" else float(np.squeeze(exact[m]))] for m in truth}
        for correct in (False, True):
            boot = _bootstrap(ref, window, n, method, groups, names, resamples, np.random.default_rng(r),
                              correct_scale=correct)
            cells = {"prevalence": (boot.binned_pi, boot.pi_star, boot.jack_pi)}
            cells.update({m: (float(np.squeeze(boot.m_binned[m])), boot.m_star[m], boot.jack_metrics.get(m))
                          for m in names})
            for m, (binned, star, jack) in cells.items():
                star = np.asarray(star, dtype=float).reshape(-1)
                ci = _interval(row[m][0], binned, star, 0.95, jack) or (np.nan, np.nan)
                row[m] += [np.nanstd(star), *ci]
        scales.append(boot.scale)
        for m in truth:
            rows[m].append(row[m])
    print(f"{pool.name}, label-free {method} at π = {pi}, {reps} windows (seed {seed}), {resamples} resamples; "
          f"scale mean {np.mean(scales):.4f} (sd {np.std(scales):.4f}, range {np.min(scales):.3f}–{np.max(scales):.3f}); "
          "plain / corrected:")
    for m, v in rows.items():
        v, t = np.asarray(v), truth[m]
        sd_ = (v[:, 0] - t).std(ddof=1)

        def cov(lo: np.ndarray, hi: np.ndarray) -> str:
            return f"{np.mean((lo <= t) & (t <= hi)):.3f} ({np.mean(hi < t):.3f} below, {np.mean(lo > t):.3f} above)"

        print(f"  {m:10s} sd {sd_:.5f}, bootstrap sd {v[:, 1].mean():.5f} / {v[:, 4].mean():.5f} (ratio "
              f"{v[:, 1].mean() / sd_:.3f} / {v[:, 4].mean() / sd_:.3f}); coverage {cov(v[:, 2], v[:, 3])} / "
              f"{cov(v[:, 5], v[:, 6])}")


def lfsampling(pool: S.Pool, pi: float, reps: int, seed: int, n: int = 5000) -> None:
    """EM's prevalence on many (reference, window) pairs without a bootstrap: bias, sampling sd
    (and its standard error), the mean delta-method se at the estimated cells
    (``label_shift._em_variance``), the sd of the studentized error and the Wald coverage."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(reps):
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        window = _window_counts(ref, S.draw(pool, rng, pi, n)[1], np.ones(n))
        groups = _coarse(ref, EM_BINS)
        cells = [np.add.reduceat(x, groups) for x in (ref.pos, ref.neg, window)]
        ph = float(_em(*cells)[0])
        rows.append((ph, float(np.sqrt(_em_variance(*cells, ph, n, n)[0]))))
    v = np.asarray(rows)
    err = v[:, 0] - pi
    print(f"{pool.name}, EM at π = {pi}, {reps} pairs (seed {seed}): bias {err.mean():+.5f}, sampling sd "
          f"{err.std(ddof=1):.5f} (se {err.std() / np.sqrt(2 * reps):.5f}), mean delta-method se {v[:, 1].mean():.5f}, "
          f"T sd {np.std(err / v[:, 1]):.3f}, Wald coverage {np.mean(np.abs(err / v[:, 1]) < 1.96):.3f}")


def lfstudent(pool: S.Pool, pi: float, reps: int, seed: int, n: int = 5000, resamples: int = 500,
              refit_edges: bool = False) -> None:
    """EM's prevalence: the delta-method se (``label_shift._em_variance``) at the estimated and at
    the true cells (the plug-in's bias), the plain bootstrap sd (and, ``refit_edges``, the sd when
    every resample re-derives EM's 10 bin edges from its own reference), and the coverage of the
    plain BCa interval, of the studentized bootstrap (bootstrap-t: T* = (π* − π̂)/se*, interval
    [π̂ − se t*_.975, π̂ − se t*_.025]) and of the Wald interval π̂ ± 1.96 se."""
    rng = np.random.default_rng(seed)
    rows, t_q = [], []
    for r in range(reps):
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        window = _window_counts(ref, S.draw(pool, rng, pi, n)[1], np.ones(n))
        groups = _coarse(ref, EM_BINS)

        def grouped(x: np.ndarray) -> np.ndarray:
            return np.add.reduceat(np.atleast_2d(x), groups, axis=1)

        g = np.random.default_rng(r)  # _bootstrap's resamples
        ref_star = ref.resample(resamples, g)
        win_star = g.multinomial(n, window / window.sum(), size=resamples).astype(np.float64)
        boot = _bootstrap(ref, window, n, "em", groups, [], resamples, np.random.default_rng(r), correct_scale=False)
        ph, star = boot.binned_pi, boot.pi_star
        se = float(np.sqrt(_em_variance(grouped(ref.pos), grouped(ref.neg), grouped(window), ph, n, n)[0]))
        se_star = np.sqrt(_em_variance(grouped(ref_star.pos), grouped(ref_star.neg), grouped(win_star), star, n, n))
        tq = np.quantile((star - ph) / se_star, [0.025, 0.975])
        t_q.append(tq)
        cells = [grouped(np.bincount(_window_bins(ref, c), minlength=ref.pos.size).astype(float))[0]
                 for c in (pool.pos, pool.neg)]
        f1, f0 = cells[0] / cells[0].sum(), cells[1] / cells[1].sum()
        n1 = n * ref.prevalence
        se_true = float(np.sqrt(_em_variance(f1 * n1, f0 * (n - n1), (pi * f1 + (1 - pi) * f0) * n, pi, n, n)[0]))
        sd_refit = np.nan
        if refit_edges:
            refit = []
            for b in range(resamples):
                cum = np.cumsum(ref_star.pos[b] + ref_star.neg[b])
                e = np.searchsorted(cum, cum[-1] * np.arange(1, EM_BINS) / EM_BINS, side="left") + 1
                gb = np.unique(np.r_[0, e[e < cum.shape[0]]])
                refit.append(_em(*(np.add.reduceat(x, gb) for x in (ref_star.pos[b], ref_star.neg[b], win_star[b])))[0])
            sd_refit = np.std(refit)
        bca = _interval(ph, ph, star, 0.95, boot.jack_pi)
        rows.append((ph, np.std(star), se, se_true, sd_refit, *bca, ph - tq[1] * se, ph - tq[0] * se))
    v, t_q = np.asarray(rows), np.asarray(t_q)
    err = v[:, 0] - pi
    print(f"{pool.name}, EM at π = {pi}, {reps} windows (seed {seed}), {resamples} resamples: sampling sd "
          f"{err.std(ddof=1):.5f}; plain bootstrap sd {v[:, 1].mean():.5f}"
          + (f" (bin edges re-derived in every resample {np.nanmean(v[:, 4]):.5f})" if refit_edges else "")
          + f"; delta-method se at the estimated cells {v[:, 2].mean():.5f}, at the true cells {v[:, 3].mean():.5f} "
          f"(ratio {np.mean(v[:, 2] / v[:, 3]):.4f})")
    z = err / v[:, 2]
    print(f"  T = (estimate − truth)/se: quantiles {np.quantile(z, 0.025):+.3f} / {np.quantile(z, 0.975):+.3f}; mean "
          f"bootstrap T* quantiles {t_q[:, 0].mean():+.3f} / {t_q[:, 1].mean():+.3f}")

    def cov(lo: np.ndarray, hi: np.ndarray) -> str:
        return f"{np.mean((lo <= pi) & (pi <= hi)):.3f} ({np.mean(hi < pi):.3f} below, {np.mean(lo > pi):.3f} above)"

    print(f"  coverage: plain BCa {cov(v[:, 5], v[:, 6])}; bootstrap-t {cov(v[:, 7], v[:, 8])}; Wald "
          f"{cov(v[:, 0] - 1.96 * v[:, 2], v[:, 0] + 1.96 * v[:, 2])}")


def lfcross(pool: S.Pool, method: str, pi: float, refs: int, seed: int, windows: int = 100, pairs: int = 60,
            n: int = 5000, resamples: int = 500) -> None:
    rng = np.random.default_rng(seed)
    scores = [S.draw(pool, rng, pi, n)[1] for _ in range(windows)]
    est = np.empty((refs, windows))
    ref_sd, win_sd = [], []
    for k in range(refs):
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        w = np.array([_window_counts(ref, s, np.ones(n)) for s in scores])
        estimate = _estimator(method, _coarse(ref, EM_BINS))
        est[k] = estimate(ref, w)
        if k < pairs:  # the bootstrap of each set alone, on the pair (reference k, window k)
            g = np.random.default_rng(k)
            ref_sd.append(np.std(estimate(ref.resample(resamples, g), np.broadcast_to(w[k], (resamples, w.shape[1])))))
            win_sd.append(np.std(estimate(ref, g.multinomial(n, w[k] / w[k].sum(), size=resamples))))
    rows, cols = est.mean(1), est.mean(0)
    v_int = np.sum((est - rows[:, None] - cols[None, :] + est.mean()) ** 2) / ((refs - 1) * (windows - 1))
    v_ref, v_win = rows.var(ddof=1) - v_int / windows, cols.var(ddof=1) - v_int / refs
    print(f"{pool.name}, label-free {method} at π = {pi}: {refs} references x {windows} windows (seed {seed}): bias "
          f"{est.mean() - pi:+.5f}, sampling sd {est.std():.5f} = reference {np.sqrt(max(v_ref, 0)):.5f} (+) window "
          f"{np.sqrt(max(v_win, 0)):.5f} (+) interaction {np.sqrt(max(v_int, 0)):.5f}; bootstrap sd over {pairs} pairs: "
          f"reference alone {np.mean(ref_sd):.5f}, window alone {np.mean(win_sd):.5f}, together "
          f"{np.hypot(np.mean(ref_sd), np.mean(win_sd)):.5f}")


def lfaccel(pool: S.Pool, pi: float, reps: int, seed: int, n: int = 5000, resamples: int = 500) -> None:
    shifts = (-0.04, -0.02, 0.0, 0.02, 0.04, 0.06, 0.08)
    rng = np.random.default_rng(seed)
    misses = np.zeros((len(shifts), 2))
    acc, pis, sds = [], [], []
    for r in range(reps):
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        window = _window_counts(ref, S.draw(pool, rng, pi, n)[1], np.ones(n))
        groups = _coarse(ref, EM_BINS)
        boot = _bootstrap(ref, window, n, "em", groups, [], resamples, np.random.default_rng(r))
        a = _acceleration_of_samples(boot.jack_pi)
        acc.append(a)
        pis.append(boot.binned_pi)
        sds.append(np.std(boot.pi_star))
        for i, c in enumerate(shifts):
            lo, hi, _ = _bca(boot.pi_star, boot.binned_pi, 0.95, "bca", a + c)
            misses[i] += (hi < pi, lo > pi)
    print(f"{pool.name}, EM at π = {pi}, {reps} windows (seed {seed}): mean jackknife â {np.mean(acc):+.4f}; slope of the "
          f"bootstrap sd on the estimate {np.polyfit(pis, sds, 1)[0]:+.4f}")
    for c, (below, above) in zip(shifts, misses / reps):
        print(f"  â {c:+.2f}: coverage {1 - below - above:.3f} (interval below the truth {below:.3f}, above {above:.3f})")


def refspread(pool: S.Pool, pi: float, reps: int, seed: int, n: int = 5000) -> None:
    from scipy.stats import rankdata

    def placements(x: np.ndarray, other: np.ndarray) -> np.ndarray:
        """The share of ``other`` below each x, ties ½."""
        o = np.sort(other)
        return (np.searchsorted(o, x, side="left") + np.searchsorted(o, x, side="right")) / (2.0 * o.size)

    p = pool.y.mean()
    theory = np.sqrt(placements(pool.pos, pool.neg).var() / (n * p) + placements(pool.neg, pool.pos).var() / (n * (1 - p)))
    rng = np.random.default_rng(seed)
    aucs = []
    for _ in range(reps):  # the draws of sim_monitoring.label_free_coverage: the reference, then the window
        y, s = S.draw(pool, rng, p, n)
        S.draw(pool, rng, pi, n)
        r, n1 = rankdata(s), y.sum()
        aucs.append((r[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * (n - n1)))
    spread = np.std(aucs, ddof=1)
    print(f"{pool.name}, the references of the label-free cell at π = {pi}, {reps} replicates (seed {seed}): sd of "
          f"their ROC AUC {spread:.5f}, the law's {theory:.5f} (ratio {spread / theory:.3f}; the ratio's standard "
          f"error about {1 / np.sqrt(2 * (reps - 1)):.3f})")


def familywise(pool: S.Pool, reps: int, seed: int, n: int = 5000) -> None:
    rng = np.random.default_rng(seed)
    family, own, adjusted = 0, {}, {}
    for _ in range(reps):  # the draws of sim_monitoring.rejection_rate with the six prevalences
        ref = S._stats(pool, *S.draw(pool, rng, pool.y.mean(), n))
        sets = {f"{pi:g}": S._stats(pool, *S.draw(pool, rng, pi, n)) for pi in S.PREVALENCES}
        changes = compare_classifiers(ref, sets)
        family += any(change.changed for change in changes)
        for change in changes:
            for t in change.tests:
                key = (change.test_set, t.quantity)
                own[key] = own.get(key, 0) + (t.pvalue <= 0.05)
                adjusted[key] = adjusted.get(key, 0) + (t.pvalue_adjusted <= 0.05)
    print(f"{pool.name}, n = {n}, {reps} replicates (seed {seed}): family-wise {family / reps:.3f}")
    for (pi, quantity), hits in own.items():
        print(f"  π = {pi:>4s} {quantity:7s} own p ≤ 0.05: {hits / reps:.4f}, Holm-adjusted: "
              f"{adjusted[pi, quantity] / reps:.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("experiment", choices=("auc", "sd", "embins", "lfsd", "lfscale", "lfsampling", "lfstudent",
                                           "lfcross", "lfaccel", "refspread", "familywise"))
    ap.add_argument("--refit-edges", action="store_true", help="lfstudent: also re-derive EM's edges per resample")
    ap.add_argument("--data", default="default", choices=tuple(S.DATASETS))
    ap.add_argument("--pi", type=float, default=0.05)
    ap.add_argument("--method", default="em", choices=("acc", "em"))
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=5000, help="familywise: rows per set")
    ap.add_argument("--windows", type=int, default=100, help="lfcross: windows crossed with the references")
    ap.add_argument("--pairs", type=int, default=60, help="lfcross: (reference, window) pairs bootstrapped")
    args = ap.parse_args()
    pool = S.make_pool(args.data)
    if args.experiment == "familywise":
        familywise(pool, args.reps, args.seed, n=args.n)
    elif args.experiment == "auc":
        auc(pool, args.reps, args.seed)
    elif args.experiment == "lfcross":
        lfcross(pool, args.method, args.pi, args.reps, args.seed, windows=args.windows, pairs=args.pairs)
    elif args.experiment == "refspread":
        refspread(pool, args.pi, args.reps, args.seed)
    elif args.experiment == "lfaccel":
        lfaccel(pool, args.pi, args.reps, args.seed)
    elif args.experiment == "lfsampling":
        lfsampling(pool, args.pi, args.reps, args.seed)
    elif args.experiment == "lfstudent":
        lfstudent(pool, args.pi, args.reps, args.seed, refit_edges=args.refit_edges)
    elif args.experiment == "lfscale":
        lfscale(pool, args.method, args.pi, args.reps, args.seed)
    elif args.experiment == "lfsd":
        lfsd(pool, args.method, args.pi, args.reps, args.seed)
    elif args.experiment == "sd":
        sd(pool, args.pi, args.reps, args.seed)
    else:
        embins(pool, args.pi, args.reps, args.seed)


if __name__ == "__main__":
    main()
