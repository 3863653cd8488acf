// The host program every case kernel links into (build.sh -> build/hwcases).
//
//   hwcases list                            name, kernel, warps, instructions per warp
//   hwcases profile ITERS [NAME...]         launch each case with 0, ITERS and 2*ITERS loop
//                                           iterations (for ncu: the runner takes differences)
//   hwcases timing ITERS REPEATS [NAME...]  clock64() fallback: each warp's loop time for ITERS
//                                           and 2*ITERS iterations, the least of REPEATS runs,
//                                           one JSON object per line
//
// Every launch is one CTA; errors exit non-zero with the CUDA message.
#include "common.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kMaxThreads = 1024;

void check(cudaError_t err, const char *what, const char *name) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "hwcases: %s (%s): %s\n", what, name, cudaGetErrorString(err));
    std::exit(2);
  }
}

bool selected(const HwCase &c, int argc, char **argv, int first) {
  if (first >= argc) return true;
  for (int i = first; i < argc; ++i)
    if (std::strcmp(argv[i], c.name) == 0 || std::strcmp(argv[i], c.kernel) == 0) return true;
  return false;
}

void run(const HwCase &c, int iters, unsigned *out, long long *cycles) {
  c.launch(iters, 0u, out, cycles);  // zero = 0: see emit.py (keeps accesses in the loop)
  check(cudaGetLastError(), "launch", c.name);
  check(cudaDeviceSynchronize(), "kernel", c.name);
}

long long max_cycles(const HwCase &c, int iters, unsigned *out, long long *cycles) {
  run(c, iters, out, cycles);
  std::vector<long long> host(c.warps);
  check(cudaMemcpy(host.data(), cycles, sizeof(long long) * c.warps, cudaMemcpyDeviceToHost),
        "copy", c.name);
  return *std::max_element(host.begin(), host.end());
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: hwcases list | profile ITERS [NAME...] | "
                         "timing ITERS REPEATS [NAME...]\n");
    return 2;
  }
  const char *mode = argv[1];
  if (std::strcmp(mode, "list") == 0) {
    for (int i = 0; i < kHwNumCases; ++i)
      std::printf("%s %s %d %d\n", kHwCases[i].name, kHwCases[i].kernel, kHwCases[i].warps,
                  kHwCases[i].instrs);
    return 0;
  }
  unsigned *out = nullptr;
  long long *cycles = nullptr;
  check(cudaMalloc(&out, sizeof(unsigned) * kMaxThreads), "cudaMalloc", "out");
  check(cudaMalloc(&cycles, sizeof(long long) * (kMaxThreads / 32)), "cudaMalloc", "cycles");
  if (std::strcmp(mode, "profile") == 0 && argc >= 3) {
    const int iters = std::atoi(argv[2]);
    for (int i = 0; i < kHwNumCases; ++i) {
      const HwCase &c = kHwCases[i];
      if (!selected(c, argc, argv, 3)) continue;
      for (int n : {0, iters, 2 * iters}) run(c, n, out, nullptr);
      std::printf("profiled %s %s %d %d %d\n", c.name, c.kernel, 0, iters, 2 * iters);
    }
    return 0;
  }
  if (std::strcmp(mode, "timing") == 0 && argc >= 4) {
    const int iters = std::atoi(argv[2]);
    const int repeats = std::max(1, std::atoi(argv[3]));
    for (int i = 0; i < kHwNumCases; ++i) {
      const HwCase &c = kHwCases[i];
      if (!selected(c, argc, argv, 4)) continue;
      run(c, iters, out, cycles);  // warm-up
      long long one = -1, two = -1;
      for (int r = 0; r < repeats; ++r) {
        const long long a = max_cycles(c, iters, out, cycles);
        const long long b = max_cycles(c, 2 * iters, out, cycles);
        one = one < 0 ? a : std::min(one, a);
        two = two < 0 ? b : std::min(two, b);
      }
      std::printf("{\"case\": \"%s\", \"iters\": %d, \"cycles_n\": %lld, \"cycles_2n\": %lld}\n",
                  c.name, iters, one, two);
    }
    return 0;
  }
  std::fprintf(stderr, "hwcases: unknown mode or missing arguments: %s\n", mode);
  return 2;
}
