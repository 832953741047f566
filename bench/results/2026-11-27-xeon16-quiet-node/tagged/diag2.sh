#!/usr/bin/env bash
# State-tagged runs: each app run with the core clock measured just before and just after on
# the cores it uses (a dependent add chain, 30 ms: the fastest 1 ms chunk and the window's mean,
# GHz; the median over the cores for 16), so each run can be priced in the state it saw.
set -u
B=$(cd "${BUILD:-build}" && pwd); D=${CASE_DIR:-/tmp/diag2}/diag2; mkdir -p "$D"; cd "$D" || exit 1
NC=$(nproc); CLK=$B/corpus/probe/clockchain
echo "diag2: $(date -u +%FT%TZ) nproc $NC THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)"
clk() {  # CORES (space separated): the chain on each at once; prints "best mean" medians
  local c; for c in $1; do (taskset -c "$c" "$CLK" 30 > "clk_$c.txt") & done; wait
  cat clk_*.txt | python3 -c "import sys,statistics as s
v=[l.split() for l in sys.stdin if l.strip()]
print('%.2f/%.2f' % (s.median(float(a) for a,b in v), s.median(float(b) for a,b in v)))"; rm -f clk_*.txt
}
ts() { python3 -c "import json,sys
for l in sys.stdin:
    l=l.strip()
    if l.startswith('{') and 'time_s' in l: print(json.loads(l)['time_s'])"; }
tagged() {  # RANKS LABEL app args...: clock, run, clock
  local n=$1 label=$2; shift 2
  local cores; if [ "$n" = 1 ]; then cores=1; else cores=$(seq -s' ' 0 $((n - 1))); fi
  local a; a=$(clk "$cores")
  local t; if [ "$n" = 1 ]; then
    t=$(mpirun.openmpi --allow-run-as-root -n 1 --cpu-set 1 --bind-to core "$@" 2>/dev/null | ts)
  else
    t=$(mpirun.openmpi --allow-run-as-root -n "$n" --bind-to core --map-by core "$@" 2>/dev/null | ts)
  fi
  echo "TAG $label np$n clock_before $a time_s ${t:-FAILED} clock_after $(clk "$cores")"
}
echo "diag2: each core's clock alone, then all at once"
for c in $(seq 0 $((NC - 1))); do echo "CLOCK core $c alone $(clk $c)"; done
echo "CLOCK all $NC at once $(clk "$(seq -s' ' 0 $((NC - 1)))")"
A=$B/apps
for round in 1 2 3; do
  for n in 1 $NC; do
    tagged $n "wave3d n=96" $A/wave3d --n 96 --steps 40 --repeats 1
    tagged $n "wave3d n=144" $A/wave3d --n 144 --steps 40 --repeats 1
    tagged $n "cg n=40" $A/cg --n 40 --iters 50 --repeats 1 --dot ordered
    tagged $n "cg n=56" $A/cg --n 56 --iters 50 --repeats 1 --dot ordered
    tagged $n "mg n=64" $A/mg --n 64 --cycles 6 --repeats 1
    tagged $n "mg n=128" $A/mg --n 128 --cycles 6 --repeats 1
    tagged $n "nbody bodies=1000" $A/nbody --bodies 1000 --steps 20 --repeats 1 --seed 12345
    tagged $n "nbody bodies=2000" $A/nbody --bodies 2000 --steps 20 --repeats 1 --seed 12345
  done
done
echo "diag2: size sweep on core 1, tagged"
for ns in "16 8000" "32 1000" "48 300" "64 120" "96 40" "128 16" "144 12" "192 6"; do
  set -- $ns; tagged 1 "wave3d n=$1 steps=$2" $A/wave3d --n $1 --steps $2 --repeats 1
done
for ni in "16 2000" "24 800" "32 400" "40 200" "48 100" "56 50" "72 25" "96 12"; do
  set -- $ni; tagged 1 "cg n=$1 iters=$2" $A/cg --n $1 --iters $2 --repeats 1 --dot ordered
done
echo "diag2: done $(date -u +%FT%TZ)"
