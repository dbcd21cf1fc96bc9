// clscan tools: the CUB reference benchmark (built only where CMake finds a CUDA compiler).
//
// Measures on the first CUDA device, in one process, what `clscan bench` measures with clscan,
// so that one device call compares both libraries:
// - scan: cub::DeviceScan::ExclusiveSum of int8, int16, int32, int64, float and double (same type
//   in and out), and uint8 -> uint32 and uint16 -> uint32 (DeviceScan::ExclusiveScan with a
//   uint32 initial value, so that the sums are uint32), next to a device-to-device cudaMemcpy of
//   the same bytes (half of the bytes the scan moves, read once and written once);
// - sort: cub::DeviceRadixSort::SortKeys and SortPairs (uint32 index values) of uint32, uint64,
//   float and int64 keys of four distributions (as `clscan bench --family sort`: uniform random
//   bits, 16 distinct keys, already sorted, random in the low half of the ordered bits with
//   end_bit = half the bits), in keys per second;
// - prim: cub::DeviceReduce::Sum, DeviceSelect::Flagged and ::If, DevicePartition::If,
//   DeviceSelect::Unique and DeviceRunLengthEncode::Encode of int32 (50% selected, runs of mean
//   length 4), against a copy of the bytes each must move.
// Timing: CUDA events around one call (temporary storage allocated beforehand), median of --reps
// runs after 3 warm-ups; DeviceReduce::Sum also as DeviceReduce::Sum/batch10, events around ten
// calls back to back, per call (their launches overlap the calls before them). Every result is
// verified on the host before its time is printed; a wrong one prints verified=WRONG and no time,
// and the exit status is 1.
//
// Output: one record a line, its kind first, then space-separated key=value fields (values
// without spaces); tools/bench/README.md lists them.
//
// Usage: cub_bench [--reps N] [--only scan,sort,prim] [--dists LIST] [MIN_LOG2 [MAX_LOG2]]
//        (defaults: 30 reps, everything, every distribution, 10 and 28: scans at every second
//        power of two from MIN_LOG2 to MAX_LOG2, sorts and primitives at MAX_LOG2; --dists
//        limits the sorts to some of uniform, few, sorted and narrow)
//        cub_bench --primitives [LOG2]      (as --only prim LOG2 LOG2)
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "cub_bench: %s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Timed runs per measurement (--reps) and warm-ups before them.
static int g_reps = 30;
static const int kWarmups = 3;

// Median of the elapsed times of g_reps runs of f after the warm-ups, in milliseconds.
template <class F>
static float median_ms(F f) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < g_reps + kWarmups; r++) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (r >= kWarmups)
      t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  size_t m = t.size() / 2;
  return t.size() % 2 ? t[m] : (t[m - 1] + t[m]) / 2;
}

// Times a device-to-device copy of `bytes` bytes between two buffers of their own.
static float copy_ms(size_t bytes) {
  void *src, *dst;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  float ms = median_ms([&] { cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice); });
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return ms;
}

// ------------------------------------------------------------------------------------------------
// Scans
// ------------------------------------------------------------------------------------------------

// Checks an exclusive sum on the host: integers exactly (modulo 2^bits of the output type, as
// CUB's sums wrap), float within 1e-4 and double within 1e-12 of a double-precision running sum,
// relative to the sum. Returns the number of wrong elements.
template <class In, class Out>
static size_t scan_errors(const std::vector<In> &h, const std::vector<Out> &o) {
  const bool is_float = Out(0.5) != Out(0);
  const double tol = sizeof(Out) == 4 ? 1e-4 : 1e-12;
  double sum = 0;
  unsigned long long wrapped = 0;
  size_t bad = 0;
  for (size_t i = 0; i < h.size(); i++) {
    if (is_float ? std::abs(double(o[i]) - sum) > tol * sum : o[i] != Out(wrapped))
      bad++;
    sum += double(h[i]);
    wrapped += (unsigned long long)h[i];
  }
  return bad;
}

// Runs one exclusive sum of n elements, In in, Out out (uint32 sums of narrow unsigned inputs
// through ExclusiveScan with a uint32 initial value; ExclusiveSum otherwise).
template <class In, class Out>
static cudaError_t exclusive_sum(void *tmp, size_t &bytes, const In *in, Out *out, size_t n) {
  if (sizeof(In) == sizeof(Out))
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n);
  return cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, ::cuda::std::plus<>{}, Out(0), n);
}

