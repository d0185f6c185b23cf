"""The command line, run as a user runs it: a subprocess."""

from __future__ import annotations

import subprocess
import sys

import pytest

from beyondchance.demo import haberman_demo


def run(*args):
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *args], capture_output=True, text=True, timeout=300)


def test_demo_prints_the_haberman_verdict():
    result = run("demo", "--folds", "5")
    assert result.returncode == 0, result.stderr
    assert "Haberman survival" in result.stdout
    assert "Verdict" in result.stdout
    assert "73.53%" in result.stdout  # the majority-class accuracy 225/306


def test_demo_numbers_are_the_library_numbers():
    from sklearn.metrics import accuracy_score

    demo = haberman_demo(folds=5)
    assert demo.n == 306 and demo.n_positive == 81
    for m in demo.models:
        c = m.confusion
        n = c["tp"] + c["fp"] + c["fn"] + c["tn"]
        assert n == 306
        assert m.accuracy == pytest.approx((c["tp"] + c["tn"]) / n)
        # PA for the 0/1 loss: 1 − error / error of the majority class (81/306)
        assert m.prediction_advantage == pytest.approx(1 - (c["fp"] + c["fn"]) / 81)
    assert demo.majority_accuracy == pytest.approx(accuracy_score([0] * 306, [0] * 225 + [1] * 81))


def test_bad_option_exits_with_status_2_and_one_line():
    result = run("demo", "--folds", "1")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [[], ["demo"]])
def test_help_has_an_example(command):
    result = run(*command, "--help")
    assert result.returncode == 0
    assert "Example" in result.stdout
