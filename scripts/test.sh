#!/usr/bin/env bash
# Builds tessel and runs the test suite (GPU tests skip themselves without a GPU). The sweeps
# (label `sweep`: suites named *Sweep, which compile or check every example, packed width or
# candidate of a space) run with --sweeps.
set -euo pipefail
sweeps=no
for argument in "$@"; do
  case "$argument" in
    --sweeps) sweeps=yes ;;
    *) echo "usage: scripts/test.sh [--sweeps]" >&2; exit 2 ;;
  esac
done
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ninja -C "$tessel_build"
cd "$tessel_build"
if [ "$sweeps" = yes ]; then
  ctest --output-on-failure -j"$(nproc)"
else
  ctest --output-on-failure -j"$(nproc)" --label-exclude sweep
fi
