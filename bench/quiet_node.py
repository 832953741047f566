#!/usr/bin/env python3
"""Accuracy on a quiet node: every prediction of the validation apps beside their real runs,
loop by loop where the app or a bench times its kernels. Made to run once on the lent 16-core
machine, after its `perfcast calibrate` (bench/quiet_node.sh, ../shared/device/README.md), and
to run anywhere else the same way.

For each case of the cases file (validate/device.toml: wave3d, cg, mg, nbody and bfs at two
sizes, 1 to 16 ranks):

  1. predictions, all first and in parallel (they read no clock): `perfcast predict --json
     --simulate` of the app's program model (analysed elsewhere: `--models DIR`, as
     `perfcast validate models` keeps them; the target needs no clang) with the parameters
     apps/<app>/validate.toml binds for the case, on the machine file calibrated on the target.
     The timed region is priced as predict's timed part (`--baseline-param`: the run minus a
     baseline of the same app with its loop count at 0, BASELINES below), so the formula,
     refined and simulated estimates are each of the app's own `time_s`; an app without a
     baseline is priced whole and its rows say so;
  2. measurements, one case after another: `perfcast measure --json -n R -r REPEATS -w WARMUP`
     (ranks pinned, busy-polling), the app's own `time_s` median and quartiles;
  3. with build/bench/cg_kernels (make_bundle.sh --add build/bench/cg_kernels): cg's kernels
     timed one by one (bench/cg_kernels.py's program) beside the model's sites of the same loops.

Writes DIR/quiet_node.json after every step (a kill leaves what was done), and the report
(bench/quiet_node_report.py) as DIR/quiet_node.md at the end and after every measured case. A
case that fails is a row saying why; the rest go on. No measurement starts after --budget-s.

    python3 bench/quiet_node.py --build build --machine host.toml --models validate-models --out /tmp/qn
"""
import argparse
import concurrent.futures
import datetime
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import quiet_node_report  # noqa: E402

# The baseline of each app's timed region: the placeholder values whose run does everything but
# the timed loop, and the factor from run-minus-baseline to the timed region (nbody's integrate
# evaluates the forces steps + 1 times, once before its loop: bench/static_validation.py). These
# are facts of the apps' arguments. bfs has none: its searches are not a loop count.
BASELINES = {
    "wave3d": ({"steps": 0}, lambda v: 1.0),
    "cg": ({"iters": 0}, lambda v: 1.0),
    "mg": ({"cycles": 0}, lambda v: 1.0),
    "nbody": ({"steps": 0}, lambda v: (v["steps"] + 1) / v["steps"]),
}

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def substitute(text, table):
    """Every name of `table` in an expression replaced by its value, parenthesised."""
    return NAME.sub(lambda m: f"({table[m.group(0)]})" if m.group(0) in table else m.group(0), text)


def bind_parameters(validate_toml, values):
    """`--param` values of an app's validate.toml for a case, as perfcast validate binds them
    (src/validate/app_bindings.cpp): [static.let] names (which may use each other) and the case's
    placeholders put into each [static.bind] expression; predict evaluates the rest per rank."""
    with open(validate_toml, "rb") as f:
        doc = tomllib.load(f)
    static = doc.get("static", {})
    known = {k: str(v) for k, v in values.items()}
    lets = {k: str(v) for k, v in static.get("let", {}).items()}
    for _ in range(len(lets) + 1):
        done = {k: substitute(substitute(e, lets), known) for k, e in lets.items()}
        if done == lets:
            break
        lets = done
    else:
        raise ValueError(f"{validate_toml}: [static.let] names refer to each other in a cycle")
    return {k: substitute(substitute(str(e), lets), known) for k, e in static.get("bind", {}).items()}


