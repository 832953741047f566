#!/bin/sh
# The learned models' data path on one app of apps/ (docs/learn.md, "Recording
# features"): the app built plain, with every feature probe and with only the
# probes a learned model keeps; `perfcast sweep` over random points of its
# grid (ranks 1..4, sizes spanning about 10x in run time) for SECONDS, the load
# average sampled every 10 s beside it; `perfcast learn compare` without
# filters, with the input filter before the degree-3 expansion, and with the
# time filter too; the model of the time and importance filters; then the probes'
# overhead: the three builds alternated RUNS times at one mid-size point on 2
# ranks (the app's own time_s, its timed iterations), and the record bytes per
# run with every probe and with the kept ones.
# Usage: bench/features_apps.sh APP BUILD_DIR OUT_DIR [SECONDS [RUNS]]
#   APP: wave3d, nbody, mg or cg. SECONDS (480) bounds the sweep; the points not
#   reached are left out (the sweep draws them in random order). RUNS: 7.
#   SECONDS 0 skips the builds and the sweep (a second call on the same OUT_DIR
#   then learns and measures); RUNS 0 stops after the sweep.
set -eu
app=$1; build=$(readlink -f "$2"); out=$3; seconds=${4:-480}; runs=${5:-7}
src=$(readlink -f "$(dirname "$0")/../apps/$app/$app.c")
mkdir -p "$out"; cd "$out"
mpirun="mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1"
perfcast=$build/bin/perfcast

# Grid per app (the sweep's parameters and command words), the overhead point,
# and the feature Extra-P's fit takes as its size parameter: one whose value
# equals the size option in every run of a sweep (fields set inside an option
# parser's loop keep their default, see docs/learn.md; naming it spares
# Extra-P a search over every feature, minutes with hundreds).
case $app in
  wave3d)
    params="--param np=1,2,3,4 --param n=16:80:4 --param steps=5:40:5"
    words="--n {n} --steps {steps} --repeats 1"
    point="--n 96 --steps 20 --repeats 3"
    size=wave3d_options.h:18:wave3d_options.nx ;;
  nbody)  # --force is the algorithm choice: direct O(N^2/P) or Barnes-Hut
    params="--param np=1,2,3,4 --param bodies=200:1600:100 --param steps=4:20:4 --param force=direct,bh"
    words="--bodies {bodies} --steps {steps} --force {force}"
    point="--bodies 1500 --steps 10 --repeats 3"
    size=nbody.c:333:World.n ;;
  mg)  # --smoother is the algorithm choice: weighted Jacobi or red-black Gauss-Seidel
    params="--param np=1,2,3,4 --param n=16,32,64,128 --param cycles=1:8:1 --param smoother=jacobi,rbgs"
    words="--n {n} --cycles {cycles} --smoother {smoother} --repeats 1"
    point="--n 64 --cycles 8 --repeats 3"
    size=mg_options.h:61:t ;;  # t = P->n, the init of the loop counting levels
  cg)
    params="--param np=1,2,3,4 --param n=16:64:4 --param iters=10:100:10 --param precond=none,jacobi"
    words="--n {n} --iters {iters} --precond {precond} --repeats 1"
    point="--n 48 --iters 100 --repeats 3"
    size= ;;  # not run yet: Extra-P searches every feature until one is named here
  *) echo "features_apps.sh: no grid for app '$app' (wave3d, nbody, mg, cg)" >&2; exit 2 ;;
esac

if [ "$seconds" -gt 0 ]; then
OMPI_CC=clang-19 mpicc.openmpi -O2 -g "$src" -o "${app}_plain" -lm
"$build/bin/perfcast-mpicc" -O2 "$src" -o "${app}_feat" -lm

