#!/usr/bin/env bash
# The main job: builds tessel and runs the flagship kernel, checked against a host reference:
# step 5 of the Hopper ladder (persistent, warp-specialized TMA + wgmma matmul) on a Hopper GPU,
# step 5 of the Ampere ladder on another GPU, and the seeds' flagship, the warp-specialized
# Blackwell V4 (tcgen05 and tensor memory), on the CPU simulator when there is no GPU.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ninja -C "$tessel_build" tessel_cli
"$tessel_build/tessel" doctor
compute_capability="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 || true)"
case "$compute_capability" in
  9.0) "$tessel_build/tessel" run hopper_v5 2048 2304 1024 --device gpu --verbose ;;
  "") "$tessel_build/tessel" run blackwell_v4 256 256 512 --device sim --verbose ;;
  *) "$tessel_build/tessel" run ampere_v5_swizzled 2048 2304 1024 --device gpu --verbose ;;
esac
