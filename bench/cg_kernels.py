#!/usr/bin/env python3
"""cg loop by loop: the static model's per-loop times against each loop timed alone.

bench/static_validation.py compares whole runs; when one is off, this says
which loop is. cg's kernels are timed one by one in cg's own code
(bench/cg_kernels/cg_kernels.c includes apps/cg/cg.c): blocks of K calls, the
kernels taking turns block by block, ROUNDS times, ranks pinned to cores; per
kernel the per-call fastest and median over the rounds (the slowest rank's).
Beside them, from `perfcast analyze apps/cg/cg.c` and `perfcast predict` (the
bindings static_validation.py uses), per call:

  spmv  the site of cg.c:139 (the CSR product in cg_solve), run minus a
        zero-iteration baseline over K iterations;
  dot   cg.c:162 (dots(), per-plane partial sums), two calls per iteration;
  axpy  cg.c:227 (x += alpha p);
  comm  the refined communication per iteration, beside the halo exchange
        plus two allreduces measured (back to back, the ranks in step: a
        floor; in the solve they arrive apart, after unequal compute);
  solve the refined time per iteration and the same x noise (predict's
        noise_stretch, the cores' noise measured just before the runs by
        `perfcast calibrate --noise-only`, as static_validation.py does),
        beside cg_solve timed.

For each model figure: `refined` (what predict sums: in-core from LLVM MCA or
the memory level's traffic, whichever bounds), and `in-core` alone.

    python3 bench/cg_kernels.py --build build --machine bench/results/2026-11-24-wave3d-skeleton/wave3d_machine.toml --mcpu znver3

Writes bench/results/<date>-cg-kernels/cg_kernels.md (and .json; --out) and prints the table. Runs
with more ranks than cores are refused: they time the scheduler, not cg.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402
import static_validation as sv  # noqa: E402  (the bindings of cg's model parameters)

MPIRUN = ["mpirun.openmpi", "--allow-run-as-root", "--bind-to", "core", "--map-by", "core"]
SITES = sv.BINDINGS["cg"].KERNEL_SITES  # kernel: (line of its site in cg.c, calls per iteration)


def die(msg):
    sys.exit(f"cg_kernels: {msg}")


def measured(binary, n, R, calls, rounds):
    cmd = MPIRUN + ["-n", str(R), binary, str(n), str(calls), str(rounds)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        die(f"`{' '.join(cmd)}` failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    out = {r["kernel"]: r for r in rows}
    for r in out.values():
        if r["ranks"] != R:
            die(f"asked for {R} ranks, the job had {r['ranks']}")
    return out


def site_totals(j):
    """Rank 0's sites summed by source line: (refined_s, in_core_s). A line's sites are copies of
    one loop (inlined into several callers); the refined prediction is the sum of its sites'
    times plus communication, so their sum is that loop's share of it, and the run's minus the
    baseline's is the loop's part of the timed iterations."""
    totals = {}
    for s in j["ranks"][0]["sites"]:
        t = totals.setdefault(s["line"], [0.0, 0.0])
        t[0] += s["refined_s"]
        t[1] += s["in_core_s"] or 0.0
    return totals


def modelled(ctx, model, n, R, calls):
    run_p, _ = sv.bindings(ctx, "cg", model, n, R, calls, set())
    base_p, _ = sv.bindings(ctx, "cg", model, n, R, 0, set())
    run_j, base_j = ctx.predict(model, R, run_p), ctx.predict(model, R, base_p)
    run_s, base_s = site_totals(run_j), site_totals(base_j)
    out = {}
    for kernel, (line, _) in SITES.items():
        if line not in run_s:
            die(f"apps/cg/bindings.py: KERNEL_SITES puts {kernel} at cg.c:{line}, where the model has no site "
                f"(its sites' lines: {', '.join(str(x) for x in sorted(run_s))}): an edit to cg.c moved it")
    for kernel, (line, per_iter) in SITES.items():
        r, b = run_s.get(line, [0.0, 0.0]), base_s.get(line, [0.0, 0.0])
        out[kernel] = {"refined_s": (r[0] - b[0]) / (calls * per_iter), "in_core_s": (r[1] - b[1]) / (calls * per_iter)}
    comm = (run_j["ranks"][0]["refined_comm_s"] - base_j["ranks"][0]["refined_comm_s"]) / calls
    part = sv.timed_part(run_j, base_j)  # the refined estimate, run minus baseline
    solve = part["time_refined_s"] / calls
    out["comm"] = {"refined_s": comm, "in_core_s": None}
    out["solve"] = {"refined_s": solve, "in_core_s": None,
                    "noisy_s": solve * part["noise_stretch"] if part["noise_stretch"] else None}
    return out


def pct(pred, meas):
    return f"{100 * (pred - meas) / meas:+.0f} %" if pred is not None and meas else "-"


def us(x):
    return f"{x * 1e6:.2f}" if x is not None else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="build directory (bin/perfcast, bench/cg_kernels)")
    ap.add_argument("--machine", default=result_paths.relative(result_paths.WAVE3D_MACHINE),
                    help="machine file (perfcast calibrate)")
    ap.add_argument("--mcpu", default="", help="LLVM CPU for MCA (as static_validation.py's --mcpu)")
    ap.add_argument("--sizes", default="16,32", help="grid sizes n (n^3 rows)")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--rounds", type=int, default=15, help="blocks per kernel (fastest and median over them)")
    ap.add_argument("--work", default="/tmp/perfcast-cg-kernels")
    ap.add_argument("--out", default=os.path.join(result_paths.relative(result_paths.new_run_dir("cg-kernels")), "cg_kernels"),
                    help="output path without .md/.json")
    ap.add_argument("--no-noise", action="store_true",
                    help="do not measure the cores' noise first (solve x noise then uses the machine file's, if any)")
    a = ap.parse_args()
    build = a.build if os.path.isabs(a.build) else os.path.join(ROOT, a.build)
    machine = a.machine if os.path.isabs(a.machine) else os.path.join(ROOT, a.machine)
    binary = os.path.join(build, "bench", "cg_kernels")
    if not os.path.exists(binary):
        die(f"{binary} not found: build the project first (cmake --build {a.build})")
    if not os.path.exists(machine):
        die(f"machine file {machine} not found (perfcast calibrate -o FILE writes one)")
    if a.rounds < 3:
        die("--rounds must be at least 3 (a median of fewer is no median)")
    sizes = [int(x) for x in a.sizes.split(",")]
    ranks = [int(x) for x in a.ranks.split(",")]
    cores = os.cpu_count() or 1
    if max(ranks) > cores:
        die(f"--ranks {max(ranks)} is more than the {cores} cores here: oversubscribed runs time the scheduler")
    os.makedirs(a.work, exist_ok=True)
    predict_machine, noise = machine, None
    if not a.no_noise:
        # The host's noise now, not when the machine file was calibrated.
        predict_machine = os.path.join(a.work, "machine_with_noise_now.toml")
        p, _ = sv.run([os.path.join(build, "bin", "perfcast"), "calibrate", "--noise-only", machine,
                       "-o", predict_machine, "--json"])
        noise = json.loads(p.stdout)
    ctx = sv.Ctx(types.SimpleNamespace(build=build, predict_machine=predict_machine, work=a.work))
    model = os.path.join(a.work, "cg.model.json")
    cmd = [ctx.perfcast, "analyze", "apps/cg/cg.c", "-o", model] + sv.APPS["cg"]["analyze_flags"]
    if a.mcpu:
        cmd += ["--mcpu", a.mcpu]
    sv.run(cmd)

    started = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    results = []
    for n in sizes:
        calls = sv.APPS["cg"]["time_steps"](n)  # the iterations static_validation times
        for R in ranks:
            print(f"[{datetime.datetime.utcnow():%H:%M:%S}] n={n} R={R}: {calls} calls per block, {a.rounds} rounds",
                  file=sys.stderr)
            m = measured(binary, n, R, calls, a.rounds)
            p = modelled(ctx, model, n, R, calls)
            meas = {k: (m[k]["fastest_s"], m[k]["median_s"]) for k in ("spmv", "dot", "axpy", "solve")}
            meas["comm"] = tuple(m["halo"][i] + 2 * m["allreduce"][i] for i in ("fastest_s", "median_s"))
            parts = tuple(meas["spmv"][i] + 2 * meas["dot"][i] + 3 * meas["axpy"][i] + meas["comm"][i] for i in (0, 1))
            results.append({"n": n, "R": R, "calls": calls, "rounds": a.rounds, "model": p, "measured": meas,
                            "sum_of_parts": parts})

    lines = [f"# cg loop by loop: the static model against each loop timed alone (issue 5)", "",
             f"Run {started}; machine file `{os.path.relpath(machine, ROOT)}`; MCA CPU "
             f"`{a.mcpu or 'host'}`; {a.rounds} rounds; "
             + (f"the cores' noise just before: mean stretch {noise['mean_stretch']:.3f}." if noise
                else "the machine file's noise."), "",
             f"`python3 bench/cg_kernels.py --build {a.build} --machine {a.machine}"
             + (f" --mcpu {a.mcpu}" if a.mcpu else "") + f" --sizes {a.sizes} --ranks {a.ranks} --rounds {a.rounds}`",
             "", "Per call in microseconds, rank 0's model and the slowest rank's measurement; "
             "`comm` = one iteration's halo exchange and two allreduces; `solve` = one iteration of cg_solve, "
             "whose model is the refined timed part (and x noise: predict's noise_stretch). "
             "`parts` = spmv + 2 dot + 3 axpy + comm measured alone: the solve's time beyond it is what "
             "the kernels alone do not show (the caches they share, the ranks waiting for each other).", "",
             "| n | R | kernel | model refined | model in-core | measured fastest | median | refined vs fastest "
             "| vs median |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        for k in ("spmv", "dot", "axpy", "comm", "solve"):
            mod, (fast, med) = r["model"][k], r["measured"][k]
            lines.append(f"| {r['n']} | {r['R']} | {k} | {us(mod['refined_s'])} | {us(mod['in_core_s'])} | "
                         f"{us(fast)} | {us(med)} | {pct(mod['refined_s'], fast)} | {pct(mod['refined_s'], med)} |")
        noisy = r["model"]["solve"].get("noisy_s")
        lines.append(f"| {r['n']} | {r['R']} | solve x noise | {us(noisy)} | | | | "
                     f"{pct(noisy, r['measured']['solve'][0])} | {pct(noisy, r['measured']['solve'][1])} |")
        lines.append(f"| {r['n']} | {r['R']} | parts (measured) | | | {us(r['sum_of_parts'][0])} | "
                     f"{us(r['sum_of_parts'][1])} | | |")
    spmv_err = [(r["model"]["spmv"]["refined_s"] - r["measured"]["spmv"][0]) / r["measured"]["spmv"][0]
                for r in results]
    lines += ["", f"spmv refined vs fastest, median over the rows: {100 * statistics.median(spmv_err):+.0f} %."]
    text = "\n".join(lines) + "\n"
    print(text)
    out = a.out if os.path.isabs(a.out) else os.path.join(ROOT, a.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".md", "w") as f:
        f.write(text)
    with open(out + ".json", "w") as f:
        json.dump({"started": started, "mcpu": a.mcpu, "noise": noise, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
