"""mg at n = 64: its sweeps (smooth:187, residual:236) priced with every point at level 0's block
beside the mean level validate.toml binds (README, "One stream per array read at several
offsets"). A what-if on the recorded models and device.toml, no run: the level fields bound to level
0's block and vcycle.calls_per_entry to the levels' volume over level 0's (sum of 8^-l), so the
sweeps' points are all priced at level 0's rate; only those two sites are swapped into the refined
total, the rest (halo messages, restriction, prolongation) kept at the mean level.

    python3 mg_level0_whatif.py PERFCAST MODELS"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mg_cg_reasons as reasons  # noqa: E402

SWEEPS = {("smooth", 187), ("residual", 236)}


def main(perfcast, models):
    model = os.path.join(models, "mg.model.json")
    names = json.load(open(model))["parameters"]
    print("ranks | sweeps at the mean level | at level 0 (x calls) | refined, error -> with the sweeps at level 0 | measured")
    for R in (1, 2, 4, 8, 16):
        run, _ = reasons.bound("mg", {"n": 64, "cycles": 6}, R)
        env = {k: reasons.evaluate(v, {}, 0, R) for k, v in run.items() if re.fullmatch(r"[\w.]+", k)}
        j, rank = reasons.predict(perfcast, models, "mg", {"n": 64, "cycles": 6}, R)
        mean_sites = sum(s["refined_s"] for s in rank["sites"] if (s["function"], s["line"]) in SWEEPS)
        m = [64 // d for d in reasons.DIMS[R]]
        calls = sum(8.0 ** -l for l in range(int(env["vcycle.calls_per_entry"])))
        level0 = {"m_0": m[0], "m_1": m[1], "m_2": m[2], "sx": m[0] + 2, "sxy": (m[0] + 2) * (m[1] + 2)}
        params = {k: v for k, v in run.items() if k in names}
        for prefix in ("L.", "vcycle.L."):
            params.update({prefix + k: str(v) for k, v in level0.items()})
        params["vcycle.calls_per_entry"] = str(calls)
        cmd = [perfcast, "predict", model, "--machine", reasons.MACHINE, "--np", str(R), "--json"]
        cmd += [x for k, v in sorted(params.items()) for x in ("--param", f"{k}={v}")]
        j0 = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        rank0 = next(x for x in j0["ranks"] if x["rank"] == (j0["refined_slowest_rank"] or 0))
        l0_sites = sum(s["refined_s"] for s in rank0["sites"] if (s["function"], s["line"]) in SWEEPS)
        meas = reasons.MEASURED[("mg", "n=64 cycles=6", R)]
        whatif = j["refined_time_s"] - mean_sites + l0_sites
        print(f"{R:2d} | {mean_sites * 1e3:.2f} ms | {l0_sites * 1e3:.2f} ms (x {calls:.3f}) | "
              f"{j['refined_time_s'] * 1e3:.3g} ms ({100 * (j['refined_time_s'] / meas - 1):+.0f} %) -> "
              f"{whatif * 1e3:.3g} ms ({100 * (whatif / meas - 1):+.0f} %) | {meas * 1e3:.3g} ms")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
