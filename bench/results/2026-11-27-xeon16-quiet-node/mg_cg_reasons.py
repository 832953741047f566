"""mg at n = 64 and cg's kernels at 16 ranks on this lease's file: the figures behind the README's
section "mg at n = 64 and cg's kernels at 16 ranks: the reasons". Reads no clock: every figure is
`perfcast predict --json` on the recorded models and `device.toml`, beside `quiet_node.json`.

    python3 mg_cg_reasons.py PERFCAST MODELS

PERFCAST: a perfcast binary; MODELS: the folder of `perfcast validate models` (mg, cg)."""
import importlib.util
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import quiet_node as qn  # noqa: E402

MACHINE = os.path.join(HERE, "device.toml")
RECORD = json.load(open(os.path.join(HERE, "quiet_node.json")))
MEASURED = {(r["app"], r["size"], r["ranks"]): r["measured"]["median_s"] for r in RECORD["runs"]}
# Unbound in the lease's run (quiet_node.md, "Unbound model parameters"): set to 1, as there.
UNBOUND = {"mg": ["mg_parse_args.memcpy1.bytes", "scatter_coarse.MPI_Scatterv1.count", "scatter_coarse.loop5.trips",
                  "scatter_coarse.loop6.trips", "scatter_coarse.loop7.trips", "smooth_rbgs.loop4.trips",
                  "vcycle.G.len", "vcycle.cnt", "vcycle.sh.m_0", "vcycle.sh.m_1", "vcycle.sh.m_2",
                  "vcycle.sh.sx", "vcycle.sh.sxy"]}
DIMS = {1: (1, 1, 1), 2: (2, 1, 1), 4: (2, 2, 1), 8: (2, 2, 2), 16: (4, 2, 2)}  # MPI_Dims_create(R, 3)


def bound(app, values, R, with_baseline=True):
    toml = os.path.join(ROOT, "apps", app, "validate.toml")
    run = dict(qn.bind_parameters(toml, dict(values, ranks=R)), **{n: "1" for n in UNBOUND.get(app, [])})
    base = dict(qn.bind_parameters(toml, dict(values, ranks=R, **qn.BASELINES[app][0])),
                **{n: "1" for n in UNBOUND.get(app, [])})
    return run, ({k: v for k, v in base.items() if run.get(k) != v} if with_baseline else {})


def predict(perfcast, models, app, values, R, sets=()):
    run, base = bound(app, values, R)
    # Only the names this model has: validate.toml and UNBOUND follow the newest analyser, which
    # names the strides a stencil's footprint reads (residual_norms.L.sx, vcycle.sh.sx, ...).
    names = json.load(open(os.path.join(models, f"{app}.model.json")))["parameters"]
    run = {k: v for k, v in run.items() if k in names}
    base = {k: v for k, v in base.items() if k in names}
    cmd = [perfcast, "predict", os.path.join(models, f"{app}.model.json"), "--machine", MACHINE, "--np", str(R), "--json"]
    for s in sets:
        cmd += ["--set", s]
    cmd += [x for k, v in sorted(run.items()) for x in ("--param", f"{k}={v}")]
    cmd += [x for k, v in sorted(base.items()) for x in ("--baseline-param", f"{k}={v}")]
    j = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    rank = next(r for r in j["ranks"] if r["rank"] == (j["refined_slowest_rank"] or 0))
    return j, rank


def evaluate(expr, env, rank, size):
    """An expression of the bindings (validate.toml's sum/select/floordiv forms) or a footprint."""
    s = expr.replace("^", "**")
    while "sum(" in s:  # sum(k, lo, hi, body), innermost first
        i = s.rfind("sum(")
        depth, j, start, args = 0, i + 4, i + 4, []
        while True:
            c = s[j]
            if c == "(":
                depth += 1
            elif c == ")" and depth == 0:
                args.append(s[start:j])
                break
            elif c == ")":
                depth -= 1
            elif c == "," and depth == 0:
                args.append(s[start:j])
                start = j + 1
            j += 1
        v, lo, hi, body = (a.strip() for a in args)
        s = s[:i] + f"SUM(lambda {v}: ({body}), ({lo}), ({hi}))" + s[j + 1:]
    s = re.sub(r"\b([A-Za-z_]\w*(?:\.\w+)+)\b", lambda m: f"P[{m.group(1)!r}]", s)
    d = DIMS[size]
    g = {"floordiv": lambda a, b: a // b, "zext": lambda a, b: a, "min": min, "max": max, "mod": lambda a, b: a % b,
         "select": lambda c, a, b: a if c else b, "SUM": lambda f, lo, hi: sum(f(k) for k in range(int(lo), int(hi) + 1)),
         "P": env, "rank": rank, "size": size, "dims3_0": d[0], "dims3_1": d[1], "dims3_2": d[2]}
    return eval(s, g)


def loop_with_footprint(node, line):
    if isinstance(node, dict):
        if node.get("kind") == "loop" and node.get("line") == line and node.get("footprint"):
            return node
        node = list(node.values())
    if isinstance(node, list):
        for x in node:
            found = loop_with_footprint(x, line)
            if found:
                return found
    return None


