#!/usr/bin/env bash
# Rewrites the report layer's golden files (tests/report/golden/) from this
# build's renderings; read `git diff tests/report/golden` before committing:
# it is the change users and scripts will see.
# usage: scripts/update_report_goldens.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target test_report -j2
PERFCAST_UPDATE_GOLDENS=1 "$build/tests/report/test_report" --gtest_filter='ReportGolden.*'
git -C "$root" status --short tests/report/golden
