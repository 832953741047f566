"""Where bench results live: one folder per run (or per series of runs made on one day),
bench/results/YYYY-MM-DD-<what>/, indexed by bench/results/README.md.

Scripts write a new run into new_run_dir(<what>) by default (the UTC date it ran), so a
re-run never overwrites a recorded one; the inputs they read by default (machine files)
are the current runs named below, so a move of those folders changes one line here.
"""
import datetime
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")

# The machine file of the wave3d skeleton runs (perfcast calibrate --quick on the Zen 3 host):
# the default machine of mca_accuracy.py and cg_kernels.py, and the one wave3d_skeleton.py keeps.
WAVE3D_SKELETON_DIR = os.path.join(RESULTS, "2026-11-24-wave3d-skeleton")
WAVE3D_MACHINE = os.path.join(WAVE3D_SKELETON_DIR, "wave3d_machine.toml")


def new_run_dir(what):
    """bench/results/<today, UTC>-<what> (absolute); not created here."""
    return os.path.join(RESULTS, f"{datetime.datetime.utcnow():%Y-%m-%d}-{what}")


def relative(path):
    """`path` relative to the repository root, as defaults and reports show it."""
    return os.path.relpath(path, ROOT)
