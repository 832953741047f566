#!/usr/bin/env python3
"""The simulator at scale with the LIVE skeleton runtime: bench/skeletons/stencil3d.c
(6-face LMPI halo exchange + an allreduce every 10 steps) built with `perfcast cc`
and run by `perfcast simulate --np N -- ./stencil3d.so STEPS` at several rank counts.

Per run it prints the wall time, the child's CPU time and peak memory (ru_maxrss
from wait4, i.e. VmHWM), MPI calls simulated per wall second and per CPU second,
and bytes per rank: peak RSS growth over a 1-rank run divided by the ranks, and
the engine's own per-rank state (perfcast's engine_bytes_per_rank).

    bench/sim_live_stencil.py [--build DIR] [--machine FILE] [--steps 100] [--ranks 64,1024,4096,32768]
                              [--out bench/results/<date>-sim-stencil/sim_live_stencil.txt]

On a shared host the wall times depend on the load: the CPU figures are the
steadier ones, and the load average is printed with each run.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_measured(cmd):
    """Runs cmd; returns (stdout, stderr, wall_s, cpu_s of the child, its peak RSS in bytes, exit code)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Drain the pipes from threads so a chatty child cannot block, then wait4 for its rusage.
    chunks = {"out": [], "err": []}

    def drain(stream, key):
        chunks[key].append(stream.read())

    threads = [threading.Thread(target=drain, args=(p.stdout, "out")),
               threading.Thread(target=drain, args=(p.stderr, "err"))]
    for t in threads:
        t.start()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    for t in threads:
        t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    out = b"".join(chunks["out"]).decode(errors="replace")
    err = b"".join(chunks["err"]).decode(errors="replace")
    return out, err, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, p.returncode


def perfcast_json(text):
    """The JSON object perfcast printed (the skeleton's rank 0 prints its own line before it)."""
    decoder = json.JSONDecoder()
    i = 0
    found = None
    while True:
        i = text.find("{", i)
        if i < 0:
            return found
        try:
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i += 1
            continue
        if isinstance(obj, dict) and "mpi_calls" in obj:
            found = obj
        i = end


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--machine", default=os.path.join(ROOT, "machines", "petascale.toml"))
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--ranks", default="64,1024,4096,32768")
    ap.add_argument("--out", default=None, help="also write the lines to this file")
    a = ap.parse_args()

    perfcast = os.path.join(a.build, "bin", "perfcast")
    skel = os.path.join(a.build, "bench", "stencil3d.so")
    os.makedirs(os.path.dirname(skel), exist_ok=True)
    subprocess.run([perfcast, "cc", "-O2", os.path.join(HERE, "skeletons", "stencil3d.c"), "-o", skel], check=True)

    def simulate(np_):
        cmd = [perfcast, "simulate", "--json", "--machine", a.machine, "--np", str(np_), "--", skel, str(a.steps)]
        out, err, wall, cpu, rss, code = run_measured(cmd)
        if code != 0:
            sys.exit(f"sim_live_stencil: {' '.join(cmd)} failed ({code}):\n{err}")
        j = perfcast_json(out)
        if j is None:
            sys.exit(f"sim_live_stencil: no JSON from {' '.join(cmd)}:\n{out[:2000]}")
        return j, wall, cpu, rss

    lines = []

    def say(text):
        print(text, flush=True)
        lines.append(text)

    _, _, _, base_rss = simulate(1)
    say(f"# sim_live_stencil: perfcast simulate --machine {os.path.relpath(a.machine, ROOT)} --np N -- "
        f"stencil3d.so {a.steps}  (live skeleton: fibers, LMPI halo exchange)")
    load0 = os.getloadavg()[0]
    say(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, load {load0:.1f} at start"
        f"{' (measured under load)' if load0 > 1.0 else ' (quiet)'}; "
        f"1-rank run peak RSS {base_rss / 2**20:.1f} MiB (the baseline of 'RSS growth')")
    for np_ in [int(x) for x in a.ranks.split(",")]:
        load = os.getloadavg()[0]
        j, wall, cpu, rss = simulate(np_)
        calls = j["mpi_calls"]
        growth = max(0, rss - base_rss) / np_
        say(f"ranks {np_} steps {a.steps}: predicted {j['predicted_time_s']:.6g} s, {j['events']} events, "
            f"{calls} MPI calls; wall {wall:.2f} s (engine {j['wall_s']:.2f} s), CPU {cpu:.2f} s; "
            f"{calls / j['wall_s'] / 1e6:.3g} M calls/s wall, {calls / cpu / 1e6:.3g} M calls/CPU-s; "
            f"peak RSS {rss / 2**20:.1f} MiB = {growth:.0f} B/rank over the 1-rank run "
            f"(engine state {j['engine_bytes_per_rank']:.0f} B/rank); load {load:.1f}")
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
