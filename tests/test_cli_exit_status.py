"""The exit status of every command: 0 success, 1 a failed requirement of ``check`` and
nothing else, 2 bad input, 3 an internal error (one line on stderr, no traceback unless
``BEYONDCHANCE_DEBUG`` is set), so that a CI job can tell a failed model from a broken
call and from a broken tool."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import beyondchance.cli as cli
from beyondchance._cli_exit import EXIT_STATUS
from beyondchance.cli import main

pytestmark = pytest.mark.hostile

DBT = "2048"


@pytest.fixture(scope="module")
def scores(tmp_path_factory):
    path = tmp_path_factory.mktemp("exit") / "scores.csv"
    rows = [f"{i % 2},{(0.3 + 0.4 * (i % 2) + 0.01 * (i % 7)):.3f},{(0.5 + 0.01 * (i % 5)):.3f}" for i in range(60)]
    path.write_text("y,s,t\n" + "\n".join(rows) + "\n")
    (path.parent / "scores2.csv").write_text(path.read_text())
    return str(path)


def _commands(path: str) -> dict[str, list[str]]:
    fast = ["--no-ci", "--mc-samples", DBT]
    return {
        "report": ["report", path, "--y-true", "y", "--y-score", "s", *fast],
        "compare": ["compare", path, path.replace("scores.csv", "scores2.csv"), "--y-true", "y", "--y-score", "s", *fast],
        "check": ["check", path, "--y-true", "y", "--y-score", "s", "--require", "roc_auc > 0.5", *fast],
        "compare-models": ["compare-models", path, "--y-true", "y", "--y-score", "s", "--y-score", "t",
                           "--n-resamples", "50"],
    }


def _broken(exc: BaseException):
    def raiser(*args, **kwargs):
        raise exc

    return raiser


def _one_line(result) -> str:
    err = result.stderr
    assert err.count("\n") == 1 and err.startswith("beyondchance: error:"), err
    assert "Traceback" not in result.output
    return err


@pytest.mark.parametrize("exc", [RuntimeError("boom"), MemoryError(), KeyError("x"), ZeroDivisionError("z")],
                         ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("command", ["report", "check", "compare-models", "example"])
def test_an_internal_error_exits_3_in_one_line(monkeypatch, scores, tmp_path, command, exc):
    monkeypatch.delenv("BEYONDCHANCE_DEBUG", raising=False)
    if command in ("report", "check"):
        monkeypatch.setattr(cli, "_evaluate_file", _broken(exc))
        args = _commands(scores)[command]
    elif command == "compare-models":
        monkeypatch.setattr("beyondchance.report.model_comparison.compare_models", _broken(exc))
        args = _commands(scores)[command]
    else:
        monkeypatch.setattr("beyondchance.report.example.write_example", _broken(exc))
        args = ["example", str(tmp_path / "ex")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 3, (result.exit_code, result.output)
    err = _one_line(result)
    assert f"internal error ({type(exc).__name__}" in err and "BEYONDCHANCE_DEBUG" in err


def test_an_internal_error_of_compare_exits_3(monkeypatch, scores):
    import importlib

    module = importlib.import_module("beyondchance.report.compare")  # the package's attribute is the function
    monkeypatch.setattr(module, "compare", _broken(RuntimeError("inside compare")))
    result = CliRunner().invoke(main, _commands(scores)["compare"])
    assert result.exit_code == 3, result.output
    assert "internal error (RuntimeError: inside compare)" in _one_line(result)


def test_the_traceback_on_request(monkeypatch, scores):
    monkeypatch.setenv("BEYONDCHANCE_DEBUG", "1")
    monkeypatch.setattr(cli, "_evaluate_file", _broken(RuntimeError("shown")))
    result = CliRunner().invoke(main, _commands(scores)["report"])
    assert isinstance(result.exception, RuntimeError) and result.exit_code != 0


@pytest.mark.parametrize("command", ["report", "compare", "check", "compare-models"])
def test_bad_input_exits_2(scores, command):
    args = _commands(scores)[command]
    args[args.index("--y-true") + 1] = "no_such_column"
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "no_such_column" in _one_line(result)


@pytest.mark.parametrize("args", [["report"], ["report", "x.csv", "--bogus"], ["nosuchcommand"],
                                  ["check", "x.csv", "--y-true", "y", "--y-score", "s"]])
def test_usage_errors_exit_2(args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    _one_line(result)


def test_check_exits_1_only_for_a_failed_requirement(scores):
    args = _commands(scores)["check"]
    passed = CliRunner().invoke(main, args)
    assert passed.exit_code == 0, passed.output
    failed = CliRunner().invoke(main, [*args, "--require", "roc_auc < 0.5"])
    assert failed.exit_code == 1, failed.output
    assert "FAIL" in failed.stdout and failed.stderr == ""
    malformed = CliRunner().invoke(main, [*args, "--require", "roc_auc >> 2"])
    assert malformed.exit_code == 2


def test_success_exits_0(scores):
    for name, args in _commands(scores).items():
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (name, result.output)


def test_an_interrupt_is_not_a_failed_requirement(monkeypatch, scores):
    monkeypatch.setattr(cli, "_evaluate_file", _broken(KeyboardInterrupt()))
    result = CliRunner().invoke(main, _commands(scores)["check"])
    assert result.exit_code == 130, result.output


@pytest.mark.parametrize("args", [["--help"], ["check", "--help"]])
def test_help_states_the_exit_statuses(args):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "Exit status:" in text
    for code, meaning in EXIT_STATUS.items():
        assert f"{code} {' '.join(meaning.split())}" in text
