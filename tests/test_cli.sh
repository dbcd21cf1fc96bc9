#!/usr/bin/env bash
# Tests of the clscan program (tools/clscan): devices, scan (text and binary, every type, errors and
# atomic output; output types, user operators, maps, head flags and keys, and their bad
# combinations), bench (tiny verified runs of every variant with CSV and SVG reports), tune, and
# usage.
# Usage: tests/test_cli.sh PATH/TO/clscan
set -euo pipefail

CLI_TEST_NAME=cli-test
# shellcheck source=tests/cli_harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_harness.sh"

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

# scanned_fp64 NAME NUMBERS WANT ARGS...: as scanned, where the device has fp64; elsewhere the scan
# must fail (exit status 1) and say so.
scanned_fp64() {
  if [[ $HAS_FP64 == yes ]]; then
    scanned "$@"
    return
  fi
  local name=$1 input=$2
  shift 3
  got=$(scan_text "$input" "$@" 2>stderr.txt) || got="(exit status $?)"
  expect_eq "$name: refused without fp64" "$got" "(exit status 1)"
  expect_stderr "$name: says why" "no fp64"
}

# ---------------------------------------------------------------------------------------------
echo "# devices, version, help, usage errors"
run "$CLSCAN" devices
expect_status "devices succeeds" 0
check "devices marks a default" "no '* P:D' line" grep -Eq '^\* [0-9]+:[0-9]+ ' stdout.txt
check "devices reports the library's tuning" "no tuning line" \
  grep -Eq '^      int32 tuning +seed_wg=[0-9]+ tile_wg=[0-9]+ ' stdout.txt
# What the default device lacks: without fp64 double scans are refused; without 64-bit atomics
# the single pass is (the checks below expect the refusals, and bench variants use
# reduce-then-scan instead).
HAS_FP64=$(awk '/^\* /{d=1} d && $1 == "fp64" {print $2; exit}' stdout.txt)
HAS_SP=$(awk '/^\* /{d=1} d && $1 == "algorithms" {print /single-pass/ ? "yes" : "no"; exit}' \
  stdout.txt)
echo "default device: fp64 ${HAS_FP64:-?}, single pass ${HAS_SP:-?}"
SP=single-pass
[[ $HAS_SP == yes ]] || SP=reduce-then-scan
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
run "$CLSCAN" bench --ops add,sub
expect_status "bench with an unknown operator: exit 2" 2
expect_stderr "bench names the bad operator" "--ops: bad or repeated item 'sub'"
run "$CLSCAN" bench --ops min,min
expect_status "bench with a repeated operator: exit 2" 2
run "$CLSCAN" bench --reruns -1
expect_status "bench with negative reruns: exit 2" 2
run "$CLSCAN" bench --ops min,max --plot p.svg
expect_status "bench --plot with two operators: exit 2" 2
check "bench --plot with two operators writes no chart" "p.svg exists" test ! -e p.svg
run "$CLSCAN" bench --family sort --reruns 3
expect_status "bench --family sort with --reruns: exit 2" 2
run "$CLSCAN" bench --family sort --algorithms blelloch
expect_status "bench --family sort with a scan algorithm: exit 2" 2

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
  if [[ $algo == single-pass && $HAS_SP != yes ]]; then
    expect_eq "3000 elements with $algo: refused" "$got" "(exit status 1)"
    expect_stderr "3000 elements with $algo: says why" "single pass scans in place wrongly"
  else
    check "3000 elements with $algo" "results differ" test "$got" == "$want"
  fi
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
scanned_fp64 "double (%.17g)" "0.1 0.2" "0.10000000000000001 0.30000000000000004" --type double
# Every half sum is rounded to half: 2048 + 1 is a tie, which goes to the even 2048.
scanned "half (each sum rounded)" "2048 1 1" "2048 2048 2048" --type half
scanned "half to float (exact)" "2048 1 1" "2048 2049 2050" --type half --out-type float
scanned "half text rounds to nearest (%.5g)" "0.1 -0 65519" "0.099976 0.099976 65504" --type half
scanned "half max" "-inf 3 1e-7" "-inf 3 3" --type half --op max
printf '1\n70000\n' >half_bad.txt
run "$CLSCAN" scan --type half half_bad.txt
expect_status "half out of range: exit 1" 1
expect_stderr "half out of range: says so" "line 2: '70000' is out of range for half"
run "$CLSCAN" scan --op xor --type half </dev/null
expect_status "xor on half: exit 2" 2
run "$CLSCAN" bench --family sort --types half
expect_status "sort bench of half: exit 2" 2
run "$CLSCAN" bench --types float --out-type half
expect_status "bench of float into half: exit 2" 2
run "$CLSCAN" tune --types half
expect_status "tune of half: exit 2" 2

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
scanned_fp64 "denormal underflow to 0 is accepted" "1e-999" "0" --type double
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
# Output types, user operators, maps, head flags and keys. Every distinct descriptor builds OpenCL
# programs (about 1 s each on POCL), so the checks below share descriptors where they can.
echo "# scan: --out-type"
scanned "uint8 summed in uint32" "200 100 1" "200 300 301" --type uint8 --out-type uint32
scanned "--init is of the output type" "200 100" "-5 195" --type uint8 --out-type int32 \
  --init -5 --exclusive
