#!/usr/bin/env bash
# Why a full node runs slower than its cores alone, as the device scripts' EXTRA_CMD after a
# quiet-node lease (bench/quiet_node_lease.sh): (1) which cores share execution units
# (bench/host_probes/core_pairs.c: a core's divide and multiply-add throughput while another named
# core runs the same; built here, carried as .device/core_pairs); (2) nbody, mg and wave3d with
# the same rank count placed on different cores (consecutive, even, the upper half, all but
# core 0); (3) nbody's rank share alone and as copies (bench/node_sharing.py --only nbody).
#
#   CAL_MODE=skip MACHINE_FILE=.device/lease.toml CASES=none EXTRA_CMD='bash bench/quiet_node_diag.sh' bash .device/run.sh
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
BUILD=${BUILD:-build}
DEST=${CASE_DIR:-${OUT:-/tmp/quiet-node-diag}}
mkdir -p "$DEST"
PAIRS=.device/core_pairs
t0=$(date +%s)
echo "diag: $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
at_once() { # OP SECONDS CORE...: the op on each core at once; prints core:ns_per_op
  local op=$1 s=$2; shift 2
  local pids=() c
  for c in "$@"; do taskset -c "$c" "$PAIRS" "$op" "$s" > "$DEST/pair_$c.out" & pids+=($!); done
  wait "${pids[@]}"
  for c in "$@"; do printf ' %s:%s' "$c" "$(sed 's/.*ns_per_op":\([0-9.e+-]*\).*/\1/' "$DEST/pair_$c.out")"; done
  echo
}
for op in divide fma; do
  for set in "0" "0 1" "0 2" "0 8" "0 15" "1 2" "2 3" "0 1 2 3 4 5 6 7" "0 2 4 6 8 10 12 14" "$(seq -s ' ' 0 15)"; do
    echo "pairs $op [$set]:$(at_once "$op" 0.4 $set)"
  done
done
echo "diag: pairs done at $(( $(date +%s) - t0 )) s"
place() { # NAME CPUSET N ARGS...: 3 launches, the app's time_s of each
  local name=$1 cpus=$2 n=$3; shift 3
  local ts=() i
  for i in 1 2 3; do
    ts+=("$(timeout 60 mpirun.openmpi --allow-run-as-root -n "$n" --cpu-set "$cpus" --bind-to core "$@" 2>>"$DEST/place.err" \
      | grep '^{' | tail -1 | sed 's/.*"time_s":\([0-9.e+-]*\).*/\1/')")
  done
  echo "place $name n=$n cpus=$cpus: ${ts[*]}"
}
EVEN=0,2,4,6,8,10,12,14
for app in "nbody --bodies 2000 --steps 20 --repeats 1 --seed 12345" "nbody --bodies 1000 --steps 20 --repeats 1 --seed 12345" \
           "mg --n 128 --cycles 6 --repeats 1" "wave3d --n 144 --steps 40 --repeats 1"; do
  set -- $app
  bin=$BUILD/apps/$1; shift
  name="${app%% --repeats*}"
  place "$name" 0-15 16 "$bin" "$@"
  place "$name" 0-7 8 "$bin" "$@"
  place "$name" $EVEN 8 "$bin" "$@"
  place "$name" 8-15 8 "$bin" "$@"
  place "$name" 0-3 4 "$bin" "$@"
  place "$name" 0,4,8,12 4 "$bin" "$@"
  [ "$1" = --bodies ] && place "$name" 1-15 15 "$bin" "$@" && place "$name" 0-14 15 "$bin" "$@"
done
echo "diag: placements done at $(( $(date +%s) - t0 )) s"
python3 bench/node_sharing.py --build "$BUILD" --out "$DEST/node_sharing_nbody.json" --only nbody --budget-s 40
echo "diag: done in $(( $(date +%s) - t0 )) s"
