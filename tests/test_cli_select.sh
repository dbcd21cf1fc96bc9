#!/usr/bin/env bash
# Tests of the clscan program's selection commands (tools/clscan/cli_select.c): select, partition,
# unique and rle on text and binary files, hand cases and random inputs checked against awk and
# uniq (a second method), the count and lengths files, partition into two files (--rejected, also
# with --arg), every algorithm, and bad input (usage errors exit 2, bad files and sources exit 1,
# each with a message and no output file written or changed). The bench rows of the selection
# family are checked at the end.
# Usage: tests/test_cli_select.sh PATH/TO/clscan
set -euo pipefail

CLI_TEST_NAME=cli-select-test
# shellcheck source=tests/cli_harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_harness.sh"

words() { tr ' ' '\n' <<<"$2" >"$1"; }

# What the default device runs, from `clscan devices` (the block of the device marked *): a device
# without fp64 (rusticl's llvmpipe) must refuse double with exit status 1 and "the device lacks a
# capability", which is then checked instead of a result. The selections' single pass runs on
# every device (with 32-bit status words where 64-bit atomics are missing).
"$CLSCAN" devices >devices.txt
default_device=$(awk '/^\* /{on=1; print; next} /^( +[0-9]+:[0-9]+ |Platform )/{on=0} on' devices.txt)
has_fp64=0
grep -Eq '^ +fp64 +yes' <<<"$default_device" && has_fp64=1

# refused NAME COMMAND ARGS...: checks that a command the device cannot run is refused.
refused() {
  local name=$1
  shift
  run "$CLSCAN" "$@"
  expect_status "$name: refused by this device (exit 1)" 1
  expect_stderr "$name: says what the device lacks" "the device lacks a capability"
}

# joined FILE: the file's lines on one line, separated by spaces.
joined() { paste -sd' ' - <"$1"; }

# int32s FILE: a binary file's little-endian int32 elements on one line, separated by spaces.
int32s() { od -An -v -td4 "$1" | xargs; }

# to_int32 TEXT BIN: writes the text file's integers (one a line) as little-endian int32 to BIN,
# through awk and printf rather than clscan.
to_int32() {
  # shellcheck disable=SC2059 # the format is the escapes awk writes
  printf "$(awk '{ v = $1 < 0 ? $1 + 4294967296 : $1
    printf "\\%03o\\%03o\\%03o\\%03o", v % 256, int(v / 256) % 256, int(v / 65536) % 256,
      int(v / 16777216) }' "$1")" >"$2"
}

# partitioned NAME "NUMBERS" "WANT_OUT" "WANT_REJECTED" ARGS...: runs `partition ARGS... --rejected
# rej.txt` on the numbers (one a line, in in.txt) into out.txt and checks both files' lines, joined
# by spaces.
partitioned() {
  local name=$1 input=$2 want_out=$3 want_rej=$4
  shift 4
  words in.txt "$input"
  rm -f out.txt rej.txt
  run "$CLSCAN" partition "$@" --rejected rej.txt in.txt out.txt
  if [[ $status -ne 0 ]]; then
    bad "$name" "exit status $status"
    return
  fi
  expect_eq "$name: OUT" "$(joined out.txt)" "$want_out"
  expect_eq "$name: --rejected" "$(joined rej.txt)" "$want_rej"
}

# selected NAME "NUMBERS" "WANT" COMMAND ARGS...: runs a selection command on the numbers (one
# a line, in in.txt) into out.txt and checks the output's lines, joined by spaces.
selected() {
  local name=$1 input=$2 want=$3
  shift 3
  words in.txt "$input"
  rm -f out.txt
  run "$CLSCAN" "$@" in.txt out.txt
  if [[ $status -ne 0 ]]; then
    bad "$name" "exit status $status"
    return
  fi
  expect_eq "$name" "$(joined out.txt)" "$want"
}

# ---------------------------------------------------------------------------------------------
echo "# help"
for cmd in select partition unique rle; do
  run "$CLSCAN" "$cmd" --help
  expect_status "$cmd --help succeeds" 0
  check "$cmd --help prints its usage" "no usage" grep -q "^Usage: clscan $cmd" stdout.txt
  check "$cmd --help documents --count" "no --count" grep -q -- "--count FILE" stdout.txt
  run "$CLSCAN" --help
  check "the program's usage lists $cmd" "not listed" grep -Eq "^  $cmd +" stdout.txt
done

# ---------------------------------------------------------------------------------------------
echo "# select: hand cases"
words f5.txt "1 0 1 0 1"
selected "select by flags" "3 1 4 1 5" "3 4 5" select --flags f5.txt
selected "select by predicate (x)" "3 1 4 1 5" "3 4 5" select --predicate 'x > 2'
selected "select by predicate (i)" "3 1 4 1 5" "3 4 5" select --predicate '(i & 1) == 0'
selected "select by a predicate body" "3 1 4 1 5 6" "4 6" select \
  --predicate '{ return (x & 1) == 0; }'
