"""Properties of machine files (docs/machine-format.md): the bundled machines/*.toml,
mutated into valid and broken ones, through `perfcast machine show`, `simulate` and
`predict`.

Mutations work on the text, line by line, so that a broken file's error can be
checked against the line the mutation touched.
"""
import glob
import json
import os
import re

import gen_events
import gen_models
from events_props import check_sim_doc
from harness import close
from model_props import check_prediction

# A quoted quantity: "5.3 Gflop/s", "64 KiB", "60 us".
QUANTITY = re.compile(r'"(-?[0-9][0-9.eE+-]*) ?([A-Za-z/]+)"')
TIME_UNITS = {"s", "ms", "us", "ns"}
SIZE_UNITS = {"B", "KiB", "MiB", "GiB", "KB", "MB", "GB"}


def bundled(source_dir):
    return sorted(glob.glob(os.path.join(source_dir, "machines", "*.toml")))


def quantities(lines):
    """(line index, match) of every quantity outside comments and strings of text."""
    out = []
    for i, line in enumerate(lines):
        code = line.split("#", 1)[0]
        if code.lstrip().startswith(("name", "description")):
            continue
        for m in QUANTITY.finditer(code):
            out.append((i, m))
    return out


def key_of(line, pos):
    """The key a quantity at `pos` of `line` is the value of: the nearest 'key =' before it."""
    keys = re.findall(r"([A-Za-z_][A-Za-z0-9_.]*)\s*=", line[:pos])
    return keys[-1].split(".")[-1] if keys else None


def fmt_number(x):
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def mutate_valid(rng, text):
    """A valid variant of a machine file. Returns (text, description)."""
    lines = text.split("\n")
    qs = quantities(lines)
    kind = rng.choice(["scale", "scale", "sizes", "cores", "network_keys", "mapping", "crossbar", "probes"])
    if kind == "scale":
        # Any time, bandwidth, flop rate or frequency times a positive factor stays valid.
        cands = [(i, m) for i, m in qs if m.group(2) not in SIZE_UNITS]
        i, m = rng.choice(cands)
        f = rng.choice([0.01, 0.5, 3.0, 1000.0])
        value = float(m.group(1)) * f
        lines[i] = lines[i][:m.start()] + f'"{fmt_number(value)} {m.group(2)}"' + lines[i][m.end():]
        return "\n".join(lines), f"{key_of(lines[i], m.start())} x {f}"
    if kind == "sizes":
        # Every size times one factor: their order outwards is kept.
        f = rng.choice([2, 4, 8])
        for i, m in reversed(qs):
            if m.group(2) in SIZE_UNITS and key_of(lines[i], m.start()) == "size":
                value = float(m.group(1)) * f
                lines[i] = lines[i][:m.start()] + f'"{fmt_number(value)} {m.group(2)}"' + lines[i][m.end():]
        return "\n".join(lines), f"sizes x {f}"
    if kind == "cores":
        idx = [i for i, l in enumerate(lines) if re.match(r"\s*cores\s*=", l)]
        i = rng.choice(idx)
        lines[i] = f"cores = {rng.choice([1, 2, 3, 7, 64, 128])}"
        return "\n".join(lines), "cores"
    if kind == "network_keys":
        i = lines.index("[network]")
        extra = rng.sample([
            'overhead = "0.5 us"', 'hop_latency = "0.2 us"', 'eager_threshold = "4 KiB"',
            'eager_threshold = "0 B"', "rendezvous_handshakes = 2", 'intra_node_latency = "0.4 us"',
            'intra_node_bandwidth = "30 GB/s"', "probes = 3",
            'intra_node_one_way = { bytes = [8, 65536], time_s = [5e-7, 1e-5] }',
            'intra_node_exchange = { bytes = [8, 1024, 65536], time_s = [7e-7, 1e-6, 1.4e-5] }'], 2)
        present = {l.split("=")[0].strip() for l in lines}
        extra = [e for e in extra if e.split("=")[0].strip() not in present]
        lines[i + 1:i + 1] = extra
        return "\n".join(lines), "network keys " + ", ".join(extra)
    if kind == "mapping" and not any(l.startswith("[mapping]") for l in lines):
        lines += ["[mapping]", rng.choice(['policy = "round_robin"', 'policy = "block"\nranks_per_node = 3'])]
        return "\n".join(lines), "mapping"
    if kind == "crossbar":
        keep = [l for l in lines if not re.match(r"\s*(torus|fat_tree_arity|fat_tree_levels|topology)\s*=", l)]
        i = keep.index("[network]")
        keep.insert(i + 1, 'topology = "crossbar"')
        return "\n".join(keep), "crossbar"
    return text, "as bundled"


