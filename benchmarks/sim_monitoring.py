"""Simulation study of prevalence-shift monitoring (beyondchance.monitoring.decomposition, beyondchance.monitoring.label_free).

Populations: the bundled real data sets credit (modeldata_credit_data), default
(islr_default) and caravan (islr_caravan).  A logistic regression is trained on a random
half; its probabilities on the other half (the *pool*) define the class-conditional score
distributions F1, F0.  A threshold predicts as many positives as the pool holds.

* type I   — reference (n rows at the pool's prevalence) and test set (n rows at π) drawn
             class-wise from the pool: the classifier is the same; the "classifier changed"
             decision of ``compare`` (Holm-corrected Fisher FPR/FNR + the ROC AUC's test: a
             within-class permutation test where a class has < 200 rows, else DeLong) is counted.
* family-wise — one reference and six test sets (one at each prevalence of the type-I
             part), the same classifier: the share of replicates where ``compare`` declares
             at least one set changed (its Holm adjustment runs over every test of every set).
* power    — the same with a fraction f of the test set's scores replaced by noise (a score
             drawn from the pool's marginal, independent of the label).
* coverage — of the decomposition's intervals for the expected value (the reference
             classifier at π; truth from the pool at π) and for the classifier effect
             (truth 0, and with noise f the pool-level difference).
* label-free — a window of n rows at π without labels: coverage of the prevalence estimate
             (truth π) and of the projected metrics (truth: the pool's classifier at π), for
             adjusted classify-and-count and EM.
* assumption — a covariate shift that is not a label shift (rows selected with probability
             ∝ exp(γ·z), z the standardised feature most correlated with the score): share
             of windows whose label-shift test rejects.
* false-claim — no change with a near-degenerate reference rate (issue 28): a reference of
             178 positives with 0, 1, 2 or 5 false negatives and 107 negatives, windows of
             300 rows at 5 prevalences from the same classifier (predicted labels; the
             breast-cancer case's sizes); the share of windows whose verdict claims a change,
             and whose classifier-effect intervals exclude 0 (no data set: the counts are drawn).
* label-shift-test — the label-free estimate's assumption test against concept shift (issue
             37; binormal scores, no data set): a reference of 5,000 rows at prevalence 0.2,
             F0 = N(0, 1), F1 = N(2, 1), scores rounded to 0.01; windows of 500, 2,000 and
             10,000 rows either at prevalence 0.1 or 0.4 (pure label shift: type-I error) or at
             0.2 with the positives' separation d = 2 dropped by 10%, 25%, 50% (concept shift:
             power).  The old test (Pearson's chi-square on 20 bins at ACC's π̂, its bootstrap
             refitting ACC) and the new one (Anderson–Darling at EM's π̂,
             ``monitoring.label_shift_test``) on the same windows; with the new test's stated
             power against 25% weaker positives and the share of passing windows whose verdict
             says they cannot tell label shift from concept shift.
* label-shift-verdict — the same reference and concept shifts in windows of 2,000 rows through
             ``estimate_performance`` (ACC, 95%): the share of windows whose estimate is
             confidently wrong — the prevalence interval excludes the true 0.2 while the verdict
             carries no warning — under the old test (it passed) and the new one (it passed with
             a stated power ≥ 80%, so the verdict neither rejects nor says "cannot tell").
* ceiling  — no change near the ceiling (issue 37, item 5): binormal scores (negatives N(0, 1),
             positives N(δ, 1), δ = √2·Φ⁻¹(AUC), so the ROC AUC is 0.9994, or 0.8 away from the
             ceiling), reference and window of n rows from the same population (Bin(n, π)
             positives), threshold δ/2; coverage of 0 by the classifier-effect intervals of
             the ROC AUC and the PR AUC (no data set: the scores are drawn).

Usage::

    PYTHONPATH=src python benchmarks/sim_monitoring.py [--reps 200] [--n 5000] [--resamples 500] [--quick] [--seed 0]
        [--datasets credit,default,caravan] [--parts type1,familywise,power,coverage,label-free,assumption,false-claim,label-shift-test,label-shift-verdict,ceiling]
        [--ceiling-aucs 0.9994,0.8]

The full run (200 replicates, n = 5000, 500 resamples): see docs/monitoring.md for its output and wall times.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from beyondchance.measures.curves import ThresholdCounts, threshold_counts
from beyondchance.datasets import load_r
from beyondchance.monitoring.label_free import (EM_BINS, TEST_BINS, _coarse, _estimator, _window_counts,
                                                estimate_performance)
from beyondchance.monitoring.label_shift_test import POWER_TARGET, class_balanced_bins, label_shift_test, mixture_chi2
from beyondchance.monitoring.decomposition import decompose, metrics_at
from beyondchance.monitoring.set_statistics import SetStatistics
from beyondchance.monitoring.classifier_change import compare_classifiers
from beyondchance.measures.registry import METRICS as REGISTRY

DATASETS = {"credit": "modeldata_credit_data", "default": "islr_default", "caravan": "islr_caravan"}
PREVALENCES = (0.02, 0.05, 0.1, 0.2, 0.35, 0.5)
METRICS = ("accuracy", "precision", "recall", "f1", "mcc", "roc_auc", "pr_auc", "brier")
PARTS = ("type1", "familywise", "power", "coverage", "label-free", "assumption", "false-claim", "label-shift-test",
         "label-shift-verdict", "ceiling")
#: the ceiling study: the ROC AUCs, window sizes and prevalences (reference and window alike)
CEILING_AUCS = (0.9994, 0.8)
CEILING_SIZES = (1000, 5000)
CEILING_PREVALENCES = (0.2, 0.05)
CEILING_METRICS = ("roc_auc", "pr_auc")
#: the false-claim study: the reference's false negatives, the windows' prevalences, the sizes
CLAIM_ERRORS = (0, 1, 2, 5)
CLAIM_PREVALENCES = (0.1, 0.3, 0.5, 0.7, 0.9)
CLAIM_SIZES = {"n_pos": 178, "n_neg": 107, "n": 300, "fpr": 0.05}
#: the metrics of a report of predicted labels (``bc.evaluate(y, y_pred)``)
LABEL_METRICS = ("accuracy", "balanced_accuracy", "precision", "recall", "specificity", "f1", "mcc", "kappa",
                 "pure_accuracy", "prediction_advantage")


@dataclass
class Pool:
    name: str
    y: np.ndarray
    s: np.ndarray
    z: np.ndarray  # the standardised feature most correlated with the score
    threshold: float

    @property
    def pos(self) -> np.ndarray:
        return self.s[self.y == 1]

    @property
    def neg(self) -> np.ndarray:
        return self.s[self.y == 0]

    def stats(self, noise: float = 0.0) -> SetStatistics:
        """The population's statistic (class-conditional score distributions), with a share
        ``noise`` of each class's scores replaced by the marginal."""
        n1, n0, n = self.pos.size, self.neg.size, self.s.size
        scores = np.r_[self.s, self.s]
        pw = np.r_[(1 - noise) * (self.y == 1) / n1, np.full(n, noise / n)]
        nw = np.r_[(1 - noise) * (self.y == 0) / n0, np.full(n, noise / n)]
        tc = ThresholdCounts.from_score_table(scores, pw, nw)
        # one bin per distinct score: the truth is exact (not pooled into MAX_BINS bins)
        return SetStatistics.from_counts(tc, threshold=self.threshold, n_rows=n, max_bins=tc.thresholds.shape[0])


