#!/usr/bin/env bash
# Tests of the clscan program's sort command (tools/clscan/cli_sort.c): text and binary keys of
# several types against sort(1) or Python, descending pairs (stability), the float total order,
# bit ranges, atomic output, usage errors, a tiny verified benchmark, and `bench --family sort
# --cub` (the fraction of CUB's rate from cub_bench's output, and the files it refuses).
# Usage: tests/test_sort_cli.sh PATH/TO/clscan
set -euo pipefail

CLI_TEST_NAME=sort-cli
# shellcheck source=tests/cli_harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_harness.sh"

# Text int32 keys, against sort -n.
awk 'BEGIN { srand(7); for (i = 0; i < 5000; i++) print int(rand() * 2000001) - 1000000 }' >keys.txt
run "$CLSCAN" sort keys.txt out.txt
expect_status "sort int32 text succeeds" 0
sort -n keys.txt >want.txt
same "sort int32 text matches sort -n" out.txt want.txt

# Standard input to standard output, descending.
run "$CLSCAN" sort --descending <keys.txt
sort -nr keys.txt >want.txt
same "sort --descending from stdin matches sort -nr" stdout.txt want.txt

# Pairs: equal keys keep their input order (values are line numbers), descending.
awk 'BEGIN { srand(3); for (i = 0; i < 3000; i++) print int(rand() * 20) }' >few.txt
seq 0 2999 >idx.txt
run "$CLSCAN" sort --type uint8 --descending --values idx.txt --values-out vout.txt few.txt kout.txt
expect_status "sort pairs succeeds" 0
paste few.txt idx.txt | sort -s -k1,1nr >pairs.txt
cut -f1 pairs.txt >want_k.txt
cut -f2 pairs.txt >want_v.txt
same "sort pairs: keys descending" kout.txt want_k.txt
same "sort pairs: values in stable order" vout.txt want_v.txt

# The float total order.
printf 'inf\n-inf\n0\n-0\n1.5\nnan\n-nan\n-2\n' >f.txt
run "$CLSCAN" sort --type float f.txt
printf -- '-nan\n-inf\n-2\n-0\n0\n1.5\ninf\nnan\n' >want.txt
same "sort float: -nan < -inf < ... < -0 < 0 < ... < inf < nan" stdout.txt want.txt

# Binary uint64 keys, against Python, and a bit range (the low 16 bits only, stable).
if command -v python3 >/dev/null; then
  python3 - <<'PY'
import random, struct
random.seed(5)
k = [random.getrandbits(64) for _ in range(4000)]
open("k.bin", "wb").write(struct.pack("<4000Q", *k))
open("want.bin", "wb").write(struct.pack("<4000Q", *sorted(k)))
open("want_low.bin", "wb").write(struct.pack("<4000Q", *sorted(k, key=lambda x: x & 0xFFFF)))
PY
  run "$CLSCAN" sort --format binary --type uint64 k.bin out.bin
  same "sort uint64 binary matches Python" out.bin want.bin
  run "$CLSCAN" sort --format binary --type uint64 --bits 0:16 k.bin out.bin
  same "sort --bits 0:16 is stable on the low bits" out.bin want_low.bin
fi

# Errors: usage (2) and failures (1); a failed sort leaves OUT as it was.
echo keep >kept.txt
run "$CLSCAN" sort --values idx.txt keys.txt
expect_status "--values without --values-out: exit 2" 2
run "$CLSCAN" sort --bits 5:3 keys.txt
expect_status "--bits 5:3: exit 2" 2
run "$CLSCAN" sort --type int128 keys.txt
expect_status "unknown type: exit 2" 2
run "$CLSCAN" sort --algorithm quick keys.txt
expect_status "unknown algorithm: exit 2" 2
run "$CLSCAN" sort --values idx.txt --values-out v.txt keys.txt kept.txt
expect_status "values and keys of different lengths: exit 1" 1
if [[ $(cat kept.txt) == keep ]]; then ok "a failed sort leaves OUT untouched"; else
  bad "a failed sort leaves OUT untouched" "OUT changed"
fi
printf '1\nx\n' >badkeys.txt
run "$CLSCAN" sort badkeys.txt
expect_status "a bad key line: exit 1" 1
run "$CLSCAN" sort --help
expect_status "sort --help: exit 0" 0

