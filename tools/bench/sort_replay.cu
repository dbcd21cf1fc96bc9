/*
 * clscan tools: sort_replay, which runs the Onesweep radix sort that NVIDIA's OpenCL driver built
 * for clscan from CUDA, so that Nsight Compute can look at exactly the kernels clscan runs (it
 * does not attach to OpenCL). ptx_replay.cu does the same for the single-pass scan.
 *
 * The input is a dump of cl_dump (cl_dump.c): PREFIX.bin, the PTX of the program
 * radix_sort_onesweep (sort_histogram, sort_passes, sort_onesweep, sort_finish) built for keys
 * without values. The sort's shape is in the program's source, not its options, so the key size
 * and tile are arguments: they must be what the plan was built with (src/sort_api.c; on the H200
 * 256 work-items x 20 keys of 4 bytes, x 16 of 8 bytes). The program launches the kernels with
 * the arguments and temporary layout of src/algo_radix_sort_onesweep.c (the counters, histograms
 * and status words zeroed before each sort, then the keys' copies), sorts uniform random keys
 * (seed 7) REPS times after two warm-ups, timing each sort and each Onesweep pass with CUDA
 * events, and compares the last sort with std::sort before it prints; exit status 1 if any key
 * differs, 2 for bad arguments or a failed CUDA call.
 *
 *   sort_replay PREFIX LOG2N REPS KEY_BYTES WG ITEMS
 *   ncu --clock-control none -k regex:sort_onesweep -s 8 -c 1 --section WarpStateStats \
 *     build/sort_replay /tmp/ptx/000 26 1 4 256 20
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "replay_file.h"

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "sort_replay: %s: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                 \
    }                                                                               \
  } while (0)

/* The temporary layout of cl/radix_sort.cl: 16 words, the histograms of up to 8 passes, then
 * 8 bytes of status words per digit and tile, then the keys' copies from a 16-byte boundary. */
static const size_t kRadix = 256, kMaxPasses = 8, kStatusOffset = (16 + kMaxPasses * kRadix) * 4;
/* sort_histogram's work-groups per multiprocessor and sort_finish's shape (src/). */
static const unsigned kHistogramGroupsPerSm = 8, kFinishWg = 64, kFinishGroupsMax = 4096;

/* NVIDIA's OpenCL reads the work offsets and the number of work-groups from environment
 * registers that CUDA leaves undefined: %envreg0 (the group offset) and %envreg3 (the global
 * offset) become 0, as in clscan's launches, and %envreg6 the number of work-groups. */
static void patch_envregs(std::string *ptx) {
  for (const char *reg : {"%envreg0;", "%envreg3;", "%envreg6;"}) {
    for (size_t at = ptx->find(reg); at != std::string::npos; at = ptx->find(reg, at)) {
      const size_t line = ptx->rfind('\n', at) + 1;
      const size_t mov = ptx->find("mov.b32", line);
      if (mov == std::string::npos || mov > at) {
        std::fprintf(stderr, "sort_replay: %s outside a mov.b32\n", reg);
        std::exit(2);
      }
      ptx->replace(mov, 7, "mov.u32");
      const char *with = reg[7] == '6' ? "%nctaid.x;" : "0;";
      ptx->replace(at, std::strlen(reg), with);
    }
  }
  if (ptx->find("%envreg") != std::string::npos) {
    std::fprintf(stderr, "sort_replay: the PTX reads an environment register it cannot replace\n");
    std::exit(2);
  }
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0f : v[v.size() / 2];
}

struct kernels {
  cudaKernel_t histogram, passes, onesweep, finish;
};

struct shape {
  size_t n, key_bytes, tiles, zero_bytes, keys_off;
  unsigned wg, passes, hist_groups, finish_groups;
};

/* One sort of d_keys (n keys) with d_temp; pass_ms gets each Onesweep launch's time. */
static float sort_once(const kernels &k, const shape &s, void *d_keys, void *d_temp,
                       std::vector<float> *pass_ms) {
  unsigned long long zero = 0, n = s.n, b_off = s.keys_off;
  unsigned begin = 0, end = (unsigned)(8 * s.key_bytes), passes = s.passes;
  int from_words = 1;
  void *null_values = nullptr;
  std::vector<cudaEvent_t> ev(s.passes + 2);
  for (auto &e : ev)
    CHECK(cudaEventCreate(&e));
  CHECK(cudaEventRecord(ev[0]));
  CHECK(cudaMemsetAsync(d_temp, 0, s.zero_bytes));
  void *hist_args[] = {&d_keys, &zero, &n, &begin, &end, &passes, &d_temp};
  CHECK(cudaLaunchKernel((const void *)k.histogram, dim3(s.hist_groups), dim3(s.wg), hist_args));
  void *passes_args[] = {&d_temp, &n, &passes};
  CHECK(cudaLaunchKernel((const void *)k.passes, dim3(1), dim3(s.wg), passes_args));
  for (unsigned p = 0; p < s.passes; p++) {
    CHECK(cudaEventRecord(ev[1 + p]));
    void *args[] = {&d_keys, &zero, &null_values, &zero,  &d_temp, &b_off, &d_temp,
                    &zero,   &n,    &p,           &begin, &end,    &d_temp};
    CHECK(cudaLaunchKernel((const void *)k.onesweep, dim3((unsigned)s.tiles), dim3(s.wg), args));
  }
  CHECK(cudaEventRecord(ev[1 + s.passes]));
  void *finish_args[] = {&d_keys, &zero, &null_values, &zero,   &d_temp,     &b_off,
                         &d_temp, &zero, &n,           &passes, &from_words, &d_temp};
  CHECK(cudaLaunchKernel((const void *)k.finish, dim3(s.finish_groups), dim3(kFinishWg),
                         finish_args));
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));
  CHECK(cudaEventRecord(done));
  CHECK(cudaEventSynchronize(done));
  float total, ms;
  CHECK(cudaEventElapsedTime(&total, ev[0], done));
  for (unsigned p = 0; p < s.passes; p++) {
    CHECK(cudaEventElapsedTime(&ms, ev[1 + p], ev[2 + p]));
    pass_ms[p].push_back(ms);
  }
  for (auto &e : ev)
    CHECK(cudaEventDestroy(e));
  CHECK(cudaEventDestroy(done));
  return total;
}

