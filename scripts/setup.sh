#!/usr/bin/env bash
# Installs what building tessel needs and configures the build directory. Sourced by the other
# scripts; safe to run again (it installs only what is missing).
set -euo pipefail

tessel_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tessel_build="${TESSEL_BUILD_DIR:-$tessel_root/build}"

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
[ -e /usr/include/fmt/format.h ] || [ -e /usr/local/include/fmt/format.h ] || missing+=(libfmt-dev)
[ -e /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
[ -e /usr/include/CLI/CLI.hpp ] || missing+=(libcli11-dev)
[ -e /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
# DLPack (tessel/runtime/dlpack.hpp) where the distribution packages it; its tests skip without it.
[ -e /usr/include/dlpack/dlpack.h ] || ! apt-cache show libdlpack-dev >/dev/null 2>&1 || missing+=(libdlpack-dev)
if [ ${#missing[@]} -gt 0 ]; then
  echo "tessel: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q "${missing[@]}" >/dev/null
fi

# The Python module's build and tests (python/): nanobind, numpy and pytest from PyPI.
if ! python3 -c "import nanobind, numpy, pytest" 2>/dev/null; then
  echo "tessel: installing nanobind, numpy and pytest for the Python module" >&2
  python3 -m pip install -q nanobind numpy pytest >/dev/null
fi

cuda_root="${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}"
if [ ! -e "$cuda_root/include/nvrtc.h" ]; then
  echo "tessel: the CUDA 13 toolkit (headers and NVRTC) was not found at $cuda_root; set CUDA_HOME" >&2
  exit 1
fi

cmake -S "$tessel_root" -B "$tessel_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCUDAToolkit_ROOT="$cuda_root" -DTESSEL_BUILD_PYTHON=ON ${TESSEL_CMAKE_ARGS:-} >/dev/null
