#!/usr/bin/env bash
# Tests of the clscan program (tools/): devices, scan (text and binary, every type, errors and
# atomic output), bench (a tiny verified run with CSV and SVG reports), tune, and usage.
# Usage: tests/test_cli.sh PATH/TO/clscan
set -euo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: $0 PATH/TO/clscan (an executable)" >&2
  exit 2
fi
CLSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clscan-cli-test.XXXXXX")
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

# scan_text "NUMBERS" ARGS...: scans the numbers (one a line) and prints the results on one line.
scan_text() {
  local input=$1
  shift
  tr ' ' '\n' <<<"$input" | "$CLSCAN" scan "$@" | paste -sd' ' -
}

# scanned NAME "NUMBERS" "WANT" ARGS...: checks a text scan's results.
scanned() {
  local name=$1 input=$2 want=$3 got
  shift 3
  got=$(scan_text "$input" "$@" 2>stderr.txt) || got="(exit status $?)"
  expect_eq "$name" "$got" "$want"
}

# ---------------------------------------------------------------------------------------------
echo "# devices, version, help, usage errors"
run "$CLSCAN" devices
expect_status "devices succeeds" 0
check "devices marks a default" "no '* P:D' line" grep -Eq '^\* [0-9]+:[0-9]+ ' stdout.txt
run "$CLSCAN" --version
expect_status "--version succeeds" 0
check "--version prints it" "$(cat stdout.txt)" \
  grep -Eq '^clscan [0-9]+\.[0-9]+\.[0-9]+$' stdout.txt
run "$CLSCAN" --help
expect_status "--help succeeds" 0
for cmd in devices scan bench tune; do
  run "$CLSCAN" "$cmd" --help
  expect_status "$cmd --help succeeds" 0
  check "$cmd --help prints its usage" "no usage" grep -q "^Usage: clscan $cmd" stdout.txt
done
run "$CLSCAN"
expect_status "no command: exit 2" 2
run "$CLSCAN" frobnicate
expect_status "unknown command: exit 2" 2
run "$CLSCAN" scan --frobnicate
expect_status "unknown option: exit 2" 2
expect_stderr "unknown option is named" "^clscan: .*'--frobnicate'"
run "$CLSCAN" scan --type int9 </dev/null
expect_status "unknown type: exit 2" 2
run "$CLSCAN" scan --exclusive=yes </dev/null
expect_status "value for a flag: exit 2" 2
run "$CLSCAN" scan --op xor --type float </dev/null
expect_status "xor on float: exit 2" 2
run "$CLSCAN" bench --min-log2 13 --max-log2 12
expect_status "bench with min above max: exit 2" 2
run "$CLSCAN" bench --reps 0
expect_status "bench with 0 reps: exit 2" 2

# ---------------------------------------------------------------------------------------------
echo "# scan: operators, initial values, algorithms"
scanned "inclusive add" "3 1 4 1 5" "3 4 8 9 14"
scanned "exclusive add" "3 1 4 1 5" "0 3 4 8 9" --exclusive
scanned "--init" "3 1 4 1 5" "13 14 18 19 24" --init 10
scanned "--init=V --exclusive" "3 1 4 1 5" "10 13 14 18 19" --init=10 --exclusive
scanned "min" "3 1 4 1 5" "3 1 1 1 1" --op min
scanned "max" "3 1 4 1 5" "3 3 4 4 5" --op=max
scanned "exclusive max starts at the identity" "3 1 4" "-2147483648 3 3" --op max --exclusive
scanned "mul" "3 1 4 1 5" "3 3 12 12 60" --op mul
scanned "and" "12 10 6" "12 8 0" --op and
scanned "or" "12 10 6" "12 14 14" --op or
scanned "xor" "12 10 6" "12 6 0" --op xor
got=$(printf ' 3\t\n\t1 \r\n' | "$CLSCAN" scan 2>stderr.txt | paste -sd' ' -) ||
  got="(exit status $?)"
expect_eq "surrounding whitespace is ignored" "$got" "3 4"
# A larger input crosses work-group and tile boundaries; awk computes the expected sums.
seq 1 3000 >big.txt
want=$(awk '{ s += $1; print s }' big.txt | paste -sd' ' -)
for algo in auto blelloch hillis-steele reduce-then-scan single-pass; do
  got=$("$CLSCAN" scan --algorithm "$algo" big.txt 2>stderr.txt | paste -sd' ' -) ||
    got="(exit status $?)"
  check "3000 elements with $algo" "results differ" test "$got" == "$want"
done

echo "# scan: every type (wrapping at the limits)"
scanned "int8" "100 100 -100" "100 -56 100" --type int8
scanned "uint8" "200 100 1" "200 44 45" --type uint8
scanned "int16" "30000 30000" "30000 -5536" --type int16
scanned "uint16" "65535 1 2" "65535 0 2" --type uint16
scanned "int32" "2147483647 1" "2147483647 -2147483648" --type int32
scanned "uint32" "4294967295 2" "4294967295 1" --type uint32
scanned "int64" "9223372036854775807 1" "9223372036854775807 -9223372036854775808" --type int64
scanned "uint64" "18446744073709551615 1" "18446744073709551615 0" --type uint64
scanned "float" "0.5 0.25 1.125" "0.5 0.75 1.875" --type float
scanned "double (%.17g)" "0.1 0.2" "0.10000000000000001 0.30000000000000004" --type double

