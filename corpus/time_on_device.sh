#!/usr/bin/env bash
# The corpus apps timed on a lent machine, as the device scripts' EXTRA_CMD
# (../shared/device/README.md): every staged case (corpus/timing.py stage), PASSES times over.
# Here, before the call:
#
#   python3 corpus/timing.py stage hpcg pennant cloverleaf minimd snap amg --work-root W --to build/corpus-time
#   bash ../shared/device/make_bundle.sh --add build/corpus-time
#   run(command="CASES=none EXTRA_CMD='bash corpus/time_on_device.sh' bash .device/run.sh", carry=[".device"])
#
# What it measured comes back in results.tar.gz (extra/corpus-passN/) with device.toml;
# `timing.py predict --measured` reads those folders.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
BUILD=${BUILD:-build}
DEST=${CASE_DIR:-${OUT:-/tmp/corpus-time}}
mkdir -p "$DEST"
t0=$(date +%s)
sleep "${SETTLE_S:-10}"  # calibrate's all-core runs end just before: let the node settle
echo "corpus time: $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
# The whole list PASSES times over (default 2): a machine's state can drift within minutes,
# and the passes' spread says by how much; `timing.py predict --measured` pools them.
for pass in $(seq 1 "${PASSES:-2}"); do
  python3 corpus/timing.py measure "$BUILD/corpus-time/cases.json" --out "$DEST/corpus-pass$pass" \
    --repeats "${REPEATS:-5}" --warmup 1 --budget-s "${CORPUS_BUDGET_S:-150}"
  echo "corpus time: pass $pass done at $(( $(date +%s) - t0 )) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
