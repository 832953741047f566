#!/usr/bin/env python3
"""Static model validation (issue 5, "must show"): for wave3d at five grid sizes and for
nbody and cg, the analysed program model's counts and time against ground truth.

Per app and size:
  1. `perfcast analyze apps/<app>/<app>.c -o <app>.model.json` (analysis time recorded);
  2. `perfcast predict <model> --machine <M> --np R --param ... --baseline-param ... --json`
     at R = 1, 2: the timed part, the run's counts minus those of a shorter run (the
     "baseline"), priced by predict (counts are linear in the time-step count, so the
     difference is exact);
  3. ground truth: `perfcast counts --no-inlining --json --subtract-run "<baseline args>"`
     (callgrind; every instruction classified), summed over the program's own functions
     (main object: MPI and libc are not in the model) — flops, load bytes, store bytes;
  4. measured time: `perfcast measure --json -n R` (the app's own time_s of its timed
     region, median over runs); just before the runs (and again after, for the drift),
     `perfcast calibrate --noise-only` measures the cores' noise now, which predict turns
     into the `refined x noise` column (--no-noise skips it); with --noise-history N, N
     such probes spread over minutes are averaged into the machine file (calibrate
     --noise-only --accumulate) for the `refined x noise over N probes` column;
  5. table: counts error, time by the paper's plain formula with all-L1 and all-DRAM
     bandwidth, the working-set refinement (predict's default, memory level per loop),
     against measured time.

Time of the timed region: run minus baseline (predict's whole-program time would add
set-up). Every column is an estimate `perfcast predict --baseline-param` gives of it: predict
evaluates each rank's counts at the run's parameters and at the baseline's (the bindings that
differ: the step count and what follows it), subtracts them site by site and call by call,
and prices the difference with every estimate it has, so each whole-rank max (the plain
formula, per memory level, MCA, footprints) is taken over the loop's own counts, and the
noise stretch is the loop's own. A difference of two predicted totals is not that (at wave3d
n=128 the set-up's memory time hides the loop's in-core time: MCA 163 ms on the loop's counts,
95 ms as a difference of totals, on the Zen 3 file of bench/results). The script recombines nothing: the one factor it applies is
nbody's timed region's force evaluations over its steps (steps + 1 over steps, `timed_units`),
a fact of the app. The noise columns are predict's `noisy` estimate on the machine file with
the noise measured then.

Parameters the analysis leaves unbound (`perfcast model params`) are bound from the app's
arguments by apps/<app>/bindings.py (each binding says how; a bound name the model lacks
stops the run, naming the model's parameters). Any remaining parameter gets
the placeholder 1, and the script checks it cannot matter: it re-evaluates the timed part
with the placeholder 2 and lists every parameter that changes it (those would be wrong
bindings, reported in the output).

Run on a quiet machine (figures taken while other jobs run are "measured under load"):

    python3 bench/static_validation.py --build build-static --machine build-static/local.toml

or, calibrating the host first (a VM's host can change between sessions; the header names
the CPU each run saw):

    python3 bench/static_validation.py --build build --calibrate \
        --machine build/this_host.toml --repeats 9 --mcpu znver3

On a host whose co-tenants come and go by the minute, add --passes 3: each row's 9 runs are then
3 x 3 spread over the whole measurement (every other pass in reverse order), so every row samples
the same stretch of the host's time rather than its own half minute, and the 1- and 2-rank rows
of a size (and the naive T1/R baseline made from them) are compared under the same mix of states.

Writes bench/results/<date>-static-validation/static_validation.md (and .json, and the noise
files it priced with; --out) and prints the table. The parameter bindings and analysis flags
of each app are in apps/<app>/bindings.py.
"""
import argparse
import datetime
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402


# ----------------------------------------------------------------------------- apps
# Each app: source, sizes, the argument that sets the timed loop's length, the counts run
# (S steps vs baseline B) and the time run; its analysis flags and parameter bindings come
# from apps/<app>/bindings.py: bind(size, R, steps) -> {param: (value, how)}, `steps` being
# the timed-loop length.

def shown_path(path):
    """A path as the report prints it: relative to the repository when inside it, else absolute
    (a relative path climbing out of the repository, ../../tmp/..., reads as nonsense)."""
    full = os.path.abspath(path)
    return os.path.relpath(full, ROOT) if full.startswith(ROOT + os.sep) else full