words none5.txt "0 0 0 0 0"
selected "select none" "3 1 4 1 5" "" select --flags none5.txt
words all5.txt "1 1 1 1 1"
selected "select all" "3 1 4 1 5" "3 1 4 1 5" select --flags all5.txt
selected "select one element" "7" "7" select --predicate 'x == 7'
selected "select of uint64 at the limit" "18446744073709551615 0 18446744073709551614" \
  "18446744073709551615 18446744073709551614" select --type uint64 --predicate 'x > 1'
selected "select of int8" "-128 127 -1 5" "-128 -1" select --type int8 --predicate 'x < 0'
if [[ $has_fp64 == 1 ]]; then
  selected "select of double keeps the bits" "0.1 -2.5 0.5" "0.10000000000000001 0.5" \
    select --type double --predicate 'x > 0'
else
  words in.txt "0.1 -2.5 0.5"
  refused "select of double" select --type double --predicate 'x > 0' in.txt out.txt
fi
selected "select of a map (out-type)" "1 2 3" "200 300" select --type uint8 --out-type uint32 \
  --map-source 'x * 100' --predicate 'x >= 200'
words in.txt "3 1 4 1 5"
run "$CLSCAN" select --flags f5.txt --count count.txt in.txt out.txt
expect_status "select with --count succeeds" 0
expect_eq "--count holds the number selected" "$(cat count.txt)" "3"
# Standard error is a pipe here, as on a terminal, so /dev/stderr is written in place.
got=$("$CLSCAN" select --predicate 'x > 2' --count /dev/stderr in.txt 2>&1 >stdout.txt) ||
  got="(exit status $?)"
expect_eq "--count /dev/stderr keeps stdout to the elements" "$(joined stdout.txt)" "3 4 5"
expect_eq "--count /dev/stderr writes the count there" "$got" "3"
run "$CLSCAN" select --predicate 'x > 2' - out.txt <in.txt
expect_eq "select reads standard input" "$(joined out.txt)" "3 4 5"
: >empty.txt
run "$CLSCAN" select --flags empty.txt --count count0.txt empty.txt empty.out
expect_status "empty input succeeds" 0
check "empty input, empty output" "empty.out missing or not empty" \
  test -f empty.out -a ! -s empty.out
expect_eq "empty input, count 0" "$(cat count0.txt)" "0"

echo "# select: binary"
printf '\003\000\000\000\001\000\000\000\004\000\000\000\001\000\000\000\005\000\000\000' >in.bin
printf '\001\000\002\000\377' >flags.bin
run "$CLSCAN" select --format binary --flags flags.bin --count c8.bin in.bin out.bin
expect_status "binary select succeeds" 0
expect_eq "any non-zero binary flag selects" "$(od -An -td4 out.bin | xargs)" "3 4 5"
expect_eq "binary count: 8 bytes by default" "$(od -An -tu8 c8.bin | xargs) $(stat -c %s c8.bin)" \
  "3 8"
run "$CLSCAN" select --format binary --flags flags.bin --count-size 4 --count c4.bin in.bin out.bin
expect_eq "binary count of --count-size 4" "$(od -An -tu4 c4.bin | xargs) $(stat -c %s c4.bin)" \
  "3 4"
printf '\375\377\001\000\004\000' >in16.bin
run "$CLSCAN" select --format=binary --type int16 --predicate 'x != 1' in16.bin out16.bin
expect_eq "binary int16 select" "$(od -An -td2 out16.bin | xargs)" "-3 4"

# ---------------------------------------------------------------------------------------------
echo "# partition"
words fp.txt "0 1 1 0 0"
selected "partition by flags: selected, then rejected in order" "3 1 4 1 5" "1 4 3 1 5" \
  partition --flags fp.txt
selected "partition by predicate" "6 1 4 9 5 2" "6 4 2 1 9 5" partition --predicate 'x % 2 == 0'
selected "partition, none selected" "3 1 4" "3 1 4" partition --predicate 'x > 100'
words in.txt "6 1 4 9 5 2"
run "$CLSCAN" partition --predicate 'x % 2 == 0' --count pc.txt in.txt out.txt
expect_eq "partition --count: where the rejected part starts" "$(cat pc.txt)" "3"

echo "# partition --reverse-rejected: the rejected elements last to first after the selected ones"
selected "reversed by flags" "3 1 4 1 5" "1 4 5 1 3" partition --flags fp.txt --reverse-rejected
selected "reversed by predicate" "6 1 4 9 5 2" "6 4 2 5 9 1" partition --predicate 'x % 2 == 0' \
  --reverse-rejected
selected "reversed, none selected" "3 1 4" "4 1 3" partition --predicate 'x > 100' \
  --reverse-rejected
words all3.txt "1 1 1"
selected "reversed, all selected" "3 1 4" "3 1 4" partition --flags all3.txt --reverse-rejected
selected "reversed with --arg (a scalar; a plan on the device)" "6 1 4 9 5 2" "6 9 5 2 4 1" \
  partition --predicate 'x >= lim' --arg lim=scalar:int32:5 --reverse-rejected
