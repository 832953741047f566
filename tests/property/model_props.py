"""Properties of `perfcast predict` (and `predict --simulate`) on generated program models."""
import json

import gen_models
from events_props import faster_machine, machine_of, set_args
from harness import close, not_greater, numbers_at

MACHINES = ["polus", "primequest", "generic-cluster", "hetero-example"]

# The predicted times a prediction's JSON carries, each with where it is in the document.
TIMES = [("predicted_time_s",), ("refined_time_s",), ("simulated", "predicted_time_s")]


def get(doc, path):
    for k in path:
        if not isinstance(doc, dict) or doc.get(k) is None:
            return None
        doc = doc[k]
    return doc


def predict(h, path, machine, np_, sets, simulate):
    args = ["predict", path, "--machine", machine, "--np", str(np_), "--json"] + set_args(sets)
    return h.run(args + (["--simulate"] if simulate else []))


PREDICT_TIMES = [("predicted_time_s",), ("refined_time_s",), ("ranks", "*", "time_s"), ("ranks", "*", "compute_s"),
                 ("ranks", "*", "memory_s"), ("ranks", "*", "refined_time_s")]
SIMULATED_TIMES = [("simulated", "predicted_time_s"), ("simulated", "ranks", "*", "calc_s"),
                   ("simulated", "ranks", "*", "wait_s"), ("simulated", "ranks", "*", "comm_s"),
                   ("simulated", "ranks", "*", "end_s")]


def check_prediction(h, r, doc, np_):
    """What one prediction's JSON must satisfy, whatever the model."""
    missing = numbers_at(doc, PREDICT_TIMES + (SIMULATED_TIMES if "simulated" in doc else []))
    if not h.check(not missing, f"times that are not numbers: {missing[:4]}", [r]):
        return
    ranks = doc.get("ranks", [])
    if not h.check(len(ranks) == np_, f"{len(ranks)} ranks in the JSON, expected {np_}", [r]):
        return
    for key in ("time_s", "refined_time_s"):
        worst = max(rk[key] for rk in ranks)
        top = "predicted_time_s" if key == "time_s" else key
        h.check(close(doc[top], worst), f"{top} {doc[top]!r} is not the slowest rank's {key} {worst!r}", [r])
    for rk in ranks:
        # The plain formula: max(compute, memory) + communication.
        h.check(not_greater(max(rk["compute_s"], rk["memory_s"]), rk["time_s"]),
                f"rank {rk['rank']}: time {rk['time_s']!r} below its compute {rk['compute_s']!r} "
                f"or memory {rk['memory_s']!r}", [r])
        sites = rk.get("sites", [])
        if sites:
            # The sites add up to the rank's totals (docs/program-model.md, "Sites").
            flops = sum(s["flops"] for s in sites)
            h.check(close(flops, rk["flops"], rel=1e-9, abs_tol=1e-6),
                    f"rank {rk['rank']}: its sites' flops sum to {flops!r}, its total is {rk['flops']!r}", [r])
            nbytes = sum(s["bytes"] for s in sites)
            total = rk["load_bytes"] + rk["store_bytes"]
            h.check(close(nbytes, total, rel=1e-9, abs_tol=1e-6),
                    f"rank {rk['rank']}: its sites' bytes sum to {nbytes!r}, its loads + stores are {total!r}", [r])
    sim = doc.get("simulated")
    if sim:
        sranks = sim.get("ranks", [])
        if not h.check(len(sranks) == np_, f"{len(sranks)} simulated ranks, expected {np_}", [r]):
            return
        for rk in sranks:
            total = rk["calc_s"] + rk["wait_s"] + rk["comm_s"]
            h.check(close(total, rk["end_s"], rel=1e-9, abs_tol=1e-12),
                    f"simulated rank {rk['rank']}: calc + wait + comm = {total!r} but its end is {rk['end_s']!r}", [r])
        worst = max(rk["end_s"] for rk in sranks)
        h.check(close(sim["predicted_time_s"], worst),
                f"simulated.predicted_time_s {sim['predicted_time_s']!r} is not the slowest rank's {worst!r}", [r])


