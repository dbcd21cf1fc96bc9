#!/usr/bin/env bash
# Lints the repository: formatting, layering and compiler warnings.
#
#   1. format:   `clang-format --dry-run -Werror` (the repository's .clang-format) over every C
#                source and header, CUDA source and OpenCL C file (cl/*.cl) git tracks; prints
#                each file that needs formatting.
#   2. layers:   scripts/check_layers.sh (no call to a higher layer, no circle).
#   3. warnings: builds the library (clscan, and clscan_mpi where MPI is found, with the
#                fault-injection hooks so that their code is checked too) in a build folder of its
#                own with -Wall -Wextra -Wconversion -Wsign-conversion on top of the project's
#                warnings, and fails on any warning (src/, include/, the generated sources).
#                Prints each finding.
#
# The warning pass is the compiler's and not clang-tidy's: the conversion warnings are where a
# library of sizes, offsets and OpenCL's cl_uint and size_t goes wrong, the compiler sees exactly
# the code the build compiles (every #ifdef as configured), and it needs no database of compile
# commands or list of checks to keep in step with clang-tidy's versions. The one suppression is
# the project's own -Wno-unused-parameter (CLSCAN_WARNINGS in CMakeLists.txt): the functions of an
# algorithm descriptor share one signature, and not every algorithm uses every argument.
#
# Usage: scripts/lint.sh [format|layers|warnings]...   (default: all three, in that order)
# Environment: CLANG_FORMAT (default clang-format-14, else clang-format), LINT_CC (the compiler
# of the warning pass; default clang, else cc), LINT_BUILD_DIR (default build-lint), LINT_JOBS
# (parallel compiles, default 2).
# Exit status: 0 when every step passes, 1 when one finds something, 2 when a tool is missing.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
failed=0

# The first of the named programs that exists, or nothing.
first_program() {
  for p in "$@"; do
    if command -v "$p" >/dev/null 2>&1; then
      echo "$p"
      return
    fi
  done
}

lint_format() {
  local cf=${CLANG_FORMAT:-$(first_program clang-format-14 clang-format)}
  if [[ -z $cf ]]; then
    echo "lint: format: clang-format not found (set CLANG_FORMAT)" >&2
    return 2
  fi
  local version
  version=$("$cf" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
  if [[ $version != 14 ]]; then
    echo "lint: format: note: $cf is version $version; .clang-format is applied with 14"
  fi
  local files bad=0 count=0
  mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cu' '*.cl')
  for f in "${files[@]}"; do
    count=$((count + 1))
    if ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then
      echo "lint: format: $f needs clang-format"
      bad=$((bad + 1))
    fi
  done
  echo "lint: format: $count files, $bad need formatting"
  [[ $bad -eq 0 ]]
}

lint_layers() {
  if ! scripts/check_layers.sh; then
    echo "lint: layers: scripts/check_layers.sh failed"
    return 1
  fi
}

lint_warnings() {
  local cc=${LINT_CC:-$(first_program clang cc)}
  local dir=${LINT_BUILD_DIR:-build-lint}
  local log=$dir/lint-warnings.log
  if [[ -z $cc ]]; then
    echo "lint: warnings: no C compiler found (set LINT_CC)" >&2
    return 2
  fi
  if ! cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS=-Wall -Wextra -Wconversion -Wsign-conversion" -DCLSCAN_WERROR=OFF \
    -DCLSCAN_FAULT_INJECTION=ON -DCLSCAN_BUILD_TESTS=OFF -DCLSCAN_BUILD_TOOLS=OFF \
    -DCLSCAN_BUILD_BENCH=OFF >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"
    echo "lint: warnings: configuring $dir failed" >&2
    return 2
  fi
  rm -f "$dir.configure.log"
  local targets=(clscan)
  local help
  help=$(cmake --build "$dir" --target help 2>/dev/null)
  if grep -qw clscan_mpi <<<"$help"; then
    targets+=(clscan_mpi)
  fi
  # A clean build, so that every file of the library is compiled (and warned about) again.
  if ! cmake --build "$dir" --clean-first --parallel "${LINT_JOBS:-2}" --target "${targets[@]}" \
    >"$log" 2>&1; then
    cat "$log"
    echo "lint: warnings: building ${targets[*]} failed" >&2
    return 1
  fi
  local findings
  # Every warning counts: src/, the public headers in include/ and the generated sources.
  findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$log" | sort -u)
  if [[ -n $findings ]]; then
    echo "$findings"
    echo "lint: warnings: $(echo "$findings" | wc -l) (${targets[*]} with $cc; log: $log)"
    return 1
  fi
  echo "lint: warnings: none (${targets[*]} with $cc)"
}

steps=("$@")
[[ ${#steps[@]} -eq 0 ]] && steps=(format layers warnings)
for step in "${steps[@]}"; do
  case $step in
    format | layers | warnings) "lint_$step" ;;
    *)
      echo "usage: scripts/lint.sh [format|layers|warnings]..." >&2
      exit 2
      ;;
  esac
  rc=$?
  if [[ $rc -eq 2 ]]; then
    exit 2
  fi
  [[ $rc -ne 0 ]] && failed=1
done
exit $failed
