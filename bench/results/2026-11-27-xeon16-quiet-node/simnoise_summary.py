#!/usr/bin/env python3
"""The estimates of a repriced quiet-node run (bench/quiet_node.py --reprice: quiet_node.json) and,
optionally, of the state-tagged runs of the same sizes (tagged/price_tagged.py --simulate: its
OUT.json; the size sweep left out) by rank count: mean absolute error and the rows within 20 % and within 10 % of the measured median (the
tagged runs: of each launch's own time), beside the naive T1/R baseline on the same rows.

    python3 simnoise_summary.py QUIET_NODE_JSON [TAGGED_JSON]
"""
import json
import statistics
import sys

ESTIMATES = ("refined", "noisy", "simulated", "simulated-noisy")


def cell(errors):
    if not errors:
        return "-"
    mean = sum(abs(e) for e in errors) / len(errors)
    w20 = sum(1 for e in errors if abs(e) <= 0.20)
    w10 = sum(1 for e in errors if abs(e) <= 0.10)
    return f"{mean * 100:.0f} % ({w20}/{w10} of {len(errors)})"


def table(rows, ranks):
    """rows: (ranks, method, error); one line per method, a column per rank count and all."""
    out = ["| estimate | " + " | ".join(f"{r} rank{'s' if r > 1 else ''}" for r in ranks) + " | all |",
           "|---" * (len(ranks) + 2) + "|"]
    for method in ESTIMATES + ("naive",):
        mine = [(r, e) for r, m, e in rows if m == method]
        cells = [cell([e for r, e in mine if r == n]) for n in ranks]
        out.append(f"| {method} | " + " | ".join(cells) + f" | {cell([e for _, e in mine])} |")
    return "\n".join(out)


def quiet_node(path):
    doc = json.load(open(path))
    one = {(r["app"], r["size"]): (r.get("measured") or {}).get("median_s") for r in doc["runs"] if r["ranks"] == 1}
    rows = []
    for run in doc["runs"]:
        measured = (run.get("measured") or {}).get("median_s")
        pred = run.get("prediction") or {}
        if not measured or pred.get("basis") != "timed region":
            continue  # the means take the timed-region rows only (bfs is priced whole)
        for method in ESTIMATES:
            p = (pred.get("estimates") or {}).get(method)
            if p is not None:
                rows.append((run["ranks"], method, p / measured - 1))
        t1 = one.get((run["app"], run["size"]))
        if t1 and run["ranks"] > 1:
            rows.append((run["ranks"], "naive", t1 / run["ranks"] / measured - 1))
    return rows, sorted({r for r, _, _ in rows})


def sizes_of(path):
    return {(r["app"], tuple(sorted(r["values"].items()))) for r in json.load(open(path))["runs"]}


def tagged(path, sizes):
    runs = [r for r in json.load(open(path)) if (r["app"], tuple(sorted(r["values"].items()))) in sizes]
    t1 = {}
    for r in runs:
        if r["ranks"] == 1:
            t1.setdefault((r["app"], r["size"]), []).append(r["time_s"])
    rows = []
    for r in runs:
        for method, key in (("refined", "calibrated"),) + tuple((m, m) for m in ESTIMATES[1:]):
            if r.get(key):
                rows.append((r["ranks"], method, r[key] / r["time_s"] - 1))
        ones = t1.get((r["app"], r["size"]))
        if ones and r["ranks"] > 1:
            rows.append((r["ranks"], "naive", statistics.median(ones) / r["ranks"] / r["time_s"] - 1))
    return rows, sorted({r for r, _, _ in rows})


def main():
    print("Recorded quiet-node runs (each row: the median of 3 launches), mean abs error "
          "(within 20 % / within 10 % of rows):\n")
    print(table(*quiet_node(sys.argv[1])))
    if len(sys.argv) > 2:
        print("\nState-tagged runs (each launch on its own):\n")
        print(table(*tagged(sys.argv[2], sizes_of(sys.argv[1]))))


if __name__ == "__main__":
    main()