def check_machine_doc(h, r, doc):
    """Derived figures that must follow from the file's (machine-format.md)."""
    ms = doc.get("machines", [])
    if not h.check(len(ms) == 1, f"{len(ms)} machines in the JSON, expected 1", [r]):
        return None
    m = ms[0]
    nodes = cores = peak = 0
    for g in m["node_groups"]:
        h.check(close(g["peak_flops_per_node"], g["cores"] * g["flops_per_core"]),
                f"group {g['name']!r}: peak per node {g['peak_flops_per_node']!r} is not cores x flops_per_core "
                f"({g['cores']} x {g['flops_per_core']!r})", [r])
        h.check(g["flops_per_core"] > 0 and g["memory_bandwidth_per_node_Bps"] > 0,
                f"group {g['name']!r}: a flop rate or bandwidth not above zero", [r])
        nodes += g["nodes"]
        cores += g["nodes"] * g["cores"]
        peak += g["nodes"] * g["peak_flops_per_node"]
    h.check(m["nodes"] == nodes, f"nodes {m['nodes']} is not the groups' sum {nodes}", [r])
    h.check(m["total_cores"] == cores, f"total_cores {m['total_cores']} is not the groups' sum {cores}", [r])
    h.check(close(m["peak_flops"], peak), f"peak_flops {m['peak_flops']!r} is not the groups' sum {peak!r}", [r])
    return m


def prop_machines_valid(h, case, rng):
    """Valid variants of the bundled machines: machine show's derived figures add up, and
    a small job simulates and predicts on it with every time finite and >= 0."""
    src = rng.choice(bundled(h.source_dir))
    text, what = mutate_valid(rng, open(src).read())
    path = h.write(os.path.basename(src), f"# {what}\n" + text)
    r = h.run(["machine", "show", path, "--json"])
    doc = h.check_json_ok(r, f"machine show ({what})")
    if doc is None:
        return
    m = check_machine_doc(h, r, doc)
    if m is None:
        return
    nranks = rng.choice([1, 2, 4, 6])
    job = gen_events.generate(rng, nranks, rng.randint(3, 15))
    events = h.write("job.txt", job.text())
    sr = h.run(["simulate", "--machine", path, events, "--json"])
    sdoc = h.check_json_ok(sr, f"simulate on a valid machine ({what})")
    if sdoc is not None:
        check_sim_doc(h, sr, sdoc, nranks)
    model = h.write("model.json", json.dumps(gen_models.ModelGen(rng).model(), indent=1))
    pr = h.run(["predict", model, "--machine", path, "--np", str(nranks), "--json", "--simulate"])
    pdoc = h.check_json_ok(pr, f"predict on a valid machine ({what})")
    if pdoc is not None:
        check_prediction(h, pr, pdoc, nranks)


