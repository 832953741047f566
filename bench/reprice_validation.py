#!/usr/bin/env python3
"""Re-price a recorded static validation with the perfcast built now, against the times it
measured then: what a change to the predictor does on runs already made, without waiting
minutes per row for new measurements. Changes chosen by looking at these runs are fitted to
them: a fresh `bench/static_validation.py` run is the test that counts.

For each recorded run (its results JSON, with the machine file it used beside it, and the
averaged noise file when the run had --noise-history), every app is analysed again as the run
did (same flags, host cycles from the same machine file), every row predicted again with
the run's bindings, and three columns printed against the recorded median: refined, refined x
noise (the probe just before the runs, `<run>_noise_now_machine.toml`; without it the machine
file's own noise) and refined x noise over N probes, each beside the value the run recorded.

    python3 bench/reprice_validation.py bench/results/2026-11-26-zen3-static-validation/static_validation_zen3_0925 [more runs]

A run is named by its results path without `.json`; `<run>_machine.toml` must lie beside it,
and the noise files `<run>_noise_now_machine.toml` and `<run>_noise_history_machine.toml` where
the run had them (static_validation.py keeps them). A run made with --network-history gets a
fourth column, the refined prediction on the history file's averaged network x its noise (the
history file holds that network, so its x-noise-over-probes column cannot be re-priced now).
Every figure is an estimate of `perfcast predict --baseline-param` (the timed part).
"""
import argparse
import json
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import static_validation as sv  # noqa: E402  (the bindings and timed-part arithmetic are the run's own)


def reanalyse(ctx, recorded, machine):
    """Each app's model as the run made it (its analyze command, this machine file)."""
    models = {}
    for app, (_, command) in recorded["analysis"].items():
        args = command.split()[1:]  # drop "perfcast"
        model = os.path.join(ctx.work, f"{app}.model.json")
        args[args.index("-o") + 1] = model
        if "--machine" in args:
            args[args.index("--machine") + 1] = machine
        sv.run([ctx.perfcast] + args)
        models[app] = model
    return models


def reprice(ctx, models, row, noise_now, history):
    cfg = sv.APPS[row["app"]]
    size = row.get("size_value") or int(row["size"].split("=")[1])
    R, T = row["R"], row["time_steps"]
    run_params, _ = sv.bindings(ctx, row["app"], models[row["app"]], size, R, T, set())
    base_params, _ = sv.bindings(ctx, row["app"], models[row["app"]], size, R, 0, set())
    model = models[row["app"]]
    tp = sv.timed_part(ctx.predict(model, R, run_params, base_params))
    scale = cfg["timed_units"](T) / T
    out = {"refined": tp["time_refined_s"] * scale,
           "noisy": tp["time_noisy_s"] * scale if tp["time_noisy_s"] is not None else None}
    if noise_now:
        out["noisy"] = sv.estimate_on(ctx, noise_now, model, R, run_params, base_params, "noisy") * scale
    if history:
        # predict's noisy estimate on the history file: its noise and, where the run averaged the
        # network into it too, that network (the run's `history_both` column).
        noisy = sv.estimate_on(ctx, history, model, R, run_params, base_params, "noisy") * scale
        out["history_both" if "history_both" in row["t_pred"] else "noisy_history"] = noisy
    return out


def summary(errors):
    if not errors:
        return "-"
    return (f"mean |err| {100 * sum(abs(e) for e in errors) / len(errors):.1f} %, "
            f"{sum(abs(e) <= 0.2 for e in errors)}/{len(errors)} within 20 %")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="recorded runs: results paths without .json")
    ap.add_argument("--build", default="build", help="build folder with bin/perfcast (default: build)")
    ap.add_argument("--work", default="/tmp/perfcast-reprice", help="folder for the models (default: %(default)s)")
    a = ap.parse_args()
    columns = [("refined", "refined"), ("noisy", "refined x noise"), ("noisy_history", "x noise over probes"),
               ("history_both", "x noise, network too, over probes")]
    for run_path in a.runs:
        results, machine = run_path + ".json", run_path + "_machine.toml"
        noise_now, history = run_path + "_noise_now_machine.toml", run_path + "_noise_history_machine.toml"
        noise_now = noise_now if os.path.exists(noise_now) else None
        history = history if os.path.exists(history) else None
        for path in (results, machine):
            if not os.path.exists(path):
                sys.exit(f"reprice_validation: {path} not found (a run needs its results JSON and machine file)")
        recorded = json.load(open(results))
        ctx = sv.Ctx(types.SimpleNamespace(build=a.build, work=a.work, predict_machine=machine))
        models = reanalyse(ctx, recorded, machine)
        print(f"## {run_path} (measured {recorded['started']})\n")
        print("| app | size | R | measured | " + " | ".join(f"{t} then | now | err" for _, t in columns) + " |")
        print("|---|---|---|---|" + "---|---|---|" * len(columns))
        errors = {k: {"then": [], "now": []} for k, _ in columns}
        for row in recorded["results"]:
            measured = row["t_meas"]
            if not measured:
                continue
            now = reprice(ctx, models, row, noise_now, history)
            cells = []
            for key, _ in columns:
                then_v, now_v = row["t_pred"].get(key), now.get(key)
                if then_v:
                    errors[key]["then"].append(then_v / measured - 1)
                if now_v:
                    errors[key]["now"].append(now_v / measured - 1)
                cells.append(f"{sv.fmt_s(then_v) if then_v else '-'} | {sv.fmt_s(now_v) if now_v else '-'} | "
                             + (f"{100 * (now_v / measured - 1):+.1f} %" if now_v else "-"))
            print(f"| {row['app']} | {row['size']} | {row['R']} | {sv.fmt_s(measured)} | " + " | ".join(cells) + " |",
                  flush=True)
        for key, title in columns:
            print(f"\n{title}: then {summary(errors[key]['then'])}; now {summary(errors[key]['now'])}", end="")
        print("\n")


if __name__ == "__main__":
    main()
