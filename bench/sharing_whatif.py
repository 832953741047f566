#!/usr/bin/env python3
"""What pricing node sharing could close of the 16-rank gap on recorded runs: a WHAT-IF, not
a measurement. The static model's refined prediction of recorded `perfcast measure` rows (1 and
16 ranks on one node) on the machine file calibrated in the same lease, then on the same file
with assumed sharing figures added by --set (bandwidth_by_cores, busy_slowdown: see
docs/machine-format.md). The assumed figures are stated in the output; none is measured by
`perfcast calibrate` on that machine, so the table says what the mechanism can do, not what
the machine does. The real figure needs a calibrate run there, which now measures them.

    python3 bench/sharing_whatif.py --build build \
        --runs ../shared/device/measured-2026-11-26-xeon16/lease2

The rows' parameters are bound as bench/static_validation.py binds them (apps/*/bindings.py);
cg runs to its tolerance, so its iteration count is taken from a 1-rank run here (--cg-iters
overrides). The timed part is predict's of the run minus a 0-step baseline (--baseline-param), as there.
"""
import argparse
import csv
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import static_validation as sv  # noqa: E402  (bindings and timed-part arithmetic of the validation)


def level_bandwidth(machine, level):
    """A level's one-core bandwidth as the machine file spells it (perfcast machine show --json)."""
    p, _ = sv.run([CTX.perfcast, "machine", "show", machine, "--json"])
    for lv in json.loads(p.stdout)["machines"][0]["node_groups"][0]["memory"]:
        if lv["name"] == level:
            return lv["bandwidth_one_core_Bps"]
    return None


def scenarios(machine, fraction, slowdown):
    """Named lists of --set overrides: each an assumption, stated."""
    cores = json.loads(sv.run([CTX.perfcast, "machine", "show", machine, "--json"])[0].stdout)["machines"][0]["node_groups"][0]["cores"]
    out = [("as calibrated (no sharing table)", [])]
    sets = []
    for level in ("DRAM", "L3"):
        bw = level_bandwidth(machine, level)
        if bw is None:
            continue
        sets.append(f'memory.{level}.bandwidth_by_cores={{ cores = [1, {cores}], per_core = ["{bw:.6g} B/s", '
                    f'"{bw * fraction:.6g} B/s"] }}')
        out.append((f"assumed: + {level} per core at {cores} cores = {fraction:g} x one core's", list(sets)))
    out.append((f"assumed: + busy_slowdown {slowdown:g}", sets + [f"node.busy_slowdown={slowdown}"]))
    return out


def cg_iterations(n):
    p, _ = sv.run([os.path.join(CTX.apps_dir, "cg"), "--n", str(n), "--repeats", "1"])
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)["iterations"]
    sys.exit(f"sharing_whatif: cg --n {n} printed no JSON line")


def main():
    global CTX
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", required=True, help="folder with runs.csv and machine.toml of one lease")
    ap.add_argument("--fraction", type=float, default=0.5, help="assumed per-core bandwidth at all cores / one core")
    ap.add_argument("--slowdown", type=float, default=1.045, help="assumed busy_slowdown")
    ap.add_argument("--cg-iters", type=int, default=0)
    ap.add_argument("--host-cycles", action="store_true",
                    help="analyse with the lease's machine file (its FP instruction cycles), as static_validation.py "
                         "--host-cycles")
    ap.add_argument("--work", default="/tmp/perfcast-sharing-whatif")
    a = ap.parse_args()
    a.predict_machine = os.path.join(a.runs, "machine.toml")
    CTX = sv.Ctx(a)
    machine = a.predict_machine
    rows = []
    with open(os.path.join(a.runs, "runs.csv")) as f:
        for r in csv.DictReader(f):
            cmd = shlex.split(r["command"])
            app = os.path.basename(cmd[cmd.index("--map-by") + 2])
            if app not in ("wave3d", "cg", "nbody") or r["status"] != "ok":
                continue
            args = cmd[cmd.index("--map-by") + 3:]
            opt = dict(zip(args[::2], args[1::2]))
            rows.append((app, r["name"], int(r["ranks"]), opt, float(r["app_time_median_s"])))

    models = {}
    for app in sorted({r[0] for r in rows}):
        models[app] = os.path.join(CTX.work, f"{app}.model.json")
        sv.run([CTX.perfcast, "analyze", sv.APPS[app]["source"], "-o", models[app]] + sv.APPS[app]["analyze_flags"] +
               (["--machine", machine] if a.host_cycles else []))

    cases = scenarios(machine, a.fraction, a.slowdown)
    print(f"runs: {a.runs}; machine file: {machine}; analysed {'with' if a.host_cycles else 'without'} its cycles")
    for name, sets in cases:
        print(f"  {name}: " + ("; ".join(sets) if sets else "-"))
    header = "| app | run | ranks | measured | " + " | ".join(f"scenario {i}" for i in range(len(cases))) + " |"
    print("\n" + header + "\n|" + "---|" * (4 + len(cases)))
    for app, name, R, opt, measured in rows:
        size = int(opt.get("--n", opt.get("--bodies", 0)))
        steps = int(opt["--steps"]) if "--steps" in opt else (a.cg_iters or cg_iterations(size))
        run_p, _ = sv.bindings(CTX, app, models[app], size, R, steps, set())
        base_p, _ = sv.bindings(CTX, app, models[app], size, R, 0, set())
        scale = sv.APPS[app]["timed_units"](steps) / steps
        cells = []
        for _, sets in cases:
            def predict():
                cmd = [CTX.perfcast, "predict", models[app], "--machine", machine, "--np", str(R), "--json"]
                for s in sets:
                    cmd += ["--set", s]
                for k, v in sorted(run_p.items()):
                    cmd += ["--param", f"{k}={v}"]
                for k, v in sorted(sv.baseline_changes(run_p, base_p).items()):
                    cmd += ["--baseline-param", f"{k}={v}"]
                return json.loads(sv.run(cmd)[0].stdout)
            t = sv.timed_part(predict())["time_refined_s"] * scale
            cells.append(f"{sv.fmt_s(t)} ({sv.pct(t, measured)})")
        print(f"| {app} | {name} | {R} | {sv.fmt_s(measured)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
