"""Round trips: one job in two forms must give one answer.

- An event stream in text form and the binary trace directory `perfcast events convert`
  makes of it: the same events (`events show`), the same simulation.
- A program model run in memory (`predict --simulate`) and its streams written out
  (`perfcast model events`): the same events and MPI calls.
"""
import json
import os

import gen_events
import gen_models
from events_props import MACHINES, check_sim_doc

# Figures of a simulation's JSON that depend on the run, not the job.
RUN_KEYS = {"source", "wall_s", "mpi_calls_per_s", "engine_bytes_per_rank"}


def prop_roundtrip(h, case, rng):
    if rng.random() < 0.6:
        _events_roundtrip(h, rng)
    else:
        _model_roundtrip(h, rng)


def _events_roundtrip(h, rng):
    nranks = rng.choice([1, 2, 3, 4, 8])
    job = gen_events.generate(rng, nranks, rng.randint(3, 25), wildcards=rng.random() < 0.2)
    text = h.write("job.txt", job.text())
    trace = os.path.join(h.work_dir, f"case{h.case}-job.trace")
    c = h.run(["events", "convert", text, trace])
    if not h.check_clean(c) or not h.check(c.rc == 0, "events convert refused a valid stream", [c]):
        return
    shown_text = h.run(["events", "show", text])
    shown_trace = h.run(["events", "show", trace])
    if h.check_clean(shown_text) and h.check_clean(shown_trace):
        h.check(shown_text.rc == 0 and shown_text.stdout == shown_trace.stdout,
                "events show differs between the text and the trace converted from it",
                [shown_text, shown_trace])
    machine = rng.choice(MACHINES)
    coll = rng.choice(["auto", "algorithms"])
    a = h.run(["simulate", "--machine", machine, text, "--json", "--collectives", coll])
    b = h.run(["simulate", "--machine", machine, trace, "--json", "--collectives", coll])
    da = h.check_json_ok(a, "simulate text")
    db = h.check_json_ok(b, "simulate trace")
    if da is None or db is None:
        return
    check_sim_doc(h, a, da, nranks)
    ka = {k: v for k, v in da.items() if k not in RUN_KEYS}
    kb = {k: v for k, v in db.items() if k not in RUN_KEYS}
    diff = sorted(k for k in set(ka) | set(kb) if ka.get(k) != kb.get(k))
    h.check(not diff, f"the text and its trace simulate differently: {diff}", [a, b])


def _model_roundtrip(h, rng):
    model = gen_models.ModelGen(rng).model()
    path = h.write("model.json", json.dumps(model, indent=1))
    np_ = rng.choice([1, 2, 3, 4])
    machine = rng.choice(MACHINES)
    trace = os.path.join(h.work_dir, f"case{h.case}-model.trace")
    w = h.run(["model", "events", path, "--np", str(np_), "-o", trace, "--machine", machine])
    if not h.check_clean(w) or not h.check(w.rc == 0, "model events refused a valid model", [w]):
        return
    s = h.run(["simulate", "--machine", machine, trace, "--json"])
    p = h.run(["predict", path, "--machine", machine, "--np", str(np_), "--json", "--simulate"])
    ds = h.check_json_ok(s, "simulate the model's trace")
    dp = h.check_json_ok(p, "predict --simulate")
    if ds is None or dp is None:
        return
    check_sim_doc(h, s, ds, np_)
    sim = dp.get("simulated") or {}
    for key in ("events", "mpi_calls"):
        h.check(ds.get(key) == sim.get(key),
                f"{key}: {ds.get(key)} in the written trace, {sim.get(key)} in predict --simulate", [s, p])