def mutate_invalid(rng, text):
    """A broken variant of a machine file: (text, line number the error must name or 0 for
    the file alone, words it must name)."""
    lines = text.split("\n")
    qs = quantities(lines)
    kind = rng.choice(["unit", "bare", "negative", "zero", "unknown_key", "missing", "cores",
                       "topology", "syntax", "duplicate", "size_order", "string_count"])
    if kind in ("unit", "bare", "negative", "zero"):
        # Times and the eager threshold may be zero; sizes, bandwidths and flop rates not.
        cands = qs if kind != "zero" else [(i, m) for i, m in qs if m.group(2) not in TIME_UNITS
                                           and key_of(lines[i], m.start()) != "eager_threshold"]
        i, m = rng.choice(cands)
        key = key_of(lines[i], m.start())
        new = {"unit": f'"{m.group(1)} parsecs"', "bare": m.group(1),
               "negative": f'"-{m.group(1)} {m.group(2)}"', "zero": f'"0 {m.group(2)}"'}[kind]
        lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
        return "\n".join(lines), i + 1, [key]
    if kind == "unknown_key":
        tables = [i for i, l in enumerate(lines) if re.match(r"\[(node|network|memory|math)\]$", l)]
        if tables:
            i = rng.choice(tables)
            bad = rng.choice(["bandwdith", "latncy", "cores_per_node", "flops"])
            lines.insert(i + 1, f'{bad} = "1 GB/s"')
            return "\n".join(lines), i + 2, [bad]
    if kind == "missing":
        idx = [i for i, l in enumerate(lines) if re.match(r"(latency|bandwidth|flops_per_core|cores)\s*=", l)]
        i = rng.choice(idx)
        key = lines[i].split("=")[0].strip()
        del lines[i]
        return "\n".join(lines), 0, [key]
    if kind == "cores":
        idx = [i for i, l in enumerate(lines) if re.match(r"\s*cores\s*=", l)]
        i = rng.choice(idx)
        lines[i] = f"cores = {rng.choice(['0', '-3', '2.5', '1e3'])}"
        return "\n".join(lines), i + 1, ["cores"]
    if kind == "string_count":
        idx = [i for i, l in enumerate(lines) if re.match(r"\s*(count|cores)\s*=", l)]
        i = rng.choice(idx)
        key = lines[i].split("=")[0].strip()
        lines[i] = f'{key} = "{rng.choice(["many", "4", "4 nodes"])}"'
        return "\n".join(lines), i + 1, [key]
    if kind == "topology":
        i = lines.index("[network]")
        lines = [l for l in lines if not re.match(r"\s*(torus|fat_tree_arity|fat_tree_levels|topology)\s*=", l)]
        lines.insert(i + 1, f'topology = "{rng.choice(["ring", "Crossbar", "torus2d", ""])}"')
        return "\n".join(lines), i + 2, ["topology"]
    if kind == "syntax":
        i, m = rng.choice(qs)
        lines[i] = lines[i][:m.end() - 1] + lines[i][m.end():]  # the closing quote dropped
        return "\n".join(lines), i + 1, []
    if kind == "duplicate":
        idx = [i for i, l in enumerate(lines) if re.match(r"(latency|bandwidth|cores|count)\s*=", l)]
        i = rng.choice(idx)
        lines.insert(i + 1, lines[i])
        return "\n".join(lines), i + 2, []
    # A size out of order: L1 larger than what lies outwards of it.
    idx = [i for i, l in enumerate(lines) if re.match(r"\s*(memory\.)?L1\s*=", l)]
    outer = [i for i, l in enumerate(lines) if re.match(r"\s*(memory\.)?L[234]\s*=", l)]
    if idx and outer:
        i = idx[0]
        lines[i] = re.sub(r'size = "[^"]*"', 'size = "64 GiB"', lines[i])
        return "\n".join(lines), 0, ["L1"]
    lines.append("[bogus_table]")
    return "\n".join(lines), len(lines), ["bogus_table"]


