#!/usr/bin/env bash
# Usage: scripts/check_outputs.sh BASELINE_BUILD_DIR NEW_BUILD_DIR
#
# Runs the four output comparisons between two builds of perfcast, one after
# the other, and prints each one's summary: program models from `analyze`
# (byte for byte), `predict` and `simulate` JSON of wave3d's model on every
# bundled machine (value for value), the report's text and JSON with the
# fields changed on purpose named, and every skeleton simulated live (stdout,
# stderr and exit status). Exit status: the number of comparisons that failed.
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ $# -ne 2 ]]; then
  echo "usage: scripts/check_outputs.sh BASELINE_BUILD_DIR NEW_BUILD_DIR" >&2
  exit 2
fi
old=$1 new=$2
failed=0
run() {
  echo "== $*"
  if "$@" > /tmp/check_outputs.$$.log 2>&1; then
    tail -n 3 /tmp/check_outputs.$$.log
  else
    tail -n 25 /tmp/check_outputs.$$.log
    failed=$((failed + 1))
  fi
}
run scripts/check_analyze_identical.sh "$old/bin/perfcast" "$new/bin/perfcast"
run scripts/check_predict_identical.sh "$old/bin/perfcast" "$new/bin/perfcast"
run scripts/check_report_outputs.sh "$old/bin/perfcast" "$new/bin/perfcast"
run scripts/check_simulate_identical.sh "$old" "$new"
rm -f /tmp/check_outputs.$$.log
echo "$failed of 4 comparisons found differences"
exit "$failed"
