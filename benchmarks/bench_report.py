"""Benchmark: ``beyondchance report`` on a 10⁷-row Parquet file of scores.

Targets (issue 6): wall time ≤ 10 s and peak memory ≤ 3 GB, bootstrap confidence
intervals included.  The outperformance scores of the AUCs need Directed-Binary-Tree
reference curves, built on first use at a prevalence and cached on disk: the first run
starts from an empty cache (cold), the others reuse it (warm).  The file (0/1 labels as int8, continuous scores as float64, 10%
positives, ~10⁷ distinct scores) is generated once in a temporary folder (or
``--file``); the command runs as a user runs it, in a subprocess, and its peak
resident memory is read from the kernel (``os.wait4``).  For scale, the same run
prints what scikit-learn needs for the point estimates alone (no baselines, no OPS, no
intervals) on the same arrays, and the in-process time of each step of the report.

    python benchmarks/bench_report.py               # 10^7 rows, formats table and json
    python benchmarks/bench_report.py --rows 1000000 --formats table json html
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_SECONDS = 10.0
TARGET_BYTES = 3 * 1024**3


def make_file(path: Path, rows: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.1).astype(np.int8)
    score = 1.0 / (1.0 + np.exp(-(rng.normal(size=rows) + 2.0 * y - 2.0)))
    pq.write_table(pa.table({"y": y, "score": score}), path)


def run_cli(path: Path, fmt: str, out_dir: Path, cache_dir: Path) -> tuple[float, int, int]:
    """Wall time (s), peak RSS (bytes) and exit status of one ``beyondchance report`` run."""
    args = [sys.executable, "-m", "beyondchance.cli", "report", str(path), "--y-true", "y", "--y-score", "score",
            "--format", fmt]
    if fmt == "html":
        args += ["--out", str(out_dir / "bench.html")]
    start = time.perf_counter()
    env = {**os.environ, "BEYONDCHANCE_CACHE_DIR": str(cache_dir)}
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        print(err, file=sys.stderr)
    return wall, usage.ru_maxrss * 1024, proc.returncode


def steps_in_process(path: Path, cache_dir: Path) -> list[tuple[str, float]]:
    import warnings

    import pyarrow.parquet as pq

    os.environ.setdefault("BEYONDCHANCE_CACHE_DIR", str(cache_dir))

    from beyondchance.report import evaluate

    marks: list[tuple[str, float]] = [("reading the Parquet file", time.perf_counter())]
    table = pq.read_table(path, columns=["y", "score"])
    y, s = table["y"].to_numpy(), table["score"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate(y, s, progress=lambda m: marks.append((m, time.perf_counter())))
    marks.append(("end", time.perf_counter()))
    return [(name, marks[i + 1][1] - t) for i, (name, t) in enumerate(marks[:-1])]


def sklearn_reference(path: Path) -> float:
    import pyarrow.parquet as pq
    import sklearn.metrics as skm

    table = pq.read_table(path, columns=["y", "score"])
    y, s = table["y"].to_numpy(), table["score"].to_numpy()
    start = time.perf_counter()
    pred = s >= 0.5
    skm.roc_auc_score(y, s)
    skm.average_precision_score(y, s)
    skm.log_loss(y, s)
    skm.brier_score_loss(y, s)
    for func in (skm.accuracy_score, skm.balanced_accuracy_score, skm.f1_score, skm.matthews_corrcoef,
                 skm.cohen_kappa_score, skm.precision_score, skm.recall_score):
        func(y, pred)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--file", type=Path, help="use this Parquet file (columns y, score) instead of generating one")
    parser.add_argument("--formats", nargs="+", default=["table", "json"], choices=["table", "json", "html"])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        path = args.file
        if path is None:
            path = tmp_dir / "scores.parquet"
            start = time.perf_counter()
            make_file(path, args.rows)
            print(f"generated {path.name}: {args.rows:,} rows, {path.stat().st_size / 1e6:.0f} MB "
                  f"in {time.perf_counter() - start:.1f} s")
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
        # the OPS of the AUCs needs reference curves; built on first use at a prevalence and
        # cached on disk: the first run below starts from an empty cache ("cold")
        cache_dir = tmp_dir / "ops-cache"
        print(f"{'format':<8} {'cache':<6} {'wall s':>8} {'peak GB':>8} {'time/target':>12} "
              f"{'memory/target':>14}  status")
        worst = 0.0
        runs = [("table", "cold")] + [(fmt, "warm") for fmt in args.formats for _ in range(args.repeat)]
        for fmt, cache in runs:
            wall, peak, status = run_cli(path, fmt, tmp_dir, cache_dir)
            print(f"{fmt:<8} {cache:<6} {wall:8.2f} {peak / 1024**3:8.2f} {wall / TARGET_SECONDS:12.2f} "
                  f"{peak / TARGET_BYTES:14.2f}  {'ok' if status == 0 else f'exit {status}'}")
            if fmt != "html" and cache == "warm":
                worst = max(worst, wall / TARGET_SECONDS, peak / TARGET_BYTES)
        print("\nsteps of the report (in process, after the imports):")
        steps = steps_in_process(path, cache_dir)
        for name, seconds in steps:
            print(f"  {seconds:6.2f} s  {name}")
        total = sum(seconds for _, seconds in steps)
        ref = sklearn_reference(path)
        print(f"  {total:6.2f} s  total")
        print(f"\nscikit-learn, point estimates only (4 curve/loss scores + 7 labeling metrics): {ref:.2f} s; "
              f"report / scikit-learn = {total / ref:.2f}")
        print(f"\nwarm cache, table/json: {'within' if worst <= 1 else 'OVER'} the targets "
              f"(largest ratio {worst:.2f}); the cold run includes building the OPS reference curves")


if __name__ == "__main__":
    main()
