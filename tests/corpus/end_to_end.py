#!/usr/bin/env python3
"""`corpus.py check` end to end on a small MPI program of this repository (tests/corpus/tiny),
served as a git repository made here: fetched at its pinned commit, built both ways, analysed,
probed, predicted and counted under callgrind at 1 and 2 ranks. Its flops and MPI calls are
known by hand (4 flops an element and step, 2 to set it up, 1 MPI_Allreduce a step, MPI_Init and
MPI_Finalize), so the figures the check prints are checked against them and against each other.
Then corpus/timing.py on the check's work folder: staged, measured twice (two passes pooled),
its timed steps predicted beside the measured time and the naive baseline.

usage: end_to_end.py BUILD_DIR    (exit 77 where the driver skips: no valgrind, no Open MPI)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(os.path.dirname(os.path.dirname(HERE)), "corpus", "corpus.py")
TIMING = os.path.join(os.path.dirname(DRIVER), "timing.py")
N, STEPS = 4000, 25

RECIPE = """\
name = "tiny"
language = "c"
repo = "https://example.invalid/perfcast/tiny"
commit = "{commit}"

[build]
commands = ["make CC={{CC}}"]
binary = "app"

[run]
args = ["{n}", "{steps}"]
ranks = [1, 2]
timeout_s = 600
{bind}
[time]
pattern = 'steps took (\\S+) s'
ranks = [1, 2]
baseline = ["steps=0"]

