r"""The validity table the verdicts rest on (issue 37, item 6): coverage of every row's
interval and the rate of "better" under the null, per test-set size, prevalence and task.

    PYTHONPATH=src python benchmarks/validity_table.py [--replicates R] [--seed S]
        [--cells CELLS | --quick] [--jobs J] [--json PATH] [--markdown PATH]
    PYTHONPATH=src python benchmarks/validity_table.py --from-json PATH   # the Markdown tables of a run

Everything is measured through the public API (``bc.evaluate`` with its default options
and ``random_state`` set), so the same script measures any version of the library.

Populations (every population value is computed here, independently of beyondchance)
----------------------------------------------------------------------------------
* **binary** (prevalence π): scores s ~ N(0, 1) for negatives and N(d, 1) for positives,
  d = √2 Φ⁻¹(0.75) so that the population ROC AUC Φ(d/√2) is 0.75; the report gets the
  probabilities p = expit(s) (task ``binary-scores``; its threshold is 0.5, i.e. s ≥ 0, so
  TPR = Φ(d), FPR = 1/2) and, as a second report, the labels 1{p ≥ 0.5} (``binary-labels``).
  Population values: the labeling metrics from the four population cell fractions
  (scikit-learn's metrics with the cell fractions as sample weights; specificity, pure
  accuracy (A − RA)/(1 − RA) and prediction advantage 1 − err/min(π, 1 − π) by their
  formulas); ROC AUC = Φ(d/√2); average precision ∫ precision dTPR, the lift AUC ∫₀¹ TPR/q dq
  (q the predicted-positive rate), log loss and Brier score of p by quadrature over the
  threshold / the score (scipy.integrate.quad); ``--check`` compares the quadratures with
  scikit-learn's average_precision_score, log_loss and brier_score_loss on 2·10⁶ rows.
  Null: d = 0 (scores independent of the labels), population values by the same formulas.
* **3-class** (the grid's prevalence p is the first class's share; shares
  (p, (1 − p)/2, (1 − p)/2), or any shares given): the prediction is right with
  probability 0.6, else uniform among the two other classes; the population confusion
  matrix J[i, j] = w_i (0.6 if i = j else 0.2) gives the macro precision / recall / F1,
  accuracy, balanced accuracy, MCC, kappa (scikit-learn with the nine cell fractions as
  weights), pure accuracy and prediction advantage 1 − err/(1 − max w).  Two nulls:
  predictions uniform over the classes, and predictions drawn with the label shares, both
  independent of the labels (J = w ⊗ q).

Test sets: n rows drawn i.i.d., redrawn until every class occurs (a report on a test set
missing a class is another task); the population values are those of the unconditional
distribution (the conditioning matters only when n·(smallest share) is about 1).

What is measured, per report row
--------------------------------
* **coverage**: the share of replicates whose interval (the row's ``ci``) holds the
  population value, among the replicates where the row gives a finite interval; the share
  of replicates where it gives none is reported beside it ("no CI").
* **better**: the share of replicates whose one-word verdict
  (``beyondchance.report.render.terminal.verdict_word``) is "better" — under the alternative
  (power) and under the null (type-I error).
* **headline**: the share of replicates whose overall verdict claims an advantage
  (:func:`headline_claims`, the one place that reads the headline).
Monte Carlo intervals: Wilson 95% for each proportion.

Done-when criteria of the issue, flagged in the table (``FAIL`` markers, point estimates):
coverage in [0.93, 0.98] (or the row declines to give an interval); "better" under the null
≤ 5%; the headline's claim rate under the null ≤ 5%.

Options of ``bc.evaluate``: the defaults (2000 resamples, BCa / percentile intervals and the
chance p-values as the report computes them), ``task`` and ``random_state`` given.  Nothing is
skipped: a profile at n = 1000 (binary scores, 0.93 s) puts 54% of the time in the bootstrap of
the intervals, 36% in the permutation tests of the p-values (which a verdict rule may read)
and 2% in the outperformance scores (from the shipped reference; no verdict word and no
headline's first line reads them, but no public option skips them).  At n ≤ 100 with 3
positives a binary-scores report costs ~7 s of CPU: its permutation tests enumerate all
C(n, 3) ≤ 200,000 arrangements.

Seeds: replicate r of scenario s of cell c uses ``SeedSequence(seed, spawn_key=(crc32(c),
crc32(s), r))`` (child r of that scenario's sequence) for its data and the first 32-bit
word of it as ``random_state``, so a cell's numbers do not depend on which other cells run
or on ``--jobs``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
import zlib
from dataclasses import dataclass
from multiprocessing import Pool
from typing import Any

import numpy as np
from scipy import integrate, stats
from scipy.special import expit

#: binormal separation giving the population ROC AUC 0.75
D_BINORMAL = math.sqrt(2.0) * float(stats.norm.ppf(0.75))
#: 3-class population model: the prediction is right with this probability
P_CORRECT = 0.6
COVERAGE_RANGE = (0.93, 0.98)
NULL_MAX = 0.05
GRID_N = (50, 100, 1000)
GRID_PREVALENCE = (0.02, 0.05, 0.3, 0.5)
DEFAULT_SEED = 37


# =====================================================================================
# cells and scenarios
# =====================================================================================


@dataclass(frozen=True)
class Cell:
    """One cell of the table: ``kind`` "binary" (``shares`` = (π,)) or "3class" (the
    three class shares), ``n`` rows per test set."""

    kind: str
    n: int
    shares: tuple[float, ...]

    @property
    def name(self) -> str:
        if self.kind == "binary":
            return f"binary n={self.n} prevalence={self.shares[0]:g}"
        return f"3class n={self.n} shares=" + "/".join(f"{w:g}" for w in self.shares)

    @property
    def scenarios(self) -> tuple[str, ...]:
        if self.kind == "binary":
            return ("scores", "scores-null", "labels", "labels-null")
        return ("labels", "labels-null-uniform", "labels-null-shares")


def three_class_shares(p: float) -> tuple[float, float, float]:
    """(p, (1 − p)/2, (1 − p)/2): p is the rarest class's share for p < 1/3."""
    return (p, (1 - p) / 2, (1 - p) / 2)


