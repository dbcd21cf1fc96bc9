#!/usr/bin/env bash
# Tests of the clscan program's extra arguments of user sources (--arg, tools/clscan/cli_args.c):
# buffers, tables and scalars read by maps, operators, predicates and equalities of scan, reduce,
# select, partition, unique and rle, in text and binary, through every algorithm, each result
# checked against awk computing the same thing from the same files; and every bad --arg (usage
# errors exit 2, bad files exit 1, each with a message and no output file written or changed).
# Usage: tests/test_cli_args.sh PATH/TO/clscan
set -euo pipefail

CLI_TEST_NAME=cli-args-test
# shellcheck source=tests/cli_harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_harness.sh"

# What the default device runs (the block of `clscan devices` marked *).
"$CLSCAN" devices >devices.txt
HAS_SP=$(awk '/^\* /{d=1} d && $1 == "algorithms" {print /single-pass/ ? "yes" : "no"; exit}' \
  devices.txt)
HAS_SEL_SP=no
awk '/^\* /{d=1} d && $1 == "64-bit" && $2 == "atomics" {print $3; exit}' devices.txt |
  grep -q yes && HAS_SEL_SP=yes
SEED=${CLSCAN_TEST_SEED:-$RANDOM}
echo "# seed $SEED (CLSCAN_TEST_SEED=$SEED reproduces)"

# joined FILE: the file's lines on one line, separated by spaces.
joined() { paste -sd' ' - <"$1"; }

# result NAME WANT CMD...: runs a command (its output in out.txt) and checks its lines, joined.
result() {
  local name=$1 want=$2
  shift 2
  rm -f out.txt
  run "$@" out.txt
  if [[ $status -ne 0 ]]; then
    bad "$name" "exit status $status"
    return
  fi
  expect_eq "$name" "$(joined out.txt)" "$want"
}

# refused NAME STATUS PATTERN CMD...: runs a command that must fail with STATUS and a message
# matching PATTERN, and must leave its output file (keep.txt, which holds "keep") as it was.
refused() {
  local name=$1 want=$2 pattern=$3
  shift 3
  echo keep >keep.txt
  run "$@" keep.txt
  expect_status "$name: exit $want" "$want"
  expect_stderr "$name: says why" "$pattern"
  check "$name: output unchanged" "keep.txt changed" test "$(cat keep.txt)" == keep
}

# i32_bin: converts decimal int32 lines on stdin to raw little-endian bytes on stdout.
i32_bin() {
  local v b
  while read -r v; do
    ((v < 0)) && v=$((v + 4294967296))
    for b in 0 8 16 24; do
      # shellcheck disable=SC2059
      printf "\\$(printf '%03o' $(((v >> b) & 255)))"
    done
  done
}

# Random int32 inputs in [-1000, 1000], weights in [-9, 9] (one more than the input), flags,
# keys in runs, and the values of the scalars.
N=3000
awk -v s="$SEED" -v n=$N 'BEGIN { srand(s); for (i = 0; i < n; i++) print int(rand() * 2001) - 1000 }' >in.txt
awk -v s="$SEED" -v n=$((N + 1)) 'BEGIN { srand(s + 1); for (i = 0; i < n; i++) print int(rand() * 19) - 9 }' >w.txt
awk -v s="$SEED" -v n=$N 'BEGIN { srand(s + 2); for (i = 0; i < n; i++) print (rand() < 0.01) }' >flags.txt
awk -v s="$SEED" -v n=$N 'BEGIN { srand(s + 3); k = 0; for (i = 0; i < n; i++) { if (rand() < 0.02) k++; print k } }' >keys.txt
S=$(((SEED % 50) - 25))

# ---------------------------------------------------------------------------------------------
echo "# help"
run "$CLSCAN" scan --help
check "scan --help documents --arg" "no --arg" grep -q -- "--arg NAME=KIND:TYPE:V" stdout.txt
run "$CLSCAN" select --help
check "select --help documents --arg" "no --arg" grep -q -- "--arg NAME=KIND:TYPE:V" stdout.txt

# ---------------------------------------------------------------------------------------------
echo "# scan: a buffer and a scalar read by the map"
want=$(paste in.txt <(head -n $N w.txt) | awk -v s="$S" '{ t += $1 * $2 + s; print t }' | paste -sd' ' -)
algos="auto blelloch hillis-steele reduce-then-scan"
[[ $HAS_SP == yes ]] && algos="$algos single-pass"
for algo in $algos; do
  result "map x * w[i] + s, $algo" "$want" "$CLSCAN" scan --algorithm "$algo" \
    --map-source 'x * w[i] + s' --arg w=buffer:int32:w.txt --arg "s=scalar:int32:$S" in.txt
