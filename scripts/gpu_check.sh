#!/usr/bin/env bash
# clscan checks on a GPU machine that nothing can be installed on (the H200 of the device tool):
# builds from scratch, then runs the steps named on the command line, each under its own time
# limit, with line-buffered output so that a limit never swallows finished rows.
#
#   scripts/gpu_check.sh suite       the CTest suite on the GPU (not Oclgrind, POCL no-hang, MPI),
#                                  then on the machine's POCL (its 16 cores interleave work-groups
#                                  unlike CI's 2; with the no-hang matrix, not huge)
#   scripts/gpu_check.sh huge        test_huge --all-algorithms (every case, every algorithm),
#                                  then test_huge_family (selections and sorts past 2^31)
#   scripts/gpu_check.sh bench       single pass at 2^28: int32, int64, float, double; the issue 4
#                                  variants (map, segmented, by-key, uint8 -> uint32); CUB
#   scripts/gpu_check.sh family      clscan bench --family select and the reduce rows at 2^28 (int32),
#                                  then cub_bench --primitives 28
#   scripts/gpu_check.sh sweep       build/tile_sweep at 2^28 with the tuning table's rows: every
#                                  kind it knows (types, uint8 -> uint32, map, flags, keys); CUB
#   scripts/gpu_check.sh reduce      build/reduce_sweep at 2^28 (group counts and tiles; from the
#                                  first command, a marker, in batches), between two CUB runs
#   scripts/gpu_check.sh select      build/select_sweep at 2^28: every kind, then select by no
#                                  flags, unique and run-length encoding without the look-back
#                                  (SEL_TEST_NO_LOOKBACK: wrong on purpose, exit 1), two rounds
#   scripts/gpu_check.sh ptx         ptxas register counts of the plain and mapped single pass
#   scripts/gpu_check.sh targets     the speed targets' measurements at 2^28, in one call: the
#                                  selections against copy, offsets, rows and extra-argument maps
#                                  against the plain scan, then the sorts and CUB's (uniform keys),
#                                  and the uint32 sorts of `clscan bench` as fractions of CUB's
#   scripts/gpu_check.sh suite bench (steps run in the order given)
#
# Environment: CLSCAN_DEVICE (default NVIDIA), CLSCAN_POCL_DEVICE (the POCL selector of the suite
# step, default "Portable Computing Language", its platform name; empty skips the POCL run),
# CMOCKA_ROOT (an unpacked libcmocka prefix, for the suite), CLSCAN_BUILD_DIR (default
# /tmp/clscan-gpu), CLSCAN_BUILD_TARGETS (the CMake targets to build, space-separated; default
# all; `targets` needs clscan_cli tile_sweep args_bench sort_sweep cub_bench), STEP_LIMIT
# (seconds per command, default 300), SUITE_LIMIT (seconds per ctest run of the suite step,
# default 540: the reduction's type groups alone take 100 to 220 s on an H100), SUITE_ARGS
# (extra ctest arguments of the suite step, e.g. "-R errors"). Results go to stdout and, when OUT
# is set, to files under $OUT (suite.txt, suite-pocl.txt, ...).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
B=${CLSCAN_BUILD_DIR:-/tmp/clscan-gpu}
LIMIT=${STEP_LIMIT:-300}
SUITE_LIMIT=${SUITE_LIMIT:-540}
OUT=${OUT:-/tmp}
export CLSCAN_DEVICE=${CLSCAN_DEVICE:-NVIDIA}
POCL_DEVICE=${CLSCAN_POCL_DEVICE-Portable Computing Language}

# step NAME: prints a banner with the time so far.
step() { printf '\n==> [%4d s] %s\n' "$SECONDS" "$1"; }

# run CMD...: runs a command under the step limit, its output line-buffered.
run() { timeout "$LIMIT" stdbuf -oL -eL "$@"; echo "    (exit $?)"; }

step "configure and build in $B"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCLSCAN_BUILD_MPI=OFF \
  ${CMOCKA_ROOT:+-DCMOCKA_ROOT=$CMOCKA_ROOT -DCLSCAN_REQUIRE_CMOCKA=ON -DCLSCAN_FAULT_INJECTION=ON} \
  > "$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
