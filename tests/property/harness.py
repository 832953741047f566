"""What every property shares: running the real perfcast binary as a process of its
own with a time limit, the checks every run must pass, and the reproducer printed
for a failure (the input's text and the command line that runs it again).

A property is a function of (case index, random.Random) that generates one input,
runs perfcast on it, and calls Harness.check for every invariant; a false check
records a failure with its reproducer and the property goes on with the next input.
"""
import collections
import json
import math
import os
import re
import shlex
import subprocess
import time

# A run that takes longer than this is a hang: every input the generators make is
# small (a few hundred events, a few nested loops), and perfcast answers each in
# well under a second even on a loaded machine.
RUN_BUDGET_S = 10.0

# Relative tolerance of comparisons between figures computed along different
# paths (sums of doubles, a time through a different association).
REL_TOL = 1e-9


class Run:
    def __init__(self, argv, rc, stdout, stderr, wall_s, timed_out):
        self.argv = argv
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.wall_s = wall_s
        self.timed_out = timed_out

    def json(self):
        """The stdout as JSON, or None when it is not JSON (a failure the caller reports).
        Non-finite numbers (NaN, Infinity) are accepted by the parser so that the
        finiteness check can name them instead of a parse error hiding them."""
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None


class Harness:
    def __init__(self, perfcast, source_dir, work_dir, name, max_reports=5):
        self.perfcast = perfcast
        self.source_dir = source_dir
        self.work_dir = work_dir
        self.name = name
        self.max_reports = max_reports
        self.inputs = 0
        self.checks = 0
        self.failures = 0
        self.runs = 0
        self.files = {}  # path -> text of the current input, for the reproducer
        self.case = None
        self.printed_case = None
        self.failure_kinds = collections.Counter()
        os.makedirs(work_dir, exist_ok=True)

    # ---- inputs ----
    def begin_case(self, case):
        self.case = case
        self.inputs += 1
        self.files = {}

    def write(self, name, text):
        """Writes one input file of the current case; its text goes into any reproducer."""
        path = os.path.join(self.work_dir, f"case{self.case}-{name}")
        with open(path, "w") as f:
            f.write(text)
        self.files[path] = text
        return path

    # ---- running ----
    def run(self, args):
        argv = [self.perfcast] + list(args)
        start = time.monotonic()
        self.runs += 1
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_BUDGET_S,
                               cwd=self.source_dir, errors="replace")
            return Run(argv, p.returncode, p.stdout, p.stderr, time.monotonic() - start, False)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            return Run(argv, None, out, err, time.monotonic() - start, True)

    # ---- checking ----
    def check(self, ok, what, runs=()):
        """Records one invariant; on failure prints what broke, the runs involved and the
        input files. Returns ok so callers can stop checking what depends on it."""
        self.checks += 1
        if ok:
            return True
        self.failures += 1
        # Tallied by the message with its figures and paths left out.
        self.failure_kinds[re.sub(r"('[^']*'|-?\d[\d.e+-]*)", "_", what)[:120]] += 1
        if self.failures <= self.max_reports:
            print(f"\n=== {self.name}: FAILED (case {self.case}): {what}")
            if self.printed_case == self.case:
                print("--- input: as above")
            for path, text in ({} if self.printed_case == self.case else self.files).items():
                print(f"--- input {path}:")
                print(text if len(text) < 6000 else text[:6000] + "\n... (truncated)")
            for r in runs:
                print(f"--- command: (cd {shlex.quote(self.source_dir)} && {shlex.join(r.argv)})")
                status = "timed out" if r.timed_out else f"exit {r.rc}"
                print(f"    {status} after {r.wall_s:.2f} s")
                print("    stdout: " + _clip(r.stdout))
                print("    stderr: " + _clip(r.stderr))
            self.printed_case = self.case
        elif self.failures == self.max_reports + 1:
            print(f"\n=== {self.name}: more failures, not printed")
        return False

    def check_clean(self, r):
        """No crash and no hang: the process ended by itself with 0 or 1."""
        if not self.check(not r.timed_out, f"hang: no answer within {RUN_BUDGET_S} s", [r]):
            return False
        return self.check(r.rc in (0, 1), f"crash: exit code {r.rc} (a signal is negative)", [r])

    def check_rejected(self, r, must_name=(), what="invalid input"):
        """An invalid input: exit 1, nothing on stdout, exactly one 'perfcast: error:'
        line on stderr, and that line names each of must_name (file, line, field)."""
        if not self.check_clean(r):
            return False
        ok = self.check(r.rc == 1, f"{what} accepted (exit {r.rc}), expected exit 1", [r])
        ok = self.check(r.stdout == "", f"{what}: something on stdout beside the error", [r]) and ok
        errors = [l for l in r.stderr.splitlines() if l.startswith("perfcast: error:")]
        if not self.check(len(errors) == 1, f"{what}: {len(errors)} 'perfcast: error:' lines on stderr, expected 1", [r]):
            return False
        for name in must_name:
            ok = self.check(name in errors[0], f"{what}: the error line does not name {name!r}", [r]) and ok
        return ok

    def check_json_ok(self, r, what):
        """A valid input: exit 0, JSON on stdout, no non-finite or negative time in it."""
        if not self.check_clean(r):
            return None
        if not self.check(r.rc == 0, f"{what}: valid input rejected (exit {r.rc})", [r]):
            return None
        doc = r.json()
        if not self.check(doc is not None, f"{what}: stdout is not JSON", [r]):
            return None
        bad = list(bad_numbers(doc))
        self.check(not bad, f"{what}: non-finite or negative times in the JSON: {bad[:5]}", [r])
        return doc

    def summary(self):
        kinds = "".join(f"\n  {n} x {k}" for k, n in self.failure_kinds.most_common())
        return (f"{self.name}: {self.inputs} inputs generated, {self.runs} perfcast runs, "
                f"{self.checks} invariants checked, {self.failures} failures{kinds}")