words in.txt "6 1 4 9 5 2"
run "$CLSCAN" partition --predicate 'x % 2 == 0' --reverse-rejected --count pr.txt in.txt out.txt
expect_eq "--reverse-rejected --count: where the rejected part starts" "$(cat pr.txt)" "3"

echo "# partition --rejected: the selected elements to OUT, the rejected ones to FILE"
partitioned "two files by flags" "3 1 4 1 5" "1 4" "3 1 5" --flags fp.txt
partitioned "two files by predicate" "6 1 4 9 5 2" "6 4 2" "1 9 5" --predicate 'x % 2 == 0'
partitioned "two files by index" "6 1 4 9 5 2" "1 9 2" "6 4 5" --predicate 'i % 2 == 1'
partitioned "two files, none selected" "3 1 4" "" "3 1 4" --predicate 'x > 100'
partitioned "two files, all selected" "3 1 4" "3 1 4" "" --flags all3.txt
partitioned "two files of a map (out-type)" "1 2 3" "200 300" "100" --type uint8 \
  --out-type uint32 --map-source 'x * 100' --predicate 'x >= 200'
partitioned "two files of int64 at the limits" "-9223372036854775808 9223372036854775807 0" \
  "9223372036854775807" "-9223372036854775808 0" --type int64 --predicate 'x > 0'
partitioned "two files with --arg (a scalar)" "6 1 4 9 5 2" "6 9 5" "1 4 2" \
  --predicate 'x >= lim' --arg lim=scalar:int32:5
words keep6.txt "1 0 0 1 1 0"
partitioned "two files with --arg (a buffer)" "6 1 4 9 5 2" "6 9 5" "1 4 2" \
  --predicate 'keep[i] != 0' --arg keep=buffer:uint8:keep6.txt
words in.txt "6 1 4 9 5 2"
run "$CLSCAN" partition --predicate 'x % 2 == 0' --count pc2.txt --rejected rej.txt in.txt out.txt
expect_eq "--rejected with --count: the number selected" "$(cat pc2.txt)" "3"
run "$CLSCAN" partition --predicate 'x % 2 == 0' --rejected - in.txt out.txt
expect_eq "--rejected - writes the rejected elements to standard output" "$(joined stdout.txt)" \
  "1 9 5"
expect_eq "--rejected -: the selected ones to OUT" "$(joined out.txt)" "6 4 2"
run "$CLSCAN" partition --predicate 'x % 2 == 0' --rejected rej.txt in.txt
expect_eq "--rejected, OUT standard output: the selected ones there" "$(joined stdout.txt)" \
  "6 4 2"
expect_eq "--rejected, OUT standard output: the rejected ones to FILE" "$(joined rej.txt)" "1 9 5"
printf 'old contents, longer than the result\n' >rej.txt
run "$CLSCAN" partition --predicate 'x % 2 == 0' --rejected=rej.txt in.txt out.txt
expect_eq "--rejected=FILE replaces an existing FILE" "$(joined rej.txt)" "1 9 5"
# empty_two NAME ARGS...: runs `partition ARGS... --rejected` on the empty input, which must write
# two empty files and a count of 0.
empty_two() {
  local name=$1
  shift
  rm -f out0.txt rej0.txt c0.txt
  run "$CLSCAN" partition "$@" --count c0.txt --rejected rej0.txt empty.txt out0.txt
  check "$name: exit 0, count 0" "status $status, count '$(cat c0.txt 2>/dev/null)'" \
    test $status -eq 0 -a "$(cat c0.txt 2>/dev/null)" == 0
  check "$name: OUT is an empty file" "out0.txt missing or not empty" is_empty_file out0.txt
  check "$name: FILE is an empty file" "rej0.txt missing or not empty" is_empty_file rej0.txt
}
empty_two "empty input by predicate" --predicate 'x > 0'
empty_two "empty input by flags" --flags empty.txt
empty_two "empty input with --arg" --predicate 'x > lim' --arg lim=scalar:int32:0

echo "# partition --rejected: binary"
run "$CLSCAN" partition --format binary --flags flags.bin --count pcb.bin --rejected rej.bin \
  in.bin out.bin
expect_status "binary partition into two files succeeds" 0
expect_eq "binary: the selected elements (any non-zero flag) to OUT" "$(int32s out.bin)" "3 4 5"
expect_eq "binary: the rejected elements to FILE" "$(int32s rej.bin)" "1 1"
expect_eq "binary: the count" "$(od -An -tu8 pcb.bin | xargs)" "3"
run "$CLSCAN" partition --format binary --type int16 --predicate 'x != 1' --rejected rej16.bin \
  in16.bin out16.bin
expect_eq "binary int16: OUT" "$(od -An -td2 out16.bin | xargs)" "-3 4"
expect_eq "binary int16: FILE in the same format" \
  "$(od -An -td2 rej16.bin | xargs) $(stat -c %s rej16.bin)" "1 2"
