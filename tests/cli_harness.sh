# The harness the clscan program's test scripts share (test_cli.sh, test_cli_select.sh,
# test_sort_cli.sh), sourced after the script sets CLI_TEST_NAME. It checks the one argument (the
# clscan executable, as $CLSCAN), sets SRC_DIR (the source tree), works in a fresh temporary
# folder removed at exit, counts failures in $failures, and defines the checks below.
# shellcheck shell=bash

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: $0 PATH/TO/clscan (an executable)" >&2
  exit 2
fi
CLSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clscan-${CLI_TEST_NAME:-cli}.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
failures=0

# ok NAME / bad NAME DETAIL: report one check.
ok() { echo "ok   $1"; }
bad() {
  echo "FAIL $1: $2"
  [[ -s stderr.txt ]] && sed 's/^/     stderr: /' stderr.txt | head -5
  failures=$((failures + 1))
}

# run CMD...: runs a command with stdout in stdout.txt and stderr in stderr.txt; sets $status.
run() {
  set +e
  "$@" >stdout.txt 2>stderr.txt
  status=$?
  set -e
}

# check NAME DETAIL CMD...: passes when CMD succeeds; DETAIL explains a failure.
check() {
  local name=$1 detail=$2
  shift 2
  if "$@"; then ok "$name"; else bad "$name" "$detail"; fi
}

# is_empty_file PATH: succeeds for an existing, empty regular file.
is_empty_file() { [[ -f $1 && ! -s $1 ]]; }

# expect_eq NAME GOT WANT: checks that two strings are equal.
expect_eq() {
  if [[ $2 == "$3" ]]; then ok "$1"; else bad "$1" "got '$2', want '$3'"; fi
}

# expect_status NAME WANT: checks the last run's exit status.
expect_status() {
  if [[ $status -eq $2 ]]; then ok "$1"; else bad "$1" "exit status $status, want $2"; fi
}

# expect_stderr NAME PATTERN: checks that the last run's stderr matches an extended regex.
expect_stderr() {
  if grep -Eq -- "$2" stderr.txt; then ok "$1"; else bad "$1" "stderr lacks /$2/"; fi
}

# same NAME FILE1 FILE2: checks that two files are equal.
same() {
  if cmp -s "$2" "$3"; then ok "$1"; else bad "$1" "$2 and $3 differ"; fi
}