def mg_table(perfcast, models):
    model = json.load(open(os.path.join(models, "mg.model.json")))
    smooth = loop_with_footprint(model["functions"]["smooth"], 187)["footprint"]
    print("mg n=64 cycles=6, rank 0 | mean level | smooth:187's footprint (load+store, MiB) | level 0's u,f,r (MiB) |"
          " smooth:187 in-core / traffic / refined (ms) | bytes per point | refined, measured (ms)")
    for R in (1, 2, 4, 8, 16):
        run, _ = bound("mg", {"n": 64, "cycles": 6}, R, with_baseline=False)
        env = {k: evaluate(v, {}, 0, R) for k, v in run.items() if re.fullmatch(r"[\w.]+", k)}
        fp = evaluate(smooth["bytes"], env, 0, R)
        points = (env["L.m_0"] - env["L.lo_0"]) * (env["L.m_1"] - env["L.lo_1"]) * (env["L.m_2"] - env["L.lo_2"])
        m = [64 // d for d in DIMS[R]]
        level0 = 3 * 8 * (m[0] + 2) * (m[1] + 2) * (m[2] + 2)
        j, rank = predict(perfcast, models, "mg", {"n": 64, "cycles": 6}, R)
        s = next(x for x in rank["sites"] if x["function"] == "smooth" and x["line"] == 187)
        meas = MEASURED[("mg", "n=64 cycles=6", R)]
        print(f"{R:2d} ranks | {env['L.m_0']}x{env['L.m_1']}x{env['L.m_2']} | {fp / 2**20:.2f} | "
              f"{m[0]}x{m[1]}x{m[2]}: {level0 / 2**20:.2f} | {s['in_core_s'] * 1e3:.2f} / {s['traffic_s'] * 1e3:.2f} / "
              f"{s['refined_s'] * 1e3:.2f} | {fp / points:.0f} | {j['refined_time_s'] * 1e3:.3g} ({100 * (j['refined_time_s'] / meas - 1):+.0f} %), "
              f"{meas * 1e3:.3g}")
    print("\nmg n=64 refined, what-ifs (--set on device.toml): error against the measured median, 1 2 4 8 16 ranks")
    for label, sets in (("as calibrated", ()), ("L2 1.0 MiB", ('memory.L2.size="1.0 MiB"',)),
                        ("L2 0.5 MiB", ('memory.L2.size="0.5 MiB"',)), ("L2 0.25 MiB", ('memory.L2.size="0.25 MiB"',)),
                        ("L2 54.9 GB/s", ('memory.L2.bandwidth="54.9 GB/s"',))):
        row = []
        for R in (1, 2, 4, 8, 16):
            j, rank = predict(perfcast, models, "mg", {"n": 64, "cycles": 6}, R, sets)
            row.append(f"{100 * (j['refined_time_s'] / MEASURED[('mg', 'n=64 cycles=6', R)] - 1):+.0f} %")
        print(f"  {label:14s} " + "  ".join(row) + f"   (16 ranks: comm {rank['refined_comm_s'] * 1e3:.2f} ms)")


def cg_table(perfcast, models):
    spec = importlib.util.spec_from_file_location("cg_bindings", os.path.join(ROOT, "apps", "cg", "bindings.py"))
    cgb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cgb)
    print("\ncg's kernels (bench/cg_kernels), per call: measured median | refined (in-core, traffic) | noisy |"
          " the site's access bytes per call over the measured time")
    for entry in RECORD["kernels"]:
        n = int(entry["case"].split()[0].split("=")[1])
        j, rank = predict(perfcast, models, "cg", {"n": n, "iters": 50}, entry["ranks"])
        for row in entry["rows"]:
            if row["kernel"] not in cgb.KERNEL_SITES:
                continue
            line, per = cgb.KERNEL_SITES[row["kernel"]]
            sites = [s for s in rank["sites"] if s["line"] == line]
            div = entry["calls"] * per
            ref = sum(s["refined_s"] for s in sites) / div
            noisy = sum(s["refined_s"] * s["noise_stretch"] for s in sites) / div
            inc = sum(s["in_core_s"] for s in sites) / div
            tr = sum(s.get("traffic_s", 0.0) for s in sites) / div
            by = sum(s["bytes"] for s in sites) / div
            m = row["median_s"]
            print(f"  n={n} {entry['ranks']:2d} ranks {row['kernel']:5s} {m * 1e6:7.1f} us | {ref * 1e6:6.1f} ({100 * (ref / m - 1):+.0f} %;"
                  f" {inc * 1e6:.1f}, {tr * 1e6:.1f}) | {noisy * 1e6:6.1f} ({100 * (noisy / m - 1):+.0f} %) | {by / m / 1e9:5.1f} GB/s")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    mg_table(sys.argv[1], sys.argv[2])
    cg_table(sys.argv[1], sys.argv[2])
