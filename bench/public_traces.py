#!/usr/bin/env python3
"""Trace, replay and sign a real MPI application nobody here wrote, and price a
signature against a naive baseline (docs/signature.md).

  public_traces.py replay  --work DIR --name NAME --ranks 1 2 4 --machine HOST.toml -- APP ARGS
      trace the app at each rank count, then `trace show`, `simulate` (MPI priced by
      HOST.toml) and `simulate --mpi as-traced`; one row per rank count.
  public_traces.py sign    --work DIR --name NAME --trace TRACE_DIR --target LABEL -- APP ARGS
      build a signature from TRACE_DIR, `signature run --compare` it on APP ARGS (the
      same configuration or another), trace APP ARGS once more and compute the naive
      baseline on that trace: the slowest rank's time to the first k of its MPI calls
      times (all calls / k), k the calls done within the same wall-time budget as the
      signature run (the slowest rank's time to its last timed occurrence). --reuse prices
      the runs already in DIR again.

APP runs under `mpirun.openmpi --allow-run-as-root --oversubscribe --mca
mpi_yield_when_idle 1 -x OMP_NUM_THREADS=1 -n N` from DIR (where its input files are); {n} in ARGS
becomes the rank count. Results are appended as JSON lines to DIR/results.jsonl and
printed as text. The apps themselves are not built here.
"""
import argparse
import json
import os
import subprocess
import sys
import time

# One OpenMP thread a rank (CloverLeaf and SNAP are built with OpenMP): ranks, not threads, share the cores.
MPIRUN = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
          "-x", "OMP_NUM_THREADS=1"]


def perfcast():
    return os.environ.get("PERFCAST", os.path.join(os.path.dirname(__file__), "..", "build", "bin", "perfcast"))


def run(args, cwd, log=None):
    """Runs a perfcast command; returns its stdout, or exits naming the command and its stderr."""
    started = time.time()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if log:
        with open(os.path.join(cwd, log), "w") as f:
            f.write(done.stdout + done.stderr)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}) after {time.time() - started:.1f} s: {' '.join(args)}\n{done.stderr[-3000:]}")
    return done.stdout


def launch(ranks, app):
    return MPIRUN + ["-n", str(ranks)] + [a.replace("{n}", str(ranks)) for a in app]


def record(work, row):
    with open(os.path.join(work, "results.jsonl"), "a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")


def trace(work, out, ranks, app, machine=None):
    cmd = [perfcast(), "trace", "-o", out] + (["--machine", machine] if machine else []) + ["--"] + launch(ranks, app)
    subprocess.run(["rm", "-rf", out], cwd=work, check=True)
    started = time.time()
    run(cmd, work, out + ".log")
    return time.time() - started


def replay(a):
    for ranks in a.ranks:
        out = f"{a.name}-n{ranks}"
        launch_s = trace(a.work, out, ranks, a.app, a.machine)
        show = json.loads(run([perfcast(), "trace", "show", out, "--json"], a.work))
        header = json.load(open(os.path.join(a.work, out, "trace.json")))["tracer"]["ranks"]
        run([perfcast(), "trace", "show", out], a.work, out + ".show.txt")
        model = json.loads(run([perfcast(), "simulate", out, "--machine", a.machine, "--json"], a.work))
        traced = json.loads(run([perfcast(), "simulate", out, "--machine", a.machine, "--mpi", "as-traced", "--json"],
                                a.work))
        walls = {r["rank"]: r["wall_s"] for r in show["ranks"]}
        tracer = {r["rank"]: r.get("tracer_s", 0.0) for r in header}
        # What the as-traced replay should give per rank: its wall less the tracer's own work.
        worst = max(abs(r["end_s"] - (walls[r["rank"]] - tracer[r["rank"]])) / walls[r["rank"]]
                    for r in traced["ranks"])
        row = {
            "app": a.name, "ranks": ranks, "oversubscribed": ranks > os.cpu_count(),
            "events": sum(s["events"] for s in json.load(open(os.path.join(a.work, out, "trace.json")))["streams"]),
            "calls": sum(r["calls"] for r in show["ranks"]), "launch_s": launch_s,
            "traced_wall_s": max(walls.values()), "tracer_s": max(tracer.values()),
            "replay_model_s": model["predicted_time_s"], "replay_as_traced_s": traced["predicted_time_s"],
            "as_traced_worst_rank_error": worst,
            "kinds": {k["kind"]: k["calls"] for k in show["call_kinds"]},
        }
        record(a.work, {"kind": "replay", **row})
        print(f"{a.name} n={ranks}{' (oversubscribed)' if row['oversubscribed'] else ''}: {row['events']} events, "
              f"traced wall {row['traced_wall_s']:.4f} s (tracer {row['tracer_s']:.4f} s), "
              f"replay --mpi model {row['replay_model_s']:.4f} s, as-traced {row['replay_as_traced_s']:.4f} s "
              f"({100 * (row['replay_as_traced_s'] / row['traced_wall_s'] - 1):+.2f} % of the wall; worst rank "
              f"{100 * worst:.3f} % off its wall less the tracer's work)", flush=True)


