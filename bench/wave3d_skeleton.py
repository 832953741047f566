#!/usr/bin/env python3
"""wave3d's BSIM skeleton against the real wave3d on this machine (issue 3).

1. Compute model: wave3d, timed by `perfcast measure`, reports the compute time
   of its step loop (calc_s: the loop minus its MPI calls, slowest rank) for
   each of its internal repeats. Per step, at two grid sizes and 1 and 2 ranks
   (blocks of N^3 and N^3/2 points: `perfcast fit` wants 3 distinct x for a
   line), these go to wave3d_calc.csv in the run's folder (--results) and
   `perfcast fit --model linear --origin --x points` writes
   apps/wave3d/skeleton/wave3d_calc_time.h (BSIM_Add_time's model). The third
   size is held out: the model is checked there.
2. Machine model: wave3d_machine.toml, from `perfcast calibrate --quick`
   (shared-memory Open MPI latency and bandwidth here): the recorded run's
   (--previous) copied into this run's folder, or measured again with --recalibrate.
3. The skeleton (apps/wave3d/skeleton/wave3d_skel.c) is built with `perfcast cc`
   and run by `perfcast simulate` on that machine file at 1, 2 and 4 ranks.
4. The real app at 1 and 2 ranks (pinned, median and IQR over --repeats runs of
   `perfcast measure`) and 4 ranks (oversubscribed on 2 cores: labelled, used for
   counts and correctness only).

The table: real step-loop time vs the skeleton's simulated one; real calc vs
simulated calc; a naive baseline (the 1-rank time divided by the rank count);
the ablation of the paper (calc only = the slowest rank's calc; + wait; + comm =
the full prediction), from the simulator's per-rank calc/wait/comm. Written to
wave3d_skeleton.txt (and .json) in bench/results/<date>-wave3d-skeleton/ and printed. Re-run on a quiet machine with:

    python3 bench/wave3d_skeleton.py --build build --repeats 7
"""
import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402

SKEL_DIR = os.path.join(ROOT, "apps", "wave3d", "skeleton")


def run(cmd, what):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"wave3d_skeleton: {what} failed: {' '.join(cmd)}\n{out.stderr[-3000:]}\n{out.stdout[-2000:]}")
    return out.stdout


def log(msg):
    print(f"wave3d_skeleton: {msg}", file=sys.stderr, flush=True)


