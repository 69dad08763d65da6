// The mixture-of-experts examples' own checks on the simulator. The grouped expert GEMMs
// (examples/moe/grouped_gemm.hpp), in bf16 and fp8: every candidate of their space, and sizes they
// cannot take, refused with their values; in bf16, groups' ends that decrease (a group without rows)
// or overrun X (a group cut at X's last row), never storing outside Y. The unpermute's expert count,
// refused below one.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "examples.hpp"
#include "expect_error.hpp"
#include "matmul_example.hpp"
#include "moe/grouped_gemm.hpp"
#include "moe/moe_permute.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

using examples::as_float;
using examples::MoeGroupedGemm;

// Every candidate the tuner may take, over 5 column blocks (so that a block's tiles go back to an
// earlier group when the rasterization starts its next panel) and over a single group; k = 320 and
// 160 end in a partial k-tile of fp8 (2.5 and 1.25 k-tiles of 128) and 160 one of bf16 (2.5 of 64).
TEST(MoeGroupedGemm, EveryCandidateMatchesTheHostReference) {
  const std::vector<std::string> tiles = {"block_m=128, consumer_warpgroups=2, block_n=128, stages=5",
                                          "block_m=64, consumer_warpgroups=1, block_n=128, stages=8"};
  std::vector<std::string> wider = tiles;
  wider.push_back("block_m=128, consumer_warpgroups=2, block_n=256, stages=3");
  wider.push_back("block_m=128, consumer_warpgroups=2, block_n=112, stages=6");
  const std::pair<const char*, const std::vector<std::string>*> kernels[] = {
      {"moe_grouped_gemm", &wider}, {"moe_grouped_gemm_fp8", &wider}, {"moe_grouped_gemm_fp8_block_scaled", &tiles}};
  for (const auto& [name, candidates] : kernels) {
    const auto& e = examples::find_example(name);
    for (int swizzle : {4, 8})
      for (const std::string& tile : *candidates)
        for (int tma_store : {1, 0}) {
          const std::string configuration = fmt::format("swizzle_size={}, {}, tma_store={}", swizzle, tile, tma_store);
          for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{150, 520, 320, 3}, {300, 72, 160, 1}}) {
            const cli::RunResult r = e.run(Device::simulator(), sizes, KernelOptions{.configuration = configuration});
            EXPECT_TRUE(r.ok) << r.summary << " [" << name << ": " << configuration << "]";
          }
        }
  }
}

TEST(MoeGroupedGemm, EndsThatDecreaseOrOverrunGiveGroupsWithoutRows) {
  const Device& dev = Device::simulator();
  const int rows = 100, n = 64, k = 64, guard_rows = 40;
  // Group 0 takes rows [0, 70); group 1 ends before it begins (no rows); group 2 ends past X's last
  // row, so it takes [70, 100); group 3 begins past the last row (no rows).
  const std::vector<int32_t> ends = {70, 30, 500, 900};
  const int groups = int(ends.size());
  const auto x = cli::random_vector<bf16>(size_t(rows) * k, 31),
             w = cli::random_vector<bf16>(size_t(groups) * n * k, 32);
  Buffer<bf16> dx(dev, x), dw(dev, w), dy(dev, cli::poisoned<bf16>(size_t(rows + guard_rows) * n));
  Buffer<int32_t> dends(dev, ends);
  Kernel<MoeGroupedGemm<bf16>> kernel(dev);
  kernel(rows, n, k, groups, dx, dw, dends, dy);
  const std::vector<bf16> got = dy.download();
  const std::vector<std::pair<int, int>> taken = {{0, 70}, {70, 100}};  // (first row, end) of groups 0 and 2
  const std::vector<int> expert = {0, 2};
  for (size_t g = 0; g < taken.size(); ++g) {
    const auto [first, end] = taken[g];
    const std::vector<float> want =
        examples::matmul_reference(as_float(x, size_t(first) * k, size_t(end - first) * k),
                                   as_float(w, size_t(expert[g]) * n * k, size_t(n) * k), end - first, n, k);
    for (int r = first; r < end; ++r)
      for (int c = 0; c < n; ++c)
        EXPECT_NEAR(float(got[size_t(r) * n + c]), want[size_t(r - first) * n + c],
                    1e-2 + 8e-3 * std::abs(want[size_t(r - first) * n + c]))
            << "row " << r << ", column " << c;
  }
  const std::vector<bf16> guard = cli::poisoned<bf16>(size_t(rows + guard_rows) * n);
  for (size_t i = size_t(rows) * n; i < got.size(); ++i)
    ASSERT_EQ(float(got[i]), float(guard[i])) << "element " << i << " past Y's last row was written";
}

