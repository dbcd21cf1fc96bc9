// clscan tools: CUB reference benchmark (built only where CMake finds a CUDA compiler).
//
// Prints cub::DeviceScan::ExclusiveSum times for the sizes and types `clscan bench` uses, next
// to cudaMemcpy device-to-device of the same bytes, so one device run compares both libraries.
// Timing: CUDA events around one DeviceScan call (temporary storage allocated beforehand),
// median of 30 runs after 3 warm-ups. Each result is verified against a host scan first.
//
// Then, at n = 2^MAX_LOG2 (or 2^LOG2 with --primitives), int32 only, the primitives of issue 13
// with the data `clscan bench` uses (splitmix64 values, as tests/reference/ref_scan.c; 50% of
// the elements selected; runs of mean length 4): cub::DeviceReduce::Sum, DeviceSelect::Flagged
// and ::If, DevicePartition::If, DeviceSelect::Unique and DeviceRunLengthEncode::Encode. Each
// result is verified on the host before its time is printed (a wrong one prints WRONG and no
// time); the ratio is to a cudaMemcpy of the bytes the primitive must move (inputs read once,
// outputs written once: half of them copied, read and written).
//
// Usage: cub_bench [MIN_LOG2 [MAX_LOG2]]   (defaults 10 and 28)
//        cub_bench --primitives [LOG2]     (the primitives only; default 28)
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "cub_bench: %s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Median of the elapsed times of `reps` runs of f after 3 warm-ups, in milliseconds.
template <class F>
static float median_ms(F f, int reps = 30) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps + 3; r++) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 3)
      t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Benchmarks one type and size; returns false if the result was wrong.
template <class T>
static bool run(const char *name, int logn) {
  size_t n = size_t(1) << logn;
  std::vector<T> h(n), o(n);
  for (size_t i = 0; i < n; i++)
    h[i] = T((i * 2654435761u) % 100);
  T *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, n * sizeof(T)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  void *tmp = nullptr;
  size_t tmp_bytes = 0;
  CHECK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in, out, n));
  CHECK(cudaMalloc(&tmp, tmp_bytes));

  // Verify before timing: integers exactly, float within 1e-4 and double within 1e-12 of a
  // double-precision running sum, relative to the sum.
  CHECK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in, out, n));
  CHECK(cudaMemcpy(o.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  const bool is_float = T(0.5) != T(0);
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-12;
  double sum = 0;
  unsigned long long wrapped = 0; /* integer sums wrap modulo 2^bits, as CUB's do */
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (is_float ? std::abs(double(o[i]) - sum) > tol * sum : o[i] != T(wrapped))
      bad++;
    sum += double(h[i]);
    wrapped += (unsigned long long)h[i];
  }

  float scan = median_ms([&] { cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in, out, n); });
  float copy =
      median_ms([&] { cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice); });
  double gbps = 2.0 * n * sizeof(T) / scan / 1e6;
  std::printf("cub %-6s 2^%-2d scan %.4f ms %7.0f GB/s | memcpy %.4f ms | scan/copy %.2f%s\n", name,
              logn, scan, gbps, copy, copy / scan, bad ? " WRONG" : "");
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(tmp));
  return bad == 0;
}

// ------------------------------------------------------------------------------------------------
// The primitives of issue 13 (int32).
// ------------------------------------------------------------------------------------------------