def make_pool(key: str, seed: int = 0) -> Pool:
    data = load_r(DATASETS[key])
    rng = np.random.default_rng(seed)
    idx = rng.permutation(data.y.size)
    train, held = idx[: idx.size // 2], idx[idx.size // 2:]
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.1))
    model.fit(data.X[train], data.y[train])
    s = model.predict_proba(data.X[held])[:, 1]
    y = data.y[held]
    x = StandardScaler().fit_transform(data.X[held])
    corr = np.nan_to_num([abs(np.corrcoef(x[:, j], s)[0, 1]) if x[:, j].std() > 0 else 0 for j in range(x.shape[1])])
    threshold = float(np.quantile(s, 1 - y.mean()))
    return Pool(key, y, s, x[:, int(np.argmax(corr))], threshold)


def draw(pool: Pool, rng: np.random.Generator, pi: float, n: int, noise: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """n rows, each positive with probability π, scores from the pool's class (class-wise
    resampling); a share ``noise`` of the scores replaced by the pool's marginal."""
    y = (rng.random(n) < pi).astype(int)
    s = np.where(y == 1, rng.choice(pool.pos, n), rng.choice(pool.neg, n))
    if noise:
        hit = rng.random(n) < noise
        s[hit] = rng.choice(pool.s, int(hit.sum()))
    return y, s


def _stats(pool: Pool, y: np.ndarray, s: np.ndarray) -> SetStatistics:
    return SetStatistics.from_counts(threshold_counts(y, s), threshold=pool.threshold)


def rejection_rate(pool: Pool, pi: float | tuple[float, ...], reps: int, n: int, noise: float = 0.0,
                   seed: int = 0) -> float:
    """Share of replicates where the classifier is declared changed (5% level) on at least one
    test set: one set at prevalence ``pi``, or one set at each prevalence of a tuple (all
    compared with one reference, Holm over every test of every set: the family-wise rate)."""
    rng = np.random.default_rng(seed)
    pis = pi if isinstance(pi, tuple) else (pi,)
    hits = 0
    for _ in range(reps):
        ref = _stats(pool, *draw(pool, rng, pool.y.mean(), n))
        sets = {f"set {k}": _stats(pool, *draw(pool, rng, p, n, noise)) for k, p in enumerate(pis)}
        hits += any(change.changed for change in compare_classifiers(ref, sets))
    return hits / reps


def decomposition_coverage(pool: Pool, pi: float, reps: int, n: int, resamples: int, noise: float = 0.0,
                           seed: int = 0, metrics=METRICS) -> dict[str, tuple[float, float]]:
    """metric -> (coverage of expected_ci, coverage of classifier_effect_ci)."""
    rng = np.random.default_rng(seed)
    pop, changed = pool.stats(), pool.stats(noise)
    exp_truth = metrics_at(pop, pi, metrics)
    new_truth = metrics_at(changed, pi, metrics)
    hits = {m: [0, 0, 0] for m in metrics}
    for r in range(reps):
        ref = _stats(pool, *draw(pool, rng, pool.y.mean(), n))
        new = _stats(pool, *draw(pool, rng, pi, n, noise))
        d = decompose(ref, new, metrics, n_resamples=resamples, random_state=r)
        for m, dm in d.items():
            te, tc = float(np.squeeze(exp_truth[m])), float(np.squeeze(new_truth[m] - exp_truth[m]))
            if dm.expected_ci is None or dm.classifier_effect_ci is None:
                continue
            hits[m][0] += dm.expected_ci[0] <= te <= dm.expected_ci[1]
            hits[m][1] += dm.classifier_effect_ci[0] <= tc <= dm.classifier_effect_ci[1]
            hits[m][2] += 1
    return {m: (h[0] / max(h[2], 1), h[1] / max(h[2], 1)) for m, h in hits.items()}


def label_free_coverage(pool: Pool, pi: float, reps: int, n: int, resamples: int, method: str = "acc",
                        seed: int = 0, metrics=METRICS) -> dict[str, float]:
    """Coverage of the prevalence interval (key "prevalence") and of each projected metric's;
    "flagged": share of windows whose label-shift test rejected (should be about 5%)."""
    rng = np.random.default_rng(seed)
    truth = metrics_at(pool.stats(), pi, metrics)
    hits = {m: 0 for m in ("prevalence", "flagged", *metrics)}
    for r in range(reps):
        y_ref, s_ref = draw(pool, rng, pool.y.mean(), n)
        _, s_new = draw(pool, rng, pi, n)
        est = estimate_performance(y_ref, s_ref, s_new, threshold=pool.threshold, method=method, metrics=metrics,
                                   n_resamples=resamples, random_state=r)
        hits["prevalence"] += est.prevalence_ci[0] <= pi <= est.prevalence_ci[1]
        hits["flagged"] += not est.assumption_holds
        for m in metrics:
            ci = est.metrics[m].ci
            hits[m] += ci is not None and ci[0] <= float(np.squeeze(truth[m])) <= ci[1]
    return {m: h / reps for m, h in hits.items()}


def covariate_shift_flag_rate(pool: Pool, reps: int, n: int, resamples: int, gamma: float = 1.0,
                              seed: int = 0) -> float:
    """Share of windows selected by a covariate (∝ exp(γ z)) whose label-shift test rejects."""
    rng = np.random.default_rng(seed)
    p = np.exp(gamma * pool.z)
    p /= p.sum()
    flagged = 0
    for r in range(reps):
        y_ref, s_ref = draw(pool, rng, pool.y.mean(), n)
        s_new = pool.s[rng.choice(pool.s.size, n, p=p)]
        est = estimate_performance(y_ref, s_ref, s_new, threshold=pool.threshold, metrics=("f1",),
                                   n_resamples=resamples, random_state=r)
        flagged += not est.assumption_holds
    return flagged / reps


#: the label-shift test study: (window prevalence, drop of the positives' separation) per row
SHIFT_CELLS = ((0.1, 0.0), (0.4, 0.0), (0.2, 0.1), (0.2, 0.25), (0.2, 0.5))
SHIFT_WINDOWS = (500, 2000, 10000)


def _old_label_shift_pvalue(ref: SetStatistics, window: np.ndarray, n_new: int, resamples: int,
                            rng: np.random.Generator) -> float:
    """The test before issue 37: Pearson's chi-square on 20 bins at ACC's π̂, its parametric
    bootstrap refitting ACC (the code it replaced, verbatim in substance)."""
    test_groups, acc = _coarse(ref, TEST_BINS), _estimator("acc", _coarse(ref, EM_BINS))
    pi = float(acc(ref, window)[0])
    stat = mixture_chi2(*(np.add.reduceat(x, test_groups) for x in (ref.pos, ref.neg, window)), pi)
    mix = pi * ref.pos / ref.pos.sum() + (1 - pi) * ref.neg / ref.neg.sum()
    null_win = rng.multinomial(n_new, mix / mix.sum(), size=resamples).astype(np.float64)
    null_ref = ref.resample(resamples, rng)
    null = mixture_chi2(*(np.add.reduceat(x, test_groups, axis=1) for x in (null_ref.pos, null_ref.neg, null_win)),
                        acc(null_ref, null_win))
    return float((1 + np.sum(null >= stat)) / (1 + resamples))


def label_shift_test_rates(pi: float, drop: float, m: int, reps: int, resamples: int, seed: int,
                           n_ref: int = 5000, d: float = 2.0) -> dict[str, float]:
    """Binormal windows (see the module docstring): the old and new tests' rejection rates at 5%,
    the new test's mean stated power, and the share of windows passing the new test whose stated
    power is below ``POWER_TARGET`` (the verdict's "cannot tell" line)."""
    rng = np.random.default_rng(seed)
    out = {"old": 0, "new": 0, "power": 0.0, "cannot_tell": 0, "passed": 0}
    for _ in range(reps):
        y = (rng.random(n_ref) < 0.2).astype(int)
        ref = SetStatistics.from_counts(threshold_counts(y, np.round(rng.normal(d * y, 1.0), 2)), threshold=d / 2)
        y_new = rng.random(m) < pi
        s_new = np.round(rng.normal(d * (1 - drop) * y_new, 1.0), 2)
        window = _window_counts(ref, s_new, np.ones(m))
        out["old"] += _old_label_shift_pvalue(ref, window, m, resamples, rng) <= 0.05
        test = label_shift_test(ref, window, m, _coarse(ref, EM_BINS), class_balanced_bins(ref, TEST_BINS), resamples,
                                rng)
        out["new"] += test.pvalue <= 0.05
        out["power"] += test.power
        if test.pvalue > 0.05:
            out["passed"] += 1
            out["cannot_tell"] += test.power < POWER_TARGET
    return {"old": out["old"] / reps, "new": out["new"] / reps, "power": out["power"] / reps,
            "cannot_tell": out["cannot_tell"] / max(out["passed"], 1), "passed": out["passed"]}


def label_shift_test_table(reps: int, resamples: int, seed: int = 0) -> None:
    """The table of docs/monitoring.md ("The label-shift test's power"): rows (prevalence,
    separation drop), columns window rows; Monte Carlo standard errors sqrt(p(1 − p)/reps)."""
    print(f"\nlabel-shift test (binormal d = 2, reference 5000 rows at π = 0.2; {reps} replicates per cell, "
          f"{resamples} bootstrap draws, seed {seed} + 7 + cell index; rejection at 5%, ± Monte Carlo SE):")
    print("  window π, drop of d | rows  | old chi-square  | new Anderson-Darling | stated power (25%) | "
          "passing windows told 'cannot tell'")
    for i, ((pi, drop), m) in enumerate((c, m) for c in SHIFT_CELLS for m in SHIFT_WINDOWS):
        t = time.time()
        r = label_shift_test_rates(pi, drop, m, reps, resamples, seed + 7 + i)

        def se(p: float) -> str:
            return f"{p:.3f} ± {np.sqrt(p * (1 - p) / reps):.3f}"

        print(f"  {pi:.1f}, {drop:4.0%}           | {m:5d} | {se(r['old'])}   | {se(r['new'])}        | "
              f"{r['power']:.3f}              | {r['cannot_tell']:.3f} of {r['passed']}   [{time.time() - t:.0f} s]",
              flush=True)


def confidently_wrong_rates(drop: float, m: int, reps: int, resamples: int, seed: int, n_ref: int = 5000,
                            d: float = 2.0) -> dict[str, float]:
    """Windows at prevalence 0.2 with the positives' separation dropped by ``drop``: the share whose
    prevalence interval (``estimate_performance``, ACC) excludes 0.2 while the verdict carries no
    warning, under the old test and the new; and the share whose interval excludes 0.2 at all."""
    rng = np.random.default_rng(seed)
    out = {"excludes": 0, "old": 0, "new": 0}
    for r in range(reps):
        y = (rng.random(n_ref) < 0.2).astype(int)
        s = np.round(rng.normal(d * y, 1.0), 2)
        s_new = np.round(rng.normal(d * (1 - drop) * (rng.random(m) < 0.2), 1.0), 2)
        est = estimate_performance(y, s, s_new, threshold=d / 2, metrics=("f1",), n_resamples=resamples,
                                   random_state=r)
        wrong = not est.prevalence_ci[0] <= 0.2 <= est.prevalence_ci[1]
        ref = SetStatistics.from_counts(threshold_counts(y, s), threshold=d / 2)
        old_passes = _old_label_shift_pvalue(ref, _window_counts(ref, s_new, np.ones(m)), m, resamples, rng) > 0.05
        out["excludes"] += wrong
        out["old"] += wrong and old_passes
        out["new"] += wrong and est.assumption_holds and est.assumption_power >= POWER_TARGET
    return {k: v / reps for k, v in out.items()}


def confidently_wrong_table(reps: int, resamples: int, seed: int = 0, m: int = 2000) -> None:
    print(f"\nconfidently wrong (binormal d = 2, reference 5000 rows at π = 0.2, windows of {m} rows at 0.2; {reps} "
          f"replicates per row, {resamples} bootstrap draws, seed {seed} + 30 + row index; ± Monte Carlo SE):")
    print("  drop of d | interval excludes 0.2 | ... with no warning: old test | new test (and power >= 80%)")
    for i, drop in enumerate((0.1, 0.25, 0.5)):
        t = time.time()
        r = confidently_wrong_rates(drop, m, reps, resamples, seed + 30 + i)
        se = {k: np.sqrt(v * (1 - v) / reps) for k, v in r.items()}
        print(f"  {drop:4.0%}      | {r['excludes']:.3f} ± {se['excludes']:.3f}         | "
              f"{r['old']:.3f} ± {se['old']:.3f}                 | {r['new']:.3f} ± {se['new']:.3f}   "
              f"[{time.time() - t:.0f} s]", flush=True)


def _excludes_zero(ci) -> bool:
    return ci is not None and (ci[0] > 0 or ci[1] < 0)


def false_claim_counts(errors: int, pi: float, reps: int, resamples: int, seed: int = 0, n_pos: int = 178,
                       n_neg: int = 107, n: int = 300, fpr: float = 0.05) -> dict[str, int]:
    """Windows with no change of the classifier, against a reference whose false-negative
    count is ``errors`` (of ``n_pos`` positives; its false positives ~ Bin(n_neg, fpr)).
    The classifier's false-negative rate is β = (errors + ½) / n_pos, the rate whose most
    likely count in the reference is ``errors``; each window has n rows, Bin(n, π) positives.

    Counts over ``reps`` windows: "claim" — the verdict claims a change (the Holm-corrected
    tests reject; ``bc.compare``'s only claim of one); "interval" — a metric's classifier-effect
    interval excludes 0; "recall" — recall's does; "old rule" — "claim" or "interval" (the
    verdict before issue 28 added "not explained by the prevalence alone" to such an interval);
    "uncorrected" — no claim, but an interval excluding 0 that an uncorrected test of what the
    metric reads agrees with (the verdict's remark that the sample cannot tell)."""
    rng = np.random.default_rng(seed)
    beta = (errors + 0.5) / n_pos
    out = dict.fromkeys(("claim", "interval", "recall", "old rule", "uncorrected"), 0)
    for r in range(reps):
        fp_r = rng.binomial(n_neg, fpr)
        ref = SetStatistics.from_confusion(n_pos - errors, fp_r, errors, n_neg - fp_r)
        p_t = rng.binomial(n, pi)
        fn_t, fp_t = rng.binomial(p_t, beta), rng.binomial(n - p_t, fpr)
        new = SetStatistics.from_confusion(p_t - fn_t, fp_t, fn_t, n - p_t - fp_t)
        cc = compare_classifiers(ref, {"new": new})[0]
        d = decompose(ref, new, LABEL_METRICS, n_resamples=resamples, random_state=r)
        out_ci = [m for m, dm in d.items() if _excludes_zero(dm.classifier_effect_ci)]
        out["claim"] += cc.changed
        out["interval"] += bool(out_ci)
        out["recall"] += "recall" in out_ci
        out["old rule"] += cc.changed or bool(out_ci)
        out["uncorrected"] += not cc.changed and any(t.pvalue <= cc.level and _moves(m, t.quantity)
                                                     for m in out_ci for t in cc.tests)
    return out


def _moves(metric: str, rate: str) -> bool:
    """Whether a metric at the threshold moves with the rate ("fpr" = α, "fnr" = β)."""
    f = REGISTRY[metric].from_rates
    base = float(f(0.3, 0.2, 0.3))
    return not np.isclose(float(f(0.3, 0.25, 0.3) if rate == "fpr" else f(0.3, 0.2, 0.35)), base)


def _binomial_ci(k: int, n: int) -> tuple[float, float]:
    """Clopper–Pearson 95% interval of k / n."""
    from scipy import stats as sps

    lo = sps.beta.ppf(0.025, k, n - k + 1) if k else 0.0
    hi = sps.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)


