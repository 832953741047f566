#!/usr/bin/env python3
"""`perfcast predict --simulate` of the apps' models by two builds, on a machine file without and
with sharing figures (--set, docs/machine-format.md "Sharing model"): what a change to how the
simulator prices the model's bursts moves. Prints, per model, size and rank count, predict's
refined estimate (every rank of the node computing at once) and the simulated time of each build;
a row whose times are bit for bit equal says "same".

    python3 bench/simulate_sharing.py --build build --base OLD/bin/perfcast \
        --machine ../shared/device/measured-2026-11-26-xeon16/machine.toml \
        --set node.busy_slowdown=1.05 \
        --set 'memory.DRAM.bandwidth_by_cores={ cores = [1, 16], per_core = ["11.2 GB/s", "6.31 GB/s"] }'

Models: wave3d's hand-written model and the analysed wave3d and cg (bound as
bench/static_validation.py binds them, apps/*/bindings.py), whole runs (no baseline); and the
analysed tests/analyze/cases/imbalance.c, where rank 0 streams while the others wait.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import result_paths  # noqa: E402
import static_validation as sv  # noqa: E402  (the apps' bindings and analysis flags)

CASES = [("wave3d", 144, 40), ("wave3d", 320, 4), ("cg", 56, 50), ("cg", 128, 10)]


def ms(seconds):
    return f"{seconds * 1e3:.4f} ms"


def predict(perfcast, model, machine, sets, ranks, params):
    cmd = [perfcast, "predict", model, "--machine", machine, "--np", str(ranks), "--simulate", "--json"]
    for s in sets:
        cmd += ["--set", s]
    for k, v in sorted(params.items()):
        cmd += ["--param", f"{k}={v}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"simulate_sharing: {' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    j = json.loads(p.stdout)
    refined = next(e["time_s"] for e in j["estimates"] if e["name"] == "refined")
    return refined, j["simulated"]["predicted_time_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="the build tree of the change (bin/perfcast)")
    ap.add_argument("--base", required=True, help="the perfcast binary before the change")
    ap.add_argument("--machine", required=True, help="machine file")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE sharing figures (repeatable)")
    ap.add_argument("--ranks", default="1,4,16")
    ap.add_argument("--out", default=result_paths.new_run_dir("simulate-sharing"))
    ap.add_argument("--work", default="/tmp/perfcast-simulate-sharing", help="where the analysed models go")
    a = ap.parse_args()
    new = os.path.join(a.build, "bin", "perfcast")
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    models = [("wave3d hand-written", os.path.join(sv.ROOT, "apps/wave3d/wave3d.model.json"),
               lambda n, R, s: {"n": n, "steps": s}, [(144, 40), (320, 4)])]
    for app in ("wave3d", "cg"):
        model = os.path.join(a.work, f"{app}.model.json")
        if not os.path.exists(model):
            sv.run([new, "analyze", os.path.join(sv.ROOT, sv.APPS[app]["source"]), "-o", model]
                   + sv.APPS[app]["analyze_flags"])
        bind = sv.APPS[app]["bind"]
        models.append((f"{app} analysed", model, lambda n, R, s, bind=bind: {k: v[0] for k, v in bind(n, R, s).items()},
                       [(n, s) for name, n, s in CASES if name == app]))
    # The shape the change is for: rank 0 streams through 8n bytes while the others wait at a
    # barrier (the test case of tests/analyze/test_analyze.cpp).
    imbalance = os.path.join(a.work, "imbalance.model.json")
    if not os.path.exists(imbalance):
        sv.run([new, "analyze", os.path.join(sv.ROOT, "tests/analyze/cases/imbalance.c"), "-o", imbalance])
    models.append(("imbalance.c (rank 0 alone)", imbalance, lambda n, R, s: {"n": n}, [(100_000_000, 0)]))
    lines = [f"machine: {a.machine}; --set: {'; '.join(a.set) or 'none'}", "",
             "| model | size, steps | ranks | sharing keys | refined (predict) | simulated before | simulated after | change |",
             "|---|---|---|---|---|---|---|---|"]
    for label, model, params, sizes in models:
        for n, steps in sizes:
            for R in (int(r) for r in a.ranks.split(",")):
                for keys, sets in (("no", []), ("yes", a.set)):
                    refined, before = predict(a.base, model, a.machine, sets, R, params(n, R, steps))
                    _, after = predict(new, model, a.machine, sets, R, params(n, R, steps))
                    change = "same" if after == before else f"{100 * (after / before - 1):+.4f} %"
                    lines.append(f"| {label} | {n}, {steps} | {R} | {keys} | {ms(refined)} | {ms(before)} | {ms(after)} "
                                 f"| {change} |")
                    print(lines[-1], flush=True)
    with open(os.path.join(a.out, "simulate_sharing.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"written to {result_paths.relative(a.out)}/simulate_sharing.md")


if __name__ == "__main__":
    main()
