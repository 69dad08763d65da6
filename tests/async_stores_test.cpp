// st.async between the blocks of a cluster (store_shared_async): tiles arrive whole under every
// completion order, each element's first replica stores it once, the generated code is what PTX
// asks for, and misuse (a read before the wait, too few announced bytes, runs narrower than a word,
// a kernel without clusters) is reported at the user's line.
#include <set>

#include "async_store_kernels.hpp"
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "source_line.hpp"

namespace tessel::testing {
namespace {

TEST(AsyncStores, BlocksPassTilesAroundTheClusterUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    check_async_stores<float, 2>(Device::simulator(), 2 * 512, o);
    check_async_stores<f16, 4>(Device::simulator(), 8 * 512, o);
    check_async_stores<int8_t, 2>(Device::simulator(), 4 * 512, o);
  }
}

TEST(AsyncStores, EachElementsFirstReplicaStoresItOnce) {
  for (const sim::Options& o : every_order()) check_async_column_sums<2>(Device::simulator(), 4 * 1024, o);
}

// A swizzled destination, the block's own rank and a column offset known at run time to be a
// multiple of 64: 16-byte runs, which the swizzle keeps whole.
TEST(AsyncStores, AStoreIntoTheBlocksOwnSwizzledTileAtARunTimeColumn) {
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"}))
    for (int half : {0, 1}) check_stores_into_own_swizzled_tile(Device::simulator(), half, o);
  Kernel<StoresIntoItsOwnSwizzledTile> k(Device::simulator(), KernelOptions{"sm_90a"});
  EXPECT_NE(k.cuda_source(1, (f16*)nullptr, (f16*)nullptr)
                .find("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32"),
            std::string::npos);
}

TEST(AsyncStores, TheGeneratedCodeMapsBothAddressesAndStoresWholeWords) {
  Kernel<PassesTilesByAsyncStores<f16, 2>> k(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string src = k.cuda_source(1024, (f16*)nullptr, (f16*)nullptr);
  EXPECT_TRUE(file_check(src, R"(
    CHECK: // store_shared_async
    CHECK: uint32_t tessel_words[4];
    CHECK: mapa.shared::cluster.u32 tessel_dst_%=, %0, %6; mapa.shared::cluster.u32 tessel_bar_%=, %5, %6; st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [tessel_dst_%=], {%1, %2, %3, %4}, [tessel_bar_%=];
  )")) << src;
  Kernel<PassesColumnSumsByAsyncStores<2>> sums(Device::simulator(), KernelOptions{"sm_90a"});
  const std::string sums_src = sums.cuda_source(2048, (float*)nullptr, (float*)nullptr);
  EXPECT_TRUE(file_check(sums_src, R"(
    CHECK: // store_shared_async
    CHECK: if (t / 
    CHECK: st.async.shared::cluster.mbarrier::complete_tx::bytes
  )")) << sums_src;
  using Tiles = PassesTilesByAsyncStores<f16, 2>;
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    EXPECT_FALSE(
        Kernel<Tiles>(Device::simulator(), KernelOptions{arch}).cubin(1024, (f16*)nullptr, (f16*)nullptr).empty());
    EXPECT_FALSE(Kernel<PassesColumnSumsByAsyncStores<2>>(Device::simulator(), KernelOptions{arch})
                     .cubin(2048, (float*)nullptr, (float*)nullptr)
                     .empty());
  }
}

// The receiver reads its tile before its wait: reported at the read, naming the stores, whether
// they are still in flight or landed without anything ordering the read after them (the
// completion orders give both).
TEST(AsyncStores, AReadBeforeTheWaitIsReported) {
  using Early = PassesTilesByAsyncStores<float, 2, true>;
  const std::vector<float> x = async_store_inputs<float>(1024, 5);
  std::set<std::string> kinds;
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x), out(Device::simulator(), std::vector<float>(1024, 77.0f));
    const std::string got = simulation_error<Early>(o, 1024, dx, out);
    // The lines are known once the kernel was traced.
    const std::string read = "async_store_kernels.hpp:" + std::to_string(Early::read_line) + ": ";
    const std::string store = "async_store_kernels.hpp:" + std::to_string(Early::store_line);
    ASSERT_NE(got.find(read), std::string::npos) << got;
    if (got.find("read of shared memory that a store_shared_async issued at ") != std::string::npos) {
      EXPECT_NE(got.find(store + " may still be writing"), std::string::npos) << got;
      kinds.insert("in flight");
    } else {
      EXPECT_NE(got.find("is not ordered after the store_shared_async at "), std::string::npos) << got;
      EXPECT_NE(got.find(store + ", landed in phase 0 of barrier 0"), std::string::npos) << got;
      kinds.insert("landed");
    }
  }
  EXPECT_EQ(kinds.size(), 2u) << "the orders did not give both reports";
}

// Half the tile's bytes announced: the phase completes with stores still in flight, or the reader,
// released by it, reads bytes that land in the next phase.
TEST(AsyncStores, FewerAnnouncedBytesThanArriveAreReported) {
  using Short = PassesTilesByAsyncStores<float, 2, false, 1024>;
  const std::vector<float> x = async_store_inputs<float>(1024, 6);
  for (const sim::Options& o : every_order()) {
    Buffer<float> dx(Device::simulator(), x), out(Device::simulator(), std::vector<float>(1024, 77.0f));
    const std::string got = simulation_error<Short>(o, 1024, dx, out);
    const bool in_flight = got.find("the transaction bytes announced for phase 0") != std::string::npos;
    const bool next_phase = got.find("store_shared_async at") != std::string::npos &&
                            got.find(", landed in phase 1 of barrier 0") != std::string::npos;
    EXPECT_TRUE(in_flight || next_phase) << got;
    EXPECT_NE(got.find("async_store_kernels.hpp:" + std::to_string(Short::store_line)), std::string::npos) << got;
  }
}

TEST(AsyncStores, RunsNarrowerThanAWordAreRefusedAtTheUsersLine) {
  Buffer<f16> x(Device::simulator(), async_store_inputs<f16>(64, 7));
  EXPECT_EQ(error_of_call([&] { Kernel<AsyncStoreOfTwoByteRuns>(Device::simulator())(x); }),
            source_at("tests/async_store_kernels.hpp",
                      "store_shared_async(theirs.remote(1 - cluster.blockRank), tile, bars[0]);") +
                ": store_shared_async: st.async writes 4, 8 or 16 bytes at a time, and each thread holds runs of 2 "
                "bytes of this [64] tile of f16 that are contiguous and aligned in the destination; give the values a "
                "layout whose threads hold 4 contiguous bytes or more along the last dimension, at offsets and in "
                "rows aligned to them");
}

TEST(AsyncStores, AKernelWithoutClustersIsRefusedAtTheUsersLine) {
  Buffer<float> x(Device::simulator(), async_store_inputs<float>(64, 8));
  EXPECT_EQ(error_of_call([&] { Kernel<AsyncStoreWithoutClusters>(Device::simulator())(x); }),
            source_at("tests/async_store_kernels.hpp", "store_shared_async(theirs.remote(0), tile, bars[0]);") +
                ": store_shared_async: tile.remote(rank) reaches the shared memory of another block of the cluster, "
                "and kernel AsyncStoreWithoutClusters has no clusters; give it some with attrs.cluster (sm_90a or "
                "newer)");
}

}  // namespace
}  // namespace tessel::testing
