// Race detection over TMA copies' global bytes within a launch: a store's bytes are observed by the
// wait that retires its bulk group (not by a wait for its source's read), a load's by the phase it
// completes, and two copies or a copy and another block's access that nothing orders are reported
// at the user's line, under every completion order.
#include <random>

#include "expect_error.hpp"
#include "source_line.hpp"
#include "tma_global_race_kernels.hpp"

namespace tessel::testing {
namespace {

constexpr const char* kKernels = "tests/tma_global_race_kernels.hpp";
constexpr const char* kStoreRemedy =
    "a TMA store writes global memory until a tma.wait_group(n) of its issuing thread retires its group "
    "(tma.wait_group(n, read = true) waits only until its source is read): order the access after such a wait, "
    "through a sync(), an mbarrier phase or a release the other block acquires; two stores of the same bytes need "
    "such a wait between them";

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 gen{seed};
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

TEST(TmaGlobalRaces, AStoreRetiredBeforeItsReleaseIsReadByAnotherBlock) {
  const std::vector<float> x = random_floats(256, 3);
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> dx(Device::simulator(), x), out(Device::simulator(), std::vector<float>(256, -1.0f)),
        copy(Device::simulator(), std::vector<float>(256, -1.0f));
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    Kernel<TmaStoreHandedToAnotherBlock<false>>(Device::simulator(), o)(dx, out, flag, copy);
    const auto got = copy.download();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], 2.0f * x[i] + 1.0f) << i;
  }
}

TEST(TmaGlobalRaces, AStoreWhoseSourceOnlyWasWaitedForIsReported) {
  const std::string load =
      source_at(kKernels, "auto stored = load_global(global_view(out, {8, 32}), {0, 0}, {8, 32});");
  const std::string store = source_at(kKernels, "tma.shared_to_global(s, global_view(out, {8, 32}), {0, 0});");
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> x(Device::simulator(), random_floats(256, 4)), out(Device::simulator(), std::vector<float>(256)),
        copy(Device::simulator(), std::vector<float>(256));
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    EXPECT_EQ(
        error_of_call([&] { Kernel<TmaStoreHandedToAnotherBlock<true>>(Device::simulator(), o)(x, out, flag, copy); }),
        load + ": data race on global memory, byte 0 of a 1024-byte allocation: the load_global at " + load +
            " by warp 0 of block (1, 0, 0) is not ordered after the tma.shared_to_global at " + store +
            ", in group 0 of the bulk groups of thread 0 of block (0, 0, 0); " + kStoreRemedy);
  }
}

TEST(TmaGlobalRaces, RowsScatteredToDistinctRowsAreNotReported) {
  const std::vector<float> x = random_floats(128, 5);
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> dx(Device::simulator(), x), out(Device::simulator(), std::vector<float>(128, -1.0f));
    Buffer<int32_t> index(Device::simulator(), std::vector<int32_t>{1, 0});
    Kernel<ScattersRowsByIndex>(Device::simulator(), o)(dx, index, out);
    const auto got = out.download();
    for (size_t c = 0; c < 64; ++c) {
      ASSERT_EQ(got[64 + c], x[c]) << c;
      ASSERT_EQ(got[c], x[64 + c]) << c;
    }
  }
}

// Which block's copy lands first depends on the order; either way the later one is reported, at the
// first byte of the row both write.
TEST(TmaGlobalRaces, ARowScatteredTwiceIsReported) {
  const std::string store = source_at(kKernels, "tma.bulk_shared_to_global(s, global_view(out, {2, 64}), {row, 0});");
  const auto race = [&](int later, int earlier) {
    return fmt::format(
        "{0}: data race on global memory, byte 256 of a 512-byte allocation: the tma.bulk_shared_to_global at {0}, in "
        "group 0 of the bulk groups of thread 0 of block ({1}, 0, 0) is not ordered after the "
        "tma.bulk_shared_to_global at {0}, in group 0 of the bulk groups of thread 0 of block ({2}, 0, 0); {3}",
        store, later, earlier, kStoreRemedy);
  };
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> x(Device::simulator(), random_floats(128, 6)), out(Device::simulator(), std::vector<float>(128));
    Buffer<int32_t> index(Device::simulator(), std::vector<int32_t>{1, 1});
    const std::string error =
        error_of_call([&] { Kernel<ScattersRowsByIndex>(Device::simulator(), o)(x, index, out); });
    EXPECT_TRUE(error == race(1, 0) || error == race(0, 1)) << error;
  }
}

