#!/usr/bin/env python3
"""AMG's PCG solve on the quiet node: predicted (the difference of two whole-run predictions on
the lease's calibrated file, the PCG loop as probed and at 0 trips) against the times the
2026-11-27 lease measured (its README, "The public corpus"), beside the naive baseline (the
1-rank time: AMG grows the problem with the ranks). Reads predict-NP.json and predict0-NP.json
beside this script; prints a table and writes amg_time.json."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The lease's measured PCG Solve (`perfcast measure --json`, 3 launches): median and IQR, ms.
LEASE = os.path.join(HERE, "..", "2026-11-27-xeon16-quiet-node", "corpus")
MEASURED = {}
for np_ in (1, 2, 4, 8, 16):
    with open(os.path.join(LEASE, f"amg-np{np_}.json")) as f:
        t = json.load(f)["app_time_s"]
    MEASURED[np_] = (round(t["median"] * 1e3, 3), round(t["iqr"] * 1e3, 3))
ESTIMATES = ["formula", "refined", "noisy"]


def estimates(path):
    with open(path) as f:
        j = json.load(f)
    return {e["name"]: e["time_s"] for e in j["estimates"] if e.get("time_s") is not None}


rows = []
for np_, (measured, iqr) in MEASURED.items():
    run, base = (os.path.join(HERE, f"{p}-{np_}.json") for p in ("predict", "predict0"))
    if not (os.path.exists(run) and os.path.exists(base)):
        print(f"np {np_}: no prediction", file=sys.stderr)
        continue
    a, b = estimates(run), estimates(base)
    row = {"np": np_, "measured_ms": measured, "iqr_ms": iqr,
           "naive_ms": MEASURED[1][0] if np_ > 1 else None}
    for name in ESTIMATES:
        if name in a and name in b:
            row[name + "_ms"] = (a[name] - b[name]) * 1e3
    rows.append(row)

def err(p, m):
    return f"{(p / m - 1) * 100:+.0f} %"

print("| ranks | measured (IQR) | formula | refined | noisy | naive | refined's error | noisy's error | naive's error |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    m = r["measured_ms"]
    naive = r["naive_ms"]
    print(f"| {r['np']} | {m} ms ({r['iqr_ms']}) | {r.get('formula_ms', float('nan')):.3g} ms | {r.get('refined_ms', float('nan')):.3g} ms | "
          f"{r.get('noisy_ms', float('nan')):.3g} ms | {'-' if naive is None else f'{naive} ms'} | {err(r['refined_ms'], m)} | "
          f"{err(r['noisy_ms'], m)} | {'-' if naive is None else err(naive, m)} |")
for name in ["refined", "noisy", "naive"]:
    errs = [abs(r[name + "_ms"] / r["measured_ms"] - 1) for r in rows if r.get(name + "_ms") is not None]
    if errs:
        print(f"{name}: mean abs error {100 * sum(errs) / len(errs):.0f} % over {len(errs)} rows, "
              f"{sum(e <= 0.2 for e in errs)} within 20 %")
with open(os.path.join(HERE, "amg_time.json"), "w") as f:
    json.dump({"rows": rows}, f, indent=1)
