#!/usr/bin/env python3
"""The corpus of public MPI applications: fetch one, build it, and check perfcast's static
method on it against callgrind (corpus/README.md).

    corpus.py list
    corpus.py fetch APP [--work DIR]
    corpus.py check APP [--work DIR] [--build DIR] [--json OUT]

Exit status: 0 within the recipe's thresholds, 1 not (or an error, said on stderr),
77 when the sources cannot be had (no network and no $PERFCAST_CORPUS_SRC) or a tool the
check needs is missing. Python 3.11 standard library only.
"""
import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import tomllib
from urllib.parse import urlparse

CORPUS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(CORPUS_DIR)
SKIP = 77
MACHINE = "generic-cluster"  # counts do not depend on the machine; any bundled file prices them
LANGUAGES = ("c", "c++", "fortran")
FIGURES = ("flops", "mpi_calls")


class RecipeError(Exception):
    """A recipe that cannot be used: the message names the file and the field."""


class Skip(Exception):
    """The check cannot run here (no sources, a missing tool): exit 77 with the reason."""


class CheckError(Exception):
    """A step of the check failed (a build, a perfcast command): the check fails."""


def progress(app, message):
    print(f"corpus: {app}: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# Recipes


def _field(path, table, key, kind, where, required=True, default=None):
    """table[key] checked to be of `kind`; errors name the file and the dotted field."""
    name = f"{where}{key}"
    if key not in table:
        if required:
            raise RecipeError(f"{path}: field '{name}' is missing")
        return default
    value = table[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise RecipeError(f"{path}: field '{name}': expected {_kind_name(kinds)}, got {value!r}")
    if not isinstance(value, kinds):
        raise RecipeError(f"{path}: field '{name}': expected {_kind_name(kinds)}, got {value!r}")
    return value


def _kind_name(kinds):
    names = {str: "text", int: "an integer", float: "a number", list: "a list", dict: "a table", bool: "true or false"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _strings(path, table, key, where, required=False):
    value = _field(path, table, key, list, where, required, [])
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise RecipeError(f"{path}: field '{where}{key}[{i}]': expected text, got {item!r}")
    return value


def _known(path, table, keys, where):
    for key in table:
        if key not in keys:
            raise RecipeError(f"{path}: field '{where}{key}' is not a recipe field (known: {', '.join(keys)})")


def evaluate_value(text, np, path="", where="value"):
    """A binding's value: a number, or arithmetic on `np` (the ranks), e.g. "2048 / np", which
    the driver evaluates; or arithmetic naming `rank` or `size` too ("select(rank == 0, 2025, 1)"),
    which perfcast evaluates per rank (`--param NAME=EXPR`), returned as text with np replaced
    by its value."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return text
    try:
        tree = ast.parse(str(text), mode="eval")
    except SyntaxError as e:
        raise RecipeError(f"{path}: field '{where}': '{text}' is not arithmetic on np ({e.msg})") from None
    per_rank = {"rank", "size"}
    ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}
    refused = RecipeError(f"{path}: field '{where}': '{text}' may use numbers, np (rank, size: evaluated per "
                          f"rank by perfcast), + - * / // %, comparisons, select(c, a, b) and parentheses only")

    compares = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
                ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}

    def wrap(v):
        return v if isinstance(v, ast.AST) else ast.Constant(v)

    def walk(node):  # a number, or an ast node naming rank or size
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and node.id == "np":
            return np
        if isinstance(node, ast.Name) and node.id in per_rank:
            return node
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = walk(node.operand)
            return -v if not isinstance(v, ast.AST) else ast.UnaryOp(ast.USub(), v)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in compares:
            a, b = walk(node.left), walk(node.comparators[0])
            if not isinstance(a, ast.AST) and not isinstance(b, ast.AST):
                return int(compares[type(node.ops[0])](a, b))
            return ast.Compare(wrap(a), node.ops, [wrap(b)])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "select" \
                and len(node.args) == 3 and not node.keywords:
            c, a, b = (walk(x) for x in node.args)
            if not isinstance(c, ast.AST):
                return a if c else b
            return ast.Call(ast.Name("select"), [c, wrap(a), wrap(b)], [])
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            a, b = walk(node.left), walk(node.right)
            if not isinstance(a, ast.AST) and not isinstance(b, ast.AST):
                return ops[type(node.op)](a, b)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)):
                raise refused  # perfcast's expressions have / but not // or %
            return ast.BinOp(wrap(a), node.op, wrap(b))
        raise refused

    value = walk(tree)
    if isinstance(value, ast.AST):
        return ast.unparse(value)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _rank_counts(path, table, key, where):
    """table[key], a non-empty list of rank counts (default [1, 2])."""
    counts = _field(path, table, key, list, where, required=False, default=[1, 2])
    for i, n in enumerate(counts):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise RecipeError(f"{path}: field '{where}{key}[{i}]': expected a rank count >= 1, got {n!r}")
    if not counts:
        raise RecipeError(f"{path}: field '{where}{key}' is empty")
    return counts


def _bindings(path, table, key, where, value_kinds, extra=()):
    """The tables of table[key] ([[bind]], [[time.bind]]): name, value and how (said, not
    empty), and the `extra` fields (name, kind, default) each may add."""
    entries = []
    for i, b in enumerate(_field(path, table, key, list, where, required=False, default=[])):
        at = f"{where}{key}[{i}]."
        if not isinstance(b, dict):
            raise RecipeError(f"{path}: field '{where}{key}[{i}]': expected a table ([[{where}{key}]])")
        _known(path, b, ("name", "value", "how", *(e[0] for e in extra)), at)
        entry = {"name": _field(path, b, "name", str, at), "value": _field(path, b, "value", value_kinds, at),
                 "how": _field(path, b, "how", str, at)}
        for name, kind, default in extra:
            entry[name] = _field(path, b, name, kind, at, required=False, default=default)
        if not entry["how"].strip():
            raise RecipeError(f"{path}: field '{at}how' is empty: say what the user knows and where from")
        entries.append(entry)
    return entries


def load_recipe(path):
    """The recipe at `path`, checked field by field (RecipeError names the file and field)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise RecipeError(f"{path}: no such recipe") from None
    except tomllib.TOMLDecodeError as e:
        raise RecipeError(f"{path}: not valid TOML: {e}") from None

    top = ("name", "language", "repo", "commit", "about", "build", "analyze", "run", "bind", "time", "thresholds")
    _known(path, data, top, "")
    r = {"path": path}
    r["name"] = _field(path, data, "name", str, "")
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if r["name"] != folder:
        raise RecipeError(f"{path}: field 'name': '{r['name']}' is not the recipe's folder name '{folder}'")
    r["language"] = _field(path, data, "language", str, "")
    if r["language"] not in LANGUAGES:
        raise RecipeError(f"{path}: field 'language': '{r['language']}' is not one of {', '.join(LANGUAGES)}")
    r["repo"] = _field(path, data, "repo", str, "")
    parsed = urlparse(r["repo"])
    parts = [p for p in parsed.path.removesuffix(".git").split("/") if p]
    if parsed.scheme != "https" or len(parts) != 2:
        raise RecipeError(f"{path}: field 'repo': '{r['repo']}' is not https://HOST/OWNER/NAME")
    r["owner"], r["repo_name"] = parts
    r["commit"] = _field(path, data, "commit", str, "")
    if not re.fullmatch(r"[0-9a-f]{40}", r["commit"]):
        raise RecipeError(f"{path}: field 'commit': '{r['commit']}' is not a full 40-digit commit hash")
    r["about"] = _field(path, data, "about", str, "", required=False, default="")

    build = _field(path, data, "build", dict, "")
    _known(path, build, ("commands", "binary", "ir"), "build.")
    r["build_commands"] = _strings(path, build, "commands", "build.", required=True)
    if not r["build_commands"]:
        raise RecipeError(f"{path}: field 'build.commands' is empty")
    r["binary"] = _field(path, build, "binary", str, "build.")
    r["ir"] = _field(path, build, "ir", str, "build.", required=False, default=".")

    analyze = _field(path, data, "analyze", dict, "", required=False, default={})
    _known(path, analyze, ("args",), "analyze.")
    r["analyze_args"] = _strings(path, analyze, "args", "analyze.")

    run = _field(path, data, "run", dict, "")
    _known(path, run, ("args", "inputs", "recipe_inputs", "env", "ranks", "timeout_s"), "run.")
    r["args"] = _strings(path, run, "args", "run.")
    r["inputs"] = _strings(path, run, "inputs", "run.")
    r["recipe_inputs"] = _strings(path, run, "recipe_inputs", "run.")
    r["recipe_dir"] = os.path.dirname(os.path.abspath(path))
    env = _field(path, run, "env", dict, "run.", required=False, default={})
    for k, v in env.items():
        if not isinstance(v, str):
            raise RecipeError(f"{path}: field 'run.env.{k}': expected text, got {v!r}")
    r["env"] = env
    r["ranks"] = _rank_counts(path, run, "ranks", "run.")
    r["timeout_s"] = _field(path, run, "timeout_s", int, "run.", required=False, default=1800)

    r["bind"] = _bindings(path, data, "bind", "", (int, float, str),
                          extra=(("ranks", list, None), ("override", bool, False)))
    for i, entry in enumerate(r["bind"]):
        for n in r["ranks"]:
            evaluate_value(entry["value"], n, path, f"bind[{i}].value")

    r["time"] = load_time(path, _field(path, data, "time", dict, "", required=False, default=None))

    t = _field(path, data, "thresholds", dict, "")
    _known(path, t, ("flops_error", "known_gap"), "thresholds.")
    r["flops_error"] = _field(path, t, "flops_error", (int, float), "thresholds.")
    if not 0 < r["flops_error"] < 1:
        raise RecipeError(f"{path}: field 'thresholds.flops_error': {r['flops_error']} is not a fraction in (0, 1)")
    r["known_gaps"] = []
    for i, g in enumerate(_field(path, t, "known_gap", list, "thresholds.", required=False, default=[])):
        where = f"thresholds.known_gap[{i}]."
        if not isinstance(g, dict):
            raise RecipeError(f"{path}: field 'thresholds.known_gap[{i}]': expected a table")
        _known(path, g, ("ranks", "rank", "figure", "measured", "bound", "reason"), where)
        gap = {"ranks": _field(path, g, "ranks", int, where),
               "rank": _field(path, g, "rank", int, where, required=False, default=None),
               "figure": _field(path, g, "figure", str, where, required=False, default="flops"),
               "measured": _field(path, g, "measured", (int, float), where),
               "bound": _field(path, g, "bound", (int, float), where),
               "reason": _field(path, g, "reason", str, where)}
        if gap["figure"] not in FIGURES:
            raise RecipeError(f"{path}: field '{where}figure': '{gap['figure']}' is not one of {', '.join(FIGURES)}")
        if abs(gap["measured"]) > gap["bound"]:
            raise RecipeError(f"{path}: field '{where}bound': {gap['bound']} is below the measured "
                              f"|{gap['measured']}|: a guard must hold the figure it guards")
        if gap["figure"] == "flops" and gap["bound"] <= r["flops_error"]:
            raise RecipeError(f"{path}: field '{where}bound': {gap['bound']} is within the goal "
                              f"{r['flops_error']}: no known gap is needed")
        if not gap["reason"].strip():
            raise RecipeError(f"{path}: field '{where}reason' is empty")
        r["known_gaps"].append(gap)
    return r


def load_time(path, table):
    """The recipe's [time] table (corpus/timing.py): how the app times itself, where, and at
    which rank counts; None without one."""
    if table is None:
        return None
    _known(path, table, ("pattern", "file", "grows", "ranks", "baseline", "bind"), "time.")
    t = {"pattern": _field(path, table, "pattern", str, "time."),
         "file": _field(path, table, "file", str, "time.", required=False, default=None),
         "grows": _field(path, table, "grows", bool, "time.", required=False, default=False),
         "ranks": _rank_counts(path, table, "ranks", "time."),
         "baseline": _strings(path, table, "baseline", "time."),
         "bind": _bindings(path, table, "bind", "time.", (int, float))}
    try:
        if re.compile(t["pattern"]).groups < 1:
            raise RecipeError(f"{path}: field 'time.pattern': '{t['pattern']}' has no group: its first group is the seconds")
    except re.error as e:
        raise RecipeError(f"{path}: field 'time.pattern': not a regular expression: {e}") from None
    for i, b in enumerate(t["baseline"]):
        if not re.fullmatch(r"[^=\s]+=\S+", b):
            raise RecipeError(f"{path}: field 'time.baseline[{i}]': '{b}' is not NAME=VALUE")
    return t


def recipe_path(app, recipes=CORPUS_DIR):
    return os.path.join(recipes, app, "recipe.toml")


def all_apps(recipes=CORPUS_DIR):
    return sorted(d for d in os.listdir(recipes) if os.path.isfile(recipe_path(d, recipes)))


# ---------------------------------------------------------------------------------------
# Sources


def reachable(url, timeout_s=0.8):
    """Whether the recipe's host answers on its port within timeout_s (name lookup included)."""
    parsed = urlparse(url)
    done = {}

    def probe():
        try:
            with socket.create_connection((parsed.hostname, parsed.port or 443), timeout=timeout_s):
                done["ok"] = True
        except OSError:
            pass

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(timeout_s)
    return done.get("ok", False)


def git(args, cwd=None):
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise CheckError(f"git {' '.join(args)} failed: {p.stderr.strip()}")
    return p.stdout.strip()


def fetch(recipe, work):
    """The checkout of the pinned commit in work/src (cloned once); Skip when it cannot be had."""
    src = os.path.join(work, "src")
    if os.path.isdir(os.path.join(src, ".git")):
        head = git(["rev-parse", "HEAD"], cwd=src)
        if head == recipe["commit"]:
            return src
        shutil.rmtree(src)
    local = os.environ.get("PERFCAST_CORPUS_SRC")
    if local:
        origin = os.path.join(local, f"{recipe['owner']}+{recipe['repo_name']}", "repo")
        if not os.path.isdir(origin):
            raise Skip(f"$PERFCAST_CORPUS_SRC has no {origin}")
    else:
        origin = recipe["repo"]
        if not reachable(origin):
            raise Skip(f"{urlparse(origin).hostname} is not reachable and $PERFCAST_CORPUS_SRC is not set")
    if shutil.which("git") is None:
        raise Skip("git is not installed")
    progress(recipe["name"], f"cloning {origin} at {recipe['commit'][:12]}")
    os.makedirs(work, exist_ok=True)
    partial = src + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    p = subprocess.run(["git", "clone", "-q", "--no-checkout", origin, partial], capture_output=True, text=True)
    if p.returncode != 0:
        raise Skip(f"git clone {origin} failed: {p.stderr.strip()}")
    p = subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", recipe["commit"]],
                       cwd=partial, capture_output=True, text=True)
    if p.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise CheckError(f"{origin} has no commit {recipe['commit']}: {p.stderr.strip()}")
    os.rename(partial, src)
    return src


# ---------------------------------------------------------------------------------------
# Builds


def write_wrappers(folder, flavour, perfcast):
    """Single-word MPI compilers for a build system: `analysis` (perfcast mpicc/mpicxx: plain
    binaries plus the bitcode `analyze --ir` reads; Fortran with flang as plain mpif90) or
    `probes` (build/bin/perfcast-mpi*: the feature probes)."""
    os.makedirs(folder, exist_ok=True)
    bin_dir = os.path.dirname(perfcast)
    if flavour == "analysis":
        # Open MPI's mpi.mod is gfortran's; perfcast's build holds one flang reads
        # (docs/dependencies.md), put first on the module path as perfcast-mpif90 does.
        modules = os.path.join(os.path.dirname(bin_dir), "fortran", "modules")
        bodies = {"mpicc": f'exec "{perfcast}" mpicc "$@"',
                  "mpicxx": f'exec "{perfcast}" mpicxx "$@"',
                  "mpif90": f'OMPI_FC=flang-new-19 exec mpif90.openmpi "-I{modules}" "$@"'}
    else:
        bodies = {n: f'exec "{os.path.join(bin_dir, "perfcast-" + n)}" "$@"' for n in ("mpicc", "mpicxx", "mpif90")}
    paths = {}
    for name, body in bodies.items():
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\n{body}\n")
        os.chmod(path, 0o755)
        paths[name] = path
    return paths


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def build_stamp(recipe, perfcast, flavour):
    """What a build depends on: the recipe's commands and commit, and perfcast's binaries."""
    h = hashlib.sha256()
    h.update(json.dumps([recipe["commit"], recipe["build_commands"], flavour]).encode())
    lib_dir = os.path.join(os.path.dirname(os.path.dirname(perfcast)), "lib")
    probes = [os.path.join(lib_dir, f) for f in os.listdir(lib_dir) if "features" in f] if os.path.isdir(lib_dir) else []
    for path in [perfcast, *sorted(probes)]:
        st = os.stat(path)
        h.update(f"{path}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def build(recipe, src, work, flavour, perfcast):
    """A copy of the checkout built with the flavour's compilers; its folder. Kept while
    the recipe and perfcast are unchanged."""
    folder = os.path.join(work, flavour)
    stamp_file = os.path.join(work, f".{flavour}.stamp")
    stamp = build_stamp(recipe, perfcast, flavour)
    binary = os.path.join(folder, recipe["binary"])
    if os.path.exists(binary) and read_text(stamp_file) == stamp:
        progress(recipe["name"], f"{flavour} build is up to date")
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(src, folder, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    wrappers = write_wrappers(os.path.join(work, "wrappers", flavour), flavour, perfcast)
    log = os.path.join(work, f"build-{flavour}.log")
    progress(recipe["name"], f"building ({flavour}), log in {log}")
    with open(log, "w") as out:
        for command in recipe["build_commands"]:
            command = (command.replace("{CC}", wrappers["mpicc"]).replace("{CXX}", wrappers["mpicxx"])
                       .replace("{FC}", wrappers["mpif90"]))
            out.write(f"$ {command}\n")
            out.flush()
            p = subprocess.run(command, shell=True, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
            if p.returncode != 0:
                raise CheckError(f"the {flavour} build failed (exit {p.returncode}) at: {command}; see {log}")
    if not os.path.exists(binary):
        raise CheckError(f"the {flavour} build made no {recipe['binary']} (recipe field 'build.binary'); see {log}")
    with open(stamp_file, "w") as f:
        f.write(stamp)
    return folder


# ---------------------------------------------------------------------------------------
# perfcast


def run_perfcast(perfcast, args, cwd=None, env=None, timeout_s=None, what=None, log=None):
    """perfcast ARGS; its stdout (and stderr, with the command, into `log`). A failure is a
    CheckError with perfcast's own message."""
    merged = dict(os.environ, **(env or {}))
    try:
        p = subprocess.run([perfcast, *args], cwd=cwd, env=merged, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise CheckError(f"perfcast {what or args[0]} ran past {timeout_s} s (recipe field 'run.timeout_s')") from None
    if log:
        with open(log, "w") as f:
            f.write(f"$ (cd {cwd or os.getcwd()} && perfcast {' '.join(args)})\n{p.stdout}\n{p.stderr}")
    if p.returncode != 0:
        tail = "\n".join(p.stderr.strip().splitlines()[-6:])
        raise CheckError(f"perfcast {what or args[0]} failed (exit {p.returncode}): {tail}"
                         + (f"; see {log}" if log else ""))
    return p.stdout


def mpirun(n):
    return ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "-n", str(n)]


def at_ranks(text, n):
    """A run's word or file name at n ranks: `{np}` is the rank count (an input deck that
    names its decomposition, one per rank count)."""
    return text.replace("{np}", str(n))


def run_args(recipe, n):
    return [at_ranks(a, n) for a in recipe["args"]]


def run_folder(recipe, work, name, src, n):
    """A fresh folder holding the run's input files at n ranks: `run.inputs` from the
    checkout, `run.recipe_inputs` from the recipe's own folder (decks written for the corpus)."""
    folder = os.path.join(work, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for field, root, what in (("inputs", src, "the checkout"), ("recipe_inputs", recipe["recipe_dir"], "the recipe's folder")):
        for rel in recipe[field]:
            rel = at_ranks(rel, n)
            source = os.path.join(root, rel)
            if not os.path.isfile(source):
                raise CheckError(f"{recipe['path']}: field 'run.{field}': {what} has no file {rel}")
            shutil.copy(source, folder)
    return folder


def mpi_vocabulary():
    """The MPI functions a program model counts (src/support/mpi_ops.def), lower case, without MPI_."""
    with open(os.path.join(REPO_ROOT, "src", "support", "mpi_ops.def")) as f:
        text = f.read()
    names = set(re.findall(r"^PERFCAST_MPI_OP(?:_AS)?\(\s*\w+,\s*\w+,\s*MPI_(\w+)", text, re.M))
    names |= set(re.findall(r"^PERFCAST_MPI_BINDING\(\s*MPI_(\w+)", text, re.M))
    return {n.lower() for n in names}


def callgrind_mpi_calls(functions, main_object, vocabulary):
    """Calls of the vocabulary's MPI functions in one rank's `counts --json --all` rows."""
    return sum(callgrind_mpi_calls_by_op(functions, main_object, vocabulary).values())


def callgrind_mpi_calls_by_op(functions, main_object, vocabulary):
    """Per operation ("send"), the calls of the vocabulary's MPI functions in one rank's
    `counts --json --all` rows. Each operation once: the most calls over its entry points
    (MPI_Send, its PMPI_Send alias, the Fortran binding mpi_send_ that calls PMPI_Send), since
    one call of the program passes through several of them."""
    by_op = {}
    for f in functions:
        if f.get("object") == main_object:
            continue
        m = re.fullmatch(r"p?mpi_(\w+?)_*", f.get("function", ""), re.I)
        if not m or m.group(1).lower() not in vocabulary:
            continue
        op = m.group(1).lower()
        by_op[op] = max(by_op.get(op, 0), f.get("calls", 0))
    return by_op


def scored_mpi_calls(rank_model, measured_by_op):
    """The MPI calls of one rank to score, model and callgrind, and those not scored: an
    operation the model counts as a timing-dependent lower bound anywhere (a call inside a
    loop that polls for a completion, `mpi_calls_by_op`'s `timing_dependent` in `predict
    --json`) is left out of both totals, since how many passes a run makes is timing, and
    reported apart, labelled: op -> {"model_at_least", "callgrind"}."""
    by_op = rank_model.get("mpi_calls_by_op")
    if by_op is None:  # a perfcast that does not say
        return rank_model["mpi_calls"], sum(measured_by_op.values()), {}
    timing = {op for op, v in by_op.items() if v.get("timing_dependent")}
    model = sum(v["calls"] for op, v in by_op.items() if op not in timing)
    measured = sum(c for op, c in measured_by_op.items() if op not in timing)
    labelled = {op: {"model_at_least": by_op[op]["calls"], "callgrind": measured_by_op.get(op, 0)}
                for op in sorted(timing)}
    return model, measured, labelled


def model_parameters(perfcast, model):
    """`perfcast model params --json`: every parameter, those without a default required."""
    return json.loads(run_perfcast(perfcast, ["model", "params", model, "--json"], what="model params"))


def coverage_summary(model_file):
    with open(model_file) as f:
        c = json.load(f).get("coverage") or {}

    def left(entries):
        return sum(1 for e in entries if not any(k.startswith("probe_") for k in e))

    return {"functions_defined": c.get("functions_defined"), "functions_reachable": c.get("functions_reachable"),
            "priced_share": c.get("priced_share"),
            "guessed_branches": len(c.get("guessed_branches", [])),
            "guessed_branches_left": left(c.get("guessed_branches", [])),
            "unknown_loops": len(c.get("unknown_loops", [])),
            "unknown_loops_left": left(c.get("unknown_loops", [])),
            "unresolved_calls": len(c.get("unresolved_calls", [])),
            "unresolved_calls_left": left(c.get("unresolved_calls", []))}


def user_bindings(recipe, n, required, parameters):
    """The recipe's bindings that apply at n ranks: those of a parameter still required, and
    those marked override. A binding of a parameter the model lacks is a recipe error."""
    applied, unused = [], []
    for i, b in enumerate(recipe["bind"]):
        if b["ranks"] is not None and n not in b["ranks"]:
            continue
        if b["name"] not in parameters:
            raise RecipeError(f"{recipe['path']}: field 'bind[{i}].name': the model has no parameter '{b['name']}'")
        if b["name"] in required or b["override"]:
            applied.append((b["name"], evaluate_value(b["value"], n, recipe["path"], f"bind[{i}].value")))
        else:
            unused.append(b["name"])
    return applied, unused


def relative_error(model, measured):
    """model / measured - 1; None where it has no value (nothing measured, something modelled)."""
    if measured == 0:
        return 0.0 if model == 0 else None
    return model / measured - 1.0


def percent(error):
    return "-" if error is None else f"{error:+.1%}"


def verdicts(recipe, rows):
    """Each row's goal verdict and the check's: a row beyond the goal passes only where a
    known gap of the recipe guards it (its bound), and says so."""
    failures, notes = [], []
    for row in rows:
        err = row["flops_error"]
        row["within_goal"] = err is not None and abs(err) <= recipe["flops_error"]
        gap = next((g for g in recipe["known_gaps"] if g["figure"] == "flops" and g["ranks"] == row["ranks"]
                    and g["rank"] in (None, row["rank"])), None)
        row["known_gap"] = gap
        where = f"{row['ranks']} ranks, rank {row['rank']}"
        if row["within_goal"]:
            if gap:
                notes.append(f"{where}: flops {percent(err)} now within the goal {recipe['flops_error']:.0%}; "
                             f"the known gap ({gap['measured']:+.1%}) can be removed from the recipe")
            continue
        if gap and err is not None and abs(err) <= gap["bound"]:
            notes.append(f"{where}: flops {percent(err)} beyond the goal, within the known gap's bound "
                         f"{gap['bound']:.0%} (measured {gap['measured']:+.1%}: {gap['reason']})")
        elif gap:
            failures.append(f"{where}: flops {percent(err)} beyond the known gap's bound {gap['bound']:.0%} "
                            f"(measured {gap['measured']:+.1%}): a regression")
        else:
            failures.append(f"{where}: flops {percent(err)} beyond the goal {recipe['flops_error']:.0%}")
    for g in recipe["known_gaps"]:
        if g["figure"] == "mpi_calls":
            for row in rows:
                err = row["mpi_calls_error"]
                if row["ranks"] == g["ranks"] and g["rank"] in (None, row["rank"]) \
                        and (err is None or abs(err) > g["bound"]):
                    failures.append(f"{row['ranks']} ranks, rank {row['rank']}: MPI calls {percent(err)} "
                                    f"beyond the known gap's bound {g['bound']:.0%}")
    return failures, notes


def counts_cache_key(binary, args, n, env):
    h = hashlib.sha256()
    with open(binary, "rb") as f:
        h.update(f.read())
    h.update(json.dumps([args, n, sorted(env.items())]).encode())
    return h.hexdigest()


def callgrind_counts(recipe, perfcast, analysis, work, src, n):
    """`perfcast counts -n N --json --all --no-cache-sim` of the plain build, kept while the
    binary and the input are unchanged (callgrind is the slow step)."""
    binary = os.path.join(analysis, recipe["binary"])
    key = counts_cache_key(binary, run_args(recipe, n), n, recipe["env"])
    cached = os.path.join(work, f"counts-{n}.json")
    if os.path.exists(cached):
        with open(cached) as f:
            data = json.load(f)
        if data.get("corpus_key") == key:
            progress(recipe["name"], f"callgrind counts at {n} ranks are up to date")
            return data
    folder = run_folder(recipe, work, f"run-counts-{n}", src, n)
    progress(recipe["name"], f"counting under callgrind at {n} ranks")
    out = run_perfcast(perfcast, ["counts", "-n", str(n), "--json", "--all", "--no-cache-sim", "-q",
                                  "--timeout", str(recipe["timeout_s"]), "--", binary, *run_args(recipe, n)],
                       cwd=folder, env=recipe["env"], timeout_s=recipe["timeout_s"] * 2 + 60, what="counts")
    data = json.loads(out)
    data["corpus_key"] = key
    with open(cached, "w") as f:
        json.dump(data, f)
    return data


def check(recipe, work, build_dir, json_out, target=None):
    app = recipe["name"]
    src = fetch(recipe, work)
    perfcast = os.path.abspath(os.path.join(build_dir, "bin", "perfcast"))
    if not os.access(perfcast, os.X_OK):
        raise CheckError(f"{perfcast} does not exist: build perfcast first, or give its build folder with --build")
    for tool in ("valgrind", "mpirun.openmpi"):
        if shutil.which(tool) is None:
            raise Skip(f"{tool} is not installed")
    started = time.monotonic()
    result = {"app": app, "commit": recipe["commit"], "repo": recipe["repo"], "ranks": recipe["ranks"],
              "goal_flops_error": recipe["flops_error"]}

    analysis = build(recipe, src, work, "analysis", perfcast)
    probes = build(recipe, src, work, "probes", perfcast)

    model = os.path.join(work, f"{app}.json")
    progress(app, "analysing (perfcast analyze --ir)")
    t0 = time.monotonic()
    analyze_args = recipe["analyze_args"] or ["--ir", os.path.join(analysis, recipe["ir"])]
    target_args = ["--machine", os.path.abspath(target)] if target else []  # its CPU prices the loop bodies
    run_perfcast(perfcast, ["analyze", "-o", model, *target_args, *analyze_args], cwd=analysis, what="analyze",
                 log=os.path.join(work, "analyze.log"))
    result["analysis_s"] = time.monotonic() - t0
    result["coverage"] = coverage_summary(model)
    before = model_parameters(perfcast, model)
    result["parameters"] = {"total": len(before),
                            "required_before_probe": sum(1 for p in before if "default" not in p),
                            "per_ranks": {}}

    rows, per_ranks, unbound, step_failures = [], {}, {}, []
    vocabulary = mpi_vocabulary()
    for n in recipe["ranks"]:
        folder = run_folder(recipe, work, f"run-probe-{n}", src, n)
        probed = os.path.join(work, f"{app}.probed{n}.json")
        progress(app, f"probe run at {n} ranks")
        t0 = time.monotonic()
        run_perfcast(perfcast, ["probe", model, "-o", probed, "--", *mpirun(n),
                                os.path.join(probes, recipe["binary"]), *run_args(recipe, n)],
                     cwd=folder, env=recipe["env"], timeout_s=recipe["timeout_s"], what=f"probe at {n} ranks",
                     log=os.path.join(work, f"probe-{n}.log"))
        probe_s = time.monotonic() - t0
        listed = model_parameters(perfcast, probed)
        required = [p["name"] for p in listed if "default" not in p]
        with open(os.path.join(work, f"required-{n}.txt"), "w") as f:  # what a recipe's [[bind]] is for
            f.writelines(f"{p['name']}\t{p['description']}\n" for p in listed if "default" not in p)
        applied, unused = user_bindings(recipe, n, set(required), {p["name"] for p in listed})
        bound = {name for name, _ in applied}
        left = [p for p in required if p not in bound]
        if left:
            unbound[n] = left
        per_ranks[n] = {"probe_s": probe_s, "required_after_probe": len(required),
                        "bound_by_user": sum(1 for p in required if p in bound),
                        "overridden_by_user": sorted(b for b in bound if b not in required),
                        "user_bindings_not_needed": unused, "left_unbound": left,
                        "coverage_after_probe": coverage_summary(probed)}
        if left:
            continue
        progress(app, f"predicting at {n} ranks")
        params = [w for name, value in applied for w in ("--param", f"{name}={value}")]
        try:
            prediction = json.loads(run_perfcast(perfcast, ["predict", probed, "--machine", MACHINE, "--np", str(n),
                                                            *params, "--json"], what=f"predict at {n} ranks",
                                                 timeout_s=recipe["timeout_s"], log=os.path.join(work, f"predict-{n}.log")))
            counts = callgrind_counts(recipe, perfcast, analysis, work, src, n)
        except CheckError as e:  # the other rank counts are still checked and reported
            step_failures.append(f"{n} ranks: {e}")
            continue
        for rank_counts, rank_model in zip(counts["per_rank"], prediction["ranks"]):
            measured_flops = rank_counts["total"]["flops"]
            measured_by_op = callgrind_mpi_calls_by_op(rank_counts["functions"], rank_counts.get("main_object"),
                                                       vocabulary)
            model_mpi, measured_mpi, timing_dependent = scored_mpi_calls(rank_model, measured_by_op)
            rows.append({"ranks": n, "rank": rank_model["rank"],
                         "flops_model": rank_model["instruction_flops"], "flops_callgrind": measured_flops,
                         "flops_error": relative_error(rank_model["instruction_flops"], measured_flops),
                         "mpi_calls_model": model_mpi, "mpi_calls_callgrind": measured_mpi,
                         "mpi_calls_error": relative_error(model_mpi, measured_mpi),
                         "mpi_calls_timing_dependent": timing_dependent})
        if len(counts["per_rank"]) != len(prediction["ranks"]):
            raise CheckError(f"callgrind counted {len(counts['per_rank'])} ranks, the prediction has "
                             f"{len(prediction['ranks'])} at {n} ranks")
    result["parameters"]["per_ranks"] = {str(n): v for n, v in per_ranks.items()}
    result["rows"] = rows
    failures, notes = verdicts(recipe, rows)
    for n, left in unbound.items():
        failures.append(f"{n} ranks: {len(left)} parameters still required after the probe run that the recipe "
                        f"binds nowhere ({', '.join(left[:5])}{', ...' if len(left) > 5 else ''}; all in "
                        f"{os.path.join(work, f'required-{n}.txt')}): add a [[bind]] for each, saying how the "
                        f"user knows it")
    failures += step_failures
    result["failures"], result["notes"] = failures, notes
    result["passed"] = not failures
    result["check_s"] = time.monotonic() - started
    print(render(recipe, result))
    if json_out:
        with open(json_out, "w") as f:
            json.dump(result, f, indent=2, default=lambda g: None)
            f.write("\n")
    return 0 if not failures else 1


def timing_dependent_lines(rows):
    """The MPI calls not scored, per row: those made inside polling loops, labelled."""
    lines = []
    for row in rows:
        for op, v in row.get("mpi_calls_timing_dependent", {}).items():
            if not v["model_at_least"] and not v["callgrind"]:
                continue  # no call on either side: nothing to report
            lines.append(f"  {row['ranks']} ranks, rank {row['rank']}: MPI_{op.capitalize()} model >= "
                         f"{v['model_at_least']:.6g} (one pass of each polling loop), callgrind {v['callgrind']}: "
                         f"timing-dependent, not scored")
    if lines:
        lines.insert(0, "MPI calls inside loops that poll for a completion (left out of the MPI calls above):")
    return lines


def render(recipe, r):
    c = r["coverage"]
    p = r["parameters"]
    share = f"{c['priced_share']:.1%}" if isinstance(c.get("priced_share"), (int, float)) else "-"
    lines = [f"{r['app']} ({recipe['repo']} at {r['commit'][:12]})",
             f"coverage: {c['functions_reachable']} of {c['functions_defined']} functions reachable, {share} "
             f"of their IR priced; {c['guessed_branches']} guessed branches, {c['unknown_loops']} unknown loops, "
             f"{c['unresolved_calls']} unresolved calls"]
    for n, v in p["per_ranks"].items():
        a = v["coverage_after_probe"]
        lines.append(f"  after the probe at {n} ranks: {a['guessed_branches_left']} guessed branches, "
                     f"{a['unknown_loops_left']} unknown loops, {a['unresolved_calls_left']} unresolved calls "
                     f"left unmeasured")
    lines.append(f"parameters: {p['total']}; required {p['required_before_probe']} before the probe run")
    for n, v in p["per_ranks"].items():
        extra = f", {len(v['overridden_by_user'])} probe values overridden" if v["overridden_by_user"] else ""
        lines.append(f"  {n} ranks: {v['required_after_probe']} after it, {v['bound_by_user']} bound by the user"
                     f"{extra}, {len(v['left_unbound'])} left unbound")
    probe_times = ", ".join(f"{v['probe_s']:.1f} s at {n} ranks" for n, v in p["per_ranks"].items())
    lines.append(f"time: analysis {r['analysis_s']:.1f} s; probe run {probe_times}")
    header = ["ranks", "rank", "flops model", "flops callgrind", "error", f"goal {r['goal_flops_error']:.0%}",
              "MPI calls model", "callgrind", "error"]
    table = [header]
    for row in r["rows"]:
        verdict = "within" if row["within_goal"] else ("known gap" if row["known_gap"] else "BEYOND")
        table.append([str(row["ranks"]), str(row["rank"]), f"{row['flops_model']:.4g}",
                      f"{row['flops_callgrind']:.4g}", percent(row["flops_error"]), verdict,
                      f"{row['mpi_calls_model']:.6g}", f"{row['mpi_calls_callgrind']}", percent(row["mpi_calls_error"])])
    widths = [max(len(t[i]) for t in table) for i in range(len(header))]
    lines += ["  ".join(cell.rjust(w) for cell, w in zip(t, widths)) for t in table]
    lines += timing_dependent_lines(r["rows"])
    lines += [f"note: {n}" for n in r["notes"]]
    lines += [f"FAIL: {f}" for f in r["failures"]]
    lines.append("passed" if r["passed"] else "failed")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(prog="corpus.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="perfcast's build folder (default: build)")
    parser.add_argument("--work", help="the app's work folder (default: BUILD/corpus/APP)")
    parser.add_argument("--json", dest="json_out", help="write the check's figures to this JSON file")
    parser.add_argument("--recipes", default=CORPUS_DIR, help=argparse.SUPPRESS)  # the driver's own tests
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the recipes")
    for name, text in (("fetch", "clone the app at its pinned commit"),
                       ("check", "build, analyse, probe, count and compare against the recipe's thresholds")):
        s = sub.add_parser(name, help=text)
        s.add_argument("app")
        # Also after the subcommand; a value given there wins.
        s.add_argument("--build", default=argparse.SUPPRESS, help="perfcast's build folder (default: build)")
        s.add_argument("--work", default=argparse.SUPPRESS, help="the app's work folder (default: BUILD/corpus/APP)")
        s.add_argument("--json", dest="json_out", default=argparse.SUPPRESS,
                       help="write the check's figures to this JSON file")
        if name == "check":
            s.add_argument("--target", metavar="MACHINE_FILE",
                           help="analyse for this machine's CPU (the models corpus/timing.py prices on it)")
    a = parser.parse_args(argv)
    try:
        if a.command == "list":
            for app in all_apps(a.recipes):
                r = load_recipe(recipe_path(app, a.recipes))
                gaps = "; ".join(f"known gap at {g['ranks']} ranks: {g['figure']} {g['measured']:+.1%}"
                                 for g in r["known_gaps"])
                print(f"{app:10} {r['language']:8} {r['repo']} {r['commit'][:12]}" + (f"  ({gaps})" if gaps else ""))
            return 0
        path = recipe_path(a.app, a.recipes)
        if not os.path.isfile(path):
            raise RecipeError(f"{path}: no such recipe (corpus.py list names them)")
        recipe = load_recipe(path)
        work = os.path.abspath(a.work or os.path.join(a.build, "corpus", a.app))
        if a.command == "fetch":
            print(fetch(recipe, work))
            return 0
        return check(recipe, work, a.build, a.json_out, getattr(a, "target", None))
    except Skip as e:
        print(f"corpus: skipped: {e}", file=sys.stderr)
        return SKIP
    except (RecipeError, CheckError) as e:
        print(f"corpus: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