// One thread's two stores of one row are not ordered by its program order either.
TEST(TmaGlobalRaces, OneThreadScatteringARowTwiceIsReported) {
  const std::string store =
      source_at(kKernels, "tma.bulk_shared_to_global(rows[i], global_view(out, {2, 64}), {row, 0});");
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> x(Device::simulator(), random_floats(128, 10)), out(Device::simulator(), std::vector<float>(128));
    Buffer<int32_t> index(Device::simulator(), std::vector<int32_t>{0, 0});
    EXPECT_EQ(error_of_call([&] { Kernel<OneThreadScattersTwoRows>(Device::simulator(), o)(x, index, out); }),
              fmt::format("{0}: data race on global memory, byte 0 of a 512-byte allocation: the "
                          "tma.bulk_shared_to_global at {0}, in group 0 of the bulk groups of thread 0 of block (0, 0, "
                          "0) is not ordered after the tma.bulk_shared_to_global at {0}, in group 0 of the bulk groups "
                          "of thread 0 of block (0, 0, 0); {1}",
                          store, kStoreRemedy));
    index.upload({1, 0});
    Kernel<OneThreadScattersTwoRows>(Device::simulator(), o)(x, index, out);
  }
}

// Within a block too: a sync() after a wait for the source orders nothing about the global write.
TEST(TmaGlobalRaces, AStoreReadBackAfterASourceWaitIsReported) {
  const std::string load = source_at(kKernels, "auto back = load_global(stored, {0, 0}, {8, 32});");
  const std::string store = source_at(kKernels, "tma.shared_to_global(s, stored, {0, 0});");
  const auto race = [&](int warp) {  // each warp reads its half of the rows first
    return fmt::format(
        "{0}: data race on global memory, byte {4} of a 1024-byte allocation: the load_global at {0} by "
        "warp {1} of block (0, 0, 0) is not ordered after the tma.shared_to_global at {2}, in group 0 "
        "of the bulk groups of thread 0 of block (0, 0, 0); {3}",
        load, warp, store, kStoreRemedy, warp * 512);
  };
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> x(Device::simulator(), random_floats(256, 11)), out(Device::simulator(), std::vector<float>(256)),
        copy(Device::simulator(), std::vector<float>(256));
    const std::string error =
        error_of_call([&] { Kernel<TmaStoreReadBackAfterASourceWait>(Device::simulator(), o)(x, out, copy); });
    EXPECT_TRUE(error == race(0) || error == race(1)) << error;
  }
}

TEST(TmaGlobalRaces, ALoadOfBytesAFlagHandedOverIsNotReported) {
  const std::vector<float> x = random_floats(256, 7);
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> dx(Device::simulator(), x), data(Device::simulator(), std::vector<float>(256, -1.0f)),
        copy(Device::simulator(), std::vector<float>(256, -1.0f));
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    Kernel<TmaLoadOfAnotherBlocksWrites<true>>(Device::simulator(), o)(dx, data, flag, copy);
    const auto got = copy.download();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] + 3.0f) << i;
    // A fence of every space covers global memory too.
    flag.upload({0});
    Kernel<TmaLoadOfAnotherBlocksWrites<true, ProxySpace::all>>(Device::simulator(), o)(dx, data, flag, copy);
  }
}

