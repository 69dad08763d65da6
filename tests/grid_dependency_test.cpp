// Programmatic dependent launch (grid_dependency) on the simulator: kernels that read what the
// kernel before them wrote after their wait, under every order; the race reported where one reads
// it before (by a load or a TMA copy), also through a kernel between; the host's copy ending the
// overlap, or a kernel between that lets the next start only when it ends; the target check; and the
// PTX it compiles to.
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
      "store_global of kernel ScaleAndShift at {} (launched before this kernel); {}",
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

// A dependent that leaves y alone and lets the next kernel start at once passes the overlap on: the
// kernel after it may still run beside the one that wrote y.
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

// A dependent between that lets the next kernel start only when it ends has waited by then: the
// kernel after it overlaps nothing that came before.
TEST(GridDependency, AKernelBetweenThatTriggersLateEndsTheOverlap) {
  const Device sim = Device::simulator();
  const std::vector<float> xs = dependent_launch_inputs(kN, 1), ws = dependent_launch_inputs(kN, 2);
  Buffer<float> x(sim, xs), y(sim, kN), w(sim, ws), other(sim, dependent_launch_inputs(kN, 3)), tripled(sim, kN),
      z(sim, std::vector<float>(kN, -1.0f));
  Kernel<ScaleAndShift>{sim}(kN, x, y);
  Kernel<TripleThroughTma<>>{sim}(kN, other, tripled);
  Kernel<AddAfterTheWait<true>>{sim}(kN, y, w, z);
  const std::vector<float> got = z.download();
  for (size_t i = 0; i < size_t(kN); ++i) ASSERT_EQ(got[i], xs[i] * 2.0f + 1.0f + ws[i]) << "element " << i;
}

// Atomics of two kernels that may run side by side are morally strong at gpu scope, and race at
// the scope of a block.
TEST(GridDependency, AtomicsOfOverlappingKernelsRaceOnlyBelowGpuScope) {
  const Device sim = Device::simulator();
  Buffer<int32_t> counter(sim, std::vector<int32_t>{0});
  Kernel<CountsItsBlocks<MemoryScope::gpu, 4>> gpu_scope(sim);
  for (int launch = 0; launch < 3; ++launch) gpu_scope(counter);
  EXPECT_EQ(counter.download(), std::vector<int32_t>{12});
  Kernel<CountsItsBlocks<MemoryScope::cta, 1>> cta_scope(sim);
  cta_scope(counter);
  const std::string add = source_at("tests/grid_dependency_kernels.hpp", "atomic.add(global_view(counter, {1})");
  EXPECT_EQ(error_of_call([&] { cta_scope(counter); }),
            add + ": data race on global memory, byte 0 of a 4-byte allocation: the atomic add at " + add +
                " by warp 0 of block (0, 0, 0) and the atomic add of kernel CountsItsBlocks_MemoryScope0_1 at " + add +
                " (launched before this kernel) are atomics that do not exclude each other: the scope cta of the "
                "atomic add at " +
                add +
                " by warp 0 of block (0, 0, 0) does not include the other's thread (PTX memory model: atomics are "
                "atomic with each other only when each one's scope includes the other's thread); give both a scope "
                "that includes both threads, such as MemoryScope::gpu");
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

// A kernel before that ran without race checking left no record of its accesses, so the
// dependent's accesses before its wait cannot be checked against them: the run says so at the wait.
TEST(GridDependency, AKernelBeforeLeftUncheckedIsNamedAtTheWait) {
  const Device sim = Device::simulator();
  Buffer<float> x(sim, dependent_launch_inputs(kN, 1)), y(sim, kN), w(sim, dependent_launch_inputs(kN, 2)), z(sim, kN);
  sim::Options unchecked;
  unchecked.check_races = false;
  std::vector<std::string> warnings;
  sim::Options checked;
  checked.on_warning = [&](const sim::Warning& warning) {
    warnings.push_back(warning.at.str() + ": " + warning.message);
  };
  Kernel<ScaleAndShift>(sim, KernelOptions{.sim = unchecked})(kN, x, y);
  Kernel<AddAfterTheWait<>> dependent(sim, KernelOptions{.sim = checked});
  dependent(kN, y, w, z);
  // The wait of the form that reads y after it: the line before that read.
  const std::string path = "tests/grid_dependency_kernels.hpp";
  const std::string wait = fmt::format("{}/{}:{}", TESSEL_SOURCE_DIR, path,
                                       line_of(path, "store_global(global_view(z, {n}), block(y) + weights") - 1);
  EXPECT_EQ(warnings, std::vector<std::string>{
                          wait + ": kernel AddAfterTheWait_false waits here for the kernels launched before it, "
                                 "and may run beside them until then, but ScaleAndShift ran without race checking "
                                 "(sim::Options::check_races): what it does before this wait is not checked "
                                 "against what that kernel did"});
  // A checked kernel before leaves its record: no warning.
  warnings.clear();
  Kernel<ScaleAndShift>{sim}(kN, x, y);
  dependent(kN, y, w, z);
  EXPECT_TRUE(warnings.empty());
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