def grid_cells() -> list[Cell]:
    """The full study: n × prevalence, binary and 3-class."""
    cells = [Cell("binary", n, (p,)) for n in GRID_N for p in GRID_PREVALENCE]
    cells += [Cell("3class", n, three_class_shares(p)) for n in GRID_N for p in GRID_PREVALENCE]
    return cells


def quick_cells() -> list[Cell]:
    """The issue's cells: ROC AUC at 5 positives, 3-class random predictions, PR AUC coverage."""
    return [Cell("binary", 100, (0.05,)), Cell("3class", 300, (0.5, 0.3, 0.2)), Cell("binary", 100, (0.3,))]


def parse_cells(text: str) -> list[Cell]:
    """``binary:N:PREV`` or ``3class:N:P`` (shares p, (1−p)/2, (1−p)/2) or
    ``3class:N:W1/W2/W3``, comma-separated."""
    cells = []
    for part in filter(None, (t.strip() for t in text.split(","))):
        kind, n, shares = part.split(":")
        if kind == "binary":
            cells.append(Cell("binary", int(n), (float(shares),)))
        elif kind == "3class":
            ws = tuple(float(w) for w in shares.split("/"))
            cells.append(Cell("3class", int(n), three_class_shares(ws[0]) if len(ws) == 1 else ws))
        else:
            raise SystemExit(f"unknown cell kind {kind!r} (binary or 3class)")
    return cells


# =====================================================================================
# population values (independent of beyondchance)
# =====================================================================================


def labeling_population(joint: np.ndarray) -> dict[str, float]:
    """Population labeling metrics of a confusion distribution ``joint[true, pred]`` (sums
    to 1): scikit-learn's metrics with the cell fractions as weights; binary: class 1 is
    positive, else macro averages."""
    from sklearn import metrics as skm

    k = joint.shape[0]
    yt, yp = np.repeat(np.arange(k), k), np.tile(np.arange(k), k)
    w = joint.ravel()
    avg = "binary" if k == 2 else "macro"
    acc = float(np.trace(joint))
    ra = float(joint.sum(1) @ joint.sum(0))
    out = {
        "accuracy": acc,
        "balanced_accuracy": skm.balanced_accuracy_score(yt, yp, sample_weight=w),
        "precision": skm.precision_score(yt, yp, average=avg, sample_weight=w, zero_division=0),
        "recall": skm.recall_score(yt, yp, average=avg, sample_weight=w, zero_division=0),
        "f1": skm.f1_score(yt, yp, average=avg, sample_weight=w, zero_division=0),
        "mcc": skm.matthews_corrcoef(yt, yp, sample_weight=w),
        "kappa": skm.cohen_kappa_score(yt, yp, sample_weight=w),
        "pure_accuracy": (acc - ra) / (1 - ra),
        "prediction_advantage": 1 - (1 - acc) / (1 - float(joint.sum(1).max())),
    }
    if k == 2:
        out["specificity"] = joint[0, 0] / joint[0].sum()
    return {key: float(v) for key, v in out.items()}


