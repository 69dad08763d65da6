// Debug mode without a GPU: the checks in the generated CUDA (bounded mbarrier waits and try_wait
// loops, global accesses against their allocations) with the user's lines, their compilation by
// NVRTC, the parameters they add, TESSEL_DEBUG, and calls that do not tune. What the checks report
// on a GPU is tested by tests/gpu/debug_gpu_test.cpp.
#include <cstdlib>

#include <gtest/gtest.h>

#include "cubin_params.hpp"
#include "debug_kernels.hpp"
#include "examples.hpp"
#include "filecheck.hpp"
#include "tessel/runtime/kernel_params.hpp"
#include "vector_add.hpp"

namespace tessel::testing {
namespace {

float* const no_data = nullptr;  // introspection only: nothing runs

KernelOptions debug_on(const std::string& arch) { return KernelOptions{.arch = arch, .debug = true}; }

bool is_cubin(const std::vector<char>& cubin) { return cubin.size() > 4 && std::string(cubin.data() + 1, 3) == "ELF"; }

// Sets TESSEL_DEBUG for its lifetime, so that a failing test leaves the others without it.
class DebugEnvironment {
 public:
  explicit DebugEnvironment(const char* value) { setenv("TESSEL_DEBUG", value, 1); }
  ~DebugEnvironment() { unsetenv("TESSEL_DEBUG"); }
  DebugEnvironment(const DebugEnvironment&) = delete;
  DebugEnvironment& operator=(const DebugEnvironment&) = delete;
};

TEST(DebugMode, MbarrierWaitsAreBoundedAndNameTheBarrierAndTheLine) {
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    Kernel<WaitsForAPhase> k(Device::simulator(), debug_on(arch));
    const std::string src = k.cuda_source(0u, no_data);
    const std::string wait = std::string(arch) == "sm_80" ? "mbarrier.test_wait.parity.shared::cta.b64"
                                                          : "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64";
    EXPECT_TRUE(file_check(src, fmt::format(R"(
      CHECK: for {} from kernel WaitsForAPhase ({}) in debug mode.
      CHECK: #include "tessel_debug.h"
      CHECK: const long long tessel_wait_start = tessel_debug_now_ns();
      CHECK-NEXT: for (;;) {{
      CHECK-NEXT: uint32_t tessel_completed;
      CHECK-NEXT: {}
      CHECK-NEXT: if (tessel_completed) break;
      CHECK-NEXT: if (tessel_debug_now_ns() - tessel_wait_start > tessel_debug_wait_ns) tessel_debug_wait_timed_out("{}", "bars", int(0), uint32_t(arg0), "{}");
    )",
                                            arch, debug_kernels_line(WaitsForAPhase::alloc_line), wait,
                                            debug_kernels_line(WaitsForAPhase::wait_line),
                                            debug_kernels_line(WaitsForAPhase::alloc_line))))
        << src;
    EXPECT_TRUE(is_cubin(k.cubin(0u, no_data))) << arch;
  }
}

TEST(DebugMode, TryWaitLoopsAreWatched) {
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    Kernel<SpinsForAPhase> k(Device::simulator(), debug_on(arch));
    const std::string src = k.cuda_source(0u, no_data);
    EXPECT_TRUE(file_check(
        src, fmt::format(R"(
      CHECK: long long tessel_try_wait_failing_since = -1;
      CHECK: while (
      CHECK: selp.u32
      CHECK-NEXT: = tessel_completed != 0;
      CHECK-NEXT: tessel_debug_watch_try_wait(tessel_completed != 0, tessel_try_wait_failing_since, "{}", "bars", int(0), uint32_t(arg0), "{}");
    )",
                         debug_kernels_line(SpinsForAPhase::try_line), debug_kernels_line(SpinsForAPhase::alloc_line))))
        << src;
    EXPECT_TRUE(is_cubin(k.cubin(0u, no_data))) << arch;
  }
}

TEST(DebugMode, GlobalAccessesAreCheckedAgainstTheirAllocations) {
  Kernel<DoublesARow> k(Device::simulator(), debug_on("sm_90a"));
  const std::string src = k.cuda_source(4096, no_data, no_data);
  const std::string load = debug_kernels_line(DoublesARow::load_line),
                    store = debug_kernels_line(DoublesARow::store_line);
  EXPECT_TRUE(file_check(src, fmt::format(R"(
    CHECK: tessel_DoublesARow(int32_t n, float* x, float* y, const tessel_allocation tessel_allocation_x, const tessel_allocation tessel_allocation_y)
    CHECK: // load_global [warps 0..3] ({0})
    CHECK: if (c0 >= 0 && c0 + 4 <= n) {{
    CHECK-NEXT: if (!tessel_debug_inside(tessel_allocation_x, p, 16)) tessel_debug_outside<1>("{0}", "load_global reads", "x", {{{{(long long)(c0)}}}}, {{{{(long long)(n)}}}}, p, 16, tessel_allocation_x);  // debug
    CHECK-NEXT: tessel_load_vec<float, 4>
    CHECK: if ((c0 >= 0 && c0 < n) && !tessel_debug_inside(tessel_allocation_x, &x[int64_t(c0) * 1], 4)) tessel_debug_outside<1>("{0}", "load_global reads", "x",
    CHECK-NEXT: r[l] = (c0 >= 0 && c0 < n) ? x[int64_t(c0) * 1]
    CHECK: // store_global [warps 0..3] ({1})
    CHECK: if (!tessel_debug_inside(tessel_allocation_y, p, 16)) tessel_debug_outside<1>("{1}", "store_global writes", "y",
    CHECK-NEXT: tessel_store_vec<float, 4>
    CHECK: !tessel_debug_inside(tessel_allocation_y, &y[int64_t(c0) * 1], 4)) tessel_debug_outside<1>("{1}", "store_global writes", "y",
    CHECK-NEXT: if (c0 >= 0 && c0 < n) y[int64_t(c0) * 1] = 
  )",
                                          load, store)))
      << src;
  EXPECT_TRUE(is_cubin(k.cubin(4096, no_data, no_data)));
}

TEST(DebugMode, TmaBoxesAreCheckedForTheirAlignment) {
  Kernel<CopiesABoxAtAColumn> k(Device::simulator(), debug_on("sm_90a"));
  const std::string src = k.cuda_source(64, 4, no_data, no_data);
  EXPECT_TRUE(file_check(src, fmt::format(R"(
    CHECK: // tma.global_to_shared
    CHECK: if ((long long)(int(arg1)) % 4 != 0) tessel_debug_misaligned_box("{}", "tma.global_to_shared", (long long)(int(arg1)), "f32", 4);  // debug
    CHECK-NEXT: cp.async.bulk.tensor.2d
  )",
                                          debug_kernels_line(CopiesABoxAtAColumn::load_line))))
      << src;
  EXPECT_TRUE(is_cubin(k.cubin(64, 4, no_data, no_data)));
}

// A packed box starts at the first element of a 16-element chunk; the kernel checks that instead,
// with the simulator's words (tests/tma_packed_test.cpp).
TEST(DebugMode, PackedTmaBoxesAreCheckedForTheirChunks) {
  Kernel<CopiesAPackedBoxAtAColumn> k(Device::simulator(), debug_on("sm_100a"));
  uint8_t* packed = nullptr;  // packed elements come as their bytes
  const std::string src = k.cuda_source(256, 16, packed);
  EXPECT_TRUE(file_check(src, fmt::format(R"(
    CHECK: // tma.global_to_shared
    CHECK: if ((long long)(int(arg1)) % 16 != 0) tessel_debug_misaligned_packed_box("{}", "tma.global_to_shared", (long long)(int(arg1)), "f4e2m1");  // debug
    CHECK-NEXT: cp.async.bulk.tensor.2d
  )",
                                          debug_kernels_line(CopiesAPackedBoxAtAColumn::load_line))))
      << src;
  EXPECT_TRUE(is_cubin(k.cubin(256, 16, packed)));
}

TEST(DebugMode, OffByDefaultAndTheCodeIsUnchanged) {
  Kernel<DoublesARow> plain(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  const std::string src = plain.cuda_source(4096, no_data, no_data);
  EXPECT_EQ(src.find("tessel_debug"), std::string::npos) << src;
  Kernel<WaitsForAPhase> wait(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  EXPECT_TRUE(file_check(wait.cuda_source(0u, no_data), R"(
    CHECK: #include "tessel_device.h"
    CHECK-NOT: tessel_debug
    CHECK: { .reg .pred ready; TESSEL_WAIT_%=: mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 ready,
  )"));
}

// The allocation parameters sit where the compiled kernel expects them: after the kernel's own, one
// 16-byte range per pointer.
TEST(DebugMode, AllocationParametersMatchTheCompiledKernel) {
  Kernel<DoublesARow> k(Device::simulator(), debug_on("sm_90a"));
  const std::vector<char> cubin = k.cubin(4096, no_data, no_data);
  const runtime::ParamLayout layout = runtime::ParamLayout::of(*k.lowered(4096, no_data, no_data), true);
  ASSERT_EQ(layout.slots().size(), 5u);
  EXPECT_EQ(layout.allocations(), 2u);
  std::vector<CubinParam> expected;
  for (const runtime::ParamSlot& s : layout.slots()) expected.push_back({s.offset, s.size});
  EXPECT_EQ(expected[3], (CubinParam{24, 16}));
  EXPECT_EQ(expected[4], (CubinParam{40, 16}));
  EXPECT_EQ(cubin_params(cubin, "tessel_DoublesARow"), expected);
}

// Representative examples compile in debug mode: cp.async, TMA with wgmma and setmaxnreg,
// tensor memory with cluster launch control.
TEST(DebugMode, ExamplesCompile) {
  for (const auto& [name, arch] : std::vector<std::pair<std::string, std::string>>{
           {"ampere_v4_pipelined", "sm_80"}, {"hopper_v5", "sm_90a"}, {"blackwell_v5", "sm_100a"}}) {
    const cli::KernelEntry& e = examples::find_example(name);
    const DebugEnvironment debug("1");
    EXPECT_NE(e.cuda(e.default_sizes, arch).find("#include \"tessel_debug.h\""), std::string::npos) << name;
    CompileStats stats;
    EXPECT_GT(e.compile(e.default_sizes, arch, "", &stats).size(), 0u) << name;
  }
}

TEST(DebugMode, TheEnvironmentTurnsItOn) {
  const auto source = [](const char* value) {
    const DebugEnvironment debug(value);
    return Kernel<DoublesARow>(Device::simulator()).cuda_source(4096, no_data, no_data);
  };
  EXPECT_NE(source("1").find("tessel_debug_inside"), std::string::npos);
  EXPECT_EQ(source("0").find("tessel_debug_inside"), std::string::npos);
}

// Debug builds are not timed: a call runs a recorded result or the first feasible candidate. On
// the simulator the call runs as ever.
TEST(DebugMode, ACallDoesNotTune) {
  int timed = 0;
  KernelOptions options = debug_on("sm_90a");
  options.tuning_timer = [&](const std::string&) { return double(++timed); };
  Kernel<examples::VectorAdd> add(Device::simulator(), options);
  const int n = 5000;
  Buffer<float> a(Device::simulator(), std::vector<float>(n, 1.0f)),
      b(Device::simulator(), std::vector<float>(n, 2.0f));
  Buffer<float> c(Device::simulator(), n);
  add(n, a, b, c);
  EXPECT_EQ(timed, 0);
  EXPECT_NE(add.stats().selection, Selection::Tuned);
  EXPECT_EQ(c.download(), std::vector<float>(n, 3.0f));
}

// The kernels the GPU tests break are broken: the simulator, which checks always, reports them at
// the same lines.
TEST(DebugMode, TheSimulatorReportsTheSameBugs) {
  const auto error_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  Buffer<float> out(Device::simulator(), std::vector<float>(32, 0.0f));
  Kernel<WaitsForAPhase> wait(Device::simulator());
  wait(0u, out);
  EXPECT_EQ(out.download(), std::vector<float>(32, 1.0f));
  const std::string hang = error_of([&] { wait(1u, out); });
  EXPECT_NE(hang.find(fmt::format("waiting at {} for barrier 0 of the array allocated at {} to complete its phase of "
                                  "parity 1",
                                  debug_kernels_line(WaitsForAPhase::wait_line),
                                  debug_kernels_line(WaitsForAPhase::alloc_line))),
            std::string::npos)
      << hang;

  Buffer<float> x(Device::simulator(), std::vector<float>(4096, 1.5f)), y(Device::simulator(), 1000);
  Kernel<DoublesARow> doubles(Device::simulator());
  // A raw pointer: a Buffer would be refused at launch, before the simulator's access check.
  const std::string outside = error_of([&] { doubles(4096, x, y.data()); });
  EXPECT_EQ(outside.rfind(debug_kernels_line(DoublesARow::store_line) + ": out-of-bounds global write", 0), 0u)
      << outside;
}

}  // namespace
}  // namespace tessel::testing
