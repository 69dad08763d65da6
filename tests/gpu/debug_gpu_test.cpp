// Debug mode on the GPU: correct kernels run as before; a wait for a phase that never completes and
// a store past the end of its buffer stop the kernel with a report of the user's line, and the call
// fails with an error naming the kernel and the call; a TMA view past its buffer is refused before
// the launch. A kernel that traps leaves the process's GPU
// context unusable, so each failing call runs in a process of its own: a death test in the
// "threadsafe" style runs this program again for it.
#include "../debug_kernels.hpp"
#include "../pointer_table_kernels.hpp"
#include "../tma_kernels.hpp"
#include "examples.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

class DebugOnGpu : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

const KernelOptions kDebug{.debug = true};

const char* const kCallFailed =
    ". Debug mode waits for every launch, so this call caused it; a debug check that failed printed its report "
    "above. The GPU context cannot be used again in this process";

TEST_F(DebugOnGpu, ExamplesRunAsBefore) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> cases = {
      {"vector_add", {1000003}}, {"row_softmax", {333, 4096}}, {"ampere_v4_pipelined", {300, 257, 96}}};
  if (runtime::CudaDriver::get().device_info().cc_major == 9)
    cases.insert(cases.end(),
                 {{"hopper_v2", {300, 257, 296}}, {"hopper_v4", {300, 1400, 296}}, {"hopper_v5", {2048, 2048, 1024}}});
  for (const auto& [name, sizes] : cases) {
    const cli::RunResult r = examples::find_example(name).run(Device::gpu(), sizes, kDebug);
    EXPECT_TRUE(r.ok) << r.summary;
  }
}

TEST_F(DebugOnGpu, AWaitForAPhaseThatNeverCompletesIsReported) {
  Kernel<WaitsForAPhase>(Device::simulator()).traced(1u, static_cast<float*>(nullptr));  // records the lines
  EXPECT_EXIT(run_and_exit([] {
                const Device gpu = Device::gpu();
                Buffer<float> out(gpu, std::vector<float>(32, 0.0f));
                Kernel<WaitsForAPhase> k(gpu, kDebug);
                k(0u, out);  // the phase that completes
                if (out.download() != std::vector<float>(32, 1.0f)) throw Error("the first call wrote wrong values");
                k(1u, out);
              }),
              ::testing::ExitedWithCode(3),
              contains_in_order({fmt::format("tessel debug: {}: mbarrier wait timed out: barrier bars[0] (allocated "
                                             "at {}) did not complete its phase of parity 1 within 4 seconds "
                                             "(block (0, 0, 0), thread ",
                                             debug_kernels_line(WaitsForAPhase::wait_line),
                                             debug_kernels_line(WaitsForAPhase::alloc_line)),
                                 "error: kernel WaitsForAPhase, call 2, failed on the GPU: CUDA_ERROR_", kCallFailed}));
}

TEST_F(DebugOnGpu, ATryWaitLoopThatNeverEndsIsReported) {
  if (runtime::CudaDriver::get().device_info().cc_major < 9) GTEST_SKIP() << "mbarrier.try_wait needs sm_90";
  Kernel<SpinsForAPhase>(Device::simulator()).traced(1u, static_cast<float*>(nullptr));
  EXPECT_EXIT(run_and_exit([] {
                const Device gpu = Device::gpu();
                Buffer<float> out(gpu, std::vector<float>(32, 0.0f));
                Kernel<SpinsForAPhase> k(gpu, kDebug);
                k(1u, out);
              }),
              ::testing::ExitedWithCode(3),
              contains_in_order({fmt::format("tessel debug: {}: mbarrier wait timed out: barrier bars[0] (allocated "
                                             "at {}) did not complete its phase of parity 1 within",
                                             debug_kernels_line(SpinsForAPhase::try_line),
                                             debug_kernels_line(SpinsForAPhase::alloc_line)),
                                 "error: kernel SpinsForAPhase, call 1, failed on the GPU: CUDA_ERROR_", kCallFailed}));
}

TEST_F(DebugOnGpu, AStorePastTheEndOfItsBufferIsReported) {
  Kernel<DoublesARow>(Device::simulator()).traced(1, static_cast<float*>(nullptr), static_cast<float*>(nullptr));
  const int wide = 1 << 22;  // elements: far past any rounding of a 1000-element allocation
  EXPECT_EXIT(run_and_exit([&] {
                const Device gpu = Device::gpu();
                Buffer<float> x(gpu, std::vector<float>(size_t(wide), 1.5f)), y(gpu, std::vector<float>(1000, 0.0f));
                Kernel<DoublesARow> k(gpu, kDebug);
                k(1000, x, y);  // inside the buffers
                if (y.download() != std::vector<float>(1000, 3.0f)) throw Error("the first call wrote wrong values");
                k(wide, x, y.data());  // a raw pointer: the launch does not know y's extent
              }),
              ::testing::ExitedWithCode(3),
              contains_in_order({fmt::format("tessel debug: {}: store_global writes outside the allocation of y: "
                                             "element (",
                                             debug_kernels_line(DoublesARow::store_line)),
                                 fmt::format(") of the view of shape ({}) is ", wide), " bytes at byte ",
                                 "-byte allocation (block (",
                                 "error: kernel DoublesARow, call 2, failed on the GPU: CUDA_ERROR_", kCallFailed}));
}

