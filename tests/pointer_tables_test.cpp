// Pointers held in memory: a table of pointers to separately allocated matrices read by each block,
// a pointer's bytes read as another element type, vector accesses where the alignment is promised,
// and the misuses refused at the user's line (a bad alignment at the call, a misaligned address by
// the simulator and debug mode, a TMA copy through a table's pointer before the launch).
#include <bit>

#include <fmt/format.h>

#include "expect_error.hpp"
#include "pointer_table_kernels.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

constexpr const char* kKernels = "tests/pointer_table_kernels.hpp";

TEST(PointerTables, EachBlockReadsTheMatrixItsEntryPointsTo) {
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    check_table_of_pointers<ScalesMatricesOfATable, uint64_t>(Device::simulator(), 5, o);
    check_table_of_pointers<ScalesMatricesOfASignedTable, int64_t>(Device::simulator(), 3, o);
  }
}

TEST(PointerTables, APointersBytesAreReadAsAnotherType) { check_halves_as_words(Device::simulator(), {}); }

// The promised alignment lets the loads move 16 bytes each unconditionally; with an element's
// alignment, the vector path is taken only where a test of the address at run time allows it.
TEST(PointerTables, APromisedAlignmentGivesVectorAccesses) {
  const std::string aligned = Kernel<ScalesMatricesOfATable>(Device::simulator(), KernelOptions{"sm_90a"})
                                  .cuda_source(4, static_cast<uint64_t*>(nullptr), static_cast<float*>(nullptr));
  EXPECT_NE(aligned.find("reinterpret_cast<float*>("), std::string::npos) << aligned;
  EXPECT_NE(aligned.find("tessel_load_vec<float, 4>("), std::string::npos) << aligned;
  EXPECT_EQ(aligned.find("% 16 == 0"), std::string::npos) << aligned;
  const std::string unaligned = Kernel<ScalesMatricesOfASignedTable>(Device::simulator(), KernelOptions{"sm_90a"})
                                    .cuda_source(4, static_cast<int64_t*>(nullptr), static_cast<float*>(nullptr));
  EXPECT_NE(unaligned.find("reinterpret_cast<uint64_t>(tile) % 16 == 0"), std::string::npos) << unaligned;
  EXPECT_NE(unaligned.find("ld.global.nc."), std::string::npos) << "the table is read as read-only\n" << unaligned;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"})
    EXPECT_FALSE(Kernel<ScalesMatricesOfATable>(Device::simulator(), KernelOptions{arch})
                     .cubin(4, static_cast<uint64_t*>(nullptr), static_cast<float*>(nullptr))
                     .empty())
        << arch;
}

TEST(PointerTables, AnAddressOffItsPromisedAlignmentIsReportedAtTheMakingLine) {
  Buffer<float> matrix(Device::simulator(), std::vector<float>(8 * 64 + 4, 1.0f));
  const uint64_t address = reinterpret_cast<uintptr_t>(matrix.data() + 1);
  Buffer<uint64_t> table(Device::simulator(), std::vector<uint64_t>{address});
  Buffer<float> out(Device::simulator(), std::vector<float>(8 * 64));
  EXPECT_EQ(error_of_call([&] { Kernel<ScalesMatricesOfATable>(Device::simulator())(1, table, out); }),
            fmt::format("{}: as_pointer: the address 0x{:x} is not aligned to the 16 bytes promised for a pointer to "
                        "f32 (thread 0 of block (0, 0, 0))",
                        source_at(kKernels, "Ptr<float> matrix = as_pointer<float>(address, 16);"), address));
}

// The promise holds for the accesses: an empty view over a misaligned address accesses nothing, as
// a table's entry for an empty group may be.
TEST(PointerTables, AnEmptyViewOverAMisalignedAddressIsNotReported) {
  Buffer<float> values(Device::simulator(), std::vector<float>(40, 2.5f));
  const uint64_t address = reinterpret_cast<uintptr_t>(values.data() + 1);
  Buffer<uint64_t> table(Device::simulator(), std::vector<uint64_t>{address});
  Buffer<float> out(Device::simulator(), std::vector<float>(32, -1.0f));
  Kernel<CopiesAPrefixThroughATable> k(Device::simulator());
  k(0, table, out);
  EXPECT_EQ(out.download(), std::vector<float>(32, -1.0f));
  EXPECT_EQ(error_of_call([&] { k(1, table, out); }),
            fmt::format("{}: as_pointer: the address 0x{:x} is not aligned to the 16 bytes promised for a pointer to "
                        "f32 (thread 0 of block (0, 0, 0))",
                        source_at(kKernels, "Ptr<float> prefix = as_pointer<float>(address, 16);"), address));
}

