#!/usr/bin/env bash
# A/B of the single pass on one GPU: builds tile_sweep from each source tree named and runs the
# same configurations with each, tree after tree, in one call, so that their ratios to copy are
# comparable (the build of a tree is Release, without tests or MPI).
#
#   tools/bench/ab_sweep.sh ROUNDS "NAME:DIR NAME:DIR ..." CONFIG...
#   e.g. git worktree add /tmp/before <commit>;
#        tools/bench/ab_sweep.sh 1 "before:/tmp/before after:." i32:0:0 i64:0:0 f32:0:0
#
# CONFIG is tile_sweep's KIND:WG:VPT[:OPTIONS] (tools/bench/README.md); n = 2^28, median of 20.
# Environment: CLSCAN_DEVICE (default NVIDIA), AB_BUILD (build folder prefix, default /tmp/ab-).
set -uo pipefail
[[ $# -ge 3 ]] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
rounds=$1 trees=$2
shift 2
export CLSCAN_DEVICE=${CLSCAN_DEVICE:-NVIDIA}
prefix=${AB_BUILD:-/tmp/ab-}
for nd in $trees; do
  n=${nd%%:*} d=${nd#*:}
  cmake -S "$d" -B "$prefix$n" -DCMAKE_BUILD_TYPE=Release -DCLSCAN_BUILD_TESTS=OFF \
    -DCLSCAN_BUILD_MPI=OFF >/dev/null 2>&1
  cmake --build "$prefix$n" -j"$(nproc)" --target tile_sweep >"$prefix$n.log" 2>&1 ||
    { tail -20 "$prefix$n.log"; echo "ab_sweep: the build of $n ($d) failed"; exit 1; }
done
for r in $(seq "$rounds"); do
  for nd in $trees; do
    n=${nd%%:*}
    echo "== round $r: $n"
    "$prefix$n/tile_sweep" 28 20 "$@" | grep -v '^tile_sweep on'
  done
done