def expand_cases(cases_toml, ranks_filter):
    """The cases file's runs: every combination of a case's placeholders (first key slowest), and
    its rank counts ascending, as perfcast validate expands them (docs/validate.md)."""
    with open(cases_toml, "rb") as f:
        doc = tomllib.load(f)
    runs = []
    for i, case in enumerate(doc.get("case", [])):
        fixed = {"app", "args", "skeleton_args", "ranks", "dataset"}
        keys = [k for k in case if k not in fixed]
        combos = [{}]
        for k in keys:
            vals = case[k] if isinstance(case[k], list) else [case[k]]
            combos = [dict(c, **{k: v}) for c in combos for v in vals]
        ranks = case["ranks"] if isinstance(case["ranks"], list) else [case["ranks"]]
        for c in combos:
            for R in sorted(ranks):
                if ranks_filter and R not in ranks_filter:
                    continue
                values = dict(c, ranks=R)
                runs.append({"app": case["app"], "values": c, "ranks": R,
                             "size": " ".join(f"{k}={v}" for k, v in c.items()),
                             "args": case["args"].format(**values)})
    return runs


class Perfcast:
    def __init__(self, binary, timeout_s):
        self.binary, self.timeout_s = binary, timeout_s

    def run(self, args, timeout_s=None):
        """perfcast's stdout; RuntimeError with its last error line when it fails."""
        try:
            p = subprocess.run([self.binary] + args, capture_output=True, text=True,
                               timeout=timeout_s or self.timeout_s)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"perfcast {args[0]} timed out after {timeout_s or self.timeout_s} s")
        if p.returncode != 0:
            lines = [l for l in p.stderr.splitlines() if "error" in l] or p.stderr.splitlines() or ["(no message)"]
            raise RuntimeError(f"perfcast {args[0]} exit {p.returncode}: {lines[-1][:400]}")
        return p.stdout


def predict_case(pc, a, run, required):
    """Formula, refined, noisy, simulated and simulated-noisy estimates of the case's timed region, and the slowest
    rank's sites (the model's per-loop figures)."""
    app, values, R = run["app"], dict(run["values"], ranks=run["ranks"]), run["ranks"]
    toml = os.path.join(a.apps, app, "validate.toml")
    params = bind_parameters(toml, values)
    unbound = [n for n in required if n not in params]
    for n in unbound:
        params[n] = "1"  # as perfcast validate: named in the note
    cmd = ["predict", os.path.join(a.models, f"{app}.model.json"), "--machine", a.machine, "--np", str(R),
           "--json", "--simulate"]
    for kv in a.set:
        cmd += ["--set", kv]
    if getattr(a, "noise_seed", None) is not None:
        cmd += ["--noise-seed", str(a.noise_seed)]
    for k, v in sorted(params.items()):
        cmd += ["--param", f"{k}={v}"]
    base = BASELINES.get(app)
    factor, basis = 1.0, "whole program vs timed region"
    if base:
        base_values = dict(values, **base[0])
        base_params = bind_parameters(toml, base_values)
        for n in unbound:
            base_params[n] = "1"
        for k, v in sorted(base_params.items()):
            if params.get(k) != v:
                cmd += ["--baseline-param", f"{k}={v}"]
        factor, basis = base[1](values), "timed region"
    j = json.loads(pc.run(cmd))
    est = {e["name"]: e for e in j["estimates"]}
    out = {"basis": basis, "factor": factor, "unbound": unbound, "estimates": {}, "unavailable": {}}
    for method, name in (("formula", "formula"), ("refined", "refined"), ("noisy", "noisy"),
                         ("simulated", "simulated"), ("simulated-noisy", "simulated-noisy")):
        e = est.get(name)
        if e and e.get("time_s") is not None:
            out["estimates"][method] = e["time_s"] * factor
        else:
            out["unavailable"][method] = (e or {}).get("unavailable") or "predict gave no figure"
    if est.get("refined", {}).get("time_s") is not None and j.get("noisy_slowest_state_time_s") is not None:
        out["envelope"] = [est["refined"]["time_s"] * factor, j["noisy_slowest_state_time_s"] * factor]
    slowest = j.get("refined_slowest_rank") or 0
    rank = next((r for r in j["ranks"] if r["rank"] == slowest), j["ranks"][0])
    out["slowest_rank"] = rank["rank"]
    out["comm_s"] = rank.get("refined_comm_s", 0.0) * factor
    out["sites"] = [{"function": s.get("function", "?"), "line": s.get("line"), "bound": s.get("bound"),
                     "refined_s": s["refined_s"] * factor, "in_core_s": s.get("in_core_s"),
                     "memory_s": s.get("memory_s")}
                    for s in rank["sites"]]
    return out


