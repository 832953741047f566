#!/usr/bin/env python3
"""The state-tagged runs (diag2.sh's TAG lines) priced by the static model: once on the machine
file as calibrated, once in the state each run saw (the clock beside it, relative to the
probe's fastest reading, which is taken as the calibrated clock). With --simulate, the calibrated
pricing also runs the model's calls on the simulator: the simulated and simulated-noisy estimates.

    python3 price_tagged.py diag2.log device.toml MODELS_DIR OUT.json [--simulate]   # MODELS_DIR: perfcast validate models'"""
import concurrent.futures, json, os, re, sys
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import quiet_node as q
log, machine, models, out = sys.argv[1:5]
simulate = "--simulate" in sys.argv[5:]
TAG = re.compile(r"TAG (\w+) (.*) np(\d+) clock_before ([\d.]+)/([\d.]+) time_s ([\d.e-]+) clock_after ([\d.]+)/([\d.]+)")
runs = []
for l in open(log):
    m = TAG.match(l.strip())
    if not m: continue
    app, size, n, bb, bm, t, ab, am = m.groups()
    values = dict(kv.split("=") for kv in size.split())
    values = {k: int(v) for k, v in values.items()}
    defaults = {"wave3d": {"steps": 40}, "cg": {"iters": 50}, "mg": {"cycles": 6}, "nbody": {"steps": 20}}[app]
    values = dict(defaults, **values)
    argf = {"wave3d": "--n {n} --steps {steps} --repeats 1", "cg": "--n {n} --iters {iters} --repeats 1 --dot ordered",
            "mg": "--n {n} --cycles {cycles} --repeats 1", "nbody": "--bodies {bodies} --steps {steps} --repeats 1 --seed 12345"}[app]
    runs.append({"app": app, "values": values, "ranks": int(n), "size": " ".join(f"{k}={v}" for k, v in values.items()),
                 "args": argf.format(**values), "time_s": float(t), "probe": [float(bb), float(bm), float(ab), float(am)]})
top = max(max(r["probe"][0], r["probe"][2]) for r in runs)
cal = float(re.search(r'^clock = "([\d.]+) GHz"', open(machine).read(), re.M).group(1))
fl = {k: float(v) for k, v in re.findall(r'^(flops_per_core\w*) = "([\d.]+) Gflop/s"', open(machine).read(), re.M)}
pc = q.Perfcast(os.path.join(ROOT, 'build', 'bin', 'perfcast'), 300)
pc_sim = q.Perfcast(os.path.join(ROOT, 'build', 'bin', 'perfcast'), 300)
orig = pc.run
def run_nosim(args, timeout_s=None):
    return orig([x for x in args if x != "--simulate"], timeout_s)
pc.run = run_nosim
req = {}
for app in {r["app"] for r in runs}:
    ps = json.loads(orig(["model", "params", f"{models}/{app}.model.json", "--json"]))
    req[app] = [p["name"] for p in ps if "default" not in p]
class A: pass
def price(r):
    state = (r["probe"][1] + r["probe"][3]) / 2 / top * cal   # the window means, before and after
    out = {}
    for label, sets in (("calibrated", []), ("state", [f"node.clock={state:.3f} GHz"] +
                         [f"node.{k}={v * state / cal:.4g} Gflop/s" for k, v in fl.items()])):
        a = A(); a.models = models; a.machine = machine; a.apps = os.path.join(ROOT, 'apps'); a.set = sets
        try:
            sim = simulate and label == "calibrated"
            p = q.predict_case(pc_sim if sim else pc, a, r, req[r["app"]])
            out[label] = p["estimates"].get("refined")
            if label == "calibrated":
                out["noisy"] = p["estimates"].get("noisy")
            if sim:
                out["simulated"] = p["estimates"].get("simulated")
                out["simulated-noisy"] = p["estimates"].get("simulated-noisy")
        except Exception as e:
            out[label] = None; out[label + "_error"] = str(e)[:200]
    r["state_GHz"] = state
    r.update(out)
    return r
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    runs = list(pool.map(price, runs))
json.dump(runs, open(out, "w"), indent=1)
def err(p, m): return p / m - 1 if p else None
for r in runs:
    e1, e2 = err(r.get("calibrated"), r["time_s"]), err(r.get("state"), r["time_s"])
    print(f"{r['app']:6s} {r['size']:24s} np{r['ranks']:<2d} state {r['state_GHz']:.2f} GHz meas {r['time_s']*1e3:8.2f} ms  "
          f"calibrated {e1:+.0%}  noisy {err(r.get('noisy'), r['time_s']):+.0%}  state {e2:+.0%}"
          + (f"  simulated {err(r.get('simulated'), r['time_s']):+.0%}  simulated-noisy "
             f"{err(r.get('simulated-noisy'), r['time_s']):+.0%}" if simulate and r.get('simulated')
             and r.get('simulated-noisy') else "")
          if e1 is not None and e2 is not None else f"{r} failed")