// splitmix64, the generator of tests/reference/ref_scan.c.
static unsigned long long next_random(unsigned long long *s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The predicate of DeviceSelect::If and DevicePartition::If: odd values (half of random data).
struct IsOdd {
  __host__ __device__ bool operator()(const int &x) const { return (x & 1) != 0; }
};

// The host data and the device buffers of the primitives.
struct PrimData {
  size_t n;
  std::vector<int> values, runs;     // random values; runs of equal values (mean length 4)
  std::vector<unsigned char> flags;  // 0 or 1, half of them 1
  int *in, *runs_in, *out, *lengths, *count;
  unsigned char *d_flags;
  void *tmp;
  size_t tmp_bytes;
};

// Fills the host data from a seed and copies it to the device.
static void prim_init(PrimData &d, int logn, unsigned long long seed) {
  d.n = size_t(1) << logn;
  d.values.resize(d.n);
  d.runs.resize(d.n);
  d.flags.resize(d.n);
  unsigned long long s = seed;
  int v = 0;
  for (size_t i = 0; i < d.n; i++) {
    unsigned long long r = next_random(&s);
    d.values[i] = int(r >> 5);
    d.flags[i] = (unsigned char)((r >> 3) & 1);
    if (i == 0 || (r >> 40) % 4 == 0)  // a new run with probability 1/4: mean length 4
      v += 1 + int((r >> 50) % 7);
    d.runs[i] = v;
  }
  size_t bytes = d.n * sizeof(int);
  CHECK(cudaMalloc(&d.in, bytes));
  CHECK(cudaMalloc(&d.runs_in, bytes));
  CHECK(cudaMalloc(&d.out, bytes));
  CHECK(cudaMalloc(&d.lengths, bytes));
  CHECK(cudaMalloc(&d.count, sizeof(int)));
  CHECK(cudaMalloc(&d.d_flags, d.n));
  CHECK(cudaMemcpy(d.in, d.values.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d.runs_in, d.runs.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d.d_flags, d.flags.data(), d.n, cudaMemcpyHostToDevice));
  d.tmp = nullptr;
  d.tmp_bytes = 0;
}

static void prim_free(PrimData &d) {
  CHECK(cudaFree(d.in));
  CHECK(cudaFree(d.runs_in));
  CHECK(cudaFree(d.out));
  CHECK(cudaFree(d.lengths));
  CHECK(cudaFree(d.count));
  CHECK(cudaFree(d.d_flags));
  CHECK(cudaFree(d.tmp));
}

// Makes the temporary storage at least `bytes`.
static void prim_tmp(PrimData &d, size_t bytes) {
  if (bytes <= d.tmp_bytes)
    return;
  CHECK(cudaFree(d.tmp));
  CHECK(cudaMalloc(&d.tmp, bytes));
  d.tmp_bytes = bytes;
}

// Copies n ints of a device array to the host.
static std::vector<int> to_host(const int *p, size_t n) {
  std::vector<int> h(n);
  if (n)
    CHECK(cudaMemcpy(h.data(), p, n * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}

// Prints one primitive's row: its time, GB/s of the bytes it must move, and the ratio to a copy
// of those bytes (half of them copied: read once and written once).
static void prim_row(const char *name, const PrimData &d, double bytes, float ms) {
  size_t copy_bytes = std::min(size_t(bytes / 2), d.n * sizeof(int));
  float copy =
      median_ms([&] { cudaMemcpyAsync(d.out, d.in, copy_bytes, cudaMemcpyDeviceToDevice); });
  // A copy of more than one buffer's bytes is scaled from the largest one the buffers allow.
  double copy_ms = copy * (bytes / 2) / double(copy_bytes);
  std::printf(
      "cub int32 2^%-2d %-28s %.4f ms %7.0f GB/s | copy of the bytes %.4f ms | ratio %.3f\n",
      int(std::log2(double(d.n))), name, ms, bytes / ms / 1e6, copy_ms, copy_ms / ms);
}

// Reports a wrong result (no time).
static bool prim_wrong(const char *name, const char *why) {
  std::printf("cub int32 %-28s WRONG (%s): no time reported\n", name, why);
  return false;
}

static bool prim_reduce(PrimData &d) {
  size_t bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, bytes, d.in, d.count, d.n));
  prim_tmp(d, bytes);
  CHECK(cub::DeviceReduce::Sum(d.tmp, bytes, d.in, d.count, d.n));
  unsigned want = 0;  // int32 sums wrap modulo 2^32
  for (size_t i = 0; i < d.n; i++)
    want += unsigned(d.values[i]);
  if (unsigned(to_host(d.count, 1)[0]) != want)
    return prim_wrong("DeviceReduce::Sum", "sum differs");
  float ms = median_ms([&] { cub::DeviceReduce::Sum(d.tmp, bytes, d.in, d.count, d.n); });
  prim_row("DeviceReduce::Sum", d, 4.0 * d.n + 4, ms);
  return true;
}

// Checks a selection's count and elements against the host's.
static bool check_selected(const PrimData &d, const std::vector<int> &want) {
  int count = to_host(d.count, 1)[0];
  return size_t(count) == want.size() && to_host(d.out, want.size()) == want;
}

static bool prim_flagged(PrimData &d) {
  size_t bytes = 0;
  CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, d.in, d.d_flags, d.out, d.count, d.n));
  prim_tmp(d, bytes);
  CHECK(cub::DeviceSelect::Flagged(d.tmp, bytes, d.in, d.d_flags, d.out, d.count, d.n));
  std::vector<int> want;
  for (size_t i = 0; i < d.n; i++)
    if (d.flags[i])
      want.push_back(d.values[i]);
  if (!check_selected(d, want))
    return prim_wrong("DeviceSelect::Flagged", "selection differs");
  float ms = median_ms(
      [&] { cub::DeviceSelect::Flagged(d.tmp, bytes, d.in, d.d_flags, d.out, d.count, d.n); });
  prim_row("DeviceSelect::Flagged", d, 5.0 * d.n + 4.0 * want.size() + 4, ms);
  return true;
}