def prop_models_valid(h, case, rng):
    """Valid models: clean JSON and its invariants; a faster machine (network, flop rate,
    memory bandwidth) never predicts a slower run, more work on one rank never a faster one (plain, refined, simulated)."""
    gen = gen_models.ModelGen(rng)
    model = gen.model()
    path = h.write("model.json", json.dumps(model, indent=1))
    machine = rng.choice(MACHINES)
    np_ = rng.choice([1, 2, 3, 4, 6])
    sets = [f"mapping.ranks_per_node={rng.choice([1, 2])}"] if rng.random() < 0.4 else []
    simulate = rng.random() < 0.6
    base = predict(h, path, machine, np_, sets, simulate)
    doc = h.check_json_ok(base, "predict")
    if doc is None:
        return
    check_prediction(h, base, doc, np_)
    m = machine_of(h, machine, sets)
    if m is not None:
        fast = predict(h, path, machine, np_, sets + [faster_machine(rng, m)], simulate)
        fdoc = h.check_json_ok(fast, "predict, faster machine")
        if fdoc is not None:
            check_prediction(h, fast, fdoc, np_)
            for t in TIMES:
                a, b = get(fdoc, t), get(doc, t)
                if a is not None and b is not None:
                    h.check(not_greater(a, b), f"a faster machine predicts a slower run: {'.'.join(t)} "
                            f"{a!r} s > {b!r} s", [base, fast])
    more_model, rank = gen_models.add_work(model, rng)
    more_path = h.write("more-work.json", json.dumps(more_model, indent=1))
    more = predict(h, more_path, machine, np_, sets, simulate)
    mdoc = h.check_json_ok(more, "predict, more work")
    if mdoc is not None:
        check_prediction(h, more, mdoc, np_)
        for t in TIMES:
            a, b = get(doc, t), get(mdoc, t)
            if a is not None and b is not None:
                h.check(not_greater(a, b), f"more work on rank {rank} predicts a faster run: {'.'.join(t)} "
                        f"{b!r} s < {a!r} s", [base, more])


# ---- the machine's peak ----

_machine_cache = {}


def node_peaks(h, machine, sets):
    """The peak flop rate (double precision) and the cores of each node, by node index,
    and the machine's cores."""
    key = (machine, tuple(sets))
    if key not in _machine_cache:
        r = h.run(["machine", "show", machine, "--json"] + set_args(sets))
        doc = h.check_json_ok(r, "machine show")
        peaks, node_cores = [], []
        if doc:
            for g in doc["machines"][0]["node_groups"]:
                peaks += [g["peak_flops_per_node"]] * g["nodes"]
                node_cores += [g["cores"]] * g["nodes"]
        _machine_cache[key] = (peaks, node_cores, doc["machines"][0]["total_cores"] if doc else 0)
    return _machine_cache[key]