scanned "int8 input converted to int16" "-100 -100 -100" "-100 -200 -300" --type int8 \
  --out-type int16
scanned_fp64 "int32 summed in double" "1 2 3" "1 3 6" --type int32 --out-type double
scanned "uint32 narrowed to uint8 (wraps)" "257 255" "1 0" --type uint32 --out-type uint8
printf '\310\144\001' >u8.bin
run "$CLSCAN" scan --format binary --type uint8 --out-type uint32 u8.bin u32.bin
expect_status "binary uint8 -> uint32 succeeds" 0
expect_eq "binary output has the output type" "$(od -An -tu4 u32.bin | xargs)" "200 300 301"

echo "# scan: --op-source and --identity"
# a op b = a + b + 1 is associative, with identity -1.
scanned "user operator (expression)" "1 2 3" "1 4 8" --op-source 'a + b + 1' --identity -1
scanned "user operator, exclusive starts at the identity" "1 2 3" "-1 1 4" \
  --op-source 'a + b + 1' --identity -1 --exclusive
scanned "user operator with --init" "1 2 3" "12 15 19" --op-source 'a + b + 1' --identity -1 \
  --init 10
scanned "user operator (body with return)" "1 2 4 1" "1 3 7 7" --type uint64 \
  --op-source '{ ulong r = a | b; return r; }' --identity 0

echo "# scan: --map-source"
want=$(awk 'BEGIN { s = 0; for (i = 0; i < 3; i++) { x = i + 1; s += x * x + i; printf "%s%d", i ? " " : "", s } }')
scanned "map of x and i" "1 2 3" "$want" --map-source 'x * x + (int)i'
scanned "map's value is of the output type" "1 2 3" "100 300 600" --type uint8 --out-type uint32 \
  --map-source 'x * 100'

echo "# scan: --flags (segmented)"
# flags_file FILE "FLAGS": writes one flag a line.
flags_file() { tr ' ' '\n' <<<"$2" >"$1"; }
flags_file f5.txt "1 0 1 0 0"
scanned "segmented inclusive" "3 1 4 1 5" "3 4 4 5 10" --flags f5.txt
scanned "segmented exclusive from --init" "3 1 4 1 5" "10 13 10 14 15" --flags f5.txt \
  --exclusive --init 10
flags_file f3.txt "0 0 1"
scanned "element 0 starts a segment without a flag" "1 2 3" "1 3 3" --flags f3.txt
printf '\001\000\000\000\002\000\000\000\003\000\000\000' >in3.bin
printf '\000\002\000' >flags3.bin
run "$CLSCAN" scan --format binary --flags flags3.bin in3.bin out3.bin
expect_status "binary flags succeed" 0
expect_eq "a non-zero binary flag starts a segment" "$(od -An -td4 out3.bin | xargs)" "1 2 5"
# 3000 elements, a segment every 7 (and the first), against awk; auto and blelloch.
awk 'BEGIN { for (i = 1; i <= 3000; i++) print (i % 7 == 0) }' >flags7.txt
want=$(paste big.txt flags7.txt | awk '{ if ($2 == 1 || NR == 1) s = 0; s += $1; print s }' |
  paste -sd' ' -)
got=$("$CLSCAN" scan --flags flags7.txt big.txt 2>stderr.txt | paste -sd' ' -) ||
  got="(exit status $?)"
check "3000 elements with flags (auto)" "results differ" test "$got" == "$want"
want=$(paste big.txt flags7.txt |
  awk '{ if ($2 == 1 || NR == 1) s = 10; print s; s += $1 }' | paste -sd' ' -)