printf '\001\002\003' >in8.bin
run "$CLSCAN" partition --format binary --type uint8 --out-type uint32 --map-source 'x * 100' \
  --predicate 'x >= 200' --rejected rejm.bin in8.bin outm.bin
expect_eq "binary map: FILE holds --out-type elements" \
  "$(od -An -tu4 outm.bin | xargs) / $(od -An -tu4 rejm.bin | xargs) $(stat -c %s rejm.bin)" \
  "200 300 / 100 4"
run "$CLSCAN" partition --format binary --predicate 'x > lim' --arg lim=scalar:int32:3 \
  --rejected reja.bin in.bin outa.bin
expect_eq "binary with --arg: OUT and FILE" "$(int32s outa.bin) / $(int32s reja.bin)" \
  "4 5 / 3 1 1"
: >empty.bin
run "$CLSCAN" partition --format binary --flags empty.bin --rejected rej0.bin empty.bin out0.bin
check "binary empty input: two empty files" "status $status, or a file missing or not empty" \
  test $status -eq 0 -a -f out0.bin -a ! -s out0.bin -a -f rej0.bin -a ! -s rej0.bin

# ---------------------------------------------------------------------------------------------
echo "# unique"
selected "unique" "1 1 2 2 2 3 1 1" "1 2 3 1" unique
selected "unique of one element" "9" "9" unique
selected "unique, all equal" "4 4 4 4" "4" unique
selected "unique with --equal" "11 12 25 29 31" "11 25 31" unique --equal 'a / 10 == b / 10'
selected "unique of floats (-0 equals 0, NaN equals nothing)" "-0 0 nan nan 1 1" "-0 nan nan 1" \
  unique --type float
words in.txt "1 1 2 2 2 3 1 1"
run "$CLSCAN" unique --count uc.txt in.txt out.txt
expect_eq "unique --count" "$(cat uc.txt)" "4"

# ---------------------------------------------------------------------------------------------
echo "# rle"
words in.txt "5 5 5 7 5"
run "$CLSCAN" rle --count rc.txt in.txt out.txt
expect_status "rle succeeds" 0
expect_eq "rle text: value and length per line" "$(paste -sd';' - <out.txt)" "5 3;7 1;5 1"
expect_eq "rle --count: the number of runs" "$(cat rc.txt)" "3"
run "$CLSCAN" rle --lengths lens.txt in.txt vals.txt
expect_eq "rle --lengths: the values" "$(joined vals.txt)" "5 7 5"
expect_eq "rle --lengths: the lengths" "$(joined lens.txt)" "3 1 1"
printf '\005\000\005\000\005\000\007\000\005\000' >in5.bin
run "$CLSCAN" rle --format binary --type int16 --count-size 4 --lengths lens.bin --count rc.bin \
  in5.bin vals.bin
expect_status "binary rle succeeds" 0
expect_eq "binary rle values" "$(od -An -td2 vals.bin | xargs)" "5 7 5"
expect_eq "binary rle lengths (uint32)" "$(od -An -tu4 lens.bin | xargs) $(stat -c %s lens.bin)" \
  "3 1 1 12"
expect_eq "binary rle count (uint32)" "$(od -An -tu4 rc.bin | xargs)" "3"
run "$CLSCAN" rle --format binary --type int16 --lengths lens8.bin in5.bin vals.bin
expect_eq "binary rle lengths (uint64 by default)" "$(od -An -tu8 lens8.bin | xargs)" "3 1 1"
selected "rle with --equal" "10 11 20 35 36" "10 2 20 1 35 2" rle --equal 'a / 10 == b / 10'

# ---------------------------------------------------------------------------------------------
echo "# random inputs against awk and uniq, every algorithm"
awk 'BEGIN { srand(20261201); for (i = 0; i < 5000; i++) print int(rand() * 2000) - 1000 }' \
  >rand.txt
awk 'BEGIN { srand(7); for (i = 0; i < 5000; i++) print (rand() < 0.3) ? 1 : 0 }' >rflags.txt
# Runs of random length (mean about 4) of values 0..3, neighbours possibly equal.
awk 'BEGIN { srand(11); while (n < 5000) { v = int(rand() * 4); l = 1 + int(rand() * 7);
  for (j = 0; j < l && n < 5000; j++) { print v; n++ } } }' >runs.txt
want_flags=$(paste rand.txt rflags.txt | awk '$2 == 1 { print $1 }' | paste -sd' ' -)
want_pred=$(awk '$1 % 3 == 0' rand.txt | paste -sd' ' -)
want_part=$( (paste rand.txt rflags.txt | awk '$2 == 1 { print $1 }'
  paste rand.txt rflags.txt | awk '$2 == 0 { print $1 }') | paste -sd' ' -)
