/*
 * clscan tools: ptx_replay, which runs the single-pass scan kernel that NVIDIA's OpenCL driver
 * built for clscan from CUDA, so that CUDA's tools (Nsight Compute's hardware counters,
 * compute-sanitizer) can look at exactly the code clscan runs. They do not attach to OpenCL.
 *
 * The input is a dump of cl_dump (cl_dump.c): PREFIX.bin, the PTX of one clscan program, and
 * PREFIX.opts, its build options, from which the element types, operator, work-group size and
 * tile follow. The program loads the PTX (cudaLibraryLoadData), launches single_pass_scan with the
 * arguments clscan's host code gives it (cl/single_pass.cl: the ticket counter and status words
 * in one zeroed buffer, a new epoch per launch), and times REPS launches with CUDA events after
 * two warm-ups, against cudaMemcpy of the same bytes (half of what the scan reads and writes, as
 * tile_sweep) and against a copy kernel of its own (copy_words, the baseline for the profiler).
 * The last launch's output is compared with a host scan before anything is printed; exit status
 * 1 if any element differs, 2 for bad arguments or a failed CUDA call.
 *
 *   ptx_replay PREFIX LOG2N REPS [--maxrreg R] [--blocks-per-sm K]
 *
 * --maxrreg R puts `.maxnreg R` on the kernel's entry, so that the JIT compiles it with at most R
 * registers per thread (the JIT option of that name left the registers unchanged on the H200);
 * --blocks-per-sm K adds dynamic shared memory to
 * each launch so that at most K work-groups fit on a multiprocessor (experiments on occupancy:
 * the look-back's waits are covered by the other work-groups resident). The line printed gives
 * the registers per thread, the local memory (spills) and the work-groups per multiprocessor the
 * launch gets.
 *
 * Plain scans of the built-in types except half (same type in and out, or uint8/uint16 into
 * uint32), every built-in operator, and head-flag segments (one element in 1000 a head) are
 * replayed; maps, user types and operators, other segment kinds, and every kernel whose
 * parameters are not the plain scan's 13 (device initial values and extra arguments add some:
 * their prelude is in the source, not the options) are refused. A build with
 * -DCLSCAN_TEST_NO_LOOKBACK=1 scans each tile on its own, and is verified as such.
 *
 * Inputs: integers uniform over their type for every operator except multiplication (then
 * 1 or -1, and 1 or 3 unsigned), floats small integers (float [-8, 8], double [-1000, 1000]) so
 * that every order of addition is exact; seed 7.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "replay_file.h"

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "ptx_replay: %s: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

/* The copy the profiler compares against: 16-byte words, grid-stride. */
__global__ void copy_words(const uint4 *in, uint4 *out, size_t words) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

/* What the build options say (clscan's type and operator numbers, include/clscan.h). */
struct plan_opts {
  int type = -1, in_type = -1, op = -1, wg = 0, vpt = 0, segments = 0, no_lookback = 0;
  int refused = 0;
  std::string kernels;
};

static int option_int(const std::string &s, const char *name, int fallback) {
  const std::string key = std::string("-D") + name + "=";
  const size_t at = s.find(key);
  return at == std::string::npos ? fallback : std::atoi(s.c_str() + at + key.size());
}

static bool option_set(const std::string &s, const char *name) {
  return s.find(std::string("-D") + name + "=") != std::string::npos ||
         s.find(std::string("-D") + name + " ") != std::string::npos;
}

/* Whether the ';'-separated kernel names (CL_PROGRAM_KERNEL_NAMES, then a newline) hold name. */
static bool names_kernel(const std::string &kernels, const std::string &name) {
  const std::string list = ";" + kernels.substr(0, kernels.find('\n')) + ";";
  return list.find(";" + name + ";") != std::string::npos;
}

static plan_opts parse_opts(const std::string &text) {
  plan_opts o;
  const size_t nl = text.find('\n');
  const std::string s = text.substr(0, nl) + " ";
  o.kernels = nl == std::string::npos ? "" : text.substr(nl + 1);
  o.type = option_int(s, "CLSCAN_TYPE", -1);
  o.in_type = option_int(s, "CLSCAN_IN_TYPE", o.type);
  o.op = option_int(s, "CLSCAN_OP", -1);
  o.wg = option_int(s, "CLSCAN_WG", 0);
  o.vpt = option_int(s, "CLSCAN_VPT", 0);
  o.segments = option_int(s, "CLSCAN_SEGMENTS", 0);
  // A bare -DCLSCAN_TEST_NO_LOOKBACK defines it as 1.
  o.no_lookback =
      option_set(s, "CLSCAN_TEST_NO_LOOKBACK") && option_int(s, "CLSCAN_TEST_NO_LOOKBACK", 1) != 0;
  o.refused = option_set(s, "CLSCAN_MAP") || o.type < 0 || o.type > 9 || o.in_type < 0 ||
              o.in_type > 9 || o.op < 0 || o.op > 6 || o.wg <= 0 || o.vpt <= 0 ||
              (o.segments != 0 && o.segments != 1) || !names_kernel(o.kernels, "single_pass_scan");
  return o;
}