// A box that starts off TMA's 16-byte alignment, which Hopper answers with an illegal instruction and
// no line, is reported at the copy's line.
TEST_F(DebugOnGpu, AMisalignedTmaBoxIsReported) {
  if (runtime::CudaDriver::get().device_info().cc_major < 9) GTEST_SKIP() << "TMA needs sm_90";
  Kernel<CopiesABoxAtAColumn>(Device::simulator())
      .traced(64, 4, static_cast<float*>(nullptr), static_cast<float*>(nullptr));
  EXPECT_EXIT(
      run_and_exit([&] {
        const Device gpu = Device::gpu();
        std::vector<float> x(8 * 64);
        for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
        Buffer<float> dx(gpu, x), y(gpu, std::vector<float>(8 * 32, 0.0f));
        Kernel<CopiesABoxAtAColumn> k(gpu, kDebug);
        k(64, 4, dx, y);  // aligned
        if (y.download()[33] != x[64 + 4 + 1]) throw Error("the first call copied wrong values");
        k(64, 3, dx, y);
      }),
      ::testing::ExitedWithCode(3),
      contains_in_order({fmt::format("tessel debug: {}: tma.global_to_shared: the last offset (the innermost "
                                     "dimension) is 3, 12 bytes from the start of a row of f32; TMA needs a "
                                     "box's first element 16-byte aligned in global memory, so that offset "
                                     "must be a multiple of 4 (block (0, 0, 0), thread 0)",
                                     debug_kernels_line(CopiesABoxAtAColumn::load_line)),
                         "error: kernel CopiesABoxAtAColumn, call 2, failed on the GPU: CUDA_ERROR_", kCallFailed}));
}

// A bulk copy is not clipped to its view: a run past its row would read the next row's bytes, or
// past the allocation, with no fault; debug mode stops it at the copy's line.
TEST_F(DebugOnGpu, ABulkRunThatLeavesItsRowIsReported) {
  if (runtime::CudaDriver::get().device_info().cc_major < 9) GTEST_SKIP() << "bulk copies need sm_90";
  Kernel<BulkCopiesARunAtAColumn>(Device::simulator())
      .traced(0, static_cast<float*>(nullptr), static_cast<float*>(nullptr));
  EXPECT_EXIT(run_and_exit([&] {
                const Device gpu = Device::gpu();
                std::vector<float> x(4 * 64);
                for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
                Buffer<float> dx(gpu, x), y(gpu, std::vector<float>(32, 0.0f));
                Kernel<BulkCopiesARunAtAColumn> k(gpu, kDebug);
                k(32, dx, y);  // the row's last 32 elements
                if (y.download()[31] != x[64 + 63]) throw Error("the first call copied wrong values");
                k(36, dx, y);
              }),
              ::testing::ExitedWithCode(3),
              contains_in_order(
                  {fmt::format("tessel debug: {}: tma.bulk_global_to_shared: the run of 32 elements at element "
                               "36 of a row of 64 leaves the row; a bulk copy moves a run of one row (block "
                               "(0, 0, 0), thread 0)",
                               debug_kernels_line(BulkCopiesARunAtAColumn::load_line)),
                   "error: kernel BulkCopiesARunAtAColumn, call 2, failed on the GPU: CUDA_ERROR_", kCallFailed}));
}

// A pointer read from a table that is not as aligned as promised would fault on a vector load with
// no line; debug mode stops the kernel at the access, naming the line that made the pointer.
TEST_F(DebugOnGpu, APointerOffItsPromisedAlignmentIsReported) {
  Kernel<ScalesMatricesOfATable>(Device::simulator())
      .traced(1, static_cast<uint64_t*>(nullptr), static_cast<float*>(nullptr));
  EXPECT_EXIT(
      run_and_exit([&] {
        const Device gpu = Device::gpu();
        Buffer<float> matrix(gpu, std::vector<float>(8 * 64 + 4, 1.0f)), out(gpu, std::vector<float>(512));
        Buffer<uint64_t> table(gpu, std::vector<uint64_t>{reinterpret_cast<uintptr_t>(matrix.data() + 1)});
        Kernel<ScalesMatricesOfATable>(gpu, kDebug)(1, table, out);
      }),
      ::testing::ExitedWithCode(3),
      contains_in_order({fmt::format("tessel debug: {}: load_global reads: the pointer made at {} is 0x",
                                     pointer_table_kernels_line(ScalesMatricesOfATable::load_line),
                                     pointer_table_kernels_line(ScalesMatricesOfATable::made_line)),
                         ", which is not aligned to the 16 bytes promised (block (0, 0, 0), thread ",
                         "error: kernel ScalesMatricesOfATable, call 1, failed on the GPU: CUDA_ERROR_", kCallFailed}));
}

// A TMA view larger than its buffer is refused before the launch, so the process goes on.
TEST_F(DebugOnGpu, ATmaViewPastItsBufferIsRefusedBeforeTheLaunch) {
  if (runtime::CudaDriver::get().device_info().cc_major < 9) GTEST_SKIP() << "TMA needs sm_90";
  const Device gpu = Device::gpu();
  Kernel<LoadTileByTma<float, 32, 32, Swizzle::none>> k(gpu, kDebug);
  Buffer<float> small(gpu, std::vector<float>(32 * 32, 1.0f)), out(gpu, std::vector<float>(1024 * 1024, 0.0f));
  std::string error = "no error";
  try {
    k(1024, 1024, small.data(), out);  // a raw pointer: the launch does not know the extent
  } catch (const Error& e) {
    error = e.message();
  }
  EXPECT_EQ(error.rfind("debug mode: the global view that TMA accesses here spans 4194304 bytes from its pointer, but "
                        "the allocation the pointer lies in ends ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find(" bytes after it; check the global_view's shape and strides against the buffer"),
            std::string::npos)
      << error;
  k(32, 32, small, out);
  gpu.synchronize();
  EXPECT_EQ(out.download()[0], 2.0f);
}

}  // namespace
}  // namespace tessel::testing
