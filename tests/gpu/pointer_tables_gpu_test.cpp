// Pointers held in memory on the GPU: each block reads the matrix its table entry points to (u64
// and i64 tables), a pointer's f16 bytes are read as u32 words, and a pointer made from a
// parameter's address takes a tensor map. Skipped, visibly, without a GPU.
#include <bit>

#include "../pointer_table_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using PointerTablesOnGpu = GpuTest;

TEST_F(PointerTablesOnGpu, EachBlockReadsTheMatrixItsEntryPointsTo) {
  check_table_of_pointers<ScalesMatricesOfATable, uint64_t>(Device::gpu(), 7, {});
  check_table_of_pointers<ScalesMatricesOfASignedTable, int64_t>(Device::gpu(), 3, {});
}

TEST_F(PointerTablesOnGpu, APointersBytesAreReadAsAnotherType) { check_halves_as_words(Device::gpu(), {}); }

TEST_F(PointerTablesOnGpu, APointerMadeFromAParameterTakesATensorMap) {
  if (runtime::CudaDriver::get().device_info().cc_major < 9) GTEST_SKIP() << "TMA needs sm_90";
  std::mt19937 gen{23};
  std::vector<uint32_t> words(256);
  for (uint32_t& w : words) w = gen() & 0xbfffffffu;  // finite floats
  Buffer<uint32_t> x(Device::gpu(), words);
  Buffer<float> out(Device::gpu(), std::vector<float>(256, -1.0f));
  Kernel<TmaLoadThroughAReinterpretedParameter>(Device::gpu())(x, out);
  const auto got = out.download();
  for (size_t i = 0; i < words.size(); ++i) ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), words[i]) << i;
}

}  // namespace
}  // namespace tessel::testing