want_sel_flags=$want_flags
want_rej_flags=$(paste rand.txt rflags.txt | awk '$2 == 0 { print $1 }' | paste -sd' ' -)
want_rej_pred=$(awk '$1 % 3 != 0' rand.txt | paste -sd' ' -)
want_unique=$(uniq runs.txt | paste -sd' ' -)
want_rle=$(uniq -c runs.txt | awk '{ print $2 " " $1 }' | paste -sd';' -)
algos=(auto blelloch hillis-steele reduce-then-scan single-pass)
for algo in "${algos[@]}"; do
  run "$CLSCAN" select --algorithm "$algo" --flags rflags.txt rand.txt out.txt
  check "5000 random, select by flags ($algo)" "differs from awk" \
    test "$(joined out.txt)" == "$want_flags"
  run "$CLSCAN" select --algorithm "$algo" --predicate 'x % 3 == 0' rand.txt out.txt
  check "5000 random, select by predicate ($algo)" "differs from awk" \
    test "$(joined out.txt)" == "$want_pred"
  run "$CLSCAN" partition --algorithm "$algo" --flags rflags.txt rand.txt out.txt
  check "5000 random, partition ($algo)" "differs from awk" \
    test "$(joined out.txt)" == "$want_part"
  run "$CLSCAN" partition --algorithm "$algo" --flags rflags.txt --rejected rej.txt rand.txt out.txt
  check "5000 random, partition --rejected by flags ($algo)" "differs from awk" \
    test "$(joined out.txt)" == "$want_sel_flags" -a "$(joined rej.txt)" == "$want_rej_flags"
  run "$CLSCAN" partition --algorithm "$algo" --predicate 'x % 3 == 0' --rejected rej.txt rand.txt \
    out.txt
  check "5000 random, partition --rejected by predicate ($algo)" "differs from awk" \
    test "$(joined out.txt)" == "$want_pred" -a "$(joined rej.txt)" == "$want_rej_pred"
  run "$CLSCAN" partition --algorithm "$algo" --predicate 'x % m == 0' --arg m=scalar:int32:3 \
    --rejected rej.txt rand.txt out.txt
  check "5000 random, partition --rejected with --arg ($algo)" "differs from awk" \
    test "$(joined out.txt)" == "$want_pred" -a "$(joined rej.txt)" == "$want_rej_pred"
  run "$CLSCAN" unique --algorithm "$algo" runs.txt out.txt
  check "5000 in runs, unique ($algo)" "differs from uniq" \
    test "$(joined out.txt)" == "$want_unique"
  run "$CLSCAN" rle --algorithm "$algo" --count-size 4 runs.txt out.txt
  check "5000 in runs, rle ($algo)" "differs from uniq -c" \
    test "$(paste -sd';' - <out.txt)" == "$want_rle"
done

echo "# larger inputs (many tiles) against awk and uniq, and maps with unique and rle"
awk 'BEGIN { srand(5); for (i = 0; i < 300000; i++) print int(rand() * 100) }' >big.txt
awk 'BEGIN { srand(6); for (i = 0; i < 300000; i++) print (rand() < 0.5) ? 1 : 0 }' >bigflags.txt
run "$CLSCAN" select --flags bigflags.txt --count bc.txt big.txt out.txt
check "300000 random, select by flags" "differs from awk" \
  cmp -s out.txt <(paste big.txt bigflags.txt | awk '$2 == 1 { print $1 }')
expect_eq "300000 random, the count" "$(cat bc.txt)" "$(grep -c '^1$' bigflags.txt)"
# x / 25 maps the random values 0..99 onto 0..3, so that runs of equal elements form.
run "$CLSCAN" rle --map-source 'x / 25' big.txt out.txt
check "300000 random, rle of a map" "differs from uniq -c" \
  cmp -s out.txt <(awk '{ print int($1 / 25) }' big.txt | uniq -c | awk '{ print $2 " " $1 }')
run "$CLSCAN" unique --equal 'a / 25 == b / 25' big.txt out.txt
check "300000 random, unique by --equal keeps each run's first element" "differs from awk" \
  cmp -s out.txt <(awk 'NR == 1 || int($1 / 25) != k { print } { k = int($1 / 25) }' big.txt)
echo "# partition --rejected: random binary input, binary flags, larger inputs"
to_int32 rand.txt rand.bin
# Binary flags: a random non-zero byte selects, 0 rejects.
awk 'BEGIN { srand(9) } { printf "\\%03o", $1 ? 1 + int(rand() * 255) : 0 }' rflags.txt \
  >rflags.esc