def measure_case(pc, a, run, timeout_s):
    cmd = ["measure", "--json", "-q", "-n", str(run["ranks"]), "-r", str(a.repeats), "-w", str(a.warmup),
           "--timeout", str(max(5, int(timeout_s / (a.repeats + a.warmup)))), "--",
           os.path.join(a.build, "apps", run["app"])] + run["args"].split()
    j = json.loads(pc.run(cmd, timeout_s=timeout_s + 10))
    t = j.get("app_time_s") or {}
    if not t:
        raise RuntimeError("the app printed no time_s")
    res = j.get("app_result") if isinstance(j.get("app_result"), dict) else {}
    # Phases the apps time themselves (one launch's, the last): wave3d's compute and MPI, bfs's
    # generation and CSR construction.
    phases = {k: res[k] for k in ("calc_s", "mpi_s", "generation_s", "construction_s") if k in res}
    return {"median_s": t["median"], "q1_s": t["q1"], "q3_s": t["q3"], "samples_s": t.get("samples", []),
            "wall_median_s": j["wall_s"]["median"], "pinned": j.get("pinned"), "busy_poll": j.get("busy_poll"),
            "oversubscribed": j.get("oversubscribed"), "check": res.get("check"), "phases": phases}


def machine_sharing(pc, machine):
    """What the machine file says the node's cores share (calibrate's `bandwidth_by_cores` and
    `busy_slowdown`; null where not measured), and its clock: the report prints them."""
    try:
        group = json.loads(pc.run(["machine", "show", machine, "--json"]))["machines"][0]["node_groups"][0]
    except (RuntimeError, ValueError, KeyError, IndexError) as e:
        return {"error": str(e)}
    return {"clock_Hz": group.get("clock_Hz"), "busy_slowdown": group.get("busy_slowdown"),
            "bandwidth_per_core_by_cores": {lv["name"]: lv.get("bandwidth_per_core_by_cores")
                                            for lv in group.get("memory", [])}}


