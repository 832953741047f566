#!/usr/bin/env python3
"""bench/quiet_node_report.py's arithmetic on a fixture of bench/quiet_node.py's document (the
errors, the naive baseline, the means and what stays out of them), its refusals, and
bench/quiet_node.py's parameter binding from a validate.toml."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import quiet_node  # noqa: E402
import quiet_node_report as qr  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "quiet_node.json")


def load():
    with open(FIXTURE) as f:
        return json.load(f)


def row(table, app, ranks, method):
    (r,) = [r for r in table if (r["app"], r["ranks"], r["method"]) == (app, ranks, method)]
    return r


class ReportArithmetic(unittest.TestCase):
    def setUp(self):
        self.table = qr.rows(load())

    def test_error_is_predicted_over_measured_minus_one(self):
        self.assertAlmostEqual(row(self.table, "wave3d", 1, "refined")["error"], 0.25)
        self.assertAlmostEqual(row(self.table, "wave3d", 1, "formula")["error"], -0.10)
        self.assertAlmostEqual(row(self.table, "wave3d", 2, "refined")["error"], 0.051 / 0.060 - 1)

    def test_within_twenty_percent(self):
        self.assertFalse(row(self.table, "wave3d", 1, "refined")["within"])
        self.assertTrue(row(self.table, "wave3d", 1, "formula")["within"])
        self.assertTrue(row(self.table, "wave3d", 2, "refined")["within"])

    def test_naive_is_the_one_rank_time_over_ranks(self):
        r = row(self.table, "wave3d", 2, "naive")
        self.assertAlmostEqual(r["predicted_s"], 0.05)
        self.assertAlmostEqual(r["error"], 0.05 / 0.06 - 1)
        # the naive error sits beside every method's row of the same run
        self.assertAlmostEqual(row(self.table, "wave3d", 2, "formula")["naive_error"], 0.05 / 0.06 - 1)
        self.assertIsNone(row(self.table, "wave3d", 1, "naive")["predicted_s"])
        self.assertIn("1 rank", row(self.table, "wave3d", 1, "naive")["note"])

    def test_failures_are_rows_that_say_why(self):
        failed = row(self.table, "wave3d", 4, "refined")
        self.assertIsNone(failed["error"])
        self.assertIn("rank 3 killed", failed["note"])
        self.assertIn("baseline's time exceeds", row(self.table, "wave3d", 2, "simulated")["note"])
        self.assertIn("no model", row(self.table, "bfs", 2, "refined")["note"])
        self.assertIn("the app's check: failed", row(self.table, "bfs", 2, "naive")["note"])
        self.assertNotIn("check", row(self.table, "wave3d", 2, "naive")["note"])
        self.assertIn("1 parameters unbound", row(self.table, "bfs", 1, "refined")["note"])

    def test_summary_means_only_timed_region_rows(self):
        s = {x["method"]: x for x in qr.summary(self.table)}
        self.assertEqual(s["refined"]["rows"], 2)
        self.assertAlmostEqual(s["refined"]["mean_abs_error"], (0.25 + abs(0.051 / 0.06 - 1)) / 2)
        self.assertEqual(s["refined"]["within"], 1)
        self.assertEqual(s["refined"]["whole_program_rows"], 1)  # bfs, priced whole
        self.assertEqual(s["refined"]["rows_with_naive"], 1)
        self.assertAlmostEqual(s["refined"]["mean_abs_error_same_rows"], abs(0.051 / 0.06 - 1))
        self.assertAlmostEqual(s["refined"]["naive_mean_abs_error_same_rows"], abs(0.05 / 0.06 - 1))
        self.assertAlmostEqual(s["formula"]["mean_abs_error"], (0.10 + 0.25) / 2)
        self.assertEqual(s["simulated"]["rows"], 1)
        self.assertIsNone(s["simulated"]["naive_mean_abs_error_same_rows"])
        self.assertEqual(s["naive"]["rows"], 2)
        self.assertAlmostEqual(s["naive"]["mean_abs_error"], (abs(0.05 / 0.06 - 1) + abs(0.005 / 0.008 - 1)) / 2)

    def test_markdown(self):
        text = qr.render(load())
        self.assertIn("without any run of the app on the target", text)
        self.assertIn("| wave3d | n=96 steps=40 | 2 | naive | timed region | 50 ms | 60 ms | 58 ms - 61 ms | -17 % "
                      "| yes | -17 % |", text)
        self.assertIn("| refined | none | 2 | 20 % | 1 | 1 | 15 % | 17 % | 1 |", text)
        self.assertIn("| naive | the 1-rank run | 2 | 27 % | 1 | 2 | 27 % | 27 % | 0 |", text)
        self.assertIn("main:175 memory 100 ms (80 %)", text)
        self.assertIn("| n=40 iters=50 | 1 | spmv | 0.3 ms | 0.2 ms | 0.4 ms | -25 % |", text)
        self.assertIn("cg_kernels exit 2", text)
        self.assertIn("Unbound model parameters, set to 1: bfs: choose_roots.loop4.trips.", text)
        # the machine file's sharing figures, cores in order whatever the JSON's key order
        self.assertIn("busy_slowdown 1.05; bandwidth per core by cores streaming: DRAM 1 cores 11.2 GB/s, "
                      "4 cores 9 GB/s, 16 cores 6.31 GB/s.", text)


    def test_a_repriced_run_says_so(self):
        doc = load()
        self.assertNotIn("Repriced", qr.render(doc))
        doc["repriced"] = {"from": "lease.json", "machine": "lease.toml", "build": "build", "at": "2026-11-27 09:00 UTC"}
        text = qr.render(doc)
        self.assertIn("**Repriced** 2026-11-27 09:00 UTC", text)
        self.assertIn("a fit to those runs", text)
        # the rows are the same arithmetic as the recorded run's
        self.assertIn("| refined | none | 2 | 20 % | 1 | 1 | 15 % | 17 % | 1 |", text)


class Noisy(unittest.TestCase):
    def test_noisy_is_a_model_method_with_its_own_rows(self):
        doc = load()
        doc["runs"][0]["prediction"]["estimates"]["noisy"] = 0.11  # measured 0.1 s at 1 rank
        table = qr.rows(doc)
        self.assertAlmostEqual(row(table, "wave3d", 1, "noisy")["error"], 0.10)
        s = {x["method"]: x for x in qr.summary(table)}
        self.assertEqual(s["noisy"]["rows"], 1)
        self.assertIn("| noisy | none | 1 | 10 % | 1 |", qr.render(doc))

    def test_a_reprice_names_the_machine_keys_it_changed(self):
        doc = load()
        doc["repriced"] = {"from": "lease.json", "machine": "lease.toml", "build": "build", "at": "t", "set": []}
        self.assertNotIn("Machine keys changed", qr.render(doc))
        doc["repriced"]["set"] = ['node.clock="1.5 GHz"']
        self.assertIn('Machine keys changed for it: `node.clock="1.5 GHz"`.', qr.render(doc))


class ReportCommand(unittest.TestCase):
    def run_report(self, *args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "quiet_node_report.py"), *args],
                              capture_output=True, text=True)

    def test_writes_the_report(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.md")
            p = self.run_report(FIXTURE, "-o", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                self.assertIn("# Accuracy on a quiet node", f.read())

    def test_refuses_another_document_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "rows.json")
            with open(bad, "w") as f:
                json.dump([{"app": "wave3d"}], f)
            p = self.run_report(bad)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("rows.json", p.stderr)
            self.assertIn("'runs'", p.stderr)


class Binding(unittest.TestCase):
    def write(self, d, text):
        path = os.path.join(d, "validate.toml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_lets_and_placeholders_put_into_the_bindings(self):
        with tempfile.TemporaryDirectory() as d:
            toml = self.write(d, '[static]\nsource = "x.c"\n[static.let]\nb = "a + ranks"\na = "n * 2"\n'
                                 '[static.bind]\n"x.y" = "b"\n"p.q" = "floordiv(n, size)"\n"n.m" = "n.m + n"\n')
            p = quiet_node.bind_parameters(toml, {"n": 8, "ranks": 4})
            self.assertEqual(eval(p["x.y"]), 20)  # a let using a later one
            self.assertEqual(p["p.q"], "floordiv((8), size)")  # `size` left to predict
            self.assertEqual(p["n.m"], "n.m + (8)")  # a dotted name is not its first part

    def test_a_cycle_of_lets_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            toml = self.write(d, '[static]\nsource = "x.c"\n[static.let]\na = "b + 1"\nb = "a + 1"\n'
                                 '[static.bind]\nx = "a"\n')
            with self.assertRaisesRegex(ValueError, "cycle"):
                quiet_node.bind_parameters(toml, {"ranks": 1})

    def test_cases_expand_as_validate_does(self):
        runs = quiet_node.expand_cases(os.path.join(ROOT, "validate", "device.toml"), {1, 16})
        cg = [r for r in runs if r["app"] == "cg"]
        self.assertEqual([(r["values"]["n"], r["ranks"]) for r in cg], [(40, 1), (40, 16), (56, 1), (56, 16)])
        self.assertEqual(cg[0]["args"], "--n 40 --iters 50 --repeats 1 --dot ordered")


if __name__ == "__main__":
    unittest.main()
