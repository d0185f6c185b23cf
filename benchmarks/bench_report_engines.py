"""Benchmark: ``beyondchance report --engine memory|duckdb`` on a large Parquet file.

The memory engine reads the two columns into numpy and evaluates the rows; the duckdb
engine aggregates the file in SQL (label scan, then ``GROUP BY y, score`` or
``GROUP BY y, FLOOR(score·N)`` with ``--score-bins N``) and builds the report from the
statistics.  Each command runs in a subprocess, as a user runs it; wall time and peak
resident memory (``os.wait4``) are measured in the same run.  One warm-up run fills
the OPS reference cache first, so every row of the table is warm.

The file is written in row groups of 10⁷ rows (y ~ Bernoulli(0.1), score = logistic(N(0,
1) + 2y − 2)); ``--decimals D`` rounds the scores to D decimals, so that the exact
statistic (one row per distinct score) stays small: with D = 6 at most 10⁶ + 1 distinct
scores.  Issue 12's targets on 10⁸ rows: exact ≤ 60 s, ``--score-bins`` ≤ 10 s.

    python benchmarks/bench_report_engines.py                 # 10^7 rows
    python benchmarks/bench_report_engines.py --rows 100000000 --decimals 6 --skip-memory
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHUNK = 10_000_000


def make_file(path: Path, rows: int, decimals: int | None, seed: int = 0) -> None:
    """The Parquet file, one row group per chunk of 10^7 rows (memory stays small)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    schema = pa.schema([("y", pa.int8()), ("score", pa.float64())])
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, rows, CHUNK):
            m = min(CHUNK, rows - start)
            y = (rng.random(m) < 0.1).astype(np.int8)
            score = 1.0 / (1.0 + np.exp(-(rng.normal(size=m) + 2.0 * y - 2.0)))
            if decimals is not None:
                score = np.round(score, decimals)
            writer.write_table(pa.table({"y": y, "score": score}, schema=schema))


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
    ap.add_argument("--decimals", type=int, default=None, help="round the scores to this many decimals")
    ap.add_argument("--skip-memory", action="store_true", help="leave out the memory engine")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = args.file or tmp / "scores.parquet"
        if not path.exists():
            t = time.perf_counter()
            make_file(path, args.rows, args.decimals)
            print(f"generated {path} ({args.rows:,} rows, {path.stat().st_size / 1e9:.2f} GB, scores rounded to "
                  f"{args.decimals} decimals) in {time.perf_counter() - t:.1f} s")
        print(f"load average {os.getloadavg()[0]:.2f}; CPUs {os.cpu_count()}")
        cache = tmp / "cache"
        run(path, ["--engine", "duckdb", "--score-bins", "1000"], cache)  # warm the OPS cache
        rows = [("memory", []), ("duckdb", ["--engine", "duckdb"]),
                ("duckdb --score-bins 1000", ["--engine", "duckdb", "--score-bins", "1000"])]
        if args.skip_memory:
            rows = rows[1:]
        print(f"{'engine':<26}{'wall (s)':>10}{'peak RSS (MB)':>16}{'exit':>6}")
        results = {}
        for label, extra in rows:
            wall, rss, code = run(path, extra, cache)
            results[label] = (wall, rss)
            print(f"{label:<26}{wall:>10.2f}{rss / 2**20:>16.0f}{code:>6}")
        m = results.get("memory")
        for label in results:
            if label != "memory" and m is not None:
                w, r = results[label]
                print(f"{label} / memory: time x{w / m[0]:.2f}, peak RSS x{r / m[1]:.2f}")


if __name__ == "__main__":
    main()
