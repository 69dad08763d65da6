// TMA loads of packed f4e2m1 and f6e2m3 elements into tiles of 16-element chunks (sm_100a): the
// image on the simulator under every completion order against the host's packing, boxes past the
// tensor's end filled with zeros, the code for sm_100a, and the misuse at the user's line.
#include <random>

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "simulate.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

using testing::every_order_options;

int line = 0;

// Two [16, 128] boxes of T at (row, col) and (rows - 8, cols - 128), the second half past the
// tensor's last row, into one tile of 16-element chunks, read back as f16.
template <class T> struct LoadsChunksByTma : Script {
  void operator()(Int32 rows, Int32 cols, Int32 row, Int32 col, Ptr<T> src, Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto g = global_view(src, {rows, cols});
    auto s = shared_tensor<T>({2, 16, 128}, Packing::chunks16);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], int(s.nbytes()));
      tma.global_to_shared(g, s[0], {row, col}, bars[0]);
      tma.global_to_shared(g, s[1], {rows - 8, cols - 128}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {2, 16, 128}), load_shared(s).template to<f16>(), {0, 0, 0});
  }
};

template <class T> void check_chunks_by_tma(const KernelOptions& options) {
  constexpr DType t = dtype_v<T>;
  const int rows = 40, cols = 384, row = 5, col = 128;
  std::mt19937 rng(uint32_t(dtype_bits(t)));
  std::vector<uint32_t> fields(size_t(rows) * cols);
  for (uint32_t& f : fields) f = uint32_t(rng()) & ((1u << dtype_bits(t)) - 1);
  const Device dev = Device::simulator();
  Buffer<uint8_t> src(dev, pack_bits(t, fields));
  Buffer<f16> out(dev, std::vector<f16>(2 * 16 * 128, f16(99.0f)));
  Kernel<LoadsChunksByTma<T>> kernel(dev, options);
  kernel(rows, cols, row, col, src, out);
  const std::vector<f16> got = out.download();
  for (int box = 0; box < 2; ++box)
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 128; ++c) {
        const int gr = box == 0 ? row + r : rows - 8 + r, gc = box == 0 ? col + c : cols - 128 + c;
        const float want = gr < rows ? float(value_from_bits(t, fields[size_t(gr) * cols + size_t(gc)])) : 0.0f;
        ASSERT_EQ(float(got[(size_t(box) * 16 + size_t(r)) * 128 + size_t(c)]), want)
            << dtype_name(t) << " box " << box << " at " << r << ", " << c;
      }
}

TEST(TmaPacked, LoadsSixteenElementsToEachChunkUnderEveryOrder) {
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_100a"})) {
    check_chunks_by_tma<f4e2m1>(o);
    check_chunks_by_tma<f6e2m3>(o);
  }
}

TEST(TmaPacked, CompilesForSm100a) {
  const KernelOptions sm100a{"sm_100a"};
  uint8_t* p = nullptr;
  f16* h = nullptr;
  const std::string fp4 =
      Kernel<LoadsChunksByTma<f4e2m1>>(Device::simulator(), sm100a).cuda_source(40, 384, 5, 128, p, h);
  EXPECT_NE(fp4.find("cp.async.bulk.tensor.2d"), std::string::npos) << fp4;
  EXPECT_FALSE(Kernel<LoadsChunksByTma<f6e2m3>>(Device::simulator(), sm100a).cubin(40, 384, 5, 128, p, h).empty());
}

// Loads packed elements into a dense tile.
struct LoadsPackedIntoADenseTile : Script {
  void operator()(Ptr<f4e2m1> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f4e2m1>({8, 128}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    tma.global_to_shared(global_view(in, {8, 128}), s, {0, 0}, bars[0]);
  }
};

// Loads boxes of 64 packed elements a row.
struct LoadsNarrowPackedRows : Script {
  void operator()(Ptr<f6e3m2> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f6e3m2>({8, 64}, Packing::chunks16);
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    tma.global_to_shared(global_view(in, {8, 128}), s, {0, 0}, bars[0]);
  }
};

// Loads a box whose rows start inside a chunk.
struct LoadsFromInsideAChunk : Script {
  void operator()(Ptr<f4e2m1> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f4e2m1>({8, 128}, Packing::chunks16);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], int(s.nbytes()));
      line = __LINE__ + 1;
      tma.global_to_shared(global_view(in, {8, 256}), s, {0, 8}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
  }
};

TEST(TmaPacked, MisuseIsReportedAtTheUsersLine) {
  const KernelOptions sm100a{"sm_100a"};
  const Device sim = Device::simulator();
  Buffer<uint8_t> bytes(sim, std::vector<uint8_t>(8 * 256, 0x5a));
  const auto at = [](const std::string& message) { return fmt::format("{}:{}: {}", __FILE__, line, message); };
  const std::string dense = testing::error_of_call([&] { Kernel<LoadsPackedIntoADenseTile>(sim, sm100a)(bytes); });
  EXPECT_EQ(dense, at("tma.global_to_shared: packed f4e2m1 elements load by TMA only into a tile of 16-element "
                      "chunks (shared_tensor<f4e2m1>(shape, Packing::chunks16)), the layout tcgen05 reads; to copy "
                      "the bytes as they lie, view them as u32 words"));
  const std::string sm90a = testing::error_of_call([&] {
    Kernel<LoadsNarrowPackedRows> kernel(sim);
    kernel(bytes);
  });
  EXPECT_EQ(sm90a, at("tma.global_to_shared: TMA of packed f6e3m2 elements into 16-element chunks needs sm_100a; the "
                      "kernel is compiled for sm_90a"));
  const std::string narrow = testing::error_of_call([&] { Kernel<LoadsNarrowPackedRows>(sim, sm100a)(bytes); });
  EXPECT_EQ(narrow, at("tma: the box's rows are 64 elements of f6e3m2; TMA moves packed elements in box rows of 128 "
                       "(8 chunks of 16 bytes in shared memory): make the tile's last extent 128"));
  const std::string inside = testing::error_of_call([&] { Kernel<LoadsFromInsideAChunk>(sim, sm100a)(bytes); });
  EXPECT_EQ(inside, at("tma.global_to_shared: the box starts at element 8 of the rows of packed f4e2m1 elements; TMA "
                       "moves them 16 to a chunk, so a box starts at a multiple of 16 (thread 0 of block (0, 0, 0))"));
}

}  // namespace
}  // namespace tessel