def false_claim_table(reps: int, resamples: int, seed: int = 0, errors=CLAIM_ERRORS,
                      prevalences=CLAIM_PREVALENCES) -> list[tuple[int, float, dict[str, int]]]:
    """:func:`false_claim_counts` of every (errors, π) cell, printed as it goes; cell i's seed
    is ``seed + 500 + i``."""
    rows = []
    i = 0
    print(f"false claims under no change: reference {CLAIM_SIZES['n_pos']} positives / {CLAIM_SIZES['n_neg']} "
          f"negatives, windows of {CLAIM_SIZES['n']} rows, FPR {CLAIM_SIZES['fpr']}, FNR (errors + 1/2) / "
          f"{CLAIM_SIZES['n_pos']}; {reps} replicates per cell, {resamples} resamples")
    print("  errors     π   claim [95% CI]          old rule  interval≠0  recall≠0  uncorrected remark")
    for e in errors:
        for pi in prevalences:
            c = false_claim_counts(e, pi, reps, resamples, seed=seed + 500 + i)
            lo, hi = _binomial_ci(c["claim"], reps)
            print(f"  {e:6d}  {pi:.2f}   {c['claim'] / reps:.3f} [{lo:.3f}, {hi:.3f}]    {c['old rule'] / reps:.3f}"
                  f"     {c['interval'] / reps:.3f}       {c['recall'] / reps:.3f}     {c['uncorrected'] / reps:.3f}",
                  flush=True)
            rows.append((e, pi, c))
            i += 1
    return rows


