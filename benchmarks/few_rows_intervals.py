"""Coverage of intervals of the ROC AUC and the average precision with few positives (issue 37, item 2).

Binormal scores (negatives N(0, 1), positives N(d, 1), d from the population ROC AUC);
truth in closed form (ROC AUC = Φ(d/√2)) and by quadrature (the population average
precision E_pos[π S₁(s) / (π S₁(s) + (1 − π) S₀(s))]).  Per test set: the row bootstrap's
and the class-stratified bootstrap's percentile intervals (B resamples), Newcombe's
score-type interval (method 5, as in ``beyondchance.inference.few_rows_intervals``, computed
here independently), DeLong's on the logit scale; for the average precision the
bootstraps, Boyd, Eng and Page's logit and binomial intervals.  Prints coverage ± its
Monte Carlo standard error, the replicate count and the seed.

    python benchmarks/few_rows_intervals.py N PREVALENCE AUC REPLICATES B
    python benchmarks/few_rows_intervals.py 100 0.05 0.75 300 200   # the issue's cell

Measured (seed 37, 297 test sets of 300 with both classes, B = 200): at n = 100, prevalence
0.05, ROC AUC 0.75: row bootstrap 0.795 ± 0.023, stratified 0.778, Newcombe 0.939 ± 0.014,
DeLong logit 0.852; AP: bootstrap 0.848, stratified 0.724, logit 0.919, binomial 0.946.  At
ROC AUC 0.9: 0.731, 0.724, Newcombe 0.929 ± 0.015, 0.818; AP 0.838, 0.785, logit 1.000,
binomial 0.842.
"""

import sys

import numpy as np
from scipy import integrate, optimize, stats

def average_precision_score(y, s):
    o = np.argsort(-s, kind="stable"); yy = y[o]
    tp = np.cumsum(yy); k = np.arange(1, len(yy) + 1)
    return float(np.sum((tp / k)[yy == 1]) / yy.sum())

def newcombe(theta_hat, m, n, z):
    """Newcombe 2006 method 5: solve (th - t)^2 = z^2 V(t), V Hanley-McNeil with N* = (m+n)/2 - 1."""
    ns = (m + n) / 2 - 1
    def f(t):
        v = t * (1 - t) / (m * n) * (1 + ns * ((1 - t) / (2 - t) + t / (1 + t)))
        return (theta_hat - t) ** 2 - z * z * v
    lo = 0.0 if theta_hat <= 0 or f(0.0) <= 0 else optimize.brentq(f, 0.0, theta_hat) if theta_hat > 0 else 0.0
    hi = 1.0 if theta_hat >= 1 or f(1.0) <= 0 else optimize.brentq(f, theta_hat, 1.0)
    return lo, hi

def delong_logit(y, s, auc, z):
    pos, neg = s[y == 1], s[y == 0]
    m, n = len(pos), len(neg)
    cmp = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10 = cmp.mean(1); v01 = cmp.mean(0)
    var = v10.var(ddof=1) / m + v01.var(ddof=1) / n if m > 1 else np.nan
    a = min(max(auc, 1e-6), 1 - 1e-6)
    se = np.sqrt(var) / (a * (1 - a))
    L = np.log(a / (1 - a))
    return 1 / (1 + np.exp(-(L - z * se))), 1 / (1 + np.exp(-(L + z * se)))

def auc_of(y, s):
    r = stats.rankdata(s)
    m = y.sum(); n = len(y) - m
    return (r[y == 1].sum() - m * (m + 1) / 2) / (m * n)

def ap_true(d, pi):
    f = lambda t: stats.norm.pdf(t - d) * (pi * stats.norm.sf(t - d) / (pi * stats.norm.sf(t - d) + (1 - pi) * stats.norm.sf(t)))
    return integrate.quad(f, -12, 12 + d, limit=200)[0]

def boot(y, s, B, rng, stratified):
    n = len(y); out_auc = []; out_ap = []
    pi_ = np.flatnonzero(y == 1); ni = np.flatnonzero(y == 0)
    for _ in range(B):
        if stratified:
            idx = np.concatenate([rng.choice(pi_, len(pi_)), rng.choice(ni, len(ni))])
        else:
            idx = rng.integers(0, n, n)
        yy, ss = y[idx], s[idx]
        if 0 < yy.sum() < n:
            out_auc.append(auc_of(yy, ss)); out_ap.append(average_precision_score(yy, ss))
    return np.array(out_auc), np.array(out_ap)

def main(n, pi, auc_target, R, B, seed):
    d = np.sqrt(2) * stats.norm.ppf(auc_target)
    true_auc = stats.norm.cdf(d / np.sqrt(2)); true_ap = ap_true(d, pi)
    z = stats.norm.ppf(0.975)
    rng = np.random.default_rng(seed)
    hits = {k: [] for k in ["auc_boot", "auc_sboot", "auc_newcombe", "auc_delong_logit", "ap_boot", "ap_sboot", "ap_logit", "ap_binom"]}
    npos_list = []
    for r in range(R):
        y = (rng.random(n) < pi).astype(int)
        m = y.sum()
        if m < 1 or m == n:
            continue
        npos_list.append(m)
        s = rng.normal(size=n) + d * y
        a = auc_of(y, s); ap = average_precision_score(y, s)
        ba, bp = boot(y, s, B, rng, False)
        sa, sp = boot(y, s, B, rng, True)
        q = lambda v: np.quantile(v, [0.025, 0.975])
        lo, hi = q(ba); hits["auc_boot"].append(lo <= true_auc <= hi)
        lo, hi = q(sa); hits["auc_sboot"].append(lo <= true_auc <= hi)
        lo, hi = newcombe(a, m, n - m, z); hits["auc_newcombe"].append(lo <= true_auc <= hi)
        lo, hi = delong_logit(y, s, a, z); hits["auc_delong_logit"].append(lo <= true_auc <= hi)
        lo, hi = q(bp); hits["ap_boot"].append(lo <= true_ap <= hi)
        lo, hi = q(sp); hits["ap_sboot"].append(lo <= true_ap <= hi)
        a2 = min(max(ap, 1e-6), 1 - 1e-6); L = np.log(a2 / (1 - a2)); tau = 1 / np.sqrt(m * a2 * (1 - a2))
        lo, hi = stats.logistic.cdf(L - z * tau), stats.logistic.cdf(L + z * tau); hits["ap_logit"].append(lo <= true_ap <= hi)
        se = np.sqrt(ap * (1 - ap) / m); hits["ap_binom"].append(ap - z * se <= true_ap <= ap + z * se)
    k = len(npos_list)
    print(f"n={n} pi={pi} AUC={true_auc:.3f} AP={true_ap:.3f} replicates={k} (of {R}; seed {seed}; B={B}) mean positives {np.mean(npos_list):.1f}")
    for name, h in hits.items():
        p = np.mean(h); se = np.sqrt(p * (1 - p) / len(h))
        print(f"  {name:18s} coverage {p:.3f} ± {se:.3f}")

if __name__ == "__main__":
    n, pi, auc, R, B = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    main(n, pi, auc, R, B, 37)