# shellcheck disable=SC2059 # the format is the escapes awk wrote
printf "$(cat rflags.esc)" >rflags.bin
for algo in single-pass reduce-then-scan; do
  run "$CLSCAN" partition --format binary --algorithm "$algo" --flags rflags.bin \
    --rejected rej.bin rand.bin out.bin
  check "5000 random binary, by binary flags ($algo)" "differs from awk" \
    test "$(int32s out.bin)" == "$want_sel_flags" -a "$(int32s rej.bin)" == "$want_rej_flags"
  run "$CLSCAN" partition --format binary --algorithm "$algo" --predicate 'x % 3 == 0' \
    --rejected rej.bin rand.bin out.bin
  check "5000 random binary, by predicate ($algo)" "differs from awk" \
    test "$(int32s out.bin)" == "$want_pred" -a "$(int32s rej.bin)" == "$want_rej_pred"
  run "$CLSCAN" partition --format binary --algorithm "$algo" --predicate 'keep[i] != 0' \
    --arg keep=buffer:uint8:rflags.bin --rejected rej.bin rand.bin out.bin
  check "5000 random binary, by a --arg buffer ($algo)" "differs from awk" \
    test "$(int32s out.bin)" == "$want_sel_flags" -a "$(int32s rej.bin)" == "$want_rej_flags"
  run "$CLSCAN" partition --algorithm "$algo" --flags bigflags.txt --count bpc.txt \
    --rejected rej.txt big.txt out.txt
  check "300000 random, partition --rejected: OUT ($algo)" "differs from awk" \
    cmp -s out.txt <(paste big.txt bigflags.txt | awk '$2 == 1 { print $1 }')
  check "300000 random, partition --rejected: FILE ($algo)" "differs from awk" \
    cmp -s rej.txt <(paste big.txt bigflags.txt | awk '$2 == 0 { print $1 }')
  expect_eq "300000 random, partition --rejected: count ($algo)" "$(cat bpc.txt)" \
    "$(grep -c '^1$' bigflags.txt)"
done

for cmd in partition unique rle; do
  extra=()
  [[ $cmd == partition ]] && extra=(--predicate 'x > 0')
  run "$CLSCAN" "$cmd" "${extra[@]}" --count c0.txt empty.txt empty.out
  check "$cmd of an empty input: empty output, count 0" "status $status or output not empty" \
    test $status -eq 0 -a -f empty.out -a ! -s empty.out -a "$(cat c0.txt)" == 0
done

# ---------------------------------------------------------------------------------------------
echo "# bad input: message, exit status, no OUT (nor --count, --lengths), an existing OUT unchanged"
printf 'precious\n' >kept.orig
# refused INPUT NAME PATTERN WANT_STATUS COMMAND ARGS...: runs the command into new files OUT,
# count and lengths, which must fail with WANT_STATUS and a message matching PATTERN, and leave
# none of them; then again over an existing OUT, which must stay byte-identical.
refused() {
  local input=$1 name=$2 pattern=$3 want=$4 cmd=$5
  shift 5
  rm -f rejected.out rejected.count rejected.lengths
  local extra=(--count rejected.count)
  [[ $cmd == rle ]] && extra+=(--lengths rejected.lengths)
  run "$CLSCAN" "$cmd" "$@" "${extra[@]}" "$input" rejected.out
  expect_status "$name: exit $want" "$want"
  expect_stderr "$name: explained" "$pattern"
  check "$name: no OUT, count or lengths file" "an output exists" \
    test ! -e rejected.out -a ! -e rejected.count -a ! -e rejected.lengths
  cp kept.orig kept.txt
  run "$CLSCAN" "$cmd" "$@" "$input" kept.txt
  expect_status "$name (existing OUT): exit $want" "$want"
  check "$name: existing OUT unchanged" "kept.txt changed" cmp -s kept.txt kept.orig
}
words five.txt "3 1 4 1 5"
words f3.txt "1 0 1"
words f2bad.txt "1 2 0 0 0"
words fbad.txt "1 x 0 0 0"
refused five.txt "unknown option" "unknown option '--frobnicate'" 2 select --frobnicate \
  --flags f5.txt
refused five.txt "select without --flags or --predicate" "needs --flags FILE or --predicate" 2 \
  select
refused five.txt "partition without --flags or --predicate" "needs --flags FILE or --predicate" \
  2 partition
refused five.txt "--reverse-rejected for unique" "--reverse-rejected is only used by partition" \
  2 unique --reverse-rejected
refused five.txt "--flags with --predicate" "--flags and --predicate cannot be combined" 2 select \
  --flags f5.txt --predicate 'x > 0'
refused five.txt "--predicate for unique" "--predicate is only used by select and partition" 2 \
  unique --predicate 'x > 0'
refused five.txt "--flags for rle" "--flags is only used by select and partition" 2 rle \
  --flags f5.txt
refused five.txt "--equal for select" "--equal is only used by unique and rle" 2 select \
  --flags f5.txt --equal 'a == b'
refused five.txt "--lengths for unique" "--lengths is only used by rle" 2 unique \
  --lengths lens.txt
refused five.txt "--count-size 5" "--count-size: '5' is not 4 or 8" 2 select --flags f5.txt \
  --count-size 5
refused five.txt "unknown --type" "--type: unknown value 'int9'" 2 unique --type int9
refused five.txt "unknown --algorithm" "--algorithm: unknown value 'quick'" 2 unique \
  --algorithm quick
refused - "flags and input both from standard input" "cannot both be standard input" 2 select \
  --flags -
refused five.txt "fewer flags than elements" "holds 3 flags, the input 5 elements" 1 select \
  --flags f3.txt
words three.txt "1 2 3"
refused three.txt "more flags than elements" "holds 5 flags, the input 3 elements" 1 partition \
  --flags f5.txt