def ceiling_coverage(auc: float, n: int, pi: float, reps: int, resamples: int,
                     seed: int = 0) -> dict[str, tuple[int, int]]:
    """metric -> (windows whose classifier-effect interval holds 0, windows with an interval):
    reference and window of n rows each from one binormal population of ROC AUC ``auc``."""
    from scipy.stats import norm

    delta = float(np.sqrt(2) * norm.ppf(auc))
    rng = np.random.default_rng(seed)

    def sample() -> SetStatistics:
        y = (rng.random(n) < pi).astype(int)
        return SetStatistics.from_counts(threshold_counts(y, rng.normal(0, 1, n) + delta * y), threshold=delta / 2)

    hits = {m: [0, 0] for m in CEILING_METRICS}
    for r in range(reps):
        ref, new = sample(), sample()
        for m, d in decompose(ref, new, CEILING_METRICS, n_resamples=resamples, random_state=r).items():
            ci = d.classifier_effect_ci
            if ci is not None:
                hits[m][0] += ci[0] <= 0 <= ci[1]
                hits[m][1] += 1
    return {m: (h[0], h[1]) for m, h in hits.items()}


def ceiling_table(reps: int, resamples: int, seed: int = 0, aucs=CEILING_AUCS, sizes=CEILING_SIZES) -> None:
    """:func:`ceiling_coverage` of every (AUC, n, π) cell, printed as it goes; cell i's seed is
    ``seed + 700 + i`` (i over every cell of :data:`CEILING_AUCS`, whichever are run)."""
    print(f"coverage of 0 by the classifier-effect interval, no change (binormal, reference and window alike); "
          f"{reps} replicates per cell, {resamples} resamples, 95% intervals; Monte Carlo s.e. in brackets")
    print("    AUC      n     π  cell seed   " + "   ".join(f"{m:>16s}" for m in CEILING_METRICS))
    cells = [(a, n, pi) for a in CEILING_AUCS for n in CEILING_SIZES for pi in CEILING_PREVALENCES]
    for i, (a, n, pi) in enumerate(cells):
        if a not in aucs or n not in sizes:
            continue
        t = time.time()
        cov = ceiling_coverage(a, n, pi, reps, resamples, seed=seed + 700 + i)
        cols = []
        for m in CEILING_METRICS:
            k, of = cov[m]
            p = k / max(of, 1)
            cols.append(f"{p:.3f} [{np.sqrt(p * (1 - p) / max(of, 1)):.3f}] /{of}")
        print(f"  {a:.4f}  {n:5d}  {pi:.2f}  {seed + 700 + i:9d}   " + "   ".join(f"{c:>16s}" for c in cols)
              + f"   [{time.time() - t:.0f} s]", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--resamples", type=int, default=500)
    ap.add_argument("--quick", action="store_true", help="20 replicates, 200 resamples")
    ap.add_argument("--seed", type=int, default=0, help="added to every cell's seed (a rerun on other draws)")
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated, among " + ", ".join(DATASETS))
    ap.add_argument("--parts", default=",".join(PARTS), help="comma-separated, among " + ", ".join(PARTS))
    ap.add_argument("--ceiling-aucs", default=",".join(map(str, CEILING_AUCS)),
                    help="the ceiling part's ROC AUCs, among " + ", ".join(map(str, CEILING_AUCS)))
    ap.add_argument("--ceiling-sizes", default=",".join(map(str, CEILING_SIZES)),
                    help="the ceiling part's numbers of rows, among " + ", ".join(map(str, CEILING_SIZES)))
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    if args.quick:
        args.reps, args.resamples = 20, 200
    reps, n, B = args.reps, args.n, args.resamples
    t0 = time.time()
    print(f"replicates {reps}, n = {n}, bootstrap resamples {B}, level 5% / 95%, seed offset {args.seed}")
    if "false-claim" in parts:
        false_claim_table(reps, B, seed=args.seed)
        print(f"[{time.time() - t0:.0f} s]")
    if "label-shift-test" in parts:
        label_shift_test_table(reps, B, seed=args.seed)
        print(f"[{time.time() - t0:.0f} s]")
    if "label-shift-verdict" in parts:
        confidently_wrong_table(reps, B, seed=args.seed)
        print(f"[{time.time() - t0:.0f} s]")
    if "ceiling" in parts:
        ceiling_table(reps, B, seed=args.seed, aucs=tuple(float(a) for a in args.ceiling_aucs.split(",")),
                      sizes=tuple(int(n) for n in args.ceiling_sizes.split(",")))
        print(f"[{time.time() - t0:.0f} s]")
    for key in args.datasets.split(",") if parts - {"false-claim", "label-shift-test", "label-shift-verdict", "ceiling"} else ():
        pool = make_pool(key)
        print(f"\n== {key}: pool {pool.y.size} rows, prevalence {pool.y.mean():.3f}, threshold {pool.threshold:.3f}")
        if "type1" in parts:
            print("type I ('classifier changed' under a pure prevalence shift):")
            for i, pi in enumerate(PREVALENCES):  # independent references for each prevalence
                print(f"  π = {pi:.2f}: {rejection_rate(pool, pi, reps, n, seed=args.seed + 100 + i):.3f}")
        if "familywise" in parts:
            rate = rejection_rate(pool, PREVALENCES, reps, n, seed=args.seed + 6)
            low, high = binomtest(round(rate * reps), reps).proportion_ci(0.95, method="exact")
            print(f"family-wise ('classifier changed' on at least one of {len(PREVALENCES)} test sets, π = "
                  + ", ".join(f"{pi:g}" for pi in PREVALENCES)
                  + f", one reference): {rate:.3f} (95% Clopper-Pearson {low:.3f}-{high:.3f})")
        if "power" in parts:
            print("power (a share f of the test set's scores replaced by noise):")
            for f in (0.05, 0.1, 0.2, 0.4):
                rates = [rejection_rate(pool, pi, reps, n, noise=f, seed=args.seed + 2) for pi in (0.05, 0.2, 0.5)]
                print(f"  f = {f:.2f}: π = 0.05 / 0.20 / 0.50 -> " + " / ".join(f"{r:.3f}" for r in rates))
        if "coverage" in parts:
            for pi, f in ((0.05, 0.0), (0.3, 0.0), (0.3, 0.2)):
                cov = decomposition_coverage(pool, pi, reps, n, B, noise=f, seed=args.seed + 3)
                print(f"coverage, decomposition at π = {pi}, noise {f}: metric expected_ci / classifier_effect_ci")
                for m, (ce, cc) in cov.items():
                    print(f"  {m:10s} {ce:.3f} / {cc:.3f}")
        if "label-free" in parts:
            for i, (method, pi) in enumerate((m, p) for m in ("acc", "em") for p in (0.05, 0.3)):
                # independent references per cell (a shared seed repeats the reference draws, so
                # the projected ROC AUC, which does not depend on the window, had the same interval in all cells)
                cov = label_free_coverage(pool, pi, reps, n, B, method=method, seed=args.seed + 40 + i)
                print(f"label-free ({method}) at π = {pi}: " + ", ".join(f"{k} {v:.3f}" for k, v in cov.items()))
        if "assumption" in parts:
            for gamma in (1.0, 2.0):
                print(f"assumption test under a covariate shift (γ = {gamma}): flagged in "
                      f"{covariate_shift_flag_rate(pool, reps, n, B, gamma=gamma, seed=args.seed + 5):.3f} of windows")
        print(f"[{time.time() - t0:.0f} s]")
    print(f"\ntotal {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
