// fp8 on the warpgroup tensor cores: the fp8 GEMM example against a host reference that decodes
// every fp8 value exactly, under every completion order and at the other point of its space; its
// candidates compiled for the H200; and the misuses of fp8 operands, reported at the user's line.

#include <gtest/gtest.h>

#include <cstring>

#include "cli.hpp"
#include "examples.hpp"
#include "expect_error.hpp"
#include "matmul_hopper/fp8_gemm.hpp"
#include "simulate.hpp"
#include "source_line.hpp"

namespace tessel {
namespace {

// Sizes that are and are not multiples of the 128 x 256 x 128 tile; k = 640 has more k-tiles than
// the 3 stages, so the ring wraps.
const std::vector<std::vector<int64_t>> sizes = {{128, 256, 640}, {200, 136, 320}};

TEST(Fp8Gemm, MatchesTheHostReferenceUnderEveryOrder) {
  for (const char* name : {"fp8_gemm", "fp8_gemm_e5m2", "fp8_gemm_rowwise", "int8_gemm_rowwise"})
    for (const std::vector<int64_t>& s : sizes)
      for (const KernelOptions& o : testing::every_order_options()) {
        const cli::RunResult r = examples::find_example(name).run(Device::simulator(), s, o);
        EXPECT_TRUE(r.ok) << name << " " << r.summary;
      }
}

// The block-scaled form on one multiprocessor, in both tiles of its space: one block walks all 6
// tiles of 128 x 128 (12 of 64 x 128), and its ring of 5 stages wraps within each (7 k-tiles), the
// ring of 8 across them.
TEST(Fp8Gemm, BlockScaledPersistentBlocksUnderEveryOrder) {
  for (const char* configuration :
       {"block_m=128, consumer_warpgroups=2, stages=5", "block_m=64, consumer_warpgroups=1, stages=8"})
    for (KernelOptions o : testing::every_order_options()) {
      o.sim.multiprocessors = 1;
      o.configuration = configuration;
      const cli::RunResult r =
          examples::find_example("fp8_gemm_block_scaled").run(Device::simulator(), {200, 264, 896}, o);
      EXPECT_TRUE(r.ok) << configuration << ": " << r.summary;
    }
}

// The decode tile whose stages hold two 128-column chunks of k, on one multiprocessor: one block
// walks all 12 tiles of 64 x 128, k = 896 is 3.5 stages (the last chunk past k, which TMA fills
// with zeros), and the ring of 4 wraps across tiles.
TEST(Fp8Gemm, StagesOfTwoChunksUnderEveryOrder) {
  for (KernelOptions o : testing::every_order_options()) {
    o.sim.multiprocessors = 1;
    o.configuration = "block_m=64, consumer_warpgroups=1, block_n=128, stages=4, k_chunks=2";
    const cli::RunResult r = examples::find_example("fp8_gemm").run(Device::simulator(), {200, 264, 896}, o);
    EXPECT_TRUE(r.ok) << r.summary;
  }
}

// The decode tile of 64 x 112 (whose output is one block of 112 columns, the last one cut at n =
// 232, and whose row scales are read past m and n masked), on two multiprocessors: k = 640 is 2.5
// stages of two chunks, so the ring of 4 wraps across the 3 x 3 tiles.
TEST(Fp8Gemm, TilesOf112ColumnsUnderEveryOrder) {
  for (const char* name : {"fp8_gemm", "fp8_gemm_rowwise"})
    for (KernelOptions o : testing::every_order_options()) {
      o.sim.multiprocessors = 2;
      o.configuration = "block_m=64, consumer_warpgroups=1, block_n=112, stages=4, k_chunks=2";
      const cli::RunResult r = examples::find_example(name).run(Device::simulator(), {136, 232, 640}, o);
      EXPECT_TRUE(r.ok) << name << " " << r.summary;
    }
}

// Row scales shorter than the rows they scale are refused at the view that reads them, before the
// kernel runs.
TEST(Fp8Gemm, RowScalesShorterThanTheRowsAreReportedAtTheirLoad) {
  const Device dev = Device::simulator();
  Buffer<f8e4m3> a(dev, cli::random_vector<f8e4m3>(size_t(130) * 128, 1, -4.0f, 4.0f)),
      b(dev, cli::random_vector<f8e4m3>(size_t(128) * 128, 2, -4.0f, 4.0f));
  Buffer<float> token_scales(dev, std::vector<float>(129, 1.0f)), channel_scales(dev, std::vector<float>(128, 1.0f));
  Buffer<bf16> d(dev, cli::poisoned<bf16>(size_t(130) * 128));
  using RowScaled = examples::hopper::MatmulFp8<f8e4m3, f8e4m3, bf16, examples::hopper::RowScales>;
  const std::string where =
      testing::source_at("examples/matmul_hopper/fp8_gemm.hpp", "token_scales = load_global(global_view(scale_a");
  EXPECT_EQ(testing::error_of<RowScaled>(130, 128, 128, token_scales, channel_scales, a, b, d),
            where +
                ": kernel MatmulFp8_f8e4m3_f8e4m3_bf16_RowScales: the global_view of parameter scale_a with shape "
                "[130, 1] and strides [1, 1] spans 130 elements, but the argument for scale_a holds 129; pass a "
                "larger tensor, or sizes that fit it");
  const std::vector<bf16> got = d.download(), poison = cli::poisoned<bf16>(got.size());
  EXPECT_EQ(std::memcmp(got.data(), poison.data(), got.size() * sizeof(bf16)), 0);  // the kernel did not run
}

// The block-scaled form's scales cover one chunk of a stage.
struct BlockScaledInChunks : examples::hopper::MatmulFp8<f8e4m3, f8e4m3, bf16, examples::hopper::BlockScales> {
  BlockScaledInChunks() { k_chunks = 2; }
  static Space space() { return Space{}; }
};

TEST(Fp8Gemm, BlockScaledStagesOfTwoChunksAreRefused) {
  const Device dev = Device::simulator();
  Buffer<f8e4m3> a(dev, std::vector<f8e4m3>(size_t(128) * 256)), b(dev, std::vector<f8e4m3>(size_t(128) * 256));
  Buffer<float> scale_a(dev, std::vector<float>(256, 1.0f)), scale_b(dev, std::vector<float>(2, 1.0f));
  Buffer<bf16> d(dev, cli::poisoned<bf16>(size_t(128) * 128));
  EXPECT_EQ(
      testing::error_of<BlockScaledInChunks>(128, 128, 256, scale_a, scale_b, a, b, d),
      "kernel BlockScaledInChunks: fp8_gemm_block_scaled: k_chunks must be 1; a stage's scales cover 128 columns of k");
}

// A's block scales come by TMA in rows of m floats, which must be whole 16-byte units.
TEST(Fp8Gemm, BlockScalesOfRowsNotMultiplesOfFourAreRefused) {
  const Device dev = Device::simulator();
  Buffer<f8e4m3> a(dev, std::vector<f8e4m3>(size_t(130) * 128)), b(dev, std::vector<f8e4m3>(size_t(128) * 128));
  Buffer<float> scale_a(dev, std::vector<float>(130, 1.0f)), scale_b(dev, std::vector<float>(1, 1.0f));
  Buffer<bf16> d(dev, cli::poisoned<bf16>(size_t(130) * 128));
  const std::string where = testing::source_at("examples/matmul_hopper/fp8_gemm.hpp", "require(m % 4 == 0");
  using BlockScaled = examples::hopper::MatmulFp8<f8e4m3, f8e4m3, bf16, examples::hopper::BlockScales>;
  EXPECT_EQ(testing::error_of<BlockScaled>(130, 128, 128, scale_a, scale_b, a, b, d),
            where +
                ": kernel MatmulFp8_f8e4m3_f8e4m3_bf16_BlockScales: m must be a multiple of 4: TMA reads A's scales "
                "[k / 128, m] in rows of whole 16 bytes (this launch has m = 130)");
  const std::vector<bf16> got = d.download(), poison = cli::poisoned<bf16>(got.size());
  EXPECT_EQ(std::memcmp(got.data(), poison.data(), got.size() * sizeof(bf16)), 0);  // the kernel did not run
}

TEST(Fp8Gemm, EveryCandidateCompilesForTheH200) {
  const testing::Cli r = testing::tessel("space fp8_gemm 4096 4096 4096 --gpu h200");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("10 feasible of 10 candidates on H200"), std::string::npos) << r.output;
}

// The space's other tile, 128 x 128 with 6 stages (8 k-tiles at k = 1024 wrap its ring).
struct Fp8Narrow : examples::hopper::MatmulFp8<f8e4m3> {
  Fp8Narrow() {
    block_n = 128;
    stages = 6;
  }
  static Space space() { return Space{}; }
};

TEST(Fp8Gemm, TheNarrowTileMatchesTheHostReference) {
  const std::vector<f8e4m3> a = cli::random_vector<f8e4m3>(size_t(64) * 1024, 1, -4.0f, 4.0f);
  const std::vector<f8e4m3> b = cli::random_vector<f8e4m3>(size_t(136) * 1024, 2, -4.0f, 4.0f);
  const Device dev = Device::simulator();
  Buffer<f8e4m3> da(dev, a), db(dev, b);
  Buffer<bf16> dd(dev, cli::poisoned<bf16>(size_t(64) * 136));
  Kernel<Fp8Narrow> kernel(dev);
  kernel(64, 136, 1024, 2.0f, 0.125f, da, db, dd);
  std::vector<float> want(size_t(64) * 136);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 136; ++j) {
      double acc = 0;
      for (int p = 0; p < 1024; ++p) acc += double(float(a[size_t(i) * 1024 + p])) * float(b[size_t(j) * 1024 + p]);
      want[size_t(i) * 136 + j] = float(acc * 0.25);
    }
  const cli::RunResult r = cli::compare(dd.download(), want, 2e-2, 8e-3, "fp8 128x128");
  EXPECT_TRUE(r.ok) << r.summary;
}

