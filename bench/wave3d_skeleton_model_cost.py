#!/usr/bin/env python3
"""wave3d's skeleton with its compute from the program model, against the fitted one,
the static prediction and real runs (docs/skeletons.md, "Compute from the static model").

Four estimates of wave3d's step loop (--steps steps, one repeat) per size N and rank count:
  fitted   the skeleton as built (apps/wave3d/skeleton/wave3d_skel.c): BSIM_Add_time of
           wave3d_calc_time.h, a line through zero fitted by bench/wave3d_skeleton.py on
           another day's runs;
  model    the same skeleton with --compute-model apps/wave3d/wave3d.model.json: each
           step's compute is the model's halo_exchange + leapfrog_step work for the rank's
           block, priced by the engine as `perfcast predict` prices it;
  static   `perfcast predict` of the model (the refined estimate; its compute = the
           slowest rank's sites);
  real     wave3d under `perfcast measure` (ranks pinned; median over --repeats runs of
           the app's median step loop).
The machine file is `perfcast calibrate --quick` of this host, measured at the start of the
run (or --machine FILE). Writes skeleton_model_cost.txt and .json into --results
(default bench/results/<today>-skeleton-model-cost/) and prints the table.

    python3 bench/wave3d_skeleton_model_cost.py --build build --repeats 5
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402

MODEL = os.path.join(ROOT, "apps", "wave3d", "wave3d.model.json")


def run(cmd, what, want_stderr=False):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"wave3d_skeleton_model_cost: {what} failed: {' '.join(cmd)}\n{out.stderr[-3000:]}\n{out.stdout[-2000:]}")
    return (out.stdout, out.stderr) if want_stderr else out.stdout


def log(msg):
    print(f"wave3d_skeleton_model_cost: {msg}", file=sys.stderr, flush=True)


def skeleton_json(outputs):
    """The skeleton's own JSON line (rank 0's, on stderr while simulate runs) and the simulator's document."""
    stdout, stderr = outputs
    skel = None
    for line in stderr.splitlines():
        if line.startswith('{"app":"wave3d_skel"'):
            skel = json.loads(line)
    if skel is None:
        sys.exit(f"wave3d_skeleton_model_cost: no wave3d_skel JSON line in:\n{stderr[-2000:]}")
    return skel, json.loads(stdout)


def pct(pred, real):
    return f"{100 * (pred - real) / real:+.1f} %"


