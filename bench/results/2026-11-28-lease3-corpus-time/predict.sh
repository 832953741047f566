#!/usr/bin/env bash
# The corpus apps' timed parts priced on this lease's machine file, beside what the lease
# measured (three passes, pooled). WORK holds each app's `corpus.py check APP --work WORK/APP
# --target ../2026-11-28-xeon16-corpus-time/lease1/device.toml` folder (models for the
# lease's CPU, probed at the check's rank counts); --probe probes the others here
# (oversubscribed: the probe counts, it does not time).
#
#   WORK=/tmp/corpus BUILD=build bash bench/results/2026-11-28-lease3-corpus-time/predict.sh
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
: "${WORK:?set WORK to the folder holding each app check work folder}"
python3 "$ROOT/corpus/timing.py" predict hpcg pennant cloverleaf minimd snap amg --work-root "$WORK" \
  --build "${BUILD:-$ROOT/build}" --probe --machine "$HERE/lease3/device.toml" \
  --measured "$HERE/lease3/corpus-pass1" "$HERE/lease3/corpus-pass2" "$HERE/lease3/corpus-pass3" \
  --out "$HERE/lease3/predicted.json" > "$HERE/lease3/predicted.md"