def calls_with_times(work, trace_dir):
    """Per rank: the end time of each MPI call after MPI_Init's return (compute and calls in order)."""
    text = run([perfcast(), "events", "show", trace_dir], work)
    ends, rank, clock = {}, None, 0.0
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[0] == "rank":
            rank, clock = int(fields[1]), 0.0
            ends[rank] = []
        elif fields[0] == "compute":
            clock += float(fields[1])
        elif fields[0] in ("init",):
            continue
        else:
            dur = next((float(f[4:]) for f in fields if f.startswith("dur=")), 0.0)
            clock += dur
            if fields[0] != "finalize":
                ends[rank].append(clock)
    return ends


def naive_baseline(ends, budget_s):
    """The slowest rank's calls done within budget_s, extrapolated to all its calls."""
    slowest = max(ends, key=lambda r: ends[r][-1] if ends[r] else 0.0)
    times = ends[slowest]
    done = sum(1 for t in times if t <= budget_s)
    if done == 0:
        return {"rank": slowest, "calls_done": 0, "calls": len(times), "share": 0.0, "predicted_s": None}
    return {"rank": slowest, "calls_done": done, "calls": len(times), "share": done / len(times),
            "predicted_s": times[done - 1] * len(times) / done}


def sign(a):
    sig = f"{a.name}-{a.algorithm}.sig"
    run([perfcast(), "signature", "build", a.trace, "-o", sig, "--algorithm", a.algorithm], a.work, sig + ".build.txt")
    run([perfcast(), "signature", "show", sig], a.work, sig + ".show.txt")
    ranks = a.sign_ranks
    rundir = f"{a.name}-sigrun-{a.target}-{a.algorithm}{'-any-size' if a.any_size else ''}"
    target_trace = f"{a.name}-target-{a.target}"
    reuse = a.reuse and os.path.exists(os.path.join(a.work, rundir + ".log"))
    if not reuse:
        subprocess.run(["rm", "-rf", rundir], cwd=a.work, check=True)
        run([perfcast(), "signature", "run", sig, "-o", rundir, "--compare", "--json", "--warmup", a.warmup,
             "--measure", str(a.measure)] + (["--any-size"] if a.any_size else []) + ["--"] + launch(ranks, a.app),
            a.work, rundir + ".log")
    result = json.load(open(os.path.join(a.work, rundir + ".log")))
    compare = result["compare"]
    # The naive run may execute as much of the program as the signature run did: the
    # slowest rank's time from MPI_Init's return to its last timed occurrence.
    budget_s = result["executed_s"]
    if not (a.reuse and os.path.exists(os.path.join(a.work, target_trace, "trace.json"))):
        trace(a.work, target_trace, ranks, a.app)
    ends = calls_with_times(a.work, target_trace)
    naive = naive_baseline(ends, budget_s)
    traced_total = max(e[-1] for e in ends.values() if e)
    row = {"kind": "signature", "app": a.name, "target": a.target, "ranks": ranks, "trace": a.trace,
           "app_args": a.app, "warmup": a.warmup, "measure": a.measure, "algorithm": a.algorithm, "any_size": a.any_size,
           "signature_predicted_s": result["prediction"]["signature_predicted_s"],
           "complete": result["prediction"]["complete"], "stopped_early": result["stopped_early"], "signature_wall_s": result.get("reported_s"),
           "predicted_s": result["prediction"]["predicted_s"], "measured_s": compare["measured_s"], "error": compare["error"],
           "cost": compare["cost"], "executed_share": compare.get("executed_share"),
           "full_wall_s": compare["full_wall_s"], "budget_s": budget_s, "naive": naive,
           "naive_error": (naive["predicted_s"] / compare["measured_s"] - 1) if naive["predicted_s"] else None,
           "naive_trace_total_s": traced_total,
           "phases_relevant": sum(1 for p in json.load(open(os.path.join(a.work, sig)))["phases"] if p["relevant"])}
    record(a.work, row)
    naive_text = (f"{naive['predicted_s']:.3f} s ({100 * row['naive_error']:+.1f} %; {naive['calls_done']} of "
                  f"{naive['calls']} calls, {100 * naive['share']:.1f} %)" if naive["predicted_s"] else
                  f"nothing (no call done within {budget_s:.3f} s)")
    print(f"{a.name} {a.target} n={ranks} ({a.algorithm}{', any size' if a.any_size else ''}"
          f"{'' if row['complete'] else ', phases not all measured'}): signature {row['predicted_s']:.3f} s against measured "
          f"{row['measured_s']:.3f} s ({100 * row['error']:+.1f} %), cost {100 * row['cost']:.1f} %; naive {naive_text}; "
          f"the naive run's own traced total {traced_total:.3f} s", flush=True)


