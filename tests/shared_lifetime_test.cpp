// free_shared: the planner gives a freed tile's bytes to tiles allocated after the free, never to
// two tiles alive at once; the simulator orders accesses across the reuse; misuse is refused at the
// user's line.
#include <random>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

// y = x transposed through one shared tile, then y + 1 through a second tile of another type that
// takes the first one's bytes (block of 64 x 64 elements).
template <bool SyncBeforeReuse> struct TransposeThenIncrement : Script {
  void operator()(Int32 n, Ptr<float> x, Ptr<float> y) {
    attrs.blocks = cdiv(n, 64);
    attrs.warps = 4;
    const Int32 row = blockIdx.x * 64;
    auto staging = shared_tensor<float>({64, 64});
    store_shared(staging, load_global(global_view(x, {n, 64}), {row, 0}, {64, 64}));
    sync();
    auto transposed = load_shared(staging.transpose());
    if constexpr (SyncBeforeReuse) sync();
    free_shared(staging);
    auto halves = shared_tensor<f16>({64, 64});
    store_shared(halves, transposed.to<f16>());
    sync();
    auto back = load_shared(halves).to<float>() + 1.0f;
    store_global(global_view(y, {64, n}), back, {0, row});
  }
};

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-512, 512);
  std::vector<float> v(n);
  for (float& e : v) e = float(d(rng)) / 8;  // exact in f16
  return v;
}

TEST(SharedLifetime, AFreedTilesBytesGoToTheNextTileUnderEveryOrder) {
  const int n = 128;
  const std::vector<float> x = random_values(size_t(n) * 64, 3);
  for (const sim::Options& order : every_order()) {
    const Device dev = Device::simulator();
    Buffer<float> dx(dev, x), dy(dev, std::vector<float>(x.size(), std::nanf("")));
    simulate<TransposeThenIncrement<true>>(order, n, dx, dy);
    const std::vector<float> y = dy.download();
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < 64; ++c) ASSERT_EQ(y[size_t(c) * n + r], x[size_t(r) * 64 + c] + 1) << r << ", " << c;
  }
}

TEST(SharedLifetime, ThePlanSharesTheFreedBytesAndSaysWhereTheyWereFreed) {
  Kernel<TransposeThenIncrement<true>> k(Device::simulator());
  const ir::Kernel lowered = k.lowered(128, (float*)nullptr, (float*)nullptr);
  EXPECT_EQ(lowered->shared_bytes, 64 * 64 * 4) << "the f16 tile lies in the f32 tile's bytes";
  EXPECT_TRUE(file_check(ir::print(*lowered),
                         fmt::format(R"(
    CHECK: // shared memory plan: 16384 bytes in 2 allocations
    CHECK-NEXT: f32[64, 64] at bytes [0, 16384) aligned to 128, unswizzled, freed at {}
    CHECK-NEXT: f16[64, 64] at bytes [0, 8192)
    CHECK: free_shared %s
  )",
                                     source_at("tests/shared_lifetime_test.cpp", "free_shared(staging);"))));
}

TEST(SharedLifetime, AReuseThatNothingOrdersAfterTheLastReadIsARace) {
  const int n = 64;
  const std::vector<float> x = random_values(size_t(n) * 64, 4);
  Buffer<float> dx(Device::simulator(), x), dy(Device::simulator(), std::vector<float>(x.size()));
  const std::string got = error_of<TransposeThenIncrement<false>>(n, dx, dy);
  const std::string path = "tests/shared_lifetime_test.cpp";
  EXPECT_EQ(got, fmt::format("{}: data race on shared memory that tiles take in turn after a free_shared, the tile "
                             "allocated at {} (its byte 24) and the tile allocated at {} (its byte 24), in block (0, "
                             "0, 0): the load_shared at {} by warp 3 of block (0, 0, 0) is not ordered after the "
                             "store_shared at {} by warp 0 of block (0, 0, 0); order them with a sync(), an mbarrier "
                             "arrival and a wait on its phase, or the wait that retires the asynchronous operation",
                             source_at(path, "auto transposed = load_shared(staging.transpose());"),
                             source_at(path, "auto staging = shared_tensor<float>({64, 64});"),
                             source_at(path, "auto halves = shared_tensor<f16>({64, 64});"),
                             source_at(path, "auto transposed = load_shared(staging.transpose());"),
                             source_at(path, "store_shared(halves, transposed.to<f16>());")));
}

