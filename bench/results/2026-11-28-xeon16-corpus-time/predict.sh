#!/usr/bin/env bash
# The corpus apps' timed parts priced on each lease's own machine file, beside what was
# measured there (corpus/README.md, "Time on a target"). WORK holds each app's
# `corpus.py check APP --work WORK/APP --target lease1/device.toml` folder (models for the
# lease's CPU, probed at 1 and 2 ranks); --probe probes 4 to 16 ranks there (oversubscribed).
#
#   WORK=/tmp/corpus BUILD=build bash bench/results/2026-11-28-xeon16-corpus-time/predict.sh
#
# OUT (default: this folder) is where lease1/ and lease2/predicted.md and .json go.
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$HERE}
: "${WORK:?set WORK to the folder holding each app check work folder}"
APPS="hpcg pennant cloverleaf minimd snap amg"
mkdir -p "$OUT/lease1" "$OUT/lease2"
python3 "$ROOT/corpus/timing.py" predict $APPS --work-root "$WORK" --build "${BUILD:-$ROOT/build}" --probe \
  --machine "$HERE/lease1/device.toml" --measured "$HERE/lease1/corpus" \
  --out "$OUT/lease1/predicted.json" > "$OUT/lease1/predicted.md"
python3 "$ROOT/corpus/timing.py" predict $APPS --work-root "$WORK" --build "${BUILD:-$ROOT/build}" --probe \
  --machine "$HERE/lease2/device.toml" --measured "$HERE/lease2/corpus-pass1" "$HERE/lease2/corpus-pass2" \
  --out "$OUT/lease2/predicted.json" > "$OUT/lease2/predicted.md"
