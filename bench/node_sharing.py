#!/usr/bin/env python3
"""What a full node costs one rank beyond its share: k copies of one rank's block, each a 1-rank
run pinned to its own core, started together, against the same block run alone.

A job's R ranks on one node each compute a block of the problem, share the node's last-level
cache, memory bandwidth and clock, and communicate. A 1-rank run of one rank's block (the same
loop extents, no neighbours) alone gives the block's time on an idle node; k = R copies of it at
once give the same work under the node's sharing, without communication or waiting for peers.
So `R-rank run` against `k copies` separates communication and synchronisation from sharing, and
`k copies` against `alone` measures the sharing the model must price (calibrate's
`bandwidth_by_cores`, `busy_slowdown` and `noise` are its prediction of it).

Each copy repeats its timed loop (`--repeats`) for about 0.6 s, so the copies overlap whatever
their launch skew; its `time_s` is the app's median over those repeats. Copies are launched by
`taskset -c CORE mpirun.openmpi -n 1 --bind-to none` (each launch its own Open MPI job), in the
environment the caller set up (the device scripts' transport choice). Prints one line a batch and
writes --out (JSON): per block and k, each batch's per-copy times.

    python3 bench/node_sharing.py --build build --out /tmp/sharing.json
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# One rank's block of a validation case at R ranks (the decomposition the app makes there:
# wave3d's MPI_Dims_create(16, 3) = 4 x 2 x 2 splits x four ways; cg splits its z planes, the
# slowest rank holding the ceiling), with repeats for about 0.6 s of timed work a copy on the
# 2026-11 quiet Xeon.
BLOCKS = [
    {"name": "wave3d n=144 share of 16", "app": "wave3d", "ranks": 16,
     "args": "--nx 36 --ny 72 --nz 72 --steps 40 --repeats 27"},
    {"name": "wave3d n=144 share of 8", "app": "wave3d", "ranks": 8,
     "args": "--nx 72 --ny 72 --nz 72 --steps 40 --repeats 15"},
    {"name": "wave3d n=96 share of 16", "app": "wave3d", "ranks": 16,
     "args": "--nx 24 --ny 48 --nz 48 --steps 40 --repeats 81"},
    {"name": "cg n=56 share of 16", "app": "cg", "ranks": 16,
     "args": "--nx 56 --ny 56 --nz 4 --iters 50 --repeats 81 --dot ordered"},
    {"name": "cg n=40 share of 16", "app": "cg", "ranks": 16,
     "args": "--nx 40 --ny 40 --nz 3 --iters 50 --repeats 241 --dot ordered"},
    # nbody's rank computes its bodies against all: at 16 ranks of 2000 bodies, 125 x 2000 pairs
    # an evaluation, as 500 bodies on one rank (500 x 500); at 4 ranks of 2000, as 1000 bodies.
    {"name": "nbody 2000 share of 16", "app": "nbody", "ranks": 16,
     "args": "--bodies 500 --steps 20 --repeats 31 --seed 12345"},
    {"name": "nbody 2000 share of 4", "app": "nbody", "ranks": 4,
     "args": "--bodies 1000 --steps 20 --repeats 7 --seed 12345"},
]


def launch(binary, args, core):
    cmd = ["taskset", "-c", str(core), "mpirun.openmpi", "--allow-run-as-root", "-n", "1",
           "--bind-to", "none", binary] + args.split()
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def result_of(proc, timeout_s):
    out, err = proc.communicate(timeout=timeout_s)
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {err.strip()[-300:]}")
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if not lines:
        raise RuntimeError("no JSON line on stdout")
    return json.loads(lines[-1])


def batch(binary, args, k, timeout_s):
    """k copies on cores 0..k-1 at once; each copy's app time_s (and wave3d's calc_s)."""
    procs = [launch(binary, args, core) for core in range(k)]
    results = []
    for p in procs:
        try:
            results.append(result_of(p, timeout_s))
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
            p.kill()
            results.append({"error": str(e)})
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="build folder holding apps/ (default build)")
    ap.add_argument("--out", required=True, help="JSON written after every batch")
    ap.add_argument("--batches", type=int, default=3, help="batches per block and k (default 3)")
    ap.add_argument("--budget-s", type=float, default=90, help="no batch starts later (default 90)")
    ap.add_argument("--cores", type=int, default=os.cpu_count(), help="cores to use at most")
    ap.add_argument("--only", default="", help="only the blocks whose name contains this text")
    a = ap.parse_args()
    start = time.monotonic()
    doc = {"cores": a.cores, "blocks": []}
    for block in [b for b in BLOCKS if a.only in b["name"]]:
        binary = os.path.join(a.build, "apps", block["app"])
        entry = dict(block, by_k={})
        doc["blocks"].append(entry)
        for k in sorted({1, min(block["ranks"], a.cores)}):
            runs = []
            for b in range(a.batches):
                if time.monotonic() - start > a.budget_s:
                    entry.setdefault("note", "cut: budget spent")
                    break
                t0 = time.monotonic()
                results = batch(binary, block["args"], k, timeout_s=60)
                times = [r.get("time_s") for r in results if isinstance(r.get("time_s"), (int, float))]
                runs.append({"time_s": times, "calc_s": [r.get("calc_s") for r in results if "calc_s" in r],
                             "errors": [r["error"] for r in results if "error" in r],
                             "wall_s": round(time.monotonic() - t0, 3)})
                med = statistics.median(times) if times else float("nan")
                print(f"node_sharing: {block['name']} k={k} batch {b}: median {med:.6g} s, "
                      f"max {max(times) if times else float('nan'):.6g} s, {len(runs[-1]['errors'])} errors "
                      f"({runs[-1]['wall_s']} s)", flush=True)
                with open(a.out, "w") as f:
                    json.dump(doc, f, indent=1)
            entry["by_k"][str(k)] = runs
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"node_sharing: done in {time.monotonic() - start:.1f} s; {a.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
