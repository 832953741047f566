#!/usr/bin/env python3
"""perfcast's simulator side by side with SimGrid SMPI (3.32, Debian's libsimgrid-dev).

Part 1, agreement: ping-pong, ring and allreduce (bench/smpi/*.c) at 8 ranks,
the same C source built with `perfcast cc` and with `smpicc`, on one machine:
bench/smpi/compare.toml for perfcast, and a SimGrid platform and SMPI options
derived from it by `perfcast machine simgrid` (src/simgrid/platform.h). Each program prints the latest rank's
MPI_Wtime over its loop; the two must agree within 1 % in every case
(compare.toml sets rendezvous_handshakes = 0, SMPI's rendezvous model; with h > 0
rendezvous cases differ by h latencies per message, which the script checks
against the hand-computed time printed beside them).

Part 2, cost: the stencil skeleton bench/skeletons/stencil3d.c at 64..4096
ranks: wall time and peak memory (GNU time's %M, i.e. wait4's ru_maxrss) of
each simulator, the ratio, MPI calls simulated per second.

Part 3, traces (--traces): the apps wave3d and cg traced at 4 ranks on this host, each
trace exported with `perfcast trace export --simgrid` and replayed by SMPI's own replayer
(smpirun -replay) and by `perfcast simulate` on compare.toml (an idealised network: the
replays compare the simulators on the same events, not either with the traced run).

    bench/smpi/compare.py [--perfcast PATH] [--ranks 64,1024] [--steps 100]
                          [--smpi-steps 4096=20] [--timeout 600] [--skip-part1] [--skip-part2]
                          [--traces] [--build build]

Writes bench/results/<date>-smpi-compare/smpi_compare.txt (or --out). Exits 0 with "skipped: smpicc
not found" when SimGrid is not installed (CI does not run this).
"""
import argparse
import datetime
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402
MACHINE_FILE = os.path.join(HERE, "compare.toml")
STENCIL_SOURCE = os.path.join(ROOT, "bench", "skeletons", "stencil3d.c")

# --- the machine: read compare.toml, the one place the figures live ------------------------

_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
_PREFIXES = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2.0**10, "Mi": 2.0**20,
             "Gi": 2.0**30, "Ti": 2.0**40}


def quantity(text, unit):
    """'2 us' -> 2e-6 (unit 's'); '10 GB/s' (unit 'B/s'); '64 KiB' ('B'); '1 Gflop/s' ('flop/s')."""
    m = re.fullmatch(r"\s*([0-9.]+(?:[eE][-+]?[0-9]+)?)\s*(\S*)\s*", text)
    if not m:
        raise ValueError(f"{MACHINE_FILE}: cannot read '{text}' as a quantity in {unit}")
    value, suffix = float(m.group(1)), m.group(2)
    if unit == "s" and suffix in _TIME_UNITS:
        return value * _TIME_UNITS[suffix]
    if unit != "s" and suffix.endswith(unit) and suffix[: -len(unit)] in _PREFIXES:
        return value * _PREFIXES[suffix[: -len(unit)]]
    raise ValueError(f"{MACHINE_FILE}: '{text}': expected a quantity in {unit}")


class Machine:
    def __init__(self, path):
        with open(path, "rb") as f:
            doc = tomllib.load(f)
        net = doc["network"]  # what SMPI cannot price as perfcast does, perfcast machine simgrid refuses
        self.latency_s = quantity(net["latency"], "s")
        self.bandwidth_Bps = quantity(net["bandwidth"], "B/s")
        self.eager_bytes = int(quantity(net.get("eager_threshold", "64 KiB"), "B"))
        self.handshakes = net.get("rendezvous_handshakes", 1)
        if not isinstance(self.handshakes, (int, float)) or self.handshakes < 0:
            raise ValueError(f"{path}: network.rendezvous_handshakes: expected a number >= 0")
        self.flops = quantity(doc["node"]["flops_per_core"], "flop/s")
        self.nodes = doc["node"]["count"]

    def message_s(self, nbytes, rendezvous_handshakes=0):
        """One message on the wire: L + n/B, plus handshakes x L for a rendezvous message."""
        extra = rendezvous_handshakes * self.latency_s if nbytes > self.eager_bytes else 0.0
        return self.latency_s + extra + nbytes / self.bandwidth_Bps