def binormal_population(pi: float, d: float) -> dict[str, float]:
    """Every row's population value for p = expit(s), s ~ N(d·y, 1), P(y = 1) = π, labels
    p ≥ 0.5 (s ≥ 0)."""
    tpr, fpr = float(stats.norm.cdf(d)), 0.5
    joint = np.array([[(1 - pi) * (1 - fpr), (1 - pi) * fpr], [pi * (1 - tpr), pi * tpr]])
    out = labeling_population(joint)
    phi, sf = stats.norm.pdf, stats.norm.sf

    def q(t: float) -> float:  # predicted-positive rate at threshold t
        return pi * sf(t - d) + (1 - pi) * sf(t)

    lim = (-12.0, 12.0 + d)
    # average precision: ∫ precision dTPR; lift AUC: ∫ TPR/q dq (dq = −(π φ(t−d) + (1−π) φ(t)) dt)
    out["pr_auc"] = integrate.quad(lambda t: pi * sf(t - d) / q(t) * phi(t - d), *lim, limit=200)[0]
    out["lift_auc"] = integrate.quad(lambda t: sf(t - d) / q(t) * (pi * phi(t - d) + (1 - pi) * phi(t)),
                                     *lim, limit=200)[0]
    out["roc_auc"] = float(stats.norm.cdf(d / math.sqrt(2)))
    # log loss and Brier score of p = expit(s)
    def softplus(x: float) -> float:  # log(1 + e^x)
        return float(np.logaddexp(0.0, x))

    ll_pos = integrate.quad(lambda s: softplus(-s) * phi(s - d), d - 12, d + 12, limit=200)[0]
    ll_neg = integrate.quad(lambda s: softplus(s) * phi(s), -12, 12, limit=200)[0]
    out["log_loss"] = pi * ll_pos + (1 - pi) * ll_neg
    br_pos = integrate.quad(lambda s: (1 - expit(s)) ** 2 * phi(s - d), d - 12, d + 12, limit=200)[0]
    br_neg = integrate.quad(lambda s: expit(s) ** 2 * phi(s), -12, 12, limit=200)[0]
    out["brier"] = pi * br_pos + (1 - pi) * br_neg
    return out


def three_class_joint(shares: tuple[float, ...], scenario: str) -> np.ndarray:
    """The population confusion distribution J[true, pred] of a 3-class scenario."""
    w = np.asarray(shares, dtype=float)
    k = len(w)
    if scenario == "labels":
        cond = np.full((k, k), (1 - P_CORRECT) / (k - 1))
        np.fill_diagonal(cond, P_CORRECT)
        return w[:, None] * cond
    q = np.full(k, 1 / k) if scenario == "labels-null-uniform" else w
    return np.outer(w, q)


def population_values(cell: Cell, scenario: str) -> dict[str, float]:
    if cell.kind == "binary":
        return binormal_population(cell.shares[0], 0.0 if scenario.endswith("null") else D_BINORMAL)
    return labeling_population(three_class_joint(cell.shares, scenario))


def check_population(pi: float, d: float = D_BINORMAL, rows: int = 2_000_000, seed: int = 0) -> dict[str, tuple]:
    """(quadrature, scikit-learn on ``rows`` rows) of average precision, log loss, Brier score."""
    from sklearn import metrics as skm

    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < pi).astype(int)
    p = expit(rng.normal(size=rows) + d * y)
    pop = binormal_population(pi, d)
    return {"pr_auc": (pop["pr_auc"], skm.average_precision_score(y, p)),
            "log_loss": (pop["log_loss"], skm.log_loss(y, p)),
            "brier": (pop["brier"], skm.brier_score_loss(y, p))}


# =====================================================================================
# one replicate
# =====================================================================================


