#!/usr/bin/env bash
# Accuracy on a quiet node, as the device scripts' EXTRA_CMD (../shared/device/README.md): after
# run.sh's calibrate, bench/quiet_node.py predicts and measures the validation apps on the
# calibrated machine file and writes the report. From the project root, in run.sh's environment
# ($BUILD, $MACHINE, $CASE_DIR, $OUT):
#
#   CASES=none EXTRA_CMD='bash bench/quiet_node.sh' bash .device/run.sh
#
# quiet_node.md lands in $OUT (run.sh's eighth file) after every measured case, so a kill keeps
# what was done; quiet_node.json and the log in $CASE_DIR come back in results.tar.gz.
# Settings: QN_MODELS (kept program models, default .device/models: `perfcast validate models
# validate/device.toml --models .device/models --machine LAST_DEVICE.toml` makes them where clang
# runs, priced for the device's CPU), QN_RANKS
# ("1 2": only these), QN_BUDGET_S (no measurement starts later; default 270), QN_REPEATS (3),
# QN_WARMUP (1), QN_CASES (validate/device.toml).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
: "${MACHINE:?no \$MACHINE: run.sh sets it to the calibrated machine file}"
BUILD=${BUILD:-build}
DEST=${CASE_DIR:-${OUT:-/tmp/quiet-node}}
REPORT=${OUT:-$DEST}/quiet_node.md
mkdir -p "$DEST" "$(dirname "$REPORT")"
echo "quiet_node.sh: machine $MACHINE, build $BUILD, models ${QN_MODELS:-.device/models}, report $REPORT"
exec python3 bench/quiet_node.py --build "$BUILD" --machine "$MACHINE" --models "${QN_MODELS:-.device/models}" \
  --cases "${QN_CASES:-validate/device.toml}" --ranks "${QN_RANKS:-${RANKS:-}}" --budget-s "${QN_BUDGET_S:-270}" \
  --repeats "${QN_REPEATS:-3}" --warmup "${QN_WARMUP:-1}" --out "$DEST" --report "$REPORT"