// A fence of shared memory, the default, leaves the global writes unfenced.
TEST(TmaGlobalRaces, ALoadOfBytesFencedForSharedMemoryOnlyIsReported) {
  const std::string load = source_at(kKernels, "tma.global_to_shared(global_view(data, {8, 32}), s, {0, 0}, bars[0]);");
  const std::string store = source_at(
      kKernels,
      "store_global(global_view(data, {8, 32}), load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) + 3.0f");
  const std::string barrier = source_at(kKernels, "auto bars = mbarrier.alloc({1});");
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> x(Device::simulator(), random_floats(256, 9)), data(Device::simulator(), std::vector<float>(256)),
        copy(Device::simulator(), std::vector<float>(256));
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    EXPECT_EQ(error_of_call([&] {
                Kernel<TmaLoadOfAnotherBlocksWrites<true, ProxySpace::shared_cta>>(Device::simulator(), o)(x, data,
                                                                                                           flag, copy);
              }),
              load + ": global memory, byte 0 of a 1024-byte allocation: the tma.global_to_shared at " + load +
                  ", landed in phase 0 of barrier 0 of the array allocated at " + barrier +
                  " in block (1, 0, 0) reads through the async proxy what the store_global at " + store +
                  " by warp 0 of block (0, 0, 0) wrote through the generic proxy, and no "
                  "fence.proxy_async(ProxySpace::global) (or ProxySpace::all) lies between them; call it after the "
                  "writes, in the threads that wrote, before the sync(), arrival or release that hands the memory "
                  "over (or in the reading thread, after what orders the writes before it)");
  }
}

// The load is reported when it lands after the write, and the write when it comes after the load.
TEST(TmaGlobalRaces, ALoadOfBytesAnotherBlockWritesUnorderedIsReported) {
  const std::string load = source_at(kKernels, "tma.global_to_shared(global_view(data, {8, 32}), s, {0, 0}, bars[0]);");
  const std::string store = source_at(
      kKernels,
      "store_global(global_view(data, {8, 32}), load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) + 3.0f");
  const std::string barrier = source_at(kKernels, "auto bars = mbarrier.alloc({1});");
  const std::string landed = "the tma.global_to_shared at " + load +
                             ", landed in phase 0 of barrier 0 of the array allocated at " + barrier +
                             " in block (1, 0, 0)";
  const std::string written = "the store_global at " + store + " by warp 0 of block (0, 0, 0)";
  const std::string remedy =
      "order them with a sync(), an mbarrier arrival and a wait on its phase, or the wait "
      "that retires the asynchronous operation";
  const std::string load_later = load + ": data race on global memory, byte 0 of a 1024-byte allocation: " + landed +
                                 " is not ordered after " + written + "; " + remedy;
  const std::string store_later = store + ": data race on global memory, byte 0 of a 1024-byte allocation: " + written +
                                  " is not ordered after " + landed + "; ";
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> x(Device::simulator(), random_floats(256, 8)), data(Device::simulator(), std::vector<float>(256)),
        copy(Device::simulator(), std::vector<float>(256));
    Buffer<int32_t> flag(Device::simulator(), std::vector<int32_t>{0});
    const std::string error = error_of_call(
        [&] { Kernel<TmaLoadOfAnotherBlocksWrites<false>>(Device::simulator(), o)(x, data, flag, copy); });
    EXPECT_TRUE(error == load_later || error.starts_with(store_later)) << error;
  }
}

// A multicast's read of global memory is observed by the phase it completes in each block it
// reaches: a write after any of those phases follows it.
TEST(TmaGlobalRaces, AWriteAfterTheWaitOfAnyBlockAMulticastReachesIsNotReported) {
  const std::vector<float> x = random_floats(256, 12);
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    for (const int writer : {0, 1}) {
      Buffer<float> data(Device::simulator(), x), copy(Device::simulator(), std::vector<float>(512, -1.0f));
      if (writer == 0)
        Kernel<OverwritesMulticastRows<0>>(Device::simulator(), o)(data, copy);
      else
        Kernel<OverwritesMulticastRows<1>>(Device::simulator(), o)(data, copy);
      const auto got = copy.download(), rows = data.download();
      for (size_t i = 0; i < 512; ++i) ASSERT_EQ(got[i], x[i % 256]) << i;
      for (size_t i = 0; i < 256; ++i) ASSERT_EQ(rows[i], x[i] * 2.0f) << i;
    }
  }
}