int line = 0;

// One wgmma of fp8 operands; the variant is the misuse.
enum class Misuse { MnMajorB, NarrowK, HalfTimesFp8 };
template <Misuse M> struct Fp8Mma : Script {
  void operator()(Ptr<f8e4m3>) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto acc = register_tensor<float>({64, M == Misuse::MnMajorB ? 128 : 64}, 0.0f);
    if constexpr (M == Misuse::MnMajorB) {  // B [k, n] with rows of 128 bytes, one swizzle span
      auto s_a = shared_tensor<f8e4m3>({64, 32});
      auto s_b = shared_tensor<f8e4m3>({32, 128});
      line = __LINE__ + 1;
      wgmma.mma(s_a, s_b, acc);
    } else if constexpr (M == Misuse::NarrowK) {
      auto s_a = shared_tensor<f8e4m3>({64, 16});
      auto s_b = shared_tensor<f8e4m3>({64, 16});
      line = __LINE__ + 1;
      wgmma.mma(s_a, s_b.transpose(), acc);
    } else {
      auto s_a = shared_tensor<f16>({64, 32});
      auto s_b = shared_tensor<f8e4m3>({64, 32});
      line = __LINE__ + 1;
      wgmma.mma(s_a, s_b.transpose(), acc);
    }
  }
};

