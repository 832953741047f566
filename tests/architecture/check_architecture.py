#!/usr/bin/env python3
"""Checks the code against the map in docs/architecture.md.

dependencies: every `#include "dir/..."` of a library's sources (src/<folder>/, less the
  folders of nested libraries) and every perfcast library in its CMakeLists.txt's
  target_link_libraries must be one the table's "may use" column allows that library. An
  include that names no src/ folder (a public header of include/, a generated file) is not an
  arrow. Every src/ folder with a CMakeLists.txt needs a row, and the row's library must be
  what that CMakeLists.txt builds.
length: no source file in src/ is over the line limit.

Exceptions known today are listed in known_exceptions.txt beside this script, one per line:
  arrow <library> -> <library>    an arrow the table forbids that is still in the code
  length <path>                   a file over the limit
They let the suite stay green while the code catches up; --strict ignores them. An exception
the code no longer needs is reported as a note, so the list can be emptied as fixes land.

Exit status: 0 when the code agrees, 1 with one line per violation (file, include or link,
the rule broken), 2 when the table or a CMakeLists.txt cannot be read.
"""
import argparse
import os
import re
import sys

LINE_LIMIT = 1200
SOURCE_SUFFIXES = (".h", ".hpp", ".c", ".cc", ".cpp", ".cpp.in", ".h.in")
HERE = os.path.dirname(os.path.abspath(__file__))


class MapError(Exception):
    """The table or a build file says something this script cannot read."""


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def names_in(cell):
    """The names a cell lists: its `code` spans, or its bare words when it has none."""
    quoted = re.findall(r"`([^`]+)`", cell)
    return quoted if quoted else re.findall(r"[A-Za-z0-9_/]+", cell)


def read_table(doc_path):
    """The dependency table of docs/architecture.md: [(folder, library, allowed or None for any)]."""
    with open(doc_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            continue
        header = [c.lower() for c in cells(line)]
        if "folder" in header and "library" in header and "may use" in header:
            col = {name: header.index(name) for name in ("folder", "library", "may use")}
            break
    else:
        raise MapError(f"{doc_path}: no table with the columns folder, library, may use")
    rows = []
    for line in lines[i + 2:]:
        if not line.lstrip().startswith("|"):
            break
        c = cells(line)
        if len(c) <= max(col.values()):
            raise MapError(f"{doc_path}: a row with too few cells: {line.strip()}")
        folder = names_in(c[col["folder"]])
        library = names_in(c[col["library"]])
        if not folder or not library:
            raise MapError(f"{doc_path}: a row without a folder or a library: {line.strip()}")
        use = c[col["may use"]]
        if use.lower().startswith("any"):
            allowed = None
        else:
            allowed = {n for n in names_in(use) if re.fullmatch(r"[A-Za-z0-9_]+", n)}
        rows.append((folder[0].rstrip("/"), library[0], allowed))
    if not rows:
        raise MapError(f"{doc_path}: the dependency table has no rows")
    return rows


def read_exceptions(path):
    arrows, lengths = set(), set()
    if not os.path.exists(path):
        return arrows, lengths
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"arrow\s+(\S+)\s*->\s*(\S+)", line)
            if m:
                arrows.add((m.group(1), m.group(2)))
                continue
            m = re.fullmatch(r"length\s+(\S+)", line)
            if m:
                lengths.add(m.group(1))
                continue
            raise MapError(f"{path}:{n}: not 'arrow LIB -> LIB' or 'length PATH': {raw.strip()}")
    return arrows, lengths


def source_files(root, folder, nested):
    """Sources of the library in `folder`, less those of libraries nested inside it."""
    top = os.path.join(root, folder)
    for dirpath, dirnames, filenames in os.walk(top):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if os.path.join(rel, d) not in nested)
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(rel, name)


def owner_of(include, folders):
    """The folder (a table row) an include "a/b/c.h" names: the longest row folder it lies in."""
    best = None
    for folder in folders:
        inner = folder[len("src/"):] + "/"
        if include.startswith(inner) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def linked_libraries(cmake_text, libraries):
    """[(target, [libraries it links])] from target_link_libraries(...) calls: the table's
    libraries, and any perfcast_* name (a library the table lacks)."""
    text = re.sub(r"#[^\n]*", "", cmake_text)
    out = []
    for m in re.finditer(r"target_link_libraries\s*\(([^)]*)\)", text):
        words = m.group(1).split()
        if words:
            out.append((words[0], [w for w in words[1:] if w in libraries or re.fullmatch(r"perfcast_\w+", w)]))
    return out


def library_of_sources(cmake_text):
    """{source file name: library} from add_library(NAME [kind] files...) calls: a folder
    that builds two libraries (a pass plugin and its runtime) judges each file by its own."""
    text = re.sub(r"#[^\n]*", "", cmake_text)
    out = {}
    for m in re.finditer(r"add_library\s*\(\s*([A-Za-z0-9_]+)([^)]*)\)", text):
        for word in m.group(2).split():
            if word.endswith(SOURCE_SUFFIXES):
                out[os.path.basename(word)] = m.group(1)
    return out


def built_targets(cmake_text):
    text = re.sub(r"#[^\n]*", "", cmake_text)
    return re.findall(r"add_(?:library|executable)\s*\(\s*([A-Za-z0-9_]+)", text)


