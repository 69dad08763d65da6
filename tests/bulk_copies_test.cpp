// Bulk copies without a tensor map: rows gathered and scattered by a copy each under every
// completion order, the PTX the code generator writes, and runs that are misaligned or leave their
// row refused at the user's line (at the call when the offsets are constants, by the simulator
// otherwise).
#include <random>

#include "bulk_copy_kernels.hpp"
#include "expect_error.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

constexpr const char* kKernels = "tests/bulk_copy_kernels.hpp";

TEST(BulkCopies, RowsGatheredAndScatteredOneCopyEachUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    check_gathers_and_scatters(Device::simulator(), 64, 32, o);
    check_gathers_and_scatters(Device::simulator(), 100, 40, o);
  }
}

// e8m0 scales move as bytes, as TMA moves them.
TEST(BulkCopies, BlockScalesAreGatheredByRow) {
  std::mt19937 gen{5};
  std::vector<e8m0> scales(16 * 32);
  for (e8m0& s : scales) s = e8m0::from_bits(uint8_t(gen() % 255));  // every pattern but the NaN
  const std::vector<int32_t> index = {3, 15, 0, 7, 9, 1, 12, 4};
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<e8m0> dscales(Device::simulator(), scales);
    Buffer<int32_t> dindex(Device::simulator(), index);
    Buffer<float> out(Device::simulator(), std::vector<float>(8 * 32, -1.0f));
    Kernel<GathersScaleRows>(Device::simulator(), o)(16, dscales, dindex, out);
    const auto got = out.download();
    for (int p = 0; p < 8; ++p)
      for (int c = 0; c < 32; ++c)
        ASSERT_EQ(got[size_t(p * 32 + c)], float(scales[size_t(index[size_t(p)] * 32 + c)])) << p << ", " << c;
  }
}

TEST(BulkCopies, TheGeneratedCodeCopiesEachRunByOneInstruction) {
  Kernel<GathersAndScattersRows> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string src = k.cuda_source(64, 32, (float*)nullptr, (int32_t*)nullptr, (float*)nullptr, (float*)nullptr);
  EXPECT_NE(src.find("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"), std::string::npos) << src;
  EXPECT_NE(src.find("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], "
                     "%2, [%3], %4;"),
            std::string::npos)
      << src;
  EXPECT_EQ(src.find("tessel_tensor_map"), std::string::npos) << "a bulk copy takes no tensor map";
  for (const char* arch : {"sm_90a", "sm_100a"})
    EXPECT_FALSE(Kernel<GathersAndScattersRows>(Device::simulator(), KernelOptions{arch})
                     .cubin(64, 32, (float*)nullptr, (int32_t*)nullptr, (float*)nullptr, (float*)nullptr)
                     .empty());
}

// Debug mode checks each run in the issuing thread: inside its row and its allocation, and aligned.
TEST(BulkCopies, DebugModeChecksEveryRun) {
  KernelOptions debug{"sm_90a"};
  debug.debug = true;
  Kernel<GathersAndScattersRows> k(Device::simulator(), debug);
  const std::string src = k.cuda_source(64, 32, (float*)nullptr, (int32_t*)nullptr, (float*)nullptr, (float*)nullptr);
  for (const char* check :
       {"tessel_debug_bulk_run_outside(", "tessel_debug_misaligned_bulk_run(", "tessel_debug_outside<2>("})
    EXPECT_NE(src.find(check), std::string::npos) << check << "\n" << src;
  EXPECT_FALSE(k.cubin(64, 32, (float*)nullptr, (int32_t*)nullptr, (float*)nullptr, (float*)nullptr).empty());
}

TEST(BulkCopies, ABulkStoreIntoAReadOnlyViewIsRefused) {
  Buffer<float> x(Device::simulator(), std::vector<float>(256, 1.0f));
  const std::string store = source_at(kKernels, "tma.bulk_shared_to_global(s, global_view(x, {4, 64}).read_only()");
  EXPECT_EQ(error_of_call([&] { Kernel<BulkStoreIntoAReadOnlyView>(Device::simulator(), KernelOptions{"sm_90a"})(x); }),
            store + ": tma.bulk_shared_to_global: the view is read-only (made read_only() at " + store +
                "): its loads read through the non-coherent cache (ld.global.nc), which may keep the old bytes, so "
                "nothing may write them while the kernel runs; drop read_only() from the views of bytes the kernel "
                "writes");
}

TEST(BulkCopies, AMisalignedRunIsRefusedAtTheCall) {
  Buffer<float> x(Device::simulator(), std::vector<float>(256, 1.0f));
  EXPECT_EQ(error_of_call([&] { Kernel<BulkCopyOfAMisalignedRun>(Device::simulator(), KernelOptions{"sm_90a"})(x); }),
            source_at(kKernels, "tma.bulk_global_to_shared(global_view(x, {4, 64}), s, {0, 2}, bars[0]);") +
                ": tma.bulk_global_to_shared: the run starts at element 2 of its row, 8 bytes in; a bulk copy starts "
                "16-byte aligned, so the last offset must be a multiple of 4");
}

TEST(BulkCopies, ARunThatLeavesItsRowIsReportedByTheSimulator) {
  std::vector<float> values(256);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i);
  Buffer<float> x(Device::simulator(), values);
  Kernel<BulkCopyOfARunAtAColumn> k(Device::simulator(), KernelOptions{"sm_90a"});
  k(0, x);
  EXPECT_EQ(error_of_call([&] { k(32, x); }),
            source_at(kKernels, "tma.bulk_global_to_shared(global_view(x, {4, 64}), s, {1, first}, bars[0]);") +
                ": tma.bulk_global_to_shared: the run of 64 elements at element 32 of a row of 64 leaves the row; a "
                "bulk copy moves a run of one row (thread 0 of block (0, 0, 0))");
}

}  // namespace
}  // namespace tessel::testing
