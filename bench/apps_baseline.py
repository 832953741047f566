#!/usr/bin/env python3
"""Times every app in apps/ at 1 and 2 ranks for three sizes with `perfcast measure`
(median and IQR over the repeats, ranks pinned), and writes the table into each app's
README under "## Measured time on this machine". These are the baselines every
perfcast method is judged against. Run on a quiet machine:

    python3 bench/apps_baseline.py [--repeats 5] [--apps wave3d,cg]

Results also go to bench/results/<date>-apps-baseline/apps_baseline.json.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERFCAST = os.path.join(ROOT, "build", "bin", "perfcast")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import result_paths  # noqa: E402

# Three sizes per app, small to large, each a few tenths of a second or less here.
SIZES = {
    "wave3d": [["--n", "48", "--steps", "20"], ["--n", "96", "--steps", "20"], ["--n", "160", "--steps", "20"]],
    "cg": [["--n", "24"], ["--n", "40"], ["--n", "64"]],
    "mg": [["--n", "32", "--cycles", "4"], ["--n", "64", "--cycles", "4"], ["--n", "128", "--cycles", "4"]],
    "nbody": [["--bodies", "500", "--steps", "10"], ["--bodies", "1000", "--steps", "10"],
              ["--bodies", "2000", "--steps", "10"]],
    "bfs": [["--scale", "10"], ["--scale", "12"], ["--scale", "14"]],
    "lu": [["--n", "256"], ["--n", "512"], ["--n", "1024"]],
    "fft3d": [["--n", "32"], ["--n", "64"], ["--n", "128"]],
}


def measure(app, ranks, args, repeats):
    cmd = [PERFCAST, "measure", "-n", str(ranks), "--repeats", str(repeats), "--json", "--",
           os.path.join(ROOT, "build", "apps", app)] + args
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"apps_baseline: {' '.join(cmd)} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def fmt_s(x):
    return f"{x * 1e3:.2f} ms" if x < 1 else f"{x:.3f} s"


def table(rows):
    lines = ["| arguments | ranks | app time_s median | IQR | IQR/median | launch wall median | check |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        a = r["app_time_s"]
        label = f"{r['ranks']}" + (" (oversubscribed)" if r["oversubscribed"] else "")
        lines.append(f"| `{' '.join(r['args'])}` | {label} | {fmt_s(a['median'])} | {fmt_s(a['iqr'])} | "
                     f"{100 * a['iqr'] / a['median']:.1f} % | {fmt_s(r['wall_s']['median'])} | "
                     f"{r['app_result'].get('check', '?')} |")
    return "\n".join(lines)


def write_readme(app, rows, repeats, when):
    path = os.path.join(ROOT, "apps", app, "README.md")
    text = open(path).read()
    section = (f"## Measured time on this machine\n\n"
               f"Measured {when} with `python3 bench/apps_baseline.py` (`perfcast measure`: 1 warm-up run, "
               f"median and interquartile range over {repeats} timed runs, ranks pinned to cores; "
               f"`time_s` is the app's own median of its timed iterations, the launch wall time includes MPI "
               f"start-up). Machine: {platform.node()}, {os.cpu_count()} cores (a shared virtual machine: "
               f"read the IQR before trusting a difference).\n\n{table(rows)}\n")
    new, n = re.subn(r"## Measured time on this machine\n.*?(?=\n## |\Z)", section, text, flags=re.S)
    if n == 0:
        new = text.rstrip("\n") + "\n\n" + section
    open(path, "w").write(new)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--apps", default=",".join(SIZES))
    p.add_argument("--no-readme", action="store_true", help="only print and write the JSON")
    o = p.parse_args()
    when = datetime.datetime.utcnow().strftime("%Y-%m-%d")
    results = {}
    for app in o.apps.split(","):
        if not os.path.exists(os.path.join(ROOT, "build", "apps", app)):
            print(f"apps_baseline: skipping {app}: not built", file=sys.stderr)
            continue
        rows = []
        for args in SIZES[app]:
            for ranks in (1, 2):
                print(f"apps_baseline: {app} {' '.join(args)} at {ranks} rank(s)", file=sys.stderr)
                r = measure(app, ranks, args, o.repeats)
                r["args"] = args
                rows.append(r)
        results[app] = rows
        print(f"\n{app}\n{table(rows)}")
        if not o.no_readme:
            write_readme(app, rows, o.repeats, when)
    out_dir = result_paths.new_run_dir("apps-baseline")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "apps_baseline.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