def _peak_case(h, case, rng, oversubscribed):
    gen = gen_models.ModelGen(rng, double_only=True)
    model = gen.model()
    # Compute-bound at scale, so that a rank's time is mostly its flops.
    model["functions"]["main"]["body"].insert(0, {"kind": "compute", "line": 2, "flops_double": "1e9 * (1 + mod(rank, 3))"})
    path = h.write("model.json", json.dumps(model, indent=1))
    machine = rng.choice(MACHINES)
    sets = [f"mapping.ranks_per_node={rng.choice([1, 2, 4])}"] if rng.random() < 0.3 else []
    peaks, node_cores, cores = node_peaks(h, machine, sets)
    if not peaks:
        return
    # Within the slots (one rank a core at most) or beyond them (ranks share cores).
    np_ = rng.randint(cores + 1, 2 * cores) if oversubscribed else rng.choice([1, 2, 3, 5, 8, 16, 33])
    np_ = min(np_, cores) if not oversubscribed else np_
    r = predict(h, path, machine, np_, sets, simulate=rng.random() < 0.5)
    doc = h.check_json_ok(r, "predict")
    if doc is None:
        return
    check_prediction(h, r, doc, np_)
    flops = sum(rk["flops_double"] for rk in doc["ranks"])
    nodes = {rk["node"] for rk in doc["ranks"]}
    peak = sum(peaks[n] for n in nodes)
    # The placement the report shows is where the ranks are: oversubscribed when a
    # node holds more ranks than cores, with the most ranks a core over the nodes.
    held = {}
    for rk in doc["ranks"]:
        held[rk["node"]] = held.get(rk["node"], 0) + 1
    per_core = max(held[n] / node_cores[n] for n in held)
    placements = [doc["placement"]] + ([doc["simulated"]["placement"]] if "simulated" in doc else [])
    for placement in placements:
        h.check(placement["oversubscribed"] == (per_core > 1) and placement["nodes"] == len(held)
                and abs(placement["ranks_per_core"] - per_core) <= 1e-12 * per_core
                and (per_core <= 1 or any("oversubscribed" in w for w in placement["warnings"])),
                f"{np_} ranks on nodes {held}: placement {placement} does not say {per_core:.6g} ranks a core", [r])
    for t in TIMES:
        time_s = get(doc, t)
        if time_s:
            h.check(not_greater(flops / time_s, peak, rel=1e-9),
                    f"{np_} ranks on {len(nodes)} nodes: {flops!r} flops in {'.'.join(t)} = {time_s!r} s is "
                    f"{flops / time_s:.6g} flop/s, above the nodes' peak {peak:.6g}", [r])


def prop_peak(h, case, rng):
    """Ranks within the machine's slots: flops / predicted time never above the peak of
    the nodes the ranks run on."""
    _peak_case(h, case, rng, oversubscribed=False)


def prop_peak_oversubscribed(h, case, rng):
    """More ranks than cores on the same nodes: the ranks share the cores, so the job
    still cannot beat the nodes' peak."""
    _peak_case(h, case, rng, oversubscribed=True)


# ---- broken models ----

BAD_PARAMS = [("zq_nosuch=1", "zq_nosuch"), ("p0=3 +* 2", "p0"), ("p0=", "p0"), ("p0=zq_other + 1", "zq_other"),
              ("p0=1 / 0", "p0")]


def _models_invalid(h, rng, strict):
    model = gen_models.ModelGen(rng).model()
    if rng.random() < 0.2:
        # A valid model with a bad --param: the error names the parameter.
        param, name = rng.choice(BAD_PARAMS)
        path = h.write("model.json", json.dumps(model, indent=1))
        r = h.run(["predict", path, "--machine", "polus", "--np", "2", "--json", "--param", param])
        h.check_rejected(r, must_name=[name], what="bad --param")
        return
    text, must, located = break_model(rng, model, strict)
    path = h.write("broken.json", text)
    r = h.run(["predict", path, "--machine", "polus", "--np", str(rng.choice([1, 2, 3])), "--json"]
              + (["--simulate"] if rng.random() < 0.4 else []))
    # The loader's errors name the file and the JSON path; the evaluator's name the
    # name or expression at fault. `located` is what the evaluator's errors lack today
    # and docs/program-model.md promises ("naming the function, the line, the expression").
    if located is None:
        must = [path] + must
    elif strict:
        must = must + [w.replace("FILE", path) for w in located]
    h.check_rejected(r, must_name=must, what="broken program model")


def prop_models_invalid(h, case, rng):
    """Broken models: exit 1, nothing on stdout, one error line naming what is wrong."""
    _models_invalid(h, rng, strict=False)


def prop_models_invalid_strict(h, case, rng):
    """As models_invalid, with what perfcast does not do yet: evaluation errors name the
    file and the item's line; a function's line or parameters of the wrong JSON type
    are rejected as user errors (today: an internal error, exit 3, or accepted)."""
    _models_invalid(h, rng, strict=True)


def _items(model):
    """Every item of every function, with its function's name."""
    out = []

    def walk(fn, items):
        for it in items:
            out.append((fn, it))
            for k in ("body", "then", "else"):
                if k in it:
                    walk(fn, it[k])

    for fn, f in model["functions"].items():
        walk(fn, f["body"])
    return out


