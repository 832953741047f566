#!/usr/bin/env python3
"""Replay fidelity per MPI call kind: a traced run against its replay on the simulator.

For each app (wave3d and cg by default, at 2 ranks) this traces one real run with
`perfcast trace` (each MPI call's duration recorded), replays the trace with
`perfcast simulate --timeline` on a machine file of this host, and sums per call kind,
over the ranks:

  traced     the recorded durations (`perfcast trace show --json`, call_kinds[]);
  simulated  the replay's wait and comm spans of that kind (the Chrome-trace timeline;
             `simulate --json` has only per-rank calc, wait and comm).

MPI_Init is left out on both sides (the simulator starts at its return); MPI_Finalize
is shown, and the totals are given with and without it. Compute is the traced gaps on
both sides (the replay runs them as recorded), so the difference between the traced
region's time and the simulated time is the calls' difference. One run per app: on a
shared, oversubscribed host the traced figures vary from run to run, and the report
says what load it ran under.

    python3 bench/replay_fidelity.py --build build [--machine FILE] [--apps wave3d cg]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402

MPIRUN = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
APP_ARGS = {
    "wave3d": ["--n", "64", "--steps", "20", "--repeats", "1"],
    "cg": ["--n", "48", "--iters", "50", "--repeats", "1"],
}


def run(cmd, what):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"replay_fidelity: {what} failed: {' '.join(cmd)}\n{out.stderr[-3000:]}\n{out.stdout[-2000:]}")
    return out.stdout


def simulated_by_kind(timeline_file):
    """Per call kind: seconds of wait and comm spans over all ranks, from a Chrome trace."""
    with open(timeline_file) as f:
        document = json.load(f)
    seconds = collections.defaultdict(float)
    for event in document["traceEvents"]:
        if event.get("ph") != "X" or event.get("cat") == "compute":
            continue
        kind = event["name"].rsplit(" ", 1)[0]
        seconds[kind] += event["dur"] * 1e-6
    return seconds


def measure_app(o, app, work):
    binary = os.path.join(o.build, "apps", app)
    trace_dir = os.path.join(work, f"{app}.trace")
    run([o.perfcast, "trace", "-o", trace_dir, "--"] + MPIRUN + ["-n", str(o.ranks), binary] + APP_ARGS[app],
        f"tracing {app}")
    shown = json.loads(run([o.perfcast, "trace", "show", trace_dir, "--json"], "trace show"))
    if not shown["calls_timed"]:
        sys.exit("replay_fidelity: the trace records no call durations (an old tracer?)")
    timeline = os.path.join(work, f"{app}.timeline.json")
    simulated = json.loads(run([o.perfcast, "simulate", trace_dir, "--machine", o.machine, "--json", "--timeline",
                                timeline], "simulate"))
    sim_kinds = simulated_by_kind(timeline)
    kinds = []
    for k in shown["call_kinds"]:
        kinds.append({"kind": k["kind"], "calls": k["calls"], "traced_s": k["seconds"],
                      "simulated_s": sim_kinds.get(k["kind"], 0.0)})
    ranks = shown["ranks"]
    return {
        "app": app,
        "args": APP_ARGS[app],
        "ranks": o.ranks,
        "kinds": kinds,
        "traced_compute_s": sum(r["compute_s"] for r in ranks),
        "simulated_calc_s": sum(r["calc_s"] for r in simulated["ranks"]),
        "traced_init_s": max(r["init_s"] for r in ranks),
        "traced_wall_s": max(r["wall_s"] for r in ranks),
        "traced_wall_before_finalize_s": max(r["wall_s"] - r["finalize_s"] for r in ranks),
        "simulated_time_s": simulated["predicted_time_s"],
    }


def ms(s):
    return f"{s * 1e3:9.3f}"


def report(results, o, load):
    lines = [f"replay fidelity per call kind, {o.ranks} ranks, machine file {result_paths.relative(o.machine)}",
             f"load average before the runs: {load} (a shared 2-core VM: one run each, noisy figures)", ""]
    for r in results:
        lines.append(f"{r['app']} {' '.join(r['args'])}")
        lines.append(f"  {'call':<12} {'calls':>7} {'traced ms':>10} {'simulated ms':>13} {'sim/traced':>10}")
        traced_total = simulated_total = 0.0
        for k in r["kinds"]:
            ratio = f"{k['simulated_s'] / k['traced_s']:10.3f}" if k["traced_s"] > 0 else f"{'-':>10}"
            lines.append(f"  {k['kind']:<12} {k['calls']:>7} {ms(k['traced_s']):>10} {ms(k['simulated_s']):>13} "
                         f"{ratio}")
            traced_total += k["traced_s"]
            simulated_total += k["simulated_s"]
        fin = next((k for k in r["kinds"] if k["kind"] == "finalize"), {"traced_s": 0, "simulated_s": 0})
        lines.append(f"  {'all calls':<12} {'':>7} {ms(traced_total):>10} {ms(simulated_total):>13}")
        lines.append(f"  {'but finalize':<12} {'':>7} {ms(traced_total - fin['traced_s']):>10} "
                     f"{ms(simulated_total - fin['simulated_s']):>13}")
        lines.append(f"  compute (all ranks): traced {ms(r['traced_compute_s'])} ms, replayed "
                     f"{ms(r['simulated_calc_s'])} ms")
        lines.append(f"  time: traced wall (slowest rank) {ms(r['traced_wall_s'])} ms, of it before MPI_Finalize "
                     f"{ms(r['traced_wall_before_finalize_s'])} ms; simulated {ms(r['simulated_time_s'])} ms; "
                     f"MPI_Init (not replayed) {ms(r['traced_init_s'])} ms")
        lines.append("")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build tree with bin/perfcast and apps/")
    p.add_argument("--machine", default=result_paths.WAVE3D_MACHINE, help="machine file of this host")
    p.add_argument("--apps", nargs="+", default=list(APP_ARGS), choices=list(APP_ARGS))
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--results", default=result_paths.new_run_dir("replay-fidelity"), help="folder to write into")
    o = p.parse_args()
    o.build = os.path.abspath(o.build)
    o.perfcast = os.path.join(o.build, "bin", "perfcast")
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    with tempfile.TemporaryDirectory(prefix="replay-fidelity-") as work:
        results = [measure_app(o, app, work) for app in o.apps]
    text = report(results, o, load)
    print(text)
    os.makedirs(o.results, exist_ok=True)
    with open(os.path.join(o.results, "replay_fidelity.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(o.results, "replay_fidelity.json"), "w") as f:
        json.dump({"load_average": load, "machine": result_paths.relative(o.machine), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
