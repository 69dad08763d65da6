// Programmatic dependent launch (grid_dependency) on the simulator: kernels that read what the
// kernel before them wrote after their wait, under every order; the race reported where one reads
// it before (by a load or a TMA copy), also through a kernel between; the host's copy ending the
// overlap; the target check; and the PTX it compiles to.
#include <gmock/gmock.h>

#include "expect_error.hpp"
#include "grid_dependency_kernels.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kN = 4 * kDependentBlock;

TEST(GridDependency, ADependentReadsWhatTheKernelBeforeWroteAfterItsWait) {
  for (const sim::Options& o : every_order())
    check_dependent_launches(Device::simulator(), kN, KernelOptions{.sim = o});
}

const char* const kRemedy =
    "this kernel calls grid_dependency.wait(), so it is launched to run beside the kernels before it until its "
    "wait: make the access after grid_dependency.wait(), in the thread that waited or in one ordered after it (a "
    "sync(), an mbarrier phase)";

std::string produced_race(const std::string& access, const std::string& by, int byte) {
  const std::string store = source_at("tests/grid_dependency_kernels.hpp", "store_global(global_view(y, {n}), t");
  return fmt::format(
      "{}: data race on global memory, byte {} of a {}-byte allocation: the {} {} is not ordered after the "
      "store_global of kernel ScaleAndShift at {}, launched before this kernel; {}",
      access.substr(access.find(' ') + 4), byte, kN * 4, access, by, store, kRemedy);
}

// Runs ScaleAndShift and then `S` over its output as a dependent, and returns S's error.
template <class S, class... A> std::string dependent_error(const sim::Options& o, const A&... args) {
  const Device sim = Device::simulator();
  Buffer<float> x(sim, dependent_launch_inputs(kN, 1)), y(sim, kN);
  Kernel<ScaleAndShift>(sim, KernelOptions{.sim = o})(kN, x, y);
  return error_of_call([&] { Kernel<S>(sim, KernelOptions{.sim = o})(kN, y, args...); });
}

TEST(GridDependency, AReadBeforeTheWaitRacesWithTheKernelBefore) {
  const Device sim = Device::simulator();
  Buffer<float> w(sim, dependent_launch_inputs(kN, 2)), z(sim, kN);
  const std::string load = source_at("tests/grid_dependency_kernels.hpp", "return load_global(global_view(p, {n})");
  EXPECT_EQ(dependent_error<AddAfterTheWait<true>>(sim::Options{}, w, z),
            produced_race("load_global at " + load, "by warp 0 of block (0, 0, 0)", 0));
}

TEST(GridDependency, ATmaLoadIssuedBeforeTheWaitRacesWithTheKernelBefore) {
  const Device sim = Device::simulator();
  Buffer<float> z(sim, kN);
  const std::string copy = source_at("tests/grid_dependency_kernels.hpp", "tma.global_to_shared(global_view(y,");
  EXPECT_EQ(dependent_error<TripleThroughTma<true>>(sim::Options{}, z),
            produced_race("tma.global_to_shared at " + copy, "by warp 0 of block (0, 0, 0)", 0));
}

// A dependent that leaves y alone passes the overlap on: the kernel after it may still run beside
// the one that wrote y.
TEST(GridDependency, TheOverlapReachesPastAKernelBetween) {
  const Device sim = Device::simulator();
  Buffer<float> x(sim, dependent_launch_inputs(kN, 1)), y(sim, kN), w(sim, dependent_launch_inputs(kN, 2)),
      other(sim, dependent_launch_inputs(kN, 3)), z(sim, kN);
  Kernel<ScaleAndShift>{sim}(kN, x, y);
  Kernel<AddAfterTheWait<>>{sim}(kN, other, w, z);
  const std::string load = source_at("tests/grid_dependency_kernels.hpp", "return load_global(global_view(p, {n})");
  EXPECT_EQ(error_of_call([&] { Kernel<AddAfterTheWait<true>>{sim}(kN, y, w, z); }),
            produced_race("load_global at " + load, "by warp 0 of block (0, 0, 0)", 0));
}

// Reading y back waits for the kernel that wrote it, as cuMemcpyDtoH does: a kernel launched after
// that overlaps nothing.
TEST(GridDependency, TheHostsCopyEndsTheOverlap) {
  const Device sim = Device::simulator();
  const std::vector<float> xs = dependent_launch_inputs(kN, 1), ws = dependent_launch_inputs(kN, 2);
  Buffer<float> x(sim, xs), y(sim, kN), w(sim, ws), z(sim, std::vector<float>(kN, -1.0f));
  Kernel<ScaleAndShift>{sim}(kN, x, y);
  const std::vector<float> produced = y.download();
  Kernel<AddAfterTheWait<true>>{sim}(kN, y, w, z);
  const std::vector<float> got = z.download();
  for (size_t i = 0; i < size_t(kN); ++i) ASSERT_EQ(got[i], produced[i] + ws[i]) << "element " << i;
}

struct WaitsOnAmpere : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    grid_dependency.wait();
  }
};

TEST(GridDependency, NeedsSm90a) {
  float* p = nullptr;
  EXPECT_EQ(error_of_call([&] { Kernel<WaitsOnAmpere>(Device::simulator(), KernelOptions{"sm_80"}).cubin(p); }),
            source_at("tests/grid_dependency_test.cpp", "    grid_dependency.wait();") +
                ": grid_dependency.wait() needs sm_90a or newer; the kernel is compiled for sm_80");
}

// Each is one griddepcontrol instruction, and NVRTC and ptxas accept them on both targets.
TEST(GridDependency, CompilesToGriddepcontrol) {
  float* f = nullptr;
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    Kernel<ScaleAndShift> produce(Device::simulator(), KernelOptions{arch});
    EXPECT_THAT(produce.cuda_source(kN, f, f), HasSubstr("griddepcontrol.launch_dependents;"));
    EXPECT_GT(produce.cubin(kN, f, f).size(), 0u) << arch;
    Kernel<AddAfterTheWait<>> add(Device::simulator(), KernelOptions{arch});
    EXPECT_THAT(add.cuda_source(kN, f, f, f), HasSubstr("griddepcontrol.wait;"));
    EXPECT_GT(add.cubin(kN, f, f, f).size(), 0u) << arch;
  }
}

}  // namespace
}  // namespace tessel::testing