got=$("$CLSCAN" scan --flags flags7.txt --exclusive --init 10 --algorithm blelloch big.txt \
  2>stderr.txt | paste -sd' ' -) || got="(exit status $?)"
check "3000 elements with flags (blelloch, exclusive, --init)" "results differ" \
  test "$got" == "$want"

echo "# scan: --keys and --key-type (scan by key)"
flags_file k6.txt "5 5 7 7 7 5"
scanned "by key (int32 keys)" "1 2 3 4 5 6" "1 3 3 7 12 6" --keys k6.txt
# 3000 elements in runs of 5 keys cycling 0, 1, 2 (neighbouring runs differ), against awk.
awk 'BEGIN { for (i = 0; i < 3000; i++) print int(i / 5) % 3 }' >keys3000.txt
want=$(paste big.txt keys3000.txt | awk '{ if (NR == 1 || $2 != k) s = 0; k = $2; s += $1; print s }' |
  paste -sd' ' -)
got=$("$CLSCAN" scan --keys keys3000.txt big.txt 2>stderr.txt | paste -sd' ' -) ||
  got="(exit status $?)"
check "3000 elements by key" "results differ" test "$got" == "$want"
flags_file k64.txt "18446744073709551615 18446744073709551615 0 0"
scanned "uint64 keys" "1 1 1 1" "1 2 1 2" --keys k64.txt --key-type uint64
printf '\001\000\000\000\001\000\000\000\002\000\000\000' >keys3.bin
run "$CLSCAN" scan --format binary --keys keys3.bin in3.bin outk.bin
expect_status "binary keys succeed" 0
expect_eq "binary keys split at a change" "$(od -An -td4 outk.bin | xargs)" "1 3 3"

echo "# scan: everything at once"
flags_file f4.txt "1 0 0 1"
# uint8 x mapped to 2 * x in uint32, summed by the user operator from --init 1000, exclusive.
scanned "out-type, map, user op, flags, init" "200 200 200 200" "1000 1400 1800 1000" \
  --type uint8 --out-type uint32 --map-source 'x * 2' --op-source 'a + b' --identity 0 \
  --flags f4.txt --exclusive --init 1000

echo "# scan: bad combinations (message, exit status, no OUT, an existing OUT unchanged)"
# refused INPUT NAME PATTERN WANT_STATUS ARGS...: as rejected, then again over an existing OUT,
# which must be left byte-identical (and no temporary file may be left).
refused() {
  local input=$1 name=$2 pattern=$3 want=$4
  shift 4
  rejected "$input" "$name" "$pattern" "$want" "$@"
  printf 'precious\n' >kept.txt
  run "$CLSCAN" scan "$@" "$input" kept.txt
  expect_status "$name (existing OUT): exit $want" "$want"
  check "$name: existing OUT unchanged" "kept.txt changed" cmp -s kept.txt kept.orig
}
printf '3\n1\n4\n1\n5\n' >five.txt
refused five.txt "--identity without --op-source" "--identity is only used with --op-source" 2 \
  --identity 0
refused five.txt "--op-source without --identity" "--op-source needs --identity" 2 \
  --op-source 'a + b'
refused five.txt "--op with --op-source" "--op and --op-source cannot be combined" 2 --op max \
  --op-source 'a + b' --identity 0
refused five.txt "--flags with --keys" "--flags, --keys and --segment-offsets cannot be combined" \
  2 --flags f5.txt --keys k6.txt
refused five.txt "--key-type int9" "--key-type: 'int9' is not a type" 2 --keys k6.txt \
  --key-type int9
refused five.txt "float offsets" "offsets are int32, uint32, int64 or uint64" 2 \
  --segment-offsets k6.txt --key-type float
refused five.txt "--key-type without --keys" "--key-type is only used with --keys" 2 \
  --key-type int64
refused five.txt "unknown --out-type" "--out-type: unknown value 'int9'" 2 --out-type int9
refused five.txt "user type as --out-type" "--out-type: unknown value 'user'" 2 --out-type user
refused five.txt "--identity out of range for the output type" \
  "--identity: '300' is out of range for int8" 2 --out-type int8 --op-source 'a + b' \
  --identity 300
refused five.txt "--init out of range for the output type" "--init: '300' is out of range for uint8" \
  2 --out-type uint8 --init 300
