"""Bounded work for many classes: the best constants from the class totals, equal to the
brute force over each constant's matrix; the one-vs-rest counts from the totals, equal to
the direct sums; a report of 2,000 classes that never builds a matrix per constant; the
class limit, refused before any k × k allocation (memory and DuckDB); the caps on the
resamples and the DBT reference curves."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import beyondchance as bc
from beyondchance import ConfusionMatrix, InvalidInputError
from beyondchance._validation import MAX_CLASSES, MAX_MC_SAMPLES, MAX_RESAMPLES
from beyondchance.cli import main
from beyondchance.measures import constant_baseline as cb
from beyondchance.measures.confusion import (
    _native_multiclass,
    _one_vs_rest_counts,
    _per_class_counts,
    average_per_class,
)
from beyondchance.measures.registry import METRICS, get_metric
from beyondchance.report.tasks.labels import _constant_baseline

pytestmark = pytest.mark.hostile

SEED = 20260503


# --- the brute force: each constant's k × k matrix, its classes summed cell by cell --------


def _direct_counts(c: np.ndarray) -> tuple[np.ndarray, ...]:
    """The one-vs-rest counts of every class as direct sums of its cells (the definition)."""
    counts = [_one_vs_rest_counts(c, i) for i in range(c.shape[-1])]
    return tuple(np.stack([cls[j] for cls in counts], axis=-1) for j in range(4))


def _brute_value(name: str, mat: np.ndarray, average: str, pos_index: int | None, fill: float) -> float:
    m = get_metric(name)
    k = mat.shape[0]
    with np.errstate(all="ignore"):
        if m.multiclass == "native":
            out = m.compute(*_one_vs_rest_counts(mat, 1)) if k == 2 else _native_multiclass(name, mat)
        elif average == "binary":
            out = m.compute(*_one_vs_rest_counts(mat, pos_index))
        else:
            return float(average_per_class(m, *_direct_counts(mat), average=average, zero_division=fill))
    out = float(out)
    return fill if math.isnan(out) and not math.isnan(fill) else out


def _brute_best(name: str, t: np.ndarray, average: str, pos_index: int | None, fill: float
                ) -> tuple[tuple[float, int], np.ndarray]:
    """The loop the report ran before: every constant's matrix, the largest class first,
    the first strictly better one kept; and the value of every constant."""
    m = get_metric(name)
    k = t.shape[0]
    values = np.array([_brute_value(name, _constant_matrix(t, i), average, pos_index, fill) for i in range(k)])
    best_v, best_i = float("nan"), None
    for i in np.argsort(-t, kind="stable"):
        v = values[i]
        if best_i is None or (v > best_v if m.greater_is_better else v < best_v):
            best_v, best_i = float(v), int(i)
    return (best_v, best_i), values


def _grid(k: int) -> list[tuple[str, np.ndarray]]:
    """Seeded class totals: counts, whole weights, ties, empty classes, fractional weights."""
    rng = np.random.default_rng(SEED + k)
    out = [("ones", np.ones(k)), ("one class", np.eye(k)[0] * 7)]
    for r in range(4 if k < 7 else 2):
        counts = rng.integers(0, 9, k).astype(float)
        counts[rng.integers(0, k)] = 0.0   # an empty class (only predicted)
        if counts.sum() == 0:
            counts[0] = 3.0
        out.append((f"counts {r}", counts))
        out.append((f"whole weights {r}", counts * rng.integers(1, 5, k)))
        out.append((f"fractional {r}", np.round(rng.random(k) * 10, 3) * (rng.random(k) > 0.25) + 0.001))
    return out


def _cases(k: int):
    for name, m in METRICS.items():
        if m.options:
            continue
        if m.multiclass == "native":
            yield name, "binary", None, np.nan
        elif k == 2:
            for pos in (0, 1):
                yield name, "binary", pos, 0.0
        else:
            for average in ("macro", "weighted", "micro"):
                for fill in (0.0, np.nan):
                    yield name, average, None, fill


@pytest.mark.parametrize("k", [2, 3, 7])
def test_the_best_constant_is_the_brute_force_over_every_matrix(k):
    """Every registered metric, every average, both zero-division policies: whole totals give
    the same value bit for bit and the same class; fractional weights the same value to
    1e-12 and the same class unless two constants tie to 1e-9 (the brute force then picks
    by its own rounding)."""
    checked = 0
    for label, t in _grid(k):
        whole = np.array_equal(t, np.floor(t))
        for name, average, pos, fill in _cases(k):
            expected, values = _brute_best(name, t, average, pos, fill)
            got = cb.best_constant(name, t, average=average, pos_index=pos, zero_division=fill)
            where = (k, label, name, average, fill, t.tolist())
            if whole:
                assert got[1] == expected[1], where
                assert got[0] == expected[0] or (math.isnan(got[0]) and math.isnan(expected[0])), where
            else:
                assert got[0] == pytest.approx(expected[0], rel=1e-12, abs=1e-12, nan_ok=True), where
                top = values[expected[1]]
                tied = np.isclose(values, top, rtol=1e-9, atol=1e-12).sum() > 1
                assert tied or got[1] == expected[1], where
            checked += 1
    assert checked > 100


def _constant_matrix(t: np.ndarray, i: int) -> np.ndarray:
    mat = np.zeros((t.size, t.size))
    mat[:, i] = t
    return mat


def test_the_report_baselines_read_the_classes_and_the_policies():
    """The report's wrapper: class labels, the binary positive class, and the report's own
    zero-division policies (0 for a macro average, 'nan' when left out)."""
    classes = np.array(["a", "b", "c", "d"], dtype=object)
    t = np.array([5.0, 9.0, 0.0, 9.0])
    assert _constant_baseline("accuracy", t, classes, None, "binary") == (9 / 23, "b")
    v, c = _constant_baseline("fdr", t, classes, None, "macro", "nan")
    assert (v, c) == _brute_pair("fdr", t, classes, "macro", np.nan)
    binary = np.array(["no", "yes"], dtype=object)
    assert _constant_baseline("recall", np.array([3.0, 1.0]), binary, "yes", "binary") == (1.0, "yes")
    assert _constant_baseline("precision", np.array([3.0, 1.0]), binary, "yes", "binary") == (0.25, "yes")
    assert _constant_baseline("specificity", np.array([3.0, 1.0]), binary, "yes", "binary") == (1.0, "no")


def _brute_pair(name, t, classes, average, fill):
    (v, i), _ = _brute_best(name, t, average, None, fill)
    return v, classes[i]


@pytest.mark.parametrize("shape", [(), (4,)])
@pytest.mark.parametrize("k", [3, 16, 17, 40])
def test_the_one_vs_rest_counts_from_the_totals_are_the_direct_sums(shape, k):
    rng = np.random.default_rng(SEED)
    whole = rng.integers(0, 40, shape + (k, k)).astype(float)
    for x, y in zip(_per_class_counts(whole), _direct_counts(whole)):
        assert np.array_equal(x, y)
    fractional = rng.random(shape + (k, k)) * 3
    wild = rng.random(shape + (k, k)) * 1e-9
    wild[..., 0, 1] = 1e9   # one cell holds almost everything: TN of classes 0 and 1 is tiny
    for c in (fractional, wild):
        for x, y in zip(_per_class_counts(c), _direct_counts(c)):
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=0)


# --- a report of many classes ------------------------------------------------------------------


def test_a_report_of_2000_classes_never_builds_a_matrix_per_constant(monkeypatch):
    """K = 2,000, ci=False: no constant's k × k matrix (the fallback refuses here), and the
    exact evaluation of macro averages only for the constants that can still be the best
    (npv: the classes tied at the largest total), never all 2,000."""
    def refuse(*args, **kwargs):
        raise AssertionError("a constant's full matrix was built")

    evaluated = []
    values_from_counts = cb._values_from_counts

    def counting(m, t, s, which, **kwargs):
        evaluated.append(int(which.shape[0]))
        return values_from_counts(m, t, s, which, **kwargs)

    monkeypatch.setattr(cb, "_values_from_matrices", refuse)
    monkeypatch.setattr(cb, "_values_from_counts", counting)
    k = 2000
    classes = np.arange(k)
    y = np.repeat(classes, classes % 7 + 1)           # totals 1 … 7: 286 classes tie at 7
    rng = np.random.default_rng(SEED)
    p = np.where(rng.random(y.size) < 0.6, y, rng.integers(0, k, y.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = bc.evaluate(y, y_pred=p, ci=False, task="multiclass-labels",
                        metrics=["accuracy", "precision", "recall", "f1", "mcc", "kappa", "npv", "specificity"])
    assert len(r.classes) == k and r.per_class is not None
    tied = int(np.sum(classes % 7 + 1 == 7))
    assert sum(evaluated) <= tied + k   # npv: the tied classes; specificity: every constant ties
    assert r["accuracy"].baseline == pytest.approx(7 / y.size)
    assert r["recall"].baseline == pytest.approx(1 / k)
    assert r["accuracy"].baseline_prediction == "always predicting 6"   # the first of the largest classes


# --- intervals of many classes: totals of the non-empty cells, never B·k² ---------------------


def _whole_stack(rng, b: int, k: int) -> np.ndarray:
    """(b, k, k) matrices of whole counts, many cells empty, a class absent now and then."""
    c = rng.integers(0, 4, (b, k, k)).astype(np.float64) * (rng.random((b, k, k)) < 0.4)
    c[: b // 2, 0, :] = 0.0  # class 0 absent from the truth in half of them
    return c


@pytest.mark.parametrize("k", [2, 3, 7])
def test_metric_from_totals_is_metric_from_matrices(k):
    """Every metric but the weighted κ, every average, from the totals alone: equal to the
    definition on the matrices (seed printed: SEED)."""
    from beyondchance.measures.confusion import CELL_METRICS, MatrixTotals, metric_from_matrices, metric_from_totals

    rng = np.random.default_rng(SEED + k)
    c = _whole_stack(rng, 40, k)
    totals = MatrixTotals.of(c)
    for name, m in METRICS.items():
        if name in CELL_METRICS:
            with pytest.raises(InvalidInputError):
                metric_from_totals(totals, name)
            continue
        averages = ["binary"] if m.multiclass == "native" or k == 2 else [None, "macro", "weighted", "micro"]
        for average in averages:
            for zd in (0.0, np.nan):
                kw = dict(average=average, pos_index=1 if k == 2 else None, zero_division=zd)
                with np.errstate(all="ignore"):
                    want = metric_from_matrices(c, name, **kw)
                    got = metric_from_totals(totals, name, **kw)
                np.testing.assert_array_equal(got, want, err_msg=f"{name} {average} {zd}")


def test_cell_totals_sum_the_pools():
    from beyondchance.measures.confusion import CellTotals, MatrixTotals

    rng = np.random.default_rng(SEED)
    k = 6
    cells = np.sort(rng.choice(k * k, 14, replace=False))
    w = rng.integers(0, 9, (5, cells.size)).astype(np.float64)
    dense = np.zeros((5, k * k))
    dense[:, cells] = w
    for got, want in zip(CellTotals(cells, k)(w), MatrixTotals.of(dense.reshape(5, k, k))):
        np.testing.assert_array_equal(got, want)


def test_intervals_of_300_classes_never_build_a_stack_of_matrices(monkeypatch):
    """K = 300, n = 3,000, intervals and p-values on: no (B, k, k) stack anywhere (the matrix
    route refuses stacks of more than 10 classes here); the numbers are those of the
    definition (the bootstrap of one metric on its own equals the report's)."""
    import beyondchance.inference.bootstrap_resampling as R
    import beyondchance.inference.permutation.permutation_test as P
    import beyondchance.report.per_class as PC

    def refusing(original):
        def f(mats, *args, **kwargs):
            a = np.asarray(mats)
            if a.ndim == 3 and a.shape[0] > 1 and a.shape[-1] > 10:
                raise AssertionError(f"a stack of {a.shape[0]} matrices of {a.shape[-1]} classes")
            return original(mats, *args, **kwargs)
        return f

    for module in (R, P, PC):
        monkeypatch.setattr(module, "metric_from_matrices", refusing(module.metric_from_matrices))
    k, n = 300, 3000
    rng = np.random.default_rng(SEED)
    y = rng.permutation(np.repeat(np.arange(k), n // k))  # 10 rows per class: below, no interval (issue 37)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = bc.evaluate(y, y_pred=p, task="multiclass-labels", n_resamples=200, random_state=0)
        alone = bc.bootstrap_ci("f1", y, p, average="macro", n_resamples=200, random_state=0)
    assert r["f1"].ci.low == pytest.approx(alone.low, abs=1e-12)
    assert r["f1"].ci.high == pytest.approx(alone.high, abs=1e-12)
    assert r["kappa"].pvalue is not None and 0 < r["kappa"].pvalue < 0.05
    assert np.isfinite(r.per_class.columns["recall"].ci_low).sum() > k // 2


def test_grouped_jackknife_of_a_large_matrix_is_close_to_the_exact(monkeypatch):
    """Beyond pools × classes = _JACKKNIFE_TOTALS_MAX the BCa acceleration comes from a
    random partition of the units into 500 blocks: close to the exact one."""
    import beyondchance.inference.bootstrap_resampling as R

    rng = np.random.default_rng(SEED)
    k, n = 60, 12_000
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = bc.bootstrap_ci("f1", y, p, average="macro", n_resamples=100, random_state=1)
        monkeypatch.setattr(R, "_JACKKNIFE_TOTALS_MAX", 0)
        grouped = bc.bootstrap_ci("f1", y, p, average="macro", n_resamples=100, random_state=1)
    assert exact.jackknife.startswith("exact") and grouped.jackknife.startswith("grouped (500 blocks of about 24")
    np.testing.assert_array_equal(grouped.distribution, exact.distribution)
    assert abs(grouped.acceleration) < 5e-3 and grouped.acceleration != 0
    assert grouped.low == pytest.approx(exact.low, abs=1e-4) and grouped.high == pytest.approx(exact.high, abs=1e-4)
    # each block leaves out its 24 units: the mean leave-a-block-out value lies near the estimate
    stat = R._ConfusionStatistic.build(bc.measures.registry.get_metric("f1"), y, p, None, "importance",
                                       {"average": "macro"})
    values, weights, _ = R._jackknife(stat, np.random.default_rng(SEED))
    assert values.size == 500 and np.isfinite(values).all() and (values != stat.estimate).all()
    assert np.mean(values) == pytest.approx(stat.estimate, abs=1e-3)


# --- the class limit ----------------------------------------------------------------------------


def _too_many(k: int = MAX_CLASSES + 1) -> tuple[np.ndarray, np.ndarray]:
    y = np.arange(k)
    return y, np.roll(y, 1)


def _assert_limit_message(exc: pytest.ExceptionInfo, k: int) -> None:
    text = str(exc.value)
    assert "\n" not in text
    assert f"{k:,}" in text and f"{MAX_CLASSES:,}" in text
    assert "task=" in text and "--task" in text and "regression" in text


@pytest.mark.parametrize("task", [None, "multiclass-labels"])
def test_more_classes_than_the_limit_are_refused_before_the_matrix(monkeypatch, task):
    from beyondchance.engines import memory

    def no_matrix(*args, **kwargs):
        raise AssertionError("a k x k matrix was allocated")

    monkeypatch.setattr(memory, "confusion_counts", no_matrix)  # arrays take the memory engine's scan
    y, p = _too_many()
    with pytest.raises(InvalidInputError) as exc:
        bc.evaluate(y, y_pred=p, ci=False, task=task)
    _assert_limit_message(exc, MAX_CLASSES + 1)
    with pytest.raises(InvalidInputError) as exc:
        ConfusionMatrix.from_predictions(y, p)
    _assert_limit_message(exc, MAX_CLASSES + 1)


def test_the_limit_is_the_limit():
    from beyondchance._validation import check_n_classes

    assert check_n_classes(MAX_CLASSES) == MAX_CLASSES
    with pytest.raises(InvalidInputError):
        check_n_classes(MAX_CLASSES + 1)


@pytest.mark.parametrize("task", [None, "multiclass-labels"])
def test_the_duckdb_engine_refuses_from_the_label_counts(tmp_path, monkeypatch, task):
    pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    from beyondchance.engines import scan

    def no_matrix(*args, **kwargs):
        raise AssertionError("the confusion matrix was scanned")

    monkeypatch.setattr(scan, "_union_confusion", no_matrix)
    y, p = _too_many()
    path = tmp_path / "many.parquet"
    pd.DataFrame({"y": y, "p": p}).to_parquet(path)
    with pytest.raises(InvalidInputError) as exc:
        bc.evaluate("y", y_pred="p", data=str(path), engine="duckdb", ci=False, task=task)
    _assert_limit_message(exc, MAX_CLASSES + 1)


def test_real_valued_targets_are_still_a_regression():
    rng = np.random.default_rng(SEED)
    y = rng.normal(size=MAX_CLASSES + 10)
    assert bc.evaluate(y, y_pred=y + rng.normal(size=y.size), ci=False).task == "regression"


# --- the caps ------------------------------------------------------------------------------------


Y, P = [0, 1, 1, 0, 1, 0], [0, 1, 0, 0, 1, 1]


@pytest.mark.parametrize("ci", [True, False])
def test_resamples_beyond_the_cap_are_refused(ci):
    with pytest.raises(InvalidInputError, match=f"more than the {MAX_RESAMPLES:,} resamples"):
        bc.evaluate(Y, y_pred=P, ci=ci, n_resamples=MAX_RESAMPLES + 1)
    with pytest.raises(InvalidInputError, match="n_resamples"):
        bc.bootstrap_ci("accuracy", Y, P, n_resamples=10**9)


def test_dbt_samples_beyond_the_cap_are_refused():
    with pytest.raises(InvalidInputError, match=f"more than the {MAX_MC_SAMPLES:,} reference curves"):
        bc.evaluate(Y, y_pred=P, ci=False, mc_samples=MAX_MC_SAMPLES + 1)
    with pytest.raises(InvalidInputError, match="mc_samples"):
        bc.outperformance_score("roc_auc", 0.8, prevalence=0.3, mc_samples=10**9)
    with pytest.raises(InvalidInputError, match="positive integer"):
        bc.evaluate(Y, y_pred=P, ci=False, mc_samples=0)


@pytest.mark.parametrize("option, value", [("--n-resamples", MAX_RESAMPLES + 1), ("--mc-samples", MAX_MC_SAMPLES + 1)])
def test_the_command_line_states_the_caps(tmp_path, option, value):
    path = tmp_path / "t.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(Y, P)))
    out = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", "p", option, str(value)])
    assert out.exit_code == 2
    assert option in out.output and f"{value - 1}" in out.output
