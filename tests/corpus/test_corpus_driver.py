#!/usr/bin/env python3
"""corpus/corpus.py's own logic, with no application and no perfcast build: recipes with a bad
field are refused naming the file and the field, the skip path exits 77 within a second, a
source is cloned at its pinned commit, bindings apply where the model still needs them, and
the verdicts hold a known gap to its bound. Plain Python (unittest)."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DRIVER = os.path.join(ROOT, "corpus", "corpus.py")
sys.path.insert(0, os.path.dirname(DRIVER))
import corpus  # noqa: E402
import timing  # noqa: E402

GOOD = """\
name = "{name}"
language = "c"
repo = "{repo}"
commit = "{commit}"

[build]
commands = ["make CC={{CC}}"]
binary = "app"

[run]
args = ["8"]
ranks = [1, 2]

[[bind]]
name = "main.n"
value = "64 / np"
how = "the input's size over the ranks"

[thresholds]
flops_error = 0.15
"""


def write_recipe(folder, name="tiny", repo="https://example.invalid/owner/tiny", commit="a" * 40, text=None):
    os.makedirs(os.path.join(folder, name), exist_ok=True)
    path = os.path.join(folder, name, "recipe.toml")
    with open(path, "w") as f:
        f.write(text if text is not None else GOOD.format(name=name, repo=repo, commit=commit))
    return path


def run_driver(*args, env=None):
    merged = dict(os.environ)
    merged.pop("PERFCAST_CORPUS_SRC", None)
    merged.update(env or {})
    return subprocess.run([sys.executable, DRIVER, *args], capture_output=True, text=True, env=merged)


class Recipes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, text, field):
        path = write_recipe(self.dir, text=text)
        with self.assertRaises(corpus.RecipeError) as e:
            corpus.load_recipe(path)
        self.assertIn(path, str(e.exception))
        self.assertIn(f"'{field}'", str(e.exception))
        return str(e.exception)

    def good(self):
        return GOOD.format(name="tiny", repo="https://example.invalid/owner/tiny", commit="a" * 40)

    def test_a_good_recipe_loads(self):
        r = corpus.load_recipe(write_recipe(self.dir))
        self.assertEqual((r["owner"], r["repo_name"]), ("owner", "tiny"))
        self.assertEqual(r["ranks"], [1, 2])
        self.assertEqual(r["bind"][0]["name"], "main.n")

    def test_a_short_commit_names_the_field(self):
        self.refused(self.good().replace("a" * 40, "abc123"), "commit")

    def test_a_missing_field_is_named(self):
        self.refused(self.good().replace('binary = "app"\n', ""), "build.binary")

    def test_an_unknown_field_is_named(self):
        self.refused(self.good().replace("[run]\n", "[run]\nrank = 2\n"), "run.rank")

    def test_a_field_of_the_wrong_type_is_named(self):
        self.refused(self.good().replace("ranks = [1, 2]", 'ranks = ["2"]'), "run.ranks[0]")

    def test_a_binding_without_how_is_refused(self):
        self.refused(self.good().replace('how = "the input\'s size over the ranks"', 'how = " "'), "bind[0].how")

    def test_a_binding_value_that_is_not_arithmetic_is_refused(self):
        msg = self.refused(self.good().replace('"64 / np"', '"__import__(\'os\')"'), "bind[0].value")
        self.assertIn("np", msg)

    def test_a_name_other_than_its_folder_is_refused(self):
        self.refused(self.good().replace('name = "tiny"', 'name = "other"'), "name")

    def test_toml_syntax_errors_name_the_file_and_line(self):
        path = write_recipe(self.dir, text=self.good().replace("[run]", "[run"))
        with self.assertRaises(corpus.RecipeError) as e:
            corpus.load_recipe(path)
        self.assertIn(path, str(e.exception))
        self.assertIn("line", str(e.exception))

    def test_a_known_gap_must_hold_its_figure_and_lie_beyond_the_goal(self):
        gap = '[[thresholds.known_gap]]\nranks = 2\nmeasured = -0.30\nbound = {}\nreason = "r"\n'
        self.refused(self.good() + gap.format(0.25), "thresholds.known_gap[0].bound")
        self.refused(self.good() + gap.format(0.10).replace("-0.30", "-0.05"), "thresholds.known_gap[0].bound")
        path = write_recipe(self.dir, text=self.good() + gap.format(0.33))
        self.assertEqual(corpus.load_recipe(path)["known_gaps"][0]["bound"], 0.33)

    def test_a_time_table_names_its_bad_fields(self):
        time = '[time]\npattern = \'took (\\S+) s\'\nranks = [1, 2, 4]\nbaseline = ["steps=0"]\n'
        r = corpus.load_recipe(write_recipe(self.dir, text=self.good() + time))
        self.assertEqual((r["time"]["ranks"], r["time"]["baseline"], r["time"]["grows"]), ([1, 2, 4], ["steps=0"], False))
        self.assertIsNone(corpus.load_recipe(write_recipe(self.dir))["time"])
        self.assertIn("no group", self.refused(self.good() + time.replace("(\\S+)", "\\S+"), "time.pattern"))
        self.refused(self.good() + time.replace("(\\S+)", "(\\S+"), "time.pattern")
        self.refused(self.good() + time.replace('"steps=0"', '"steps"'), "time.baseline[0]")
        self.refused(self.good() + time.replace("[1, 2, 4]", "[0]"), "time.ranks[0]")
        self.refused(self.good() + time + "file = 3\n", "time.file")
        self.refused(self.good() + time + "grow = true\n", "time.grow")
        bind = '[[time.bind]]\nname = "CG.loop1.trips"\nvalue = 50\nhow = "{}"\n'
        r = corpus.load_recipe(write_recipe(self.dir, text=self.good() + time + bind.format("the report says 50")))
        self.assertEqual(r["time"]["bind"], [{"name": "CG.loop1.trips", "value": 50, "how": "the report says 50"}])
        self.refused(self.good() + time + bind.format(" "), "time.bind[0].how")
        self.refused(self.good() + time + bind.format("x").replace("50", '"np"'), "time.bind[0].value")

    def test_binding_values(self):
        self.assertEqual(corpus.evaluate_value("2048 / np", 2), 1024)
        self.assertEqual(corpus.evaluate_value("(16 * 16) * (np - 1)", 1), 0)
        self.assertEqual(corpus.evaluate_value(3.5, 4), 3.5)
        self.assertAlmostEqual(corpus.evaluate_value("100 / np", 3), 100 / 3)
        self.assertEqual(corpus.evaluate_value("rank * (np + 1)", 2), "rank * 3")  # perfcast's, per rank
        self.assertEqual(corpus.evaluate_value("select(rank == 0, 2025, np - 1)", 2), "select(rank == 0, 2025, 1)")
        self.assertEqual(corpus.evaluate_value("select(np == 1, 5, 3)", 2), 3)
        with self.assertRaises(corpus.RecipeError):
            corpus.evaluate_value("rank // 2", 2)

    def test_the_cli_names_the_bad_field_and_fails(self):
        write_recipe(self.dir, text=self.good().replace("a" * 40, "abc"))
        p = run_driver("--recipes", self.dir, "check", "tiny")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("recipe.toml: field 'commit'", p.stderr)

    def test_the_bundled_recipes_load(self):
        apps = corpus.all_apps()
        self.assertIn("hpcg", apps)
        for app in apps:
            corpus.load_recipe(corpus.recipe_path(app))


class RunFolders(unittest.TestCase):
    """Each run folder holds the inputs at its rank count: the checkout's and the recipe's own
    decks, `{np}` the ranks; the analysis flavour's Fortran compiler reads perfcast's mpi module."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def recipe(self, extra):
        text = GOOD.format(name="tiny", repo="https://example.invalid/owner/tiny", commit="a" * 40)
        text = text.replace('args = ["8"]', 'args = ["deck{np}", "out"]\n' + extra)
        return corpus.load_recipe(write_recipe(self.dir, text=text))

    def test_inputs_at_each_rank_count_from_the_checkout_and_the_recipe(self):
        r = self.recipe('inputs = ["data/table.txt"]\nrecipe_inputs = ["deck{np}"]')
        src = os.path.join(self.dir, "src")
        os.makedirs(os.path.join(src, "data"))
        with open(os.path.join(src, "data", "table.txt"), "w") as f:
            f.write("t")
        for n in (1, 2):
            with open(os.path.join(self.dir, "tiny", f"deck{n}"), "w") as f:
                f.write(f"ranks={n}")
        work = os.path.join(self.dir, "work")
        for n in (1, 2):
            folder = corpus.run_folder(r, work, f"run-{n}", src, n)
            self.assertEqual(sorted(os.listdir(folder)), sorted(["table.txt", f"deck{n}"]))
            with open(os.path.join(folder, f"deck{n}")) as f:
                self.assertEqual(f.read(), f"ranks={n}")
            self.assertEqual(corpus.run_args(r, n), [f"deck{n}", "out"])

    def test_a_missing_recipe_input_names_the_field_and_the_file(self):
        r = self.recipe('recipe_inputs = ["deck{np}"]')
        with self.assertRaises(corpus.CheckError) as e:
            corpus.run_folder(r, os.path.join(self.dir, "work"), "run-2", self.dir, 2)
        self.assertIn("'run.recipe_inputs'", str(e.exception))
        self.assertIn("deck2", str(e.exception))

    def test_the_analysis_fortran_compiler_reads_perfcasts_mpi_module(self):
        perfcast = os.path.join(self.dir, "build", "bin", "perfcast")
        paths = corpus.write_wrappers(os.path.join(self.dir, "wrappers"), "analysis", perfcast)
        with open(paths["mpif90"]) as f:
            body = f.read()
        self.assertIn(f'"-I{os.path.join(self.dir, "build", "fortran", "modules")}"', body)
        self.assertIn("OMPI_FC=flang-new-19", body)


