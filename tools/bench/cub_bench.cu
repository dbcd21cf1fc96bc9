// clscan tools: CUB reference benchmark (built only where CMake finds a CUDA compiler).
//
// Prints cub::DeviceScan::ExclusiveSum times for the sizes and types `clscan bench` uses, next
// to cudaMemcpy device-to-device of the same bytes, so one device run compares both libraries.
// Timing: CUDA events around one DeviceScan call (temporary storage allocated beforehand),
// median of 30 runs after 3 warm-ups. Each result is verified against a host scan first.
//
// Usage: cub_bench [MIN_LOG2 [MAX_LOG2]]   (defaults 10 and 28)
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

int main(int argc, char **argv) {
  int lo = argc > 1 ? std::atoi(argv[1]) : 10, hi = argc > 2 ? std::atoi(argv[2]) : 28;
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("cub_bench on %s (CUB %d.%d.%d)\n", p.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
              CUB_SUBMINOR_VERSION);
  bool ok = true;
  for (int l = lo; l <= hi; l += 2) {
    ok &= run<int>("int32", l);
    ok &= run<long long>("int64", l);
    ok &= run<float>("float", l);
    ok &= run<double>("double", l);
  }
  return ok ? 0 : 1;
}