// Tiles alive together never share bytes: a tile allocated after a free but while an earlier tile
// lives, and a tile allocated in a loop that its body does not free (it lives across iterations).
struct Lifetimes : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto a = shared_tensor<float>({256});
    auto b = shared_tensor<float>({128});
    store_shared(a, register_tensor<float>({256}, 1.0f));
    store_shared(b, register_tensor<float>({128}, 2.0f));
    sync();
    free_shared(a);
    for (Int32 i : range(0, 2)) {
      auto c = shared_tensor<float>({64});
      auto d = shared_tensor<float>({64});
      store_shared(c, load_shared(b, {0}, {64}));
      store_shared(d, load_shared(b, {64}, {64}));
      sync();
      free_shared(d);
      store_global(global_view(x, {64}), load_shared(c), {0});
    }
  }
};

TEST(SharedLifetime, TilesAliveTogetherNeverShareBytes) {
  Kernel<Lifetimes> k(Device::simulator());
  EXPECT_TRUE(file_check(ir::print(*k.lowered((float*)nullptr)), R"(
    CHECK: // shared memory plan: 1536 bytes in 4 allocations
    CHECK-NEXT: f32[256] at bytes [0, 1024)
    CHECK-NEXT: f32[128] at bytes [1024, 1536)
    CHECK-NEXT: f32[64] at bytes [0, 256)
    CHECK-NEXT: f32[64] at bytes [256, 512)
  )"));
}

struct UseAfterFree : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto freed = shared_tensor<float>({32});
    store_shared(freed, load_global(global_view(x, {32}), {0}, {32}));
    free_shared(freed);
    store_global(global_view(x, {32}), load_shared(freed), {0});
  }
};

struct FreedOutsideItsBody : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto outer = shared_tensor<float>({32});
    store_shared(outer, load_global(global_view(x, {32}), {0}, {32}));
    for (Int32 i : range(0, 2)) free_shared(outer);
  }
};

struct FreedView : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto rows = shared_tensor<float>({2, 32});
    store_shared(rows, load_global(global_view(x, {2, 32}), {0, 0}, {2, 32}));
    free_shared(rows[1]);
  }
};

struct FreedTwice : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto twice = shared_tensor<float>({32});
    store_shared(twice, load_global(global_view(x, {32}), {0}, {32}));
    free_shared(twice);
    free_shared(twice);  // again
  }
};

TEST(SharedLifetime, MisuseIsRefusedAtTheUsersLine) {
  const std::string path = "tests/shared_lifetime_test.cpp";
  Buffer<float> x(Device::simulator(), std::vector<float>(64, 1.0f));
  EXPECT_EQ(error_of<UseAfterFree>(x),
            source_at(path, "store_global(global_view(x, {32}), load_shared(freed), {0});") +
                ": load_shared names the shared tile allocated at " +
                source_at(path, "auto freed = shared_tensor<float>({32});") + ", which free_shared at " +
                source_at(path, "free_shared(freed);") +
                " freed: its bytes may belong to another tile from there on; free it after its last use");
  EXPECT_EQ(error_of<FreedOutsideItsBody>(x),
            source_at(path, "for (Int32 i : range(0, 2)) free_shared(outer);") +
                ": free_shared of the shared tile allocated at " +
                source_at(path, "auto outer = shared_tensor<float>({32});") +
                ", outside the body that allocated it (a range, if_, while_ or thread group body); free a tile in "
                "the body that allocated it, so that it is freed once for each time it is allocated");
  EXPECT_EQ(error_of<FreedView>(x), source_at(path, "free_shared(rows[1]);") +
                                        ": free_shared of a view of the shared tile allocated at " +
                                        source_at(path, "auto rows = shared_tensor<float>({2, 32});") +
                                        "; free the tile that shared_tensor returned");
  EXPECT_EQ(error_of<FreedTwice>(x), source_at(path, "free_shared(twice);  // again") +
                                         ": free_shared names the shared tile allocated at " +
                                         source_at(path, "auto twice = shared_tensor<float>({32});") +
                                         ", which free_shared at " + source_at(path, "free_shared(twice);") +
                                         " freed: its bytes may belong to another tile from there on; free it "
                                         "after its last use");
}

}  // namespace
}  // namespace tessel::testing