BAD_SETS = [("network.bandwidth", '"-1 GB/s"'), ("network.bandwidth", '"0 GB/s"'), ("network.bandwidth", "10"),
            ("network.latency", '"1 parsecs"'), ("network.latency", '"-2 us"'), ("node.cores", "0"),
            ("node.cores", "2.5"), ("node.flops_per_core", '"0 flop/s"'), ("network.topology", "ring"),
            ("network.latncy", '"1 us"'), ("memory.L1.size", '"0 B"'), ("network.eager_threshold", '"-1 B"'),
            ("network.rendezvous_handshakes", "-1"), ("mapping.policy", "diagonal"), ("node.count", "0")]


def prop_machines_invalid(h, case, rng):
    """Broken variants of the bundled machines: exit 1, nothing on stdout, one error line
    naming the file, the line the mutation touched and the key."""
    src = rng.choice(bundled(h.source_dir))
    if rng.random() < 0.3:
        # A bad --set on a good file: the error names the key and says --set gave it.
        key, value = rng.choice(BAD_SETS)
        if "node_group" in open(src).read():
            key = key.replace("node.", "node_group.0.").replace("memory.", "node_group.0.memory.")
        path = h.write(os.path.basename(src), open(src).read())
        r = h.run(["machine", "show", path, "--json", "--set", f"{key}={value}"])
        h.check_rejected(r, must_name=[key.split(".")[-1], "--set"], what="bad --set")
        return
    text, line_no, words = mutate_invalid(rng, open(src).read())
    path = h.write(os.path.basename(src), text)
    cmd = rng.choice(["show", "simulate", "predict"])
    if cmd == "show":
        r = h.run(["machine", "show", path, "--json"])
    elif cmd == "simulate":
        events = h.write("job.txt", gen_events.generate(rng, 2, 4).text())
        r = h.run(["simulate", "--machine", path, events, "--json"])
    else:
        model = h.write("model.json", json.dumps(gen_models.ModelGen(rng).model()))
        r = h.run(["predict", model, "--machine", path, "--np", "2", "--json"])
    where = f"{path}:{line_no}:" if line_no else path
    h.check_rejected(r, must_name=[where] + words, what="broken machine file")


def prop_machines_fuzz(h, case, rng):
    """Random damage to a machine file's bytes, and --set overrides of random keys with
    random values: no crash, no hang; a rejection is one error line, an acceptance valid
    JSON whose derived figures add up."""
    src = rng.choice(bundled(h.source_dir))
    data = bytearray(open(src, "rb").read())
    args = []
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(data))
            op = rng.random()
            if op < 0.4:
                data[pos] = rng.choice(b'0123456789-."=[]{}#\n ,abKGus\x00')
            elif op < 0.7:
                del data[pos:pos + rng.randint(1, 12)]
            else:
                data[pos:pos] = rng.choice([b"e400", b"-", b"[[", b"\n[node]\n", b'"1e-400 s"', b"9" * 30])
    else:
        keys = ["network.bandwidth", "network.latency", "node.cores", "node.count", "node_group.0.cores",
                "network.topology", "network.torus", "memory.L1.size", "memory.DRAM.bandwidth",
                "collective.0.time_s.0.0", "mapping.ranks_per_node", "network.eager_threshold",
                "node.noise.stretch", "math.sin", "network.nothing", "node"]
        values = ['"1e400 GB/s"', '"0 s"', "0", "-1", "1e9", '"fat_tree"', "[1, 2]", '"NaN GB/s"',
                  '"inf s"', "true", '""', "[]", "{}", '"1 us"', '"3 KiB"', "2147483648"]
        for _ in range(rng.randint(1, 3)):
            args += ["--set", f"{rng.choice(keys)}={rng.choice(values)}"]
    path = h.write(os.path.basename(src), data.decode(errors="replace"))
    r = h.run(["machine", "show", path, "--json"] + args)
    if not h.check_clean(r):
        return
    if r.rc == 1:
        h.check_rejected(r, what="damaged machine file")
        return
    doc = h.check_json_ok(r, "damaged machine file accepted")
    if doc is not None:
        check_machine_doc(h, r, doc)
