"""Benchmark: the peak memory of ``evaluate(y, y_score)`` on 10 million rows (issue 12 (b): ≤ 1.5 GB).

Each run is a fresh child process that makes bench_issue12's rows (b) — int8 labels at
10 % prevalence, float64 scores, seed 0 — and calls ``evaluate(y, s)`` (intervals and OPS)
once.  Printed per run: the child's resident high-water mark before the call (Python, numpy,
the package and the two inputs) and after it, read from ``VmHWM`` in /proc/self/status.
(``ru_maxrss`` of a child is not used: on Linux it keeps the parent's high-water mark across
``fork``/``exec``, so a child started by a process that once held more reports that.)

``--calls K`` then calls ``evaluate(y, s)`` K times in one process and prints the resident
size after each call: it stays flat when a call leaves nothing behind, and grows by the
score counts (240 MB at 10 million rows) per call when a reference cycle keeps them alive
until the garbage collector runs.

    python benchmarks/bench_peak_memory.py [--rows 10000000] [--runs 3] [--calls 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("BEYONDCHANCE_CACHE_DIR", tempfile.mkdtemp(prefix="bc-bench-peak-"))

_CHILD = r"""
import sys, numpy as np
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key + ":"))
from beyondchance.report import evaluate
rng = np.random.default_rng(0); n, calls = int(sys.argv[1]), int(sys.argv[2])
y = (rng.random(n) < 0.1).astype(np.int8); s = rng.random(n) * 0.6 + 0.4 * y
before = status("VmHWM")
for _ in range(calls):
    evaluate(y, s)
    print("rss", status("VmRSS"))
print("hwm", before, status("VmHWM"))
"""


def child(rows: int, calls: int) -> tuple[int, int, list[int]]:
    """(high-water mark before, after, resident size after each call) of one child, in bytes."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(rows), str(calls)], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    rss = [int(line.split()[1]) for line in out if line.startswith("rss")]
    hwm = next(line.split()[1:] for line in out if line.startswith("hwm"))
    return int(hwm[0]), int(hwm[1]), rss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=3)
    args = ap.parse_args()
    if not os.path.exists("/proc/self/status"):
        sys.exit("needs /proc/self/status (Linux)")
    print(f"{args.rows:,} rows, seed 0; {args.runs} runs of one call, each a fresh process; "
          f"load average {os.getloadavg()[0]:.2f}")
    peaks = []
    for run in range(args.runs):
        before, after, _ = child(args.rows, 1)
        peaks.append(after)
        print(f"  run {run + 1}: peak {after / 1e9:.3f} GB (before the call {before / 1e9:.3f} GB)")
    worst = max(peaks)
    print(f"peak memory of evaluate(y, y_score): max {worst / 1e9:.3f} GB  target <= 1.5 GB "
          f"{'PASS' if worst <= 1.5e9 else 'FAIL'}")
    if args.calls > 1:
        _, after, rss = child(args.rows, args.calls)
        print(f"{args.calls} calls in one process: resident after each {' '.join(f'{r / 1e9:.3f}' for r in rss)} GB; "
              f"peak {after / 1e9:.3f} GB")


if __name__ == "__main__":
    main()
