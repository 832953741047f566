#!/usr/bin/env python3
"""Two repricings of the recorded quiet-node runs side by side (bench/quiet_node.py --reprice:
each a quiet_node.json), row by row and by app and rank count: the signed error of refined,
noisy and simulated-noisy against each row's measured median, beside the naive T1/R baseline,
and the mean absolute error (rows within 20 %) of each. The means take the timed-region rows
only (bfs is priced whole), as simnoise_summary.py does.

    python3 cpu_reprice_summary.py BEFORE_JSON AFTER_JSON [BEFORE_LABEL AFTER_LABEL]
"""
import json
import sys

ESTIMATES = ("refined", "noisy", "simulated-noisy")


def rows_of(path):
    """{(app, size, ranks): {estimate: error}} of the timed-region rows, naive included."""
    doc = json.load(open(path))
    one = {(r["app"], r["size"]): (r.get("measured") or {}).get("median_s") for r in doc["runs"] if r["ranks"] == 1}
    out = {}
    for run in doc["runs"]:
        measured = (run.get("measured") or {}).get("median_s")
        pred = run.get("prediction") or {}
        if not measured or pred.get("basis") != "timed region":
            continue
        errors = {}
        for method in ESTIMATES:
            p = (pred.get("estimates") or {}).get(method)
            if p is not None:
                errors[method] = p / measured - 1
        t1 = one.get((run["app"], run["size"]))
        if t1 and run["ranks"] > 1:
            errors["naive"] = t1 / run["ranks"] / measured - 1
        out[(run["app"], run["size"], run["ranks"])] = errors
    return out


def signed(e):
    return "-" if e is None else f"{e * 100:+.0f} %"


def mean_cell(errors):
    if not errors:
        return "-"
    mean = sum(abs(e) for e in errors) / len(errors)
    within = sum(1 for e in errors if abs(e) <= 0.20)
    return f"{mean * 100:.0f} % ({within}/{len(errors)})"


def main():
    before, after = rows_of(sys.argv[1]), rows_of(sys.argv[2])
    label_b, label_a = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else ("before", "after")
    keys = sorted(set(before) & set(after), key=lambda k: (k[0], k[1], k[2]))

    print(f"Every row, signed error ({label_b} -> {label_a}):\n")
    print("| app | size | ranks | " + " | ".join(ESTIMATES) + " | naive |")
    print("|---|---|---|" + "---|" * (len(ESTIMATES) + 1))
    for k in keys:
        cells = [f"{signed(before[k].get(m))} -> {signed(after[k].get(m))}" for m in ESTIMATES]
        print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(cells) + f" | {signed(after[k].get('naive'))} |")

    def grouped(title, key_of, values):
        print(f"\nMean abs error (rows within 20 %) by {title}, {label_b} -> {label_a}:\n")
        print(f"| estimate | " + " | ".join(str(v) for v in values) + " | all |")
        print("|---" * (len(values) + 2) + "|")
        for m in ESTIMATES + ("naive",):
            cells = []
            for v in list(values) + [None]:
                mine = [k for k in keys if v is None or key_of(k) == v]
                b = [before[k][m] for k in mine if m in before[k]]
                a = [after[k][m] for k in mine if m in after[k]]
                cells.append(mean_cell(b) if m == "naive" else f"{mean_cell(b)} -> {mean_cell(a)}")
            print(f"| {m} | " + " | ".join(cells) + " |")

    grouped("app", lambda k: k[0], sorted({k[0] for k in keys}))
    grouped("rank count", lambda k: k[2], sorted({k[2] for k in keys}))


if __name__ == "__main__":
    main()
