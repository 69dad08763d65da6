#!/usr/bin/env bash
# Checks that C++ sources follow .clang-format. With a git revision, only the files changed since
# it; without, every tracked source. The tree is formatted with clang-format 14, whose output the
# check compares against (other versions break lines differently).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

formatter="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$formatter" ]; then
  echo "tessel: installing clang-format" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q clang-format >/dev/null
  formatter="$(command -v clang-format)"
fi
version="$("$formatter" --version | sed -E 's/.*version ([0-9]+).*/\1/')"
if [ "$version" != 14 ]; then
  echo "check_format: $formatter is clang-format $version; the tree is formatted with clang-format 14" >&2
  exit 1
fi

if [ $# -gt 0 ]; then
  mapfile -t files < <(git diff --name-only --diff-filter=d "$1" -- '*.cpp' '*.hpp')
else
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
fi
[ ${#files[@]} -eq 0 ] && exit 0
if ! "$formatter" --dry-run --Werror "${files[@]}"; then
  echo "check_format: run clang-format -i on the files above" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files follow .clang-format"
