"""Benchmark: ``beyondchance report --engine memory|duckdb`` on a 10⁷-row Parquet file.

The memory engine reads the two columns into numpy and evaluates the rows; the duckdb
engine aggregates the file in SQL (label scan, then ``GROUP BY y, score`` or
``GROUP BY y, FLOOR(score·N)`` with ``--score-bins N``) and builds the report from the
statistics.  Each command runs in a subprocess, as a user runs it; wall time and peak
resident memory (``os.wait4``) are measured in the same run.  One warm-up run fills
the OPS reference cache first, so every row of the table is warm.

    python benchmarks/bench_report_engines.py                 # 10^7 rows
    python benchmarks/bench_report_engines.py --rows 1000000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import make_file  # noqa: E402


def run(path: Path, extra: list[str], cache: Path) -> tuple[float, int, int]:
    args = [sys.executable, "-m", "beyondchance.cli", "report", str(path), "--y-true", "y", "--y-score", "score",
            "--format", "json", *extra]
    env = {**os.environ, "BEYONDCHANCE_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code:
        print(proc.stderr.read().decode(), file=sys.stderr)
    return wall, usage.ru_maxrss * 1024, code


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--file", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = args.file or tmp / "scores.parquet"
        if not path.exists():
            t = time.perf_counter()
            make_file(path, args.rows)
            print(f"generated {path} ({args.rows:,} rows) in {time.perf_counter() - t:.1f} s")
        cache = tmp / "cache"
        run(path, ["--engine", "duckdb", "--score-bins", "1000"], cache)  # warm the OPS cache
        rows = [("memory", []), ("duckdb", ["--engine", "duckdb"]),
                ("duckdb --score-bins 1000", ["--engine", "duckdb", "--score-bins", "1000"])]
        print(f"{'engine':<26}{'wall (s)':>10}{'peak RSS (MB)':>16}{'exit':>6}")
        results = {}
        for label, extra in rows:
            wall, rss, code = run(path, extra, cache)
            results[label] = (wall, rss)
            print(f"{label:<26}{wall:>10.2f}{rss / 2**20:>16.0f}{code:>6}")
        m = results["memory"]
        for label in results:
            if label != "memory":
                w, r = results[label]
                print(f"{label} / memory: time x{w / m[0]:.2f}, peak RSS x{r / m[1]:.2f}")


if __name__ == "__main__":
    main()
