// Scans on the simulator (scans_kernels.hpp) under every order, and a layout they cannot walk.
#include "expect_error.hpp"
#include "scans_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(Scans, AcrossWarpsAndWithinAWarp) {
  for (const sim::Options& o : every_order()) {
    check_scans<float>(Device::simulator(), o);
    check_scans<int32_t>(Device::simulator(), o);
  }
}

TEST(Scans, CompileForEveryTarget) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    float* f = nullptr;
    EXPECT_GT(Kernel<Scans<float>>(Device::simulator(), KernelOptions{arch}).cubin(f, f, f).size(), 0u) << arch;
  }
}

// Each thread holds 4 runs of 4 columns, 128 columns apart: no run of consecutive positions.
struct ScanOfInterleavedRuns : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    const Layout runs = Layout::local({1, 4}) * Layout::spatial({1, 32}) * Layout::local({1, 4});
    auto t = load_global(global_view(x, {1, 512}), {0, 0}, {1, 512}, runs);
    store_global(global_view(x, {1, 512}), cumsum(t, 1), {0, 0});
  }
};

TEST(Scans, ALayoutOutOfScanOrderIsRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(512, 1.0f));
  EXPECT_EQ(error_of<ScanOfInterleavedRuns>(x),
            source_at("tests/scans_test.cpp", "cumsum(t, 1)") +
                ": cumsum over dim 1: the layout layout[1,512](d0=1 d1=4x32x4; threads=d1.1; local=d1.0,d1.2) does "
                "not give each thread a run of consecutive positions along the dimension, the runs following the "
                "lanes and then the warps in order; pin one such as Layout::spatial(...) * Layout::local(...) with "
                "the threads outer and each thread's run inner along dim 1");
}

}  // namespace
}  // namespace tessel::testing
