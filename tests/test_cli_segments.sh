#!/usr/bin/env bash
# Tests of the clscan program's segments by offsets (--segment-offsets), by-key scans of every
# key type (--keys with --key-type) and batched scans (--rows, --columns): results against values
# worked out by hand, and the usage errors.
# Usage: tests/test_cli_segments.sh PATH/TO/clscan
set -euo pipefail
CLI_TEST_NAME=cli-segments
# shellcheck source=cli_harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_harness.sh"

# joined FILE: the file's lines joined by spaces.
joined() { xargs <"$1"; }

printf '%s\n' 1 2 3 4 5 6 >in.txt
# Segments [0, 2), [2, 2) (empty), [2, 5), [5, 6).
printf '%s\n' 0 2 2 5 6 >off.txt
run "$CLSCAN" scan --segment-offsets off.txt in.txt out.txt
expect_status "--segment-offsets succeeds" 0
expect_eq "offsets with an empty segment" "$(joined out.txt)" "1 3 3 7 12 6"
run "$CLSCAN" scan --segment-offsets off.txt --key-type uint64 --exclusive --init 10 in.txt out.txt
expect_eq "uint64 offsets, exclusive from init" "$(joined out.txt)" "10 11 10 13 17 10"
printf '%s\n' 0 6 >one.txt
run "$CLSCAN" scan --segment-offsets one.txt in.txt out.txt
expect_eq "one segment is the whole scan" "$(joined out.txt)" "1 3 6 10 15 21"
printf '%s\n' 0 2 5 >short.txt
run "$CLSCAN" scan --segment-offsets short.txt in.txt out.txt
expect_status "offsets that end before n fail" 1
expect_stderr "the short offsets are named" "end at 5"
printf '%s\n' 0 3 2 6 >down.txt
run "$CLSCAN" scan --segment-offsets down.txt in.txt out.txt
expect_status "decreasing offsets fail" 1
expect_stderr "the decreasing offset is named" "offsets\[2\]"
run "$CLSCAN" scan --segment-offsets off.txt --key-type float in.txt out.txt
expect_status "float offsets are a usage error" 2
run "$CLSCAN" scan --segment-offsets off.txt --keys off.txt in.txt out.txt
expect_status "offsets and keys together are a usage error" 2

# Keys of every type: float keys compare as values (-0 equals 0, NaN equals nothing).
printf '%s\n' 1.5 1.5 -0 0 nan nan >kf.txt
run "$CLSCAN" scan --keys kf.txt --key-type float in.txt out.txt
expect_eq "float keys" "$(joined out.txt)" "1 3 3 7 5 6"
printf '%s\n' -1 -1 7 7 7 -1 >k8.txt
for t in int8 int16 int32 int64; do
  run "$CLSCAN" scan --keys k8.txt --key-type "$t" in.txt out.txt
  expect_eq "$t keys" "$(joined out.txt)" "1 3 3 7 12 6"
done
printf '%s\n' 200 200 7 7 7 200 >ku.txt
for t in uint8 uint16 uint32 uint64 double; do
  run "$CLSCAN" scan --keys ku.txt --key-type "$t" in.txt out.txt
  expect_eq "$t keys" "$(joined out.txt)" "1 3 3 7 12 6"
done

# Batched rows and columns of the 2 x 3 matrix 1 2 3 / 4 5 6.
run "$CLSCAN" scan --rows 2 in.txt out.txt
expect_eq "--rows 2" "$(joined out.txt)" "1 3 6 4 9 15"
run "$CLSCAN" scan --rows 2 --columns --exclusive in.txt out.txt
expect_eq "--rows 2 --columns, exclusive" "$(joined out.txt)" "0 0 0 1 2 3"
run "$CLSCAN" scan --rows 3 --columns --op max in.txt out.txt
expect_eq "--rows 3 --columns, max" "$(joined out.txt)" "1 2 3 4 5 6"
run "$CLSCAN" scan --rows 4 in.txt out.txt
expect_status "rows that do not divide n fail" 1
run "$CLSCAN" scan --columns in.txt out.txt
expect_status "--columns without --rows is a usage error" 2
run "$CLSCAN" scan --rows 2 --flags in.txt in.txt out.txt
expect_status "--rows with segments is a usage error" 2
run "$CLSCAN" reduce --segment-offsets off.txt in.txt
expect_status "reduce refuses --segment-offsets" 2

# The bench variants verify every result before and after timing.
for v in offsets rows; do
  run "$CLSCAN" bench --variant "$v" --types int32 --min-log2 10 --max-log2 11 \
    --algorithms single-pass,blelloch
  expect_status "bench --variant $v succeeds" 0
  check "bench --variant $v: results verified" "a WRONG RESULT" bash -c '! grep -q WRONG stdout.txt stderr.txt'
done

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