def load_bindings(app):
    """apps/<app>/bindings.py: bind(size, R, steps) -> {param: (value, how)} and ANALYZE_FLAGS.
    The bound names are the analyser's (the source's names, docs/program-model.md "Parameter
    names"), so they live beside the source they follow; bindings() checks each against the
    model. A value may be an expression predict evaluates per rank (`rank`, `size`, `dims3_*`)."""
    path = os.path.join(ROOT, "apps", app, "bindings.py")
    spec = importlib.util.spec_from_file_location(f"perfcast_bench_{app}_bindings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BINDINGS = {app: load_bindings(app) for app in ("wave3d", "nbody", "cg")}


APPS = {
    "wave3d": {
        "source": "apps/wave3d/wave3d.c",
        "analyze_flags": BINDINGS["wave3d"].ANALYZE_FLAGS,
        "sizes": [8, 16, 32, 64, 128],
        "size_args": lambda n: ["--n", str(n)],
        "label": lambda n: f"n={n}",
        "steps_arg": "--steps",
        "count_steps": (2, 0),   # counts: 2 steps minus 0 steps
        "extra_args": ["--repeats", "1"],
        # time run: about 0.05-0.5 s of timed work per repeat at every size. Until stop 20
        # capped at 2000 steps, which left 8^3 and 16^3 at 2-15 ms: shorter than the host's
        # slow episodes (a 4x8x8 sweep ran 1.15 or 2.1 ms per 2000 steps, switching within
        # a process), so each sample caught one state instead of averaging them.
        "time_steps": lambda n: min(200000, max(2, int(4e7 / n ** 3))),
        "time_extra": ["--repeats", "3"],
        "timed_units": lambda s: s,  # the timed region runs `steps` iterations of the loop
        "bind": BINDINGS["wave3d"].bind,
        "steps_param": "opt.steps",
    },
    "nbody": {
        "source": "apps/nbody/nbody.c",
        "analyze_flags": BINDINGS["nbody"].ANALYZE_FLAGS,
        "sizes": [256, 1024],
        "size_args": lambda n: ["--bodies", str(n)],
        "label": lambda n: f"N={n}",
        "steps_arg": "--steps",
        "count_steps": (3, 1),
        "extra_args": ["--repeats", "1", "--seed", "12345"],
        "time_steps": lambda n: min(500, max(2, int(4e7 / n ** 2))),
        "time_extra": ["--repeats", "1", "--seed", "12345"],
        # the timed region (integrate) runs steps+1 force evaluations: one before the loop
        "timed_units": lambda s: s + 1,
        "bind": BINDINGS["nbody"].bind,
        "steps_param": "p.steps",
    },
    "cg": {
        "source": "apps/cg/cg.c",
        "analyze_flags": BINDINGS["cg"].ANALYZE_FLAGS,
        "sizes": [16, 32],
        "size_args": lambda n: ["--n", str(n)],
        "label": lambda n: f"n={n}",
        "steps_arg": "--iters",
        "count_steps": (4, 2),
        "extra_args": ["--repeats", "1", "--dot", "ordered"],
        "time_steps": lambda n: min(200000, max(10, int(2e7 / n ** 3))),  # 1000 until stop 20 (16^3: 27 ms)
        "time_extra": ["--repeats", "3", "--dot", "ordered"],
        "timed_units": lambda s: s,
        "bind": BINDINGS["cg"].bind,
        "steps_param": "o.iters",
    },
}


# ----------------------------------------------------------------------------- helpers

def run(cmd, timeout=1800, check=True):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if check and p.returncode != 0:
        sys.exit(f"static_validation: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return p, time.time() - t0


def pct(pred, meas):
    if meas == 0:
        return "exact" if pred == 0 else "n/a"
    e = 100.0 * (pred - meas) / abs(meas)
    return "0 %" if abs(e) < 0.005 else f"{e:+.1f} %"


def fmt_count(x):
    return f"{x:.4g}"


def fmt_s(x):
    if x is None:
        return "-"
    return f"{x * 1e3:.3g} ms" if abs(x) < 1 else f"{x:.3g} s"


class Ctx:
    def __init__(self, a):
        self.a = a
        self.perfcast = os.path.join(a.build, "bin", "perfcast")
        self.apps_dir = os.path.join(a.build, "apps")
        self.work = a.work
        os.makedirs(self.work, exist_ok=True)
        self.predict_cache = {}
        self.params_cache = {}

    def predict(self, model, R, params, base_params=None, machine=None):
        """predict --json --simulate on the run's machine file, or predict --json on `machine`
        (a file rewritten between rows, so never cached; its columns need no simulation). With
        `base_params`, the timed part: `--baseline-param` for every binding the baseline
        changes, so every count and estimate in the JSON is of the run minus the baseline."""
        baseline = baseline_changes(params, base_params) if base_params is not None else {}
        key = (model, R, tuple(sorted(params.items())), tuple(sorted(baseline.items())))
        if machine is None and key in self.predict_cache:
            return self.predict_cache[key]
        cmd = [self.perfcast, "predict", model, "--machine", machine or self.a.predict_machine, "--np", str(R),
               "--json"] + (["--simulate"] if machine is None else [])
        for k, v in sorted(params.items()):
            cmd += ["--param", f"{k}={v}"]
        for k, v in sorted(baseline.items()):
            cmd += ["--baseline-param", f"{k}={v}"]
        p, _ = run(cmd)
        j = json.loads(p.stdout)
        if machine is None:
            self.predict_cache[key] = j
        return j


def baseline_changes(run_params, base_params):
    """The bindings the baseline changes (the time-step count and what follows it), for
    predict's --baseline-param."""
    changed = {k: v for k, v in base_params.items() if run_params.get(k) != v}
    if set(run_params) - set(base_params):
        sys.exit(f"static_validation: the baseline binds no {', '.join(sorted(set(run_params) - set(base_params)))}")
    return changed


def estimate_on(ctx, machine, model, R, run_params, base_params, name):
    """predict's estimate `name` of the timed part (run minus baseline) on another machine file."""
    return estimate(ctx.predict(model, R, run_params, base_params, machine), name)["time_s"]


def model_params(ctx, model):
    """`perfcast model params`, once per model file: bindings() asks for every row and step count."""
    if model not in ctx.params_cache:
        p, _ = run([ctx.perfcast, "model", "params", model, "--json"])
        ctx.params_cache[model] = json.loads(p.stdout)
    return ctx.params_cache[model]


def estimate(j, name):
    """predict's estimate `name` (docs/json.md, `estimates[]`)."""
    for e in j["estimates"]:
        if e["name"] == name:
            return e
    sys.exit(f"static_validation: predict's JSON has no estimate {name!r} (this script needs a perfcast with "
             f"`estimates`; it has {', '.join(e['name'] for e in j['estimates'])})")


def timed_part(j):
    """Counts and times of the timed part from predict's JSON of it (`--baseline-param`: every
    count and estimate is of the run minus the baseline, priced by predict on the difference of
    the counts): rank by rank the counts, and the estimates by name."""
    out = {"ranks": []}
    for r in j["ranks"]:
        d = {k: r[k] for k in ("flops", "flops_double", "load_bytes", "store_bytes", "mpi_calls", "sent_bytes")}
        # Flops as callgrind counts them in the program's own code (predict's instruction_flops).
        d["counted_flops"] = r["instruction_flops"]
        out["ranks"].append(d)
    # The plain formula on the working set's level, and with every byte from one level.
    out["time_ws_s"] = estimate(j, "formula")["time_s"]
    out["time_level_s"] = dict(j["time_s_if_all_in"])
    out["levels"] = list(j["ranks"][0]["memory_s_if_all_in"].keys())
    # The refinements alone and together (None where predict says not available).
    out["time_mca_s"] = estimate(j, "mca")["time_s"]
    out["time_fp_s"] = estimate(j, "footprint")["time_s"]
    out["time_refined_s"] = estimate(j, "refined")["time_s"]
    # Under the machine's measured noise: the timed part's own stretch, predict's.
    out["time_noisy_s"] = estimate(j, "noisy")["time_s"]
    out["noise_stretch"] = j.get("noise_stretch")
    # The model's calls on the simulator: the run's simulated time minus the baseline's (predict's).
    out["time_sim_s"] = estimate(j, "simulated")["time_s"]
    return out


def bindings(ctx, app, model, size, R, steps, unknown_report):
    """Parameters for the model: from the app's table, placeholders (1) for the rest."""
    cfg = APPS[app]
    table = cfg["bind"](size, R, steps)
    check_bound_names(app, model, table, model_params(ctx, model))
    params = {}
    for p in model_params(ctx, model):
        name = p["name"]
        if name in table:
            params[name] = table[name][0]
        elif "default" not in p:
            params[name] = 1
            unknown_report.add(name)
    return params, table


def check_bound_names(app, model, table, model_parameters):
    """Stops the run when apps/<app>/bindings.py binds a name the model does not have: a
    renamed variable, or a loop added before another in its function (<function>.loop<k>
    counts the function's loops), and a binding that no longer applies would leave its
    parameter at the placeholder without a word."""
    names = {p["name"] for p in model_parameters}
    absent = sorted(set(table) - names)
    if absent:
        sys.exit(f"static_validation: apps/{app}/bindings.py binds {', '.join(absent)}, which the model "
                 f"{shown_path(model)} does not have (a variable renamed, or loops or calls added "
                 f"before it in its function: docs/program-model.md, 'Parameter names'). The model's parameters (perfcast model params {shown_path(model)}): "
                 f"{', '.join(sorted(names))}")


def sensitivity(ctx, app, model, size, R, base_steps, run_steps, placeholders):
    """Placeholder parameters that change the timed part (they would need a real binding)."""
    cfg = APPS[app]

    def delta(over):
        run_params, _ = bindings(ctx, app, model, size, R, run_steps, set())
        base_params, _ = bindings(ctx, app, model, size, R, base_steps, set())
        run_params.update(over)
        base_params.update(over)
        r0 = timed_part(ctx.predict(model, R, run_params, base_params))["ranks"][0]
        return (round(r0["flops"], 3), round(r0["load_bytes"], 3), round(r0["store_bytes"], 3),
                round(r0["mpi_calls"], 3), round(r0["sent_bytes"], 3))

    ref = delta({})
    changed = []
    for name in sorted(placeholders):
        if delta({name: 2}) != ref:
            changed.append(name)
    return changed


def measured_counts(ctx, app, size, R, steps, base_steps):
    cfg = APPS[app]
    binary = os.path.join(ctx.apps_dir, app)
    args = cfg["size_args"](size) + [cfg["steps_arg"], str(steps)] + cfg["extra_args"]
    base = cfg["size_args"](size) + [cfg["steps_arg"], str(base_steps)] + cfg["extra_args"]
    cmd = [ctx.perfcast, "counts", "--no-inlining", "--json", "-q", "--subtract-run", " ".join(base)]
    if R > 1:
        cmd += ["-n", str(R)]
    cmd += ["--", binary] + args
    p, secs = run(cmd, timeout=3600)
    j = json.loads(p.stdout)
    per_rank = []
    for r in j["per_rank"]:
        s = {"flops": 0, "load_bytes": 0, "store_bytes": 0, "functions": {}}
        for f in r["functions"]:
            for k in ("flops", "load_bytes", "store_bytes"):
                s[k] += f[k]
            s["functions"][f["function"]] = {k: f[k] for k in ("flops", "load_bytes", "store_bytes")}
        per_rank.append(s)
    return per_rank, " ".join(cmd[:1] + [os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd[1:]]), secs


def measured_time(ctx, app, size, R, steps, repeats):
    cfg = APPS[app]
    binary = os.path.join(ctx.apps_dir, app)
    args = cfg["size_args"](size) + [cfg["steps_arg"], str(steps)] + cfg["time_extra"]
    cmd = [ctx.perfcast, "measure", "--json", "-q", "-n", str(R), "--repeats", str(repeats), "--", binary] + args
    p, _ = run(cmd, timeout=1800)
    j = json.loads(p.stdout)
    return j, args


def noise_now(ctx, model, R, run_params, base_params):
    """The timed part's refined time under the noise of R ranks at this moment: `perfcast
    calibrate --noise-only --quick` (0.5 s on every core) into a copy of the machine file,
    then predict's `noisy` estimate on it. Not a prediction (it probes the machine at run
    time, as the naive baseline needs a run): it shows how much of the error the host's
    noise at the time of the row explains."""
    path = os.path.join(ctx.work, "machine_noise_row.toml")
    p, _ = run([ctx.perfcast, "calibrate", "--noise-only", ctx.a.machine, "--quick", "-o", path, "--json"])
    return estimate_on(ctx, path, model, R, run_params, base_params, "noisy"), json.loads(p.stdout)


def network_now(ctx):
    """A copy of the machine file with its MPI figures measured again (`perfcast
    calibrate --network-only --quick`, ~5 s): on a VM the latency between two cores
    moves ~3x with where the host places them, minutes apart. Not a prediction
    either: it shows how much of a multi-rank row's error that explains."""
    path = os.path.join(ctx.work, "machine_network_row.toml")
    run([ctx.perfcast, "calibrate", "--network-only", ctx.a.predict_machine, "--quick", "-o", path, "--json"])
    return path


def noise_history(a, probes, gap_s):
    """`probes` noise measurements (3 s each, `gap_s` apart) averaged into a copy of
    the machine file (`perfcast calibrate --noise-only --accumulate`): the host over
    minutes, the forecast a machine file kept up to date by cron would give. With
    --network-history, each probe also measures MPI within the node (`calibrate
    --network-only --quick --accumulate`, ~5 s) into the same file, averaged with the
    calibration's figures: the vCPUs' placement over those minutes, not one moment's."""
    path = os.path.join(a.work, "machine_with_noise_history.toml")
    perfcast = os.path.join(a.build, "bin", "perfcast")
    means = []
    for i in range(probes):
        if i:
            time.sleep(gap_s)
        # The first replaces the file's noise (it may predate divider_stretch); the rest accumulate.
        src = a.machine if i == 0 else path
        p, _ = run([perfcast, "calibrate", "--noise-only", src, "-o", path, "--json"] + (["--accumulate"] if i else []))
        means.append(json.loads(p.stdout)["mean_stretch"])
        words = f"mean stretch {means[-1]:.3f}"
        if a.network_history:
            q, _ = run([perfcast, "calibrate", "--network-only", path, "--quick", "--accumulate", "-o", path, "--json"])
            step = json.loads(q.stdout)["exchange_512B_s"]
            a.network_steps.append(step["probe"])
            words += f"; 512 B exchange step {step['probe'] * 1e9:.0f} ns (averaged: {step['file'] * 1e9:.0f} ns)"
        print(f"[{datetime.datetime.utcnow():%H:%M:%S}] noise probe {i + 1}/{probes}: {words}",
              file=sys.stderr, flush=True)
    return path, means


def host_cpu():
    """The CPU this ran on, as lscpu names it: a VM's host can change between runs."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return "unknown (no lscpu)"
    f = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    get = lambda k: f.get(k, "?").strip()
    simd = "AVX-512" if "avx512f" in get("Flags") else ("AVX2" if "avx2" in get("Flags") else "SSE")
    return f"{get('Model name')} (family {get('CPU family')}, model {get('Model')}), {simd}"


def find_app_time(j):
    """The app's own time_s from `perfcast measure --json`: its median, whether
    the run was oversubscribed, and the statistics (median, iqr, min, samples)."""
    for key in ("app_time_s", "time_s"):
        if key in j and isinstance(j[key], dict) and "median" in j[key]:
            stats = {k: j[key].get(k) for k in ("median", "iqr", "min", "max", "samples")}
            return j[key]["median"], j.get("oversubscribed", False), stats
    raise KeyError(f"no app_time_s in measure output: {list(j)}")


def pooled_stats(samples):
    """The timing module's summary over samples pooled from several passes: its
    quartiles are type 7 (src/measure/stats.h), statistics' "inclusive" method."""
    q1, median, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return {"median": median, "iqr": q3 - q1, "min": min(samples), "max": max(samples), "samples": list(samples)}


# ----------------------------------------------------------------------------- main

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-static", help="build directory with bin/perfcast and apps/")
    ap.add_argument("--machine", default=None,
                    help="machine file (perfcast calibrate; default: BUILD/local.toml, a file of this host)")
    ap.add_argument("--apps", default="wave3d,nbody,cg")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--count-ranks", default="1", help="rank counts for the callgrind ground truth")
    ap.add_argument("--repeats", type=int, default=3, help="perfcast measure repeats")
    ap.add_argument("--passes", type=int, default=1,
                    help="spread each row's repeats over this many passes through all rows (the order reversed on "
                         "every other pass), pooled: on a host whose state moves by the minute every row then samples "
                         "the same stretch of time, instead of its own half minute")
    ap.add_argument("--sizes", default="", help="override sizes: APP:N[,N...], apps separated by ';', e.g. 'wave3d:8,16;cg:16'")
    ap.add_argument("--work", default="/tmp/perfcast-static-validation")
    ap.add_argument("--out", default=os.path.join(result_paths.relative(result_paths.new_run_dir("static-validation")),
                                                 "static_validation"),
                    help="output path without .md/.json (default: bench/results/<today>-static-validation/...)")
    ap.add_argument("--no-time", action="store_true", help="skip the measured runs")
    ap.add_argument("--noise-history", type=int, default=0, metavar="N",
                    help="before the runs, N noise probes (3 s each, --noise-gap apart) averaged into the machine "
                         "file (calibrate --noise-only --accumulate): the `refined x noise over N probes` column")
    ap.add_argument("--noise-gap", type=float, default=15, help="seconds between the --noise-history probes")
    ap.add_argument("--network-history", action="store_true",
                    help="with --noise-history: each probe also measures MPI within the node (calibrate "
                         "--network-only --quick --accumulate) into the same file: the `refined x noise, network "
                         "too, over N probes` column")
    ap.add_argument("--network-now", action="store_true",
                    help="before each multi-rank row, measure MPI within the node again (calibrate --network-only "
                         "--quick, ~5 s) and predict with it: the `refined, network of the moment` column")
    ap.add_argument("--no-noise", action="store_true",
                    help="do not measure the cores' noise before the runs (perfcast calibrate --noise-only); "
                         "the refined x noise column then uses the machine file's own noise, if any")
    ap.add_argument("--calibrate", action="store_true",
                    help="first calibrate this host (perfcast calibrate, ~30 s) into --machine and predict with that: "
                         "the host behind a VM can change between sessions (this one went from a Zen 3 with AVX2 to a "
                         "Zen 5 with AVX-512), and a machine file from another CPU mispredicts every row")
    ap.add_argument("--host-cycles", action="store_true",
                    help="analyze with --machine MACHINE: the machine file's measured instruction cycles (FP add, "
                         "multiply, divide, sqrt latencies and the divider's interval) put into MCA's model, for a "
                         "host newer than the LLVM release priced on an older model (a Zen 5 on znver3 under LLVM 14)")
    ap.add_argument("--mcpu", default="", help="LLVM CPU for the MCA pricing (default: perfcast analyze's, the host's "
                    "as LLVM names it (LLVM 19: znver5 on a Zen 5) or, on an AMD newer than LLVM knows, its newest AMD model)")
    a = ap.parse_args()
    if a.repeats < 1 or a.passes < 1:
        ap.error(f"--repeats and --passes must be at least 1 (got --repeats {a.repeats}, --passes {a.passes})")
    if a.network_history and a.noise_history < 1:
        ap.error("--network-history measures MPI at each --noise-history probe: give --noise-history N too")
    a.network_steps = []  # each network probe's 512 B exchange step, for the report
    # Each pass's share of the repeats, rounded up.
    a.pass_repeats = -(-a.repeats // a.passes)
    a.build = os.path.join(ROOT, a.build) if not os.path.isabs(a.build) else a.build
    if a.machine is None:
        a.machine = os.path.join(a.build, "local.toml")
    a.machine = os.path.join(ROOT, a.machine) if not os.path.isabs(a.machine) else a.machine
    return a


def prepare_machines(a):
    """Calibrate (--calibrate), then the noise now and over minutes (--noise-history): returns
    (noise_before, history_machine, history_means) and sets a.predict_machine."""
    if a.calibrate:
        print(f"[{datetime.datetime.utcnow():%H:%M:%S}] calibrating this host into {a.machine}", file=sys.stderr,
              flush=True)
        run([os.path.join(a.build, "bin", "perfcast"), "calibrate", "-o", a.machine])
    # The host's noise now, not when the machine file was calibrated: a co-tenant
    # comes and goes by the minute. Everything else in the machine file is kept.
    a.predict_machine = a.machine
    noise_before = None
    os.makedirs(a.work, exist_ok=True)
    if not a.no_time and not a.no_noise:
        a.predict_machine = os.path.join(a.work, "machine_with_noise_now.toml")
        p, _ = run([os.path.join(a.build, "bin", "perfcast"), "calibrate", "--noise-only", a.machine,
                    "-o", a.predict_machine, "--json"])
        noise_before = json.loads(p.stdout)
    history_machine, history_means = None, []
    if not a.no_time and a.noise_history > 0:
        history_machine, history_means = noise_history(a, a.noise_history, a.noise_gap)
    return noise_before, history_machine, history_means


def first_pass(a, ctx, history_machine):
    """Analyse each app, predict and count every row, and time it once (a.pass_repeats runs):
    returns (results, analysis, binding_notes)."""
    ranks = [int(x) for x in a.ranks.split(",")]
    count_ranks = [int(x) for x in a.count_ranks.split(",") if x]  # empty: no callgrind counts
    override = {}
    for item in filter(None, a.sizes.split(";")):
        app, sep, s = item.partition(":")
        if not sep or app not in APPS or not all(x.strip().isdigit() for x in s.split(",")):
            sys.exit(f"static_validation.py: --sizes: '{item}' is not APP:N[,N...] (apps: {', '.join(APPS)}; "
                     "several apps are separated by ';', e.g. --sizes 'wave3d:8,16;cg:16')")
        override[app] = [int(x) for x in s.split(",")]

    analysis, binding_notes, results = {}, {}, []
    for app in a.apps.split(","):
        cfg = APPS[app]
        model = os.path.join(ctx.work, f"{app}.model.json")
        mcpu = ["--mcpu", a.mcpu] if a.mcpu else []
        cmd = [ctx.perfcast, "analyze", cfg["source"], "-o", model] + cfg["analyze_flags"] + mcpu
        shown = mcpu
        if a.host_cycles:
            cmd += ["--machine", a.machine]
            shown = mcpu + ["--machine", shown_path(a.machine)]
        _, secs = run(cmd)
        analysis[app] = (secs, " ".join(["perfcast", "analyze", cfg["source"], "-o", f"{app}.model.json"] +
                                        cfg["analyze_flags"] + shown))
        S, B = cfg["count_steps"]
        sizes = override.get(app, cfg["sizes"])
        placeholders = set()
        for size in sizes:
            for R in ranks:
                bindings(ctx, app, model, size, R, S, placeholders)
        table = cfg["bind"](sizes[0], 1, S)
        sens = sensitivity(ctx, app, model, sizes[0], 1, B, S, placeholders)
        binding_notes[app] = {"bound": {k: v[1] for k, v in table.items()},
                              "placeholders": sorted(placeholders), "matter": sens}
        for size in sizes:
            for R in ranks:
                label = cfg["label"](size)
                # Counts: model run (S) minus baseline (B), rank 0.
                pr_run, _ = bindings(ctx, app, model, size, R, S, set())
                pr_base, _ = bindings(ctx, app, model, size, R, B, set())
                counts = timed_part(ctx.predict(model, R, pr_run, pr_base))
                meas = None
                counts_cmd = ""
                if R in count_ranks:
                    per_rank, counts_cmd, _ = measured_counts(ctx, app, size, R, S, B)
                    meas = per_rank[0]
                # Time: the timed region of a real run of T steps vs the model's.
                T = cfg["time_steps"](size)
                tm_run, _ = bindings(ctx, app, model, size, R, T, set())
                tm_base, _ = bindings(ctx, app, model, size, R, 0, set())
                tp = timed_part(ctx.predict(model, R, tm_run, tm_base))
                # The timed region's loop units over the steps the timed part holds (nbody: one force
                # evaluation more than its steps; 1 elsewhere): a fact of the app, not a price.
                scale = cfg["timed_units"](T) / T

                def scaled(v):
                    return v * scale if v is not None else None

                t_pred = {"ws": scaled(tp["time_ws_s"]), "mca": scaled(tp["time_mca_s"]), "fp": scaled(tp["time_fp_s"]),
                          "sim": scaled(tp["time_sim_s"]), "refined": scaled(tp["time_refined_s"]),
                          "noisy": scaled(tp["time_noisy_s"])}
                for lv, v in tp["time_level_s"].items():
                    t_pred[lv] = scaled(v)
                t_meas, over, targs, t_stats = None, False, [], None
                if not a.no_time:
                    if not a.no_noise:
                        noisy, _ = noise_now(ctx, model, R, tm_run, tm_base)
                        t_pred["noisy_now"] = scaled(noisy)
                    if a.network_now and R > 1:
                        now = network_now(ctx)
                        t_pred["network_now"] = scaled(estimate_on(ctx, now, model, R, tm_run, tm_base, "refined"))
                    if history_machine:
                        # The history file's noise (and, with --network-history, its averaged network).
                        t_pred["noisy_history"] = scaled(
                            estimate_on(ctx, history_machine, model, R, tm_run, tm_base, "noisy"))
                    mj, targs = measured_time(ctx, app, size, R, T, a.pass_repeats)
                    t_meas, over, t_stats = find_app_time(mj)
                levels = tp["levels"]
                row = {"app": app, "size": label, "size_value": size, "R": R, "count_steps": f"{S}-{B}",
                       "time_steps": T,
                       "pred": counts["ranks"][0], "meas": meas, "t_pred": t_pred, "t_meas": t_meas, "t_stats": t_stats,
                       "oversubscribed": over, "levels": levels, "counts_cmd": counts_cmd,
                       "noise_stretch": tp["noise_stretch"],
                       "time_args": targs}
                results.append(row)
                print(f"[{datetime.datetime.utcnow():%H:%M:%S}] {app} {label} R={R}: "
                      f"pred flops {counts['ranks'][0]['counted_flops']:.4g}"
                      + (f" meas {meas['flops']:.4g}" if meas else "")
                      + f"; t_pred {fmt_s(t_pred['ws'])} t_meas {fmt_s(t_meas)}", file=sys.stderr, flush=True)
    return results, analysis, binding_notes


def further_passes(a, ctx, results):
    # The other passes, alternately backwards so no row always runs early or late;
    # each row's samples pooled.
    timed = [r for r in results if r["t_stats"]]
    for k in range(2, a.passes + 1):
        order = timed[::-1] if k % 2 == 0 else timed
        for r in order:
            app, R = r["app"], r["R"]
            mj, _ = measured_time(ctx, app, r["size_value"], R, r["time_steps"], a.pass_repeats)
            _, over, stats = find_app_time(mj)
            r["t_stats"]["samples"] = r["t_stats"]["samples"] + stats["samples"]
            r["oversubscribed"] = r["oversubscribed"] or over
            print(f"[{datetime.datetime.utcnow():%H:%M:%S}] pass {k}/{a.passes}: {app} {r['size']} R={R}: "
                  f"{fmt_s(stats['median'])}", file=sys.stderr, flush=True)
    if a.passes > 1:
        for r in timed:
            r["t_stats"] = pooled_stats(r["t_stats"]["samples"])
            r["t_meas"] = r["t_stats"]["median"]


def noise_words(n):
    words = (f"mean stretch {n['mean_stretch']:.3f}, {100 * n['slow_fraction']:.0f} % of {n['samples']} quanta "
             f"of {n['quantum_s'] * 1e6:.0f} us above 1.25x")
    if n.get("divider_stretch_quantiles"):
        words += f" (a divide-bound quantum in turns with it: {n['divider_mean_stretch']:.3f})"
    return words


def report(a, results, analysis, binding_notes, noise_before, noise_after, history_machine, history_means,
           started, load):
    """The Markdown report of a run."""
    levels = results[0]["levels"] if results else []
    first = "L1" if "L1" in levels else (levels[0] if levels else "L1")
    last = "DRAM" if "DRAM" in levels else (levels[-1] if levels else "DRAM")
    lines = []
    cmdline = "python3 bench/static_validation.py " + " ".join(
        f"--{k.replace('_', '-')} {v}".strip() for k, v in
        [("build", shown_path(a.build)), ("machine", shown_path(a.machine)),
         ("apps", a.apps), ("ranks", a.ranks), ("count_ranks", a.count_ranks or '""'), ("repeats", a.repeats)]
        + ([("passes", a.passes)] if a.passes > 1 else [])
        + ([("noise_history", a.noise_history), ("noise_gap", a.noise_gap)] if a.noise_history else [])
        + ([("calibrate", "")] if a.calibrate else []) + ([("host_cycles", "")] if a.host_cycles else [])
        + ([("network_now", "")] if a.network_now else [])
        + ([("network_history", "")] if a.network_history else [])
        + ([("mcpu", a.mcpu)] if a.mcpu else []) + ([("sizes", a.sizes)] if a.sizes else []))
    lines += ["# Static model validation (issue 5)", "",
              f"Re-run on a quiet machine: `{cmdline}`", "",
              f"Run {started}; load average at start {load:.1f} on {os.cpu_count()} cores: "
              + ("**measured under load** (times are noisy; counts are exact regardless)."
                 if load > 1.5 else "no other load in this VM.")
              + (f" The cores' noise (a co-tenant the load average does not see): {noise_words(noise_before)} "
                 f"before the runs, {noise_words(noise_after)} after." if noise_before else ""),
              f"Host: {host_cpu()}. Machine file: `{shown_path(a.machine)}`"
              + (" (calibrated on this host at the start of this run)" if a.calibrate else "")
              + ". Model time = the timed part (run minus baseline), every column an estimate of `perfcast "
              "predict --baseline-param` (each rank's counts at the run's parameters minus the baseline's, per "
              "site and call, then priced: the plain formula max(flops/peak, bytes/bandwidth) + "
              "messages*latency + bytes/net_bw, its refinements, the noise; the simulated column is the run's "
              "simulation minus the baseline's).", ""]
    lines += ["## Analysis time", "", "| app | command | seconds |", "|---|---|---|"]
    for app, (secs, c) in analysis.items():
        lines.append(f"| {app} | `{c}` | {secs:.2f} |")
    lines += ["", "## Counts of the timed part (rank 0): model vs callgrind", "",
              "Ground truth: `perfcast counts --no-inlining` run with S steps minus a run with B steps, summed "
              "over the program's own functions (MPI library and libc excluded). Model flops as callgrind counts them: "
              "flops of both precisions plus one per sqrt (one instruction in the binary; predict's own `flops` "
              "prices math calls by the machine file instead).", "",
              "| app | size | R | steps S-B | flops model | flops measured | err | load B model | load B measured "
              "| err | store B model | store B measured | err |", "|" + "---|" * 13]
    for r in results:
        if not r["meas"]:
            continue
        p, m = r["pred"], r["meas"]
        lines.append(f"| {r['app']} | {r['size']} | {r['R']} | {r['count_steps']} | {fmt_count(p['counted_flops'])} | "
                     f"{fmt_count(m['flops'])} | {pct(p['counted_flops'], m['flops'])} | "
                     f"{fmt_count(p['load_bytes'])} | "
                     f"{fmt_count(m['load_bytes'])} | {pct(p['load_bytes'], m['load_bytes'])} | "
                     f"{fmt_count(p['store_bytes'])} | {fmt_count(m['store_bytes'])} | "
                     f"{pct(p['store_bytes'], m['store_bytes'])} |")
    # The naive baseline where there is a measurement to divide: the 1-rank time of the same size over R.
    one_rank = {(r["app"], r["size"]): r["t_meas"] for r in results if r["R"] == 1 and r["t_meas"]}
    for r in results:
        base = one_rank.get((r["app"], r["size"]))
        r["t_pred"]["naive"] = base / r["R"] if base and r["R"] > 1 else None

    def fastest(r):
        return (r.get("t_stats") or {}).get("min") or r["t_meas"]

    def error_summary(key, reference=lambda r: r["t_meas"]):
        errs = [abs(100.0 * (r["t_pred"][key] - reference(r)) / reference(r)) for r in results
                if r["t_meas"] and r["t_pred"].get(key) is not None]
        if not errs:
            return "-"
        within = sum(e <= 20 for e in errs)
        return f"mean |err| {sum(errs) / len(errs):.0f} %, {within}/{len(errs)} within 20 %"

    def measured_cell(r):
        st = r.get("t_stats")
        if not st or st.get("iqr") is None:
            return fmt_s(r["t_meas"])
        return f"{fmt_s(st['median'])} (IQR {fmt_s(st['iqr'])}; fastest {fmt_s(st['min'])})"

    def time_table(columns):
        out = ["| app | size | R | steps | " + " | ".join(f"{title} | err" for _, title in columns) + " | measured |",
               "|" + "---|" * (5 + 2 * len(columns))]
        for r in results:
            t, m = r["t_pred"], r["t_meas"]
            cells = []
            for key, _ in columns:
                v = t.get(key)
                cells.append(f"{fmt_s(v)} | {pct(v, m) if m and v is not None else '-'}" if v is not None else "- | -")
            out.append(f"| {r['app']} | {r['size']} | {r['R']}{' (oversubscribed)' if r['oversubscribed'] else ''} | "
                       f"{r['time_steps']} | " + " | ".join(cells) + f" | {measured_cell(r)} |")
        out.append("| **all rows, against the median** | | | | "
                   + " | ".join(f"{error_summary(k)} | " for k, _ in columns) + " |")
        out.append("| **all rows, against the fastest run** | | | | "
                   + " | ".join(f"{error_summary(k, fastest)} | " for k, _ in columns) + " |")
        return out

    spreads = [(r["t_stats"]["median"] / r["t_stats"]["min"]) for r in results
                if r.get("t_stats") and r["t_stats"].get("min")]
    runs_per_row = max((len(r["t_stats"]["samples"]) for r in results if r.get("t_stats")), default=a.repeats)
    lines += ["", "## Time of the timed region: model vs `perfcast measure` (app's own time_s, median)", "",
              f"Errors are against the median of {runs_per_row} runs (the house standard"
              + (f"; {a.passes} passes through all rows of {a.pass_repeats} runs each, "
                 "every other pass in reverse order, pooled" if a.passes > 1 else "")
              + "); the last line of each table "
              "repeats them against the fastest run, the machine least disturbed by its co-tenants (a static model "
              "predicts an undisturbed machine). Median over fastest: "
              + (f"{min(spreads):.2f}..{max(spreads):.2f}x, mean {sum(spreads) / len(spreads):.2f}x." if spreads
                 else "-"), "",
              "Columns: the paper's plain formula with every byte from L1 or from DRAM (the baselines each "
              "refinement must beat); `refined` = `perfcast predict`'s refined prediction: per site (loop nest) "
              "the in-core time (LLVM MCA cycles of the loop bodies) against the nest's footprint traffic (its "
              "distinct bytes from the level they fit in), combined with the machine's measured serial fraction, "
              "summed over the sites, plus MPI calls x overhead + each message at the machine's measured one-way "
              "time for its size (a message to a peer the rank also receives from: the measured exchange step) "
              "and each collective from the machine's measured table (where the file has "
              "them; else latency + bytes / bandwidth, which the plain and ablation columns keep); "
              "`refined + simulated` = the same sites' times as compute bursts between the model's calls on the "
              "simulator (`perfcast predict --simulate`: messages overlap the compute between post and wait, "
              "ranks wait for partners, eager messages that cross take the measured exchange step); "
              "`naive T1/R` = the measured 1-rank time of the same size over R (needs "
              "a run; the static model does not).", ""]
    lines += time_table([(first, f"plain all-{first}"), (last, f"plain all-{last}"), ("refined", "refined"),
                         ("sim", "refined + simulated"), ("noisy", "refined x noise")]
                        + ([("noisy_history", f"refined x noise{', network too,' if a.network_history else ''} "
                                              f"over {a.noise_history} probes")] if history_machine else [])
                        + [("noisy_now", "refined x noise of the moment")]
                        + ([("network_now", "refined, network of the moment")] if a.network_now else [])
                        + [("naive", "naive T1/R")])
    # predict's noise_stretch of each row's run (rows recorded before it was kept: noisy / refined).
    stretches = sorted({(r["R"], round(r["noise_stretch"] if "noise_stretch" in r
                                       else r["t_pred"]["noisy"] / r["t_pred"]["refined"], 3)) for r in results
                        if r["t_pred"].get("noisy") and r["t_pred"]["refined"]})
    lines += ["", "`refined x noise` = the refined prediction x the expected slowest of the R ranks' stretches "
              "under the cores' noise (`perfcast predict`'s `noisy_time_s`; machine.h's Noise; a rank's stretch "
              "is its loops' in-core work stretched, not the memory traffic they wait for, and its "
              "communication): "
              + (f"measured by `perfcast calibrate --noise-only` (3 s on every core) just before the runs: "
                 f"{noise_words(noise_before)}; after them: {noise_words(noise_after)}. " if noise_before else
                 "the machine file's own noise. ")
              + "Stretch applied per R: " + (", ".join(f"R={R}: x{st}" for R, st in stretches) or "none") + ". "
              "`refined x noise of the moment` = the same with the noise measured again (0.5 s, `--quick`) just "
              "before each row's runs: not a prediction (it probes the machine at run time, as the naive "
              "baseline needs a run), it shows how much of the error the host's noise at that time explains."]
    if a.network_now:
        lines += ["", "`refined, network of the moment` = the refined prediction with the MPI figures measured again "
                  "(`perfcast calibrate --network-only --quick`) just before each multi-rank row's runs: on this VM "
                  "the latency between the two cores moves about 3x with where the host places them, minutes apart. "
                  "Not a prediction either: it shows how much of those rows' error the network's state explains."]
    if history_machine:
        lines += ["", f"`refined x noise over {a.noise_history} probes` = the same with the noise of "
                  f"{a.noise_history} measurements of 3 s, {a.noise_gap:g} s apart, just before the runs, averaged "
                  "quantile by quantile (`perfcast calibrate --noise-only --accumulate`): the host over minutes "
                  "rather than one snapshot. Their mean stretches: "
                  + ", ".join(f"{m:.2f}" for m in history_means) + "."]
        if a.network_history:
            lines += ["", f"With --network-history that column is `refined x noise, network too, over "
                      f"{a.noise_history} probes`: the same, with the "
                      "refined prediction made on the MPI figures averaged over the calibration's and one more "
                      "measurement per probe (`perfcast calibrate --network-only --quick --accumulate`): the vCPUs' "
                      "placement over those minutes rather than at the calibration's moment. The probes' 512 B "
                      "exchange steps: " + ", ".join(f"{t * 1e9:.0f} ns" for t in a.network_steps) + "."]
    lines += ["", "### Ablation: each refinement alone, then together (whole-rank totals unless said)", "",
              "predict's estimates of the timed part: `MCA` (`mca`) = in-core time from MCA instead of flops/peak, "
              "bytes as plain: max(in-core, memory); `footprint + MCA` (`footprint`) = distinct bytes from their "
              "level, every access at L1: max(in-core, L1, traffic) over the rank's totals; `refined` = per site, "
              "with the serial fraction.", ""]
    lines += time_table([("mca", "MCA"), ("fp", "footprint + MCA"), ("refined", "refined")])
    lines += ["", "## Parameter bindings", ""]
    for app, b in binding_notes.items():
        lines.append(f"**{app}**: bound from the app's arguments:")
        for k, how in b["bound"].items():
            lines.append(f"- `{k}`: {how}")
        unbound = [x for x in b["placeholders"]]
        lines.append(f"- placeholder 1 (outside the timed part, cancel in run minus baseline): "
                     f"{', '.join('`' + x + '`' for x in unbound) or 'none'}")
        if b["matter"]:
            lines.append(f"- **placeholders that DO change the timed part (bindings missing, results suspect)**: "
                         f"{', '.join(b['matter'])}")
        lines.append("")
    text = "\n".join(lines) + "\n"
    return text


def save(a, text, started, load, results, analysis, binding_notes, noise_before, noise_after, history_machine,
         history_means):
    out_md = os.path.join(ROOT, a.out + ".md")
    os.makedirs(os.path.dirname(out_md), exist_ok=True)
    with open(out_md, "w") as f:
        f.write(text)
    with open(os.path.join(ROOT, a.out + ".json"), "w") as f:
        json.dump({"started": started, "load": load, "repeats": a.repeats, "passes": a.passes, "results": results,
                   "analysis": analysis, "bindings": binding_notes, "noise_before": noise_before,
                   "noise_after": noise_after, "noise_history_means": history_means},
                  f, indent=1, default=str)
    # The noise files the noise columns were priced with, kept beside the results so
    # bench/reprice_validation.py can re-price those columns later.
    if noise_before:
        shutil.copyfile(a.predict_machine, os.path.join(ROOT, a.out + "_noise_now_machine.toml"))
    if history_machine:
        shutil.copyfile(history_machine, os.path.join(ROOT, a.out + "_noise_history_machine.toml"))


def main():
    a = parse_args()
    noise_before, history_machine, history_means = prepare_machines(a)
    ctx = Ctx(a)
    started = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    results, analysis, binding_notes = first_pass(a, ctx, history_machine)
    further_passes(a, ctx, results)
    noise_after = None
    if noise_before:
        p, _ = run([ctx.perfcast, "calibrate", "--noise-only", a.machine, "-o",
                    os.path.join(a.work, "machine_with_noise_after.toml"), "--json"])
        noise_after = json.loads(p.stdout)
    text = report(a, results, analysis, binding_notes, noise_before, noise_after, history_machine, history_means,
                  started, load)
    save(a, text, started, load, results, analysis, binding_notes, noise_before, noise_after, history_machine,
         history_means)
    print(text)


if __name__ == "__main__":
    main()
