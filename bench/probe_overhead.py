#!/usr/bin/env python3
"""The feature probes' overhead in a form a noisy host cannot move: executed instructions
and memory accesses (callgrind, through `perfcast counts`) of a program built plain, with
every probe, and with only the probes a learned model keeps (PERFCAST_FEATURES_KEEP), on
the same input, beside the run times of the three builds taken in turns (median and
interquartile range) and the feature record's size per run (docs/learn.md, "Recording
features").

Instructions are counted per part of the process: the program's own code (its main object
less the probes' runtime, so the probes inlined into it), the runtime linked into it
(`libperfcast_features.a`: its MPI hooks, the clock thread, the record written at
MPI_Finalize), and the whole process (MPI's library included, whose progress loop spins a
number of times that depends on the scheduling, so not exact). Overhead = instrumented /
plain - 1 on the same part.

    # one app of apps/: builds the three variants into OUT/APP, the kept probes those of
    # the model `perfcast learn --time-filter 0.1 --importance-filter 0.95` fits to the
    # app's dataset for validate (its validate.toml's [learned] dataset)
    python3 bench/probe_overhead.py --build build --out OUT --app cg [-- ARGS]
    # any program: three builds made elsewhere; --time wall when it prints no JSON time_s
    python3 bench/probe_overhead.py --build build --out OUT --name hpcg --time wall \\
        --plain P/xhpcg --full F/xhpcg --filtered K/xhpcg --workdir W -- 16 16 16 0
    # the table of every result under OUT
    python3 bench/probe_overhead.py --table OUT
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIRUN = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
BUILDS = ("plain", "full", "filtered")
# Libraries an app of apps/ links beyond -lm (as `perfcast validate` builds them).
APP_LIBS = {"lu": ["-lblas"], "fft3d": ["-lfftw3"]}
# Each app's input when none is given: small (callgrind runs about 50x slower), with its
# timed loop the larger part of its instructions.
APP_INPUTS = {
    "wave3d": "--n 32 --steps 10 --repeats 1",
    "cg": "--n 24 --iters 25 --repeats 1 --dot ordered",
    "mg": "--n 32 --cycles 2 --repeats 1",
    "nbody": "--bodies 256 --steps 5 --repeats 1 --seed 12345",
    "bfs": "--scale 10 --roots 2 --repeats 1",
    "lu": "--n 256 --nb 32 --repeats 1",
    "fft3d": "--n 32 --repeats 1",
}


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        sys.exit(f"probe_overhead: {' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout


def learned_dataset(app):
    """The dataset the app's validate.toml names under [learned]."""
    toml = os.path.join(ROOT, "apps", app, "validate.toml")
    section = None
    for line in open(toml):
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "learned" and line.startswith("dataset"):
            return os.path.normpath(os.path.join(os.path.dirname(toml), line.split("=", 1)[1].strip().strip('"')))
    sys.exit(f"probe_overhead: {toml} has no [learned] dataset")


def build_app(app, build, out):
    """Plain, full and filtered builds of apps/APP into OUT; returns their paths and the model."""
    src = os.path.join(ROOT, "apps", app, f"{app}.c")
    libs = ["-lm"] + APP_LIBS.get(app, [])
    perfcast = os.path.join(build, "bin", "perfcast")
    dataset = learned_dataset(app)
    plain_jsonl = os.path.join(out, f"{app}-dataset.jsonl")
    with gzip.open(dataset, "rt") if dataset.endswith(".gz") else open(dataset) as f, open(plain_jsonl, "w") as g:
        g.write(f.read())
    model = os.path.join(out, "model.json")
    with open(os.path.join(out, "model.txt"), "w") as f:
        f.write(run([perfcast, "learn", plain_jsonl, "-o", model, "--time-filter", "0.1", "--importance-filter",
                     "0.95", "--folds", "0"]))
        f.write(run([perfcast, "learn", "show", model]))
    os.remove(plain_jsonl)
    paths = {b: os.path.join(out, f"{app}_{b}") for b in BUILDS}
    env = dict(os.environ, OMPI_CC="clang-19")
    run(["mpicc.openmpi", "-O2", "-g", src, "-o", paths["plain"]] + libs, env=env)
    mpicc = os.path.join(build, "bin", "perfcast-mpicc")
    run([mpicc, "-O2", src, "-o", paths["full"]] + libs)
    run([mpicc, "-O2", src, "-o", paths["filtered"]] + libs, env=dict(os.environ, PERFCAST_FEATURES_KEEP=model))
    return paths, model