def cg_kernels(pc, a, doc, deadline):
    """cg's kernels one by one (build/bench/cg_kernels) beside the model's sites of those loops:
    per call, the slowest rank measured, the model's slowest rank."""
    binary = os.path.join(a.build, "bench", "cg_kernels")
    if not os.path.exists(binary):
        doc["kernels_note"] = f"{binary} not there (make_bundle.sh --add build/bench/cg_kernels)"
        return
    # apps/cg/bindings.py: KERNEL_SITES, the loops' lines in cg.c and their calls per iteration
    spec = importlib.util.spec_from_file_location("cg_bindings", os.path.join(a.apps, "cg", "bindings.py"))
    cg_bindings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cg_bindings)
    cg_runs = [r for r in doc["runs"] if r["app"] == "cg"]
    ranks = sorted({r["ranks"] for r in cg_runs})
    picks = [r for r in cg_runs if r["ranks"] in (ranks[0], ranks[-1])] if ranks else []
    for run in picks:
        if time.monotonic() > deadline:
            doc["kernels"].append({"case": run["size"], "ranks": run["ranks"], "error": "not run: budget spent"})
            continue
        n, K = run["values"]["n"], run["values"]["iters"]
        entry = {"case": run["size"], "ranks": run["ranks"], "calls": K, "rounds": a.kernel_rounds}
        try:
            p = subprocess.run(["mpirun.openmpi", "--allow-run-as-root", "--bind-to", "core", "--map-by", "core",
                                "-n", str(run["ranks"]), binary, str(n), str(K), str(a.kernel_rounds)],
                               capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                raise RuntimeError(f"cg_kernels exit {p.returncode}: {p.stderr.strip()[-300:]}")
            measured = {r["kernel"]: r for r in (json.loads(l) for l in p.stdout.splitlines() if l.startswith("{"))}
            pred = run.get("prediction") or {}
            by_line = {}
            for s in pred.get("sites", []):
                by_line[s["line"]] = by_line.get(s["line"], 0.0) + s["refined_s"]
            rows = []
            for kernel, (line, per_iter) in cg_bindings.KERNEL_SITES.items():
                m = measured.get(kernel, {})
                model = by_line.get(line)
                rows.append({"kernel": kernel, "line": line,
                             "model_s": model / (K * per_iter) if model is not None else None,
                             "fastest_s": m.get("fastest_s"), "median_s": m.get("median_s")})
            solve = measured.get("solve", {})
            total = pred.get("estimates", {}).get("refined")
            rows.append({"kernel": "solve", "line": None, "model_s": total / K if total else None,
                         "fastest_s": solve.get("fastest_s"), "median_s": solve.get("median_s")})
            entry["rows"] = rows
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
            entry["error"] = str(e)
        doc["kernels"].append(entry)


def predict_all(pc, a, runs):
    """Every run's prediction, in parallel: the parameters each model needs, then every case."""
    required = {}
    for app in sorted({r["app"] for r in runs}):
        try:
            ps = json.loads(pc.run(["model", "params", os.path.join(a.models, f"{app}.model.json"), "--json"]))
            required[app] = [p["name"] for p in ps if "default" not in p]
        except (RuntimeError, ValueError) as e:
            required[app] = e
    def predict(run):
        if isinstance(required[run["app"]], Exception):
            return {"error": f"no model: {required[run['app']]}"}
        try:
            return predict_case(pc, a, run, required[run["app"]])
        except (RuntimeError, ValueError, KeyError, OSError) as e:
            return {"error": f"{type(e).__name__}: {e}"}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for run, pred in zip(runs, pool.map(predict, runs)):
            run["prediction"] = pred


def reprice(pc, a, t0):
    """A recorded run's cases priced again beside its recorded measurements (and cg's kernels'
    recorded times beside the new model's sites); writes OUT/quiet_node.json and the report."""
    with open(a.reprice) as f:
        doc = json.load(f)
    doc["repriced"] = {"from": os.path.abspath(a.reprice), "machine": os.path.abspath(a.machine),
                       "build": a.build, "at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                       "set": a.set, "noise_seed": a.noise_seed}
    doc["machine"] = os.path.abspath(a.machine)
    doc["sharing"] = machine_sharing(pc, a.machine)
    predict_all(pc, a, doc["runs"])
    spec = importlib.util.spec_from_file_location("cg_bindings", os.path.join(a.apps, "cg", "bindings.py"))
    cg_bindings = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cg_bindings)
    for entry in doc.get("kernels", []):
        run = next((r for r in doc["runs"] if r["app"] == "cg" and r["size"] == entry["case"]
                    and r["ranks"] == entry["ranks"]), None)
        if not run or "rows" not in entry:
            continue
        pred, K = run.get("prediction") or {}, entry["calls"]
        by_line = {}
        for s in pred.get("sites", []):
            by_line[s["line"]] = by_line.get(s["line"], 0.0) + s["refined_s"]
        for row in entry["rows"]:
            if row["kernel"] == "solve":
                total = pred.get("estimates", {}).get("refined")
                row["model_s"] = total / K if total else None
            elif row["kernel"] in cg_bindings.KERNEL_SITES:
                line, per_iter = cg_bindings.KERNEL_SITES[row["kernel"]]
                model = by_line.get(line)
                row["model_s"] = model / (K * per_iter) if model is not None else None
    doc["predict_s"] = round(time.monotonic() - t0, 1)
    path = os.path.join(a.out, "quiet_node.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    report = a.report or os.path.join(a.out, "quiet_node.md")
    with open(report, "w") as f:
        f.write(quiet_node_report.render(doc))
    print(f"quiet_node: {len(doc['runs'])} cases repriced in {doc['predict_s']} s: {report}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"), help="bin/perfcast, apps/, bench/")
    ap.add_argument("--machine", default=os.environ.get("MACHINE"), help="the machine file calibrated here")
    ap.add_argument("--models", default="validate-models", help="kept program models (perfcast validate models)")
    ap.add_argument("--apps", default=os.path.join(ROOT, "apps"), help="the apps' validate.toml")
    ap.add_argument("--cases", default=os.path.join(ROOT, "validate", "device.toml"))
    ap.add_argument("--ranks", default="", help="keep only these rank counts, e.g. 1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--case-timeout-s", type=int, default=60)
    ap.add_argument("--budget-s", type=float, default=330, help="no measurement starts later (from this start)")
    ap.add_argument("--kernel-rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="predictions at once")
    ap.add_argument("--out", required=True, help="folder for quiet_node.json (and quiet_node.md)")
    ap.add_argument("--report", help="the markdown report's path (default: OUT/quiet_node.md)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="passed to every predict: a machine-file key changed (repeatable; a what-if)")
    ap.add_argument("--noise-seed", type=int,
                    help="passed to every predict: the seed of the simulated-noisy estimate's draws (default: predict's)")
    ap.add_argument("--reprice", metavar="QUIET_NODE_JSON",
                    help="measure nothing: price a recorded run's cases again (this build, --machine, --models) "
                         "beside its recorded measurements; a fit to those runs, not a test")
    a = ap.parse_args()
    t0 = time.monotonic()
    deadline = t0 + a.budget_s
    if not a.machine or not os.path.exists(a.machine):
        sys.exit(f"quiet_node: no machine file ({a.machine!r}): --machine or $MACHINE")
    a.build = os.path.abspath(a.build)
    pc = Perfcast(os.path.join(a.build, "bin", "perfcast"), timeout_s=120)
    os.makedirs(a.out, exist_ok=True)
    ranks_filter = {int(x) for x in a.ranks.replace(",", " ").split()}
    if a.reprice:
        return reprice(pc, a, t0)
    runs = expand_cases(a.cases, ranks_filter)
    doc = {"started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "host": os.uname().nodename, "cores": os.cpu_count(), "machine": os.path.abspath(a.machine),
           "cases": os.path.relpath(a.cases, ROOT), "repeats": a.repeats, "warmup": a.warmup, "runs": runs,
           "kernels": [], "kernels_note": None}
    path = os.path.join(a.out, "quiet_node.json")
    report = a.report or os.path.join(a.out, "quiet_node.md")

    def save(with_report=False):
        with open(path + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(path + ".tmp", path)
        if with_report:
            with open(report + ".tmp", "w") as f:
                f.write(quiet_node_report.render(doc))
            os.replace(report + ".tmp", report)

    doc["sharing"] = machine_sharing(pc, a.machine)
    # 1. predictions, in parallel (they read no clock)
    predict_all(pc, a, runs)
    doc["predict_s"] = round(time.monotonic() - t0, 1)
    print(f"quiet_node: {len(runs)} predictions in {doc['predict_s']} s", file=sys.stderr, flush=True)
    save(with_report=True)

    # 2. measurements, one at a time: every size's 1-rank run first (the naive baseline needs
    # it), then the most ranks, then the counts between, so a budget cut drops middle counts.
    top = max((r["ranks"] for r in runs), default=1)
    order = sorted(runs, key=lambda r: (0 if r["ranks"] == 1 else 1 if r["ranks"] == top else 2, -r["ranks"]))
    for run in order:
        if time.monotonic() > deadline:
            run["measured"] = {"error": "not run: budget spent"}
            continue
        t = time.monotonic()
        try:
            run["measured"] = measure_case(pc, a, run, a.case_timeout_s)
        except (RuntimeError, ValueError, KeyError) as e:
            run["measured"] = {"error": str(e)}
        run["measure_s"] = round(time.monotonic() - t, 1)
        m = run["measured"]
        print(f"quiet_node: {run['app']} {run['size']} R={run['ranks']}: "
              + (f"{m['median_s']:.4g} s" if "median_s" in m else m["error"]) + f" ({run['measure_s']} s)",
              file=sys.stderr, flush=True)
        save(with_report=True)

    # 3. cg's kernels.
    cg_kernels(pc, a, doc, deadline + 30)
    doc["total_s"] = round(time.monotonic() - t0, 1)
    save(with_report=True)
    print(f"quiet_node: done in {doc['total_s']} s; {report}", file=sys.stderr)


if __name__ == "__main__":
    main()
