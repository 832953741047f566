#!/usr/bin/env python3
"""The quiet-node report: bench/quiet_node.py's quiet_node.json as markdown tables.

  * every (app, size, ranks) and method: predicted, measured median and IQR, signed error
    (predicted / measured - 1), within 20 %, and the naive baseline's error on the same row;
  * per method: rows, mean absolute error, rows within 20 %, and the naive baseline's mean
    absolute error over the same rows (its rows only exist from 2 ranks on);
  * loop by loop: the model's costliest sites on its slowest rank and its communication,
    beside the phases the app times itself (wave3d's compute and MPI, bfs's generation and
    construction) and cg's kernels timed one by one;
  * the rows a method misses, each launch against the noise envelope (`noisy_slowest_state_time_s`):
    inside it the host's state explains the launch, outside it the model mis-prices it.

Methods: `formula`, `refined`, `noisy`, `simulated` and `simulated-noisy` are `perfcast predict`
(`--simulate`) of the program model on the machine file calibrated on the target, made without
any run of the app there (`noisy`: the refined time under the file's measured `node.noise`, where
it has one; `simulated-noisy`: the simulation with each rank's bursts under that noise);
`naive` is the same size's measured 1-rank time over the rank count, so it needs a run.
Only rows whose basis is the app's timed region enter the means; a whole-program prediction
(no baseline for the app) is listed and counted apart.

    python3 bench/quiet_node_report.py OUT/quiet_node.json [-o quiet_node.md]
"""
import argparse
import json
import sys

MODEL_METHODS = ("formula", "refined", "noisy", "simulated", "simulated-noisy")
METHODS = MODEL_METHODS + ("naive",)
WITHIN = 0.20
TIMED = "timed region"


def error(predicted, measured):
    """Signed relative error, None where either side is missing or the measurement is not > 0."""
    if predicted is None or measured is None or measured <= 0:
        return None
    return predicted / measured - 1


def rows(doc):
    """One row per run and method (dicts: app, size, ranks, method, basis, predicted_s,
    measured_s, q1_s, q3_s, error, within, naive_error, note)."""
    one_rank = {}
    for run in doc["runs"]:
        m = run.get("measured") or {}
        if run["ranks"] == 1 and "median_s" in m:
            one_rank[(run["app"], run["size"])] = m["median_s"]
    out = []
    for run in doc["runs"]:
        m = run.get("measured") or {}
        measured = m.get("median_s")
        pred = run.get("prediction") or {}
        t1 = one_rank.get((run["app"], run["size"]))
        naive = t1 / run["ranks"] if t1 is not None and run["ranks"] > 1 else None
        naive_err = error(naive, measured)
        check = m.get("check")
        for method in METHODS:
            note = m.get("error", "") if measured is None else ""
            if check not in (None, "passed"):
                note = f"the app's check: {check}; " + note
            if method == "naive":
                predicted, basis = naive, TIMED
                if run["ranks"] == 1:
                    note = note or "1 rank: the naive baseline is the run itself"
                elif t1 is None:
                    note = note or "no 1-rank run of this size"
            else:
                predicted = (pred.get("estimates") or {}).get(method)
                basis = pred.get("basis", "")
                if predicted is None:
                    note = "; ".join(x for x in (pred.get("error") or (pred.get("unavailable") or {}).get(method, ""),
                                                 note) if x)
                elif pred.get("unbound"):
                    note = note or f"{len(pred['unbound'])} parameters unbound, set to 1 (listed below)"
            err = error(predicted, measured)
            out.append({"app": run["app"], "size": run["size"], "ranks": run["ranks"], "method": method,
                        "basis": basis, "predicted_s": predicted, "measured_s": measured,
                        "q1_s": m.get("q1_s"), "q3_s": m.get("q3_s"), "error": err,
                        "within": None if err is None else abs(err) <= WITHIN,
                        "naive_error": naive_err, "note": note})
    return out


