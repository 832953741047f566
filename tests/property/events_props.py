"""Properties of `perfcast simulate` on generated event streams (text form)."""
import json

import gen_events
from harness import close, not_greater, numbers_at, quantity

MACHINES = ["polus", "primequest", "generic-cluster", "hetero-example", "petascale"]


def machine_sets(rng):
    """Overrides that reach the engine's other paths: ranks spread over nodes, measured
    intra-node curves (the exchange pricing), rendezvous variants, per-message overhead."""
    sets = []
    if rng.random() < 0.4:
        sets.append(f"mapping.ranks_per_node={rng.choice([1, 2, 3])}")
    if rng.random() < 0.3:
        sets.append("network.intra_node_one_way={ bytes = [8, 4096, 65536], time_s = [4e-7, 2e-6, 1.2e-5] }")
        if rng.random() < 0.7:
            sets.append("network.intra_node_exchange={ bytes = [8, 4096, 65536], time_s = [6e-7, 3e-6, 1.6e-5] }")
    if rng.random() < 0.3:
        sets.append(f"network.eager_threshold=\"{rng.choice([0, 1024, 65536, 1 << 20])} B\"")
    if rng.random() < 0.3:
        sets.append(f"network.rendezvous_handshakes={rng.choice([0, 1, 2])}")
    if rng.random() < 0.3:
        sets.append(f"network.overhead=\"{rng.choice([0.0, 1e-7, 2e-6])!r} s\"")
    return sets


def set_args(sets):
    out = []
    for s in sets:
        out += ["--set", s]
    return out


_machine_cache = {}


def machine_of(h, machine, sets):
    """machine show's figures of a machine with overrides (cached)."""
    key = (machine, tuple(sets))
    if key not in _machine_cache:
        r = h.run(["machine", "show", machine, "--json"] + set_args(sets))
        doc = h.check_json_ok(r, "machine show")
        _machine_cache[key] = doc["machines"][0] if doc else None
    return _machine_cache[key]


def faster_network(rng, net):
    """One override that makes the network faster than `net` (machine show's figures)."""
    f = rng.choice([1.25, 2.0, 10.0])
    choices = [
        ("network.bandwidth", quantity(net["bandwidth_Bps"] * f, "B/s")),
        ("network.latency", quantity(net["latency_s"] / f, "s")),
        ("network.intra_node_bandwidth", quantity(net["intra_node_bandwidth_Bps"] * f, "B/s")),
        ("network.intra_node_latency", quantity(net["intra_node_latency_s"] / f, "s")),
        ("network.hop_latency", quantity(net["hop_latency_s"] / f, "s")),
        ("network.overhead", quantity(net["overhead_s"] / f, "s")),
    ]
    key, value = rng.choice(choices)
    return f"{key}={value}"


def faster_machine(rng, m):
    """One override that makes the network or a node faster than machine `m` (machine
    show's figures): a higher bandwidth or flop rate, a lower latency."""
    if rng.random() < 0.5:
        return faster_network(rng, m["network"])
    f = rng.choice([1.25, 2.0, 10.0])
    i = rng.randrange(len(m["node_groups"]))
    g = m["node_groups"][i]
    # Machines with one [node] table show one group without a name.
    prefix = "" if g["name"] == "" and len(m["node_groups"]) == 1 else f"node_group.{i}."
    node = "node." if not prefix else prefix
    level = rng.choice(g["memory"])
    choices = [(f"{node}flops_per_core", quantity(g["flops_per_core"] * f, "flop/s")),
               (f"{prefix}memory.{level['name']}.bandwidth", quantity(level["bandwidth_one_core_Bps"] * f, "B/s"))]
    key, value = rng.choice(choices)
    return f"{key}={value}"


SIM_TIMES = [("predicted_time_s",), ("ranks", "*", "calc_s"), ("ranks", "*", "wait_s"),
             ("ranks", "*", "comm_s"), ("ranks", "*", "end_s")]


def check_sim_doc(h, r, doc, nranks):
    """The invariants of one simulation's JSON."""
    missing = numbers_at(doc, SIM_TIMES)
    if not h.check(not missing, f"times that are not numbers: {missing[:4]}", [r]):
        return
    ranks = doc.get("ranks", [])
    if not h.check(len(ranks) == nranks, f"{len(ranks)} ranks in the JSON, expected {nranks}", [r]):
        return
    for rk in ranks:
        total = rk["calc_s"] + rk["wait_s"] + rk["comm_s"]
        h.check(close(total, rk["end_s"], rel=1e-9, abs_tol=1e-12),
                f"rank {rk['rank']}: calc + wait + comm = {total!r} but end = {rk['end_s']!r}", [r])
    slowest = max(rk["end_s"] for rk in ranks)
    h.check(close(doc["predicted_time_s"], slowest),
            f"predicted_time_s {doc['predicted_time_s']!r} is not the latest end {slowest!r}", [r])