TEST(MoeGroupedGemm, SizesItCannotTakeAreRefusedWithTheirValues) {
  const Device& dev = Device::simulator();
  Buffer<bf16> x(dev, std::vector<bf16>(100 * 64)), w(dev, std::vector<bf16>(2 * 100 * 64)),
      y(dev, std::vector<bf16>(100 * 100));
  Buffer<int32_t> ends(dev, std::vector<int32_t>{40, 100});
  const std::string where = source_at("examples/moe/grouped_gemm.hpp", "require(k > 0 && k % k_multiple == 0");
  EXPECT_EQ(error_of<MoeGroupedGemm<bf16>>(100, 100, 64, 2, x, w, ends, y),
            where +
                ": kernel MoeGroupedGemm_bf16: n and k must be positive multiples of 8 (the rows of X, W and Y start "
                "16-byte aligned for TMA) (this launch has k = 64, n = 100)");
  const std::string empty = source_at("examples/moe/grouped_gemm.hpp", "require(rows > 0 && groups > 0");
  EXPECT_EQ(error_of<MoeGroupedGemm<bf16>>(0, 64, 64, 2, x, w, ends, y),
            empty + ": kernel MoeGroupedGemm_bf16: X needs a row and W a group (this launch has rows = 0, groups = 2)");
}

// fp8 rows are k bytes, so TMA needs k in multiples of 16 where bf16's take 8.
TEST(MoeGroupedGemm, Fp8RowsMustBeWhole16ByteUnits) {
  const Device& dev = Device::simulator();
  Buffer<f8e4m3> x(dev, std::vector<f8e4m3>(100 * 72)), w(dev, std::vector<f8e4m3>(2 * 64 * 72));
  Buffer<float> scale_x(dev, std::vector<float>(100)), scale_w(dev, std::vector<float>(2 * 64));
  Buffer<bf16> y(dev, std::vector<bf16>(100 * 64));
  Buffer<int32_t> ends(dev, std::vector<int32_t>{40, 100});
  const std::string where = source_at("examples/moe/grouped_gemm.hpp", "require(k > 0 && k % k_multiple == 0");
  EXPECT_EQ(error_of<examples::MoeGroupedGemmFp8>(100, 64, 72, 2, x, w, ends, scale_x, scale_w, y),
            where +
                ": kernel MoeGroupedGemmFp8: n must be a positive multiple of 8 and k of 16 (the rows of X, W and Y "
                "start 16-byte aligned for TMA) (this launch has k = 72, n = 64)");
}

// A script object asking for tiles that straddle two blocks of W's scales.
struct BlockScaledTilesOf112 : examples::MoeGroupedGemmFp8BlockScaled {
  BlockScaledTilesOf112() { block_n = 112; }
  static Space space() { return Space{}; }
};

TEST(MoeGroupedGemm, BlockScaledTilesAreOneBlockOfScalesWide) {
  const Device& dev = Device::simulator();
  Buffer<f8e4m3> x(dev, std::vector<f8e4m3>(100 * 128)), w(dev, std::vector<f8e4m3>(2 * 128 * 128));
  Buffer<float> scale_x(dev, std::vector<float>(100)), scale_w(dev, std::vector<float>(2));
  Buffer<bf16> y(dev, std::vector<bf16>(100 * 128));
  Buffer<int32_t> ends(dev, std::vector<int32_t>{40, 100});
  const std::string where = source_at("examples/moe/grouped_gemm.hpp", "grouped_gemm::BlockScales scales(");
  EXPECT_EQ(error_of<BlockScaledTilesOf112>(100, 128, 128, 2, x, w, ends, scale_x, scale_w, y),
            where + ": BlockScales: tiles of 112 columns; one block scale of W covers 128");
}

TEST(MoeUnpermute, AnExpertCountBelowOneIsRefused) {
  const Device& dev = Device::simulator();
  Buffer<bf16> out(dev, std::vector<bf16>(64)), y(dev, std::vector<bf16>(64));
  Buffer<int32_t> place(dev, std::vector<int32_t>(4));
  Buffer<float> weight(dev, std::vector<float>(4));
  // Every candidate meets it while it is traced, so the tuner names it for all of them (and the log).
  const std::string got = error_of<examples::MoeUnpermute>(4, 4, 16, 0, out, place, weight, y);
  EXPECT_EQ(got.substr(0, got.find('\n')),
            "MoeUnpermute (top_k=0, tokens<=4, rows<=4, hidden<=16): none of the 30 candidates can run; the first, "
            "[block_rows=8, block_cols=512, warps=4, resident_blocks=0], is infeasible: MoeUnpermute: top_k is 0; a "
            "token takes at least "
            "one expert");
}

}  // namespace
}  // namespace tessel::testing