/* The number of parameters of the PTX entry `name`, or -1 if it is not there. */
static int entry_params(const std::string &ptx, const std::string &name) {
  const size_t entry = ptx.find(".entry " + name + "(");
  if (entry == std::string::npos)
    return -1;
  const size_t end = ptx.find(')', entry);
  int count = 0;
  for (size_t at = ptx.find(".param", entry); at < end; at = ptx.find(".param", at + 1))
    count++;
  return count;
}

static const char *const type_name[] = {"int32",  "uint32", "int64", "uint64", "float",
                                        "double", "int8",   "uint8", "int16",  "uint16"};
static const char *const op_name[] = {"add", "mul", "min", "max", "and", "or", "xor"};

template <typename V>
static V identity(int op) {
  switch (op) {
    case 1:
      return V(1);
    case 2:
      return std::numeric_limits<V>::has_infinity ? std::numeric_limits<V>::infinity()
                                                  : std::numeric_limits<V>::max();
    case 3:
      return std::numeric_limits<V>::has_infinity ? -std::numeric_limits<V>::infinity()
                                                  : std::numeric_limits<V>::lowest();
    case 4:
      return V(~0ull);
    default:
      return V(0);
  }
}

/* The operators as cl/common.cl defines them; integer add and mul wrap. */
template <typename V>
static V combine(int op, V a, V b) {
  if constexpr (std::is_floating_point<V>::value) {
    switch (op) {
      case 1:
        return a * b;
      case 2:
        return b < a ? b : a;
      case 3:
        return a < b ? b : a;
      default:
        return a + b;
    }
  } else {
    using U = typename std::make_unsigned<V>::type;
    switch (op) {
      case 0:
        return V(U(U(a) + U(b)));
      case 1:
        return V(U(U(a) * U(b)));
      case 2:
        return b < a ? b : a;
      case 3:
        return a < b ? b : a;
      case 4:
        return V(a & b);
      case 5:
        return V(a | b);
      default:
        return V(a ^ b);
    }
  }
}

template <typename T>
static T random_value(uint64_t &s, int op) {
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  const uint64_t r = s >> 11;
  if constexpr (std::is_same<T, float>::value)
    return op == 1 ? (r & 1 ? 1.0f : -1.0f) : float(int(r % 17) - 8);
  else if constexpr (std::is_same<T, double>::value)
    return op == 1 ? (r & 1 ? 1.0 : -1.0) : double(int(r % 2001) - 1000);
  else if (op == 1)
    return std::is_signed<T>::value ? T(r & 1 ? 1 : -1) : T(r & 1 ? 1 : 3);
  else {
    T v;
    const uint64_t w = s ^ (s >> 29);
    std::memcpy(&v, &w, sizeof v);
    return v;
  }
}

struct timing {
  float scan_ms, memcpy_ms, kernel_ms;
};

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/* How a replay is launched: dynamic shared memory per work-group (0: none), and the copy kernel's
 * grid (16 work-groups per multiprocessor). */
struct launch_opts {
  size_t dyn_smem = 0;
  unsigned copy_groups = 0;
};