def runtime_symbols(build):
    """Function names defined by the probes' runtime (linked into every instrumented program)."""
    names = set()
    for lib in glob.glob(os.path.join(build, "lib", "libperfcast_features*.a")):
        for line in run(["nm", "--defined-only", lib]).splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                names.add(parts[2])
    if not names:
        sys.exit(f"probe_overhead: no libperfcast_features*.a with symbols under {build}/lib")
    return names


def count(perfcast, binary, args, np, workdir, runtime, timeout):
    """Instructions and accesses of one run under callgrind, summed over ranks, per part."""
    out = run([perfcast, "counts", "-n", str(np), "--json", "--all", "--no-inlining", "--no-cache-sim", "-q",
               "--timeout", str(timeout), "--", binary] + args, cwd=workdir)
    parts = {k: 0 for k in ("app_instructions", "app_accesses", "runtime_instructions", "process_instructions")}
    for rank in json.loads(out)["per_rank"]:
        parts["process_instructions"] += rank["total"]["instructions"]
        for f in rank["functions"]:
            if f["object"] != rank["main_object"]:
                continue
            if f["function"] in runtime:
                parts["runtime_instructions"] += f["instructions"]
            else:
                parts["app_instructions"] += f["instructions"]
                parts["app_accesses"] += f["loads"] + f["stores"]
    return parts


def timed_run(binary, args, np, workdir, dataset, time_source):
    env = dict(os.environ, PERFCAST_FEATURES_DATASET=dataset)
    start = time.perf_counter()
    out = run(MPIRUN + ["-x", "PERFCAST_FEATURES_DATASET", "-n", str(np), binary] + args, cwd=workdir, env=env)
    wall = time.perf_counter() - start
    if time_source == "wall":
        return wall
    last = [line for line in out.splitlines() if line.startswith("{")]
    if not last or "time_s" not in json.loads(last[-1]):
        sys.exit(f"probe_overhead: {binary} printed no JSON line with time_s (use --time wall)")
    return json.loads(last[-1])["time_s"]


def records(path):
    """Bytes and features per record of a dataset file (one JSON line per run)."""
    if not os.path.exists(path):
        return None
    lines = [line for line in open(path) if line.startswith("{")]
    if not lines:
        return None
    features = [len(json.loads(line)["record"]["features"]) for line in lines]
    return {"runs": len(lines), "bytes_per_run": sum(len(l) for l in lines) / len(lines),
            "features": statistics.median(features)}


def quartiles(values):
    if len(values) < 2:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], statistics.median(values), q[2]


def measure(opts, name, paths, model):
    out = os.path.join(opts.out, name)
    os.makedirs(out, exist_ok=True)
    workdir = opts.workdir or tempfile.mkdtemp(prefix="probe_overhead.")
    os.makedirs(workdir, exist_ok=True)
    perfcast = os.path.join(opts.build, "bin", "perfcast")
    runtime = runtime_symbols(opts.build)
    result = {"name": name, "args": opts.args, "np": opts.np, "time": opts.time, "model": model,
              "builds": {b: {"binary": paths[b], "counts": [], "time_s": []} for b in BUILDS}}
    for r in range(opts.count_runs):
        for b in BUILDS:
            print(f"probe_overhead: {name}: callgrind {b} ({r + 1}/{opts.count_runs})", file=sys.stderr)
            result["builds"][b]["counts"].append(count(perfcast, paths[b], opts.args, opts.np, workdir, runtime,
                                                       opts.timeout))
    for b in BUILDS:
        path = os.path.join(out, f"records_{b}.jsonl")
        if os.path.exists(path):
            os.remove(path)
    # Rotating turns, so a change in the host's load falls on every build.
    for r in range(opts.runs):
        order = BUILDS[r % 3:] + BUILDS[:r % 3]
        for b in order:
            result["builds"][b]["time_s"].append(
                timed_run(paths[b], opts.args, opts.np, workdir, os.path.join(out, f"records_{b}.jsonl"), opts.time))
    for b in BUILDS:
        result["builds"][b]["records"] = records(os.path.join(out, f"records_{b}.jsonl"))
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    if not opts.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def summary(result):
    """One row per instrumented build: the overheads of its counts and times against plain."""
    plain = result["builds"]["plain"]
    rows = []
    def part(b, key):
        v = [c[key] for c in result["builds"][b]["counts"]]
        return min(v), max(v)
    for b in ("full", "filtered"):
        build = result["builds"][b]
        row = {"name": result["name"], "build": b}
        for key in ("app_instructions", "app_accesses", "process_instructions"):
            lo, hi = part(b, key)
            plo, phi = part("plain", key)
            row[key] = (lo, hi)
            row[key + "_overhead"] = (lo / phi - 1, hi / plo - 1)
        rt = part(b, "runtime_instructions")
        row["runtime_instructions"] = rt
        lo, hi = part(b, "app_instructions")
        plo, phi = part("plain", "app_instructions")
        row["app_runtime_overhead"] = ((lo + rt[0]) / phi - 1, (hi + rt[1]) / plo - 1)
        row["plain_app_instructions"] = (plo, phi)
        row["time"] = quartiles(build["time_s"])
        row["plain_time"] = quartiles(plain["time_s"])
        paired = [t / p - 1 for t, p in zip(build["time_s"], plain["time_s"])]
        row["time_overhead"] = quartiles(paired)
        row["records"] = build["records"]
        rows.append(row)
    return rows