refused five.txt "a text flag of 2" "flags line 2: '2' is not 0 or 1" 1 select --flags f2bad.txt
refused five.txt "a malformed flag" "flags line 2: 'x' is not a valid uint8" 1 select \
  --flags fbad.txt
refused five.txt "a missing flags file" "cannot open flags 'nowhere.txt'" 1 select \
  --flags nowhere.txt
printf '\001\000\001' >flags3.bin
refused in.bin "binary flags of the wrong length" "holds 3 flags, the input 5 elements" 1 \
  select --format binary --flags flags3.bin
printf '1\n2\nabc\n4\n' >badin.txt
refused badin.txt "malformed input" "input line 3: 'abc' is not a valid int32" 1 unique
refused badin.txt "malformed input (rle)" "input line 3: 'abc' is not a valid int32" 1 rle
printf '\001\002\003' >odd.bin
refused odd.bin "truncated binary input" "3 bytes is not a whole number of int16" 1 unique \
  --format binary --type int16
refused five.txt "a predicate that does not compile" "failed to compile" 1 select \
  --predicate 'x +* 1'
expect_stderr "a predicate that does not compile: the build log is printed" "build log"
refused five.txt "an equality that does not compile" "failed to compile" 1 unique \
  --equal 'a == == b'
refused five.txt "a map that does not compile" "failed to compile" 1 partition \
  --predicate 'x > 0' --map-source 'x +'
words in.txt "3 1 4"
run "$CLSCAN" select --flags f5.txt --count out.txt in.txt out.txt
expect_status "--count naming OUT: exit 2" 2
expect_stderr "--count naming OUT: explained" "must be different files"
rm -f rejected.out
run "$CLSCAN" rle --format binary five.txt rejected.out
expect_status "binary rle without --lengths: exit 2" 2
expect_stderr "binary rle without --lengths: explained" "--format binary needs --lengths"
check "binary rle without --lengths: no OUT" "rejected.out exists" test ! -e rejected.out
run "$CLSCAN" rle --lengths - in.txt
expect_status "--lengths and OUT both standard output: exit 2" 2
run "$CLSCAN" select --flags f5.txt five.txt out1.txt extra.txt
expect_status "a third positional argument: exit 2" 2
check "no temporary files left" "$(find . -name '.clscan-*')" test -z "$(find . -name '.clscan-*')"

# ---------------------------------------------------------------------------------------------
echo "# partition --rejected: bad input writes neither OUT nor FILE, existing ones unchanged"
# refused_two INPUT NAME PATTERN WANT_STATUS COMMAND ARGS...: runs the command with --rejected into
# new files OUT and FILE, which must fail with WANT_STATUS and a message matching PATTERN and
# create neither; then again over existing ones, which must stay byte-identical.
refused_two() {
  local input=$1 name=$2 pattern=$3 want=$4 cmd=$5
  shift 5
  rm -f two.out two.rej
  run "$CLSCAN" "$cmd" "$@" --rejected two.rej "$input" two.out
  expect_status "$name: exit $want" "$want"
  expect_stderr "$name: explained" "$pattern"
  check "$name: neither OUT nor FILE written" "an output exists" test ! -e two.out -a ! -e two.rej
  cp kept.orig kept.txt
  cp kept.orig kept.rej
  run "$CLSCAN" "$cmd" "$@" --rejected kept.rej "$input" kept.txt
  expect_status "$name (existing files): exit $want" "$want"
  unchanged_two "$name: existing OUT and FILE unchanged"
}
# unchanged_two NAME: checks that kept.txt and kept.rej still hold kept.orig's bytes.
unchanged_two() {
  if cmp -s kept.txt kept.orig && cmp -s kept.rej kept.orig; then
    ok "$1"
  else
    bad "$1" "kept.txt or kept.rej changed"
  fi
}
for cmd in select unique rle; do
  extra=()
  [[ $cmd == select ]] && extra=(--predicate 'x > 0')
  refused_two five.txt "--rejected for $cmd" "--rejected is only used by partition" 2 "$cmd" \
    "${extra[@]}"
done
refused_two five.txt "--rejected without what selects" "needs --flags FILE or --predicate" 2 \
  partition
refused_two five.txt "--rejected with --reverse-rejected" \
  "--reverse-rejected and --rejected cannot be combined" 2 partition --predicate 'x > 0' \
  --reverse-rejected
refused_two badin.txt "--rejected, malformed input" "input line 3: 'abc' is not a valid int32" 1 \
  partition --predicate 'x > 0'
refused_two five.txt "--rejected, fewer flags than elements" "holds 3 flags, the input 5" 1 \
  partition --flags f3.txt
refused_two in.bin "--rejected, binary flags of the wrong length" "holds 3 flags, the input 5" 1 \
  partition --format binary --flags flags3.bin
refused_two odd.bin "--rejected, truncated binary input" "3 bytes is not a whole number" 1 \
  partition --format binary --type int16 --predicate 'x > 0'
refused_two five.txt "--rejected, a predicate that does not compile" "failed to compile" 1 \
  partition --predicate 'x +* 1'