refused five.txt "xor with a float output" "--op xor is not defined on float" 2 --out-type float \
  --op xor
refused - "flags and input both from standard input" "cannot both be standard input" 2 --flags -
refused five.txt "fewer flags than elements" "holds 3 flags, the input 5 elements" 1 --flags f3.txt
flags_file f2bad.txt "1 2 0 0 0"
refused five.txt "a text flag of 2" "flags line 2: '2' is not 0 or 1" 1 --flags f2bad.txt
flags_file fbad.txt "1 x 0 0 0"
refused five.txt "a malformed flag" "flags line 2: 'x' is not a valid uint8" 1 --flags fbad.txt
refused five.txt "a missing flags file" "cannot open flags 'nowhere.txt'" 1 --flags nowhere.txt
refused five.txt "more keys than elements" "holds 6 keys, the input 5 elements" 1 --keys k6.txt
flags_file kbad.txt "1 1 -1 2 2"
refused five.txt "a negative uint32 key" "keys line 3: '-1' is out of range for uint32" 1 \
  --keys kbad.txt --key-type uint32
printf '\001\002\003\004\005\006\007\010\011\012\013\014' >keys12.bin
refused in3.bin "truncated int64 binary keys" "12 bytes is not a whole number of int64" 1 \
  --format binary --keys keys12.bin --key-type int64
refused five.txt "an operator that does not compile" "failed to compile" 1 --op-source 'a +* b' \
  --identity 0
expect_stderr "an operator that does not compile: the build log is printed" "build log"
refused five.txt "a map that does not compile" "failed to compile" 1 --map-source 'x +'
expect_stderr "a map that does not compile: the build log is printed" "build log"
check "no temporary files left after the bad combinations" "$(find . -name '.clscan-*')" \
  test -z "$(find . -name '.clscan-*')"

# ---------------------------------------------------------------------------------------------
echo "# reduce: results, options, files"
# reduced NAME "NUMBERS" "WANT" ARGS...: checks a text reduction's one result.
reduced() {
  local name=$1 input=$2 want=$3 got
  shift 3
  got=$(tr ' ' '\n' <<<"$input" | "$CLSCAN" reduce "$@" 2>stderr.txt | paste -sd' ' -) ||
    got="(exit status $?)"
  expect_eq "reduce: $name" "$got" "$want"
}
run "$CLSCAN" reduce --help
expect_status "reduce --help succeeds" 0
check "reduce --help prints its usage" "no usage" grep -q "^Usage: clscan reduce" stdout.txt
reduced "add" "3 1 4 1 5" "14"
reduced "--init" "3 1 4 1 5" "24" --init 10
reduced "min" "3 1 4 1 5" "1" --op min
reduced "max with --init above" "3 1 4" "10" --op max --init 10
reduced "mul" "3 1 4 1 5" "60" --op mul
reduced "xor" "12 10 6" "0" --op xor
reduced "int8 wraps" "100 100" "-56" --type int8
reduced "uint8 into uint32" "200 100 1" "301" --type uint8 --out-type uint32
reduced "float" "1.5 2.25 -0.5" "3.25" --type float
reduced "--map-source" "1 2 3" "14" --map-source 'x * x'
reduced "--map-source with i" "5 5 5" "18" --map-source 'x + (int)i'
reduced "--op-source" "3 9 4" "9" --op-source 'a > b ? a : b' --identity -2147483648
got=$("$CLSCAN" reduce </dev/null 2>stderr.txt) || got="(exit status $?)"
expect_eq "reduce: empty input gives the identity" "$got" "0"
got=$("$CLSCAN" reduce --op min </dev/null 2>stderr.txt) || got="(exit status $?)"
expect_eq "reduce: empty min gives its identity" "$got" "2147483647"
got=$("$CLSCAN" reduce --init 7 </dev/null 2>stderr.txt) || got="(exit status $?)"
expect_eq "reduce: empty input gives --init" "$got" "7"
seq 1 100000 >hundred_k.txt
got=$("$CLSCAN" reduce --type int64 hundred_k.txt 2>stderr.txt) || got="(exit status $?)"
expect_eq "reduce: 100000 elements" "$got" "5000050000"
"$CLSCAN" reduce hundred_k.txt r.txt 2>stderr.txt
expect_eq "reduce: OUT file" "$(cat r.txt)" "705082704"
printf '\001\000\002\000\003\000' >three16.bin
run "$CLSCAN" reduce --format binary --type uint16 three16.bin r16.bin
expect_status "reduce: binary succeeds" 0
check "reduce: binary OUT is one little-endian element" "$(od -An -tx1 r16.bin)" \
  test "$(od -An -tx1 r16.bin | tr -d ' \n')" = "0600"