done
want=$(paste in.txt <(head -n $N w.txt) | awk -v s="$S" '{ print t + 5; t += $1 * $2 + s }' | paste -sd' ' -)
result "exclusive with --init" "$want" "$CLSCAN" scan --exclusive --init 5 \
  --map-source 'x * w[i] + s' --arg=w=buffer:int32:w.txt --arg "s=scalar:int32:$S" in.txt
want=$(paste in.txt <(head -n $N w.txt) flags.txt |
  awk '{ if ($3 == 1 || NR == 1) t = 0; t += $1 * $2; print t }' | paste -sd' ' -)
result "segmented by --flags" "$want" "$CLSCAN" scan --flags flags.txt --map-source 'x * w[i]' \
  --arg w=buffer:int32:w.txt in.txt
want=$(paste in.txt keys.txt | awk -v s="$S" '{ if (NR == 1 || $2 != k) t = 0; k = $2; t += $1 + s; print t }' |
  paste -sd' ' -)
result "by --keys" "$want" "$CLSCAN" scan --keys keys.txt --map-source 'x + s' \
  --arg "s=scalar:int32:$S" in.txt
want=$(awk '{ t += $1 * 0.5; printf "%.9g\n", t }' <(head -n 200 w.txt) | paste -sd' ' -)
head -n 200 w.txt >w200.txt
result "a float scalar" "$want" "$CLSCAN" scan --type float --map-source 'x * h' \
  --arg h=scalar:float:0.5 w200.txt
want=$(paste in.txt <(head -n $N w.txt) | awk '{ t += $1 * $2; print t }' | paste -sd' ' -)
result "int64 weights converted in the map" "$want" "$CLSCAN" scan \
  --map-source '(int)(x * w[i])' --arg w=buffer:int64:w.txt in.txt

echo "# scan: a table read by the operator (the symmetric group of 3 points)"
# Permutation p of {0,1,2} is number p; tab[a * 6 + b] is a after b, composed as functions.
awk 'BEGIN {
  split("012 021 102 120 201 210", P, " ")
  for (a = 1; a <= 6; a++) for (b = 1; b <= 6; b++) {
    c = ""
    for (j = 1; j <= 3; j++) c = c substr(P[a], substr(P[b], j, 1) + 1, 1)
    for (k = 1; k <= 6; k++) if (P[k] == c) print k - 1
  }
}' >s3.txt
awk -v s="$SEED" 'BEGIN { srand(s + 4); for (i = 0; i < 2500; i++) print int(rand() * 6) }' >perm.txt
want=$(awk 'NR == FNR { tab[NR - 1] = $1; next } { acc = tab[acc * 6 + $1]; print acc }' s3.txt perm.txt |
  paste -sd' ' -)
for algo in $algos; do
  result "op tab[a * k + b], $algo" "$want" "$CLSCAN" scan --algorithm "$algo" \
    --op-source 'tab[a * k + b]' --identity 0 --arg tab=table:int32:s3.txt \
    --arg k=scalar:int32:6 perm.txt
done

echo "# reduce"
want=$(paste in.txt <(head -n $N w.txt) | awk -v s="$S" '{ t += $1 * $2 + s } END { print t + 7 }')
result "reduce of x * w[i] + s with --init" "$want" "$CLSCAN" reduce --init 7 \
  --map-source 'x * w[i] + s' --arg w=buffer:int32:w.txt --arg "s=scalar:int32:$S" in.txt
want=$(awk 'NR == FNR { tab[NR - 1] = $1; next } { acc = tab[acc * 6 + $1] } END { print acc }' \
  s3.txt perm.txt)
result "reduce by the table" "$want" "$CLSCAN" reduce --op-source 'tab[a * 6 + b]' --identity 0 \
  --arg tab=table:int32:s3.txt perm.txt
: >empty.txt
result "reduce of nothing" "7" "$CLSCAN" reduce --init 7 --map-source 'x * w[i]' \
  --arg w=buffer:int32:empty.txt empty.txt

echo "# binary"
head -n 64 in.txt >in64.txt
head -n 64 w.txt >w64.txt
i32_bin <in64.txt >in64.bin
i32_bin <w64.txt >w64.bin
want=$(paste in64.txt w64.txt | awk -v s="$S" '{ t += $1 * $2 + s; print t }' | paste -sd' ' -)
rm -f out.bin
run "$CLSCAN" scan --format binary --map-source 'x * w[i] + s' --arg w=buffer:int32:w64.bin \
  --arg "s=scalar:int32:$S" in64.bin out.bin