# CLSCAN_BUILD_TARGETS is split on spaces on purpose.
# shellcheck disable=SC2086
cmake --build "$B" -j"$(nproc)" ${CLSCAN_BUILD_TARGETS:+--target $CLSCAN_BUILD_TARGETS} -- -k \
  > "$OUT/build.log" 2>&1 || grep -E "error" "$OUT/build.log"

BENCH="$B/clscan bench --algorithms single-pass --min-log2 28 --max-log2 28 --seed 7"
for s in "$@"; do
  case $s in
    suite)
      step "ctest on $CLSCAN_DEVICE"
      # SUITE_ARGS is split on spaces on purpose.
      # shellcheck disable=SC2086
      (cd "$B" && LIMIT=$SUITE_LIMIT run ctest -j6 --timeout 250 -E "huge|oclgrind|nohang|install|mpi" \
        ${SUITE_ARGS:-}) |
        tee "$OUT/suite.txt"
      if [[ -z $POCL_DEVICE ]]; then
        :
      elif ! CLSCAN_DEVICE=$POCL_DEVICE "$B/clscan" devices 2>/dev/null | grep -Eq '^\* [0-9]+:[0-9]+ '; then
        echo "no OpenCL device matches CLSCAN_DEVICE=$POCL_DEVICE: the POCL run is skipped" |
          tee "$OUT/suite-pocl.txt"
      else
        step "ctest on POCL (CLSCAN_DEVICE=$POCL_DEVICE, $(nproc) cores)"
        # shellcheck disable=SC2086
        (cd "$B" && CLSCAN_DEVICE=$POCL_DEVICE LIMIT=$SUITE_LIMIT run ctest -j4 --timeout 250 \
          -E "huge|oclgrind|install|mpi" ${SUITE_ARGS:-}) | tee "$OUT/suite-pocl.txt"
      fi
      ;;
    huge)
      step "test_huge --all-algorithms"
      run "$B/tests/test_huge" --all-algorithms | tee "$OUT/huge.txt"
      step "test_huge_family (selections of 2^32 + 7 elements, sorts of 2^31 + 5 keys)"
      run "$B/tests/test_huge_family" | tee "$OUT/huge-family.txt"
      ;;
    bench)
      step "single pass at 2^28, ratio to clEnqueueCopyBuffer of equal bytes"
      {
        run $BENCH --types int32,int64,float,double
        run $BENCH --types int32 --variant map
        run $BENCH --types int32 --variant segmented
        run $BENCH --types int32 --variant by-key
        run $BENCH --types uint8 --out-type uint32
        [ -x "$B/cub_bench" ] && run "$B/cub_bench" 28 28
      } | tee "$OUT/bench.txt"
      ;;
    family)
      step "selections and reductions at 2^28 (int32; the reduce rows with float), then CUB's"
      {
        run "$B/clscan" bench --family select --algorithms single-pass --types int32 --min-log2 28 \
          --max-log2 28 --reps 5 --seed 7
        run $BENCH --types int32,float --reps 20 --reruns 0 | grep -E "^(algorithm|reduce) "
        [ -x "$B/cub_bench" ] && run "$B/cub_bench" --primitives 28
      } | tee "$OUT/family.txt"
      ;;
    sweep)
      step "tile_sweep at 2^28 with the table's rows, against clEnqueueCopyBuffer; CUB"
      {
        run "$B/tile_sweep" 28 20 i32:0:0 i64:0:0 f32:0:0 f64:0:0 u8:0:0 map:0:0 seg:0:0 key:0:0 i8:0:0 \
          i16:0:0 i32:0:0
        [ -x "$B/cub_bench" ] && run "$B/cub_bench" 28 28
      } | tee "$OUT/sweep.txt"
      ;;
    reduce)
      step "reduce_sweep at 2^28: group counts and tiles (first command, marker, batches of 10); CUB's reduction"
      {
        [ -x "$B/cub_bench" ] && run "$B/cub_bench" --primitives 28 | grep -E "Reduce"
        run "$B/reduce_sweep" 28 20 2 i32:0:0:0 i32:2:256:8 i32:3:256:8 i32:1:256:16 i32:2:512:4 \
          i32:16:0:0 f32:0:0:0 f32:2:256:8 i64:0:0:0 i64:2:256:4 f64:0:0:0
        [ -x "$B/cub_bench" ] && run "$B/cub_bench" --primitives 28 | grep -E "Reduce"
      } | tee "$OUT/reduce.txt"
      ;;
    select)
      step "select_sweep at 2^28: every kind, and three without the look-back (wrong on purpose)"
      {
        run "$B/select_sweep" 28 10 2 flags0 flags50 pred part part2 unique rle \
          flags0:-DSEL_TEST_NO_LOOKBACK=1 unique:-DSEL_TEST_NO_LOOKBACK=1 rle:-DSEL_TEST_NO_LOOKBACK=1
      } | tee "$OUT/select.txt"
      ;;
    ptx)
      step "ptxas registers, int32 single pass, 256 x 8, plain and mapped"
      cc -O2 -x c - -lOpenCL -o "$B/ptxinfo" <<'EOF'
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
/* Builds argv[1] (a file) with options argv[2] on the first GPU and prints the build log. */
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  if (!f || argc < 3) return 2;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *src = calloc(1, (size_t)len + 1);
  if (fread(src, 1, (size_t)len, f) != (size_t)len) return 2;
  cl_platform_id ps[8];
  cl_uint np = 0;
  cl_device_id dev = NULL;
  clGetPlatformIDs(8, ps, &np);
  for (cl_uint i = 0; i < np && !dev; i++)
    if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  const char *s = src;
  cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
  err = clBuildProgram(p, 1, &dev, argv[2], NULL, NULL);
  static char log[1 << 20];
  clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
  printf("build %d\n%s\n", err, log);
  return err != CL_SUCCESS;
}
EOF
      O="-cl-std=CL1.2 -DCLSCAN_TYPE=0 -DCLSCAN_OP=0 -DCLSCAN_WG=256 -DCLSCAN_STATE_SIZE=4 -DCLSCAN_VPT=8 -DCLSCAN_VECTOR_IO=1 -DCLSCAN_NV_PTX=1 -cl-nv-verbose"
      cat cl/common.cl cl/tile.cl cl/status.cl cl/single_pass.cl > "$B/sp.cl"
      printf 'int clscan_user_map(int x, ulong i) { return as_int((uint)x * 3u + (uint)(i & 15)); }\n' |
        cat - "$B/sp.cl" > "$B/sp_map.cl"
      echo "plain:"; "$B/ptxinfo" "$B/sp.cl" "$O" | grep -E "registers|spill"
      echo "mapped:"; "$B/ptxinfo" "$B/sp_map.cl" "$O -DCLSCAN_MAP=1" | grep -E "registers|spill"
      ;;
    targets)
      step "the targets at 2^28: selections, offsets and rows, extra arguments, sorts; CUB's sorts"
      {
        run "$B/clscan" bench --family select --algorithms single-pass --types int32 --min-log2 28 \
          --max-log2 28 --reps 5 --seed 7
        run "$B/tile_sweep" 28 10 i32:0:0 off:0:0 r1000:0:0 row:0:0 i32:0:0 off:0:0 r1000:0:0 row:0:0
        run "$B/args_bench" --log2n 28 --reps 20
        run "$B/sort_sweep" 28 10 auto:keys:u32 auto:pairs:u32 auto:keys:u64 auto:keys:f32 \
          auto:keys:i64 auto:keys:u32 auto:pairs:u32
        if [ -x "$B/cub_bench" ]; then
          run "$B/cub_bench" --only sort --dists uniform 28 28 | tee "$B/cub.txt"
          # The default sort's uint32 rows as fractions of CUB's rate (uniform rows only).
          run "$B/clscan" bench --family sort --algorithms auto --types uint32 \
            --min-log2 28 --max-log2 28 --reps 10 --seed 7 --cub "$B/cub.txt"
        fi
      } | tee "$OUT/targets.txt"
      ;;
    *)
      echo "unknown step $s (suite, huge, bench, family, sweep, reduce, select, ptx, targets)"
      exit 2
      ;;
  esac
done
step "done"