echo "# reduce: bad input (message, exit status, no OUT, an existing OUT unchanged)"
printf 'precious\n' >kept.txt
cp kept.txt kept.orig
# reduce_refused INPUT NAME PATTERN STATUS ARGS...: the reduction fails with STATUS and a message
# matching PATTERN, creates no OUT, and leaves an existing OUT byte-identical.
reduce_refused() {
  local input=$1 name=$2 pattern=$3 want=$4
  shift 4
  rm -f new.txt
  run "$CLSCAN" reduce "$@" "$input" new.txt
  expect_status "reduce: $name: exit $want" "$want"
  expect_stderr "reduce: $name: message" "$pattern"
  check "reduce: $name: no OUT" "new.txt exists" test ! -e new.txt
  run "$CLSCAN" reduce "$@" "$input" kept.txt
  expect_status "reduce: $name (existing OUT): exit $want" "$want"
  check "reduce: $name: existing OUT unchanged" "kept.txt changed" cmp -s kept.txt kept.orig
}
printf '1\n2\nabc\n4\n' >bad.txt
printf '3\n1\n4\n1\n5\n' >five.txt
reduce_refused bad.txt "malformed text" "input line 3: 'abc' is not a valid int32" 1
reduce_refused five.txt "--exclusive" "--exclusive is a scan option" 2 --exclusive
reduce_refused five.txt "--flags" "--flags is a scan option" 2 --flags five.txt
reduce_refused five.txt "--keys" "--keys is a scan option" 2 --keys five.txt
reduce_refused five.txt "--algorithm" "--algorithm is a scan option" 2 --algorithm blelloch
reduce_refused five.txt "xor on float" "not defined on float" 2 --type float --op xor
reduce_refused five.txt "--init out of range" "--init: '300'" 2 --type int8 --init 300
reduce_refused five.txt "--op-source without --identity" "--op-source needs --identity" 2 \
  --op-source 'a + b'
reduce_refused five.txt "bad --op-source" "failed to compile|USER_SOURCE|user OpenCL C" 1 \
  --op-source 'a +* b' --identity 0
printf '\001\002\003' >three.bin
reduce_refused three.bin "binary of wrong length" "3 bytes" 1 --format binary --type int16
run "$CLSCAN" reduce missing.txt
expect_status "reduce: missing input fails" 1
expect_stderr "reduce: missing input is named" "missing.txt"
check "reduce: no temporary files left" "$(find . -name '.clscan-*')" \
  test -z "$(find . -name '.clscan-*')"

echo "# bench and tune"
run "$CLSCAN" bench --min-log2 10 --max-log2 12 --reps 3 --csv f.csv --plot f.svg
expect_status "tiny bench succeeds" 0
skipped=$(grep -c '^note: skipping' stdout.txt || true)
row='^(blelloch|hillis-steele|reduce-then-scan|single-pass) +int32 +add +2\^1[0-2] +[0-9.]+ '
rows=$(grep -Ec "$row" stdout.txt || true)
expect_eq "bench prints a row per algorithm and size" "$rows" "$((3 * (4 - skipped)))"
check "bench verifies" "no 'verified'" grep -q "verified before and after timing" stdout.txt
check "bench finds no wrong result" "WRONG in stdout" test "$(grep -c WRONG stdout.txt)" -eq 0
check "bench prints where Blelloch overtakes Hillis-Steele" "missing" grep -q "Blelloch against Hillis-Steele" stdout.txt
check "bench says how it times" "no timing line" \
  grep -Eq '^timing:  (profiling events|wall clock around each enqueue)' stdout.txt
# Every row a positive time and copy time and a finite GB/s and ratio (a device whose profiling
# events do not measure, as rusticl's, read 1 ns a command: the bench must time with the wall clock
# there). The ratio itself may print as 0.000: a scan of 2^10 elements slowed by a loaded machine
# (ASan, 1.57 ms against a copy of 0.0004 ms) is a right row.
bad_rows=$(grep -E "$row" stdout.txt |
  awk '!($5 > 0) || !($8 > 0) || $6 ~ /inf|nan/ || $7 ~ /inf|nan/ || $7 < 0' | head -3)