def simulate(h, path, machine, sets, collectives, timeline=None):
    extra = ["--timeline", timeline] if timeline else []
    return h.run(["simulate", "--machine", machine, path, "--json", "--collectives", collectives] + set_args(sets) + extra)


def check_timeline(h, r, path, doc):
    """The timeline tells the same story as the figures: per rank, its spans do not
    overlap, end by the rank's end, and add up to its calc, wait and comm."""
    try:
        with open(path) as f:
            spans = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        h.check(False, f"the timeline is not a Chrome trace: {e}", [r])
        return
    us = 1e-6
    for rk in doc["ranks"]:
        mine = sorted((e for e in spans if e["tid"] == rk["rank"]), key=lambda e: e["ts"])
        # Written in microseconds with 6 decimals: each span may be off by half a picosecond.
        tol = (len(mine) + 1) * 1e-6 + 1e-9 * rk["end_s"] / us
        for a, b in zip(mine, mine[1:]):
            if not h.check(a["ts"] + a["dur"] <= b["ts"] + tol,
                           f"rank {rk['rank']}: timeline spans overlap: {a} and {b}", [r]):
                break
        if mine:
            last = mine[-1]["ts"] + mine[-1]["dur"]
            h.check(last <= rk["end_s"] / us + tol,
                    f"rank {rk['rank']}: its timeline ends at {last} us, after its end {rk['end_s']!r} s", [r])
        for cat in ("compute", "wait", "comm"):
            total = sum(e["dur"] for e in mine if e["cat"] == cat)
            want = rk["calc_s" if cat == "compute" else cat + "_s"] / us
            h.check(abs(total - want) <= tol,
                    f"rank {rk['rank']}: its {cat} spans add up to {total} us, its figure is {want} us", [r])


def prop_events_valid(h, case, rng):
    """Valid streams: clean JSON, calc + wait + comm = end per rank; without wildcard
    receives, a faster machine (network, flop rate, memory bandwidth) never predicts a slower run and more work on one rank
    never a faster one."""
    nranks = rng.choice([1, 2, 2, 3, 4, 5, 8, 24])
    wild = rng.random() < 0.2
    job = gen_events.generate(rng, nranks, rng.randint(3, 30), wildcards=wild)
    path = h.write("job.txt", job.text())
    machine = rng.choice(MACHINES)
    sets = machine_sets(rng)
    coll = rng.choice(["auto", "auto", "algorithms"])
    timeline = path + ".timeline.json" if rng.random() < 0.5 else None
    base = simulate(h, path, machine, sets, coll, timeline)
    doc = h.check_json_ok(base, "simulate")
    if doc is None:
        return
    check_sim_doc(h, base, doc, nranks)
    if timeline:
        check_timeline(h, base, timeline, doc)
    if job.wildcard:
        return
    m = machine_of(h, machine, sets)
    if m is not None:
        fast = simulate(h, path, machine, sets + [faster_machine(rng, m)], coll)
        fdoc = h.check_json_ok(fast, "simulate, faster machine")
        if fdoc is not None:
            check_sim_doc(h, fast, fdoc, nranks)
            h.check(not_greater(fdoc["predicted_time_s"], doc["predicted_time_s"]),
                    f"a faster machine predicts a slower run: {fdoc['predicted_time_s']!r} s > "
                    f"{doc['predicted_time_s']!r} s", [base, fast])
    text, rank = gen_events.add_work(job, rng)
    more_path = h.write("more-work.txt", text)
    more = simulate(h, more_path, machine, sets, coll)
    mdoc = h.check_json_ok(more, "simulate, more work")
    if mdoc is not None:
        check_sim_doc(h, more, mdoc, nranks)
        h.check(not_greater(doc["predicted_time_s"], mdoc["predicted_time_s"]),
                f"more work on rank {rank} predicts a faster run: {mdoc['predicted_time_s']!r} s < "
                f"{doc['predicted_time_s']!r} s", [base, more])


# ---- invalid streams ----

def _event_lines(text):
    """(index, line) of the event lines of a job text (0-based indices)."""
    return [(i, l) for i, l in enumerate(text.split("\n"))
            if l and not l.startswith("#") and not l.startswith("rank ")]