template <Misuse M> std::string trace_error() {
  try {
    Kernel<Fp8Mma<M>>(Device::simulator()).cuda_source((f8e4m3*)nullptr);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string at_line(const std::string& message) { return fmt::format("{}:{}: {}", __FILE__, line, message); }

TEST(Fp8GemmMisuse, AnMnMajorFp8OperandIsReported) {
  const std::string got = trace_error<Misuse::MnMajorB>();
  EXPECT_EQ(got, at_line("wgmma.mma: b must be K-major: pass the transpose of a shared tile [n, k] whose rows run "
                         "along k (s_b.transpose()); this view has shape [32, 128] and strides [128, 1]"));
}

TEST(Fp8GemmMisuse, AnFp8KBelowOneInstructionIsReported) {
  const std::string got = trace_error<Misuse::NarrowK>();
  EXPECT_EQ(got, at_line("wgmma.mma: k = 16 does not fit; for 8-bit operands, k must be 32, 64 or 128 (one m64nNk32 "
                         "instruction per 32, and shared rows of 32, 64 or 128 bytes, one swizzle span)"));
}

TEST(Fp8GemmMisuse, A16BitOperandWithAnFp8OneIsReported) {
  const std::string got = trace_error<Misuse::HalfTimesFp8>();
  EXPECT_EQ(got, at_line("wgmma.mma: takes f16 or bf16 operands of one type, tf32 operands, or fp8 operands (f8e4m3, "
                         "f8e5m2, in any pairing), and an f32 accumulator; or 8-bit integer operands (i8, u8, in any "
                         "pairing) and an i32 accumulator; got f16 @ f8e4m3 into f32"));
}

}  // namespace
}  // namespace tessel