def ms(s):
    return f"{s * 1e3:.3f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build tree with bin/perfcast, apps/wave3d, apps/wave3d_skel")
    p.add_argument("--sizes", default="24,48,96,144", help="grid sizes N (N^3 points)")
    p.add_argument("--ranks", default="1,2", help="rank counts (timed runs: at most the cores)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=5, help="perfcast measure runs per point")
    p.add_argument("--app-repeats", type=int, default=5, help="wave3d's own --repeats inside each run")
    p.add_argument("--machine", default=None, help="a machine file instead of calibrating (--quick) into --results")
    p.add_argument("--results", default=result_paths.new_run_dir("skeleton-model-cost"),
                   help="folder this run writes (default: bench/results/<today>-skeleton-model-cost)")
    o = p.parse_args()
    build = os.path.abspath(o.build)
    perfcast = os.path.join(build, "bin", "perfcast")
    app = os.path.join(build, "apps", "wave3d")
    skel = os.path.join(build, "apps", "wave3d_skel")
    for path in (perfcast, app, skel):
        if not os.path.exists(path):
            sys.exit(f"wave3d_skeleton_model_cost: {path} missing: cmake --build {o.build}")
    os.makedirs(o.results, exist_ok=True)
    sizes = [int(x) for x in o.sizes.split(",")]
    rank_counts = [int(x) for x in o.ranks.split(",")]
    when = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()

    machine = o.machine
    if machine is None:
        machine = os.path.join(o.results, "machine.toml")
        log("perfcast calibrate --quick")
        run([perfcast, "calibrate", "--quick", "-o", machine], "perfcast calibrate")

    rows = {}
    for n in sizes:
        for ranks in rank_counts:
            key = f"{n}x{ranks}"
            app_args = ["--n", str(n), "--steps", str(o.steps)]
            log(f"--n {n} at {ranks} rank(s): real, skeletons, predict")
            real = json.loads(run([perfcast, "measure", "-n", str(ranks), "--repeats", str(o.repeats), "--json", "--",
                                   app] + app_args + ["--repeats", str(o.app_repeats)], "perfcast measure"))
            sim_cmd = [perfcast, "simulate", "--machine", machine, "--json", "--np", str(ranks), "--", skel] + \
                app_args + ["--repeats", "1"]
            fitted, _ = skeleton_json(run(sim_cmd, "perfcast simulate (fitted)", True))
            model, _ = skeleton_json(run(sim_cmd + ["--compute-model", MODEL], "perfcast simulate (model)", True))
            pred = json.loads(run([perfcast, "predict", MODEL, "--machine", machine, "--np", str(ranks), "--param",
                                   f"n={n}", "--param", f"steps={o.steps}", "--json"], "perfcast predict"))
            static_calc = max(sum(s["refined_s"] for s in r["sites"]) for r in pred["ranks"])
            rows[key] = {
                "n": n, "ranks": ranks, "oversubscribed": real["oversubscribed"],
                "real_time_s": real["app_time_s"]["median"], "real_time_iqr_s": real["app_time_s"]["iqr"],
                "real_calc_s": real["app_result"]["calc_s"],
                "fitted_time_s": fitted["time_s"], "fitted_calc_s": fitted["calc_s"],
                "model_time_s": model["time_s"], "model_calc_s": model["calc_s"],
                "static_time_s": pred["refined_time_s"], "static_calc_s": static_calc,
            }

    rel_machine = result_paths.relative(machine) if os.path.isabs(machine) else machine
    lines = [
        "# wave3d skeleton: compute from the program model vs fitted, static and real",
        "",
        f"Re-run: `python3 bench/wave3d_skeleton_model_cost.py --build {os.path.relpath(build, ROOT)} "
        f"--repeats {o.repeats} --sizes {o.sizes} --ranks {o.ranks}`",
        f"Measured {when} on {platform.node()}, {os.cpu_count()} cores, load average at start "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}: this loaded 2-core VM (shared with other jobs; timings "
        f"move 1.5x run to run), so the errors below are not accuracy claims.",
        f"Machine: {rel_machine} (`perfcast calibrate --quick` on this VM, by this script). "
        f"wave3d `--n N --steps {o.steps}`; real: `perfcast measure -n R --repeats {o.repeats}` (pinned, the app's "
        f"median of {o.app_repeats} step loops, median over runs). fitted: `perfcast simulate -- wave3d_skel` "
        "(BSIM_Add_time of wave3d_calc_time.h); model: the same with `--compute-model apps/wave3d/wave3d.model.json` "
        "(BSIM_Add_model_work); static: `perfcast predict apps/wave3d/wave3d.model.json` (refined; calc = the slowest "
        "rank's sites).",
        "",
        "## Compute of the step loop (slowest rank, ms)",
        "",
        "| N | ranks | real calc | fitted | error | model | error | static | error | model - static |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    errs = {"fitted calc": [], "model calc": [], "fitted total": [], "model total": [], "static total": []}
    for key, r in rows.items():
        rc = r["real_calc_s"]
        lines.append(f"| {r['n']} | {r['ranks']} | {ms(rc)} | {ms(r['fitted_calc_s'])} | {pct(r['fitted_calc_s'], rc)} | "
                     f"{ms(r['model_calc_s'])} | {pct(r['model_calc_s'], rc)} | {ms(r['static_calc_s'])} | "
                     f"{pct(r['static_calc_s'], rc)} | {pct(r['model_calc_s'], r['static_calc_s'])} |")
        if not r["oversubscribed"]:
            errs["fitted calc"].append(abs(r["fitted_calc_s"] - rc) / rc)
            errs["model calc"].append(abs(r["model_calc_s"] - rc) / rc)
    lines += ["", "## Step loop (ms)", "",
              "| N | ranks | real (IQR) | fitted skeleton | error | model skeleton | error | static | error |",
              "|---|---|---|---|---|---|---|---|---|"]
    for key, r in rows.items():
        rt = r["real_time_s"]
        lines.append(f"| {r['n']} | {r['ranks']} | {ms(rt)} ({ms(r['real_time_iqr_s'])}) | {ms(r['fitted_time_s'])} | "
                     f"{pct(r['fitted_time_s'], rt)} | {ms(r['model_time_s'])} | {pct(r['model_time_s'], rt)} | "
                     f"{ms(r['static_time_s'])} | {pct(r['static_time_s'], rt)} |")
        if not r["oversubscribed"]:
            errs["fitted total"].append(abs(r["fitted_time_s"] - rt) / rt)
            errs["model total"].append(abs(r["model_time_s"] - rt) / rt)
            errs["static total"].append(abs(r["static_time_s"] - rt) / rt)
    lines += ["", "Mean |error| (this loaded 2-core VM): " +
              ", ".join(f"{k} {100 * statistics.mean(v):.1f} %" for k, v in errs.items() if v) + ".",
              "model - static: the model skeleton's compute against predict's for the same machine file; the two "
              "price the same counts by the same rules, so it is 0 up to rounding where every rank starts its "
              "bursts together (the engine counts the ranks computing at once when a burst starts; predict "
              "assumes all the node's ranks do)."]
    text = "\n".join(lines) + "\n"
    out = os.path.join(o.results, "skeleton_model_cost.txt")
    with open(out, "w") as f:
        f.write(text)
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump({"machine": rel_machine, "steps": o.steps, "rows": rows}, f, indent=1, sort_keys=True)
    print(text)


if __name__ == "__main__":
    main()