class Bench:
    def __init__(self, o):
        self.o = o
        self.build = os.path.abspath(o.build)
        self.perfcast = os.path.join(self.build, "bin", "perfcast")
        self.app = os.path.join(self.build, "apps", "wave3d")
        self.skel = os.path.join(self.build, "apps", "wave3d_skel")
        self.machine = os.path.join(o.results, "wave3d_machine.toml")
        self.previous_machine = os.path.join(o.previous, "wave3d_machine.toml")
        for path in (self.perfcast, self.app):
            if not os.path.exists(path):
                sys.exit(f"wave3d_skeleton: {path} missing: cmake --build {o.build} --target perfcast app_wave3d")

    def app_args(self, n, repeats_inside):
        return ["--n", str(n), "--steps", str(self.o.steps), "--repeats", str(repeats_inside)]

    def measure(self, ranks, n, repeats):
        cmd = [self.perfcast, "measure", "-n", str(ranks), "--repeats", str(repeats), "--json", "--", self.app] + \
            self.app_args(n, self.o.app_repeats)
        log(f"real wave3d --n {n} at {ranks} rank(s), {repeats} runs")
        r = json.loads(run(cmd, "perfcast measure"))
        r["cmd"] = cmd
        return r

    def simulate(self, ranks, n):
        cmd = [self.perfcast, "simulate", "--machine", self.machine, "--json", "--np", str(ranks), "--", self.skel] + \
            self.app_args(n, 1)
        out = run(cmd, "perfcast simulate")
        skel, doc, in_doc = None, [], False
        for line in out.splitlines():
            if not in_doc and line.startswith('{"app":"wave3d_skel"'):
                skel = json.loads(line)
            if line == "{":
                in_doc = True
            if in_doc:
                doc.append(line)
        sim = json.loads("\n".join(doc))
        ranks_t = sim["ranks"]
        sim["calc_only_s"] = max(t["calc_s"] for t in ranks_t)
        sim["plus_wait_s"] = max(t["calc_s"] + t["wait_s"] for t in ranks_t)
        sim["plus_comm_s"] = max(t["calc_s"] + t["wait_s"] + t["comm_s"] for t in ranks_t)
        return skel, sim

    def calibrate(self):
        if not self.o.recalibrate and os.path.exists(self.previous_machine):
            if os.path.abspath(self.previous_machine) != os.path.abspath(self.machine):
                shutil.copyfile(self.previous_machine, self.machine)
            log(f"machine model: {self.previous_machine} (kept; --recalibrate to remeasure)")
            return
        log("perfcast calibrate --quick")
        run([self.perfcast, "calibrate", "--quick", "-o", self.machine], "perfcast calibrate")

    def fit(self, calc_rows, check_points):
        path = os.path.join(self.o.results, "wave3d_calc.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["points", "time_s"])
            for points, t in calc_rows:
                w.writerow([points, f"{t:.9g}"])
        # Through the origin: a step's compute is proportional to the block's
        # points, and a free constant fitted on two sizes goes negative below them.
        base = [self.perfcast, "fit", path, "--x", "points", "--model", "linear", "--origin"]
        header = run(base + ["--emit", "c", "--name", "wave3d_calc_time"], "perfcast fit --emit c")
        with open(os.path.join(SKEL_DIR, "wave3d_calc_time.h"), "w") as f:
            f.write("/* Written by bench/wave3d_skeleton.py: " + " ".join(
                ["perfcast fit", os.path.relpath(path, ROOT), "--x points --model linear --origin --emit c --name wave3d_calc_time"]) +
                "\n * wave3d's compute per step (pack, unpack, update) against the points of a rank's block. */\n")
            f.write(header.replace(ROOT + os.sep, ""))
        fitted = json.loads(run(base + ["--json", "--predict", str(check_points)], "perfcast fit --json"))
        return fitted, " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in base)

    def build_skeleton(self):
        os.makedirs(os.path.dirname(self.skel), exist_ok=True)
        run([self.perfcast, "cc", "-O2", "-g", "-I" + SKEL_DIR, os.path.join(SKEL_DIR, "wave3d_skel.c"), "-o",
             self.skel], "perfcast cc")


def pct(pred, real):
    return f"{100 * (pred - real) / real:+.1f} %"


def ms(s):
    return f"{s * 1e3:.3f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="build tree with bin/perfcast, apps/wave3d")
    p.add_argument("--repeats", type=int, default=5, help="perfcast measure runs per point (>= 5 for figures)")
    p.add_argument("--app-repeats", type=int, default=5, help="wave3d's own --repeats inside each run")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--fit-sizes", default="48,144", help="two grid sizes N (N^3 points) the compute model is fitted on")
    p.add_argument("--check-size", type=int, default=96, help="the held-out size the model is checked on")
    p.add_argument("--results", default=result_paths.new_run_dir("wave3d-skeleton"),
                   help="folder this run writes (default: bench/results/<today>-wave3d-skeleton)")
    p.add_argument("--previous", default=result_paths.WAVE3D_SKELETON_DIR,
                   help="a recorded run: its machine file is kept, and --reuse-real reads its real runs")
    p.add_argument("--recalibrate", action="store_true", help="measure the machine file again instead of keeping --previous's")
    p.add_argument("--reuse-real", action="store_true",
                   help="reuse the real runs saved in --previous's wave3d_skeleton_real.json (refit and resimulate only)")
    p.add_argument("--output", default=None, help="the table (default: wave3d_skeleton.txt in --results)")
    o = p.parse_args()
    os.makedirs(o.results, exist_ok=True)
    o.output = o.output or os.path.join(o.results, "wave3d_skeleton.txt")
    b = Bench(o)
    fit_sizes = [int(x) for x in o.fit_sizes.split(",")]
    sizes = sorted(fit_sizes + [o.check_size])
    role = {n: ("fit" if n in fit_sizes else "held out") for n in sizes}
    when = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()

    b.calibrate()

    # Real runs (1, 2, 4 ranks) at every size; the 1- and 2-rank runs at the fit
    # sizes also give the calc data.
    real_path = os.path.join(o.results, "wave3d_skeleton_real.json")
    if o.reuse_real:
        previous_real = os.path.join(o.previous, "wave3d_skeleton_real.json")
        with open(previous_real) as f:
            real = {tuple(int(v) for v in k.split("x")): r for k, r in json.load(f).items()}
        log(f"real runs reused from {previous_real}")
        with open(real_path, "w") as f:
            json.dump({f"{n}x{r}": v for (n, r), v in real.items()}, f, indent=1, sort_keys=True)
    else:
        real = {}
        for n in sizes:
            for ranks in (1, 2, 4):
                real[(n, ranks)] = b.measure(ranks, n, o.repeats if ranks <= 2 else max(1, min(o.repeats, 2)))
        with open(real_path, "w") as f:
            json.dump({f"{n}x{r}": v for (n, r), v in real.items()}, f, indent=1, sort_keys=True)
    # `perfcast fit` wants 3 distinct sizes for a line: the blocks of the 1- and
    # 2-rank runs (N^3 and N^3/2 points per rank) at the two fit sizes give 4.
    calc_rows = []
    for n in fit_sizes:
        for ranks in (1, 2):
            res = real[(n, ranks)]["app_result"]
            points = n ** 3 // ranks if n % ranks == 0 else None
            if points is None:
                sys.exit(f"wave3d_skeleton: fit size {n} does not split evenly over {ranks} ranks")
            calc_rows += [(points, c / o.steps) for c in res["calcs_s"]]
    fitted, fit_cmd = b.fit(calc_rows, o.check_size ** 3)
    log(f"compute model fitted on {len(calc_rows)} rows")
    b.build_skeleton()

    sim = {}
    for n in sizes:
        for ranks in (1, 2, 4):
            log(f"simulated wave3d_skel --n {n} at {ranks} rank(s)")
            sim[(n, ranks)] = b.simulate(ranks, n)

    lines = []
    lines.append("# wave3d: BSIM skeleton vs the real app, measured on this machine")
    lines.append("")
    lines.append(f"Re-run: `python3 bench/wave3d_skeleton.py --build {os.path.relpath(b.build, ROOT)} --repeats {o.repeats}`"
                 f" (on a quiet machine: `python3 bench/wave3d_skeleton.py --build build --repeats 7`)")
    lines.append(f"Measured {when} on {platform.node()}, {os.cpu_count()} cores, load average at start "
                 f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}: MEASURED UNDER LOAD unless that is near 0.")
    lines.append(f"wave3d `--n N --steps {o.steps} --repeats {o.app_repeats}`; real: `perfcast measure -n R --repeats "
                 f"{o.repeats}` (ranks pinned; app time_s = median of the app's {o.app_repeats} step loops, then median "
                 f"and IQR over the runs); 4 ranks on 2 cores are OVERSUBSCRIBED: shown for counts and correctness, no "
                 f"errors computed.")
    machine = result_paths.relative(b.machine)
    lines.append(f"Skeleton: `perfcast simulate --machine {machine} --np R -- wave3d_skel "
                 f"--n N --steps {o.steps} --repeats 1` (machine from `perfcast calibrate --quick -o "
                 f"{machine}`).")
    best = fitted["models"][fitted["chosen"]]
    seg = best["segments"][0]
    lines.append(f"Compute model: `{fit_cmd}` on sizes {fit_sizes} at 1 and 2 ranks (x = points of a rank's block, N^3 "
                 f"and N^3/2; y = the slowest rank's calc per step, each of the app's repeats in the last run): t(points) = {seg['intercept_s']:.4g} s + "
                 f"{seg['slope_s_per_x']:.4g} s x points -> apps/wave3d/skeleton/wave3d_calc_time.h")
    lines.append("")

    lines.append("## Compute model check (calc per step of the slowest rank)")
    lines.append("")
    lines.append("| N | role | ranks | points per rank | measured calc/step (ms) | model (ms) | error |")
    lines.append("|---|---|---|---|---|---|---|")
    for n in sizes:
        for ranks in (1, 2):
            meas = real[(n, ranks)]["app_result"]["calc_s"] / o.steps
            points = n ** 3 / ranks
            model = seg["intercept_s"] + seg["slope_s_per_x"] * points
            lines.append(f"| {n} | {role[n]} | {ranks} | {points:.0f} | {ms(meas)} | {ms(model)} | {pct(model, meas)} |")
    lines.append("")

    lines.append("## Step loop: real vs skeleton (times in ms; error = (predicted - real) / real)")
    lines.append("")
    lines.append("| N | role | ranks | real time (IQR) | real calc | sim calc | calc error | sim total | total error "
                 "| naive T1/p | naive error | calc only | + wait | + comm (= full) | halo msgs/step real = skel | check |")
    lines.append("|" + "---|" * 16)
    summary = {"calc": [], "total": [], "naive": [], "calc_only": [], "plus_wait": []}
    for n in sizes:
        t1 = real[(n, 1)]["app_time_s"]["median"]
        for ranks in (1, 2, 4):
            r = real[(n, ranks)]
            skel, s = sim[(n, ranks)]
            over = r["oversubscribed"]
            rt = r["app_time_s"]["median"]
            riqr = r["app_time_s"]["iqr"]
            rcalc = r["app_result"]["calc_s"]
            naive = t1 / ranks
            halo_ok = r["app_result"]["halo_msgs_per_step"] == skel["halo_msgs_per_step"] and \
                r["app_result"]["halo_bytes_per_step"] == skel["halo_bytes_per_step"]
            label = f"{ranks} (oversubscribed)" if over else str(ranks)
            if over:
                errs = ["—"] * 6
            else:
                errs = [pct(skel["calc_s"], rcalc), pct(skel["time_s"], rt),
                        "—" if ranks == 1 else pct(naive, rt),
                        pct(s["calc_only_s"], rt), pct(s["plus_wait_s"], rt), pct(s["plus_comm_s"], rt)]
                summary["calc"].append(abs(skel["calc_s"] - rcalc) / rcalc)
                summary["total"].append(abs(skel["time_s"] - rt) / rt)
                if ranks > 1:
                    summary["naive"].append(abs(naive - rt) / rt)
                summary["calc_only"].append(abs(s["calc_only_s"] - rt) / rt)
                summary["plus_wait"].append(abs(s["plus_wait_s"] - rt) / rt)
            lines.append(
                f"| {n} | {role[n]} | {label} | {ms(rt)} ({ms(riqr)}) | {ms(rcalc)} | {ms(skel['calc_s'])} | {errs[0]} | "
                f"{ms(skel['time_s'])} | {errs[1]} | {ms(naive)} | {errs[2]} | "
                f"{ms(s['calc_only_s'])} {errs[3]} | {ms(s['plus_wait_s'])} {errs[4]} | {ms(s['plus_comm_s'])} {errs[5]} | "
                f"{r['app_result']['halo_msgs_per_step']} {'=' if halo_ok else '!='} {skel['halo_msgs_per_step']} | "
                f"{r['app_result']['check']} |")
    lines.append("")
    lines.append("Mean |error| over the timed rows (1 and 2 ranks): " + ", ".join(
        f"{k} {100 * statistics.mean(v):.1f} %" for k, v in summary.items() if v) + ".")
    lines.append("Ablation columns are the simulator's per-rank calc/wait/comm over the whole skeleton run "
                 "(one step loop plus the barrier and the few small collectives around it), slowest rank; "
                 "sim total is the skeleton's own MPI_Wtime around the step loop on its simulated clock.")
    text = "\n".join(lines) + "\n"
    with open(o.output, "w") as f:
        f.write(text)
    with open(os.path.splitext(o.output)[0] + ".json", "w") as f:
        json.dump({"real": {f"{n}x{r}": v for (n, r), v in real.items()},
                   "sim": {f"{n}x{r}": {"skeleton": v[0], "sim": v[1]} for (n, r), v in sim.items()},
                   "fit": fitted}, f, indent=1, sort_keys=True)
    print(text)


if __name__ == "__main__":
    main()