def smpi_setup(perfcast, hosts, workdir):
    """The SimGrid platform of `hosts` hosts and the SMPI options derived from compare.toml,
    written by `perfcast machine simgrid` (src/simgrid/platform.h: the one derivation, the one
    `perfcast trace export --simgrid` writes beside a trace). Returns (platform path, options)."""
    out = os.path.join(workdir, f"smpi_{hosts}")
    r = run([perfcast, "machine", "simgrid", "--machine", MACHINE_FILE, "--hosts", str(hosts), "-o", out])
    if r["rc"] != 0:
        raise RuntimeError(f"perfcast machine simgrid failed:\n{r['stderr'][-2000:]}")
    with open(os.path.join(out, "smpi_options.txt")) as f:
        options = [line.strip() for line in f if line.strip()]
    return os.path.join(out, "platform.xml"), options


def smpi_allreduce_for(m, nbytes):
    """SMPI's algorithm matching perfcast's choice (src/sim/collectives.cpp:
    recursive doubling up to 2048 bytes, ring reduce-scatter + allgather above)."""
    return "rdb" if nbytes <= 2048 else "lr"


# --- running ---------------------------------------------------------------------------------

def run(cmd, timeout_s=None, measure=False):
    """Runs cmd in its own process group. Returns dict: rc, stdout, stderr, wall_s, maxrss_kib,
    timed_out. With measure, wall and peak RSS come from GNU time (%e, %M)."""
    time_file = None
    if measure and shutil.which("time") and os.path.exists("/usr/bin/time"):
        fd, time_file = tempfile.mkstemp(prefix="smpi_cmp_time_")
        os.close(fd)
        cmd = ["/usr/bin/time", "-f", "%e %M", "-o", time_file] + cmd
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
    result = {"rc": p.returncode, "stdout": out, "stderr": err, "timed_out": timed_out,
              "wall_s": time.monotonic() - start, "maxrss_kib": None}
    if time_file:
        try:
            with open(time_file) as f:
                fields = f.read().split()
            if len(fields) >= 2 and not timed_out:
                result["wall_s"], result["maxrss_kib"] = float(fields[-2]), int(fields[-1])
        except (OSError, ValueError):
            pass
        os.unlink(time_file)
    return result


def last_json_line(text, key):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and key in line:
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    return None


def checked(result, what):
    if result["timed_out"]:
        return None
    if result["rc"] != 0:
        raise RuntimeError(f"{what} failed (exit {result['rc']}):\n{result['stderr'][-2000:]}")
    return result


class Sims:
    def __init__(self, perfcast, workdir, machine):
        self.perfcast, self.work, self.m = perfcast, workdir, machine
        self.setups = {}
        self.commands = []

    def build(self, name, source, smpi_defines=()):
        so = os.path.join(self.work, name + ".so")
        exe = os.path.join(self.work, name + ".smpi")
        for cmd in ([self.perfcast, "cc", "-O2", source, "-o", so],
                    ["smpicc", "-O2", *smpi_defines, source, "-o", exe]):
            self.commands.append(" ".join(cmd))
            r = run(cmd)
            if r["rc"] != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed:\n{r['stderr'][-2000:]}")
        return so, exe

    def setup(self, hosts):
        if hosts not in self.setups:
            self.setups[hosts] = smpi_setup(self.perfcast, hosts, self.work)
        return self.setups[hosts]

    def perfcast_cmd(self, so, np, args):
        return [self.perfcast, "simulate", "--machine", MACHINE_FILE, "--np", str(np), "--json", "--", so,
                *map(str, args)]

    def smpi_cmd(self, exe, np, args, allreduce):
        platform, options = self.setup(np)
        return ["smpirun", "-np", str(np), "-platform", platform, "-no-privatize", exe, *map(str, args),
                *options, f"--cfg=smpi/allreduce:{allreduce}"]


