#!/usr/bin/env python3
"""Property and fuzz harness: generates inputs (event streams, machine files, program
models; valid and broken), runs the real perfcast binary on each and checks what must
hold whatever the input. One property per run; a fixed seed makes every run generate
the same inputs, so a failure printed here is reproduced by running the same command.

  property.py --perfcast build/bin/perfcast --source-dir . --property events_valid --seed 1 --cases 100
"""
import argparse
import os
import random
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import events_props  # noqa: E402
import extremes_props  # noqa: E402
import machine_props  # noqa: E402
import model_props  # noqa: E402
import roundtrip_props  # noqa: E402
from harness import Harness  # noqa: E402

PROPERTIES = {
    "events_valid": events_props.prop_events_valid,
    "events_invalid": events_props.prop_events_invalid,
    "events_fuzz": events_props.prop_events_fuzz,
    "machines_valid": machine_props.prop_machines_valid,
    "machines_invalid": machine_props.prop_machines_invalid,
    "machines_fuzz": machine_props.prop_machines_fuzz,
    "models_valid": model_props.prop_models_valid,
    "models_invalid": model_props.prop_models_invalid,
    "models_invalid_strict": model_props.prop_models_invalid_strict,
    "peak": model_props.prop_peak,
    "peak_oversubscribed": model_props.prop_peak_oversubscribed,
    "roundtrip": roundtrip_props.prop_roundtrip,
    "extremes": extremes_props.prop_extremes,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfcast", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work-dir", help="where the inputs are written (default: a folder in /tmp)")
    ap.add_argument("--property", required=True, choices=sorted(PROPERTIES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--only-case", type=int, help="run this case alone (its input is the same)")
    a = ap.parse_args()

    perfcast = os.path.abspath(a.perfcast)
    work = a.work_dir or os.path.join("/tmp", f"perfcast-property-{a.property}-{os.getpid()}")
    h = Harness(perfcast, os.path.abspath(a.source_dir), work, a.property)
    prop = PROPERTIES[a.property]
    start = time.monotonic()
    for case in range(a.cases):
        # Each case its own generator, seeded by (seed, case): --only-case reproduces
        # one input without generating the ones before it.
        rng = random.Random(a.seed * 1000003 + case)
        if a.only_case is not None and case != a.only_case:
            continue
        h.begin_case(case)
        try:
            prop(h, case, rng)
        except Exception as e:  # a JSON of an unexpected shape: a failure with its input
            h.check(False, f"the harness could not read perfcast's answer: {type(e).__name__}: {e}")
    print(h.summary() + f" ({time.monotonic() - start:.1f} s; seed {a.seed}; inputs kept in {work})"
          if h.failures else h.summary() + f" ({time.monotonic() - start:.1f} s; seed {a.seed})")
    if h.failures:
        print(f"rerun one case: {sys.argv[0]} --perfcast {perfcast} --source-dir {a.source_dir} "
              f"--property {a.property} --seed {a.seed} --cases {a.cases} --only-case N")
    elif not a.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
