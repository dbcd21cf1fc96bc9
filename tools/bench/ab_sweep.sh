#!/usr/bin/env bash
# A/B of kernels on one GPU: builds a sweep program from each source tree named and runs the same
# configurations with each, tree after tree, in one call, so that their ratios to copy (or their
# times) are comparable (the build of a tree is Release, without tests or MPI).
#
#   tools/bench/ab_sweep.sh ROUNDS "NAME:DIR NAME:DIR ..." CONFIG...
#   e.g. git worktree add /tmp/before <commit>;
#        tools/bench/ab_sweep.sh 1 "before:/tmp/before after:." i32:0:0 i64:0:0 f32:0:0
#        AB_TOOL=select_sweep tools/bench/ab_sweep.sh 2 "before:/tmp/before after:." pred rle
#
# AB_TOOL picks the program, n = 2^AB_LOG2N for each: tile_sweep (the default; CONFIG is its
# KIND:WG:VPT[:OPTIONS], median of 20), select_sweep (CONFIG its KIND[:OPTIONS], median of 10) or
# sort_sweep (CONFIG its ALGO:KIND:TYPE[:ITEMS[:OPTIONS]], median of 10); tools/bench/README.md
# has each. Environment: CLSCAN_DEVICE (default NVIDIA), AB_BUILD (build folder prefix, default
# /tmp/ab-), AB_LOG2N (default 28).
set -uo pipefail
[[ $# -ge 3 ]] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
rounds=$1 trees=$2
shift 2
export CLSCAN_DEVICE=${CLSCAN_DEVICE:-NVIDIA}
prefix=${AB_BUILD:-/tmp/ab-}
tool=${AB_TOOL:-tile_sweep} log2n=${AB_LOG2N:-28}
case $tool in
  tile_sweep) args=("$log2n" 20) ;;
  select_sweep) args=("$log2n" 10 1) ;;
  sort_sweep) args=("$log2n" 10) ;;
  *) echo "ab_sweep: AB_TOOL is tile_sweep, select_sweep or sort_sweep, not $tool"; exit 2 ;;
esac
for nd in $trees; do
  n=${nd%%:*} d=${nd#*:}
  cmake -S "$d" -B "$prefix$n" -DCMAKE_BUILD_TYPE=Release -DCLSCAN_BUILD_TESTS=OFF \
    -DCLSCAN_BUILD_MPI=OFF >/dev/null 2>&1
  cmake --build "$prefix$n" -j"$(nproc)" --target "$tool" >"$prefix$n.log" 2>&1 ||
    { tail -20 "$prefix$n.log"; echo "ab_sweep: the build of $n ($d) failed"; exit 1; }
done
status=0
for r in $(seq "$rounds"); do
  for nd in $trees; do
    n=${nd%%:*}
    echo "== round $r: $n"
    "$prefix$n/$tool" "${args[@]}" "$@" | grep -v "^$tool on"
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  done
done
exit $status