def break_model(rng, model, strict=False):
    """A broken copy of a valid model: (text, words the error must name, located).
    located is None for an error the loader finds (it must name the file as well), else
    the words (FILE standing for the file) an evaluation error should also name."""
    items = _items(model)
    fn, item = rng.choice(items)
    kinds = ["negative_total", "unknown_name", "syntax", "kind", "op", "callee", "unbound",
             "format", "truncated", "huge", "divide", "line_type"]
    kind = rng.choice(kinds + (["negative", "negative_trips", "fn_line_type", "params_type"] if strict else []))
    if kind == "negative_total":
        # Negative enough to make main's total negative whatever the rest adds.
        model["functions"]["main"]["body"].append({"kind": "compute", "line": 4242, "flops_double": "(0 - 1e18) * (1 + p0)"})
        return json.dumps(model), ["main"], ["FILE", "4242"]
    if kind == "negative_trips":
        # A loop run a negative number of times, its body's work subtracted from the rest.
        model["functions"]["main"]["body"].append({"kind": "loop", "line": 4250, "trip_count": "0 - 2", "body": [
            {"kind": "compute", "line": 4251, "flops_double": "10"}]})
        return json.dumps(model), ["main"], ["FILE", "4250"]
    if kind == "negative":
        # One item's negative count, hidden in a positive total.
        model["functions"]["main"]["body"].append({"kind": "compute", "line": 4242, "flops_double": "(0 - 5) * (1 + p0)"})
        return json.dumps(model), ["main"], ["FILE", "4242"]
    if kind == "unknown_name":
        model["functions"]["main"]["body"].append({"kind": "compute", "line": 4243, "flops_double": "zq_undefined + 1"})
        return json.dumps(model), ["zq_undefined"], ["FILE", "4243"]
    if kind == "syntax":
        model["functions"]["main"]["body"].append({"kind": "compute", "line": 4244, "load_bytes": "3 +* p0"})
        return json.dumps(model), ["load_bytes"], None
    if kind == "kind":
        item["kind"] = "lopp"
        return json.dumps(model), ["lopp"], None
    if kind == "op":
        model["functions"]["main"]["body"].append({"kind": "mpi", "line": 4245, "op": "MPI_Allreduce", "bytes": "8"})
        return json.dumps(model), ["MPI_Allreduce"], None
    if kind == "callee":
        model["functions"]["main"]["body"].append({"kind": "call", "line": 4246, "function": "nowhere_fn"})
        return json.dumps(model), ["nowhere_fn"], ["FILE", "4246"]
    if kind == "unbound":
        model["parameters"]["zq_free"] = {"description": "no default"}
        model["functions"]["main"]["body"].append({"kind": "compute", "line": 4247, "flops_double": "zq_free"})
        return json.dumps(model), ["zq_free"], []
    if kind == "format":
        model["format"] = "perfcast-program-modle"
        return json.dumps(model), ["format"], None
    if kind == "truncated":
        text = json.dumps(model)
        return text[:rng.randrange(1, len(text) - 1)], [], None
    if kind == "huge":
        model["functions"]["main"]["body"].append({"kind": "compute", "line": 4248, "flops_double": "10 ^ 400"})
        return json.dumps(model), ["10^400"], ["FILE", "4248"]
    if kind == "divide":
        model["functions"]["main"]["body"].append({"kind": "compute", "line": 4249, "store_bytes": "p0 / 0"})
        return json.dumps(model), ["p0 / 0"], ["FILE", "4249"]
    if kind == "line_type":
        item["line"] = rng.choice(["12", 1.5, None, [3]])
        return json.dumps(model), ["line"], None
    if kind == "fn_line_type":
        model["functions"]["main"]["line"] = rng.choice(["12", 1.5, [3]])
        return json.dumps(model), ["line"], None
    # A function's parameters not a list of names.
    model["functions"]["main"]["parameters"] = rng.choice(["a", 7, [1, 2], {"a": 1}])
    return json.dumps(model), ["parameters"], None