// A pointer computed from a parameter's address lies in that parameter's allocation, which debug
// mode checks its accesses against, beside the alignment.
TEST(PointerTables, DebugModeChecksAPointerFromAParameterAgainstItsAllocation) {
  KernelOptions debug{"sm_90a"};
  debug.debug = true;
  const std::string src = Kernel<ReadsHalvesAsWords>(Device::simulator(), debug)
                              .cuda_source(256, static_cast<f16*>(nullptr), static_cast<uint32_t*>(nullptr));
  EXPECT_NE(src.find("tessel_debug_misaligned_pointer("), std::string::npos) << src;
  // The load through the made pointer and the store to `words` are each checked, on the path of a
  // whole tile and on the element-wise one: four checks, where the store alone would make two.
  size_t checks = 0;
  for (size_t at = src.find("tessel_debug_outside<1>("); at != std::string::npos;
       at = src.find("tessel_debug_outside<1>(", at + 1))
    ++checks;
  EXPECT_EQ(checks, 4u) << src;
}

TEST(PointerTables, AnAlignmentThatIsNotAPowerOfTwoIsRefused) {
  Buffer<uint64_t> table(Device::simulator(), std::vector<uint64_t>{0});
  Buffer<float> out(Device::simulator(), std::vector<float>(32));
  EXPECT_EQ(error_of_call([&] { Kernel<MakesAPointerAlignedToSix>(Device::simulator())(table, out); }),
            source_at(kKernels, "Ptr<float> p = as_pointer<float>(address, 6);") +
                ": as_pointer<f32>: an alignment of 6 bytes; a pointer is aligned to a power of two bytes, at least "
                "its element's 4");
}

TEST(PointerTables, ATmaCopyThroughATablesPointerIsRefused) {
  Buffer<uint64_t> table(Device::simulator(), std::vector<uint64_t>{0});
  Buffer<float> out(Device::simulator(), std::vector<float>(256));
  EXPECT_EQ(error_of_call([&] { Kernel<TmaLoadThroughATableEntry>(Device::simulator())(table, out); }),
            source_at(kKernels, "tma.global_to_shared(global_view(entry, {8, 32}), s, {0, 0}, bars[0]);") +
                ": tma: the global view is over the pointer made at " +
                source_at(kKernels, "Ptr<float> entry = as_pointer<float>(address, 16);") +
                " from an address the kernel reads or computes; a tensor map is made on the host at launch, so a "
                "TMA copy needs a view over a parameter: copy the rows with tma.bulk_global_to_shared, which takes "
                "any pointer, or with copy_async");
}

TEST(PointerTables, APointerMadeFromAParameterTakesATensorMap) {
  std::mt19937 gen{23};
  std::vector<uint32_t> words(256);
  for (uint32_t& w : words) w = gen() & 0xbfffffffu;  // finite floats
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<uint32_t> x(Device::simulator(), words);
    Buffer<float> out(Device::simulator(), std::vector<float>(256, -1.0f));
    Kernel<TmaLoadThroughAReinterpretedParameter>(Device::simulator(), o)(x, out);
    const auto got = out.download();
    for (size_t i = 0; i < words.size(); ++i) ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), words[i]) << i;
  }
}

// Debug mode checks the promise on the GPU, where the launch knows no allocation for the pointer.
TEST(PointerTables, DebugModeChecksThePromisedAlignment) {
  KernelOptions debug{"sm_90a"};
  debug.debug = true;
  Kernel<ScalesMatricesOfATable> k(Device::simulator(), debug);
  const std::string src = k.cuda_source(4, static_cast<uint64_t*>(nullptr), static_cast<float*>(nullptr));
  EXPECT_NE(src.find("% 16 != 0) tessel_debug_misaligned_pointer("), std::string::npos) << src;
  EXPECT_FALSE(k.cubin(4, static_cast<uint64_t*>(nullptr), static_cast<float*>(nullptr)).empty());
}

}  // namespace
}  // namespace tessel::testing