def pct(pair):
    lo, hi = pair
    return f"{lo * 100:+.2f} %" if abs(hi - lo) < 5e-5 else f"{lo * 100:+.2f}..{hi * 100:+.2f} %"


def ms(q):
    return f"{q[1] * 1e3:.1f} ({q[0] * 1e3:.1f}..{q[2] * 1e3:.1f})"


def table(results):
    lines = ["| app | build | app instructions (plain) | instructions: app code | + runtime | whole process "
             "| memory accesses: app code | time ms, median (IQR): plain | this build | paired time overhead, "
             "median (IQR) | record: bytes per run (features) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for result in results:
        for row in summary(result):
            rec = row["records"]
            rec_text = f"{rec['bytes_per_run']:.0f} ({rec['features']:.0f})" if rec else "—"
            q = row["time_overhead"]
            lines.append(
                f"| {row['name']} | {row['build']} | {row['plain_app_instructions'][0]:,} | "
                f"{pct(row['app_instructions_overhead'])} | {pct(row['app_runtime_overhead'])} | "
                f"{pct(row['process_instructions_overhead'])} | {pct(row['app_accesses_overhead'])} | "
                f"{ms(row['plain_time'])} | {ms(row['time'])} | "
                f"{q[1] * 100:+.1f} % ({q[0] * 100:+.1f}..{q[2] * 100:+.1f}) | {rec_text} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="perfcast's build directory")
    p.add_argument("--out", help="results directory (one folder per app)")
    p.add_argument("--app", help="an app of apps/: build its three variants")
    p.add_argument("--name", help="the program's name in the results (with --plain/--full/--filtered)")
    p.add_argument("--plain", help="the program built without probes")
    p.add_argument("--full", help="built with every probe")
    p.add_argument("--filtered", help="built with the kept probes only")
    p.add_argument("--model", help="the model file the filtered build kept (recorded, not used)")
    p.add_argument("--np", type=int, default=2, help="ranks")
    p.add_argument("--runs", type=int, default=7, help="timed runs per build, in turns")
    p.add_argument("--count-runs", type=int, default=1, help="callgrind runs per build (2: shows the spread)")
    p.add_argument("--time", choices=("app", "wall"), default="app",
                   help="app: the time_s of the JSON line the app prints last; wall: mpirun's wall time")
    p.add_argument("--workdir", help="working directory of the runs (kept); default: a scratch one")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per callgrind run")
    p.add_argument("--table", nargs="+", metavar="DIR", help="print the table of the results under DIR")
    p.add_argument("args", nargs="*", help="the program's arguments, after --")
    opts = p.parse_args()
    if opts.table:
        results = [json.load(open(f)) for d in opts.table for f in sorted(glob.glob(os.path.join(d, "*", "result.json")))]
        print(table(results))
        return
    if not opts.out:
        p.error("--out is required")
    opts.build = os.path.abspath(opts.build)
    opts.out = os.path.abspath(opts.out)
    if opts.app:
        if opts.app not in APP_INPUTS:
            p.error(f"--app: one of {', '.join(APP_INPUTS)}")
        opts.args = opts.args or APP_INPUTS[opts.app].split()
        out = os.path.join(opts.out, opts.app)
        os.makedirs(out, exist_ok=True)
        paths, model = build_app(opts.app, opts.build, out)
        name = opts.app
    else:
        if not (opts.name and opts.plain and opts.full and opts.filtered):
            p.error("give --app, or --name with --plain, --full and --filtered")
        paths = {b: os.path.abspath(getattr(opts, b)) for b in BUILDS}
        model, name = opts.model, opts.name
    print(table([measure(opts, name, paths, model)]))


if __name__ == "__main__":
    main()
