"""Wall time of ``bc.compare`` on the demo's monitoring data (six months, credit default), best of 3.

Usage::

    PYTHONPATH=src python benchmarks/bench_compare_demo.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import beyondchance as bc
from beyondchance.report.example import credit_default_example


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    frame = credit_default_example(seed=0)
    sets = {m: (g["default"].to_numpy(), g["score"].to_numpy()) for m, g in frame.groupby("month", sort=True)}
    print("sets:", {m: len(y) for m, (y, _) in sets.items()})
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        bc.compare(sets, random_state=0)
        times.append(time.perf_counter() - t0)
    print("bc.compare: " + ", ".join(f"{t:.2f}" for t in times) + f" s; best {min(times):.2f} s")


if __name__ == "__main__":
    main()