# The grid's size, so --samples draws every point in random order until the deadline.
points=$("$perfcast" sweep --dry-run --dataset "$app.jsonl" $params -- $mpirun -n {np} "./${app}_feat" $words | grep -c "$app" || true)
(while :; do echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 10; done) > load.txt &
sampler=$!
start=$(date +%s)
timeout -s INT "$seconds" "$perfcast" sweep --dataset "$app.jsonl" $params --samples "$points" --timeout 60 \
  -- $mpirun -n {np} "./${app}_feat" $words > sweep.txt 2>&1 || true
kill "$sampler"
echo "sweep: $(grep -c '^{' "$app.jsonl") runs recorded of $points points in $(( $(date +%s) - start )) s" | tee summary.txt
fi
[ "$runs" -gt 0 ] || exit 0

# A comparison already written is kept (delete it to redo it).
[ -s compare.txt ] || "$perfcast" learn compare "$app.jsonl" --train-fractions 0.1,0.2,0.4,0.8 ${size:+--size-feature "$size"} > compare.txt 2>&1 || true
[ -s compare_filtered.txt ] || "$perfcast" learn compare "$app.jsonl" --train-fractions 0.1,0.2,0.4,0.8 \
  ${size:+--size-feature "$size"} --input-filter "${INPUT_FILTER:-0.95}" > compare_filtered.txt 2>&1 || true
# With the time filter: features known by 10 % of the run. It also drops what
# the program measures of itself (its own timers, its median time: values
# assigned late), which otherwise predict the time from the time.
[ -s compare_time_filtered.txt ] || "$perfcast" learn compare "$app.jsonl" --train-fractions 0.1,0.2,0.4,0.8 \
  ${size:+--size-feature "$size"} --time-filter 0.1 --input-filter "${INPUT_FILTER:-0.95}" > compare_time_filtered.txt 2>&1 || true
"$perfcast" learn "$app.jsonl" -o model.json --time-filter 0.1 --importance-filter 0.95 --folds 0 > model.txt
"$perfcast" learn show model.json | sed -n '/^kept/,$p' >> model.txt
PERFCAST_FEATURES_KEEP=$PWD/model.json "$build/bin/perfcast-mpicc" -O2 "$src" -o "${app}_filt" -lm

: > overhead.txt
i=0
while [ $i -lt "$runs" ]; do
  for b in plain feat filt; do
    PERFCAST_FEATURES_DATASET=$PWD/overhead_$b.jsonl $mpirun -x PERFCAST_FEATURES_DATASET -n 2 "./${app}_$b" $point |
      tail -n 1 | python3 -c "import json,sys; print('$b', json.load(sys.stdin)['time_s'])" >> overhead.txt
  done
  i=$((i + 1))
done
python3 - overhead.txt "$app.jsonl" overhead_filt.jsonl <<'PY' | tee -a summary.txt
import json, statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    b, t = line.split(); d.setdefault(b, []).append(float(t))
for b, v in d.items():
    q = st.quantiles(v, n=4)
    print(f"{b}: median {st.median(v)*1e3:.2f} ms, quartiles {q[0]*1e3:.2f}..{q[2]*1e3:.2f}, "
          f"min..max {min(v)*1e3:.2f}..{max(v)*1e3:.2f}, n={len(v)}")
for b in ("feat", "filt"):
    print(f"{b}/plain: {st.median(d[b]) / st.median(d['plain']):.3f}")
for name, path in (("all probes", sys.argv[2]), ("kept probes", sys.argv[3])):
    lines = [l for l in open(path) if l.startswith("{")]
    feats = [len(json.loads(l)["record"]["features"]) for l in lines]
    print(f"record, {name}: {sum(map(len, lines)) / len(lines):.0f} bytes per run, "
          f"{st.median(feats):.0f} features")
times = [json.loads(l)["record"]["time_s"] for l in open(sys.argv[2]) if l.startswith("{")]
print(f"sweep run times (MPI_Init..MPI_Finalize): min {min(times)*1e3:.1f} ms, "
      f"median {st.median(times)*1e3:.1f} ms, max {max(times)*1e3:.1f} ms")
PY
