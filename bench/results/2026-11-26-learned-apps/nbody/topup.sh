#!/bin/sh
# np=4 points of the same grids, added to the record files (the first sweeps ran the grid in order and stopped before np=4).
set -u
P=/work/wt/datasets/build/bin/perfcast
M="mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1"
cd /tmp/dsw/nbody && timeout -s INT 180 $P sweep --dataset nbody.jsonl --param np=4 --param bodies=200:1600:100 --param steps=4:20:4 --param force=direct,bh --samples 1000 --timeout 60 -- $M -n {np} ./nbody_feat --bodies {bodies} --steps {steps} --force {force} > topup.txt 2>&1
echo done > /tmp/dsw/topup.done
