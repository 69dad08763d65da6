// Swizzled shared tiles: the pattern, its conflict-freeness, and that every access path (stores,
// loads, cp.async) agrees on it, on the simulator and in generated code.
#include <set>

#include <gtest/gtest.h>

#include "async_copy_kernels.hpp"
#include "filecheck.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/layout/shared_swizzle.hpp"

namespace tessel::testing {
namespace {

TEST(SharedSwizzle, PermutesChunksWithinEachLine) {
  for (int bits = 1; bits <= 3; ++bits)
    for (int64_t line = 0; line < 16; ++line) {
      std::set<int64_t> chunks;
      for (int64_t c = 0; c < 8; ++c) {
        const int64_t b = swizzle_byte(line * 128 + c * 16 + 6, bits);
        EXPECT_EQ(b / 128, line);
        EXPECT_EQ(b % 16, 6);
        chunks.insert(b % 128 / 16);
      }
      EXPECT_EQ(chunks.size(), 8u);
    }
  EXPECT_EQ(swizzle_byte(128 + 16, 3), 128 + 0);
  EXPECT_EQ(swizzle_byte(7 * 128, 3), 7 * 128 + 7 * 16);
}

TEST(SharedSwizzle, AutomaticChoiceIsConflictFreeForLdmatrixRows) {
  EXPECT_EQ(bank_groups_touched(64, 0, 0), 2);   // unswizzled 64-byte rows: 4-way conflicts
  EXPECT_EQ(bank_groups_touched(128, 0, 0), 1);  // 128-byte rows: 8-way
  for (int row : {32, 64, 128}) {
    const int bits = conflict_free_swizzle_bits(row);
    for (int chunk = 0; chunk * 16 < row; ++chunk) EXPECT_EQ(bank_groups_touched(row, bits, chunk), 8) << row;
  }
  EXPECT_EQ(conflict_free_swizzle_bits(128), 3);
  EXPECT_EQ(conflict_free_swizzle_bits(64), 2);
  // Rows wider than a 128-byte line repeat the pattern every 4 rows: 2-way conflicts remain (such
  // tiles are split into 128-byte column blocks, as TMA and wgmma layouts do).
  EXPECT_EQ(bank_groups_touched(256, conflict_free_swizzle_bits(256), 0), 4);
}

template <Swizzle S> struct RoundTripThroughSwizzledTiles : Script {
  void operator()(Int32 m, Ptr<f16> in, Ptr<f16> out) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto a = shared_tensor<f16>({2, 64, 32}, S);
    auto b = shared_tensor<f16>({64, 32}, S);
    copy_async(global_view(in, {m, 32}), a[1], {0, 0});
    copy_async_wait_all();
    sync();
    store_shared(b, load_shared(a[1]) * 3.0f);
    sync();
    store_global(global_view(out, {32, 64}), load_shared(b.transpose()).to<f16>(), {0, 0});
  }
};

TEST(SharedSwizzle, EveryAccessPathAgreesOnThePattern) {
  std::vector<f16> in(64 * 32);
  for (int i = 0; i < 64 * 32; ++i) in[i] = f16(float(i % 61) - 30.0f);
  for (const Device& dev : {Device::simulator()}) {
    Buffer<f16> din(dev, in), dout(dev, std::vector<f16>(64 * 32, f16(0.5f)));
    Kernel<RoundTripThroughSwizzledTiles<Swizzle::automatic>> k(dev);
    k(64, din, dout);
    const auto out = dout.download();
    // out = (3 * in)^T viewed as [64, 32] row-major: out[j * 64 + i] = 3 * in[i * 32 + j].
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 32; ++j) ASSERT_EQ(float(out[j * 64 + i]), 3 * float(in[i * 32 + j])) << i << ", " << j;
  }
  Kernel<RoundTripThroughSwizzledTiles<Swizzle::automatic>> k(Device::simulator(), KernelOptions{"sm_80"});
  EXPECT_TRUE(file_check(ir::print(*k.lowered(64, (f16*)nullptr, (f16*)nullptr)), R"(
    CHECK: alloc_shared<f16>[2, 64, 32] offset=0 swizzle=64B
    CHECK: alloc_shared<f16>[64, 32] offset=8192 swizzle=64B
  )"));
  EXPECT_TRUE(file_check(k.cuda_source(64, (f16*)nullptr, (f16*)nullptr), R"(
    CHECK: tessel_swizzle<2>(
  )"));
  EXPECT_FALSE(k.cubin(64, (f16*)nullptr, (f16*)nullptr).empty());
}

// C = A @ B^T through shared tiles created without a Swizzle argument (or with `none` when
// kOptOut): choose_swizzles decides from how the tiles are read.
template <bool kOptOut> struct MatmulThroughShared : Script {
  void operator()(Ptr<f16> a, Ptr<f16> bt, Ptr<float> c, Ptr<float> a_sum) {
    attrs.blocks = 1;
    attrs.warps = 4;
    auto s_a = kOptOut ? shared_tensor<f16>({64, 32}, Swizzle::none) : shared_tensor<f16>({64, 32});
    auto s_b = kOptOut ? shared_tensor<f16>({64, 32}, Swizzle::none) : shared_tensor<f16>({64, 32});
    auto s_plain = shared_tensor<f16>({64, 32});  // read by plain loads only
    auto r_a = load_global(global_view(a, {64, 32}), {0, 0}, {64, 32});
    store_shared(s_a, r_a);
    store_shared(s_plain, r_a);
    store_shared(s_b, load_global(global_view(bt, {64, 32}), {0, 0}, {64, 32}));
    sync();
    auto acc = dot(load_shared(s_a), load_shared(s_b.transpose()), register_tensor<float>({64, 64}, 0.0f));
    store_global(global_view(c, {64, 64}), acc, {0, 0});
    store_global(global_view(a_sum, {64, 1}), sum(load_shared(s_plain).to<float>(), 1), {0, 0});
  }
};

template <class S> void check_matmul_through_shared() {
  const Device sim = Device::simulator();
  std::vector<f16> a(64 * 32), bt(64 * 32);
  for (int i = 0; i < 64 * 32; ++i) {
    a[i] = f16(float((i * 7) % 13) - 6.0f);
    bt[i] = f16(float((i * 5) % 11) - 5.0f);
  }
  Buffer<f16> da(sim, a), dbt(sim, bt);
  Buffer<float> dc(sim, std::vector<float>(64 * 64, NAN)), dsum(sim, std::vector<float>(64, NAN));
  Kernel<S> k(sim);
  k(da, dbt, dc, dsum);
  const auto c = dc.download(), sums = dsum.download();
  for (int i = 0; i < 64; ++i) {
    float row = 0;
    for (int kk = 0; kk < 32; ++kk) row += float(a[i * 32 + kk]);
    ASSERT_EQ(sums[i], row) << i;
    for (int j = 0; j < 64; ++j) {
      float want = 0;
      for (int kk = 0; kk < 32; ++kk) want += float(a[i * 32 + kk]) * float(bt[j * 32 + kk]);
      ASSERT_EQ(c[i * 64 + j], want) << i << ", " << j;
    }
  }
}

TEST(SharedSwizzle, TilesReadByLdmatrixAreSwizzledAutomatically) {
  check_matmul_through_shared<MatmulThroughShared<false>>();
  Kernel<MatmulThroughShared<false>> k(Device::simulator(), KernelOptions{"sm_80"});
  const std::string ir = ir::print(*k.lowered((f16*)nullptr, (f16*)nullptr, (float*)nullptr, (float*)nullptr));
  EXPECT_TRUE(file_check(ir, R"(
    CHECK: %s = alloc_shared<f16>[64, 32] offset=0 swizzle=64B
    CHECK-NEXT: %s.1 = alloc_shared<f16>[64, 32] offset=4096 swizzle=64B
    CHECK-NEXT: %s.2 = alloc_shared<f16>[64, 32] offset=8192
    CHECK-NOT: swizzle=
  )")) << ir;
  EXPECT_TRUE(file_check(k.cuda_source((f16*)nullptr, (f16*)nullptr, (float*)nullptr, (float*)nullptr), R"(
    CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
    CHECK: tessel_swizzle<2>(
  )"));
}

TEST(SharedSwizzle, SwizzleNoneOptsOut) {
  check_matmul_through_shared<MatmulThroughShared<true>>();
  Kernel<MatmulThroughShared<true>> k(Device::simulator(), KernelOptions{"sm_80"});
  const std::string ir = ir::print(*k.lowered((f16*)nullptr, (f16*)nullptr, (float*)nullptr, (float*)nullptr));
  EXPECT_EQ(ir.find("swizzle="), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessel::testing