expect_status "binary scan with a binary buffer" 0
expect_eq "binary scan's result" "$(od -An -td4 -v out.bin | xargs)" "$want"
printf '\001\002\003' >three.bin
refused "binary buffer of a broken length" 1 "3 bytes" "$CLSCAN" scan --format binary \
  --map-source 'x * w[i]' --arg w=buffer:int32:three.bin in64.bin

# ---------------------------------------------------------------------------------------------
echo "# selections"
awk -v s="$SEED" -v n=$N 'BEGIN { srand(s + 5); for (i = 0; i < n; i++) print (rand() < 0.5) }' >keep.txt
cp keep.txt keepflags.txt
want=$(paste in.txt keepflags.txt | awk -v s="$S" '$1 >= s && $2 == 1 { print $1 }' | paste -sd' ' -)
nsel=$(paste in.txt keepflags.txt | awk -v s="$S" '$1 >= s && $2 == 1 { c++ } END { print c + 0 }')
salgos="auto reduce-then-scan blelloch"
[[ $HAS_SEL_SP == yes ]] && salgos="$salgos single-pass"
for algo in $salgos; do
  rm -f count.txt
  result "select by x >= limit && keep[i], $algo" "$want" "$CLSCAN" select --algorithm "$algo" \
    --predicate 'x >= limit && keep[i]' --arg keep=buffer:uint8:keepflags.txt \
    --arg "limit=scalar:int32:$S" --count count.txt in.txt
  expect_eq "its count, $algo" "$(cat count.txt)" "$nsel"
