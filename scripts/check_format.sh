#!/usr/bin/env bash
# Checks that the C++ sources are formatted as .clang-format says, naming the lines that are not;
# `scripts/check_format.sh --fix` formats them. CI runs the check before the tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v clang-format >/dev/null; then
  echo "tessel: installing clang-format" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q clang-format >/dev/null
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp')
else
  mapfile -t files < <(find src include tests examples tools bench -name '*.cpp' -o -name '*.hpp')
fi
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
else
  clang-format --dry-run -Werror "${files[@]}"
fi
