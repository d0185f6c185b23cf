"""Wall (and CPU) time of ``bc.compare`` on the demo's monitoring data (six months, credit default), best of 3.

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
    frame = credit_default_example(random_state=0)
    sets = {m: (g["default"].to_numpy(), g["score"].to_numpy()) for m, g in frame.groupby("month", sort=True)}
    print("sets:", {m: len(y) for m, (y, _) in sets.items()})
    times, cpu = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        bc.compare(sets, random_state=0)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print("bc.compare wall: " + ", ".join(f"{t:.2f}" for t in times) + f" s; best {min(times):.2f} s; "
          f"CPU best {min(cpu):.2f} s")


if __name__ == "__main__":
    main()
