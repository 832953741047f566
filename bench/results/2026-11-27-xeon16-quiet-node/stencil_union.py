#!/usr/bin/env python3
"""The recorded quiet-node rows priced by two builds, side by side: every timed-region row's
error (predicted / measured - 1) for refined, noisy and simulated-noisy, before and after, beside
naive's, and the mean abs error (rows within 20 %) per app and over all rows.

    python3 stencil_union.py BEFORE_QUIET_NODE_JSON AFTER_QUIET_NODE_JSON

Both files are quiet_node.py --reprice outputs of the same recorded runs; a figure either side
lacks is shown as '-' and the row is left out of both sides' means for that method. Rows priced
as the whole program (bfs) are not shown."""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "quiet_node_report", os.path.join(HERE, "..", "..", "quiet_node_report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

METHODS = ("refined", "noisy", "simulated-noisy")


def errors(path):
    """(app, size, ranks) -> {method: error, 'naive': error} over timed-region rows."""
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for r in report.rows(doc):
        if r["basis"] != report.TIMED:
            continue
        key = (r["app"], r["size"], r["ranks"])
        out.setdefault(key, {})[r["method"]] = r["error"]
        out[key]["naive"] = r["naive_error"]
    return out


def pct(e):
    return "-" if e is None else f"{e * 100:+.0f} %"


def summary(pairs):
    """Mean abs error (within 20 %) of the errors that are not None."""
    vals = [abs(e) for e in pairs if e is not None]
    if not vals:
        return "-"
    return f"{100 * sum(vals) / len(vals):.0f} % ({sum(v <= 0.2 for v in vals)}/{len(vals)})"


def main():
    before, after = errors(sys.argv[1]), errors(sys.argv[2])
    # Rows some model method priced as a timed region (bfs is priced whole: not compared).
    keys = [k for k in after if k in before and any(d[k].get(m) is not None for d in (before, after)
                                                     for m in METHODS)]
    print("| app | size | ranks | " + " | ".join(f"{m} before | after" for m in METHODS) + " | naive |")
    print("|---|---|---|" + "---|---|" * len(METHODS) + "---|")
    for k in keys:
        b, a = before[k], after[k]
        cells = []
        for m in METHODS:
            cells += [pct(b.get(m)), pct(a.get(m))]
        print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(cells) + f" | {pct(a.get('naive'))} |")
    print()
    apps = sorted({k[0] for k in keys})
    print("| estimate | " + " | ".join(apps) + " | all |")
    print("|---|" + "---|" * (len(apps) + 1))
    for m in METHODS:
        for side, errs in (("before", before), ("after", after)):
            # A row counts on both sides only where both priced it.
            shared = [k for k in keys if before[k].get(m) is not None and after[k].get(m) is not None]
            cells = [summary([errs[k][m] for k in shared if k[0] == app]) for app in apps]
            print(f"| {m} {side} | " + " | ".join(cells) + f" | {summary([errs[k][m] for k in shared])} |")
    paired = [k for k in keys if after[k].get("naive") is not None]
    cells = [summary([after[k]["naive"] for k in paired if k[0] == app]) for app in apps]
    print("| naive (rows with a 1-rank run) | " + " | ".join(cells) + f" | {summary([after[k]['naive'] for k in paired])} |")


if __name__ == "__main__":
    main()
