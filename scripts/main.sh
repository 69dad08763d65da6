#!/usr/bin/env bash
# The main job: builds tessel and runs the flagship kernel (the pipelined, swizzled tensor-core
# matmul, step 5 of the Ampere ladder) on the GPU when there is one, else on the CPU simulator,
# checking it against a host reference.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ninja -C "$tessel_build" tessel_cli
"$tessel_build/tessel" doctor
"$tessel_build/tessel" run ampere_v5_swizzled 300 264 200 --verbose
