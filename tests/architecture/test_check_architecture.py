#!/usr/bin/env python3
"""check_architecture.py on small made-up trees: it passes a tree that follows its table and
fails, naming the file, the include or link and the rule, on each kind of violation."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_architecture.py")

TABLE = """\
# map

| folder | library | may use | owns (the contract) |
|---|---|---|---|
| `src/base` | `lib_base` | — | basics |
| `src/engine` | `lib_engine` | `lib_base` | the engine |
| `src/engine/live` | `lib_live` | `lib_base`, `lib_engine` | live runs |
| `src/render` | `lib_render` | `lib_base`, `lib_engine` | tables |
| `src/cli` | `tool` | any library | the command line |
| `src/later` | `lib_later` | `lib_base` | still to come |
"""


class Tree:
    def __init__(self, root):
        self.root = root

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(textwrap.dedent(text))


def clean_tree(root):
    t = Tree(root)
    t.write("docs/architecture.md", TABLE)
    t.write("src/base/CMakeLists.txt", "add_library(lib_base base.cpp)\n")
    t.write("src/base/base.h", "#pragma once\n")
    t.write("src/engine/CMakeLists.txt",
            "add_library(lib_engine engine.cpp)\n"
            "# target_link_libraries(lib_engine PUBLIC lib_render) in a comment is no arrow\n"
            "target_link_libraries(lib_engine PUBLIC lib_base fmt::fmt)\n"
            "add_subdirectory(live)\n")
    t.write("src/engine/engine.cpp", '#include "engine/engine.h"\n#include "base/base.h"\n#include <vector>\n')
    t.write("src/engine/live/CMakeLists.txt", "add_library(lib_live OBJECT live.cpp)\n"
            "target_link_libraries(lib_live\n  PUBLIC lib_engine\n  PRIVATE lib_base)\n")
    t.write("src/engine/live/live.cpp", '#include "engine/engine.h"\n#include "public/api.h"\n')
    t.write("src/render/CMakeLists.txt", "add_library(lib_render render.cpp)\n"
            "target_link_libraries(lib_render PUBLIC lib_engine)\n")
    t.write("src/render/render.cpp", '#include "engine/engine.h"\n')
    t.write("src/cli/CMakeLists.txt", "add_executable(tool main.cpp)\n"
            "target_link_libraries(tool PRIVATE lib_render lib_live)\n")
    t.write("src/cli/main.cpp", '#include "render/render.h"\n#include "cli/options.h"\n')
    return t


def check(root, *args):
    p = subprocess.run([sys.executable, CHECK, "--source-dir", root, "--exceptions",
                        os.path.join(root, "exceptions.txt")] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class CheckArchitecture(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        self.tree = clean_tree(self.root)

    def tearDown(self):
        self.dir.cleanup()

    def test_a_tree_that_follows_its_table_passes(self):
        rc, out = check(self.root)
        self.assertEqual(rc, 0, out)

    def test_a_forbidden_include_names_the_file_the_include_and_the_rule(self):
        self.tree.write("src/engine/engine.h", '#pragma once\n#include "render/table.h"\n')
        rc, out = check(self.root, "--check", "dependencies")
        self.assertEqual(rc, 1, out)
        self.assertIn('src/engine/engine.h:2: #include "render/table.h": lib_engine may use lib_base', out)
        self.assertIn("not lib_render", out)

    def test_a_library_using_the_cli_fails(self):
        self.tree.write("src/base/base.cpp", '#include "cli/options.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/base/base.cpp:1: #include "cli/options.h": lib_base may use nothing', out)
        self.assertIn("not tool", out)

    def test_a_forbidden_link_fails(self):
        self.tree.write("src/base/CMakeLists.txt", "add_library(lib_base base.cpp)\n"
                        "target_link_libraries(lib_base PRIVATE lib_engine)\n")
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("src/base/CMakeLists.txt: target_link_libraries(lib_base ... lib_engine)", out)

    def test_a_nested_library_is_judged_by_its_own_row(self):
        # lib_live may use lib_engine; its folder's sources are not lib_engine's.
        self.tree.write("src/engine/live/extra.cpp", '#include "render/render.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("src/engine/live/extra.cpp:1", out)
        self.assertIn("lib_live may use lib_base, lib_engine", out)

    def test_an_include_from_a_nested_folder_names_the_nested_library(self):
        self.tree.write("src/render/live_view.cpp", '#include "engine/live/live.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/render/live_view.cpp:1: #include "engine/live/live.h"', out)
        self.assertIn("not lib_live", out)

    def test_each_of_two_libraries_of_one_folder_is_judged_by_its_own_row(self):
        # src/plugin builds a pass (which may use lib_engine) and its runtime (lib_base only).
        self.tree.write("docs/architecture.md", TABLE + "| `src/plugin` | `lib_pass` | `lib_base`, `lib_engine` | a pass |\n"
                        "| `src/plugin` | `lib_runtime` | `lib_base` | its runtime |\n")
        self.tree.write("src/plugin/CMakeLists.txt", "add_library(lib_pass MODULE pass.cpp)\n"
                        "target_link_libraries(lib_pass PRIVATE lib_engine)\n"
                        "add_library(lib_runtime STATIC runtime.c)\n")
        self.tree.write("src/plugin/pass.cpp", '#include "plugin/abi.h"\n#include "engine/engine.h"\n')
        self.tree.write("src/plugin/runtime.c", '#include "plugin/abi.h"\n#include "base/base.h"\n')
        rc, out = check(self.root)
        self.assertEqual(rc, 0, out)
        self.tree.write("src/plugin/runtime.c", '#include "plugin/abi.h"\n#include "engine/engine.h"\n')
        self.tree.write("src/plugin/CMakeLists.txt", "add_library(lib_pass MODULE pass.cpp)\n"
                        "target_link_libraries(lib_pass PRIVATE lib_engine)\n"
                        "add_library(lib_runtime STATIC runtime.c)\n"
                        "target_link_libraries(lib_runtime PRIVATE lib_render)\n")
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn('src/plugin/runtime.c:2: #include "engine/engine.h": lib_runtime may use lib_base', out)
        self.assertIn("target_link_libraries(lib_runtime ... lib_render)", out)
        self.assertNotIn("pass.cpp", out)

    def test_a_library_without_a_row_fails(self):
        self.tree.write("src/extra/CMakeLists.txt", "add_library(lib_extra extra.cpp)\n")
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("src/extra/CMakeLists.txt builds lib_extra", out)

    def test_a_row_naming_another_library_fails(self):
        self.tree.write("src/base/CMakeLists.txt", "add_library(lib_basics base.cpp)\n")
        rc, out = check(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("docs/architecture.md says src/base is lib_base", out)

    def test_a_long_file_fails_unless_listed(self):
        self.tree.write("src/render/long.cpp", "int x;\n" * 13)
        rc, out = check(self.root, "--check", "length", "--limit", "12")
        self.assertEqual(rc, 1, out)
        self.assertIn("src/render/long.cpp: 13 lines, over the limit of 12", out)
        self.tree.write("exceptions.txt", "# being split\nlength src/render/long.cpp\nlength src/gone.cpp\n")
        rc, out = check(self.root, "--check", "length", "--limit", "12")
        self.assertEqual(rc, 0, out)
        self.assertIn("no longer needed", out)
        self.assertIn("length src/gone.cpp", out)
        rc, out = check(self.root, "--check", "length", "--limit", "12", "--strict")
        self.assertEqual(rc, 1, out)

    def test_a_listed_arrow_passes_and_strict_ignores_the_list(self):
        self.tree.write("src/engine/engine.h", '#include "render/table.h"\n')
        self.tree.write("exceptions.txt", "arrow lib_engine -> lib_render\n")
        rc, out = check(self.root)
        self.assertEqual(rc, 0, out)
        self.assertIn("still needed: arrow lib_engine -> lib_render", out)
        rc, out = check(self.root, "--strict")
        self.assertEqual(rc, 1, out)

    def test_a_missing_table_is_an_error_of_its_own(self):
        self.tree.write("docs/architecture.md", "# no table here\n")
        rc, out = check(self.root, "--check", "dependencies")
        self.assertEqual(rc, 2, out)
        self.assertIn("no table with the columns folder, library, may use", out)


if __name__ == "__main__":
    unittest.main()