def mutate_invalid(rng, text, nranks):
    """A broken copy of a valid job text. Returns (text, where, words): the error must
    name the file and line `where` (a line number), the file alone (0), or neither
    (None: an inconsistency between ranks, which the engine finds and names by rank
    and event); and each of `words` (the field)."""
    lines = text.split("\n")
    events = _event_lines(text)
    kind = rng.choice(["kind", "number", "negative", "nan", "key", "empty", "rank_twice",
                       "rank_gap", "garbage_rank", "peer", "request"])
    if kind == "rank_twice":
        lines.append("rank 0")
        lines.append("compute 1e-6")
        return "\n".join(lines), len(lines) - 1, []
    if kind == "rank_gap":
        lines.append(f"rank {nranks + 1}")
        lines.append("compute 1e-6")
        return "\n".join(lines), 0, []
    if kind == "garbage_rank":
        lines.insert(1, rng.choice(["rank -1", "rank x", "rank", "rank 1.5"]))
        return "\n".join(lines), 2, []
    i, line = rng.choice(events)
    words = line.split()
    if kind == "kind":
        words[0] = rng.choice(["frobnicate", "Send", "all_reduce", "compute2"])
        lines[i] = " ".join(words)
        return "\n".join(lines), i + 1, []
    if kind == "key":
        lines[i] = line + rng.choice([" colour=3", " bytes", " =5", " peer:1"])
        return "\n".join(lines), i + 1, []
    if kind == "empty":
        lines[i] = line + rng.choice([" tag=", " bytes=", " req="])
        return "\n".join(lines), i + 1, []
    if kind in ("number", "negative", "nan"):
        if words[0] == "compute":
            bad = {"number": "1.5.2", "negative": "-1e-3", "nan": rng.choice(["nan", "inf", "1e999"])}[kind]
            lines[i] = f"compute {bad}"
            return "\n".join(lines), i + 1, ["seconds"]
        bad = {"number": "12abc", "negative": "-3", "nan": rng.choice(["nan", "1e999", "18446744073709551616"])}[kind]
        lines[i] = f"{words[0]} bytes={bad}" + "".join(" " + w for w in words[1:] if not w.startswith("bytes="))
        return "\n".join(lines), i + 1, ["bytes"]
    if kind == "peer":
        # A peer beyond the communicator: a semantic error the engine finds, not the parser.
        lines[i] = f"send peer={nranks + 3} tag=0 bytes=8"
        return "\n".join(lines), None, []
    # A completion of a request the rank never created.
    lines[i] = "wait req=987654"
    return "\n".join(lines), None, []


def prop_events_invalid(h, case, rng):
    """Broken streams: exit 1, nothing on stdout, one error line naming the file (and
    the line and the field where the parser finds it)."""
    nranks = rng.choice([1, 2, 3, 4])
    job = gen_events.generate(rng, nranks, rng.randint(3, 15))
    text, line_no, words = mutate_invalid(rng, job.text(), nranks)
    path = h.write("broken.txt", text)
    r = h.run(["simulate", "--machine", rng.choice(MACHINES[:4]), path, "--json"])
    must = [] if line_no is None else [f"{path}:{line_no}:" if line_no else path]
    h.check_rejected(r, must_name=must + [f"'{w}'" for w in words], what="broken event stream")


def prop_events_fuzz(h, case, rng):
    """Random byte damage: whatever the input, no crash and no hang; a rejection is
    one error line and nothing on stdout, an acceptance valid JSON."""
    nranks = rng.choice([1, 2, 3])
    text = gen_events.generate(rng, nranks, rng.randint(3, 15)).text()
    data = bytearray(text.encode())
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        pos = rng.randrange(len(data))
        if op < 0.4:
            data[pos] = rng.choice(b"0123456789-=.e ,\nanyrkx\x00\xff")
        elif op < 0.7:
            del data[pos:pos + rng.randint(1, 20)]
        else:
            data[pos:pos] = rng.choice([b"999999999999", b"-", b"=", b"\nrank 0\n", b"req=1,1", b"e308"])
    path = h.write("fuzzed.txt", data.decode(errors="replace"))
    r = h.run(["simulate", "--machine", "polus", path, "--json"])
    if not h.check_clean(r):
        return
    if r.rc == 1:
        h.check_rejected(r, what="damaged event stream")
    else:
        doc = h.check_json_ok(r, "damaged event stream accepted")
        if doc is not None:
            check_sim_doc(h, r, doc, len(doc.get("ranks", [])))
