/*
 * clscan tools: bc_sort, Boost.Compute's sort of uint32 keys on an OpenCL device, the peer
 * reference of the radix sort's POCL target (docs/performance.md). It sorts 2^LOG2N uniform
 * random keys (seed 7) REPS times after two warm-ups on the first device whose platform or device
 * name holds CLSCAN_DEVICE, ignoring case (unset: Boost.Compute's default device), each from
 * a fresh copy of the keys, timed by the host's wall clock around boost::compute::sort and the
 * queue's finish; the last result is compared with std::sort of the same keys before the median
 * is printed. Exit status 1 if it differs, 2 for bad arguments, no such device or an OpenCL error.
 *
 *   build/bc_sort [LOG2N [REPS]]        (default 24 and 5)
 */
#include <algorithm>
#include <cctype>
#include <exception>
#include <boost/compute.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace compute = boost::compute;

static std::string lower(std::string s) {
  for (auto &c : s)
    c = (char)std::tolower((unsigned char)c);
  return s;
}

/* The first device whose platform or device name holds CLSCAN_DEVICE (ignoring case), the
 * default device if it is unset; false if none matches. */
static bool pick_device(compute::device *out) {
  const char *want = std::getenv("CLSCAN_DEVICE");
  if (!want) {
    *out = compute::system::default_device();
    return true;
  }
  const std::string w = lower(want);
  for (const auto &p : compute::system::platforms())
    for (const auto &d : p.devices())
      if (lower(p.name()).find(w) != std::string::npos ||
          lower(d.name()).find(w) != std::string::npos) {
        *out = d;
        return true;
      }
  return false;
}

static int run(int log2n, int reps);

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24, reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (log2n < 1 || log2n > 30 || reps < 1) {
    std::fprintf(stderr, "usage: bc_sort [LOG2N [REPS]] (LOG2N 1..30, REPS at least 1)\n");
    return 2;
  }
  try {
    return run(log2n, reps);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bc_sort: %s\n", e.what());
    return 2;
  }
}

/* Sorts, verifies and prints; returns the exit status. */
static int run(int log2n, int reps) {
  compute::device dev;
  if (!pick_device(&dev)) {
    std::fprintf(stderr, "bc_sort: no device matches CLSCAN_DEVICE=%s\n",
                 std::getenv("CLSCAN_DEVICE"));
    return 2;
  }
  const size_t n = (size_t)1 << log2n;
  std::vector<uint32_t> keys(n);
  uint64_t s = 7;
  for (auto &k : keys) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    k = (uint32_t)(s >> 32);
  }
  compute::context ctx(dev);
  compute::command_queue q(ctx, dev);
  compute::vector<uint32_t> pristine(keys.begin(), keys.end(), q), work(n, ctx);
  std::vector<double> ms;
  for (int r = 0; r < reps + 2; r++) {
    compute::copy(pristine.begin(), pristine.end(), work.begin(), q);
    q.finish();
    const auto t0 = std::chrono::steady_clock::now();
    compute::sort(work.begin(), work.end(), q);
    q.finish();
    const auto t1 = std::chrono::steady_clock::now();
    if (r >= 2)
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::vector<uint32_t> got(n);
  compute::copy(work.begin(), work.end(), got.begin(), q);
  std::sort(keys.begin(), keys.end());
  const bool ok = got == keys;
  std::sort(ms.begin(), ms.end());
  if (!ok) {
    std::printf("bc_sort on %s: uint32 n = 2^%d: WRONG\n", dev.name().c_str(), log2n);
    return 1;
  }
  std::printf("bc_sort on %s: uint32 n = 2^%d, median of %d: %.2f ms, %.3f G keys/s (verified)\n",
              dev.name().c_str(), log2n, reps, ms[ms.size() / 2], n / ms[ms.size() / 2] / 1e6);
  return 0;
}