refused_two five.txt "--rejected, --arg: a predicate that does not compile" "failed to compile" 1 \
  partition --predicate 'x +* lim' --arg lim=scalar:int32:3
refused_two five.txt "--rejected, --arg: a buffer shorter than the input" "holds 3 uint8" 1 \
  partition --predicate 'keep[i] != 0' --arg keep=buffer:uint8:f3.txt
# The same path as OUT, or as --count, or both standard output: usage errors, nothing written.
cp kept.orig kept.txt
cp kept.orig kept.rej
run "$CLSCAN" partition --predicate 'x > 2' --rejected kept.txt five.txt kept.txt
expect_status "--rejected naming OUT: exit 2" 2
expect_stderr "--rejected naming OUT: explained" "OUT and --rejected must be different files"
check "--rejected naming OUT: OUT unchanged" "kept.txt changed" cmp -s kept.txt kept.orig
run "$CLSCAN" partition --predicate 'x > 2' --count kept.rej --rejected kept.rej five.txt kept.txt
expect_status "--rejected naming --count: exit 2" 2
expect_stderr "--rejected naming --count: explained" "--count and --rejected must be different"
unchanged_two "--rejected naming --count: OUT and FILE unchanged"
run "$CLSCAN" partition --predicate 'x > 2' --rejected - five.txt
expect_status "--rejected and OUT both standard output: exit 2" 2
expect_stderr "--rejected and OUT both standard output: explained" "OUT and --rejected must be"
check "--rejected and OUT both standard output: nothing printed" "stdout not empty" \
  is_empty_file stdout.txt
# An output that cannot be created: the other one is not written either.
rm -f two.out two.rej
run "$CLSCAN" partition --predicate 'x > 2' --rejected nowhere/rej.txt five.txt two.out
expect_status "FILE in a missing folder: exit 1" 1
expect_stderr "FILE in a missing folder: explained" "cannot create a temporary file for 'nowhere/"
check "FILE in a missing folder: no OUT" "two.out exists" test ! -e two.out
run "$CLSCAN" partition --predicate 'x > 2' --rejected two.rej five.txt nowhere/out.txt
expect_status "OUT in a missing folder: exit 1" 1
check "OUT in a missing folder: no FILE" "two.rej exists" test ! -e two.rej
check "no temporary files left after --rejected" "$(find . -name '.clscan-*')" \
  test -z "$(find . -name '.clscan-*')"

# ---------------------------------------------------------------------------------------------
echo "# bench --family select"
bench_algo=single-pass
run "$CLSCAN" bench --family select --min-log2 12 --max-log2 12 --reps 2 --seed 5 \
  --algorithms "$bench_algo" --csv s.csv
expect_status "bench of the selection family succeeds" 0
check "bench finds no wrong result" "WRONG or FAILED in stdout" \
  test "$(grep -Ec 'WRONG|FAILED' stdout.txt)" -eq 0
# One row each: select by flags at 0, 1, 10, 50, 90, 99, 100 %, by predicate, partition into one
# buffer, into two (partition-copy) and reversed, unique and rle.
rows=$(grep -Ec "^(select-flags|select-pred|partition|partition-copy|partition-reversed|unique|rle) +\
$bench_algo +int32 +2\\^12 " stdout.txt || true)
expect_eq "bench prints a row per primitive and fraction" "$rows" "13"
expect_eq "CSV has a header and every row" "$(wc -l <s.csv | xargs)" "14"
check "CSV rows name the primitive and fraction" "no select-flags:f=0.5 row" \
  grep -q ',select-flags:f=0.5,' s.csv
check "CSV has the partition into two buffers" "no partition-copy:f=0.5 row" \
  grep -q ',partition-copy:f=0.5,' s.csv
check "CSV has the partition with its rejected part reversed" "no partition-reversed:f=0.5 row" \
  grep -q ',partition-reversed:f=0.5,' s.csv
run "$CLSCAN" bench --family select --min-log2 12 --max-log2 12 --reps 2 --seed 5 \
  --algorithms "$bench_algo" --only unique,select-pred --no-host
expect_status "bench --only --no-host succeeds" 0
rows=$(grep -Ec "^(select-pred|unique) +$bench_algo +int32 +2\\^12 .* -$" stdout.txt || true)
expect_eq "bench --only prints the named primitives, without host times" "$rows" "2"
expect_eq "bench --only prints no other primitive" \
  "$(grep -Ec "^(select-flags|partition|partition-copy|partition-reversed|rle) " stdout.txt ||
    true)" "0"
run "$CLSCAN" bench --family select --only unique,sideways
expect_status "bench --only with an unknown primitive: exit 2" 2
run "$CLSCAN" bench --no-host
expect_status "bench --no-host without --family select: exit 2" 2
run "$CLSCAN" bench --family select --variant map
expect_status "bench --family select with --variant: exit 2" 2
run "$CLSCAN" bench --family sideways
expect_status "bench with an unknown family: exit 2" 2

echo
if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
