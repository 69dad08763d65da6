// The simulator's speed on the seed kernels: wall-clock time of one simulated run of each
// Blackwell example at 256 x 256 x 512 on one core, checked against the host
// reference, median of a few runs; then the cost of race detection on Hopper ladder step 4 at the
// same size, run with and without it. Needs no GPU.
//   bench_simulator [runs]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "examples.hpp"

using namespace tessel;

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const std::vector<int64_t> sizes = {256, 256, 512};
  fmt::print("{:<16} {:>12} {:>12}  {}\n", "example", "median s", "best s", "result");
  int failures = 0;
  // The median seconds of `runs` runs of `name`, and its last result.
  const auto time = [&](const char* name, const sim::Options& options, cli::RunResult* last) {
    const cli::KernelEntry& e = examples::find_example(name);
    std::vector<double> seconds;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      *last = e.run(Device::simulator(), sizes, KernelOptions{.sim = options});
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(seconds.begin(), seconds.end());
    return seconds;
  };
  for (const char* name : {"blackwell_v0", "blackwell_v1", "blackwell_v2", "blackwell_v3", "blackwell_v4",
                           "blackwell_v5", "blackwell_v6"}) {
    cli::RunResult last;
    const std::vector<double> seconds = time(name, {}, &last);
    fmt::print("{:<16} {:>12.3f} {:>12.3f}  {}\n", name, seconds[seconds.size() / 2], seconds.front(), last.summary);
    failures += last.ok ? 0 : 1;
  }
  cli::RunResult checked_result, unchecked_result;
  const double checked = time("hopper_v4", {}, &checked_result)[size_t(runs) / 2];
  const double unchecked = time("hopper_v4", {.check_races = false}, &unchecked_result)[size_t(runs) / 2];
  fmt::print("\nhopper_v4 with race detection {:.3f} s, without {:.3f} s: {:.2f}x\n", checked, unchecked,
             checked / unchecked);
  failures += checked_result.ok && unchecked_result.ok ? 0 : 1;
  return failures == 0 ? 0 : 1;
}