echo "# scan: binary"
printf '\003\000\000\000\001\000\000\000\004\000\000\000\001\000\000\000\005\000\000\000' >in.bin
printf '\003\000\000\000\004\000\000\000\010\000\000\000\011\000\000\000\016\000\000\000' >want.bin
run "$CLSCAN" scan --format binary in.bin out.bin
expect_status "binary int32 scan succeeds" 0
check "binary int32 round trip" "bytes differ" cmp -s out.bin want.bin
printf '\375\377\001\000\004\000' >in16.bin
"$CLSCAN" scan --format=binary --type int16 <in16.bin >out16.bin 2>stderr.txt || true
expect_eq "binary int16 via od" "$(od -An -td2 out16.bin | xargs)" "-3 -2 2"
printf '\001\002\003\004\005' >five.bin
run "$CLSCAN" scan --format binary five.bin out5.bin
expect_status "binary of wrong length fails" 1
expect_stderr "binary of wrong length is explained" "5 bytes"
check "no output for a binary of wrong length" "out5.bin exists" test ! -e out5.bin

echo "# scan: errors leave no partial output"
printf '1\n2\nabc\n4\n' >bad.txt
run "$CLSCAN" scan bad.txt new.txt
expect_status "malformed text fails" 1
expect_stderr "malformed text names the line" "input line 3: 'abc' is not a valid int32"
check "malformed text creates no OUT" "new.txt exists" test ! -e new.txt
printf 'precious\n' >kept.txt
cp kept.txt kept.orig
run "$CLSCAN" scan bad.txt kept.txt
expect_status "malformed text over an existing OUT fails" 1
check "existing OUT left byte-identical" "kept.txt changed" cmp -s kept.txt kept.orig
check "no temporary files left" "$(find . -name '.clscan-*')" test -z "$(find . -name '.clscan-*')"
printf '1\n\n2\n' >blank.txt
run "$CLSCAN" scan blank.txt
expect_status "blank line fails" 1
expect_stderr "blank line is named" "input line 2"
printf '1\n300\n' >big8.txt
run "$CLSCAN" scan --type int8 big8.txt
expect_status "300 for int8 fails" 1
expect_stderr "300 for int8 is out of range" "input line 2: '300' is out of range for int8"
run "$CLSCAN" scan --type uint8 <<<"-1"
expect_status "-1 for uint8 fails" 1
run "$CLSCAN" scan --type int8 --init 300 </dev/null
expect_status "--init 300 for int8: exit 2" 2
run "$CLSCAN" scan missing.txt
expect_status "missing input fails" 1
expect_stderr "missing input is named" "missing.txt"
printf '1\n2\n' >good.txt
run "$CLSCAN" scan good.txt no/such/dir/out.txt
expect_status "output in a missing directory fails" 1
run "$CLSCAN" scan good.txt good.txt/out.txt
expect_status "output under a regular file fails" 1
if [[ $(id -u) -ne 0 ]]; then
  mkdir locked && chmod 555 locked
  run "$CLSCAN" scan good.txt locked/out.txt
  expect_status "output in an unwritable directory fails" 1
  chmod 755 locked
fi
: >empty.txt
run "$CLSCAN" scan empty.txt empty.out
expect_status "empty input succeeds" 0
check "empty input, empty output" "empty.out missing or not empty" is_empty_file empty.out
run "$CLSCAN" scan --format binary empty.txt empty.bin
expect_status "empty binary input succeeds" 0
check "empty binary input, empty output" "empty.bin missing or not empty" is_empty_file empty.bin
run "$CLSCAN" scan good.txt good.txt
expect_eq "IN and OUT may be one file" "$(paste -sd' ' - <good.txt)" "1 3"

# ---------------------------------------------------------------------------------------------
echo "# scan: more bad input (each fails with a message, exit 1 or 2, and writes no OUT)"
# rejected INPUT_FILE NAME PATTERN WANT_STATUS ARGS...: scans INPUT_FILE into a new OUT, which
# must fail with WANT_STATUS, a message matching PATTERN, and no OUT (nor temporary file) left.
rejected() {
  local input=$1 name=$2 pattern=$3 want=$4
  shift 4
  rm -f rejected.out
  run "$CLSCAN" scan "$@" "$input" rejected.out
  expect_status "$name: exit $want" "$want"
  expect_stderr "$name: explained" "$pattern"
  check "$name: no OUT" "rejected.out exists" test ! -e rejected.out
}
printf '1\n12abc\n' >garbage.txt
rejected garbage.txt "trailing garbage" "line 2: '12abc' is not a valid int32" 1
printf '1 2\n' >two.txt
rejected two.txt "two numbers on a line" "line 1: '1 2' is not a valid int32" 1
printf '1\0002\n' >nul.txt
rejected nul.txt "a NUL byte in a line" "line 1: contains a NUL byte" 1
for word in nan inf -inf 1e5 0x10 1.5 --5 ' '; do
  printf '%s\n' "$word" >word.txt
  rejected word.txt "'$word' for int64" "is not a valid int64|blank lines" 1 --type int64
