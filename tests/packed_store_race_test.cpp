// Race detection on packed stores: the generated code stores a packed element that does not move
// in whole words alone, with atomics on the bits of its word, so two threads that store the two
// halves of one byte do not race (rows of an odd number of 4-bit elements, one block each); two
// that store different values into the same bits do.
#include <random>

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "simulate.hpp"

namespace tessel::testing {
namespace {

int store_line = 0;

// Block b stores row b of x, as i4 (or, with `SameRow`, every block stores its values into row 0).
template <bool SameRow> struct StoresRowsOfNibbles : Script {
  void operator()(Int32 rows, Int32 k, Ptr<float> x, Ptr<i4> q) {
    attrs.blocks = rows;
    attrs.warps = 1;
    auto row = load_global(global_view(x, {rows, k}), {blockIdx.x, 0}, {1, 256});
    store_line = __LINE__ + 1;
    store_global(global_view(q, {rows, k}), row.to<i4>(saturate), {SameRow ? Expr<int32_t>(0) : blockIdx.x, 0});
  }
};

TEST(PackedStoreRaces, RowsThatShareAByteAreStoredWithoutARace) {
  constexpr int rows = 6, k = 37;  // rows of 18.5 bytes: each odd row starts in the middle of a byte
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> value(-8, 7);
  std::vector<float> x(rows * k);
  for (float& v : x) v = float(value(rng));
  std::vector<uint8_t> want(rows * k / 2, 0);
  for (int e = 0; e < rows * k; ++e) want[size_t(e / 2)] |= uint8_t((int(x[size_t(e)]) & 15) << (4 * (e % 2)));
  Buffer<float> dx(Device::simulator(), x);
  for (const sim::Options& o : every_order()) {
    Buffer<uint8_t> dq(Device::simulator(), std::vector<uint8_t>(want.size(), 0xee));
    simulate<StoresRowsOfNibbles<false>>(o, rows, k, dx, dq);
    EXPECT_EQ(dq.download(), want);
  }
}

TEST(PackedStoreRaces, BlocksStoringDifferentValuesIntoTheSameBitsRace) {
  constexpr int rows = 2, k = 37;
  std::vector<float> x(rows * k);
  for (int e = 0; e < rows * k; ++e) x[size_t(e)] = float(e % 16 - 8);
  Buffer<float> dx(Device::simulator(), x);
  Buffer<uint8_t> dq(Device::simulator(), std::vector<uint8_t>(rows * k / 2, 0xee));
  const std::string got = simulation_error<StoresRowsOfNibbles<true>>(sim::Options{}, rows, k, dx, dq);
  const std::string at = fmt::format("{}:{}", __FILE__, store_line);
  EXPECT_EQ(got.substr(0, got.find('\n')),
            fmt::format("{0}: data race on global memory, byte 0 of a 37-byte allocation: the store_global at {0} by "
                        "warp 0 of block (1, 0, 0) is not ordered after the store_global at {0} by warp 0 of block "
                        "(0, 0, 0); the two blocks share no sync(): give each block packed elements of its own "
                        "(atomics take no packed view), or hand the data over with an atomic release that the other "
                        "block acquires "
                        "(MemoryOrder::release and MemoryOrder::acquire, or fence.acq_rel() around relaxed atomics)",
                        at));
}

}  // namespace
}  // namespace tessel::testing