[thresholds]
flops_error = 0.15
"""


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        origin = os.path.join(tmp, "src", "perfcast+tiny", "repo")
        os.makedirs(origin)
        for name in ("ring.c", "Makefile"):
            shutil.copy(os.path.join(HERE, "tiny", name), origin)
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "tiny"]):
            subprocess.run(["git", *args], cwd=origin, env=env, check=True)
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=origin, capture_output=True, text=True,
                                check=True).stdout.strip()
        recipes = os.path.join(tmp, "recipes")
        os.makedirs(os.path.join(recipes, "tiny"))

        def check(bind=""):
            with open(os.path.join(recipes, "tiny", "recipe.toml"), "w") as f:
                f.write(RECIPE.format(commit=commit, n=N, steps=STEPS, bind=bind))
            out = os.path.join(tmp, "tiny.json")
            p = subprocess.run([sys.executable, DRIVER, "--recipes", recipes, "check", "tiny", "--build", build,
                                "--work", os.path.join(tmp, "work", "tiny"), "--json", out],
                               env=dict(os.environ, PERFCAST_CORPUS_SRC=os.path.join(tmp, "src")),
                               capture_output=True, text=True)
            print(p.stdout)
            print(p.stderr, file=sys.stderr)
            if p.returncode == 77:
                sys.exit(77)
            return p, (json.load(open(out)) if os.path.exists(out) else None)

        p, r = check()
        if p.returncode != 0 or r is None:
            fail(f"the check of a program the model counts exactly did not pass (exit {p.returncode})")
        rows = {(row["ranks"], row["rank"]): row for row in r["rows"]}
        if sorted(rows) != [(1, 0), (2, 0), (2, 1)]:
            fail(f"rows {sorted(rows)}, expected one per rank at 1 and 2 ranks")
        for (ranks, rank), row in rows.items():
            # a multiply and an add to update, a multiply and an add to sum; a multiply and an
            # add to set each element up
            hand = 4 * (N // ranks) * STEPS + 2 * (N // ranks)
            if abs(row["flops_model"] / hand - 1) > 0.01:
                fail(f"{ranks} ranks, rank {rank}: model {row['flops_model']} flops, by hand {hand}")
            if abs(row["flops_callgrind"] / hand - 1) > 0.05:
                fail(f"{ranks} ranks, rank {rank}: callgrind {row['flops_callgrind']} flops, by hand {hand}")
            if row["mpi_calls_callgrind"] != STEPS + 2 or row["mpi_calls_model"] != STEPS + 2:
                fail(f"{ranks} ranks, rank {rank}: MPI calls model {row['mpi_calls_model']}, callgrind "
                     f"{row['mpi_calls_callgrind']}, by hand {STEPS + 2}")
            if not row["within_goal"]:
                fail(f"{ranks} ranks, rank {rank}: {row['flops_error']:+.1%} printed as beyond the goal")
        if r["coverage"]["functions_reachable"] != 1 or r["analysis_s"] <= 0:
            fail(f"coverage {r['coverage']}, analysis {r['analysis_s']} s")
        if "passed" not in p.stdout.splitlines()[-1]:
            fail("the table does not end with the verdict")

        # A second check reuses the builds and the counts (no second callgrind run).
        p, r = check()
        if p.returncode != 0 or p.stderr.count("up to date") != 4:
            fail("a second check did not reuse both builds and both counts")
        # A binding of a parameter the model lacks names the recipe's field.
        p, _ = check('[[bind]]\nname = "no.such"\nvalue = 1\nhow = "t"\n')
        if p.returncode != 1 or "bind[0].name" not in p.stderr:
            fail("a binding of a parameter the model lacks was not refused by its field")
        check()
        check_timing(tmp, recipes, build)
    print("end to end: passed")


def check_timing(tmp, recipes, build):
    """stage, measure (two passes of one launch), predict: the rows, the pooling and the naive
    baseline checked against the measured files themselves."""
    perfcast = os.path.join(build, "bin", "perfcast")
    stage, work_root = os.path.join(tmp, "stage"), os.path.join(tmp, "work")

    def timing(*args):
        p = subprocess.run([sys.executable, TIMING, "--recipes", recipes, *args], capture_output=True, text=True)
        print(p.stdout)
        print(p.stderr, file=sys.stderr)
        if p.returncode != 0:
            fail(f"timing.py {args[0]} failed (exit {p.returncode})")
        return p

    timing("stage", "tiny", "--work-root", work_root, "--to", stage)
    passes = [os.path.join(tmp, f"pass{i}") for i in (1, 2)]
    for folder in passes:
        timing("measure", os.path.join(stage, "cases.json"), "--out", folder, "--repeats", "1", "--warmup", "0",
               "--perfcast", perfcast)
    medians = {}
    for n in (1, 2):
        samples = [json.load(open(os.path.join(f, f"tiny-np{n}.json")))["app_time_s"]["median"] for f in passes]
        if not all(s > 0 for s in samples):
            fail(f"{n} ranks: the steps' own time was not read from the run: {samples}")
        medians[n] = sorted(samples)[0] + (sorted(samples)[1] - sorted(samples)[0]) / 2
    out = os.path.join(tmp, "time.json")
    p = timing("predict", "tiny", "--work-root", work_root, "--build", build, "--machine", "generic-cluster",
               "--measured", *passes, "--out", out)
    rows = {r["ranks"]: r for r in json.load(open(out))["rows"]}
    for n, row in rows.items():
        if "refused" in row or row.get("method") != "baseline":
            fail(f"{n} ranks: no timed part predicted: {row.get('refused')}")
        if abs(row["measured"]["median"] / medians[n] - 1) > 1e-9 or len(row["measured"]["samples"]) != 2:
            fail(f"{n} ranks: the two passes were not pooled: {row['measured']}")
        if not 0 < row["predicted_s"]["formula"]:
            fail(f"{n} ranks: the timed part priced at {row['predicted_s']}")
    if abs(rows[2]["naive_s"] - medians[1] / 2) > 1e-12 or "naive_s" in rows[1]:
        fail("the naive baseline is not the 1-rank time over the ranks")
    if "| tiny | 2 |" not in p.stdout or "naive, past 1 rank" not in p.stdout:
        fail("the table lacks its rows or its summary")


if __name__ == "__main__":
    main()