done
want=$(paste in.txt keepflags.txt | awk -v s="$S" '{ if ($1 >= s && $2 == 1) print $1; else r[++m] = $1 }
  END { for (k = 1; k <= m; k++) print r[k] }' | paste -sd' ' -)
result "partition by the same predicate" "$want" "$CLSCAN" partition \
  --predicate 'x >= limit && keep[i]' --arg keep=buffer:uint8:keepflags.txt \
  --arg "limit=scalar:int32:$S" in.txt
want=$(paste in.txt flags.txt | awk 'NR == FNR { tab[NR - 1] = $1; next }
  $2 == 1 { print $1 + tab[($1 % 6 + 6) % 6] }' s3.txt - | paste -sd' ' -)
result "select by --flags of a map reading a table" "$want" "$CLSCAN" select --flags flags.txt \
  --map-source 'x + lut[(x % 6 + 6) % 6]' --arg lut=table:int32:s3.txt in.txt
# Runs of values equal when divided by W (the inputs are not negative here).
awk -v s="$SEED" 'BEGIN { srand(s + 6); v = 0; for (i = 0; i < 2000; i++) { v += int(rand() * 3); print v } }' >up.txt
W=$(((SEED % 5) + 2))
want=$(awk -v w="$W" 'NR == 1 || int($1 / w) != p { print $1 } { p = int($1 / w) }' up.txt |
  paste -sd' ' -)
for algo in $salgos; do
  result "unique by a / w == b / w, $algo" "$want" "$CLSCAN" unique --algorithm "$algo" \
    --equal 'a / w == b / w' --arg "w=scalar:int32:$W" up.txt
done
want=$(awk -v w="$W" 'NR > 1 && int($1 / w) != p { print v, c; c = 0 }
  NR == 1 || int($1 / w) != p { v = $1 } { p = int($1 / w); c++ } END { print v, c }' up.txt |
  paste -sd' ' -)
result "rle by a / w == b / w" "$want" "$CLSCAN" rle --equal 'a / w == b / w' \
  --arg "w=scalar:int32:$W" up.txt

# ---------------------------------------------------------------------------------------------
echo "# bad --arg"
head -n 5 in.txt >in5.txt
printf '1\n2\n' >w2.txt
M=(--map-source 'x * w[i]')
refused "unknown type" 2 "'int33' is not a type" "$CLSCAN" scan "${M[@]}" \
  --arg w=buffer:int33:w.txt in5.txt
refused "unknown kind" 2 "kind 'vector' is not buffer, table or scalar" "$CLSCAN" scan \
  "${M[@]}" --arg w=vector:int32:w.txt in5.txt
refused "no type or file" 2 "expected NAME=buffer:TYPE:FILE" "$CLSCAN" scan "${M[@]}" \
  --arg w=buffer:int32 in5.txt
refused "no value after the type" 2 "no value after the type" "$CLSCAN" scan \
  --map-source 'x * w' --arg w=scalar:int32: in5.txt
refused "not an identifier" 2 "must be an OpenCL C identifier" "$CLSCAN" scan "${M[@]}" \
  --arg 1w=buffer:int32:w.txt in5.txt
refused "a scalar that does not parse" 2 "'abc' is not a valid int32" "$CLSCAN" scan \
  --map-source 'x * w' --arg w=scalar:int32:abc in5.txt
refused "a scalar out of range" 2 "'300' is out of range for int8" "$CLSCAN" scan \
  --map-source 'x * w' --arg w=scalar:int8:300 in5.txt
refused "a duplicate name" 2 "an argument named 'w' is already given" "$CLSCAN" scan "${M[@]}" \
  --arg w=buffer:int32:w.txt --arg w=scalar:int32:1 in5.txt
nine=()
for k in 1 2 3 4 5 6 7 8 9; do nine+=(--arg "s$k=scalar:int32:$k"); done
refused "nine arguments" 2 "at most 8 arguments" "$CLSCAN" scan --map-source 'x' "${nine[@]}" in5.txt
refused "a missing file" 1 "cannot open argument w 'nothing.txt'" "$CLSCAN" scan "${M[@]}" \
  --arg w=buffer:int32:nothing.txt in5.txt
refused "a buffer shorter than the input" 1 "holds 2 int32 elements, the input 5" "$CLSCAN" scan \
  "${M[@]}" --arg w=buffer:int32:w2.txt in5.txt
refused "an empty table" 1 "a table needs at least one element" "$CLSCAN" scan \
  --map-source 'x * t[0]' --arg t=table:int32:empty.txt in5.txt
printf '1\n2\nxyz\n' >wbad.txt
refused "a bad line in a buffer" 1 "argument w line 3: 'xyz' is not a valid int32" "$CLSCAN" \
  scan "${M[@]}" --arg w=buffer:int32:wbad.txt in5.txt
printf '7\n-1\n3\n4\n5\n' >wneg.txt
refused "a buffer out of its type's range" 1 "argument w line 2: '-1'" "$CLSCAN" scan "${M[@]}" \
  --arg w=buffer:uint8:wneg.txt in5.txt
refused "nothing reads the arguments (scan)" 2 "--arg needs --map-source or --op-source" \
  "$CLSCAN" scan --arg w=buffer:int32:w.txt in5.txt
refused "nothing reads the arguments (select)" 2 "--arg needs --predicate, --map-source or --equal" \
  "$CLSCAN" select --flags flags.txt --arg w=buffer:int32:w.txt in.txt
refused "nothing reads the arguments (reduce)" 2 "--arg needs --map-source or --op-source" \
  "$CLSCAN" reduce --arg w=buffer:int32:w.txt in5.txt
refused "with --rows" 2 "--arg cannot be combined with --rows" "$CLSCAN" scan "${M[@]}" --rows 1 \
  --arg w=buffer:int32:w.txt in5.txt
printf '0\n5\n' >off.txt
refused "with --segment-offsets" 2 "--arg cannot be combined with --segment-offsets" "$CLSCAN" \
  scan "${M[@]}" --segment-offsets off.txt --arg w=buffer:int32:w.txt in5.txt
echo keep >keep.txt
set +e
"$CLSCAN" scan "${M[@]}" --arg w=buffer:int32:- - keep.txt <in5.txt >stdout.txt 2>stderr.txt
status=$?
set -e
expect_status "two readers of standard input: exit 2" 2
expect_stderr "two readers of standard input: says why" "can be standard input"
check "two readers of standard input: output unchanged" "keep.txt changed" \
  test "$(cat keep.txt)" == keep
refused "a reserved name" 1 "not an identifier user code may use" "$CLSCAN" scan \
  --map-source 'x + i' --arg i=scalar:int32:1 in5.txt
refused "a source naming no argument" 1 "undeclared identifier" "$CLSCAN" select \
  --predicate 'x > nothing' --arg limit=scalar:int32:1 in5.txt
result "a buffer read from standard input" "$(paste in5.txt <(head -n 5 w.txt) |
  awk '{ t += $1 * $2; print t }' | paste -sd' ' -)" "$CLSCAN" scan "${M[@]}" \
  --arg w=buffer:int32:- in5.txt <w.txt

if ((failures > 0)); then
  echo "$failures check(s) failed (seed $SEED)"
  exit 1
fi
echo "all checks passed"
