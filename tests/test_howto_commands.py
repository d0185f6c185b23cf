"""The production how-to's command lines run as written (issue 36): every ``beyondchance``
command of ``docs/howto/production-monitoring.rst``, with ``/data/`` a folder of generated
day-partitioned Parquet files, exits as the page says (``check`` exits 0 or 1: a gate)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import beyondchance as bc
from beyondchance.cli import main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "howto" / "production-monitoring.rst"
SEED = 36


def page_commands() -> list[str]:
    """The page's ``beyondchance`` command lines, continuation lines joined, in page order."""
    text = PAGE.read_text(encoding="utf-8").replace("\\\n", " ")
    return [" ".join(line.split()) for line in text.splitlines() if line.strip().startswith("beyondchance ")]


def _day(folder: Path, day: str, rng: np.random.Generator, n: int = 400) -> None:
    label = rng.random(n) < 0.2
    score = np.clip(0.35 * label + 0.65 * rng.random(n), 0, 1)
    frame = pd.DataFrame({"label": label.astype(int), "score": score, "weight": rng.integers(1, 3, n).astype(float)})
    (folder / f"date={day}").mkdir(parents=True)
    frame.iloc[: n // 2].to_parquet(folder / f"date={day}" / "part-0.parquet")
    frame.iloc[n // 2:].to_parquet(folder / f"date={day}" / "part-1.parquet")


def test_the_page_has_the_commands_this_test_runs() -> None:
    commands = page_commands()
    assert [c.split()[1] for c in commands] == ["profile", "profile", "compare", "compare", "check"], commands


def test_the_production_commands_run_as_written(tmp_path, monkeypatch) -> None:
    print(f"seed {SEED}")
    rng = np.random.default_rng(SEED)
    data = tmp_path / "data"
    for day in ("2026-11-25", "2026-11-26"):
        _day(data / "predictions", day, rng)
    (data / "monitoring").mkdir()
    monkeypatch.chdir(tmp_path)
    reference = bc.profile("label", "score", data=str(data / "predictions" / "date=2026-11-25" / "*.parquet"),
                           engine="duckdb", score_bins=1000)
    reference.save("reference.bcstats")  # the page's reference (its Python block)
    yesterday = bc.profile("label", "score", data=str(data / "predictions" / "date=2026-11-25" / "*.parquet"),
                           sample_weight="weight", engine="duckdb", score_bins=1000)
    yesterday.save(data / "monitoring" / "2026-11-25.bcstats")
    offset = str(yesterday.next_row_offset)  # the page's jq line
    for i, command in enumerate(page_commands()):
        args = [a.replace("/data/", f"{data}/").replace("$offset", offset) for a in shlex.split(command)[1:]]
        args = [str(p) for a in args for p in (sorted(tmp_path.glob(a[len(str(tmp_path)) + 1:]))
                                               if "*" in a and a.endswith(".bcstats") else [a])]
        result = CliRunner().invoke(main, args)
        expected = (0, 1) if args[0] == "check" else (0,)
        assert result.exit_code in expected, (command, result.output)
        if args[0] == "profile" and i == 0:  # the page's two profile lines are alternatives writing one file
            assert re.search(r"2026-11-26\.bcstats", command)
            (data / "monitoring" / "2026-11-26.bcstats").unlink()
    assert (tmp_path / "drift.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
