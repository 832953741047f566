#!/usr/bin/env python3
"""How close LLVM MCA's in-core cycles come to this machine (issue 5's in-core refinement).

`perfcast analyze` prices every innermost loop with LLVM's machine-code analyser
(cycles per iteration from the target's scheduling model); `perfcast predict`
turns them into seconds with the machine file's clock. This bench checks that
piece alone, on reference loops whose data sit in L1 (bench/mca_kernels/kernels.c),
so neither memory nor MPI blurs it:

  1. `perfcast analyze bench/mca_kernels/kernels.c --mcpu CPU`: per kernel, MCA
     cycles per call = sum over its priced loops of trips x cycles per iteration
     (x the trips of the loops around them); the same model gives flops and bytes;
  2. the kernels built with the build's clang (PERFCAST_CLANG in its CMakeCache.txt,
     the compiler analyze uses) at -O2 -g (analyze's level),
     each timed by `perfcast measure -n 1 --repeats R` (its own time_s over a
     timed loop of calls; median, IQR, fastest), turned into cycles with the
     machine file's clock (`perfcast calibrate` measures it);
  3. beside MCA, the paper's plain formula with every byte from L1,
     max(flops / peak, bytes / L1 bandwidth): the baseline the refinement must beat.

A loop is "latency-bound" for MCA when its cycles per iteration exceed its
reciprocal throughput by more than 5 % (a loop-carried chain decides), else
"throughput-bound" (ports decide).

    python3 bench/mca_accuracy.py --build build --machine bench/results/2026-11-24-wave3d-skeleton/wave3d_machine.toml --mcpu znver3

Writes bench/results/<date>-mca-accuracy/mca_accuracy.md (and .json; --out) and prints the table.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402

SOURCE = os.path.join(ROOT, "bench", "mca_kernels", "kernels.c")
KERNELS = ["triad", "scale", "poly", "jacobi2d", "stencil3d", "divide", "rsqrt", "sum", "dot", "spmv"]
UNITS = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def quantity(text, unit):
    """'3.21 GHz' with unit 'Hz' -> 3.21e9 (the machine file's quantities, docs/machine-format.md)."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kKMGT]?)" + re.escape(unit) + r"\s*", text)
    if not m:
        sys.exit(f"mca_accuracy: '{text}' is not a quantity in {unit}")
    return float(m.group(1)) * UNITS[m.group(2)]


def build_clang(build):
    """The clang the build compiles apps with (cmake/PerfcastMpi.cmake), as its cache records it."""
    cache = os.path.join(build, "CMakeCache.txt")
    try:
        with open(cache) as f:
            for line in f:
                if line.startswith("PERFCAST_CLANG:"):
                    return line.split("=", 1)[1].strip()
    except OSError as e:
        sys.exit(f"mca_accuracy: cannot read {cache} ({e.strerror}): --build names a configured build directory")
    sys.exit(f"mca_accuracy: {cache} has no PERFCAST_CLANG: configure the build with perfcast's CMakeLists.txt")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, **kw)
    if p.returncode != 0:
        sys.exit(f"mca_accuracy: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return p


def number(x, what):
    """The model's trip counts and cycles are numbers here (the kernels' sizes are
    constants); anything symbolic means the kernel changed shape."""
    try:
        return float(x)
    except (TypeError, ValueError):
        sys.exit(f"mca_accuracy: {what} is '{x}', expected a number (kernel sizes must be constants)")


def price(node, outer, acc):
    """Walks a model function body: MCA cycles, flops and bytes per call."""
    if isinstance(node, list):
        for n in node:
            price(n, outer, acc)
        return
    if not isinstance(node, dict):
        return
    if node.get("kind") == "loop":
        trips = number(node["trip_count"], f"trip count of the loop at line {node.get('line')}")
        if "cycles_per_iteration" in node:
            cpi = number(node["cycles_per_iteration"], f"cycles per iteration at line {node.get('line')}")
            acc["cycles"] += outer * trips * cpi
            mca = node.get("mca", {})
            if mca.get("cpi", 0) > 1.05 * mca.get("rthroughput", 0):
                acc["latency_bound"] = True
        elif "overhead_cycles_per_iteration" in node:
            # An outer loop's own blocks (outside its subloops), as predict counts them.
            acc["cycles"] += outer * trips * number(node["overhead_cycles_per_iteration"],
                                                    f"overhead cycles at line {node.get('line')}")
        price(node.get("body", []), outer * trips, acc)
        return
    if node.get("kind") == "compute":
        acc["flops"] += outer * (number(node.get("flops_double", 0), "flops") +
                                 number(node.get("flops_single", 0), "flops"))
        acc["bytes"] += outer * (number(node.get("load_bytes", 0), "bytes") +
                                 number(node.get("store_bytes", 0), "bytes"))
    for key in ("body", "then", "else", "cases"):
        if key in node:
            price(node[key], outer, acc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="build directory with bin/perfcast")
    ap.add_argument("--machine", default=result_paths.relative(result_paths.WAVE3D_MACHINE),
                    help="machine file with node.clock, flops_per_core and the L1 bandwidth (perfcast calibrate)")
    ap.add_argument("--mcpu", default="", help="LLVM CPU for MCA (default: the host's as LLVM names it)")
    ap.add_argument("--host-cycles", action="store_true",
                    help="analyze with --machine MACHINE: the machine file's measured instruction cycles (FP add, "
                         "multiply, divide, sqrt) put into the MCA model, for a host newer than the model")
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--elements", type=float, default=1e8, help="kernel iterations per timed run")
    ap.add_argument("--work", default="/tmp/perfcast-mca-accuracy")
    ap.add_argument("--out", default=os.path.join(result_paths.relative(result_paths.new_run_dir("mca-accuracy")),
                                                 "mca_accuracy"), help="output path without .md/.json")
    a = ap.parse_args()
    perfcast = os.path.join(ROOT, a.build, "bin", "perfcast")
    os.makedirs(a.work, exist_ok=True)
    with open(os.path.join(ROOT, a.machine), "rb") as f:
        machine = tomllib.load(f)
    node = machine.get("node", {})
    if "clock" not in node:
        sys.exit(f"mca_accuracy: {a.machine} has no node.clock (run perfcast calibrate)")
    clock = quantity(node["clock"], "Hz")
    peak_per_cycle = quantity(node["flops_per_core"], "flop/s") / clock
    l1_per_cycle = quantity(machine["memory"]["L1"]["bandwidth"], "B/s") / clock

    model = os.path.join(a.work, "kernels.model.json")
    mcpu = ["--mcpu", a.mcpu] if a.mcpu else []
    if a.host_cycles:
        mcpu += ["--machine", os.path.join(ROOT, a.machine)]
    run([perfcast, "analyze", SOURCE, "-o", model] + mcpu)
    with open(model) as f:
        m = json.load(f)
    binary = os.path.join(a.work, "kernels")
    clang = build_clang(os.path.join(ROOT, a.build))
    run([clang, "-O2", "-g", SOURCE, "-o", binary, "-lm"])

    started = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    rows = []
    for k in KERNELS:
        if k not in m["functions"]:
            sys.exit(f"mca_accuracy: the model has no function '{k}'")
        acc = {"cycles": 0.0, "flops": 0.0, "bytes": 0.0, "latency_bound": False}
        price(m["functions"][k]["body"], 1.0, acc)
        probe = json.loads(run([binary, k, "1"]).stdout.strip().splitlines()[-1])
        elements = probe["elements"]
        reps = max(1, int(a.elements / elements))
        p = run([perfcast, "measure", "-n", "1", "--repeats", str(a.repeats), "--json", "-q", "--",
                 binary, k, str(reps)])
        t = json.loads(p.stdout)["app_time_s"]
        per_elem = clock / (reps * elements)
        meas = {s: t[s] * per_elem for s in ("median", "iqr", "min")}
        mca = acc["cycles"] / elements
        plain = max(acc["flops"] / peak_per_cycle, acc["bytes"] / l1_per_cycle) / elements
        rows.append({"kernel": k, "bound": "latency" if acc["latency_bound"] else "throughput",
                     "mca_cycles_per_element": mca, "plain_l1_cycles_per_element": plain,
                     "measured_cycles_per_element": meas, "elements_per_call": elements, "calls": reps,
                     "flops_per_element": acc["flops"] / elements, "bytes_per_element": acc["bytes"] / elements})
        print(f"{k:10s} {rows[-1]['bound']:10s} MCA {mca:6.2f}  measured {meas['median']:6.2f} "
              f"(IQR {meas['iqr']:.2f}, fastest {meas['min']:.2f})  measured/MCA {meas['median'] / mca:5.2f}  "
              f"plain all-L1 {plain:5.2f}", flush=True)

    def err(pred, meas):
        return 100.0 * (pred - meas) / meas

    lines = ["# LLVM MCA's in-core cycles against this machine (issue 5)", "",
             f"Run {started}; load average at start {load:.1f}. Machine file `{a.machine}` "
             f"(clock {clock / 1e9:.3g} GHz, peak {peak_per_cycle:.3g} flop/cycle, L1 {l1_per_cycle:.3g} B/cycle); "
             f"MCA CPU `{a.mcpu or 'host'}`"
             + (f", with the machine file's measured instruction cycles ({'; '.join(m['mca'].get('host_cycles', {}).get('applied', []))})"
                if a.host_cycles else "") + ".", "",
             f"`python3 bench/mca_accuracy.py --build {a.build} --machine {a.machine}"
             + (f" --mcpu {a.mcpu}" if a.mcpu else "") + (" --host-cycles" if a.host_cycles else "")
             + f" --repeats {a.repeats}`", "",
             f"Reference loops with their data in L1 (bench/mca_kernels/kernels.c), built with {os.path.basename(clang)} -O2 -g "
             "as `perfcast analyze` compiles them. Cycles per element (one iteration of the source loop): "
             "`MCA` = the model's trips x cycles per iteration; `plain all-L1` = the paper's formula, "
             "max(flops / peak, bytes / L1 bandwidth); measured = `perfcast measure` median over "
             f"{a.repeats} runs x clock. `bound` = what decides MCA's figure: a loop-carried chain (latency) or "
             "the ports (throughput).", "",
             "| kernel | bound | flops/elem | bytes/elem | plain all-L1 | err | MCA | err | measured median (IQR) | "
             "fastest | MCA vs fastest |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        me = r["measured_cycles_per_element"]
        lines.append(f"| {r['kernel']} | {r['bound']} | {r['flops_per_element']:.3g} | {r['bytes_per_element']:.3g} | "
                     f"{r['plain_l1_cycles_per_element']:.3g} | {err(r['plain_l1_cycles_per_element'], me['median']):+.0f} % | "
                     f"{r['mca_cycles_per_element']:.3g} | {err(r['mca_cycles_per_element'], me['median']):+.0f} % | "
                     f"{me['median']:.3g} ({me['iqr']:.2g}) | {me['min']:.3g} | "
                     f"{err(r['mca_cycles_per_element'], me['min']):+.0f} % |")
    for kind in ("throughput", "latency"):
        sel = [r for r in rows if r["bound"] == kind]
        if not sel:
            continue
        e_mca = [abs(err(r["mca_cycles_per_element"], r["measured_cycles_per_element"]["median"])) for r in sel]
        e_plain = [abs(err(r["plain_l1_cycles_per_element"], r["measured_cycles_per_element"]["median"]))
                   for r in sel]
        e_fast = [abs(err(r["mca_cycles_per_element"], r["measured_cycles_per_element"]["min"])) for r in sel]
        lines.append(f"| **{kind}-bound ({len(sel)})** | | | | mean abs err {statistics.mean(e_plain):.0f} % | | "
                     f"mean abs err {statistics.mean(e_mca):.0f} % | | | | mean abs err {statistics.mean(e_fast):.0f} % |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = os.path.join(ROOT, a.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".md", "w") as f:
        f.write(text)
    with open(out + ".json", "w") as f:
        json.dump({"started": started, "load": load, "machine": a.machine, "mcpu": a.mcpu, "host_cycles": a.host_cycles, "clock_Hz": clock,
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
