r"""Exact coverage of the closed-form intervals of the proportions (issue 37), by enumeration.

The report gives recall, specificity and precision Wilson's score interval, and balanced
accuracy Newcombe's hybrid score interval, below 100 rows of the rarer class, and none to a
proportion with fewer than 10 rows in its own denominator
(``beyondchance.inference.few_rows_intervals``).  Their coverage needs no simulation: for
the grid's binary population (``benchmarks/validity_table.py``: TPR = Φ(d) = 0.8299,
FPR = 0.5 at the threshold) the counts are binomial, so every test set is enumerated with
its probability:

* recall: positives m ~ Bin(n, π), TP | m ~ Bin(m, TPR);
* specificity: negatives n − m, TN | n − m ~ Bin(n − m, 1 − FPR);
* precision: predicted positives k ~ Bin(n, q), q = π TPR + (1 − π) FPR, TP | k ~ Bin(k, PPV);
* balanced accuracy: m, then TP and TN independent given m.

Test sets missing a class are left out (the grid redraws them); coverage is the probability
that the interval holds the population value among the test sets that give one ("given": the
probability that one is given).  Wald's interval p̂ ± z √(p̂(1 − p̂)/m) — which the bootstrap
of the cells approximates — is shown beside Wilson's for the proportions.

    PYTHONPATH=src python benchmarks/exact_coverage_proportions.py [--cells 50:0.3,100:0.05]
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy import stats

from beyondchance.inference.few_rows_intervals import FEW_ROWS, TOO_FEW_ROWS, labeling_interval

TPR, FPR = float(stats.norm.cdf(math.sqrt(2) * stats.norm.ppf(0.75))), 0.5
#: the grid's binary cells where the report uses the closed forms (fewer than FEW_ROWS rows of
#: the rarer class expected); elsewhere it keeps the bootstrap of the cells
CELLS = [(n, pi) for n in (50, 100, 1000) for pi in (0.02, 0.05, 0.3, 0.5) if n * min(pi, 1 - pi) < FEW_ROWS]
Z = float(stats.norm.ppf(0.975))
TAIL = 1e-9  # counts whose probability is below this are left out of the sums


def _support(size: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """The counts of Bin(size, p) with non-negligible probability, and their probabilities."""
    k = np.arange(size + 1)
    pmf = stats.binom.pmf(k, size, p)
    keep = pmf > TAIL
    return k[keep], pmf[keep]


def _wald(k: int, m: int) -> tuple[float, float]:
    p = k / m
    half = Z * math.sqrt(p * (1 - p) / m)
    return p - half, p + half


def _proportion(n: int, pi: float, name: str) -> dict[str, float]:
    """Exact coverage of Wilson's (and Wald's) interval of one proportion of the grid cell."""
    if name == "precision":
        q = pi * TPR + (1 - pi) * FPR
        truth, denominator, success = pi * TPR / q, q, pi * TPR / q
    elif name == "recall":
        truth, denominator, success = TPR, pi, TPR
    else:  # specificity
        truth, denominator, success = 1 - FPR, 1 - pi, 1 - FPR
    p_both = 1 - (1 - pi) ** n - pi ** n  # a test set holds both classes
    given = covered = wald = 0.0
    for m, pm in zip(*_support(n, denominator)):
        if m < TOO_FEW_ROWS:
            continue
        ks, pk = _support(int(m), success)
        for k, p in zip(ks, pk):
            cells = {"recall": dict(tp=k, fp=0, fn=m - k, tn=0), "specificity": dict(tp=0, fp=m - k, fn=0, tn=k),
                     "precision": dict(tp=k, fp=m - k, fn=0, tn=0)}[name]
            low, high = labeling_interval(name, **cells, level=0.95)
            covered += pm * p * (low <= truth <= high)
            wlow, whigh = _wald(int(k), int(m))
            wald += pm * p * (wlow <= truth <= whigh)
        given += pm * pk.sum()
    return {"given": min(given / p_both, 1.0), "wilson": covered / given if given else math.nan,
            "wald": wald / given if given else math.nan}


def _balanced_accuracy(n: int, pi: float) -> dict[str, float]:
    """Exact coverage of Newcombe's hybrid interval of balanced accuracy of the grid cell."""
    truth = (TPR + 1 - FPR) / 2
    p_both = 1 - (1 - pi) ** n - pi ** n
    given = covered = 0.0
    for m, pm in zip(*_support(n, pi)):
        if m < TOO_FEW_ROWS or n - m < TOO_FEW_ROWS:
            continue
        tps, ptp = _support(int(m), TPR)
        tns, ptn = _support(int(n - m), 1 - FPR)
        inside = np.array([[labeling_interval("balanced_accuracy", tp=tp, fp=n - m - tn, fn=m - tp, tn=tn,
                                              level=0.95) for tn in tns] for tp in tps])
        hold = (inside[..., 0] <= truth) & (truth <= inside[..., 1])
        covered += pm * float(ptp @ hold @ ptn)
        given += pm * float(ptp.sum() * ptn.sum())
    return {"given": min(given / p_both, 1.0), "wilson": covered / given if given else math.nan, "wald": math.nan}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", help="n:prevalence,… (default: the grid's binary cells with fewer than 100 "
                                    "rows of the rarer class expected)")
    a = ap.parse_args()
    cells = [(int(c.split(":")[0]), float(c.split(":")[1])) for c in a.cells.split(",")] if a.cells else CELLS
    print(f"exact coverage at 95%, TPR {TPR:.4f}, FPR {FPR}; a proportion needs {TOO_FEW_ROWS} rows of its denominator")
    print("| row | cell | given | Wilson / Newcombe hybrid | Wald |")
    print("|---|---|---|---|---|")
    for n, pi in cells:
        for name in ("recall", "specificity", "precision", "balanced_accuracy"):
            r = _balanced_accuracy(n, pi) if name == "balanced_accuracy" else _proportion(n, pi, name)
            cov = "–" if math.isnan(r["wilson"]) else f"{r['wilson']:.3f}"
            wald = "–" if math.isnan(r["wald"]) else f"{r['wald']:.3f}"
            print(f"| {name} | n={n} π={pi} | {r['given']:.3f} | {cov} | {wald} |", flush=True)


if __name__ == "__main__":
    main()