def summary(table):
    """Per method, over its timed-region rows with an error: count, mean abs error, within 20 %,
    and the naive baseline over those of them it has (same rows); whole-program rows counted."""
    out = []
    for method in METHODS:
        mine = [r for r in table if r["method"] == method and r["error"] is not None]
        timed = [r for r in mine if r["basis"] == TIMED]
        paired = [r for r in timed if r["naive_error"] is not None]
        out.append({
            "method": method,
            "rows": len(timed),
            "mean_abs_error": mean([abs(r["error"]) for r in timed]),
            "within": sum(1 for r in timed if r["within"]),
            "rows_with_naive": len(paired),
            "mean_abs_error_same_rows": mean([abs(r["error"]) for r in paired]),
            "naive_mean_abs_error_same_rows": mean([abs(r["naive_error"]) for r in paired]),
            "whole_program_rows": len(mine) - len(timed),
        })
    return out


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def seconds(x):
    if x is None:
        return "-"
    return f"{x * 1e3:.3g} ms" if x < 1 else f"{x:.3g} s"


def percent(x):
    return "-" if x is None else f"{x * 100:+.0f} %"


def apct(x):
    return "-" if x is None else f"{x * 100:.0f} %"


def render(doc):
    table = rows(doc)
    lines = [
        "# Accuracy on a quiet node",
        "",
        f"Run {doc.get('started', '?')} on `{doc.get('host', '?')}` ({doc.get('cores', '?')} cores); machine file "
        f"`{doc.get('machine', '?')}`; cases `{doc.get('cases', '?')}`; measured: `perfcast measure -r "
        f"{doc.get('repeats', '?')} -w {doc.get('warmup', '?')}`, ranks pinned, the app's own `time_s`.",
        "",
        sharing_line(doc.get("sharing")),
        "",
    ]
    rp = doc.get("repriced")
    if rp:
        lines += [f"**Repriced** {rp.get('at', '?')} by `{rp.get('build', '?')}` on `{rp.get('machine', '?')}` from "
                  f"`{rp.get('from', '?')}`: the recorded measurements beside new predictions, a fit to those runs "
                  "(a fresh run is the test)." + set_note(rp.get("set")), ""]
    lines += [
        "**formula, refined, noisy, simulated, simulated-noisy: predictions made without any run of the app on the target** (the "
        "program model analysed elsewhere, priced with the machine file calibrated on the target). "
        "**naive** (the same size's measured 1-rank time / ranks) needs the 1-rank run. Error = predicted / "
        "measured - 1; means over timed-region rows only.",
        "",
        "| method | runs of the app on the target | rows | mean abs error | within 20 % | rows with naive | its mean abs "
        "error there | naive's there | whole-program rows (not in the means) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summary(table):
        needs = "the 1-rank run" if s["method"] == "naive" else "none"
        lines.append(f"| {s['method']} | {needs} | {s['rows']} | {apct(s['mean_abs_error'])} | {s['within']} | "
                     f"{s['rows_with_naive']} | {apct(s['mean_abs_error_same_rows'])} | "
                     f"{apct(s['naive_mean_abs_error_same_rows'])} | {s['whole_program_rows']} |")
    lines += ["", "| app | size | ranks | method | basis | predicted | measured median | IQR | error | within 20 % "
              "| naive's error | note |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table:
        iqr = "-" if r["q1_s"] is None else f"{seconds(r['q1_s'])} - {seconds(r['q3_s'])}"
        within = "-" if r["within"] is None else ("yes" if r["within"] else "no")
        lines.append(f"| {r['app']} | {r['size']} | {r['ranks']} | {r['method']} | {r['basis']} | "
                     f"{seconds(r['predicted_s'])} | {seconds(r['measured_s'])} | {iqr} | {percent(r['error'])} | "
                     f"{within} | {percent(r['naive_error'])} | {r['note']} |")
    lines += envelope_table(doc) + unbound_lines(doc) + loop_table(doc) + kernel_table(doc)
    if doc.get("total_s") is not None:
        lines += ["", f"Predictions took {doc.get('predict_s')} s, everything {doc['total_s']} s."]
    return "\n".join(lines) + "\n"


STATIC_TARGET, SIMULATION_TARGET = 0.20, 0.10


def envelope_verdict(measured, low, high):
    """Where a measured time lies against what the machine file's noise admits for one launch:
    `low` every quantum at its fastest (the refined time), `high` the whole run in the noise's
    slowest state."""
    if measured < low:
        return "below"
    if measured > high:
        return "above"
    return "inside"


def envelope_table(doc):
    """The rows a method misses (static beyond 20 %, simulation beyond 10 %), each launch against the
    noise envelope [refined, slowest state]: inside, the launch is one the file's noise admits (the
    host's state, which no file written before the run can say); below or above, the model
    mis-prices it whatever the state."""
    missed = []
    for run in doc["runs"]:
        m, pred = run.get("measured") or {}, run.get("prediction") or {}
        env, est = pred.get("envelope"), pred.get("estimates") or {}
        median = m.get("median_s")
        if not env or not median or pred.get("basis") != TIMED:
            continue
        errors = {k: est[k] / median - 1 for k in ("noisy", "simulated-noisy") if est.get(k)}
        if all(abs(errors.get(k, 0)) <= t for k, t in (("noisy", STATIC_TARGET), ("simulated-noisy", SIMULATION_TARGET))):
            continue
        verdicts = [envelope_verdict(x, env[0], env[1]) for x in m.get("samples_s") or [median]]
        missed.append((run, errors, env, verdicts))
    if not missed:
        return []
    lines = ["", "## The rows missed, against the noise the machine file admits", "",
             "Each row where noisy misses 20 % or simulated-noisy 10 %: its launches against the envelope of one launch "
             "the file's noise admits, from the refined time (every quantum at its fastest) to the whole run in the "
             "noise's slowest state (`noisy_slowest_state_time_s`). **inside**: a launch the host's state explains, "
             "which no machine file written before the run can forecast; **below** / **above**: faster than the "
             "model's fastest state or slower than its slowest, a launch the model mis-prices.", "",
             "| app | size | ranks | noisy | simulated-noisy | envelope | launches | launches inside / below / above |",
             "|---|---|---|---|---|---|---|---|"]
    count = {"inside": 0, "below": 0, "above": 0}
    for run, errors, env, verdicts in missed:
        for v in verdicts:
            count[v] += 1
        samples = ", ".join(seconds(x) for x in (run["measured"].get("samples_s") or [run["measured"]["median_s"]]))
        lines.append(f"| {run['app']} | {run['size']} | {run['ranks']} | {percent(errors.get('noisy'))} | "
                     f"{percent(errors.get('simulated-noisy'))} | {seconds(env[0])} - {seconds(env[1])} | {samples} | "
                     f"{verdicts.count('inside')} / {verdicts.count('below')} / {verdicts.count('above')} |")
    lines += ["", f"{len(missed)} rows missed; their launches: {count['inside']} inside the envelope, "
              f"{count['below']} below it, {count['above']} above it."]
    return lines


def set_note(changed):
    """A reprice with machine keys changed (quiet_node.py --set) names them: a what-if chosen after
    seeing the runs."""
    if not changed:
        return ""
    return " Machine keys changed for it: " + ", ".join(f"`{kv}`" for kv in changed) + "."


def sharing_line(sharing):
    """The machine file's sharing figures, as calibrate measured them (or that it did not)."""
    if not sharing:
        return "Machine file's sharing figures: not recorded."
    if "error" in sharing:
        return f"Machine file's sharing figures: unreadable ({sharing['error']})."
    levels = []
    for name, table in (sharing.get("bandwidth_per_core_by_cores") or {}).items():
        if table:
            # perfcast machine show --json: {"cores streaming": bandwidth per core in B/s}
            levels.append(f"{name} " + ", ".join(f"{c} cores {bw / 1e9:.3g} GB/s"
                                                 for c, bw in sorted(table.items(), key=lambda kv: int(kv[0]))))
    clock = sharing.get("clock_Hz")
    return ("Machine file: " + (f"clock {clock / 1e9:.3g} GHz; " if clock else "")
            + f"busy_slowdown {sharing.get('busy_slowdown') or 'not measured'}; bandwidth per core by cores streaming: "
            + ("; ".join(levels) if levels else "not measured") + ".")


def unbound_lines(doc):
    """Per app, the model parameters its validate.toml leaves unbound (priced at 1, as perfcast
    validate does): a reader checks they cannot matter to the timed region."""
    seen = {}
    for run in doc["runs"]:
        names = (run.get("prediction") or {}).get("unbound")
        if names:
            seen.setdefault(run["app"], set()).update(names)
    if not seen:
        return []
    return ["", "Unbound model parameters, set to 1: "
            + "; ".join(f"{app}: {', '.join(sorted(names))}" for app, names in sorted(seen.items())) + "."]


def loop_table(doc, top=3):
    lines = ["", "## Loop by loop", "",
             f"The model's {top} costliest sites on its slowest rank (function:line, what bounds it, its refined "
             "time and share of the refined prediction) and its communication, beside what the app times "
             "itself (one launch): wave3d `calc_s`/`mpi_s`, bfs `generation_s`/`construction_s`; cg and "
             "nbody and mg time only the whole region (cg's kernels: next table).", "",
             "| app | size | ranks | measured | refined | comm (model) | costliest sites (model) | the app's phases |",
             "|---|---|---|---|---|---|---|---|"]
    for run in doc["runs"]:
        pred = run.get("prediction") or {}
        m = run.get("measured") or {}
        refined = (pred.get("estimates") or {}).get("refined")
        sites = sorted(pred.get("sites") or [], key=lambda s: -s["refined_s"])[:top]
        cells = "; ".join(f"{s['function']}:{s['line']} {s.get('bound') or ''} {seconds(s['refined_s'])}"
                          + (f" ({s['refined_s'] / refined * 100:.0f} %)" if refined else "") for s in sites)
        phases = ", ".join(f"{k} {seconds(v)}" for k, v in (m.get("phases") or {}).items())
        lines.append(f"| {run['app']} | {run['size']} | {run['ranks']} | {seconds(m.get('median_s'))} | "
                     f"{seconds(refined)} | {seconds(pred.get('comm_s'))} | {cells or pred.get('error', '-')} | "
                     f"{phases or '-'} |")
    return lines


def kernel_table(doc):
    lines = ["", "## cg's kernels one by one", ""]
    if doc.get("kernels_note"):
        return lines + [doc["kernels_note"]]
    if not doc.get("kernels"):
        return lines + ["not run"]
    lines += ["Per call: the model's site (the loop's line in cg.c, its slowest rank) and each kernel timed alone "
              "in cg's own code (bench/cg_kernels), the slowest rank's fastest and median block.", "",
              "| case | ranks | kernel | model | measured fastest | median | model vs median |",
              "|---|---|---|---|---|---|---|"]
    for k in doc["kernels"]:
        if "error" in k:
            lines.append(f"| {k['case']} | {k['ranks']} | - | {k['error']} | | | |")
            continue
        for r in k["rows"]:
            lines.append(f"| {k['case']} | {k['ranks']} | {r['kernel']} | {seconds(r['model_s'])} | "
                         f"{seconds(r['fastest_s'])} | {seconds(r['median_s'])} | "
                         f"{percent(error(r['model_s'], r['median_s']))} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="quiet_node.json (bench/quiet_node.py)")
    ap.add_argument("-o", "--output", help="write the markdown here (default: stdout)")
    a = ap.parse_args()
    try:
        with open(a.results) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"quiet_node_report: {a.results}: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        sys.exit(f"quiet_node_report: {a.results}: expected bench/quiet_node.py's document (an object with 'runs')")
    text = render(doc)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