class Timeouts(unittest.TestCase):
    def test_a_perfcast_step_past_its_time_is_stopped_and_names_the_field(self):
        with tempfile.TemporaryDirectory() as d:
            slow = os.path.join(d, "perfcast")
            with open(slow, "w") as f:
                f.write("#!/bin/sh\nsleep 30\n")
            os.chmod(slow, 0o755)
            started = time.monotonic()
            with self.assertRaises(corpus.CheckError) as e:
                corpus.run_perfcast(slow, ["predict"], timeout_s=1, what="predict at 1 ranks")
            self.assertLess(time.monotonic() - started, 10)
            self.assertIn("run.timeout_s", str(e.exception))


class Sources(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_no_network_and_no_local_sources_skips_within_a_second(self):
        write_recipe(self.dir, repo="https://unreachable.invalid/owner/tiny")
        start = time.monotonic()
        p = run_driver("--recipes", self.dir, "check", "tiny", "--work", os.path.join(self.dir, "work"))
        self.assertLess(time.monotonic() - start, 1.5)
        self.assertEqual(p.returncode, 77, p.stderr)
        self.assertIn("PERFCAST_CORPUS_SRC", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_a_local_source_folder_without_the_app_skips(self):
        write_recipe(self.dir)
        p = run_driver("--recipes", self.dir, "fetch", "tiny", "--work", os.path.join(self.dir, "work"),
                       env={"PERFCAST_CORPUS_SRC": self.dir})
        self.assertEqual(p.returncode, 77, p.stderr)
        self.assertIn("owner+tiny", p.stderr)

    def test_the_pinned_commit_is_checked_out_from_the_local_copy(self):
        origin = os.path.join(self.dir, "src", "owner+tiny", "repo")
        os.makedirs(origin)
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")

        def git(*args):
            return subprocess.run(["git", *args], cwd=origin, env=env, check=True, capture_output=True,
                                  text=True).stdout.strip()

        git("init", "-q")
        for version in ("first", "second"):
            with open(os.path.join(origin, "app.c"), "w") as f:
                f.write(f"/* {version} */\n")
            git("add", "app.c")
            git("commit", "-q", "-m", version)
        first = git("rev-parse", "HEAD~1")
        write_recipe(self.dir, commit=first)
        work = os.path.join(self.dir, "work")
        for clones in (True, False):  # the second fetch finds the checkout in place
            p = run_driver("--recipes", self.dir, "fetch", "tiny", "--work", work,
                           env={"PERFCAST_CORPUS_SRC": os.path.join(self.dir, "src")})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual("cloning" in p.stderr, clones, p.stderr)
            with open(os.path.join(work, "src", "app.c")) as f:
                self.assertEqual(f.read(), "/* first */\n")

    def test_a_commit_the_source_lacks_is_an_error_not_a_skip(self):
        origin = os.path.join(self.dir, "src", "owner+tiny", "repo")
        os.makedirs(origin)
        subprocess.run(["git", "init", "-q"], cwd=origin, check=True)
        write_recipe(self.dir, commit="b" * 40)
        p = run_driver("--recipes", self.dir, "fetch", "tiny", "--work", os.path.join(self.dir, "work"),
                       env={"PERFCAST_CORPUS_SRC": os.path.join(self.dir, "src")})
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("b" * 40, p.stderr)


class Figures(unittest.TestCase):
    def recipe(self, gaps=()):
        return {"path": "r.toml", "flops_error": 0.15, "known_gaps": list(gaps),
                "bind": [{"name": "a.n", "value": "8 / np", "how": "h", "ranks": None, "override": False},
                         {"name": "a.m", "value": 3, "how": "h", "ranks": [2], "override": False},
                         {"name": "a.k", "value": 5, "how": "h", "ranks": None, "override": True}]}

    def row(self, ranks, rank, error):
        return {"ranks": ranks, "rank": rank, "flops_error": error, "mpi_calls_error": 0.0}

    def test_rows_within_the_goal_pass(self):
        rows = [self.row(1, 0, 0.149), self.row(2, 0, -0.149)]
        failures, notes = corpus.verdicts(self.recipe(), rows)
        self.assertEqual((failures, notes), ([], []))
        self.assertTrue(all(r["within_goal"] for r in rows))

    def test_a_row_beyond_the_goal_fails_without_a_known_gap(self):
        failures, _ = corpus.verdicts(self.recipe(), [self.row(2, 1, -0.2)])
        self.assertEqual(len(failures), 1)
        self.assertIn("2 ranks, rank 1", failures[0])

    def test_a_known_gap_guards_its_figure_and_the_goal_verdict_stays(self):
        gap = {"ranks": 2, "rank": None, "figure": "flops", "measured": -0.21, "bound": 0.25, "reason": "why"}
        rows = [self.row(2, 0, -0.22), self.row(2, 1, -0.21)]
        failures, notes = corpus.verdicts(self.recipe([gap]), rows)
        self.assertEqual(failures, [])
        self.assertEqual(len(notes), 2)
        self.assertFalse(rows[0]["within_goal"])
        failures, _ = corpus.verdicts(self.recipe([gap]), [self.row(2, 0, -0.26)])
        self.assertIn("regression", failures[0])
        failures, _ = corpus.verdicts(self.recipe([gap]), [self.row(1, 0, -0.22)])  # not its rank count
        self.assertEqual(len(failures), 1)

    def test_a_closed_gap_is_noted(self):
        gap = {"ranks": 1, "rank": None, "figure": "flops", "measured": -0.21, "bound": 0.25, "reason": "why"}
        failures, notes = corpus.verdicts(self.recipe([gap]), [self.row(1, 0, 0.01)])
        self.assertEqual(failures, [])
        self.assertIn("can be removed", notes[0])

    def test_bindings_apply_where_still_required_or_overridden(self):
        r = self.recipe()
        params = {"a.n", "a.m", "a.k", "a.x"}
        applied, unused = corpus.user_bindings(r, 1, {"a.n", "a.m"}, params)
        self.assertEqual(applied, [("a.n", 8), ("a.k", 5)])  # a.m only at 2 ranks
        self.assertEqual(unused, [])
        applied, unused = corpus.user_bindings(r, 2, {"a.m"}, params)
        self.assertEqual(applied, [("a.m", 3), ("a.k", 5)])
        self.assertEqual(unused, ["a.n"])  # the probe bound it
        with self.assertRaises(corpus.RecipeError) as e:
            corpus.user_bindings(r, 1, set(), {"a.n", "a.m"})
        self.assertIn("bind[2].name", str(e.exception))

    def test_mpi_calls_count_each_call_once_through_its_entry_points(self):
        vocabulary = corpus.mpi_vocabulary()
        self.assertTrue({"send", "allreduce", "waitall", "init", "finalize"} <= vocabulary)
        self.assertNotIn("comm_rank", vocabulary)
        rows = [{"function": "PMPI_Send", "object": "libmpi.so", "calls": 40},
                {"function": "mpi_send_", "object": "libmpi_mpifh.so", "calls": 40},
                {"function": "MPI_Allreduce", "object": "libmpi.so", "calls": 7},
                {"function": "MPI_Comm_rank", "object": "libmpi.so", "calls": 3},
                {"function": "MPI_Send", "object": "app", "calls": 1000},  # the program's own name
                {"function": "ompi_coll_base_allreduce", "object": "libmpi.so", "calls": 7}]
        self.assertEqual(corpus.callgrind_mpi_calls(rows, "app", vocabulary), 47)

    def test_mpi_calls_a_polling_loop_makes_are_reported_not_scored(self):
        vocabulary = corpus.mpi_vocabulary()
        rows = [{"function": "PMPI_Test", "object": "libmpi.so", "calls": 3221},
                {"function": "mpi_test_", "object": "libmpi_mpifh.so", "calls": 3221},
                {"function": "PMPI_Send", "object": "libmpi.so", "calls": 40},
                {"function": "MPI_Allreduce", "object": "libmpi.so", "calls": 7}]
        measured = corpus.callgrind_mpi_calls_by_op(rows, "app", vocabulary)
        self.assertEqual(measured, {"test": 3221, "send": 40, "allreduce": 7})
        rank = {"mpi_calls": 49, "mpi_calls_by_op": {
            "test": {"calls": 2, "timing_dependent": True, "timing_dependent_calls": 2},
            "send": {"calls": 40}, "allreduce": {"calls": 7}}}
        model, callgrind, labelled = corpus.scored_mpi_calls(rank, measured)
        self.assertEqual((model, callgrind), (47, 47))  # the tests left out of both
        self.assertEqual(labelled, {"test": {"model_at_least": 2, "callgrind": 3221}})
        row = {"ranks": 2, "rank": 0, "flops_error": 0.0, "mpi_calls_error": corpus.relative_error(model, callgrind),
               "mpi_calls_timing_dependent": labelled}
        gap = {"ranks": 2, "rank": None, "figure": "mpi_calls", "measured": 0.3, "bound": 0.01, "reason": "why"}
        failures, _ = corpus.verdicts(self.recipe([gap]), [row])
        self.assertEqual(failures, [])  # 3221 against 2 is no error of the scored calls
        lines = corpus.timing_dependent_lines([row])
        self.assertIn("MPI_Test model >= 2", lines[1])
        self.assertIn("callgrind 3221", lines[1])
        self.assertIn("not scored", lines[1])
        # Without the breakdown (an older perfcast), every call is scored as before.
        self.assertEqual(corpus.scored_mpi_calls({"mpi_calls": 49}, measured), (49, 3268, {}))

    def test_relative_error(self):
        self.assertAlmostEqual(corpus.relative_error(115, 100), 0.15)
        self.assertEqual(corpus.relative_error(0, 0), 0.0)
        self.assertIsNone(corpus.relative_error(1, 0))
        failures, _ = corpus.verdicts(self.recipe(), [self.row(1, 0, None)])  # no flops measured
        self.assertEqual(len(failures), 1)


class Timing(unittest.TestCase):
    """corpus/timing.py's arithmetic: passes pooled, the naive baseline on the same rows."""

    def test_passes_are_pooled_and_their_medians_kept(self):
        with tempfile.TemporaryDirectory() as tmp:
            folders = []
            for i, samples in enumerate(([0.010, 0.012, 0.011], [0.020, 0.021, 0.019])):
                folder = os.path.join(tmp, f"pass{i}")
                os.makedirs(folder)
                with open(os.path.join(folder, "app-np2.json"), "w") as f:
                    json.dump({"app_time_s": {"samples": samples, "median": sorted(samples)[1]},
                               "wall_s": {"median": 0.4 + i}}, f)
                folders.append(folder)
            m = timing.measured_time(folders + [os.path.join(tmp, "missing")], "app", 2)
            self.assertEqual(len(m["samples"]), 6)
            self.assertAlmostEqual(m["median"], (0.012 + 0.019) / 2)
            self.assertEqual(m["pass_medians"], [0.011, 0.020])
            self.assertIsNone(timing.measured_time(folders, "app", 4))

    def test_bad_input_names_the_file_and_what_it_should_be(self):
        def run(*args):
            return subprocess.run([sys.executable, os.path.join(os.path.dirname(DRIVER), "timing.py"), *args],
                                  capture_output=True, text=True)
        with tempfile.TemporaryDirectory() as tmp:
            cases = os.path.join(tmp, "cases.json")
            with open(cases, "w") as f:
                f.write('{"stage": 1')
            for args, said in ((["measure", cases, "--out", tmp], f"{cases}: line 1: not JSON"),
                               (["measure", os.path.join(tmp, "none.json"), "--out", tmp], "no such file"),
                               (["predict", "hpcg", "--work-root", tmp, "--machine", "m", "--measured",
                                 os.path.join(tmp, "none"), "--out", os.path.join(tmp, "t.json")], "--measured"),
                               (["predict", "hpcg", "--work-root", tmp, "--machine", "m", "--measured", tmp,
                                 "--out", os.path.join(tmp, "t.json")], "corpus.py check hpcg"),
                               (["report", cases], "not JSON")):
                p = run(*args)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(said, p.stderr)
                self.assertNotIn("Traceback", p.stderr)

    def test_the_naive_baseline_is_scored_on_the_rows_the_model_priced(self):
        def row(n, measured, naive=None, formula=None):
            r = {"app": "a", "ranks": n, "measured": {"median": measured}}
            if naive is not None:
                r["naive_s"] = naive
            if formula is not None:
                r["predicted_s"] = {"formula": formula}
            return r
        rows = [row(1, 1.0, formula=1.1), row(2, 0.5, naive=0.5, formula=0.4), row(4, 0.5, naive=0.25)]
        lines = {l["estimate"]: l for l in timing.summary(rows)}
        self.assertEqual(lines["formula"]["rows"], 2)
        self.assertAlmostEqual(lines["formula"]["mean_abs_error"], (0.1 + 0.2) / 2)
        self.assertEqual((lines["formula, past 1 rank"]["rows"], lines["formula, past 1 rank"]["within_20"]), (1, 1))
        self.assertEqual((lines["naive, past 1 rank"]["rows"], lines["naive, past 1 rank"]["mean_abs_error"]), (1, 0.0))
        self.assertAlmostEqual(lines["naive, every measured row"]["mean_abs_error"], 0.25)
        self.assertNotIn("refined", lines)


if __name__ == "__main__":
    unittest.main()