static bool prim_if(PrimData &d) {
  size_t bytes = 0;
  CHECK(cub::DeviceSelect::If(nullptr, bytes, d.in, d.out, d.count, d.n, IsOdd()));
  prim_tmp(d, bytes);
  CHECK(cub::DeviceSelect::If(d.tmp, bytes, d.in, d.out, d.count, d.n, IsOdd()));
  std::vector<int> want;
  for (size_t i = 0; i < d.n; i++)
    if (IsOdd()(d.values[i]))
      want.push_back(d.values[i]);
  if (!check_selected(d, want))
    return prim_wrong("DeviceSelect::If", "selection differs");
  float ms =
      median_ms([&] { cub::DeviceSelect::If(d.tmp, bytes, d.in, d.out, d.count, d.n, IsOdd()); });
  prim_row("DeviceSelect::If", d, 4.0 * d.n + 4.0 * want.size() + 4, ms);
  return true;
}

static bool prim_partition(PrimData &d) {
  size_t bytes = 0;
  CHECK(cub::DevicePartition::If(nullptr, bytes, d.in, d.out, d.count, d.n, IsOdd()));
  prim_tmp(d, bytes);
  CHECK(cub::DevicePartition::If(d.tmp, bytes, d.in, d.out, d.count, d.n, IsOdd()));
  // CUB writes the selected elements in order, then the rejected ones in reverse order.
  std::vector<int> want, rejected;
  for (size_t i = 0; i < d.n; i++)
    (IsOdd()(d.values[i]) ? want : rejected).push_back(d.values[i]);
  size_t selected = want.size();
  want.insert(want.end(), rejected.rbegin(), rejected.rend());
  if (size_t(to_host(d.count, 1)[0]) != selected || to_host(d.out, d.n) != want)
    return prim_wrong("DevicePartition::If", "partition differs");
  float ms = median_ms(
      [&] { cub::DevicePartition::If(d.tmp, bytes, d.in, d.out, d.count, d.n, IsOdd()); });
  prim_row("DevicePartition::If", d, 8.0 * d.n + 4, ms);
  return true;
}

