#!/usr/bin/env bash
# CloverLeaf's own per-kernel profile (profiler_on) at 256^2 x 10 steps on 1 rank, 6 launches,
# as the device scripts' EXTRA_CMD (CAL_MODE=skip): the measured time of each kernel group, to
# compare with the in-core cycles LLVM's scheduling models give its advection loops.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BUILD:-build}
DEST=${CASE_DIR:-/tmp/clover-profile}
BIN=$(cd "$BUILD" && pwd)/corpus-time/cloverleaf/bin/clover_leaf
mkdir -p "$DEST" && cd "$(mktemp -d)" && cp "$HERE/clover.in" .
for i in 1 2 3 4 5 6; do
  mpirun.openmpi --allow-run-as-root -n 1 --bind-to core --map-by core "$BIN" > "stdout$i.txt" 2>&1
  cp clover.out "$DEST/clover$i.out"
  grep -E "Wall clock|Advection|Timestep|PdV|Viscosity|Ideal Gas|Acceleration|Total" clover.out | tail -12
done
