#!/usr/bin/env bash
# The corpus apps' timed parts priced again on each lease's machine file, with the probe's
# record of each rank's values (corpus/README.md, "Time on a target"), against what the two
# leases measured (../2026-11-28-xeon16-corpus-time/). WORK holds each app's
# `corpus.py check APP --work WORK/APP --target ../2026-11-28-xeon16-corpus-time/lease1/device.toml`
# folder; --probe probes 4 to 16 ranks there (oversubscribed) where the check did not.
#
#   WORK=/tmp/corpus BUILD=build bash bench/results/2026-11-28-per-rank-values/predict.sh
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
LEASES="$HERE/../2026-11-28-xeon16-corpus-time"
: "${WORK:?set WORK to the folder holding each app check work folder}"
APPS="hpcg pennant cloverleaf minimd snap amg"
python3 "$ROOT/corpus/timing.py" predict $APPS --work-root "$WORK" --build "${BUILD:-$ROOT/build}" --probe \
  --machine "$LEASES/lease1/device.toml" --measured "$LEASES/lease1/corpus" \
  --out "$HERE/lease1/predicted.json" > "$HERE/lease1/predicted.md"
python3 "$ROOT/corpus/timing.py" predict $APPS --work-root "$WORK" --build "${BUILD:-$ROOT/build}" --probe \
  --machine "$LEASES/lease2/device.toml" --measured "$LEASES/lease2/corpus-pass1" "$LEASES/lease2/corpus-pass2" \
  --out "$HERE/lease2/predicted.json" > "$HERE/lease2/predicted.md"
