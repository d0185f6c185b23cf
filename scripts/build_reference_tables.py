"""Build the shipped DBT reference table ``src/beyondchance/outperformance/_reference/dbt10.npy``
(the knots, one row per stored reference) and ``dbt10.json`` (what each row is).

The table holds the default reference of the OPS of scoring metrics (Directed Binary
Tree of depth 10, 114,688 curves, seed 0 — exactly the sample
``scoring_outperformance_score`` draws by default), thinned to
:data:`beyondchance.outperformance.shipped.KNOTS` ranks per array (see that module for
the error bound, which this script measures again and records).  Deterministic: the
same package version writes the same values.  Runtime on one core of the 2-core CI
machine: about 6 minutes (``--quick``: a 2-point grid, for trying the script).

    python scripts/build_reference_tables.py            # writes the package file
    python scripts/build_reference_tables.py --quick --out /tmp/dbt10.npy
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from beyondchance.outperformance import scoring, shipped
from beyondchance.outperformance.curves import DEFAULT_LEVELS
from beyondchance.outperformance.dbt import DEFAULT_DEPTH, DirectedBinaryTree

OUT = Path(__file__).resolve().parents[1] / "src" / "beyondchance" / "outperformance" / shipped.TABLE_FILE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--quick", action="store_true", help="two grid points only")
    ap.add_argument("--table", choices=("main", "lift"), default="main",
                    help="main: the AUCs and the OPRC levels (2,049 knots, dbt10.npy); lift: the lift at the "
                         "OPS(lift) curve's rates on the grid (257 knots, dbt10_lift.npy)")
    args = ap.parse_args()
    if args.table == "lift" and args.out == OUT:
        args.out = OUT.with_name("dbt10_lift.npy")
    knots = shipped.KNOTS if args.table == "main" else shipped.LIFT_KNOTS
    t0 = time.perf_counter()
    n = int(round(scoring.GRID_LIMIT / scoring.GRID_STEP))
    grid = np.arange(-n, n + 1) if not args.quick else np.array([-22, -21])
    sampler = DirectedBinaryTree(depth=DEFAULT_DEPTH)
    G, seed = scoring.DEFAULT_N_SAMPLES, 0
    # cache=False: computed from the curves, never read from a cache or an older table
    ctx = scoring._Context(sampler, G, seed, False)
    reference_key = scoring._Context(sampler, G, seed, True).reference_key()
    levels = np.asarray(DEFAULT_LEVELS, dtype=np.float64).tolist()
    if args.table == "main":
        quantities = {
            "roc_auc": (scoring._resolve_spec("roc_auc", None).quantity(None), None),
            "pr_auc": (scoring._resolve_spec("pr_auc", None).quantity(None), grid),
            "lift_auc": (scoring._resolve_spec("lift_auc", None).quantity(None), grid),
        }
        for u in levels:
            quantities[f"precision_at_recall_{u:g}"] = (
                scoring._resolve_spec("precision_at_recall", None).quantity(float(u)), None)
    else:
        quantities = {f"lift_at_rate_{u:g}": (scoring._resolve_spec("lift_at_rate", None).quantity(float(u)), grid)
                      for u in levels}
    entries = []
    for q, g in quantities.values():
        entries += [(q, None)] if g is None else [(q, ("grid", int(i))) for i in g]
    values = scoring._ensure(ctx, entries)
    arrays, meta_arrays, worst = {}, [], 0
    pos = shipped.knot_positions(G, knots)
    for name, (q, g) in quantities.items():
        keys = [None] if g is None else [("grid", int(i)) for i in g]
        full = [values[(q, k)] for k in keys]
        arrays[name] = np.stack([shipped.thin(s, knots) for s in full])
        meta_arrays.append({"name": name, "quantity": json.loads(json.dumps(q.key())),
                            "grid": None if g is None else [int(g[0]), int(g[-1])]})
        # the bound, measured: largest count difference of the rebuilt array, at every value
        for s, k in zip(full, arrays[name]):
            r = shipped.rebuild(k, G)
            t = np.unique(s[np.isfinite(s)])
            worst = max(worst, int(np.max(np.abs(np.searchsorted(r, t) - np.searchsorted(s, t)))))
    meta = {
        "reference_key": reference_key,
        "knots": int(pos.size),
        "bound": (int(np.max(np.diff(pos))) - 1) / G,
        "measured_max_difference": worst / G,
        "arrays": meta_arrays,
        "built_seconds": round(time.perf_counter() - t0, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # one float64 array of all rows (memory-mapped when read: a call reads only its rows)
    row = 0
    for entry in meta_arrays:
        entry["row"], entry["rows"] = row, int(arrays[entry["name"]].shape[0])
        row += entry["rows"]
    tmp = args.out.with_suffix(".tmp.npy")
    np.save(tmp, np.vstack([arrays[entry["name"]] for entry in meta_arrays]))
    os.replace(tmp, args.out)
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB): {len(entries)} arrays, "
          f"bound {meta['bound']:.6f}, measured max difference {meta['measured_max_difference']:.6f}, "
          f"{meta['built_seconds']} s")


if __name__ == "__main__":
    main()
