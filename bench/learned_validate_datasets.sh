#!/bin/sh
# The learned method's dataset for one app of validate/full.toml (docs/validate.md):
# the app built with every feature probe (bin/perfcast-mpicc, the same build the
# learned method makes) and `perfcast sweep` over random points of a small grid
# around the full table's sizes on 1, 2 and 4 ranks, with the table's other
# arguments, for at most SECONDS; the records gzipped as OUT_DIR/APP-validate.jsonl.gz, the
# path apps/APP/validate.toml's [learned] dataset names.
# Usage: bench/learned_validate_datasets.sh APP BUILD_DIR OUT_DIR [SECONDS]
set -eu
app=$1; build=$(readlink -f "$2"); out=$3; seconds=${4:-180}
src=$(readlink -f "$(dirname "$0")/../apps/$app/$app.c")
mkdir -p "$out"; out=$(readlink -f "$out")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
mpirun="mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1"
libs=
case $app in
  wave3d) params="--param n=16:80:8 --param steps=10,20,30"; words="--n {n} --steps {steps} --repeats 1" ;;
  cg)     params="--param n=16:64:8 --param iters=25,50,75"; words="--n {n} --iters {iters} --repeats 1 --dot ordered" ;;
  nbody)  params="--param bodies=256:1280:128 --param steps=5,10,15"
          words="--bodies {bodies} --steps {steps} --repeats 1 --seed 12345" ;;
  mg)     params="--param n=16,32,64 --param cycles=2,4,6"; words="--n {n} --cycles {cycles} --repeats 1" ;;
  bfs)    params="--param scale=10:15:1 --param roots=1,2"; words="--scale {scale} --roots {roots} --repeats 1" ;;
  lu)     params="--param n=128:640:64"; words="--n {n} --nb 32 --repeats 1"; libs=-lblas ;;
  fft3d)  params="--param n=16:64:8"; words="--n {n} --repeats 1"; libs=-lfftw3 ;;
  *) echo "learned_validate_datasets.sh: no grid for app '$app'" >&2; exit 2 ;;
esac
"$build/bin/perfcast-mpicc" -O2 "$src" -o "${app}_feat" -lm $libs
points=$("$build/bin/perfcast" sweep --dry-run --dataset "$app.jsonl" --param np=1,2,4 $params \
  -- $mpirun -n {np} "./${app}_feat" $words | grep -c "${app}_feat" || true)
start=$(date +%s)
timeout -s INT "$seconds" "$build/bin/perfcast" sweep --dataset "$app.jsonl" --param np=1,2,4 $params \
  --samples "$points" --timeout 60 -- $mpirun -n {np} "./${app}_feat" $words > sweep.txt 2>&1 || true
echo "$app: $(grep -c '^{' "$app.jsonl") runs of $points points in $(( $(date +%s) - start )) s," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
gzip -9 -c "$app.jsonl" > "$out/$app-validate.jsonl.gz"
