// free_shared: the planner gives a freed tile's bytes to tiles allocated after the free, never to
// two tiles alive at once; the simulator orders accesses across the reuse; misuse is refused at the
// user's line.
#include <map>
#include <optional>

#include "expect_error.hpp"
#include "filecheck.hpp"
#include "shared_lifetime_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

TEST(SharedLifetime, AFreedTilesBytesGoToTheNextTileUnderEveryOrder) {
  for (const KernelOptions& options : every_order_options())
    check_transpose_then_increment(Device::simulator(), options);
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
                                     source_at("tests/shared_lifetime_kernels.hpp", "free_shared(staging);"))));
}

TEST(SharedLifetime, AReuseThatNothingOrdersAfterTheLastReadIsARace) {
  const int n = 64;
  const std::vector<float> x = random_values(size_t(n) * 64, 4);
  Buffer<float> dx(Device::simulator(), x), dy(Device::simulator(), std::vector<float>(x.size()));
  const std::string got = error_of<TransposeThenIncrement<false>>(n, dx, dy);
  const std::string path = "tests/shared_lifetime_kernels.hpp";
  EXPECT_EQ(got, fmt::format("{}: data race on shared memory that tiles take in turn after a free_shared, the tile "
                             "allocated at {} (its byte 24, freed at {}) and the tile allocated at {} (its byte 24), "
                             "in block (0, 0, 0): the load_shared at {} by warp 3 of block (0, 0, 0) is not ordered "
                             "after the store_shared at {} by warp 0 of block (0, 0, 0); order them with a sync(), an "
                             "mbarrier arrival and a wait on its phase, or the wait that retires the asynchronous "
                             "operation",
                             source_at(path, "auto transposed = load_shared(staging.transpose());"),
                             source_at(path, "auto staging = shared_tensor<float>({64, 64});"),
                             source_at(path, "free_shared(staging);"),
                             source_at(path, "auto halves = shared_tensor<f16>({64, 64});"),
                             source_at(path, "auto transposed = load_shared(staging.transpose());"),
                             source_at(path, "store_shared(halves, transposed.to<f16>());")));
}

// Tiles alive together never share bytes. Each tile has a size of its own, by which the test finds
// its offset: a tile a loop keeps across iterations against one the loop frees each time; the two
// branches of an if_, which run beside each other in different warps, and a tile later in the
// branch that frees; two thread groups; barriers, which keep their bytes from the kernel's start.
struct Lifetimes : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    for (Int32 i : range(0, 2)) {
      auto freed_each_time = shared_tensor<float>({32});
      free_shared(freed_each_time);
      auto kept = shared_tensor<float>({64});
    }
    auto after_loop = shared_tensor<float>({96});
    if_(blockIdx.x == 0, [&] {
      auto then_tile = shared_tensor<float>({192});
      free_shared(then_tile);
      auto then_after = shared_tensor<float>({160});
    }).else_([&] { auto else_tile = shared_tensor<float>({224}); });
    thread_group(0, 64, [&] {
      auto first_group = shared_tensor<float>({288});
      free_shared(first_group);
    });
    thread_group(64, 64, [&] { auto second_group = shared_tensor<float>({320}); });
    auto bars = mbarrier.alloc({1});
  }
};

TEST(SharedLifetime, TilesAliveTogetherNeverShareBytes) {
  Kernel<Lifetimes> k(Device::simulator());
  std::map<int64_t, std::pair<int64_t, int64_t>> at;  // bytes -> [offset, end)
  ir::walk(k.lowered((float*)nullptr)->body, [&](const ir::StmtNode& s) {
    if (s.kind != ir::NodeKind::AllocShared) return;
    const auto& a = static_cast<const ir::AllocSharedNode&>(s);
    at[a.tensor->nbytes()] = {a.offset, a.offset + a.tensor->nbytes()};
  });
  const auto overlap = [&](int64_t a, int64_t b) {
    return at.at(a).first < at.at(b).second && at.at(b).first < at.at(a).second;
  };
  const int64_t freed_each_time = 128, kept = 256, after_loop = 384, then_tile = 768, then_after = 640, else_tile = 896,
                first_group = 1152, second_group = 1280, bars = 8;
  EXPECT_FALSE(overlap(kept, freed_each_time)) << "kept lives across iterations";
  EXPECT_FALSE(overlap(after_loop, kept));
  EXPECT_TRUE(overlap(then_after, then_tile)) << "later in the branch that freed then_tile";
  EXPECT_FALSE(overlap(else_tile, then_tile)) << "the other branch runs beside it";
  EXPECT_FALSE(overlap(else_tile, then_after));
  EXPECT_FALSE(overlap(second_group, first_group)) << "the other group runs beside it";
  for (int64_t tile : {freed_each_time, kept, after_loop, then_tile, then_after, else_tile, first_group, second_group})
    EXPECT_FALSE(overlap(bars, tile)) << tile;
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

struct UsedAfterItsBody : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    std::optional<SharedTensor> escaped;
    if_(blockIdx.x == 0, [&] { escaped = shared_tensor<float>({32}); });
    store_global(global_view(x, {32}), load_shared(*escaped), {0});
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
  EXPECT_EQ(error_of<UsedAfterItsBody>(x),
            source_at(path, "store_global(global_view(x, {32}), load_shared(*escaped), {0});") +
                ": load_shared names the shared tile allocated at " +
                source_at(path, "if_(blockIdx.x == 0, [&] { escaped = shared_tensor<float>({32}); });") +
                " outside the body that allocated it (a range, if_, while_ or thread group body); a tile lives "
                "until the end of that body: allocate it before the body");
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

// The second tile takes the first one's bytes and is read before anything is stored to it.
struct ReadWhatAFreedTileLeft : Script {
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto first = shared_tensor<float>({32});
    store_shared(first, load_global(global_view(x, {32}), {0}, {32}));
    sync();
    store_global(global_view(x, {32}), load_shared(first) * 2.0f, {0});
    sync();
    free_shared(first);
    auto second = shared_tensor<float>({32});
    store_global(global_view(x, {32}), load_shared(second), {0});
  }
};

TEST(SharedLifetime, AReadOfBytesThatOnlyTheFreedTileWroteIsReported) {
  const std::string path = "tests/shared_lifetime_test.cpp";
  Buffer<float> x(Device::simulator(), std::vector<float>(32, 1.0f));
  EXPECT_EQ(error_of<ReadWhatAFreedTileLeft>(x),
            source_at(path, "store_global(global_view(x, {32}), load_shared(second), {0});") +
                ": read of shared memory that the allocation at " +
                source_at(path, "auto second = shared_tensor<float>({32});") +
                " never wrote: byte 0 of it still holds what the tile allocated at " +
                source_at(path, "auto first = shared_tensor<float>({32});") + " left there (freed at " +
                source_at(path, "free_shared(first);") +
                "), whose bytes it took; read by thread 0 of block (0, 0, 0); store to it (and sync()) before "
                "loading");
}

}  // namespace
}  // namespace tessel::testing
