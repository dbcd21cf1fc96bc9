#!/usr/bin/env bash
# Registers of the GPU-shaped single pass for sm_90 without a GPU: builds cl/common.cl, tile.cl,
# status.cl, lookback_warp.cl and single_pass.cl with clang's NVPTX target (libclc's builtins,
# CLSCAN_NV_PTX=1, so the inline-PTX warp path) and assembles the PTX with ptxas. This is not
# NVIDIA's OpenCL compiler, whose counts differ (int32 256 x 8: 100 here, 64 there); compare
# builds with each other, not with the H200's -cl-nv-verbose.
#
#   tools/bench/nvptx_regs.sh "-DCLSCAN_TYPE=6 -DCLSCAN_WG=128 -DCLSCAN_VPT=16" [more...]
#
# Each argument is one build's options (common.cl and tile.cl name the switches); prints
# "registers spill-bytes options" per build. Needs clang-15, libclc's nvptx64--nvidiacl.bc and
# ptxas (CLANG, LIBCLC and PTXAS override where they are).
set -uo pipefail
[[ $# -ge 1 ]] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
clang=${CLANG:-clang-15}
libclc=${LIBCLC:-/usr/lib/clc/nvptx64--nvidiacl.bc}
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
cl=$(cd "$(dirname "$0")/../../cl" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# libclc for nvptx lacks the 64-bit atomics the status words use: inline PTX stands in.
cat >"$work/prelude.cl" <<'CL'
ulong nv_atom_add64(volatile __global ulong *p, ulong v) { ulong r; __asm__ volatile("atom.global.add.u64 %0, [%1], %2;" : "=l"(r) : "l"(p), "l"(v) : "memory"); return r; }
ulong nv_atom_max64(volatile __global ulong *p, ulong v) { ulong r; __asm__ volatile("atom.global.max.u64 %0, [%1], %2;" : "=l"(r) : "l"(p), "l"(v) : "memory"); return r; }
ulong nv_atom_cas64(volatile __global ulong *p, ulong c, ulong v) { ulong r; __asm__ volatile("atom.global.cas.b64 %0, [%1], %2, %3;" : "=l"(r) : "l"(p), "l"(c), "l"(v) : "memory"); return r; }
#define atom_add(p, v) nv_atom_add64((volatile __global ulong *)(p), (v))
#define atom_max(p, v) nv_atom_max64((volatile __global ulong *)(p), (v))
#define atom_cmpxchg(p, c, v) nv_atom_cas64((volatile __global ulong *)(p), (c), (v))
CL
cat "$work/prelude.cl" "$cl"/common.cl "$cl"/tile.cl "$cl"/status.cl "$cl"/lookback_warp.cl \
  "$cl"/single_pass.cl >"$work/sp.cl"
for options in "$@"; do
  # shellcheck disable=SC2086 # the options are words
  if ! "$clang" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -march=sm_80 -O2 -S \
    -Xclang -mlink-builtin-bitcode -Xclang "$libclc" -Xclang -finclude-default-header \
    -Xclang -cl-ext=+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,+cl_khr_fp64 \
    -Dasm=__asm__ -DCLSCAN_NV_PTX=1 -DCLSCAN_NV_SM=90 $options -o "$work/sp.ptx" "$work/sp.cl" \
    2>"$work/clang.log"; then
    echo "build failed: $options"; grep -m3 error "$work/clang.log"; continue
  fi
  info=$("$ptxas" -arch=sm_90 -v "$work/sp.ptx" -o "$work/sp.cubin" 2>&1 |
    grep -A3 "Compiling entry function 'single_pass_scan'")
  regs=$(grep -oE "Used [0-9]+ registers" <<<"$info" | grep -oE "[0-9]+")
  spill=$(grep -oE "[0-9]+ bytes spill stores" <<<"$info" | grep -oE "^[0-9]+")
  echo "${regs:-?} ${spill:-?} $options"
done