/* Runs and checks one replay; returns the number of wrong elements. */
template <typename In, typename V>
static size_t replay(const plan_opts &o, const launch_opts &l, cudaKernel_t kernel, size_t n,
                     int reps, timing *t) {
  const int vec_bytes = std::max<int>(sizeof(In), sizeof(V));
  const size_t vec = 16 / vec_bytes;
  const size_t tile = (size_t)o.wg * o.vpt * vec;
  const size_t tiles = (n + tile - 1) / tile;
  std::vector<In> in(n);
  std::vector<unsigned char> flags(o.segments ? n : 1);
  uint64_t s = 7;
  for (size_t i = 0; i < n; i++)
    in[i] = random_value<In>(s, o.op);
  for (size_t i = 0; o.segments && i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    flags[i] = (s >> 33) % 1000 == 0;
  }

  In *d_in;
  V *d_out;
  unsigned char *d_aux;
  unsigned *d_temp;
  const size_t temp_bytes = 64 + tiles * 32;
  // The copies move half of what the scan reads and writes, between the same two buffers.
  const size_t copy_bytes = (n * sizeof(In) + n * sizeof(V)) / 2 / 16 * 16;
  CHECK(cudaMalloc(&d_in, std::max(n * sizeof(In), copy_bytes)));
  CHECK(cudaMalloc(&d_out, std::max(n * sizeof(V), copy_bytes)));
  CHECK(cudaMalloc(&d_aux, flags.size()));
  CHECK(cudaMalloc(&d_temp, temp_bytes));
  // The copies read past the input where the output is wider: those bytes are zeroed too.
  CHECK(cudaMemset(d_in, 0, std::max(n * sizeof(In), copy_bytes)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_aux, flags.data(), flags.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_temp, 0, temp_bytes));
  CHECK(cudaMemset(d_out, 0, n * sizeof(V)));

  // The arguments in cl/single_pass.cl's order; the seed is the identity, as clscan passes it.
  unsigned long long zero = 0, n64 = n, epoch = 0;
  unsigned ticket_base = 0;
  V seed = identity<V>(o.op);
  int exclusive = 1, in_place = 0;
  void *args[] = {&d_in,   &zero,        &d_aux, &zero, &d_out,     &zero,    &n64,
                  &d_temp, &ticket_base, &epoch, &seed, &exclusive, &in_place};

  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> scan_t, memcpy_t, kernel_t;
  for (int r = 0; r < reps + 2; r++) {
    float ms;
    CHECK(cudaEventRecord(a));
    CHECK(cudaMemcpyAsync(d_out, d_in, copy_bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    memcpy_t.push_back(ms);
    CHECK(cudaEventRecord(a));
    copy_words<<<l.copy_groups, 256>>>((const uint4 *)d_in, (uint4 *)d_out, copy_bytes / 16);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    kernel_t.push_back(ms);
    epoch++;
    CHECK(cudaEventRecord(a));
    CHECK(cudaLaunchKernel((const void *)kernel, dim3((unsigned)tiles), dim3(o.wg), args,
                           l.dyn_smem, 0));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    scan_t.push_back(ms);
    ticket_base += (unsigned)tiles;
  }
  scan_t.erase(scan_t.begin(), scan_t.begin() + 2);
  memcpy_t.erase(memcpy_t.begin(), memcpy_t.begin() + 2);
  kernel_t.erase(kernel_t.begin(), kernel_t.begin() + 2);
  *t = {median(scan_t), median(memcpy_t), median(kernel_t)};

  std::vector<V> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(V), cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  V acc = identity<V>(o.op);
  for (size_t i = 0; i < n; i++) {
    if ((o.segments && flags[i]) || (o.no_lookback && i % tile == 0))
      acc = identity<V>(o.op);
    if (std::memcmp(&out[i], &acc, sizeof(V)) != 0 && wrong++ < 3)
      std::fprintf(stderr, "ptx_replay: element %zu differs\n", i);
    acc = combine<V>(o.op, acc, V(in[i]));
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_aux));
  CHECK(cudaFree(d_temp));
  return wrong;
}

/* The (input, value) type pairs clscan's built-in scans have. */
static size_t dispatch(const plan_opts &o, const launch_opts &l, cudaKernel_t k, size_t n, int reps,
                       timing *t) {
  if (o.in_type == o.type) {
    switch (o.type) {
      case 0:
        return replay<int32_t, int32_t>(o, l, k, n, reps, t);
      case 1:
        return replay<uint32_t, uint32_t>(o, l, k, n, reps, t);
      case 2:
        return replay<int64_t, int64_t>(o, l, k, n, reps, t);
      case 3:
        return replay<uint64_t, uint64_t>(o, l, k, n, reps, t);
      case 4:
        return replay<float, float>(o, l, k, n, reps, t);
      case 5:
        return replay<double, double>(o, l, k, n, reps, t);
      case 6:
        return replay<int8_t, int8_t>(o, l, k, n, reps, t);
      case 7:
        return replay<uint8_t, uint8_t>(o, l, k, n, reps, t);
      case 8:
        return replay<int16_t, int16_t>(o, l, k, n, reps, t);
      case 9:
        return replay<uint16_t, uint16_t>(o, l, k, n, reps, t);
    }
  }
  if (o.type == 1 && o.in_type == 7)
    return replay<uint8_t, uint32_t>(o, l, k, n, reps, t);
  if (o.type == 1 && o.in_type == 9)
    return replay<uint16_t, uint32_t>(o, l, k, n, reps, t);
  std::fprintf(stderr, "ptx_replay: input type %d into %d is not replayed\n", o.in_type, o.type);
  std::exit(2);
}

/* Puts `.maxnreg r` between single_pass_scan's parameter list and its body (replacing a
 * .maxnreg already there); returns false if the entry is not found. */
static bool cap_registers(std::string *ptx, int r) {
  const size_t entry = ptx->find(".entry single_pass_scan(");
  if (entry == std::string::npos)
    return false;
  const size_t body = ptx->find('{', entry);
  if (body == std::string::npos)
    return false;
  const size_t old = ptx->find(".maxnreg", entry);
  if (old != std::string::npos && old < body)
    ptx->replace(old, std::strlen(".maxnreg"), "// .maxnreg");
  ptx->insert(ptx->find('{', entry), ".maxnreg " + std::to_string(r) + "\n");
  return true;
}

int main(int argc, char **argv) {
  int maxrreg = 0, blocks_per_sm = 0;
  for (int i = 4; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--maxrreg") == 0)
      maxrreg = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--blocks-per-sm") == 0)
      blocks_per_sm = std::atoi(argv[i + 1]);
    else
      argc = 0;
  }
  if (argc < 4 || argc % 2 != 0 || maxrreg < 0 || blocks_per_sm < 0) {
    std::fprintf(stderr,
                 "usage: ptx_replay PREFIX LOG2N REPS [--maxrreg R] [--blocks-per-sm K] "
                 "(PREFIX.bin and PREFIX.opts from cl_dump)\n");
    return 2;
  }
  const std::string prefix = argv[1];
  const int log2n = std::atoi(argv[2]), reps = std::atoi(argv[3]);
  if (log2n < 10 || log2n > 30 || reps < 1) {
    std::fprintf(stderr, "ptx_replay: LOG2N must be 10..30 and REPS at least 1\n");
    return 2;
  }
  const plan_opts o = parse_opts(replay_read_file("ptx_replay", prefix + ".opts"));
  if (o.refused) {
    std::fprintf(stderr,
                 "ptx_replay: %s.opts is not a plain or head-flag single-pass scan of a "
                 "built-in type\n",
                 prefix.c_str());
    return 2;
  }
  std::string ptx = replay_read_file("ptx_replay", prefix + ".bin");
  if (entry_params(ptx, "single_pass_scan") != 13) {
    std::fprintf(stderr,
                 "ptx_replay: %s.bin's single_pass_scan does not take the plain scan's 13 "
                 "parameters (a device initial value or extra arguments)\n",
                 prefix.c_str());
    return 2;
  }
  if (maxrreg > 0 && !cap_registers(&ptx, maxrreg)) {
    std::fprintf(stderr, "ptx_replay: no single_pass_scan entry to cap in %s.bin\n",
                 prefix.c_str());
    return 2;
  }
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  CHECK(cudaLibraryLoadData(&lib, ptx.c_str(), NULL, NULL, 0, NULL, NULL, 0));
  CHECK(cudaLibraryGetKernel(&kernel, lib, "single_pass_scan"));
  const void *fn = (const void *)kernel;
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, fn));
  launch_opts l;
  int device, sms;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  l.copy_groups = 16u * (unsigned)sms;
  if (blocks_per_sm > 0) {
    int smem_per_sm, reserved;
    CHECK(
        cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    const long want = smem_per_sm / blocks_per_sm - reserved - (long)attr.sharedSizeBytes;
    if (want <= 0) {
      std::fprintf(stderr, "ptx_replay: --blocks-per-sm %d leaves no shared memory to add\n",
                   blocks_per_sm);
      return 2;
    }
    l.dyn_smem = (size_t)want;
    CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)l.dyn_smem));
  }
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, fn, o.wg, l.dyn_smem));
  timing t;
  const size_t n = (size_t)1 << log2n;
  const size_t wrong = dispatch(o, l, kernel, n, reps, &t);
  std::printf(
      "%s %s%s%s %s wg %d vpt %d%s%s (%d registers, %zu bytes local, %d groups per SM), "
      "n = 2^%d, median of %d: scan %.4f ms  memcpy %.4f ms  copy/scan %.3f  copy_words "
      "%.4f ms  wrong %zu\n",
      prefix.c_str(), o.in_type != o.type ? type_name[o.in_type] : "",
      o.in_type != o.type ? "->" : "", type_name[o.type], op_name[o.op], o.wg, o.vpt,
      o.segments ? " flags" : "", o.no_lookback ? " no-lookback" : "", attr.numRegs,
      (size_t)attr.localSizeBytes, resident, log2n, reps, t.scan_ms, t.memcpy_ms,
      t.memcpy_ms / t.scan_ms, t.kernel_ms, wrong);
  CHECK(cudaLibraryUnload(lib));
  return wrong != 0;
}