// Benchmarks the exclusive sum of one type pair and size; returns false if the result was wrong.
template <class In, class Out>
static bool scan_row(const char *in_name, const char *out_name, int logn) {
  size_t n = size_t(1) << logn;
  std::vector<In> h(n);
  std::vector<Out> o(n);
  for (size_t i = 0; i < n; i++)
    h[i] = In((i * 2654435761u) % 100);
  In *in;
  Out *out;
  CHECK(cudaMalloc(&in, n * sizeof(In)));
  CHECK(cudaMalloc(&out, n * sizeof(Out)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  void *tmp = nullptr;
  size_t tmp_bytes = 0;
  CHECK(exclusive_sum(tmp, tmp_bytes, in, out, n));
  CHECK(cudaMalloc(&tmp, tmp_bytes));
  CHECK(cudaMemset(out, 0x5a, n * sizeof(Out)));
  CHECK(exclusive_sum(tmp, tmp_bytes, in, out, n));
  CHECK(cudaMemcpy(o.data(), out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  size_t bad = scan_errors(h, o);
  if (bad) {
    std::printf("scan type=%s out=%s log2n=%d verified=WRONG wrong_elements=%zu\n", in_name,
                out_name, logn, bad);
  } else {
    float scan = median_ms([&] { exclusive_sum(tmp, tmp_bytes, in, out, n); });
    double moved = double(n) * double(sizeof(In) + sizeof(Out));
    float copy = copy_ms(size_t(moved / 2));
    std::printf(
        "scan type=%s out=%s log2n=%d verified=yes ms=%.4f gbps=%.1f copy_ms=%.4f ratio=%.3f\n",
        in_name, out_name, logn, scan, moved / scan / 1e6, copy, copy / scan);
  }
  std::fflush(stdout);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(tmp));
  return bad == 0;
}

// Every scan at n = 2^logn; returns false if one was wrong.
static bool scans(int logn) {
  bool ok = scan_row<int8_t, int8_t>("int8", "int8", logn);
  ok &= scan_row<int16_t, int16_t>("int16", "int16", logn);
  ok &= scan_row<int32_t, int32_t>("int32", "int32", logn);
  ok &= scan_row<int64_t, int64_t>("int64", "int64", logn);
  ok &= scan_row<float, float>("float", "float", logn);
  ok &= scan_row<double, double>("double", "double", logn);
  ok &= scan_row<uint8_t, uint32_t>("uint8", "uint32", logn);
  ok &= scan_row<uint16_t, uint32_t>("uint16", "uint32", logn);
  return ok;
}

// ------------------------------------------------------------------------------------------------
// Sorts
// ------------------------------------------------------------------------------------------------

// splitmix64's finaliser of a seed and an index (as clscan bench's sort keys).
static uint64_t mix(uint64_t seed, uint64_t i) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The key distributions (clscan bench --family sort has the same four).
enum Dist { UNIFORM = 0, FEW, SORTED, NARROW };
static const char *const kDistNames[] = {"uniform", "few", "sorted", "narrow"};

// What CUB sorts a key type by: the bits flipped into an unsigned order (signed integers: the
// sign bit; floats: the sign bit of positive values, every bit of negative ones), and back.
template <class K>
struct KeyBits {
  using U = typename std::conditional<sizeof(K) == 4, uint32_t, uint64_t>::type;
  static constexpr unsigned kBits = sizeof(K) * 8;
  static constexpr U kSign = U(1) << (kBits - 1);
  static constexpr bool kFloat = std::is_floating_point<K>::value;
  static constexpr bool kSigned = std::is_signed<K>::value && !kFloat;
  static U order(K k) {
    U u;
    std::memcpy(&u, &k, sizeof u);
    if (kFloat)
      return (u & kSign) ? U(~u) : U(u | kSign);
    return kSigned ? U(u ^ kSign) : u;
  }
  static K key(U u) {
    if (kFloat)
      u = (u & kSign) ? U(u ^ kSign) : U(~u);
    else if (kSigned)
      u ^= kSign;
    K k;
    std::memcpy(&k, &u, sizeof k);
    return k;
  }
};

// Fills n keys of a distribution. CUB sorts -0.0 and +0.0 as equal, so a -0.0 becomes +0.0
// (which keeps the expected order unique).
template <class K>
static std::vector<K> sort_keys(Dist dist, size_t n, uint64_t seed) {
  using B = KeyBits<K>;
  using U = typename B::U;
  unsigned log2n = 0;
  while ((size_t(1) << log2n) < n)
    log2n++;
  std::vector<K> keys(n);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = mix(seed, i), u;
    if (dist == FEW)
      u = mix(seed ^ 0xfe3, r % 16);
    else if (dist == SORTED)
      u = log2n <= B::kBits ? uint64_t(i) << (B::kBits - log2n) : uint64_t(i) >> (log2n - B::kBits);
    else if (dist == NARROW)
      u = r & ((uint64_t(1) << (B::kBits / 2)) - 1);
    else
      u = r;
    K k = B::key(U(u));
    if (B::kFloat && k == K(0))
      k = K(0);
    keys[i] = k;
  }
  return keys;
}

// Checks sorted pairs exactly in O(n): the values are a permutation of the indices, each key is
// the input key at its value's index, the keys' bits [0, end_bit) of the order do not decrease,
// and equal ones keep their input order (increasing values): together, the stable sort.
template <class K>
static bool pairs_sorted(const std::vector<K> &in, const std::vector<K> &keys,
                         const std::vector<uint32_t> &values, unsigned end_bit) {
  using B = KeyBits<K>;
  using U = typename B::U;
  const U mask = end_bit >= B::kBits ? U(~U(0)) : U((U(1) << end_bit) - 1);
  size_t n = in.size();
  std::vector<bool> seen(n, false);
  for (size_t j = 0; j < n; j++) {
    uint32_t v = values[j];
    if (v >= n || seen[v] || std::memcmp(&keys[j], &in[v], sizeof(K)) != 0)
      return false;
    seen[v] = true;
    if (j == 0)
      continue;
    U a = B::order(keys[j - 1]) & mask, b = B::order(keys[j]) & mask;
    if (b < a || (a == b && values[j] < values[j - 1]))
      return false;
  }
  return true;
}

// Sorts of one key type and distribution at n = 2^logn: pairs first, verified exactly; then keys,
// which must equal the sorted pairs' keys byte for byte. Returns false if one was wrong.
template <class K>
static bool sort_rows(const char *name, Dist dist, int logn) {
  size_t n = size_t(1) << logn;
  int end_bit = dist == NARROW ? int(sizeof(K) * 4) : int(sizeof(K) * 8);
  std::vector<K> h = sort_keys<K>(dist, n, 0x5EEDull + unsigned(dist));
  std::vector<uint32_t> idx(n);
  for (size_t i = 0; i < n; i++)
    idx[i] = uint32_t(i);
  K *kin, *kout;
  uint32_t *vin, *vout;
  CHECK(cudaMalloc(&kin, n * sizeof(K)));
  CHECK(cudaMalloc(&kout, n * sizeof(K)));
  CHECK(cudaMalloc(&vin, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&vout, n * sizeof(uint32_t)));
  CHECK(cudaMemcpy(kin, h.data(), n * sizeof(K), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(vin, idx.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  size_t pair_bytes = 0, key_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, pair_bytes, kin, kout, vin, vout, n, 0, end_bit));
  CHECK(cub::DeviceRadixSort::SortKeys(nullptr, key_bytes, kin, kout, n, 0, end_bit));
  void *tmp;
  size_t tmp_bytes = std::max(pair_bytes, key_bytes);
  CHECK(cudaMalloc(&tmp, tmp_bytes));

  std::vector<K> sorted(n), got(n);
  std::vector<uint32_t> values(n);
  bool ok = true;
  for (int pairs = 1; pairs >= 0; pairs--) {
    auto sort = [&] {
      size_t b = tmp_bytes;
      return pairs ? cub::DeviceRadixSort::SortPairs(tmp, b, kin, kout, vin, vout, n, 0, end_bit)
                   : cub::DeviceRadixSort::SortKeys(tmp, b, kin, kout, n, 0, end_bit);
    };
    CHECK(cudaMemset(kout, 0x5a, n * sizeof(K)));
    CHECK(sort());
    CHECK(cudaMemcpy(got.data(), kout, n * sizeof(K), cudaMemcpyDeviceToHost));
    bool right;
    if (pairs) {
      CHECK(cudaMemcpy(values.data(), vout, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
      right = pairs_sorted(h, got, values, unsigned(end_bit));
      sorted = got;
    } else {
      right = ok && std::memcmp(got.data(), sorted.data(), n * sizeof(K)) == 0;
    }
    const char *kind = pairs ? "pairs" : "keys";
    if (!right) {
      std::printf("sort kind=%s type=%s values=%s dist=%s log2n=%d end_bit=%d verified=WRONG\n",
                  kind, name, pairs ? "uint32" : "none", kDistNames[dist], logn, end_bit);
      ok = false;
    } else {
      float ms = median_ms(sort);
      std::printf(
          "sort kind=%s type=%s values=%s dist=%s log2n=%d end_bit=%d verified=yes ms=%.4f "
          "gkeys_per_s=%.3f\n",
          kind, name, pairs ? "uint32" : "none", kDistNames[dist], logn, end_bit, ms,
          double(n) / ms / 1e6);
    }
    std::fflush(stdout);
  }
  CHECK(cudaFree(kin));
  CHECK(cudaFree(kout));
  CHECK(cudaFree(vin));
  CHECK(cudaFree(vout));
  CHECK(cudaFree(tmp));
  return ok;
}

// Every sort at n = 2^logn of the distributions whose bits are set in `dists` (bit d:
// distribution d); returns false if one was wrong.
static bool sorts(int logn, unsigned dists) {
  bool ok = true;
  for (int d = UNIFORM; d <= NARROW; d++) {
    if (!((dists >> d) & 1u))
      continue;
    ok &= sort_rows<uint32_t>("uint32", Dist(d), logn);
    ok &= sort_rows<uint64_t>("uint64", Dist(d), logn);
    ok &= sort_rows<float>("float", Dist(d), logn);
    ok &= sort_rows<int64_t>("int64", Dist(d), logn);
  }
  return ok;
}

// ------------------------------------------------------------------------------------------------
// The selection primitives and the reduction (int32).
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

// Prints one primitive's record: its time, GB/s of the bytes it must move, and the ratio to a
// copy of those bytes (half of them copied: read once and written once).
static void prim_row(const char *name, const PrimData &d, double bytes, float ms) {
  size_t copy_bytes = std::min(size_t(bytes / 2), d.n * sizeof(int));
  float copy =
      median_ms([&] { cudaMemcpyAsync(d.out, d.in, copy_bytes, cudaMemcpyDeviceToDevice); });
  // A copy of more than one buffer's bytes is scaled from the largest one the buffers allow.
  double copy_ms = copy * (bytes / 2) / double(copy_bytes);
  std::printf(
      "prim name=%s type=int32 log2n=%d verified=yes ms=%.4f gbps=%.1f copy_ms=%.4f "
      "ratio=%.3f\n",
      name, int(std::log2(double(d.n))), ms, bytes / ms / 1e6, copy_ms, copy_ms / ms);
  std::fflush(stdout);
}

// Reports a wrong result (no time).
static bool prim_wrong(const char *name, const PrimData &d, const char *why) {
  std::printf("prim name=%s type=int32 log2n=%d verified=WRONG reason=%s\n", name,
              int(std::log2(double(d.n))), why);
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
    return prim_wrong("DeviceReduce::Sum", d, "sum_differs");
  float ms = median_ms([&] { cub::DeviceReduce::Sum(d.tmp, bytes, d.in, d.count, d.n); });
  prim_row("DeviceReduce::Sum", d, 4.0 * d.n + 4, ms);
  // Ten calls back to back, per call: their launches overlap the calls before them, as
  // reduce_sweep's batches do for clscan.
  const int batch = 10;
  float batch_ms = median_ms([&] {
    for (int b = 0; b < batch; b++)
      cub::DeviceReduce::Sum(d.tmp, bytes, d.in, d.count, d.n);
  });
  if (unsigned(to_host(d.count, 1)[0]) != want)
    return prim_wrong("DeviceReduce::Sum/batch10", d, "sum_differs");
  prim_row("DeviceReduce::Sum/batch10", d, 4.0 * d.n + 4, batch_ms / batch);
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
    return prim_wrong("DeviceSelect::Flagged", d, "selection_differs");
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
    return prim_wrong("DeviceSelect::If", d, "selection_differs");
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
    return prim_wrong("DevicePartition::If", d, "partition_differs");
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
    return prim_wrong("DeviceSelect::Unique", d, "unique_elements_differ");
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
    return prim_wrong("DeviceRunLengthEncode::Encode", d, "runs_differ");
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
  std::printf("prim-data type=int32 log2n=%d flagged_pct=%.1f odd_pct=%.1f mean_run=%.2f\n", logn,
              100.0 * selected / d.n,
              100.0 * std::count_if(d.values.begin(), d.values.end(), IsOdd()) / d.n,
              double(d.n) / runs);
  bool ok = prim_reduce(d);
  ok &= prim_flagged(d);
  ok &= prim_if(d);
  ok &= prim_partition(d);
  ok &= prim_unique(d);
  ok &= prim_rle(d);
  prim_free(d);
  return ok;
}

// ------------------------------------------------------------------------------------------------
// Options and main
// ------------------------------------------------------------------------------------------------

// What the command line asks for.
struct Options {
  int lo = 10, hi = 28;
  bool scan = true, sort = true, prim = true;
  unsigned dists = (1u << (NARROW + 1)) - 1; /* bit d: sort distribution d */
};

static int usage(const char *why) {
  std::fprintf(stderr,
               "cub_bench: %s\n"
               "Usage: cub_bench [--reps N] [--only scan,sort,prim] [--dists LIST] "
               "[MIN_LOG2 [MAX_LOG2]]\n"
               "       (LIST: some of uniform, few, sorted, narrow, comma-separated)\n"
               "       cub_bench --primitives [LOG2]\n",
               why);
  return 2;
}

// Parses a log2 n in [1, 30]; -1 if it is not one.
static int parse_log2(const char *text) {
  char *end;
  long v = std::strtol(text, &end, 10);
  return *text && !*end && v >= 1 && v <= 30 ? int(v) : -1;
}

// Parses a comma-separated list of distribution names into a bit set (bit d: distribution d); 0
// if a name is not one of them.
static unsigned parse_dists(const char *text) {
  unsigned set = 0;
  std::string list = std::string(text) + ",";
  for (size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1) {
    const std::string name = list.substr(at, comma - at);
    int d = UNIFORM;
    while (d <= NARROW && name != kDistNames[d])
      d++;
    if (d > NARROW)
      return 0;
    set |= 1u << d;
  }
  return set;
}

// Parses the command line into o; returns -1 to run, else an exit status.
static int parse(int argc, char **argv, Options &o) {
  int positional = 0;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if ((a == "--reps" || a == "--only" || a == "--dists") && i + 1 == argc)
      return usage("an option lacks its value");
    if (a == "--reps") {
      g_reps = std::atoi(argv[++i]);
      if (g_reps < 1 || g_reps > 100000)
        return usage("--reps must be 1..100000");
    } else if (a == "--only") {
      std::string list = std::string(",") + argv[++i] + ",";
      o.scan = list.find(",scan,") != std::string::npos;
      o.sort = list.find(",sort,") != std::string::npos;
      o.prim = list.find(",prim,") != std::string::npos;
      if (!o.scan && !o.sort && !o.prim)
        return usage("--only takes scan, sort and prim");
    } else if (a == "--dists") {
      o.dists = parse_dists(argv[++i]);
      if (!o.dists)
        return usage("--dists takes uniform, few, sorted and narrow, comma-separated");
    } else if (a == "--primitives") {
      o.scan = o.sort = false;
      o.lo = 1;
      positional = 1; /* a LOG2 after it is the primitives' size */
    } else if (positional < 2 && parse_log2(argv[i]) > 0) {
      (positional++ ? o.hi : o.lo) = parse_log2(argv[i]);
      if (positional == 1)
        o.hi = std::max(o.hi, o.lo);
    } else {
      return usage(("unexpected argument '" + a + "'").c_str());
    }
  }
  if (o.lo > o.hi)
    return usage("MIN_LOG2 is above MAX_LOG2");
  return -1;
}

int main(int argc, char **argv) {
  Options o;
  int status = parse(argc, argv, o);
  if (status >= 0)
    return status;
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::string device = p.name;
  std::replace(device.begin(), device.end(), ' ', '_');
  std::printf("cub_bench device=%s cub=%d.%d.%d reps=%d warmups=%d\n", device.c_str(),
              CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, g_reps, kWarmups);
  bool ok = true;
  for (int l = o.lo; o.scan && l <= o.hi; l += 2)
    ok &= scans(l);
  if (o.sort)
    ok &= sorts(o.hi, o.dists);
  if (o.prim)
    ok &= primitives(o.hi);
  return ok ? 0 : 1;
}
