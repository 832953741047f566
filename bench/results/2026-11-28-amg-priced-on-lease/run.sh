#!/bin/bash
# AMG's PCG solve priced on the quiet node's calibrated file (the 2026-11-27 lease's
# device.toml), from models analysed and probed on this 2-core VM (oversubscribed beyond 2 ranks:
# the probe gives counts, not times). WORK is a `corpus.py check amg` work directory (its analysis
# build's bitcode, its probes build, its predict-N.log with the recipe's bindings); PERFCAST the
# binary. Writes predict-NP.json (the run as probed) and predict0-NP.json (the PCG loop at 0
# trips) beside itself; summary.py reads them.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/c42/amg}
PERFCAST=${PERFCAST:-build/bin/perfcast}
MACHINE=$HERE/../2026-11-27-xeon16-quiet-node/device.toml
SCRATCH=${SCRATCH:-/tmp/amg-priced}
mkdir -p "$SCRATCH"
(cd "$WORK/analysis" && "$PERFCAST" analyze -o "$SCRATCH/amg_xeon.json" --ir . --mcpu emeraldrapids)
for spec in "1:1 1 1" "2:2 1 1" "4:2 2 1" "8:2 2 2" "16:4 2 2"; do
  np=${spec%%:*}; grid=${spec#*:}
  "$PERFCAST" probe "$SCRATCH/amg_xeon.json" -o "$SCRATCH/amg_$np.json" -- mpirun.openmpi --allow-run-as-root \
    --oversubscribe -np "$np" "$WORK/probes/test/amg" -problem 1 -n 10 10 10 -P $grid
  # The recipe's bindings, as corpus.py passed them at 1 and at 2 ranks.
  params=$(head -1 "$WORK/predict-$([ "$np" = 1 ] && echo 1 || echo 2).log" | grep -o -- '--param [^ ]*' | tr '\n' ' ')
  # The timed part as the difference of two whole-run predictions: predict's own
  # --baseline-param refuses it (an Allgatherv's bytes a call differ between the two).
  "$PERFCAST" predict "$SCRATCH/amg_$np.json" --machine "$MACHINE" --np "$np" $params --json > "$HERE/predict-$np.json"
  "$PERFCAST" predict "$SCRATCH/amg_$np.json" --machine "$MACHINE" --np "$np" $params \
    --param hypre_PCGSolve.loop1.trips=0 --json > "$HERE/predict0-$np.json"
done