// A block of another cluster writes the bytes unordered: the load is reported when it lands after
// the write, and the write when it comes after the load.
// A block of another cluster writes the bytes unordered: the load is reported when it lands after
// the write, and the write when it comes after the load, also one that starts inside a run.
template <int Writer> void expect_multicast_read_race(const std::string& store, int64_t byte) {
  const std::string load =
      source_at(kKernels, "tma.global_to_shared(rows, tile, {0, 0}, landed[0], Multicast{3}); });");
  const std::string barrier = source_at(kKernels, "auto landed = mbarrier.alloc({1});");
  const std::string memory = fmt::format("global memory, byte {} of a 1024-byte allocation", byte);
  bool wrote_later = false;
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> data(Device::simulator(), random_floats(256, 13)), copy(Device::simulator(), std::vector<float>(512));
    const std::string error =
        error_of_call([&] { Kernel<OverwritesMulticastRows<Writer>>(Device::simulator(), o)(data, copy); });
    const std::string landed = "the tma.global_to_shared at " + load +
                               ", landed in phase 0 of barrier 0 of the array allocated at " + barrier +
                               " in block (0, 0, 0)";
    const std::string written = "the store_global at " + store + " by warp 0 of block (2, 0, 0)";
    const std::string write_later = store + ": data race on " + memory + ": " + written + " is not ordered after " +
                                    landed +
                                    "; order them with a sync(), an mbarrier arrival and a wait on its phase, or the "
                                    "wait that retires the asynchronous operation";
    const std::string load_later = load + ": data race on " + memory + ": " + landed + " is not ordered after ";
    EXPECT_TRUE(error == write_later || error.starts_with(load_later)) << error;
    wrote_later = wrote_later || error == write_later;
  }
  // The kept read is what reports a write after the load.
  EXPECT_TRUE(wrote_later);
}

TEST(TmaGlobalRaces, AWriteUnorderedWithAMulticastsReadIsReported) {
  expect_multicast_read_race<-1>(
      source_at(kKernels, "store_global(rows, register_tensor<float>({8, 32}, 1.0f), {0, 0});"), 0);
  expect_multicast_read_race<-2>(
      source_at(kKernels, "store_global(rows, register_tensor<float>({1, 16}, 1.0f), {3, 16});"), 3 * 128 + 64);
}

// The report of a TMA load's global read names the issuing warp's wait of cta scope, which missed
// what the other block released; with cluster scope the load sees the rows.
TEST(TmaGlobalRaces, ALoadAfterAWaitOfCtaScopeNamesTheWait) {
  const std::string load = source_at(kKernels, "// the peer's rows");
  const std::string store = source_at(
      kKernels,
      "store_global(global_view(data, {8, 32}), load_global(global_view(x, {8, 32}), {0, 0}, {8, 32}) - 1.0f");
  const std::string wait = source_at(kKernels, "// handed over");
  const std::string barrier = source_at(kKernels, "auto landed_rows = mbarrier.alloc({1});");
  const std::vector<float> x = random_floats(256, 15);
  for (const KernelOptions& o : every_order_options(KernelOptions{"sm_90a"})) {
    Buffer<float> dx(Device::simulator(), x), data(Device::simulator(), std::vector<float>(256, -1.0f)),
        copy(Device::simulator(), std::vector<float>(256, -1.0f));
    EXPECT_EQ(error_of_call(
                  [&] { Kernel<LoadsAPeersWritesAfterAWait<WaitScope::cta>>(Device::simulator(), o)(dx, data, copy); }),
              load + ": data race on global memory, byte 0 of a 1024-byte allocation: the tma.global_to_shared at " +
                  load + ", landed in phase 0 of barrier 0 of the array allocated at " + barrier +
                  " in block (1, 0, 0) is not ordered after the store_global at " + store +
                  " by warp 0 of block (0, 0, 0); the mbarrier wait at " + wait +
                  " saw the phase that publishes it, but another block of the cluster released or landed it, which a "
                  "wait of cta scope does not acquire: wait with WaitScope::cluster");
    Kernel<LoadsAPeersWritesAfterAWait<WaitScope::cluster>>(Device::simulator(), o)(dx, data, copy);
    const auto got = copy.download();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] - 1.0f) << i;
  }
}

}  // namespace
}  // namespace tessel::testing
