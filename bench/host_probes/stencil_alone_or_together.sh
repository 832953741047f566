#!/bin/sh
# Run: sh bench/host_probes/stencil_alone_or_together.sh [BUILD=build] [ROUNDS=16]   (issue 5, stop 20)
# wave3d's 2-rank local domain (4 x 8 x 8, 2000 steps, 15 repeats) as one process on core 0 alone, on
# core 1 alone, then on both cores at once; per process the median of its repeats' compute time (the
# app's calc_s). Stop 20 on the Zen 3 VM: each was ~1.15 ms or ~2.1 ms (a slow state of the core);
# slow in 17 of 32 lone runs and 25 of 32 together, and every "together" round had a slow core.
BUILD=${1:-build}
ROUNDS=${2:-16}
one() {
  taskset -c "$1" "$BUILD/apps/wave3d" --nx 4 --ny 8 --nz 8 --steps 2000 --repeats 15 | tail -1 |
    python3 -c "import json,sys; c=sorted(json.load(sys.stdin)['calcs_s']); print('%.2f ms' % (c[len(c)//2]*1e3), end=' ')"
}
i=0
while [ "$i" -lt "$ROUNDS" ]; do
  printf 'alone0 '; one 0; printf ' alone1 '; one 1; printf ' together '; one 0 & one 1; wait; echo
  i=$((i + 1))
done