done
printf '1e999\n' >huge_exp.txt
rejected huge_exp.txt "1e999 for double" "'1e999' is out of range for double" 1 --type double
printf '3.5e38\n' >big_float.txt
rejected big_float.txt "3.5e38 for float" "'3.5e38' is out of range for float" 1 --type float
printf -- '-1e39\n' >neg_float.txt
rejected neg_float.txt "-1e39 for float" "is out of range for float" 1 --type float
printf '18446744073709551616\n' >u64.txt
rejected u64.txt "2^64 for uint64" "is out of range for uint64" 1 --type uint64
printf -- '-9223372036854775809\n' >i64.txt
rejected i64.txt "-2^63-1 for int64" "is out of range for int64" 1 --type int64
printf '%01000d\n' 7 >long_line.txt
scanned "a 1000-digit 7 with leading zeros is 7" "$(cat long_line.txt)" "7"
printf '9%01000d\n' 0 >long_number.txt
rejected long_number.txt "a 1001-digit number" "is out of range for int32" 1
scanned "denormal underflow to 0 is accepted" "1e-999" "0" --type double
scanned "+5 and -0 are numbers" "+5 -0" "5 5"
scanned "nan and inf are floats" "inf 1" "inf inf" --type float
printf '\001\002\003\004\005\006\007\010\011\012\013\014' >trunc64.bin
rejected trunc64.bin "truncated int64 binary (12 bytes)" "12 bytes is not a whole number of int64" 1 \
  --format binary --type int64
printf '\001\002\003' >trunc16.bin
rejected trunc16.bin "truncated int16 binary (3 bytes)" "3 bytes" 1 --format binary --type int16
rejected good.txt "--init 1e999 for double" "--init: '1e999' is out of range for double" 2 \
  --type double --init 1e999
rejected good.txt "--init -1 for uint64" "--init: '-1' is out of range for uint64" 2 --type uint64 \
  --init -1
rejected good.txt "--init nan for int32" "--init: 'nan' is not a valid int32" 2 --init nan
rejected good.txt "--init 128 for int8" "--init: '128' is out of range for int8" 2 --type int8 \
  --init 128
rejected good.txt "empty --init=" "needs a non-empty value" 2 --init=
rejected good.txt "unknown --format" "--format: unknown value 'csv'" 2 --format csv
rejected good.txt "unknown --algorithm" "--algorithm: unknown value" 2 --algorithm quick
rejected good.txt "and on double" "--op and is not defined on double" 2 --type double --op and
mkdir -p out_dir
run "$CLSCAN" scan good.txt out_dir
expect_status "an output path that is a directory fails" 1
expect_stderr "an output path that is a directory is explained" "out_dir.*[Ii]s a directory"
check "the directory is left as it was" "out_dir changed" test -z "$(ls -A out_dir)"
run "$CLSCAN" scan out_dir rejected.out
expect_status "an input path that is a directory fails" 1
check "no OUT for a directory input" "rejected.out exists" test ! -e rejected.out
run "$CLSCAN" scan good.txt out1.txt extra.txt
expect_status "a third positional argument: exit 2" 2
check "no temporary files left after the bad-input checks" "$(find . -name '.clscan-*')" \
  test -z "$(find . -name '.clscan-*')"

# ---------------------------------------------------------------------------------------------
echo "# bench and tune"
run "$CLSCAN" bench --min-log2 10 --max-log2 12 --reps 3 --csv f.csv --plot f.svg
expect_status "tiny bench succeeds" 0
skipped=$(grep -c '^note: skipping' stdout.txt || true)
row='^(blelloch|hillis-steele|reduce-then-scan|single-pass) +int32 +2\^1[0-2] +[0-9.]+ '
rows=$(grep -Ec "$row" stdout.txt || true)
expect_eq "bench prints a row per algorithm and size" "$rows" "$((3 * (4 - skipped)))"
check "bench verifies" "no 'verified'" grep -q "verified before and after timing" stdout.txt
check "bench finds no wrong result" "WRONG in stdout" test "$(grep -c WRONG stdout.txt)" -eq 0
check "bench prints the lesson" "missing" grep -q "seed's lesson" stdout.txt
lines=$(if [[ -f f.csv ]]; then wc -l <f.csv | xargs; else echo "no file"; fi)
expect_eq "CSV has a header and every row" "$lines" "$((rows + 1))"
if command -v python3 >/dev/null; then
  check "SVG is well-formed XML" "parse error" \
    python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" f.svg
else
  echo "skip SVG is well-formed XML (no python3)"
fi
run "$CLSCAN" tune --log2 12 --reps 3
expect_status "tiny tune succeeds" 0
check "tune suggests a table row" "none" grep -q '^    {"' stdout.txt

echo
if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
