#!/usr/bin/env bash
# Builds tessel and runs the whole test suite (GPU tests skip themselves without a GPU).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ninja -C "$tessel_build"
cd "$tessel_build"
ctest --output-on-failure -j"$(nproc)"