def numbers_at(doc, paths):
    """The paths (tuples of keys and '*' for every element of a list) whose values are
    not numbers: a time a report must give (null is what JSON writers make of infinity)."""
    missing = []

    def walk(node, path, trail):
        if not path:
            if isinstance(node, bool) or not isinstance(node, (int, float)):
                missing.append((trail, node))
            return
        k = path[0]
        if k == "*":
            for i, x in enumerate(node if isinstance(node, list) else []):
                walk(x, path[1:], f"{trail}[{i}]")
        elif isinstance(node, dict) and k in node:
            walk(node[k], path[1:], f"{trail}.{k}")
        else:
            missing.append((f"{trail}.{k}", "absent"))

    for p in paths:
        walk(doc, p, "")
    return missing


def _clip(text, n=1500):
    text = text.rstrip("\n")
    return text if len(text) <= n else text[:n] + " ... (truncated)"


# Keys whose values are times in perfcast's JSON: *_s, and the few without the suffix.
_TIME_KEY = re.compile(r"(_s$|^time|_time)")


def bad_numbers(doc, path=""):
    """Yields (path, value) for every number that is not finite, and every time that is
    negative, anywhere in the document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _bad_value(v, f"{path}.{k}", _TIME_KEY.search(k) is not None)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _bad_value(v, f"{path}[{i}]", False)


def _bad_value(v, path, is_time):
    if isinstance(v, bool) or v is None:
        return
    if isinstance(v, (int, float)):
        if not math.isfinite(v):
            yield (path, v)
        elif is_time and v < 0:
            yield (path, v)
    elif isinstance(v, list) and is_time:
        # Arrays of times (per quantile): each element is a time too.
        for i, x in enumerate(v):
            yield from _bad_value(x, f"{path}[{i}]", True)
    else:
        yield from bad_numbers(v, path)


def close(a, b, rel=REL_TOL, abs_tol=1e-15):
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_tol)


def not_greater(a, b, rel=REL_TOL):
    """a <= b up to rounding."""
    return a <= b + rel * max(abs(a), abs(b)) + 1e-15


def quantity(value, unit):
    """A machine-file quantity in base units, spelled so that it parses exactly."""
    return f"{value!r} {unit}"
