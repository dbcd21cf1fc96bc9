/*
 * clscan tools: bc_sort, Boost.Compute's sort of uint32 keys on an OpenCL device, the peer
 * reference of the radix sort's POCL target (docs/performance.md). It sorts 2^LOG2N uniform
 * random keys (seed 7) REPS times after two warm-ups on the device that CLSCAN_DEVICE names (a
 * substring of the platform or device name; default: Boost.Compute's default device), each from
 * a fresh copy of the keys, timed by the host's wall clock around boost::compute::sort and the
 * queue's finish; the last result is compared with std::sort of the same keys before the median
 * is printed. Exit status 1 if it differs, 2 for bad arguments.
 *
 *   build/bc_sort [LOG2N [REPS]]        (default 24 and 5)
 */
#include <algorithm>
#include <boost/compute.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace compute = boost::compute;

/* The device whose platform or device name contains CLSCAN_DEVICE, else the default one. */
static compute::device pick_device() {
  const char *want = std::getenv("CLSCAN_DEVICE");
  if (want)
    for (const auto &p : compute::system::platforms())
      for (const auto &d : p.devices())
        if (p.name().find(want) != std::string::npos || d.name().find(want) != std::string::npos)
          return d;
  return compute::system::default_device();
}

int main(int argc, char **argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24, reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (log2n < 1 || log2n > 30 || reps < 1) {
    std::fprintf(stderr, "usage: bc_sort [LOG2N [REPS]] (LOG2N 1..30, REPS at least 1)\n");
    return 2;
  }
  const size_t n = (size_t)1 << log2n;
  std::vector<uint32_t> keys(n);
  uint64_t s = 7;
  for (auto &k : keys) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    k = (uint32_t)(s >> 32);
  }
  compute::device dev = pick_device();
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