def table(a):
    """The signature rows of the given results files as a markdown table: one row per
    configuration (repeats `-rN` of a target grouped), each figure's median and range."""
    import re
    import statistics
    rows = {}
    for path in a.results:
        for line in open(path):
            r = json.loads(line)
            if r["kind"] != "signature":
                continue
            target = re.sub(r"-r\d+$", "", r["target"])
            key = (r["app"], target, r.get("algorithm", "repeats"), r.get("any_size", False), r.get("measure", 1))
            runs = rows.setdefault(key, {})
            runs[r["target"]] = r  # a run priced again (--reuse) replaces its first pricing
    def spread(values, scale=100, unit=" %"):
        values = sorted(values)
        mid = statistics.median(values)
        text = f"{scale * mid:+.1f}{unit}" if unit == " %" else f"{mid:.3f}{unit}"
        return text if len(values) == 1 else f"{text} ({scale * values[0]:+.0f} to {scale * values[-1]:+.0f})"
    print("| app, trace | target | algorithm | runs | signature error | cost | naive error | measured |")
    print("|---|---|---|---|---|---|---|---|")
    for (app, target, algorithm, any_size, measure), runs in rows.items():
        rs = list(runs.values())
        measured = sorted(r["measured_s"] for r in rs)
        naive = [r["naive_error"] for r in rs if r["naive_error"] is not None]
        unmatched = sum(1 for r in rs if not r.get("complete", True))
        print(f"| {app} | {target}{' --any-size' if any_size else ''} | {algorithm}, --measure {measure} | {len(rs)}"
              f"{f' ({unmatched} not all measured)' if unmatched else ''} | {spread([r['error'] for r in rs])} | "
              f"{spread([r['cost'] for r in rs]).replace('+', '')} | {spread(naive) if naive else '-'} | "
              f"{measured[0]:.2f}{'' if len(measured) == 1 else f' to {measured[-1]:.2f}'} s |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("replay")
    r.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    r.add_argument("--machine", required=True)
    s = sub.add_parser("sign")
    s.add_argument("--trace", required=True)
    s.add_argument("--target", required=True, help="a label for the configuration run (same, steps-x3, ...)")
    s.add_argument("--sign-ranks", type=int, default=2)
    s.add_argument("--warmup", default="auto")
    s.add_argument("--measure", type=int, default=1)
    s.add_argument("--algorithm", default="repeats", choices=["repeats", "loops"])
    s.add_argument("--any-size", action="store_true", help="signature run --any-size")
    s.add_argument("--reuse", action="store_true", help="price the runs already in --work again (no new run)")
    t = sub.add_parser("table")
    t.add_argument("results", nargs="+")
    for q in (r, s):
        q.add_argument("--work", required=True)
        q.add_argument("--name", required=True)
        q.add_argument("app", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if a.what == "table":
        return table(a)
    a.app = a.app[1:] if a.app[:1] == ["--"] else a.app
    a.work = os.path.abspath(a.work)
    if hasattr(a, "machine"):
        a.machine = os.path.abspath(a.machine)
    replay(a) if a.what == "replay" else sign(a)


if __name__ == "__main__":
    main()
