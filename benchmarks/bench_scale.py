"""Scale benchmark: the statistics of a report, out of core (DuckDB), in memory (numpy) and
on Spark (local mode), on a Parquet data set of (label, score) rows.

    python benchmarks/bench_scale.py                      # 10^8 rows (≈ 0.5 GB of Parquet)
    python benchmarks/bench_scale.py --rows 10000000      # smaller
    python benchmarks/bench_scale.py --skip-memory --skip-spark

The data are written in chunks with pyarrow (labels int8 with 30% positives, scores
float32, continuous: almost every score is distinct).  Each measurement runs in its
own Python process, which reports its wall time and its peak resident set size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``; for Spark also the JVM's peak, VmHWM).

The "report-equivalent computation" is the engines' ``compute_statistics(...)`` followed by
``summary()``: the confusion matrix at threshold 0.5 and its metrics, the prediction
advantage for the 0/1 loss, log loss and Brier score, and the ROC / PR / lift / gain
AUCs — binned (``--bins`` per unit score, with the stated AUC error bounds) and, on
the smaller sizes, exact (one threshold per distinct score).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np


def write_data(directory: str, rows: int, chunk: int, seed: int = 0) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(seed)
    files = []
    for i, start in enumerate(range(0, rows, chunk)):
        m = min(chunk, rows - start)
        y = (rng.random(m) < 0.3).astype(np.int8)
        logit = rng.normal(size=m) + 1.2 * y - 0.8
        score = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
        path = os.path.join(directory, f"part-{i:05d}.parquet")
        pq.write_table(pa.table({"label": y, "score": score}), path, row_group_size=1 << 20)
        files.append(path)
    return files


# =====================================================================================
# workers (each in its own process)
# =====================================================================================


def _report(stats) -> dict:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = stats.summary()
    return {k: (float(v) if isinstance(v, (int, float, np.floating)) else v) for k, v in s.items()}


def worker(args: argparse.Namespace) -> None:
    import beyondchance  # noqa: F401  (imported before the clock starts)

    files = json.loads(args.files)
    bins = None if args.bins == 0 else args.bins
    t0 = time.perf_counter()
    extra: dict = {}
    if args.worker == "duckdb":
        from beyondchance.engines import compute_statistics  # the engines' bundle (internal)

        src = files if len(files) > 1 else files[0]
        st = compute_statistics(src, y_true="label", y_score="score", engine="duckdb", score_bins=bins)
    elif args.worker == "memory":
        import pyarrow.parquet as pq

        from beyondchance.engines import compute_statistics  # the engines' bundle (internal)

        table = pq.read_table(files, columns=["label", "score"]) if len(files) > 1 else pq.read_table(files[0])
        y = table.column("label").to_numpy()
        s = table.column("score").to_numpy()
        del table
        extra["read_s"] = time.perf_counter() - t0
        st = compute_statistics(None, y_true=y, y_score=s, score_bins=bins)
    else:
        from pyspark.sql import SparkSession

        from beyondchance.engines import compute_statistics  # the engines' bundle (internal)

        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.memory", "2g")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        extra["startup_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        st = compute_statistics(files, y_true="label", y_score="score", engine="spark", spark=spark, score_bins=bins)
    compute_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    report = _report(st)
    out = {
        "engine": args.worker,
        "bins": bins,
        "n_thresholds": int(st.scores.threshold_counts().thresholds.size if bins else st.scores.thresholds.size),
        "compute_s": compute_s,
        "measures_s": time.perf_counter() - t1,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "report": report,
        **extra,
    }
    if args.worker == "spark":
        try:
            pid = spark.sparkContext._gateway.proc.pid  # the JVM (spark-submit execs java)
            with open(f"/proc/{pid}/status") as fh:
                hwm = [ln for ln in fh if ln.startswith("VmHWM")][0].split()[1]
            out["jvm_peak_rss_mb"] = int(hwm) / 1024
        except Exception as exc:  # pragma: no cover - platform dependent
            out["jvm_peak_rss_mb"] = f"unavailable ({exc})"
        spark.stop()
    print("RESULT " + json.dumps(out))


def run_worker(kind: str, files: list[str], bins: int) -> dict:
    cmd = [sys.executable, __file__, "--worker", kind, "--files", json.dumps(files), "--bins", str(bins)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        tail = "\n".join(proc.stderr.splitlines()[-15:])
        return {"engine": kind, "bins": bins, "error": f"exit {proc.returncode}: {tail}"}
    out = json.loads(lines[-1][7:])
    out["process_wall_s"] = wall
    return out


def show(label: str, r: dict, reference: dict | None = None) -> None:
    if "error" in r:
        print(f"{label:<42} FAILED: {r['error']}")
        return
    rep = r["report"]
    line = (
        f"{label:<42} compute {r['compute_s']:7.2f} s  process {r['process_wall_s']:7.2f} s  "
        f"peak RSS {r['peak_rss_mb']:8.0f} MB  thresholds {r['n_thresholds']:>10,d}  "
        f"ROC AUC {rep['roc_auc']:.6f}  AP {rep['pr_auc']:.6f}"
    )
    if "roc_auc_error_bound" in rep:
        line += f"  (bounds ±{rep['roc_auc_error_bound']:.1e}, ±{rep['pr_auc_error_bound']:.1e})"
    if "jvm_peak_rss_mb" in r:
        jvm = r["jvm_peak_rss_mb"]
        line += f"  JVM peak {jvm:.0f} MB" if isinstance(jvm, float) else f"  JVM peak {jvm}"
    if "startup_s" in r:
        line += f"  (Spark start {r['startup_s']:.1f} s)"
    if "read_s" in r:
        line += f"  (Parquet read {r['read_s']:.1f} s incl.)"
    print(line)
    if reference is not None and "error" not in reference:
        ref = reference["report"]
        diffs = {k: abs(rep[k] - ref[k]) for k in ("accuracy", "prediction_advantage", "cross_entropy_risk",
                                                     "roc_auc", "pr_auc") if k in rep and k in ref}
        bound_roc = rep.get("roc_auc_error_bound", 0.0)
        bound_pr = rep.get("pr_auc_error_bound", 0.0)
        ok = diffs["roc_auc"] <= bound_roc + 1e-9 and diffs["pr_auc"] <= bound_pr + 1e-9
        print(f"{'':<42} vs exact in memory: |Δ| " + ", ".join(f"{k} {v:.1e}" for k, v in diffs.items())
              + f"  -> AUC differences within the stated bounds: {ok}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=10**8)
    p.add_argument("--spark-rows", type=int, default=10**7)
    p.add_argument("--exact-rows", type=int, default=10**7, help="largest size for the exact (distinct-score) runs")
    p.add_argument("--chunk", type=int, default=5 * 10**6, help="rows per Parquet file")
    p.add_argument("--bins", type=int, default=10_000, help="score bins per unit score (binned statistics)")
    p.add_argument("--dir", default=None, help="where to write the data (default: a temporary directory)")
    p.add_argument("--keep", action="store_true", help="keep the data directory")
    p.add_argument("--skip-memory", action="store_true")
    p.add_argument("--skip-spark", action="store_true")
    p.add_argument("--worker", choices=["duckdb", "memory", "spark"], help=argparse.SUPPRESS)
    p.add_argument("--files", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args)
        return

    import beyondchance

    directory = args.dir or tempfile.mkdtemp(prefix="bc_bench_scale_")
    try:
        t0 = time.perf_counter()
        files = write_data(directory, args.rows, args.chunk)
        size = sum(os.path.getsize(f) for f in files) / 2**20
        print(f"beyondchance {beyondchance.__version__}; {os.cpu_count()} cores; "
              f"wrote {args.rows:,d} rows in {len(files)} Parquet files ({size:.0f} MB) in {time.perf_counter() - t0:.1f} s")
        n_small = max(1, min(len(files), -(-min(args.exact_rows, args.rows) // args.chunk)))
        small = files[:n_small]
        small_rows = min(args.rows, n_small * args.chunk)

        print(f"\n== {args.rows:,d} rows ==")
        ddb = run_worker("duckdb", files, args.bins)
        mem_exact = None if args.skip_memory else run_worker("memory", files, 0)
        if mem_exact is not None:
            show("memory, exact (numpy sort)", mem_exact)
        show(f"duckdb, binned ({args.bins} bins/unit)", ddb, mem_exact)
        if not args.skip_memory:
            show(f"memory, binned ({args.bins} bins/unit)", run_worker("memory", files, args.bins), mem_exact)
        if mem_exact is not None and "error" not in ddb and "error" not in mem_exact:
            print(f"{'':<42} duckdb binned vs memory exact, wall: {ddb['compute_s'] / mem_exact['compute_s']:.2f}x time, "
                  f"{ddb['peak_rss_mb'] / mem_exact['peak_rss_mb']:.3f}x peak RSS")

        if n_small < len(files) or args.rows <= args.exact_rows:
            print(f"\n== {small_rows:,d} rows (exact statistics: one threshold per distinct score) ==")
            mem_small = run_worker("memory", small, 0)
            show("memory, exact", mem_small)
            show("duckdb, exact", run_worker("duckdb", small, 0), mem_small)
            show(f"duckdb, binned ({args.bins} bins/unit)", run_worker("duckdb", small, args.bins), mem_small)

        if not args.skip_spark:
            n_spark = max(1, min(len(files), -(-args.spark_rows // args.chunk)))
            spark_files = files[:n_spark]
            rows = min(args.rows, n_spark * args.chunk)
            print(f"\n== Spark local[2], {rows:,d} rows ==")
            ref = run_worker("memory", spark_files, 0)
            show("memory, exact (reference)", ref)
            show(f"spark, binned ({args.bins} bins/unit)", run_worker("spark", spark_files, args.bins), ref)
            show(f"duckdb, binned ({args.bins} bins/unit)", run_worker("duckdb", spark_files, args.bins), ref)
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
