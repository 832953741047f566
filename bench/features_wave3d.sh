#!/bin/sh
# The learned models' data path on wave3d (docs/learn.md, "Recording features"):
# builds wave3d plain, with every feature probe, and with only the probes the
# importance filter keeps; sweeps 200 random points (ranks, grid, steps) into a
# record file; `perfcast learn compare` on it; then the probes' overhead on the
# step loop, the three builds alternated, median and quartiles.
# Usage: bench/features_wave3d.sh BUILD_DIR OUT_DIR  (about 20 minutes on 2 cores)
set -eu
build=$(readlink -f "$1"); out=$2; mkdir -p "$out"; cd "$out"
src=$(dirname "$(readlink -f "$0")")/../apps/wave3d/wave3d.c
mpirun="mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1"

OMPI_CC=clang-19 mpicc.openmpi -O2 -g "$src" -o wave3d_plain -lm
"$build/bin/perfcast-mpicc" -O2 "$src" -o wave3d_feat -lm
"$build/bin/perfcast" sweep --dataset wave3d.jsonl --param np=1,2,3,4 --param n=16:80:8 --param steps=5:40:5 \
  --samples 200 --timeout 60 -- $mpirun -n {np} ./wave3d_feat --n {n} --steps {steps} --repeats 1
"$build/bin/perfcast" learn compare wave3d.jsonl --train-fractions 0.1,0.2,0.4,0.8 | tee compare.txt
"$build/bin/perfcast" learn wave3d.jsonl -o model.json --importance-filter 0.95 --folds 0
PERFCAST_FEATURES_KEEP=$PWD/model.json "$build/bin/perfcast-mpicc" -O2 "$src" -o wave3d_filt -lm

: > overhead.txt
for i in 1 2 3 4 5 6 7 8 9; do
  for b in plain feat filt; do
    PERFCAST_FEATURES_DATASET=$PWD/overhead.jsonl $mpirun -x PERFCAST_FEATURES_DATASET -n 2 ./wave3d_$b \
      --n 96 --steps 20 --repeats 3 | grep '^{' |
      python3 -c "import json,sys; print('$b', json.load(sys.stdin)['time_s'])" >> overhead.txt
  done
done
python3 - overhead.txt <<'PY'
import statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    b, t = line.split(); d.setdefault(b, []).append(float(t))
for b, v in d.items():
    q = st.quantiles(v, n=4)
    print(f"{b}: median {st.median(v):.4f} s, quartiles {q[0]:.4f}..{q[2]:.4f}, n={len(v)}")
for b in ("feat", "filt"):
    print(f"{b}/plain: {st.median(d[b]) / st.median(d['plain']):.3f}")
PY
