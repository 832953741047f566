"""Extreme but well-formed inputs: times near the largest double, messages of 2^64 - 1
bytes, bandwidths and flop rates near zero, latencies near the largest double. Each
value is allowed where it stands, so perfcast may either answer or refuse; what it
must not do is crash, hang, or answer with a time that is not a number (JSON writers
turn infinity into null)."""
import json

import gen_events
import gen_models
from events_props import check_sim_doc, set_args
from model_props import check_prediction

HUGE_SECONDS = ["1e300", "1.7e308", "8e307"]
HUGE_BYTES = ["18446744073709551615", "9223372036854775808", "1000000000000000000000"]
MACHINE_EXTREMES = ['network.bandwidth="1e-300 B/s"', 'network.latency="1e300 s"', 'network.latency="1.7e308 s"',
                    'node.flops_per_core="1e-300 flop/s"', 'memory.DRAM.bandwidth="1e-300 B/s"',
                    'network.overhead="1e300 s"', 'network.eager_threshold="16 EiB"',
                    'network.intra_node_bandwidth="5e-324 B/s"']


def _extreme_job(rng):
    nranks = rng.choice([1, 2, 3])
    job = gen_events.generate(rng, nranks, rng.randint(3, 12))
    for lines in job.lines:
        for i, line in enumerate(lines):
            if rng.random() < 0.3:
                if line.startswith("compute") and "flops=" not in line:
                    lines[i] = f"compute {rng.choice(HUGE_SECONDS)}"
                elif line.startswith("compute"):
                    lines[i] = f"compute flops={rng.choice(['1e308', '1.7e308'])} bytes={rng.choice(['0', '1e308'])}"
    return job, nranks


def prop_extremes(h, case, rng):
    sets = rng.sample(MACHINE_EXTREMES, rng.randint(0, 2))
    if rng.random() < 0.5:
        job, nranks = _extreme_job(rng)
        text = job.text()
        if rng.random() < 0.5:  # one message of an extreme size, both sides alike
            b = rng.choice(HUGE_BYTES)
            text = text.replace(f"bytes={rng.choice(gen_events.SIZES)} ", f"bytes={b} ")
        path = h.write("job.txt", text)
        r = h.run(["simulate", "--machine", "polus", path, "--json"] + set_args(sets))
        if not h.check_clean(r):
            return
        if r.rc == 1:
            h.check_rejected(r, what="extreme event stream")
            return
        doc = h.check_json_ok(r, "extreme event stream")
        if doc is not None:
            check_sim_doc(h, r, doc, nranks)
    else:
        model = gen_models.ModelGen(rng).model()
        body = model["functions"]["main"]["body"]
        body.insert(0, {"kind": "compute", "line": 3, "flops_double": rng.choice(["1e300", "1.7e308", "1"]),
                        "load_bytes": rng.choice(["1e300", "0"])})
        if rng.random() < 0.5:
            body.append({"kind": "mpi", "line": 4, "op": rng.choice(["allreduce", "barrier"]),
                         "bytes": rng.choice(["1e300", "1e18"])})
        path = h.write("model.json", json.dumps(model, indent=1))
        np_ = rng.choice([1, 2, 3])
        r = h.run(["predict", path, "--machine", "polus", "--np", str(np_), "--json"] + set_args(sets)
                  + (["--simulate"] if rng.random() < 0.5 else []))
        if not h.check_clean(r):
            return
        if r.rc == 1:
            h.check_rejected(r, what="extreme model or machine")
            return
        doc = h.check_json_ok(r, "extreme model or machine")
        if doc is not None:
            check_prediction(h, r, doc, np_)
