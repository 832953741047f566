#!/usr/bin/env bash
# The corpus apps' timed parts priced again on each lease's machine file, with the probe's
# record of each rank's values, against what the two leases measured: the earlier folder's
# script, writing here. WORK holds each app's `corpus.py check APP --work WORK/APP --target
# ../2026-11-28-xeon16-corpus-time/lease1/device.toml` folder.
#
#   WORK=/tmp/corpus BUILD=build bash bench/results/2026-11-28-per-rank-values/predict.sh
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT="$HERE" exec bash "$HERE/../2026-11-28-xeon16-corpus-time/predict.sh"
