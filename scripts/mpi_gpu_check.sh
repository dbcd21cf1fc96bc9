#!/usr/bin/env bash
# clscan_mpi check on a GPU machine (one GPU is enough): builds clscan_mpi from scratch, then runs
# clscan_mpi_bench with two ranks sharing the GPU and with one rank, 2^26 int32 elements per rank
# (inclusive add, verified against the host reference), and optionally the MPI tests.
#
#   scripts/mpi_gpu_check.sh            build, bench with 2 ranks, bench with 1 rank
#   scripts/mpi_gpu_check.sh --tests    also `ctest -L mpi` (1 to 4 ranks, every type and operator)
#
# Needs: cmake, a C compiler, OpenCL headers and loader, Open MPI (Debian/Ubuntu packages
# `cmake gcc make ocl-icd-opencl-dev opencl-c-headers openmpi-bin libopenmpi-dev`); missing ones
# are installed with apt-get when running as root. Environment: CLSCAN_BUILD_DIR (default
# build-mpi-gpu, removed first), CLSCAN_DEVICE (default: the first GPU), CLSCAN_MPI_FLAGS (extra
# mpirun flags; default: shared-memory transport only, which avoids UCX probing in containers).
# Exits non-zero if a step fails or a rank's result does not verify.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${CLSCAN_BUILD_DIR:-build-mpi-gpu}
RUN_TESTS=0
[[ ${1:-} == --tests ]] && RUN_TESTS=1

# step NAME: prints a banner with the time so far.
step() {
  printf '\n==> [%3d s] %s\n' "$SECONDS" "$1"
}

# ------------------------------------------------------------------------------------------------
# Packages
# ------------------------------------------------------------------------------------------------
step "packages"
PACKAGES=(cmake gcc make ocl-icd-opencl-dev opencl-c-headers openmpi-bin libopenmpi-dev)
MISSING=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || MISSING+=("$p")
done
if ((${#MISSING[@]})); then
  if [[ $(id -u) == 0 ]]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${MISSING[@]}"
  else
    echo "missing packages; run: sudo apt-get install -y ${MISSING[*]}" >&2
    exit 1
  fi
fi
mpirun --version | head -1

# ------------------------------------------------------------------------------------------------
# Build (only what the check runs: no CUDA reference benchmark)
# ------------------------------------------------------------------------------------------------
if [[ $(id -u) == 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
read -r -a MPI_FLAGS <<<"${CLSCAN_MPI_FLAGS:---oversubscribe --mca pml ob1 --mca btl self,vader}"
MPI_FLAGS_LIST=$(IFS=';' && echo "${MPI_FLAGS[*]}")

step "configure and build in $BUILD_DIR"
rm -rf "$BUILD_DIR"
TESTS=OFF
TARGETS=(--target clscan_mpi_bench)
if ((RUN_TESTS)); then
  TESTS=ON
  TARGETS+=(--target test_mpi)
fi
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCLSCAN_WERROR=ON -DCLSCAN_BUILD_TESTS=$TESTS \
  "-DCLSCAN_MPIEXEC_FLAGS=$MPI_FLAGS_LIST"
cmake --build "$BUILD_DIR" -j "$(nproc)" "${TARGETS[@]}"

# ------------------------------------------------------------------------------------------------
# Runs
# ------------------------------------------------------------------------------------------------
BENCH=("$BUILD_DIR/clscan_mpi_bench" --log2 26 --type int32 --op add --reps 20)

step "2 ranks on one GPU, 2^26 int32 per rank"
mpirun -np 2 "${MPI_FLAGS[@]}" "${BENCH[@]}"

step "1 rank, 2^26 int32"
mpirun -np 1 "${MPI_FLAGS[@]}" "${BENCH[@]}"

step "2 ranks, 2^26 int32, exclusive"
mpirun -np 2 "${MPI_FLAGS[@]}" "${BENCH[@]}" --exclusive --reps 5

if ((RUN_TESTS)); then
  step "MPI tests (ctest -L mpi)"
  ctest --test-dir "$BUILD_DIR" -L mpi --output-on-failure
fi
step "done: every step passed"