def check_dependencies(root, rows, exceptions):
    by_folder = {folder: (library, allowed) for folder, library, allowed in rows}
    rows_of = {}  # folder -> {library: allowed}, every row of a folder that builds several
    for folder, library, allowed in rows:
        rows_of.setdefault(folder, {})[library] = allowed
    folders = list(by_folder)
    libraries = {library for _, library, _ in rows}
    violations, used_exceptions, problems = [], set(), []

    def allowed_text(allowed):
        return ", ".join(sorted(allowed)) if allowed else "nothing"

    def judge(library, allowed, target, where, what):
        if allowed is None or target == library or target in allowed:
            return
        if (library, target) in exceptions:
            used_exceptions.add((library, target))
            return
        violations.append(f"{where}: {what}: {library} may use {allowed_text(allowed)} "
                          f"(docs/architecture.md), not {target}")

    # Every library folder has a row, and the row names what its CMakeLists.txt builds.
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "src")):
        dirnames.sort()
        if "CMakeLists.txt" not in filenames:
            continue
        folder = os.path.relpath(dirpath, root)
        with open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8") as f:
            targets = built_targets(f.read())
        if not targets:
            continue
        if folder not in by_folder:
            problems.append(f"{folder}/CMakeLists.txt builds {', '.join(targets)}, but docs/architecture.md has "
                            f"no row for {folder}: add one (its library, what it may use, what it owns)")
        elif by_folder[folder][0] not in targets:
            problems.append(f"{folder}/CMakeLists.txt builds {', '.join(targets)}, but docs/architecture.md says "
                            f"{folder} is {by_folder[folder][0]}")

    include_line = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for folder, (library, allowed) in by_folder.items():
        if not os.path.isdir(os.path.join(root, folder)):
            continue  # a row for a library still to come
        nested = {f for f in folders if f != folder and f.startswith(folder + "/")}
        cmake = os.path.join(root, folder, "CMakeLists.txt")
        text = ""
        if os.path.exists(cmake):
            with open(cmake, encoding="utf-8") as f:
                text = f.read()
        built_into = library_of_sources(text)
        for path in source_files(root, folder, nested):
            # A file the folder's CMakeLists.txt builds into one of the folder's libraries is
            # judged by that library's row; any other (a header) by the folder's last row.
            own = built_into.get(os.path.basename(path))
            file_library, file_allowed = (own, rows_of[folder][own]) if own in rows_of[folder] else (library, allowed)
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = include_line.match(line)
                    if not m:
                        continue
                    target_folder = owner_of(m.group(1), folders)
                    if target_folder is None or target_folder == folder:
                        continue  # include/ headers, generated files, the folder's own headers
                    judge(file_library, file_allowed, by_folder[target_folder][0], f"{path}:{n}",
                          f'#include "{m.group(1)}"')
        if text:
            for target, linked in linked_libraries(text, libraries):
                if target not in rows_of[folder]:
                    continue
                library, allowed = target, rows_of[folder][target]
                for dep in linked:
                    if dep not in libraries:
                        problems.append(f"{folder}/CMakeLists.txt: {library} links {dep}, which docs/architecture.md "
                                        "has no row for")
                        continue
                    judge(library, allowed, dep, f"{folder}/CMakeLists.txt", f"target_link_libraries({library} ... {dep})")
    return violations + problems, used_exceptions


def check_length(root, exceptions, limit):
    violations, used = [], set()
    for path in source_files(root, "src", set()):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            n = sum(1 for _ in f)
        if n > limit:
            if path in exceptions:
                used.add(path)
            else:
                violations.append(f"{path}: {n} lines, over the limit of {limit}: split it by responsibility")
    return violations, used


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", default=os.path.dirname(os.path.dirname(HERE)),
                    help="the repository root (default: the one holding this script)")
    ap.add_argument("--check", choices=("dependencies", "length", "all"), default="all")
    ap.add_argument("--exceptions", default=os.path.join(HERE, "known_exceptions.txt"))
    ap.add_argument("--strict", action="store_true", help="ignore the known exceptions")
    ap.add_argument("--limit", type=int, default=LINE_LIMIT, help="lines a source file may have")
    a = ap.parse_args()
    root = os.path.abspath(a.source_dir)
    try:
        arrows, lengths = (set(), set()) if a.strict else read_exceptions(a.exceptions)
        violations, notes = [], []
        if a.check in ("dependencies", "all"):
            rows = read_table(os.path.join(root, "docs", "architecture.md"))
            found, used = check_dependencies(root, rows, arrows)
            violations += found
            notes += [f"known exception still needed: arrow {x} -> {y}" for x, y in sorted(used)]
            notes += [f"known exception no longer needed, remove it from {a.exceptions}: arrow {x} -> {y}"
                      for x, y in sorted(arrows - used)]
        if a.check in ("length", "all"):
            found, used = check_length(root, lengths, a.limit)
            violations += found
            notes += [f"known exception still needed: length {p}" for p in sorted(used)]
            notes += [f"known exception no longer needed, remove it from {a.exceptions}: length {p}"
                      for p in sorted(lengths - used)]
    except MapError as e:
        print(f"check_architecture: {e}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}")
    for v in violations:
        print(f"error: {v}")
    if violations:
        print(f"check_architecture: {len(violations)} violation(s) of docs/architecture.md")
        return 1
    print("check_architecture: the code agrees with docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
