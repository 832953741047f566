#!/usr/bin/env python3
"""The tables of README.md from this folder's quiet_node.json and node_sharing.json:
    python3 summary.py [quiet_node.json [node_sharing.json]]"""
import json, os, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
qn = json.load(open(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "quiet_node.json")))
ns = json.load(open(sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "node_sharing.json")))
METHODS = ["refined", "noisy", "simulated", "simulated-noisy", "naive"]
one = {r["size"]: r["measured"]["median_s"] for r in qn["runs"] if r["ranks"] == 1 and r.get("measured")}
rows = []
for r in qn["runs"]:
    if r["app"] == "bfs" or not r.get("measured") or not r.get("prediction"):
        continue  # bfs is priced whole (no baseline for its searches): not in the means
    m = r["measured"]["median_s"]
    est = dict(r["prediction"]["estimates"])
    est["naive"] = one[r["size"]] / r["ranks"] if r["ranks"] > 1 else None
    lo, hi = r["prediction"]["envelope"]
    rows.append({"app": r["app"], "size": r["size"], "ranks": r["ranks"], "measured": m,
                 "err": {k: (est[k] / m - 1) if est.get(k) else None for k in METHODS},
                 "envelope": "inside" if lo <= m <= hi else ("above" if m > hi else "below"),
                 "samples": r["measured"]["samples_s"], "lo": lo, "hi": hi})

def stats(sel, k):
    e = [abs(r["err"][k]) for r in sel if r["err"][k] is not None]
    if not e:
        return "-"
    return f"{100 * statistics.mean(e):.0f} % ({sum(x <= 0.2 for x in e)}/{len(e)}; {sum(x <= 0.1 for x in e)} within 10 %)"

print("| app | size | ranks | measured | " + " | ".join(METHODS) + " | the file's envelope |")
print("|---|---|---|---|" + "---|" * (len(METHODS) + 1))
for r in rows:
    cells = [f"{100 * r['err'][k]:+.0f} %" if r["err"][k] is not None else "-" for k in METHODS]
    print(f"| {r['app']} | {r['size']} | {r['ranks']} | {1e3 * r['measured']:.2f} ms | " + " | ".join(cells) + f" | {r['envelope']} |")
print()
print("| estimate | all rows | rows with naive | " + " | ".join(f"{n} ranks" for n in (1, 2, 4, 8, 16)) + " |")
print("|---|---|---|" + "---|" * 5)
for k in METHODS:
    print(f"| {k} | {stats(rows, k)} | {stats([r for r in rows if r['ranks'] > 1], k)} | "
          + " | ".join(stats([r for r in rows if r["ranks"] == n], k) for n in (1, 2, 4, 8, 16)) + " |")
print()
print("| estimate | " + " | ".join(sorted({r['app'] for r in rows})) + " |")
print("|---|" + "---|" * len({r['app'] for r in rows}))
for k in METHODS:
    print(f"| {k} | " + " | ".join(stats([r for r in rows if r["app"] == a], k) for a in sorted({r['app'] for r in rows})) + " |")
print()
above = [r for r in rows if r["envelope"] != "inside"]
print(f"rows whose median lies outside [refined, noisy slowest state]: {len(above)} of {len(rows)}")
for r in above:
    print(f"  {r['app']} {r['size']} {r['ranks']} ranks: {r['envelope']}, median {1e3*r['measured']:.2f} ms over "
          f"[{1e3*r['lo']:.2f}, {1e3*r['hi']:.2f}] ms = {r['measured']/r['hi']:.2f}x its top")
print()
print("| one rank's block | alone (median of 3) | k | k copies at once: median copy | slowest copy | slowest / alone |")
print("|---|---|---|---|---|---|")
for b in ns["blocks"]:
    alone = statistics.median(t for run in b["by_k"].get("1", []) for t in run["time_s"])
    for k, runs in b["by_k"].items():
        if k == "1":
            continue
        med = statistics.median(statistics.median(run["time_s"]) for run in runs)
        slow = statistics.median(max(run["time_s"]) for run in runs)
        print(f"| {b['name']} (`{b['args'].split(' --repeats')[0]}`) | {1e3*alone:.2f} ms | {k} | "
              f"{1e3*med:.2f} ms ({med/alone:.2f}x) | {1e3*slow:.2f} ms | {slow/alone:.2f}x |")