/* Sorts uniform random keys REPS times; returns the number of keys out of place. */
template <typename K>
static size_t replay(const kernels &k, const shape &s, int reps, float *sort_ms,
                     std::vector<float> *pass_ms) {
  std::vector<K> keys(s.n);
  uint64_t x = 7;
  for (auto &key : keys) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    key = (K)(sizeof(K) == 8 ? x : x >> 32);
  }
  void *d_keys, *d_temp;
  CHECK(cudaMalloc(&d_keys, s.n * sizeof(K)));
  CHECK(cudaMalloc(&d_temp, s.keys_off * sizeof(K) + s.n * sizeof(K)));
  std::vector<float> sorts;
  for (int r = 0; r < reps + 2; r++) {
    CHECK(cudaMemcpy(d_keys, keys.data(), s.n * sizeof(K), cudaMemcpyHostToDevice));
    std::vector<float> *into = r < 2 ? nullptr : pass_ms;
    std::vector<float> scratch[kMaxPasses];
    const float ms = sort_once(k, s, d_keys, d_temp, into ? into : scratch);
    if (r >= 2)
      sorts.push_back(ms);
  }
  std::vector<K> got(s.n);
  CHECK(cudaMemcpy(got.data(), d_keys, s.n * sizeof(K), cudaMemcpyDeviceToHost));
  std::sort(keys.begin(), keys.end());
  size_t wrong = 0;
  for (size_t i = 0; i < s.n; i++)
    wrong += got[i] != keys[i];
  CHECK(cudaFree(d_keys));
  CHECK(cudaFree(d_temp));
  *sort_ms = median(sorts);
  return wrong;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: sort_replay PREFIX LOG2N REPS KEY_BYTES WG ITEMS "
                 "(PREFIX.bin from cl_dump: the radix_sort_onesweep program)\n");
    return 2;
  }
  const int log2n = std::atoi(argv[2]), reps = std::atoi(argv[3]);
  shape s{};
  s.key_bytes = (size_t)std::atoi(argv[4]);
  s.wg = (unsigned)std::atoi(argv[5]);
  const unsigned items = (unsigned)std::atoi(argv[6]);
  if (log2n < 10 || log2n > 30 || reps < 1 || (s.key_bytes != 4 && s.key_bytes != 8) || s.wg == 0 ||
      items == 0) {
    std::fprintf(stderr, "sort_replay: LOG2N 10..30, REPS >= 1, KEY_BYTES 4 or 8\n");
    return 2;
  }
  std::string ptx = replay_read_file("sort_replay", std::string(argv[1]) + ".bin");
  patch_envregs(&ptx);
  cudaLibrary_t lib;
  kernels k;
  CHECK(cudaLibraryLoadData(&lib, ptx.c_str(), NULL, NULL, 0, NULL, NULL, 0));
  CHECK(cudaLibraryGetKernel(&k.histogram, lib, "sort_histogram"));
  CHECK(cudaLibraryGetKernel(&k.passes, lib, "sort_passes"));
  CHECK(cudaLibraryGetKernel(&k.onesweep, lib, "sort_onesweep"));
  CHECK(cudaLibraryGetKernel(&k.finish, lib, "sort_finish"));
  int device, sms, resident;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  s.n = (size_t)1 << log2n;
  s.passes = (unsigned)s.key_bytes;
  s.tiles = (s.n + (size_t)s.wg * items - 1) / ((size_t)s.wg * items);
  s.hist_groups = (unsigned)std::min<size_t>(s.tiles, (size_t)sms * kHistogramGroupsPerSm);
  s.finish_groups = (unsigned)std::min<size_t>((s.n + kFinishWg - 1) / kFinishWg, kFinishGroupsMax);
  s.zero_bytes = kStatusOffset + 8 * kRadix * s.tiles;
  s.keys_off = (s.zero_bytes + 15) / 16 * 16 / s.key_bytes;
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, (const void *)k.onesweep));
  CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, (const void *)k.onesweep, s.wg, 0));
  float sort_ms = 0;
  std::vector<float> pass_ms[kMaxPasses];
  const size_t wrong = s.key_bytes == 4 ? replay<uint32_t>(k, s, reps, &sort_ms, pass_ms)
                                        : replay<uint64_t>(k, s, reps, &sort_ms, pass_ms);
  std::printf(
      "%s uint%zu keys, %u x %u (sort_onesweep: %d registers, %d bytes shared, %d groups "
      "per SM), n = 2^%d, median of %d: sort %.4f ms (%.2f G keys/s), passes",
      argv[1], 8 * s.key_bytes, s.wg, items, attr.numRegs, (int)attr.sharedSizeBytes, resident,
      log2n, reps, sort_ms, s.n / sort_ms / 1e6);
  for (unsigned p = 0; p < s.passes; p++)
    std::printf(" %.4f", median(pass_ms[p]));
  std::printf(" ms, wrong %zu\n", wrong);
  CHECK(cudaLibraryUnload(lib));
  return wrong != 0;
}