static bool prim_unique(PrimData &d) {
  size_t bytes = 0;
  CHECK(cub::DeviceSelect::Unique(nullptr, bytes, d.runs_in, d.out, d.count, d.n));
  prim_tmp(d, bytes);
  CHECK(cub::DeviceSelect::Unique(d.tmp, bytes, d.runs_in, d.out, d.count, d.n));
  std::vector<int> want;
  for (size_t i = 0; i < d.n; i++)
    if (i == 0 || d.runs[i] != d.runs[i - 1])
      want.push_back(d.runs[i]);
  if (!check_selected(d, want))
    return prim_wrong("DeviceSelect::Unique", "unique elements differ");
  float ms =
      median_ms([&] { cub::DeviceSelect::Unique(d.tmp, bytes, d.runs_in, d.out, d.count, d.n); });
  prim_row("DeviceSelect::Unique", d, 4.0 * d.n + 4.0 * want.size() + 4, ms);
  return true;
}

static bool prim_rle(PrimData &d) {
  size_t bytes = 0;
  CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, bytes, d.runs_in, d.out, d.lengths, d.count,
                                           d.n));
  prim_tmp(d, bytes);
  CHECK(
      cub::DeviceRunLengthEncode::Encode(d.tmp, bytes, d.runs_in, d.out, d.lengths, d.count, d.n));
  std::vector<int> unique, lengths;
  for (size_t i = 0; i < d.n; i++) {
    if (i == 0 || d.runs[i] != d.runs[i - 1]) {
      unique.push_back(d.runs[i]);
      lengths.push_back(0);
    }
    lengths.back()++;
  }
  if (!check_selected(d, unique) || to_host(d.lengths, lengths.size()) != lengths)
    return prim_wrong("DeviceRunLengthEncode::Encode", "runs differ");
  float ms = median_ms([&] {
    cub::DeviceRunLengthEncode::Encode(d.tmp, bytes, d.runs_in, d.out, d.lengths, d.count, d.n);
  });
  prim_row("DeviceRunLengthEncode::Encode", d, 4.0 * d.n + 8.0 * unique.size() + 4, ms);
  return true;
}

// Runs every primitive at n = 2^logn; returns false if one was wrong.
static bool primitives(int logn) {
  PrimData d;
  prim_init(d, logn, 20261201ull);
  size_t selected = 0, runs = 0;
  for (size_t i = 0; i < d.n; i++) {
    selected += d.flags[i];
    runs += i == 0 || d.runs[i] != d.runs[i - 1];
  }
  std::printf(
      "primitives: int32, n = 2^%d, %.1f%% flagged, %.1f%% odd (the predicate), runs of "
      "mean length %.2f; median of 30 after 3 warm-ups\n",
      logn, 100.0 * selected / d.n,
      100.0 * std::count_if(d.values.begin(), d.values.end(), IsOdd()) / d.n, double(d.n) / runs);
  bool ok = prim_reduce(d);
  ok &= prim_flagged(d);
  ok &= prim_if(d);
  ok &= prim_partition(d);
  ok &= prim_unique(d);
  ok &= prim_rle(d);
  prim_free(d);
  return ok;
}

int main(int argc, char **argv) {
  bool only_primitives = argc > 1 && std::string(argv[1]) == "--primitives";
  int lo = argc > 1 ? std::atoi(argv[1]) : 10, hi = argc > 2 ? std::atoi(argv[2]) : 28;
  if (only_primitives)
    hi = argc > 2 ? std::atoi(argv[2]) : 28;
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("cub_bench on %s (CUB %d.%d.%d)\n", p.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
              CUB_SUBMINOR_VERSION);
  bool ok = true;
  for (int l = lo; !only_primitives && l <= hi; l += 2) {
    ok &= run<int>("int32", l);
    ok &= run<long long>("int64", l);
    ok &= run<float>("float", l);
    ok &= run<double>("double", l);
  }
  if (hi < 1 || hi > 30) {
    std::fprintf(stderr, "cub_bench: the primitives' log2 n must be 1..30\n");
    return 2;
  }
  ok &= primitives(hi);
  return ok ? 0 : 1;
}