def headline_claims(report: Any) -> bool:
    """Whether the report's overall verdict claims an advantage over the best constant: its
    first line starts with "Better than" and does not say "not significantly" (the one place
    that reads the headline; change it here when the headline changes)."""
    lines = tuple(getattr(report, "verdict", ()) or ())
    return bool(lines) and lines[0].startswith("Better than") and "not significantly" not in lines[0]


def seed_sequence(seed: int, cell: Cell, scenario: str, replicate: int) -> np.random.SeedSequence:
    """Child ``replicate`` of the scenario's SeedSequence (as ``spawn`` would make it)."""
    key = (zlib.crc32(cell.name.encode()), zlib.crc32(scenario.encode()), int(replicate))
    return np.random.SeedSequence(seed, spawn_key=key)


def draw_labels(rng: np.random.Generator, n: int, shares: tuple[float, ...]) -> np.ndarray:
    """n labels i.i.d. with the class shares, redrawn until every class occurs."""
    w = np.asarray(shares if len(shares) > 1 else (1 - shares[0], shares[0]), dtype=float)
    while True:
        y = rng.choice(len(w), size=n, p=w / w.sum())
        if np.unique(y).size == len(w):
            return y


def draw_test_set(rng: np.random.Generator, cell: Cell, scenario: str) -> tuple[np.ndarray, np.ndarray, str]:
    """(y_true, prediction, task) of one replicate."""
    y = draw_labels(rng, cell.n, cell.shares)
    if cell.kind == "binary":
        d = 0.0 if scenario.endswith("null") else D_BINORMAL
        p = expit(rng.normal(size=cell.n) + d * y)
        if scenario.startswith("scores"):
            return y, p, "binary-scores"
        return y, (p >= 0.5).astype(int), "binary-labels"
    k = len(cell.shares)
    if scenario == "labels":
        right = rng.random(cell.n) < P_CORRECT
        other = (y + rng.integers(1, k, size=cell.n)) % k
        return y, np.where(right, y, other), "multiclass-labels"
    q = np.full(k, 1 / k) if scenario == "labels-null-uniform" else np.asarray(cell.shares) / sum(cell.shares)
    return y, rng.choice(k, size=cell.n, p=q), "multiclass-labels"


def run_replicate(cell: Cell, scenario: str, seed: int, replicate: int,
                  population: dict[str, float]) -> dict[str, Any]:
    """One test set, one report: per row (covered: True / False / None for no interval,
    verdict word), and whether the headline claims an advantage."""
    import beyondchance as bc
    from beyondchance.report.render.terminal import verdict_word

    ss = seed_sequence(seed, cell, scenario, replicate)
    rng = np.random.default_rng(ss)
    y, pred, task = draw_test_set(rng, cell, scenario)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            report = bc.evaluate(y, pred, task=task, random_state=int(ss.generate_state(1)[0]))
        except Exception as exc:  # noqa: BLE001  a failing report is counted, not fatal
            return {"error": f"{type(exc).__name__}: {exc}"}
    rows = {}
    for name, m in report.metrics.items():
        ci = m.ci
        covered = None
        if ci is not None and math.isfinite(ci.low) and math.isfinite(ci.high) and name in population:
            covered = bool(ci.low <= population[name] <= ci.high)
        rows[name] = (covered, verdict_word(m))
    return {"rows": rows, "headline": headline_claims(report)}


def _run_chunk(args: tuple) -> tuple[str, str, list[dict[str, Any]]]:
    cell, scenario, seed, start, stop, population = args
    return cell.name, scenario, [run_replicate(cell, scenario, seed, r, population) for r in range(start, stop)]


# =====================================================================================
# counting
# =====================================================================================