expect_eq "bench rows have positive times and finite ratios" "$bad_rows" ""
if grep -q '^device: .*llvmpipe' stdout.txt; then
  check "bench on rusticl times with the wall clock" "not the wall clock" \
    grep -q '^timing:  wall clock' stdout.txt
fi
lines=$(if [[ -f f.csv ]]; then wc -l <f.csv | xargs; else echo "no file"; fi)
expect_eq "CSV has a header and every row" "$lines" "$((rows + 1))"
if command -v python3 >/dev/null; then
  check "SVG is well-formed XML" "parse error" \
    python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" f.svg
else
  echo "skip SVG is well-formed XML (no python3)"
fi

echo "# bench variants"
run "$CLSCAN" bench --variant sideways
expect_status "bench with an unknown variant: exit 2" 2
expect_stderr "bench names the bad variant" "--variant: 'sideways'"
run "$CLSCAN" bench --out-type int9
expect_status "bench with an unknown --out-type: exit 2" 2
# bench_variant NAME ROW_TYPES BYTES ROWS ARGS...: runs a tiny bench of a variant with a CSV file
# and checks its header, its ROWS table rows and CSV rows (types ROW_TYPES, BYTES per element).
bench_variant() {
  local name=$1 types=$2 bytes=$3 want=$4
  shift 4
  rm -f v.csv
  run "$CLSCAN" bench --reps 2 --seed 7 --csv v.csv "$@"
  expect_status "bench $name succeeds" 0
  check "bench $name: the header names the variant" "no variant line" \
    grep -q "^variant: ${name%% *}: " stdout.txt
  check "bench $name: the header gives the bytes per element" "no '$bytes bytes per element'" \
    grep -q "$bytes bytes per element" stdout.txt
  check "bench $name finds no wrong result" "WRONG or FAILED in stdout" \
    test "$(grep -Ec 'WRONG|FAILED' stdout.txt)" -eq 0
  expect_eq "bench $name rows" "$(grep -Ec "^[a-z-]+ +$types +add +2\^[0-9]+ +[0-9.]+ " stdout.txt)" \
    "$want"
  expect_eq "bench $name CSV rows" "$(grep -c ",${name%% *},$bytes," v.csv || true)" "$want"
}
bench_variant "map" "uint8->uint32" 5 2 --variant map --types uint8 --out-type uint32 \
  --algorithms "$SP" --min-log2 10 --max-log2 11
check "CSV has the new columns at the end" "header differs" \
  grep -q '^device,algo,type,n,ms,gbps,ratio_to_copy,copy_ms,host_ms,out_type,variant,bytes_per_element,copy_bytes,op,reruns,reruns_differ$' v.csv
if [[ $HAS_SP == yes ]]; then
  bench_variant "segmented" "int32" 9 4 --variant segmented --algorithms reduce-then-scan,single-pass \
    --min-log2 11 --max-log2 12
else
  bench_variant "segmented" "int32" 9 2 --variant segmented --algorithms reduce-then-scan \
    --min-log2 11 --max-log2 12
fi
bench_variant "by-key" "int32->int64" 16 1 --variant by-key --out-type int64 \
  --algorithms "$SP" --min-log2 12 --max-log2 12 --plot k.svg
if command -v python3 >/dev/null; then
  check "SVG of a variant is well-formed XML" "parse error" \
    python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" k.svg
fi

echo "# bench operators and reruns"
rm -f o.csv
run "$CLSCAN" bench --types uint8,int16 --ops min,max,xor --algorithms "$SP" --min-log2 12 \
  --max-log2 12 --reps 2 --reruns 3 --seed 9 --csv o.csv
expect_status "bench of min, max and xor on narrow types succeeds" 0
check "bench of the operators finds no wrong result" "WRONG or FAILED in stdout" \
  test "$(grep -Ec 'WRONG|FAILED' stdout.txt)" -eq 0
orow='^[a-z-]+ +(uint8|int16) +(min|max|xor) +2\^12 +[0-9.]+ '
expect_eq "bench prints a scan and a reduce row per type and operator" \
  "$(grep -Ec "$orow" stdout.txt || true)" 12
expect_eq "every row compares 3 reruns, none differs" \
  "$(grep -E "$orow" stdout.txt | grep -Ec ' 0/3$' || true)" 12