# A tiny verified benchmark of keys and pairs on both algorithms.
for a in lsd onesweep; do
  for p in "" --pairs; do
    run "$CLSCAN" sort --bench --n 3000 --reps 1 --algorithm $a $p
    if [[ $status -eq 0 ]] && grep -q verified stdout.txt; then ok "bench $a $p"; elif
      grep -q "64-bit atomics" stderr.txt; then ok "bench $a $p (not supported here)"; else
      bad "bench $a $p" "exit status $status"
    fi
  done
done

# bench --family sort --cub: CUB's times from cub_bench's output (here a hand-written one), as the
# fraction of CUB's rate per row; rows without a verified CUB sort of their kind show "-".
cat >cub.txt <<'EOF'
cub_bench device=X cub=3.0.1 reps=30 warmups=3
scan type=int32 log2n=11 ms=0.01
sort kind=keys type=uint32 values=none dist=uniform log2n=11 end_bit=32 verified=yes ms=0.0500 gkeys_per_s=0.04
sort kind=pairs type=uint32 values=uint32 dist=uniform log2n=11 end_bit=32 verified=WRONG
sort kind=keys type=uint32 values=none dist=few log2n=11 end_bit=32 verified=yes ms=0.2 gkeys_per_s=0.01
EOF
run "$CLSCAN" bench --family sort --types uint32 --algorithms onesweep --min-log2 11 --max-log2 11 \
  --reps 1 --seed 3 --cub cub.txt --csv cub.csv
expect_status "bench --cub succeeds" 0
check "bench --cub: the table has the column" "no 'of CUB' heading" grep -q ' of CUB$' stdout.txt
check "bench --cub: the CSV has the column" "header differs" \
  grep -q '^device,algo,key_type,value_type,distribution,n,ms,keys_per_s,host_ms,cub_ms$' cub.csv
# The printed fraction is CUB's time over the row's, both as the CSV gives them (fields counted
# from the end: a device name may hold a quoted comma).
for dist in uniform few; do
  want=$(awk -F, -v d=$dist '$(NF-5) == d && $(NF-6) == "" { printf "%.3f", $NF / $(NF-3) }' \
    cub.csv)
  got=$(awk -v d=$dist '$1 == "keys" && $2 == d { print $NF }' stdout.txt)
  expect_eq "bench --cub: keys $dist at CUB's time over its own" "$got" "$want"
done
expect_eq "bench --cub: CUB's times in the CSV" "$(grep -Ec ',(0[.]05|0[.]2)$' cub.csv || true)" 2
expect_eq "bench --cub: '-' where CUB has no verified sort" \
  "$(grep -Ec '^(pairs +uniform|keys +sorted|keys +narrow) .* -$' stdout.txt || true)" 3
printf 'sort kind=keys type=uint32 values=none dist=uniform end_bit=32 verified=yes ms=1\n' >cub_bad.txt
run "$CLSCAN" bench --family sort --types uint32 --min-log2 11 --max-log2 11 --cub cub_bad.txt
expect_status "bench --cub: a sort line without log2n: exit 1" 1
expect_stderr "bench --cub: names the line" "cub_bad.txt:1: not a cub_bench sort line"
check "bench --cub: a bad file measures nothing" "rows printed" \
  test "$(grep -Ec '^(keys|pairs) ' stdout.txt)" -eq 0
printf 'sort kind=keys type=uint32 values=none dist=uniform log2n=11 end_bit=32 verified=yes ms=x\n' \
  >cub_bad.txt
run "$CLSCAN" bench --family sort --types uint32 --min-log2 11 --max-log2 11 --cub cub_bad.txt
expect_status "bench --cub: a time that is not a number: exit 1" 1
printf 'cub_bench device=X\nscan type=int32 log2n=11 ms=0.01\n' >cub_bad.txt
run "$CLSCAN" bench --family sort --types uint32 --min-log2 11 --max-log2 11 --cub cub_bad.txt
expect_status "bench --cub: a file without sort lines: exit 1" 1
run "$CLSCAN" bench --family sort --types uint32 --min-log2 11 --max-log2 11 --cub no_such_file
expect_status "bench --cub: a missing file: exit 1" 1
run "$CLSCAN" bench --family select --cub cub.txt
expect_status "bench --cub is for the sorts: exit 2" 2

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all sort CLI checks passed"
