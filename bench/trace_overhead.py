#!/usr/bin/env python3
"""The tracer's overhead and trace size: apps run untraced, traced exactly and traced
with loop folding (`perfcast trace --fold-loops`), taking turns, several repeats.

For each app (wave3d and cg by default, 2 ranks) and each repeat the three variants run
one after the other, in an order that rotates from repeat to repeat, so a change in the
host's load falls on all three. Each run's time is the app's own timed loop (the median
it prints: wave3d's step loop, cg's solve), so MPI start-up and the tracer's writing at
MPI_Finalize are outside it. Reported per traced variant: overhead against the untraced
runs of the same repeats (median and interquartile range over the repeats, in %), trace
bytes (the rank streams) and bytes per rank per second of the traced region (MPI_Init's
return to MPI_Finalize's, from the tracer header), and the mean time between MPI calls
(compute per call): the figures are meant for apps with 1 ms or more between calls.

    python3 bench/trace_overhead.py --build build [--repeats 7] [--apps wave3d cg]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402

MPIRUN = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
APP_ARGS = {
    # Sizes that leave 1 ms or more between MPI calls at 2 ranks (the report shows it).
    "wave3d": ["--n", "160", "--steps", "20", "--repeats", "3"],
    "cg": ["--n", "104", "--iters", "60", "--repeats", "3"],
}
TIME_LINE = re.compile(r"(?:step loop|solve time): median ([0-9.eE+-]+) s")
VARIANTS = ["untraced", "exact", "folded"]


def run(cmd, what):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"trace_overhead: {what} failed: {' '.join(cmd)}\n{out.stderr[-3000:]}\n{out.stdout[-2000:]}")
    return out.stdout


def app_time(stdout, what):
    m = TIME_LINE.search(stdout)
    if not m:
        sys.exit(f"trace_overhead: {what}: no timed loop in its output:\n{stdout[-2000:]}")
    return float(m.group(1))


def one_run(o, app, variant, work, index):
    launch = MPIRUN + ["-n", str(o.ranks), os.path.join(o.build, "apps", app)] + APP_ARGS[app]
    if variant == "untraced":
        return {"time_s": app_time(run(launch, f"{app} untraced"), app)}
    trace_dir = os.path.join(work, f"{app}-{variant}-{index}.trace")
    cmd = [o.perfcast, "trace", "-o", trace_dir] + (["--fold-loops"] if variant == "folded" else []) + ["--"]
    seconds = app_time(run(cmd + launch, f"{app} traced ({variant})"), app)
    streams = [f for f in os.listdir(trace_dir) if f.endswith(".pcev")]
    trace_bytes = sum(os.path.getsize(os.path.join(trace_dir, f)) for f in streams)
    shown = json.loads(run([o.perfcast, "trace", "show", trace_dir, "--json"], "trace show"))
    wall = max(r["wall_s"] or 0 for r in shown["ranks"])
    calls = sum(r["calls"] for r in shown["ranks"])
    compute = sum(r["compute_s"] for r in shown["ranks"])
    return {"time_s": seconds, "trace_bytes": trace_bytes, "wall_s": wall, "calls": calls,
            "gap_s": compute / max(calls, 1), "events": sum(s["events"] for s in
                                                              json.load(open(os.path.join(trace_dir,
                                                                                          "trace.json")))["streams"])}


def quartiles(values):
    if len(values) < 2:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], statistics.median(values), q[2]


def measure_app(o, app, work):
    runs = {v: [] for v in VARIANTS}
    for repeat in range(o.repeats):
        order = VARIANTS[repeat % 3:] + VARIANTS[:repeat % 3]
        for variant in order:
            runs[variant].append(one_run(o, app, variant, work, repeat))
        print(f"  {app} repeat {repeat + 1}/{o.repeats}: " +
              ", ".join(f"{v} {runs[v][-1]['time_s']:.4f} s" for v in VARIANTS), file=sys.stderr)
    out = {"app": app, "args": APP_ARGS[app], "ranks": o.ranks, "runs": runs, "variants": {}}
    for variant in VARIANTS[1:]:
        overhead = [100 * (t["time_s"] / u["time_s"] - 1) for t, u in zip(runs[variant], runs["untraced"])]
        q1, median, q3 = quartiles(overhead)
        per_rank_s = [r["trace_bytes"] / o.ranks / r["wall_s"] for r in runs[variant] if r["wall_s"] > 0]
        out["variants"][variant] = {
            "overhead_pct_median": median, "overhead_pct_q1": q1, "overhead_pct_q3": q3,
            "trace_bytes_median": statistics.median(r["trace_bytes"] for r in runs[variant]),
            "bytes_per_rank_per_s_median": statistics.median(per_rank_s) if per_rank_s else None,
            "events_median": statistics.median(r["events"] for r in runs[variant]),
            "gap_between_calls_ms": 1e3 * statistics.median(r["gap_s"] for r in runs[variant]),
        }
    out["untraced_time_s_median"] = statistics.median(r["time_s"] for r in runs["untraced"])
    return out


def report(results, o, load):
    lines = [f"trace_overhead: {o.ranks} ranks, {o.repeats} repeats per variant, turns rotating",
             f"this loaded 2-core VM: load average before the runs {load}; overheads move with the load",
             ""]
    header = (f"{'app':8} {'variant':8} {'overhead % (q1 / median / q3)':>32} {'trace bytes':>12} "
              f"{'B/rank/s':>10} {'events':>9} {'ms between calls':>17}")
    lines.append(header)
    for r in results:
        lines.append(f"{r['app']:8} {'untraced':8} {'(timed loop ' + format(r['untraced_time_s_median'], '.4f') + ' s)':>32}")
        for variant, v in r["variants"].items():
            spread = f"{v['overhead_pct_q1']:+.1f} / {v['overhead_pct_median']:+.1f} / {v['overhead_pct_q3']:+.1f}"
            rate = f"{v['bytes_per_rank_per_s_median']:.0f}" if v["bytes_per_rank_per_s_median"] else "-"
            lines.append(f"{r['app']:8} {variant:8} {spread:>32} {v['trace_bytes_median']:>12.0f} {rate:>10} "
                         f"{v['events_median']:>9.0f} {v['gap_between_calls_ms']:>17.2f}")
        args = " ".join(r["args"])
        lines.append(f"{'':8} ({r['app']} {args})")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build tree with bin/perfcast and apps/")
    p.add_argument("--apps", nargs="+", default=list(APP_ARGS), choices=list(APP_ARGS))
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--results", default=result_paths.new_run_dir("trace-overhead"), help="folder to write into")
    o = p.parse_args()
    o.perfcast = os.path.join(o.build, "bin", "perfcast")
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    with tempfile.TemporaryDirectory(prefix="perfcast-trace-overhead-") as work:
        results = [measure_app(o, app, work) for app in o.apps]
    text = report(results, o, load)
    print(text)
    os.makedirs(o.results, exist_ok=True)
    with open(os.path.join(o.results, "trace_overhead.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(o.results, "trace_overhead.json"), "w") as f:
        json.dump({"load_average": load, "host": "this loaded 2-core VM", "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
