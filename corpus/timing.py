#!/usr/bin/env python3
"""Time predicted against measured for the corpus apps (corpus/README.md, "Time on a target").

    timing.py stage APP... --work-root DIR --to STAGE      here: binaries and inputs to carry
    timing.py measure STAGE/cases.json --out DIR            on the target: perfcast measure
    timing.py predict APP... --work-root DIR --machine FILE --measured DIR --out FILE.json
    timing.py report FILE.json                              the table again

`stage` takes each app's plain build and run inputs from a `corpus.py check` work folder
(WORK_ROOT/APP), one run folder per rank count of the recipe's [time] table. `measure` times
each with `perfcast measure` (ranks pinned, median and IQR of the repeats), reading the app's
own timer with the recipe's pattern. `predict` prices each app's timed part on the target's
machine file from the probed models of the check (`APP.probedN.json`; rank counts without one
are probed here with `--probe`), with the recipe's bindings and its [time] baseline, beside
the measured time and the naive baseline (the 1-rank time over the ranks, or the 1-rank time
itself where the problem grows with the ranks). Python 3.11 standard library only.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402  (the recipes, run folders and perfcast calls of the check)

ESTIMATES = ("formula", "refined", "noisy")


def read_json(path, what):
    """The JSON document at path; a CheckError naming the file and what it should be."""
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise corpus.CheckError(f"{path}: no such file ({what})") from None
    except json.JSONDecodeError as e:
        raise corpus.CheckError(f"{path}: line {e.lineno}: not JSON ({what})") from None


def timed_recipe(app, recipes=corpus.CORPUS_DIR):
    recipe = corpus.load_recipe(corpus.recipe_path(app, recipes))
    if recipe["time"] is None:
        raise corpus.RecipeError(f"{recipe['path']}: no [time] table: the app's own timer is not described")
    return recipe


# ---------------------------------------------------------------------------------------
# stage (here) and measure (on the target)


def stage(apps, work_root, to, recipes=corpus.CORPUS_DIR):
    """STAGE/APP/bin/BINARY and STAGE/APP/run-N/ (the inputs at N ranks), and STAGE/cases.json."""
    os.makedirs(to, exist_ok=True)
    cases = []
    for app in apps:
        recipe = timed_recipe(app, recipes)
        work = os.path.join(work_root, app)
        binary = os.path.join(work, "analysis", recipe["binary"])
        if not os.path.isfile(binary):
            raise corpus.CheckError(f"{binary} does not exist: run `corpus.py check {app} --work {work}` first")
        folder = os.path.join(to, app)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(os.path.join(folder, "bin"))
        staged = os.path.join(folder, "bin", os.path.basename(recipe["binary"]))
        shutil.copy2(binary, staged)
        for n in recipe["time"]["ranks"]:
            run = corpus.run_folder(recipe, folder, f"run-{n}", os.path.join(work, "src"), n)
            cases.append({"app": app, "ranks": n, "cwd": os.path.relpath(run, to),
                          "command": [os.path.relpath(staged, run), *corpus.run_args(recipe, n)],
                          "env": recipe["env"], "pattern": recipe["time"]["pattern"],
                          "file": recipe["time"]["file"]})
    with open(os.path.join(to, "cases.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
    return len(cases)


def measure(cases_file, out, repeats, warmup, budget_s, perfcast, ranks=None):
    """Each case timed by `perfcast measure`, its JSON in OUT/APP-npN.json, in the order of
    the file (rank counts interleaved across apps would spread drift, but each app's series
    taken together is what the naive baseline compares). Stops starting cases after budget_s."""
    cases = read_json(cases_file, "the cases `timing.py stage` writes").get("cases")
    if not isinstance(cases, list):
        raise corpus.CheckError(f"{cases_file}: no 'cases' list (the file `timing.py stage` writes)")
    root = os.path.dirname(os.path.abspath(cases_file))
    os.makedirs(out, exist_ok=True)
    started, failed = time.monotonic(), 0
    for c in cases:
        if ranks and c["ranks"] not in ranks:
            continue
        if time.monotonic() - started > budget_s:
            print(f"timing: budget of {budget_s} s spent: {c['app']} at {c['ranks']} ranks and later cases not run",
                  file=sys.stderr)
            break
        args = [perfcast, "measure", "--json", "-q", "-n", str(c["ranks"]), "-r", str(repeats), "-w", str(warmup),
                "--time-pattern", c["pattern"]]
        if c["file"]:
            args += ["--time-file", c["file"]]
        cwd = os.path.join(root, c["cwd"])
        os.makedirs(cwd, exist_ok=True)  # a run without input files: a copy of the stage may drop the empty folder
        p = subprocess.run([*args, "--", *c["command"]], cwd=cwd, env=dict(os.environ, **c["env"]),
                           capture_output=True, text=True)
        name = os.path.join(out, f"{c['app']}-np{c['ranks']}.json")
        if p.returncode != 0:
            failed += 1
            with open(name.replace(".json", ".error.txt"), "w") as f:
                f.write(p.stdout + p.stderr)
            print(f"timing: {c['app']} at {c['ranks']} ranks FAILED: {p.stderr.strip().splitlines()[-1:]}",
                  file=sys.stderr)
            continue
        with open(name, "w") as f:
            f.write(p.stdout)
        m = json.loads(p.stdout)
        app_time = m.get("app_time_s") or {}
        print(f"timing: {c['app']} at {c['ranks']} ranks: own time {app_time.get('median')} s "
              f"(IQR {app_time.get('iqr')}), launch {m['wall_s']['median']:.3f} s", file=sys.stderr, flush=True)
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------
# predict (here)


def probed_model(recipe, work, perfcast, n, probe_missing):
    """The check's model probed at n ranks; probed here when asked and missing (oversubscribed:
    the probe counts, it does not time)."""
    app = recipe["name"]
    probed, model = os.path.join(work, f"{app}.probed{n}.json"), os.path.join(work, f"{app}.json")
    if os.path.exists(probed) and os.path.getmtime(probed) >= os.path.getmtime(model):
        return probed  # else made from an earlier analysis: probed again
    if not probe_missing:
        return None
    folder = corpus.run_folder(recipe, work, f"run-probe-{n}", os.path.join(work, "src"), n)
    corpus.progress(app, f"probe run at {n} ranks")
    corpus.run_perfcast(perfcast, ["probe", model, "-o", probed, "--", *corpus.mpirun(n),
                                   os.path.join(work, "probes", recipe["binary"]), *corpus.run_args(recipe, n)],
                        cwd=folder, env=recipe["env"], timeout_s=recipe["timeout_s"], what=f"probe at {n} ranks",
                        log=os.path.join(work, f"probe-{n}.log"))
    return probed


def measured_time(measured_dirs, app, n):
    """The app's own time at n ranks pooled over the passes (one folder each): median and IQR
    of every launch, and each pass's median (their spread is the machine's drift)."""
    samples, passes, launches = [], [], []
    for folder in measured_dirs:
        path = os.path.join(folder, f"{app}-np{n}.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            m = json.load(f)
        if not m.get("app_time_s"):
            continue
        samples += m["app_time_s"]["samples"]
        passes.append(m["app_time_s"]["median"])
        launches.append(m["wall_s"]["median"])
    if not samples:
        return None
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive") if len(samples) > 1 else (samples[0],) * 3
    return {"median": statistics.median(samples), "iqr": q3 - q1, "samples": samples, "pass_medians": passes,
            "launch_s": statistics.median(launches)}


def estimates(prediction):
    """The timed part's estimates of `predict --json`, seconds (the slowest rank's)."""
    keys = {"formula": "predicted_time_s", "refined": "refined_time_s", "noisy": "noisy_time_s"}
    return {name: prediction[key] for name, key in keys.items() if isinstance(prediction.get(key), (int, float))}


def run_predict(recipe, work, perfcast, args, n, log_name):
    corpus.progress(recipe["name"], f"predicting at {n} ranks ({log_name})")
    return json.loads(corpus.run_perfcast(perfcast, args, what=f"predict at {n} ranks", timeout_s=recipe["timeout_s"],
                                          log=os.path.join(work, f"time-{log_name}-{n}.log")))


def timed_part(recipe, work, perfcast, probed, machine, n, applied):
    """The timed part's estimates: `predict --baseline-param` (the run less the baseline, site by
    site). Where predict refuses that pair because a call's mean size differs between the two
    (a site whose calls the timed loop mixes with the set-up's), the difference of the two
    whole-run predictions instead, labelled."""
    timed = {b["name"]: b["value"] for b in recipe["time"]["bind"]}  # the timed part's own values, over the probe's
    args = ["predict", probed, "--machine", machine, "--np", str(n), "--json"]
    args += [w for name, value in [*((k, v) for k, v in applied if k not in timed), *timed.items()]
             for w in ("--param", f"{name}={value}")]
    baseline = [w for b in recipe["time"]["baseline"] for w in ("--baseline-param", b)]
    try:
        p = run_predict(recipe, work, perfcast, args + baseline, n, "part")
        return {"predicted_s": estimates(p), "method": "baseline", "warnings": p.get("warnings", []),
                "mca_cpu": p.get("mca_cpu"), "timed_bindings": timed}
    except corpus.CheckError as e:
        if "is no one call to price" not in str(e):
            raise
        refusal = str(e).split(": ", 1)[-1].splitlines()[0]
    run = run_predict(recipe, work, perfcast, args, n, "run")
    base = run_predict(recipe, work, perfcast, [*args, *(w for b in recipe["time"]["baseline"] for w in ("--param", b))],
                       n, "baseline")
    whole, less = estimates(run), estimates(base)
    return {"predicted_s": {k: whole[k] - less[k] for k in whole if k in less}, "method": "difference",
            "why_difference": refusal, "warnings": run.get("warnings", []), "mca_cpu": run.get("mca_cpu"),
            "timed_bindings": timed}


def predict_app(recipe, work, perfcast, machine, measured_dir, probe_missing):
    app, rows = recipe["name"], []
    one = measured_time(measured_dir, app, 1)
    for n in recipe["time"]["ranks"]:
        row = {"app": app, "ranks": n, "measured": measured_time(measured_dir, app, n)}
        if one and n > 1:
            row["naive_s"] = one["median"] if recipe["time"]["grows"] else one["median"] / n
        try:
            probed = probed_model(recipe, work, perfcast, n, probe_missing)
            if probed is None:
                row["refused"] = f"no model probed at {n} ranks since the analysis ({app}.probed{n}.json; --probe makes one here)"
                rows.append(row)
                continue
            listed = corpus.model_parameters(perfcast, probed)
            required = {p["name"] for p in listed if "default" not in p}
            applied, _ = corpus.user_bindings(recipe, n, required, {p["name"] for p in listed})
            left = sorted(required - {name for name, _ in applied})
            if left:
                row["refused"] = f"{len(left)} parameters the recipe does not bind at {n} ranks: {', '.join(left[:4])}"
                rows.append(row)
                continue
            row.update(timed_part(recipe, work, perfcast, probed, machine, n, applied))
            if applied and n not in recipe["ranks"]:  # the recipe's values were checked at its run.ranks only
                row["bindings_beyond_checked_ranks"] = [name for name, _ in applied]
        except (corpus.CheckError, corpus.RecipeError) as e:
            row["refused"] = str(e)
        rows.append(row)
    return rows


def error(model, row):
    m = row.get("measured")
    return None if model is None or not m else model / m["median"] - 1.0


def summary(rows):
    """Mean absolute error and rows within 20 % per estimate over the rows with a measurement
    and a prediction, the naive baseline over the same rows (those past 1 rank) and over every
    row that has it."""
    def line(name, errors):
        errors = [abs(e) for e in errors if e is not None]
        return {"estimate": name, "rows": len(errors), "mean_abs_error": statistics.fmean(errors) if errors else None,
                "within_20": sum(1 for e in errors if e <= 0.2)}

    predicted = [r for r in rows if r.get("predicted_s") and r.get("measured")]
    lines = [line(key, [error(r["predicted_s"].get(key), r) for r in predicted]) for key in ESTIMATES]
    past_one = [r for r in predicted if "naive_s" in r]
    for key in ESTIMATES:
        lines.append(line(f"{key}, past 1 rank", [error(r["predicted_s"].get(key), r) for r in past_one]))
    lines.append(line("naive, past 1 rank", [error(r["naive_s"], r) for r in past_one]))
    lines.append(line("naive, every measured row", [error(r.get("naive_s"), r) for r in rows if "naive_s" in r]))
    return [l for l in lines if l["rows"]]


def ms(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:.3g} ms"


def pct(e):
    return "-" if e is None else f"{e:+.0%}"


def render(result):
    out = [f"Time predicted against measured: machine {result['machine']}, measured in {result['measured']}",
           "(each prediction the timed part only, made without any run of the app on the target; naive: the",
           "1-rank time over the ranks, or the 1-rank time where the problem grows with the ranks)", "",
           "| app | ranks | measured (IQR) | " + " | ".join(ESTIMATES) + " | naive | "
           + " | ".join(f"{k}'s error" for k in (*ESTIMATES, "naive")) + " |",
           "|---|---|---|" + "---|" * (2 * len(ESTIMATES) + 2)]
    for r in result["rows"]:
        m = r.get("measured")
        cell = f"{ms(m['median'])} ({ms(m['iqr'])})" if m else "not measured"
        if m and len(m.get("pass_medians", [])) > 1:
            cell += "; passes " + ", ".join(ms(x) for x in m["pass_medians"])
        p = r.get("predicted_s", {})
        if "refused" in r:
            out.append(f"| {r['app']} | {r['ranks']} | {cell} | refused: {' '.join(r['refused'].split()).replace('|', '/')} |"
                       + " |" * (2 * len(ESTIMATES) + 1))
            continue
        label = " (difference of two runs)" if r.get("method") == "difference" else ""
        out.append(f"| {r['app']} | {r['ranks']}{label} | {cell} | " + " | ".join(ms(p.get(k)) for k in ESTIMATES)
                   + f" | {ms(r.get('naive_s'))} | "
                   + " | ".join(pct(error(p.get(k), r)) for k in ESTIMATES) + f" | {pct(error(r.get('naive_s'), r))} |")
    beyond = [f"{r['app']} at {r['ranks']}: {', '.join(r['bindings_beyond_checked_ranks'])}"
              for r in result["rows"] if r.get("bindings_beyond_checked_ranks")]
    timed = sorted({f"{r['app']}: " + ", ".join(f"{k} = {v}" for k, v in r["timed_bindings"].items())
                    for r in result["rows"] if r.get("timed_bindings")})
    if timed:
        out += ["", "The timed part's own values (the recipe's [[time.bind]], over the probe's):"]
        out += [f"- {line}" for line in timed]
    if beyond:
        out += ["", "Recipe bindings applied at rank counts the check did not verify them at (run.ranks):"]
        out += [f"- {line}" for line in beyond]
    out += ["", "| estimate | rows | mean abs error | within 20 % |", "|---|---|---|---|"]
    out += [f"| {s['estimate']} | {s['rows']} | {s['mean_abs_error']:.0%} | {s['within_20']} |" for s in result["summary"]]
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="timing.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipes", default=corpus.CORPUS_DIR, help=argparse.SUPPRESS)  # the driver's own tests
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("stage", help="copy each app's plain build and inputs into a folder to carry")
    s.add_argument("apps", nargs="+")
    s.add_argument("--work-root", required=True, help="the folder holding each app's `corpus.py check --work` folder")
    s.add_argument("--to", required=True, help="the stage folder (cases.json is written there)")
    s = sub.add_parser("measure", help="time every staged case with perfcast measure")
    s.add_argument("cases")
    s.add_argument("--out", required=True, help="one APP-npN.json per case")
    s.add_argument("--repeats", type=int, default=3)
    s.add_argument("--warmup", type=int, default=1)
    s.add_argument("--budget-s", type=float, default=300, help="no case starts later than this (default 300)")
    s.add_argument("--ranks", type=lambda text: [int(n) for n in text.split(",")],
                   help="only these rank counts, e.g. 1 (a drift check at the end)")
    s.add_argument("--perfcast", default="perfcast")
    s = sub.add_parser("predict", help="price each app's timed part on a machine file beside the measured times")
    s.add_argument("apps", nargs="+")
    s.add_argument("--work-root", required=True, help="the folder holding each app's `corpus.py check --work` folder")
    s.add_argument("--machine", required=True, help="the target's machine file (its own calibrate)")
    s.add_argument("--measured", required=True, nargs="+",
                   help="the folders `measure --out` wrote (passes of one lease: pooled)")
    s.add_argument("--build", default="build", help="perfcast's build folder (default: build)")
    s.add_argument("--probe", action="store_true", help="probe here the rank counts the check did not")
    s.add_argument("--out", required=True, help="the figures as JSON (the table goes to stdout)")
    s = sub.add_parser("report", help="the table of a predict --out file")
    s.add_argument("file")
    a = parser.parse_args(argv)
    try:
        if a.command == "stage":
            print(f"timing: {stage(a.apps, os.path.abspath(a.work_root), os.path.abspath(a.to), a.recipes)} cases staged in {a.to}")
            return 0
        if a.command == "measure":
            return measure(a.cases, a.out, a.repeats, a.warmup, a.budget_s, a.perfcast, a.ranks)
        if a.command == "report":
            result = read_json(a.file, "the figures `timing.py predict --out` writes")
            missing = [k for k in ("machine", "measured", "rows", "summary") if k not in result]
            if missing:
                raise corpus.CheckError(f"{a.file}: no field '{missing[0]}': not a `timing.py predict --out` file")
            print(render(result))
            return 0
        perfcast = os.path.abspath(os.path.join(a.build, "bin", "perfcast"))
        for folder in a.measured:
            if not os.path.isdir(folder):
                raise corpus.CheckError(f"--measured {folder}: no such folder (`timing.py measure --out` writes one)")
        for app in a.apps:
            model = os.path.join(a.work_root, app, f"{app}.json")
            if not os.path.isfile(model):
                raise corpus.CheckError(f"{model}: no analysed model: run `corpus.py check {app} --work "
                                        f"{os.path.join(a.work_root, app)}` first")
        rows = []
        for app in a.apps:
            recipe = timed_recipe(app, a.recipes)
            machine = os.path.abspath(a.machine) if os.path.exists(a.machine) else a.machine  # or a bundled name
            rows += predict_app(recipe, os.path.join(os.path.abspath(a.work_root), app), perfcast, machine,
                                a.measured, a.probe)
        result = {"machine": a.machine, "measured": a.measured, "rows": rows, "summary": summary(rows)}
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
        print(render(result))
        return 0
    except (corpus.RecipeError, corpus.CheckError) as e:
        print(f"timing: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