def wilson(k: int, m: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval of a proportion k/m (95% by default); (nan, nan) when m = 0."""
    if m == 0:
        return (math.nan, math.nan)
    p = k / m
    centre = (p + z * z / (2 * m)) / (1 + z * z / m)
    half = z / (1 + z * z / m) * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return (max(0.0, centre - half), min(1.0, centre + half))


def tally(results: list[dict[str, Any]], population: dict[str, float]) -> dict[str, Any]:
    """Counts per row of one scenario's replicates."""
    rows: dict[str, dict[str, int]] = {}
    errors = [r["error"] for r in results if "error" in r]
    ok = [r for r in results if "error" not in r]
    for r in ok:
        for name, (covered, word) in r["rows"].items():
            c = rows.setdefault(name, {"reports": 0, "with_ci": 0, "covered": 0, "better": 0})
            c["reports"] += 1
            c["with_ci"] += covered is not None
            c["covered"] += bool(covered)
            c["better"] += word == "better"
    for name, c in rows.items():
        c["replicates"] = len(ok)
        c["population"] = population.get(name, math.nan)
    return {"replicates": len(results), "errors": len(errors), "first_error": errors[0] if errors else None,
            "headline_claims": sum(r["headline"] for r in ok), "rows": rows}


def run_cell(cell: Cell, replicates: int, seed: int = DEFAULT_SEED, jobs: int = 1,
             scenarios: tuple[str, ...] | None = None, pool: Any = None) -> dict[str, Any]:
    """Every scenario of a cell: {scenario: tally}."""
    chosen = scenarios or cell.scenarios
    pops = {s: population_values(cell, s) for s in chosen}
    chunk = max(1, min(25, replicates // max(1, 4 * jobs)))
    tasks = [(cell, s, seed, a, min(a + chunk, replicates), pops[s]) for s in chosen
             for a in range(0, replicates, chunk)]
    collected: dict[str, list] = {s: [] for s in chosen}
    if pool is None and jobs > 1:
        with Pool(jobs) as own:
            return run_cell(cell, replicates, seed, jobs, scenarios, own)
    mapped = pool.imap_unordered(_run_chunk, tasks) if pool is not None else map(_run_chunk, tasks)
    for _, s, res in mapped:
        collected[s].extend(res)
    return {s: tally(collected[s], pops[s]) for s in chosen}


# =====================================================================================
# the table
# =====================================================================================


def rate(k: int, m: int) -> dict[str, float]:
    lo, hi = wilson(k, m)
    return {"k": k, "m": m, "rate": k / m if m else math.nan, "low": lo, "high": hi}


def _fmt_rate(r: dict[str, float]) -> str:
    if not r["m"]:
        return "-"
    return f"{r['rate']:.3f} [{r['low']:.3f},{r['high']:.3f}]"


def cell_summary(cell: Cell, tallies: dict[str, dict]) -> dict[str, Any]:
    """Rates per report (scores / labels) and row, with the done-when flags."""
    reports = {"scores": ["scores-null"], "labels": ["labels-null"]} if cell.kind == "binary" else \
        {"labels": ["labels-null-uniform", "labels-null-shares"]}
    out: dict[str, Any] = {"cell": cell.name, "kind": cell.kind, "n": cell.n, "shares": list(cell.shares),
                           "reports": {}}
    for alt, nulls in reports.items():
        if alt not in tallies:
            continue
        t = tallies[alt]
        entry: dict[str, Any] = {"replicates": t["replicates"], "errors": t["errors"], "first_error": t["first_error"],
                                 "headline_alt": rate(t["headline_claims"], t["replicates"] - t["errors"]),
                                 "nulls": {}, "rows": {}, "failures": []}
        for null in nulls:
            if null in tallies:
                tn = tallies[null]
                entry["nulls"][null] = {"replicates": tn["replicates"], "errors": tn["errors"],
                                        "first_error": tn["first_error"],
                                        "headline": rate(tn["headline_claims"], tn["replicates"] - tn["errors"])}
                if entry["nulls"][null]["headline"]["rate"] > NULL_MAX:
                    entry["failures"].append(f"headline claims under {null}")
        for name, c in t["rows"].items():
            row = {"population": c["population"], "coverage": rate(c["covered"], c["with_ci"]),
                   "no_ci": rate(c["replicates"] - c["with_ci"], c["replicates"]),
                   "better_alt": rate(c["better"], c["replicates"]), "better_null": {}, "flags": []}
            cov = row["coverage"]
            if cov["m"] and not (COVERAGE_RANGE[0] <= cov["rate"] <= COVERAGE_RANGE[1]):
                row["flags"].append("coverage")
            for null in nulls:
                if null in tallies and name in tallies[null]["rows"]:
                    cn = tallies[null]["rows"][name]
                    row["better_null"][null] = rate(cn["better"], cn["replicates"])
                    if row["better_null"][null]["rate"] > NULL_MAX:
                        row["flags"].append(f"better under {null}")
            entry["failures"] += [f"{name}: {f}" for f in row["flags"]]
            entry["rows"][name] = row
        out["reports"][alt] = entry
    return out


def format_cell(summary: dict[str, Any]) -> str:
    lines = [f"=== {summary['cell']} ==="]
    for alt, e in summary["reports"].items():
        task = {"scores": "binary-scores (probabilities, threshold 0.5)", "labels": "binary-labels"}.get(alt, "")
        if summary["kind"] != "binary":
            task = "multiclass-labels (right with probability 0.6, else uniform among the others)"
        nulls = list(e["nulls"])
        lines.append(f"report: {task}; {e['replicates']} replicates under the alternative"
                     + "".join(f", {v['replicates']} under {k}" for k, v in e["nulls"].items())
                     + (f"; errors {e['errors']} ({e['first_error']})" if e["errors"] else "")
                     + "".join(f"; errors under {k} {v['errors']} ({v['first_error']})"
                               for k, v in e["nulls"].items() if v["errors"]))
        head = (f"{'metric':<22}{'population':>11}  {'coverage [MC 95%]':<24}{'no CI':>7}  {'better|alt':>10}  "
                + "".join(f"{'better|' + n.replace('labels-', '').replace('scores-', ''):<26}" for n in nulls)
                + "flag")
        lines.append(head)
        for name, r in e["rows"].items():
            pop = r["population"]
            lines.append(
                f"{name:<22}{pop:>11.4f}  {_fmt_rate(r['coverage']):<24}{r['no_ci']['rate']:>7.3f}  "
                f"{r['better_alt']['rate']:>10.3f}  "
                + "".join(f"{_fmt_rate(r['better_null'].get(n, {'m': 0})):<26}" for n in nulls)
                + ("FAIL: " + ", ".join(r["flags"]) if r["flags"] else ""))
        lines.append(f"headline claims an advantage: alternative {_fmt_rate(e['headline_alt'])}"
                     + "".join(f"; {n} {_fmt_rate(v['headline'])}"
                               + (" FAIL" if v["headline"]["rate"] > NULL_MAX else "")
                               for n, v in e["nulls"].items()))
        lines.append(f"*** CELL FAILS ({len(e['failures'])}): " + "; ".join(e["failures"]) if e["failures"]
                     else "cell passes")
        lines.append("")
    return "\n".join(lines)


def _beyond_monte_carlo(r: dict[str, float], coverage: bool) -> bool:
    """Whether a flagged rate's whole 95% Wilson interval lies outside the criterion (so the
    miss is not Monte Carlo noise): a coverage's outside [0.93, 0.98], a null rate's above 5%."""
    if coverage:
        return r["high"] < COVERAGE_RANGE[0] or r["low"] > COVERAGE_RANGE[1]
    return r["low"] > NULL_MAX


def markdown_tables(out: dict[str, Any]) -> str:
    """The run's numbers as Markdown: per report (binary scores, binary labels, 3-class
    labels), one table of coverage and one of the rate of "better" under the null — rows the
    report's rows, columns the cells.  A value outside the criteria is in bold (``**``), with
    `` !`` when its whole Wilson interval is (not Monte Carlo noise); a coverage of fewer test
    sets than the replicates (the others without an interval) is followed by their number."""
    groups: dict[tuple[str, str], list] = {}
    for c in out["cells"]:
        for alt, e in c["reports"].items():
            report = "3-class labels" if c["kind"] != "binary" else f"binary {alt}"
            label = f"n={c['n']} " + (f"π={c['shares'][0]:g}" if c["kind"] == "binary" else f"p={c['shares'][0]:g}")
            groups.setdefault((report, "coverage"), []).append((label, e, None))
            for null in e["nulls"]:
                groups.setdefault((report, f"better under {null}"), []).append((label, e, null))
    text = [f"Seed {out['seed']}, {out['replicates']} replicates per scenario, beyondchance {out['version']}.", ""]
    for (report, what), cols in groups.items():
        names = list(dict.fromkeys(name for _, e, _ in cols for name in e["rows"]))
        text += [f"**{report}: {what}**" + (" (share of finite intervals holding the population value)"
                                             if what == "coverage" else ""), "",
                 "| row | " + " | ".join(label for label, _, _ in cols) + " |",
                 "|---|" + "---|" * len(cols)]
        for name in names:
            cells = []
            for _, e, null in cols:
                r = e["rows"].get(name)
                if r is None:
                    cells.append("")
                    continue
                v = r["coverage"] if null is None else r["better_null"].get(null, {"m": 0})
                bad = (null is None and "coverage" in r["flags"]) or (null is not None and v["m"] and
                                                                       v["rate"] > NULL_MAX)
                txt = "–" if not v["m"] else f"{v['rate']:.3f}"
                if null is None and 0 < v["m"] < r["no_ci"]["m"]:  # some test sets without an interval
                    txt += f" ({v['m']})"
                if bad and _beyond_monte_carlo(v, null is None):
                    txt += " !"
                cells.append(f"**{txt}**" if bad else txt)
            text.append(f"| {name} | " + " | ".join(cells) + " |")
        if what != "coverage":
            heads = []
            for _, e, null in cols:
                h = e["nulls"][null]["headline"]
                heads.append(f"**{h['rate']:.3f}**" if h["rate"] > NULL_MAX else f"{h['rate']:.3f}")
            text.append("| *headline* | " + " | ".join(heads) + " |")
        text.append("")
    return "\n".join(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--replicates", type=int, default=1000, help="replicates per scenario (default 1000)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"master seed (default {DEFAULT_SEED})")
    ap.add_argument("--cells", help="binary:N:PREV, 3class:N:P or 3class:N:W1/W2/W3, comma-separated")
    ap.add_argument("--quick", action="store_true", help="the issue's cells only")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", help="save the numbers to this path")
    ap.add_argument("--markdown", help="also write the Markdown tables (the docs page's) to this path")
    ap.add_argument("--from-json", nargs="+", metavar="PATH",
                    help="only render the Markdown tables of saved --json runs (their cells together) to stdout")
    ap.add_argument("--check", action="store_true",
                    help="compare the quadratures with scikit-learn on 2e6 rows, then run")
    a = ap.parse_args(argv)
    if a.from_json:
        runs = []
        for path in a.from_json:
            with open(path) as fh:
                runs.append(json.load(fh))
        if len({(r["seed"], r["replicates"], r["version"]) for r in runs}) > 1:
            raise SystemExit("the runs differ in seed, replicates or version: render them one by one")
        print(markdown_tables({**runs[0], "cells": [c for r in runs for c in r["cells"]]}))
        return 0
    import beyondchance as bc

    cells = quick_cells() if a.quick else parse_cells(a.cells) if a.cells else grid_cells()
    print(f"validity table: beyondchance {bc.__version__}, master seed {a.seed}, {a.replicates} replicates "
          f"per scenario, {len(cells)} cells, jobs {a.jobs}")
    print(f"binormal d = {D_BINORMAL:.6f} (population ROC AUC 0.75); 3-class: right with probability {P_CORRECT}")
    print(f"done-when: coverage in [{COVERAGE_RANGE[0]}, {COVERAGE_RANGE[1]}] (or no interval), "
          f"better under the null <= {NULL_MAX}, headline claims under the null <= {NULL_MAX}\n")
    if a.check:
        for pi in sorted({c.shares[0] for c in cells if c.kind == "binary"}):
            for d in (D_BINORMAL, 0.0):
                chk = check_population(pi, d)
                print(f"check pi={pi:g} d={d:.3f}: " + ", ".join(
                    f"{k} quadrature {q:.5f} sklearn(2e6 rows) {s:.5f}" for k, (q, s) in chk.items()))
        print()
    out = {"seed": a.seed, "replicates": a.replicates, "version": bc.__version__, "cells": []}
    pool = Pool(a.jobs) if a.jobs > 1 else None
    t0 = time.time()
    try:
        for cell in cells:
            t = time.time()
            summary = cell_summary(cell, run_cell(cell, a.replicates, a.seed, a.jobs, pool=pool))
            summary["seconds"] = round(time.time() - t, 1)
            out["cells"].append(summary)
            print(format_cell(summary) + f"({summary['seconds']} s)\n", flush=True)
            if a.json:  # after every cell: a run stopped early keeps the cells it finished
                with open(a.json, "w") as fh:
                    json.dump(out, fh, indent=1, default=float)
    finally:
        if pool is not None:
            pool.close()
    failing = [c["cell"] for c in out["cells"] if any(e["failures"] for e in c["reports"].values())]
    print(f"{len(failing)} of {len(cells)} cells fail the done-when criteria"
          + (": " + "; ".join(failing) if failing else "") + f"  (total {time.time() - t0:.0f} s, seed {a.seed})")
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(markdown_tables(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