# --- part 1 ----------------------------------------------------------------------------------

def hand_time(m, test, np, nbytes, iters, perfcast_model):
    """What both simulators should say, computed by hand. They can differ only for rendezvous
    messages: perfcast waits network.rendezvous_handshakes latencies before the data flows,
    SMPI with lat-factor 1 none (its handshake lives only in the factor)."""
    msg = lambda n: m.message_s(n, rendezvous_handshakes=m.handshakes if perfcast_model else 0)
    if test == "pingpong":
        return 2 * iters * msg(nbytes)
    if test == "ring":
        return iters * msg(nbytes)
    if smpi_allreduce_for(m, nbytes) == "rdb":
        assert np & (np - 1) == 0, "hand time of recursive doubling written for powers of two"
        return iters * int(math.log2(np)) * msg(nbytes)
    return iters * 2 * (np - 1) * msg(nbytes // np)


def part1(sims, out, np=8, iters=10):
    m = sims.m
    cases = [("pingpong", 8), ("pingpong", 32768), ("pingpong", 1048576),
             ("ring", 1024), ("ring", 65536), ("ring", 1048576),
             ("allreduce", 8), ("allreduce", 2048), ("allreduce", 262144), ("allreduce", 8388608)]
    builds = {t: sims.build(t, os.path.join(HERE, t + ".c")) for t in sorted({c[0] for c in cases})}
    out(f"Part 1: agreement at {np} ranks, {iters} iterations per case; time_s = latest rank's MPI_Wtime over the loop")
    out(f"  machine: {os.path.relpath(MACHINE_FILE, ROOT)}: latency {m.latency_s * 1e6:g} us, bandwidth "
        f"{m.bandwidth_Bps / 1e9:g} GB/s, eager threshold {m.eager_bytes} B, no overhead, crossbar")
    out(f"  {'test':<10}{'bytes':>9} {'mode':<10}{'alg(SMPI)':<10}{'SMPI s':>14}{'perfcast s':>14}{'diff %':>9}"
        f"{'hand(SMPI) s':>14}{'hand(perfcast) s':>17}  verdict")
    ok_all = True
    for test, nbytes in cases:
        so, exe = builds[test]
        alg = smpi_allreduce_for(m, nbytes)
        args = [nbytes, iters]
        p_cmd, s_cmd = sims.perfcast_cmd(so, np, args), sims.smpi_cmd(exe, np, args, alg)
        p = checked(run(p_cmd, 600), "perfcast " + test)
        s = checked(run(s_cmd, 600), "smpirun " + test)
        # perfcast simulate sends a live skeleton's own prints to stderr (its stdout is the report).
        pj, sj = last_json_line(p["stderr"], '"test"'), last_json_line(s["stdout"], '"test"')
        if pj is None or sj is None:
            raise RuntimeError(f"{test}: no result line (perfcast: {p['stdout'][-500:]!r}, SMPI: {s['stdout'][-500:]!r})")
        if test == "allreduce" and not (pj.get("sum_ok") and sj.get("sum_ok")):
            raise RuntimeError(f"allreduce {nbytes}: wrong sum (perfcast {pj}, SMPI {sj})")
        diff = (pj["time_s"] - sj["time_s"]) / sj["time_s"] * 100
        wire = nbytes // np if test == "allreduce" and alg == "lr" else nbytes
        mode = "eager" if wire <= m.eager_bytes else "rendezvous"
        hs, hp = (hand_time(m, test, np, nbytes, iters, model) for model in (False, True))
        agree = abs(diff) <= 1.0
        explained = (abs(sj["time_s"] - hs) <= 0.01 * hs and abs(pj["time_s"] - hp) <= 0.01 * hp)
        if agree:
            verdict = "agree (<=1%)"
        elif mode == "rendezvous" and explained:
            verdict = f"differ: {m.handshakes:g} L per message, as computed"
        else:
            verdict = "DIFFER, unexplained"
            ok_all = False
        out(f"  {test:<10}{nbytes:>9} {mode:<10}{alg:<10}{sj['time_s']:>14.9g}{pj['time_s']:>14.9g}{diff:>+9.3f}"
            f"{hs:>14.9g}{hp:>17.9g}  {verdict}")
    out("  mode: the messages on the wire (for the ring allreduce, chunks of bytes/ranks).")
    out("  perfcast prices a rendezvous message at max(send, recv posted) + (1 + h)L + n/B, h being the")
    out(f"  machine's network.rendezvous_handshakes (here {m.handshakes:g}; perfcast's default 1 is a request to")
    out("  send before the data: src/sim/engine.cpp Engine::match); SMPI at max(send, recv posted) + L + n/B,")
    out("  since its handshake lives only in smpi/lat-factor, set to 1 here. With h = 0 every case must agree")
    out("  within 1 %; with h > 0 rendezvous cases differ by h L per message.")
    return ok_all


# --- part 2 ----------------------------------------------------------------------------------

def stencil_calls(np, steps):
    """MPI calls the stencil makes, counted from bench/skeletons/stencil3d.c: per rank Init,
    Comm_size, Dims_create, Cart_create, Comm_rank, 3 Cart_shift, 2 Wtime, Comm_free, Finalize
    (12), then per step 6 Irecv + 6 Isend + 1 Waitall, and an Allreduce every 10th step."""
    return np * (12 + 13 * steps + steps // 10)


def fmt_rss(kib):
    return "n/a" if kib is None else f"{kib / 1024:.1f}"


def part2(sims, out, ranks, steps, smpi_steps, timeout_s, halo=65536, compute_s=0.001):
    so, exe = sims.build("stencil3d", STENCIL_SOURCE, smpi_defines=["-DSTENCIL_SMPI"])
    out("")
    out(f"Part 2: stencil skeleton ({os.path.relpath(STENCIL_SOURCE, ROOT)}), halo {halo} B, compute {compute_s} s per step,")
    out(f"  allreduce every 10 steps; SMPI capped at {timeout_s:g} s wall. Wall and peak RSS from /usr/bin/time")
    out("  (%e, %M), measured under load (see the header). calls/s = MPI calls simulated per wall second.")
    out(f"  {'ranks':>6}{'sim':>10}{'steps':>6}{'wall s':>10}{'maxrss MiB':>11}{'calls':>11}{'calls/s':>11}"
        f"{'simulated s':>14}")
    rows = []
    for np in ranks:
        row = {"ranks": np}
        for sim in ("perfcast", "SMPI"):
            st = smpi_steps.get(np, steps) if sim == "SMPI" else steps
            args = [st, halo, compute_s]
            cmd = sims.perfcast_cmd(so, np, args) if sim == "perfcast" else sims.smpi_cmd(exe, np, args, "rdb")
            r = run(cmd, timeout_s if sim == "SMPI" else 3600, measure=True)
            calls = stencil_calls(np, st)
            if r["timed_out"]:
                out(f"  {np:>6}{sim:>10}{st:>6}{'TIMEOUT':>10}{'-':>11}{calls:>11}{'-':>11}{'-':>14}"
                    f"   (killed after {timeout_s:g} s)")
                row[sim] = None
                continue
            checked(r, f"{sim} stencil at {np} ranks")
            j = last_json_line(r["stderr"] if sim == "perfcast" else r["stdout"], '"ranks"')
            sim_s = j["time_s"] if j else float("nan")
            row[sim] = {"wall_s": r["wall_s"], "rss": r["maxrss_kib"], "calls": calls, "steps": st, "sim_s": sim_s}
            rate = calls / r["wall_s"] if r["wall_s"] > 0 else float("inf")
            out(f"  {np:>6}{sim:>10}{st:>6}{r['wall_s']:>10.2f}{fmt_rss(r['maxrss_kib']):>11}{calls:>11}"
                f"{rate:>11.3g}{sim_s:>14.9g}")
        rows.append(row)
    out("")
    out("  ratio SMPI/perfcast: wall per MPI call (= wall when steps are equal), peak RSS, simulated time")
    for row in rows:
        p, s = row["perfcast"], row["SMPI"]
        if not p or not s:
            out(f"  {row['ranks']:>6}: {'SMPI timed out' if not s else 'perfcast timed out'}")
            continue
        per_call = (s["wall_s"] / s["calls"]) / (p["wall_s"] / p["calls"])
        rss = f"{s['rss'] / p['rss']:.2f}" if s["rss"] and p["rss"] else "n/a"
        note = "" if s["steps"] == p["steps"] else f"  (SMPI ran {s['steps']} steps, scaled per call)"
        sim_cmp = ""
        if s["steps"] == p["steps"]:
            sim_cmp = f", simulated time differs by {(p['sim_s'] - s['sim_s']) / s['sim_s'] * 100:+.3f} %"
        out(f"  {row['ranks']:>6}: wall/call x{per_call:.2f}, RSS x{rss}{sim_cmp}{note}")


# --- part 3 ----------------------------------------------------------------------------------

MPIRUN = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
TRACED_APPS = {
    "wave3d": ["--n", "64", "--steps", "20", "--repeats", "1"],
    "cg": ["--n", "48", "--iters", "50", "--repeats", "1"],
}


def part3(sims, out, build, ranks=4):
    out("")
    out(f"Part 3: traces of real runs at {ranks} ranks replayed side by side on {os.path.relpath(MACHINE_FILE, ROOT)}")
    out("  (perfcast trace; perfcast trace export --simgrid; smpirun -replay vs perfcast simulate --collectives algorithms)")
    out(f"  {'app':<8}{'actions':>9}{'allreduce':>10}{'SMPI s':>14}{'perfcast s':>14}{'diff %':>9}  arguments")
    for app, args in TRACED_APPS.items():
        binary = os.path.join(build, "apps", app)
        trace = os.path.join(sims.work, app + ".trace")
        exported = os.path.join(sims.work, app + ".simgrid")
        checked(run([sims.perfcast, "trace", "-o", trace, "--", *MPIRUN, "-n", str(ranks), binary, *args]),
                f"perfcast trace {app}")
        ex = checked(run([sims.perfcast, "trace", "export", trace, "--simgrid", exported, "--machine", MACHINE_FILE]),
                     f"perfcast trace export {app}")
        actions = re.search(r"wrote (\d+) actions", ex["stdout"])
        with open(os.path.join(exported, "smpi_options.txt")) as f:
            options = [line.strip() for line in f if line.strip()]
        alg = next((o.split(":", 1)[1] for o in options if o.startswith("--cfg=smpi/allreduce:")), "-")
        s = checked(run(["smpirun", "-np", str(ranks), "-platform", os.path.join(exported, "platform.xml"), "-replay",
                         os.path.join(exported, "traces.txt"), *options, f"--cfg=smpi/tmpdir:{sims.work}"], 600),
                    f"smpirun -replay {app}")
        m = re.search(r"Simulation time ([0-9.eE+-]+)", s["stdout"] + s["stderr"])
        p = checked(run([sims.perfcast, "simulate", trace, "--machine", MACHINE_FILE, "--collectives", "algorithms",
                         "--json"], 600), f"perfcast simulate {app}")
        p_s = json.loads(p["stdout"])["predicted_time_s"]
        if not m:
            raise RuntimeError(f"smpirun -replay {app}: no 'Simulation time' line:\n{s['stderr'][-2000:]}")
        s_s = float(m.group(1))
        out(f"  {app:<8}{actions.group(1) if actions else '?':>9}{alg:>10}{s_s:>14.9g}{p_s:>14.9g}"
            f"{(p_s - s_s) / s_s * 100:>+9.3f}  {' '.join(args)}")
    out("  The compute bursts are the traced gaps, replayed for the same seconds by both (flops = seconds x")
    out("  the host's rate); the difference is the simulators' MPI: messages, and collectives other than")
    out("  allreduce (whose algorithm is matched) run by SMPI's default algorithms.")


# --- main ------------------------------------------------------------------------------------

def find_perfcast(given):
    if given:
        return given
    for candidate in (os.environ.get("PERFCAST"), os.path.join(ROOT, "build-smpi", "bin", "perfcast"),
                      os.path.join(ROOT, "build", "bin", "perfcast"), shutil.which("perfcast")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfcast", help="perfcast binary (default: $PERFCAST, build-smpi/bin, build/bin, PATH)")
    ap.add_argument("--ranks", default="64,512,1024,4096", help="stencil rank counts, comma-separated")
    ap.add_argument("--steps", type=int, default=100, help="stencil steps")
    ap.add_argument("--smpi-steps", default="", help="fewer SMPI steps at some rank counts: NP=STEPS,...")
    ap.add_argument("--timeout", type=float, default=600, help="wall cap of one SMPI run, seconds")
    ap.add_argument("--skip-part1", action="store_true")
    ap.add_argument("--skip-part2", action="store_true")
    ap.add_argument("--traces", action="store_true", help="part 3: wave3d and cg traced at 4 ranks, replayed by both")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build tree with apps/ (part 3)")
    ap.add_argument("--out", default=os.path.join(result_paths.new_run_dir("smpi-compare"), "smpi_compare.txt"))
    a = ap.parse_args()

    if not shutil.which("smpicc") or not shutil.which("smpirun"):
        print("skipped: smpicc not found (install Debian's libsimgrid-dev to run the SMPI comparison)")
        return 0
    perfcast = find_perfcast(a.perfcast)
    if not perfcast:
        print("compare.py: perfcast not found; build it or pass --perfcast", file=sys.stderr)
        return 1

    lines = []

    def out(text=""):
        print(text, flush=True)
        lines.append(text)

    version = run(["smpirun", "-version"])["stdout"].strip().splitlines()
    out("perfcast simulate vs SimGrid SMPI, generated by bench/smpi/compare.py "
        f"({' '.join(sys.argv[1:]) or 'no arguments'})")
    out(f"  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; {version[0] if version else 'SimGrid ?'}; "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start: timings measured under load")
    m = Machine(MACHINE_FILE)
    smpi_steps = {int(k): int(v) for k, v in (kv.split("=") for kv in a.smpi_steps.split(",") if kv)}
    with tempfile.TemporaryDirectory(prefix="perfcast_smpi_") as work:
        sims = Sims(perfcast, work, m)
        ok = True if a.skip_part1 else part1(sims, out)
        if a.traces:
            part3(sims, out, os.path.abspath(a.build))
        if not a.skip_part2:
            part2(sims, out, [int(x) for x in a.ranks.split(",") if x], a.steps, smpi_steps, a.timeout)
        out("")
        out("Commands (in a temporary folder; smpi_N/ is written by perfcast machine simgrid --hosts N):")
        for c in sims.commands:
            out("  " + c.replace(work + "/", ""))
        out("  perfcast simulate --machine bench/smpi/compare.toml --np N --json -- ./PROG.so ARGS")
        out("  smpirun -np N -platform smpi_N/platform.xml -no-privatize ./PROG.smpi ARGS $(cat smpi_N/smpi_options.txt)"
            " --cfg=smpi/allreduce:rdb|lr")
    out(f"  load average at end: {os.getloadavg()[0]:.1f}")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {a.out}")
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