expect_eq "every reduce row has the host fold's time" \
  "$(grep -E "$orow" stdout.txt | grep -Ec '^reduce +.* [0-9]+[.][0-9]{4} +0/3$' || true)" 6
expect_eq "CSV rows name the operator and the reruns" \
  "$(grep -Ec ',(min|max|xor),3,0$' o.csv || true)" 6
run "$CLSCAN" bench --types int32 --algorithms "$SP" --min-log2 11 --max-log2 11 --reps 2 \
  --reruns 0 --no-reduce --csv o.csv
expect_status "bench without reruns succeeds" 0
check "bench without reruns prints no differ count" "a D/K column" \
  grep -Eq '^[a-z-]+ +int32 +add +2\^11 .* -$' stdout.txt
expect_eq "CSV row without reruns" "$(grep -Ec ',add,0,$' o.csv || true)" 1
run "$CLSCAN" bench --types float --algorithms "$SP" --min-log2 13 --max-log2 13 --reps 2 \
  --reruns 2 --concurrent --no-reduce
expect_status "bench with reruns on two queues succeeds" 0
check "reruns on two queues compare both outputs, none differs" "no 0/4 row" \
  grep -Eq '^[a-z-]+ +float +add +2\^13 .* 0/4$' stdout.txt
run "$CLSCAN" bench --concurrent --reruns 0
expect_status "bench --concurrent without reruns: exit 2" 2

echo "# bench --family sort"
rm -f s.csv
run "$CLSCAN" bench --family sort --types uint32,float --min-log2 11 --max-log2 11 --reps 1 \
  --seed 3 --csv s.csv
expect_status "bench of the sorts succeeds" 0
check "bench of the sorts finds no wrong result" "WRONG or FAILED in stdout" \
  test "$(grep -Ec 'WRONG|FAILED' stdout.txt)" -eq 0
skipped=$(grep -c '^note: skipping .* sorts of' stdout.txt || true)
srow='^(keys|pairs) +(uniform|few|sorted|narrow) +(lsd|onesweep) +(uint32|float) +2\^11 +[0-9.]+ '
expect_eq "bench prints a row per type, distribution, kind and algorithm" \
  "$(grep -Ec "$srow" stdout.txt || true)" "$((32 - 8 * skipped))"
check "sort CSV has its header" "header differs" \
  grep -q '^device,algo,key_type,value_type,distribution,n,ms,keys_per_s,host_ms$' s.csv
expect_eq "sort CSV has every row" "$(grep -Ec ',(uniform|few|sorted|narrow),2048,' s.csv || true)" \
  "$((32 - 8 * skipped))"

run "$CLSCAN" tune --log2 12 --reps 3
expect_status "tiny tune succeeds" 0
check "tune suggests a table row" "none" grep -q '^    {\.vendor = "' stdout.txt
check "tune's row names its values" "no .t = {.seed_wg = N, ...}" \
  grep -Eq '\.t = \{\.seed_wg = [0-9]+,' stdout.txt

# The suggested rows are C that the table in src/tuning.c takes: paste them into a copy of the
# file, at the top of the table, and compile it (where a C compiler and the build's generated
# headers are at hand).
gen_dir=$(dirname "$CLSCAN")/generated/include
cc=${CC:-cc}
if command -v "$cc" >/dev/null && [[ -f $gen_dir/clscan_version.h && -f $SRC_DIR/src/tuning.c ]]; then
  sed -n '/^Suggested rows/,$p' stdout.txt | tail -n +2 >rows.txt
  awk -v rows=rows.txt '{ print } /^static const tuning_row table\[\] = \{$/ {
    while ((getline line < rows) > 0) print line }' "$SRC_DIR/src/tuning.c" >tuning_pasted.c
  expect_eq "the rows go into the table" \
    "$(($(grep -c '\.vendor = ' "$SRC_DIR/src/tuning.c") + $(grep -c '\.vendor = ' rows.txt)))" \
    "$(grep -c '\.vendor = ' tuning_pasted.c)"
  check "tune's rows compile in src/tuning.c" "compile errors (above)" \
    "$cc" -std=c11 -fsyntax-only -Wall -Wextra -Werror -Wno-unused-parameter -I"$SRC_DIR/include" \
    -I"$gen_dir" -I"$SRC_DIR/src" -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 \
    tuning_pasted.c
else
  echo "skip compiling tune's rows: no C compiler ($cc) or no generated headers in $gen_dir"
fi

echo
if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
