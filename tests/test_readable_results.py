"""Every result is readable (issue 28, item 3): each public result type has ``__str__``
(short: 80 columns, its verdict first, never the dataclass dump), ``_repr_html_``,
``to_dict``, ``to_json`` (strict JSON of ``to_dict``), ``to_html`` and ``save`` (by suffix,
whole or not at all); text from the data is escaped in the HTML and sealed in the text.
And ``compare-models`` renders HTML and Markdown, and its table uses the display names
of the reports within 80 columns.  Seeds are fixed (printed in the fixtures)."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import beyondchance as bc
import beyondchance._json as J
from beyondchance.cli import main

SEED = 20261127
#: a label that would run a script in a page and clear a terminal
HOSTILE = "<script>alert(1)</script>\x1b[2J"
WIDTH = 80


def _data(n=300, seed=SEED):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    good = np.clip(0.5 + 0.3 * (2 * y - 1) + rng.normal(0, 0.3, n), 0, 1)
    weak = np.clip(0.5 + 0.05 * (2 * y - 1) + rng.normal(0, 0.3, n), 0, 1)
    return y, good, weak


@pytest.fixture(scope="module")
def results():
    """name -> (the result, the same with a hostile text in it, how its text begins)."""
    print(f"seed {SEED}")
    y, good, weak = _data()
    rng = np.random.default_rng(SEED + 1)
    y_window = (rng.random(300) < 0.25).astype(int)
    s_window = np.clip(0.5 + 0.3 * (2 * y_window - 1) + rng.normal(0, 0.3, 300), 0, 1)
    pred = (good >= 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimate = bc.estimate_performance(y, good, s_window, n_resamples=50, metrics=["accuracy", "f1"])
        comparison = bc.compare({"jan": (y, good), "feb": (y_window, s_window)}, metrics=["accuracy", "roc_auc"],
                                n_resamples=50, mc_samples=2048)
        gate = bc.evaluate(y, good, ci=False, metrics=["f1"], mc_samples=2048).check("f1 > 0.5")
    models = bc.compare_models(y, {"good": good, "weak": weak}, metrics=["roc_auc", "balanced_accuracy"],
                               n_resamples=50, random_state=SEED)
    hostile_models = bc.compare_models(y, {HOSTILE: good, "weak": weak}, metrics=["roc_auc"], n_resamples=50,
                                       random_state=SEED)
    permutation = bc.permutation_test("f1", y, pred, random_state=SEED)
    delong = bc.delong_test(y, weak, good)
    decomposition = comparison.changes[0].decomposition
    change = comparison.classifier_changes[0]
    bootstrap = bc.bootstrap_ci("f1", y, pred, n_resamples=50, random_state=SEED)
    ops = bc.outperformance_score("f1", 0.7, 0.4)
    hostile_req = dataclasses.replace(gate.requirements[0], expression=HOSTILE)
    return {
        "LabelFreeEstimate": (estimate, dataclasses.replace(estimate, caveats=(HOSTILE,)), "Estimated prevalence"),
        "ModelComparison": (models, hostile_models, "good is significantly better than weak"),
        "PermutationTestResult": (permutation, dataclasses.replace(permutation, measure=HOSTILE), "F1 = "),
        "DeLongResult": (delong, dataclasses.replace(delong, alternative=HOSTILE), "ROC AUC of b − a = +"),
        "CheckResult": (gate, dataclasses.replace(gate, requirements=(hostile_req,)), "PASS: 1 of 1 requirements"),
        "Decomposition": (decomposition, dataclasses.replace(decomposition, metric=HOSTILE), "Accuracy moved from"),
        "ClassifierChange": (change, dataclasses.replace(change, test_set=HOSTILE), "feb: "),
        "BootstrapResult": (bootstrap, dataclasses.replace(bootstrap, measure=HOSTILE), "f1 = "),
        "OPSResult": (ops, dataclasses.replace(ops, metric=HOSTILE), "Outperformance score of f1"),
    }


NAMES = ["LabelFreeEstimate", "ModelComparison", "PermutationTestResult", "DeLongResult", "CheckResult",
         "Decomposition", "ClassifierChange", "BootstrapResult", "OPSResult"]


@pytest.mark.parametrize("name", NAMES)
def test_every_result_is_readable(results, name, tmp_path, monkeypatch):
    result, hostile, start = results[name]
    text = str(result)
    lines = text.splitlines()
    assert text.startswith(start), text  # the verdict first
    assert text != repr(result) and repr(result) not in text and "array([" not in text
    assert max(map(len, lines)) <= WIDTH and len(lines) <= 40, text
    assert result._repr_html_().startswith("<table><caption>")
    as_dict = result.to_dict()
    assert json.loads(result.to_json()) == as_dict
    page = result.to_html()
    assert page.startswith("<!DOCTYPE html>") and result._repr_html_() in page
    # text from the data: escaped in the HTML and the Markdown, sealed in the text
    for markup in (hostile.to_html(), hostile._repr_html_()):
        assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert "<script>" not in hostile.to_markdown() and "\x1b" not in str(hostile)
    # save: by suffix, what to_json / to_html / to_markdown / str give
    for suffix, expected in ((".json", result.to_json()), (".html", page), (".md", result.to_markdown()),
                             (".txt", text + "\n")):
        path = tmp_path / f"result{suffix}"
        result.save(path)
        assert path.read_text() == expected, suffix
    with pytest.raises(bc.InvalidInputError, match="cannot tell the format"):
        result.save(tmp_path / "result.pdf")
    # whole or not at all: a write that fails leaves the previous file, and no temporary file
    for suffix in (".json", ".html"):
        path = tmp_path / f"result{suffix}"

        def half(f, content):
            f.write(content[: len(content) // 2])
            raise OSError("disk full")

        monkeypatch.setattr(J, "_write", half)
        with pytest.raises(OSError, match="disk full"):
            result.save(path)
        monkeypatch.undo()
        assert path.read_text() == (result.to_json() if suffix == ".json" else page)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"result{s}" for s in (".html", ".json", ".md", ".txt")]


def test_model_comparison_names_the_measures_by_their_display_names(results):
    text = str(results["ModelComparison"][0])
    assert "Balanced accuracy" in text and "ROC AUC" in text
    assert "balanced_accuracy" not in text and "roc_auc" not in text


@pytest.fixture(scope="module")
def models_csv(tmp_path_factory):
    y, good, weak = _data()
    path = tmp_path_factory.mktemp("models") / "models.csv"
    pd.DataFrame({"y": y, "good": good, "weak": weak}).to_csv(path, index=False)
    return path


def _compare_models(path, *args):
    return CliRunner().invoke(main, ["compare-models", str(path), "--y-true", "y", "--y-score", "good", "--y-score",
                                     "weak", "--metrics", "balanced_accuracy,roc_auc,prediction_advantage",
                                     "--n-resamples", "50", *args])


def test_cli_compare_models_table_fits_80_columns_without_snake_case(models_csv):
    r = _compare_models(models_csv)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(map(len, lines)) <= WIDTH, r.stdout
    assert "_" not in r.stdout, r.stdout  # display names, not balanced_accuracy / prediction_advantage
    assert "Balanced accuracy" in r.stdout and "Prediction" in r.stdout and "ROC AUC" in r.stdout


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_cli_compare_models_html_and_markdown(models_csv, tmp_path, fmt):
    out = tmp_path / f"models.{'html' if fmt == 'html' else 'md'}"
    r = _compare_models(models_csv, "--format", fmt, "--out", str(out))
    assert r.exit_code == 0, r.output
    text = out.read_text()
    lib = bc.compare_models(*_load(models_csv), metrics=["balanced_accuracy", "roc_auc", "prediction_advantage"],
                            n_resamples=50, random_state=0)
    assert text == (lib.to_html() if fmt == "html" else lib.to_markdown())
    assert "Balanced accuracy" in text and "Prediction advantage" in text and "balanced_accuracy" not in text
    if fmt == "html":
        assert text.startswith("<!DOCTYPE html>") and "<table>" in text
    else:
        assert "| measure | good | weak |" in text
    if fmt == "markdown":  # to the terminal: the same Markdown
        printed = _compare_models(models_csv, "--format", fmt)
        assert printed.exit_code == 0 and printed.stdout == text


def _load(path):
    df = pd.read_csv(path)
    return df["y"].to_numpy(), {"good": df["good"].to_numpy(), "weak": df["weak"].to_numpy()}
