"""Scale of the statistics file (issue 30, item 5): Parquet rows on DuckDB to a statistics file.

    python benchmarks/bench_statistics_file.py            # 10^8 rows binned, 10^6 distinct exact scores
    python benchmarks/bench_statistics_file.py --quick    # 10^5 rows (a smoke run, seconds)
    python benchmarks/bench_statistics_file.py --rows 10000000 --dir /tmp/bc-bench

Two measurements, each in its own Python process (so that its peak resident set size,
``resource.getrusage(RUSAGE_SELF).ru_maxrss``, is its own):

* binned: ``bc.profile("label", "score", data=<parquet>, engine="duckdb", score_bins=1000,
  ci=False)`` then ``.save(path)`` on ``--rows`` rows (target: 10^8 rows in at most 60 s, a file of at
  most 1 MB);
* exact: the same without ``score_bins`` on ``--exact-rows`` rows whose scores are all
  distinct (one threshold per row: the file grows with the distinct scores).

``import duckdb`` is timed apart, before the profile (once per process).

The Parquet is written by DuckDB itself (``COPY (SELECT … FROM range(n)) TO …``): labels
int8 with about 30% positives, scores float64 (a hash of the row number on a grid of 10^-6,
times 0.7, plus 0.3 for a positive: up to 2·10^6 distinct scores; the exact file's scores
are ``(i + 0.5) / n`` with the label drawn from them: distinct by construction).  The data are kept between
runs (``--dir``) and rewritten when their row count differs.

For scale, in the same run: scikit-learn's ``roc_auc_score`` on ``--sklearn-rows`` rows of
the exact file in memory (its nearest operation: one sort of the scores; the fastest of
three calls), and the ratio of the times.  A run prints its measurements as one JSON
document, then a summary of four lines.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def write_parquet(path: str, rows: int, exact: bool) -> float:
    """Write ``rows`` (label, score) rows with DuckDB; returns the seconds it took."""
    import duckdb

    if exact:  # scores (i + 0.5) / n: all distinct; P(label = 1 | score) = score
        select = (f"SELECT CAST((hash(i) % 1000000) / 1e6 < s AS TINYINT) AS label, s AS score FROM "
                  f"(SELECT i, (i + 0.5) / {rows} AS s FROM range({rows}) t(i))")
    else:  # labels ~30% positive; scores in [0, 1), higher for positives
        select = (f"SELECT CAST(u < 0.3 AS TINYINT) AS label, "
                  f"LEAST(0.999999, (hash(i * 2 + 1) % 1000000) / 1e6 * 0.7 + CAST(u < 0.3 AS DOUBLE) * 0.3) AS score "
                  f"FROM (SELECT i, (hash(i * 2) % 1000000) / 1e6 AS u FROM range({rows}) t(i))")
    t0 = time.perf_counter()
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1048576)")
    con.close()
    return time.perf_counter() - t0


def _parquet_rows(path: str) -> int | None:
    if not os.path.exists(path):
        return None
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def ensure_data(path: str, rows: int, exact: bool) -> float | None:
    """The seconds spent writing ``path``, or None when it already held ``rows`` rows."""
    if _parquet_rows(path) == rows:
        return None
    return write_parquet(path, rows, exact)


# =====================================================================================
# workers (each in its own process)
# =====================================================================================


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def worker_profile(data: str, out: str, score_bins: int | None) -> dict:
    import beyondchance as bc

    base = _peak_mb()
    t = time.perf_counter()
    import duckdb  # noqa: F401  (imports pandas: a second or so once per process, timed apart)

    import_s = time.perf_counter() - t
    t0 = time.perf_counter()
    st = bc.profile("label", "score", data=data, engine="duckdb", score_bins=score_bins, ci=False)
    t1 = time.perf_counter()
    st.save(out)
    t2 = time.perf_counter()
    back = bc.read_statistics(out)
    t3 = time.perf_counter()
    stats = back.stats
    thresholds = stats.threshold_counts().thresholds.size if score_bins else stats.thresholds.size
    return {"rows": st.n_rows, "score_bins": score_bins, "import_duckdb_s": import_s, "profile_s": t1 - t0,
            "save_s": t2 - t1, "read_s": t3 - t2, "total_s": t2 - t0, "file_bytes": os.path.getsize(out),
            "thresholds": int(thresholds), "auc_roc": float(stats.auc("roc")), "peak_rss_mb": _peak_mb(),
            "peak_rss_before_mb": base}


def worker_sklearn(data: str, rows: int) -> dict:
    import numpy as np
    import pyarrow.parquet as pq
    from sklearn.metrics import roc_auc_score

    table = pq.read_table(data).slice(0, rows)
    y, s = np.asarray(table["label"]), np.asarray(table["score"])
    times = []
    for _ in range(3):  # the fastest of three (the first call pays for scikit-learn's lazy imports)
        t0 = time.perf_counter()
        auc = roc_auc_score(y, s)
        times.append(time.perf_counter() - t0)
    return {"rows": int(y.size), "roc_auc_score_s": min(times), "auc_roc": float(auc),
            "peak_rss_mb": _peak_mb()}


def _run_worker(*args: str) -> dict:
    env = dict(os.environ)
    src = os.path.join(os.path.dirname(HERE), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", *args], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# =====================================================================================
# driver
# =====================================================================================


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10**8, help="rows of the binned run (default 10^8)")
    ap.add_argument("--exact-rows", type=int, default=10**6, help="rows (= distinct scores) of the exact run")
    ap.add_argument("--sklearn-rows", type=int, default=10**6, help="rows of scikit-learn's roc_auc_score")
    ap.add_argument("--score-bins", type=int, default=1000)
    ap.add_argument("--dir", default="/tmp/bc-bench-statistics-file", help="where the Parquet and files go")
    ap.add_argument("--quick", action="store_true", help="10^5 rows everywhere (a smoke run)")
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        kind, *rest = args.worker
        result = (worker_profile(rest[0], rest[1], int(rest[2]) if rest[2] != "exact" else None) if kind == "profile"
                  else worker_sklearn(rest[0], int(rest[1])))
        print(json.dumps(result))
        return result
    if args.quick:
        args.rows = args.exact_rows = args.sklearn_rows = 10**5
    os.makedirs(args.dir, exist_ok=True)
    binned_data = os.path.join(args.dir, f"binned-{args.rows}.parquet")
    exact_data = os.path.join(args.dir, f"exact-{args.exact_rows}.parquet")
    written = {"binned_data_s": ensure_data(binned_data, args.rows, exact=False),
               "exact_data_s": ensure_data(exact_data, args.exact_rows, exact=True)}
    results = {
        "cpus": os.cpu_count(), "written": written,
        "parquet_bytes": {"binned": os.path.getsize(binned_data), "exact": os.path.getsize(exact_data)},
        "binned": _run_worker("profile", binned_data, os.path.join(args.dir, "binned.bcstats"), str(args.score_bins)),
        "exact": _run_worker("profile", exact_data, os.path.join(args.dir, "exact.bcstats"), "exact"),
        "sklearn": _run_worker("sklearn", exact_data, str(min(args.sklearn_rows, args.exact_rows))),
    }
    b, e, sk = results["binned"], results["exact"], results["sklearn"]
    results["ratios"] = {
        "exact_profile_over_sklearn_auc": e["profile_s"] / sk["roc_auc_score_s"],
        "binned_ns_per_row": 1e9 * b["total_s"] / b["rows"],
        "sklearn_ns_per_row": 1e9 * sk["roc_auc_score_s"] / sk["rows"],
    }
    print(json.dumps(results, indent=1))
    print(f"\nbinned  {b['rows']:>12,} rows, {b['score_bins']} bins: profile {b['profile_s']:.2f} s + save "
          f"{b['save_s']:.3f} s = {b['total_s']:.2f} s (import duckdb {b['import_duckdb_s']:.2f} s apart); "
          f"file {b['file_bytes']:,} bytes; peak RSS {b['peak_rss_mb']:.0f} MB")
    print(f"exact   {e['rows']:>12,} rows, {e['thresholds']:,} distinct scores: profile {e['profile_s']:.2f} s + save "
          f"{e['save_s']:.3f} s = {e['total_s']:.2f} s (import duckdb {e['import_duckdb_s']:.2f} s apart); "
          f"file {e['file_bytes']:,} bytes; read back "
          f"{e['read_s']:.2f} s; peak RSS {e['peak_rss_mb']:.0f} MB")
    print(f"sklearn {sk['rows']:>12,} rows in memory: roc_auc_score {sk['roc_auc_score_s']:.3f} s "
          f"(AUC {sk['auc_roc']:.6f}; the exact profile's {e['auc_roc']:.6f}); exact profile / roc_auc_score = "
          f"{results['ratios']['exact_profile_over_sklearn_auc']:.1f}x")
    print(f"per row: binned profile+save {results['ratios']['binned_ns_per_row']:.1f} ns; sklearn roc_auc_score "
          f"{results['ratios']['sklearn_ns_per_row']:.1f} ns")
    return results


if __name__ == "__main__":
    main()
