"""Results in a notebook (issue 14, item 1): a small notebook executed with nbclient shows a
report, a confusion matrix, a curve and statistics as HTML (and Markdown), never as a
dataclass dump; ``print`` of every remaining result object is a short readable summary."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import beyondchance as bc
from beyondchance._json import jsonable
from beyondchance.engines import compute_statistics
from beyondchance.measures.binary_scores import pa_coverage_from_counts

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

SRC = str(Path(bc.__file__).resolve().parents[1])

CELLS = [
    f"import sys; sys.path.insert(0, {SRC!r})\n"
    "import warnings; warnings.simplefilter('ignore')\n"
    "import numpy as np, beyondchance as bc\n"
    "from beyondchance.report import evaluate\n"
    "rng = np.random.default_rng(0)\n"
    "y = np.array(['cat', 'dog', 'fox'])[rng.integers(0, 3, 300)]\n"
    "p = np.where(rng.random(300) < 0.6, y, 'dog')",
    "r = evaluate(y, p, n_resamples=200)\nr",
    "bc.ConfusionMatrix.from_predictions(y, p, pos_label=None)",
    "yb = (y == 'cat').astype(int); s = np.clip(0.4 * yb + 0.6 * rng.random(300), 0, 1)\n"
    "bc.threshold_counts(yb, s).curve('roc')",
    "print(r)",
]


def test_a_notebook_shows_the_results_as_html(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [cell.outputs for cell in nb.cells]
    report = outputs[1][0]["data"]
    assert "id='metrics'" in report["text/html"] and "id='per-class'" in report["text/html"]
    assert "id='confusion'" in report["text/html"] and "<img" not in report["text/html"]
    assert report["text/markdown"].startswith("**beyondchance report**")
    assert report["text/plain"].startswith("<Report multiclass-labels") and len(report["text/plain"]) < 200
    matrix = outputs[2][0]["data"]["text/html"]
    assert matrix.startswith("<table><caption>Confusion matrix") and "<th>fox</th>" in matrix
    assert "<caption>ROC curve</caption>" in outputs[3][0]["data"]["text/html"]
    printed = "".join(o["text"] for o in outputs[4] if o["output_type"] == "stream" and o["name"] == "stdout")
    assert printed.startswith("Verdict") and max(map(len, printed.splitlines())) <= 100
    for cell in outputs:
        for out in cell:
            assert out["output_type"] != "error", out


@pytest.fixture(scope="module")
def objects():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    s = np.clip(0.3 * y + 0.7 * rng.random(200), 0, 1)
    tc = bc.threshold_counts(y, s)
    data = {"y": y, "s": s, "p": (s >= 0.5).astype(int), "t": s + rng.random(200), "f": s * 2,
            "c": rng.integers(0, 3, 200), "P0": np.full(200, 0.2), "P1": np.full(200, 0.3), "P2": np.full(200, 0.5)}
    binned = compute_statistics(data, y_true="y", y_score="s", task="binary-scores", score_bins=20)
    return {
        "ThresholdCounts": tc,
        "Curve": tc.curve("pr"),
        "CoverageCurve": pa_coverage_from_counts(tc, 0.5),
        "ConfusionMatrix": bc.ConfusionMatrix.from_predictions(y, data["p"]),
        "binary statistics": compute_statistics(data, y_true="y", y_score="s", task="binary-scores"),
        "binned statistics": binned,
        "BinnedScoreCounts": binned.scores,
        "regression statistics": compute_statistics(data, y_true="t", y_pred="f", task="regression"),
        "probability statistics": compute_statistics(data, y_true="c", y_proba=["P0", "P1", "P2"],
                                                     task="multiclass-probabilities"),
    }


def test_every_result_object_shows_a_short_summary(objects):
    stats = objects["probability statistics"]
    for name, obj in {**objects, "LabelCounts": stats.label_counts, "LossSums": stats.loss_sums,
                      "ClassScoreCounts": stats.class_scores, "Moments": objects["regression statistics"].moments,
                      "ValueHistogram": objects["regression statistics"].targets}.items():
        text = str(obj)
        assert text != repr(obj) and "array([" not in text and "(" in text.splitlines()[0] or text, name
        assert len(text.splitlines()) >= 2 and max(map(len, text.splitlines())) <= 120, (name, text)
        assert obj._repr_html_().startswith("<table><caption>"), name
        md = obj._repr_markdown_()
        assert md.startswith("**") and "\n| " in md, name
        # and writes itself: strict JSON of its to_dict, a page around its table
        assert json.loads(obj.to_json()) == jsonable(obj.to_dict()), name
        assert obj._repr_html_() in obj.to_html() and obj.to_markdown() == md, name


def test_summaries_hold_the_objects_numbers(objects):
    tc = objects["ThresholdCounts"]
    assert f"{tc.auc('roc'):.4g}" in str(tc) and "positives" in str(tc)
    assert f"{objects['Curve'].auc():.4g}" in str(objects["Curve"])
    cm = objects["ConfusionMatrix"]
    lines = str(cm).splitlines()[2:]
    for i, line in enumerate(lines):  # each row: its counts and their shares of the row
        row = cm.matrix[i]
        for v in row:
            assert f"{v:,.6g} ({100 * v / row.sum():.1f}%)" in line
    assert "| true \\\\ predicted | 0 | 1 |" in cm._repr_markdown_()
    stats = objects["probability statistics"]
    prior = stats.label_counts.prior
    assert all(f"({100 * q:.2f}%)" in str(stats.label_counts) for q in prior)
    assert f"{stats.loss_sums.risk('brier'):.4g}" in str(stats.loss_sums)
