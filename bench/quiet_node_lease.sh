#!/usr/bin/env bash
# One lease of the quiet node, as the device scripts' EXTRA_CMD (../shared/device/README.md):
# after run.sh's full calibrate, (1) bench/quiet_node.sh (every validation case predicted on the
# calibrated file without a run of the app, then measured), (2) bench/node_sharing.py (one rank's
# block of the 16-rank cases, alone and as 16 copies at once: the node's sharing without
# communication), (3) a drift check: calibrate --quick and wave3d 144^3's 1-rank run again.
#
#   CASES=none DEADLINE_S=400 EXTRA_CMD='bash bench/quiet_node_lease.sh' bash .device/run.sh
#
# Settings: QN_BUDGET_S (quiet_node.sh's measurements, default 170), SHARING_BUDGET_S (50); node_sharing.json comes back in results.tar.gz.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
: "${MACHINE:?no \$MACHINE: run.sh sets it to the calibrated machine file}"
BUILD=${BUILD:-build}
DEST=${CASE_DIR:-${OUT:-/tmp/quiet-node}}
mkdir -p "$DEST"
t0=$(date +%s)
echo "lease: $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
QN_BUDGET_S=${QN_BUDGET_S:-170} bash bench/quiet_node.sh
echo "lease: quiet node done at $(( $(date +%s) - t0 )) s"
python3 bench/node_sharing.py --build "$BUILD" --out "$DEST/node_sharing.json" \
  --budget-s "${SHARING_BUDGET_S:-50}"
echo "lease: sharing done at $(( $(date +%s) - t0 )) s"
timeout 60 perfcast calibrate --quick -o "$DEST/device_end.toml" >"$DEST/calibrate_end.log" 2>&1 \
  && echo "lease: quick calibrate at the end: $DEST/device_end.toml" \
  || echo "lease: quick calibrate at the end failed: $(tail -2 "$DEST/calibrate_end.log")"
perfcast measure --json -q -n 1 -r 3 -w 1 -- "$BUILD/apps/wave3d" --n 144 --steps 40 --repeats 1 \
  >"$DEST/wave3d_end.json" 2>&1 && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('lease: wave3d 144 1 rank at the end:', j['app_time_s']['median'], 's')" "$DEST/wave3d_end.json"
echo "lease: done in $(( $(date +%s) - t0 )) s"
