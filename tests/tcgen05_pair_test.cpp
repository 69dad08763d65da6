// Block pairs (cta_group::2): a pair mma (f16, and 8-bit integers), multicast commits and TMA loads that complete on
// the even block's barrier, on the simulator against host references under every completion order; their misuse, each
// reported at the user's line with its exact message; and the pair forms in the generated code.
#include <random>
#include <regex>

#include <gtest/gtest.h>

#include "simulate.hpp"

namespace tessel::testing {
namespace {

int line = 0, alloc_line = 0;

constexpr int kK = 16, kN = 32;  // the pair's mma is [256, 16] @ [16, 32]

std::string at(int l, const std::string& message) { return fmt::format("{}:{}: {}", __FILE__, l, message); }

// C [256, 32] = A [256, 16] Bᵀ with B [32, 16], by a cluster of two blocks: block v of the pair
// holds rows 128 v ... of A and rows 16 v ... of B; the even block issues one mma for both, whose
// commit arrives on both blocks' barrier; each block stores its 128 rows of C. `Group` is the
// CtaGroup of the allocation, `Issuers` the ranks that issue the mma (1: the even block, 2: both),
// `PeerAllocates` whether the odd block allocates its half.
template <CtaGroup Group = CtaGroup::two, int Issuers = 1, bool PeerAllocates = true, int ClusterBlocks = 2,
          int BRows = kN / 2>
struct PairMatmul : Script {
  void operator()(Ptr<f16> a, Ptr<f16> b, Ptr<float> c) {
    attrs.blocks = ClusterBlocks;
    attrs.cluster = {ClusterBlocks};
    attrs.warps = 4;
    auto rank = cluster.blockRank;
    auto s_a = shared_tensor<f16>({128, kK});
    auto s_b = shared_tensor<f16>({BRows, kK});
    store_shared(s_a, load_global(global_view(a, {256, kK}), {rank * 128, 0}, {128, kK}));
    store_shared(s_b, load_global(global_view(b, {kN, kK}), {rank * BRows, 0}, {BRows, kK}));
    fence.proxy_async();
    auto bars = mbarrier.alloc({1});
    TMemoryTensor t_acc(nullptr);
    const auto allocate = [&] {
      alloc_line = __LINE__ + 1;
      t_acc = tcgen05.alloc<float>({128, kN}, Group);
    };
    if (PeerAllocates)
      allocate();
    else
      if_(rank == 0, allocate);
    cluster.sync();
    single_warp([&] {
      if_(rank < Issuers, [&] {
        line = __LINE__ + 1;
        tcgen05.mma(s_a, s_b.transpose(), t_acc, false);
        tcgen05.commit(bars[0], Multicast{0b11});
      });
      mbarrier.wait(bars[0], 0u);
    });
    sync();
    store_global(global_view(c, {256, kN}), tcgen05.load(t_acc), {rank * 128, 0});
    tcgen05.wait_load();
    cluster.sync();
    if (PeerAllocates)
      tcgen05.dealloc(t_acc);
    else
      if_(rank == 0, [&] { tcgen05.dealloc(t_acc); });
  }
};

// C [256, 32] = A [256, 64] Bᵀ with i8 A and u8 B into an i32 accumulator (kind::i8, two
// instructions of k 32), by a pair as PairMatmul<> computes it.
struct IntegerPairMatmul : Script {
  void operator()(Ptr<int8_t> a, Ptr<uint8_t> b, Ptr<int32_t> c) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 4;
    auto rank = cluster.blockRank;
    auto s_a = shared_tensor<int8_t>({128, 64});
    auto s_b = shared_tensor<uint8_t>({kN / 2, 64});
    store_shared(s_a, load_global(global_view(a, {256, 64}), {rank * 128, 0}, {128, 64}));
    store_shared(s_b, load_global(global_view(b, {kN, 64}), {rank * (kN / 2), 0}, {kN / 2, 64}));
    fence.proxy_async();
    auto bars = mbarrier.alloc({1});
    auto t_acc = tcgen05.alloc<int32_t>({128, kN}, CtaGroup::two);
    cluster.sync();
    single_warp([&] {
      if_(rank == 0, [&] {
        tcgen05.mma(s_a, s_b.transpose(), t_acc, false);
        tcgen05.commit(bars[0], Multicast{0b11});
      });
      mbarrier.wait(bars[0], 0u);
    });
    sync();
    store_global(global_view(c, {256, kN}), tcgen05.load(t_acc), {rank * 128, 0});
    tcgen05.wait_load();
    cluster.sync();
    tcgen05.dealloc(t_acc);
  }
};

struct Inputs {
  std::vector<f16> a, b;
};

Inputs random_inputs() {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> dist(-2, 2);
  Inputs in{std::vector<f16>(256 * kK), std::vector<f16>(kN * kK)};
  for (auto& x : in.a) x = f16(dist(rng));
  for (auto& x : in.b) x = f16(dist(rng));
  return in;
}

template <class S> std::string error_of(const KernelOptions& o = KernelOptions{.arch = "sm_100a"}) {
  const Device dev = Device::simulator();
  const Inputs in = random_inputs();
  Buffer<f16> a(dev, in.a), b(dev, in.b);
  Buffer<float> c(dev, std::vector<float>(256 * kN, 0.0f));
  try {
    Kernel<S>(dev, o)(a, b, c);
  } catch (const Error& e) {
    return std::regex_replace(e.what(), std::regex("warp [0-9] of"), "warp W of");
  }
  return "no error";
}

TEST(Tcgen05Pair, OneMmaForThePairMatchesTheHostReferenceUnderEveryOrder) {
  const Device dev = Device::simulator();
  const Inputs in = random_inputs();
  Buffer<f16> a(dev, in.a), b(dev, in.b);
  for (const sim::Options& o : every_order()) {
    Buffer<float> c(dev, std::vector<float>(256 * kN, 1e9f));
    Kernel<PairMatmul<>>(dev, KernelOptions{.arch = "sm_100a", .sim = o})(a, b, c);
    const std::vector<float> got = c.download();
    for (int i = 0; i < 256; ++i)
      for (int j = 0; j < kN; ++j) {
        double want = 0;
        for (int k = 0; k < kK; ++k)
          want += double(float(in.a[size_t(i) * kK + k])) * double(float(in.b[size_t(j) * kK + k]));
        ASSERT_NEAR(got[size_t(i) * kN + j], want, 1e-4 * (1 + std::abs(want))) << i << ", " << j;
      }
  }
}

TEST(Tcgen05Pair, AnIntegerMmaForThePairSumsExactlyUnderEveryOrder) {
  const Device dev = Device::simulator();
  std::mt19937_64 rng(12);
  std::vector<int8_t> a(256 * 64);
  std::vector<uint8_t> b(kN * 64);
  for (int8_t& x : a) x = int8_t(int(rng() % 256) - 128);
  for (uint8_t& x : b) x = uint8_t(rng() % 256);
  Buffer<int8_t> da(dev, a);
  Buffer<uint8_t> db(dev, b);
  for (const sim::Options& o : every_order()) {
    Buffer<int32_t> c(dev, std::vector<int32_t>(256 * kN, -7));
    Kernel<IntegerPairMatmul>(dev, KernelOptions{.arch = "sm_100a", .sim = o})(da, db, c);
    const std::vector<int32_t> got = c.download();
    for (int i = 0; i < 256; ++i)
      for (int j = 0; j < kN; ++j) {
        int32_t want = 0;
        for (int k = 0; k < 64; ++k) want += int32_t(a[size_t(i) * 64 + k]) * int32_t(b[size_t(j) * 64 + k]);
        ASSERT_EQ(got[size_t(i) * kN + j], want) << i << ", " << j;
      }
  }
}

TEST(Tcgen05Pair, TheOddBlockIssuingThePairsMmaIsReported) {
  using BothIssue = PairMatmul<CtaGroup::two, 2>;
  const std::string got = error_of<BothIssue>();
  EXPECT_EQ(got,
            at(line, fmt::format("tcgen05.mma into the pair's tensor memory allocated at {}:{} is issued by "
                                 "block (1, 0, 0) (cluster rank 1), but the even block of a pair issues the pair's "
                                 "mma: issue it under if_(cluster.blockRank % 2 == 0)",
                                 __FILE__, alloc_line)));
}

TEST(Tcgen05Pair, AnMmaIntoATileThePeerDidNotAllocateIsReported) {
  using PeerDoesNotAllocate = PairMatmul<CtaGroup::two, 1, false>;
  const std::string got = error_of<PeerDoesNotAllocate>();
  EXPECT_EQ(got,
            at(line, fmt::format("tcgen05.mma into the pair's tensor memory allocated at {}:{}: block (1, 0, 0) "
                                 "of the pair has not allocated it (warp W of block (0, 0, 0)); both blocks allocate a "
                                 "pair's tile, and a cluster.sync() after the allocation lets the even block issue "
                                 "into it",
                                 __FILE__, alloc_line)));
}

TEST(Tcgen05Pair, APairsTileNeedsAClusterOfAnEvenNumberOfBlocks) {
  using ClusterOfOne = PairMatmul<CtaGroup::two, 1, true, 1>;
  const std::string got = error_of<ClusterOfOne>();
  EXPECT_EQ(got, at(alloc_line,
                    "tcgen05.alloc: a pair's tile (CtaGroup::two) is allocated by both blocks of a pair, so the "
                    "cluster must have an even number of blocks; attrs.cluster is {1, 1, 1}"));
}

TEST(Tcgen05Pair, OperandsThatAreNotTheBlocksHalvesAreReported) {
  using WholeB = PairMatmul<CtaGroup::two, 1, true, 2, kN>;
  const std::string got = error_of<WholeB>();
  EXPECT_EQ(got, at(line,
                    "tcgen05.mma: shapes [128, 16] @ [16, 32] into the pair's [128, 32] do not match (want each "
                    "block's halves a [128, k] and b [k, n / 2], and acc [128, n])"));
}

// Two allocations of different CTA groups: every tcgen05 instruction of a kernel uses one.
struct MixesCtaGroups : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 4;
    alloc_line = __LINE__ + 1;
    auto pair = tcgen05.alloc<float>({128, 32}, CtaGroup::two);
    line = __LINE__ + 1;
    auto own = tcgen05.alloc<float>({128, 32});
    tcgen05.dealloc(own);
    tcgen05.dealloc(pair);
  }
};

TEST(Tcgen05Pair, AllocationsOfTwoCtaGroupsInOneKernelAreReported) {
  const std::string got = error_of<MixesCtaGroups>();
  EXPECT_EQ(got,
            at(line, fmt::format("tcgen05.alloc: this allocation is CtaGroup::one, but the one at {}:{} is "
                                 "CtaGroup::two; every tcgen05 instruction of a kernel uses one CTA group (PTX ISA "
                                 "9.7.16.7.1), so allocate all tensor memory with the same CtaGroup",
                                 __FILE__, alloc_line)));
}

// Block v of a pair loads rows 8 v ... of `in` with TMA, completing the bytes on the even block's
// barrier, which expects both loads; the even block then tells the odd one, and both store what
// they loaded. `BarrierRank` is the rank whose barrier the loads signal, `ClusterBlocks` the
// cluster's size.
template <int BarrierRank = 0, int ClusterBlocks = 2> struct LoadsOntoTheEvenBlocksBarrier : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = ClusterBlocks;
    attrs.cluster = {ClusterBlocks};
    attrs.warps = 1;
    auto rank = cluster.blockRank;
    auto g_in = global_view(in, {8 * ClusterBlocks, 32});
    auto tile = shared_tensor<float>({8, 32});
    auto bars = mbarrier.alloc({1, 1});
    cluster.sync();
    single_thread([&] {
      if_(rank == 0, [&] { mbarrier.arrive_and_expect_tx(bars[0], 2 * tile.nbytes()); });
      line = __LINE__ + 1;
      tma.global_to_shared(g_in, tile, {rank * 8, 0}, bars[0].remote(BarrierRank));
    });
    // the other block's loads and arrivals reach these barriers: cluster-scope waits acquire them
    if_(rank == 0, [&] {
      mbarrier.wait(bars[0], 0u, WaitSemantics::acquire, WaitScope::cluster);
      single_thread([&] { mbarrier.arrive(bars[1].remote(1)); });
    });
    if_(rank == 1, [&] { mbarrier.wait(bars[1], 0u, WaitSemantics::acquire, WaitScope::cluster); });
    store_global(global_view(out, {8 * ClusterBlocks, 32}), load_shared(tile), {rank * 8, 0});
    cluster.sync();
  }
};

TEST(Tcgen05Pair, TmaLoadsOfBothBlocksCompleteOnTheEvenBlocksBarrierUnderEveryOrder) {
  const Device dev = Device::simulator();
  std::vector<float> in(16 * 32);
  std::mt19937 rng(5);
  for (float& x : in) x = std::uniform_real_distribution<float>(-4, 4)(rng);
  Buffer<float> d_in(dev, in);
  for (const sim::Options& o : every_order()) {
    Buffer<float> out(dev, std::vector<float>(16 * 32, -1.0f));
    Kernel<LoadsOntoTheEvenBlocksBarrier<>>(dev, KernelOptions{.arch = "sm_100a", .sim = o})(d_in, out);
    EXPECT_EQ(out.download(), in);
  }
}

template <class S> std::string tma_error_of(const std::string& arch, int rows) {
  const Device dev = Device::simulator();
  Buffer<float> in(dev, std::vector<float>(size_t(rows) * 32, 1.0f)), out(dev, std::vector<float>(size_t(rows) * 32));
  try {
    Kernel<S>(dev, KernelOptions{.arch = arch})(in, out);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Tcgen05Pair, ALoadOntoAnotherBlocksBarrierNeedsSm100aAndABlockOfThePair) {
  {
    const std::string got = tma_error_of<LoadsOntoTheEvenBlocksBarrier<>>("sm_90a", 16);
    EXPECT_EQ(got, at(line,
                      "tma.global_to_shared: completing the bytes on a barrier of another block (bars[i].remote(rank)) "
                      "is the cta_group::2 form of the load, which needs sm_100a; the kernel is compiled for sm_90a"));
  }
  using OntoAnotherPair = LoadsOntoTheEvenBlocksBarrier<2, 4>;
  {
    const std::string got = tma_error_of<OntoAnotherPair>("sm_100a", 32);
    EXPECT_EQ(got,
              at(line,
                 "tma.global_to_shared: block rank 2 is not in the pair of block (0, 0, 0) (cluster rank 0), which "
                 "is ranks 0 and 1 (thread 0); a pair is the two blocks whose ranks differ in bit 0"));
  }
}

// Multicasts that name blocks outside the cluster, or not all of it for a response.
template <int Mask> struct CommitsToMask : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    auto t = tcgen05.alloc<float>({128, 32}, CtaGroup::two);
    cluster.sync();
    line = __LINE__ + 1;
    tcgen05.commit(bars[0], Multicast{Mask});
    cluster.sync();
    tcgen05.dealloc(t);
  }
};

struct AsksForAResponseInOneBlockOfTwo : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1});
    auto response = shared_tensor<uint32_t>({4});
    line = __LINE__ + 1;
    single_thread([&] { clc.try_cancel(response, bars[0], Multicast{0b01}); });
  }
};

struct CopiesIntoAPairsTile : Script {
  void operator()(Ptr<f16>, Ptr<f16>, Ptr<float>) {
    attrs.blocks = 2;
    attrs.cluster = {2};
    attrs.warps = 4;
    auto s = shared_tensor<float>({128, 8});
    auto t = tcgen05.alloc<float>({128, 32}, CtaGroup::two);
    line = __LINE__ + 1;
    single_warp([&] { tcgen05.copy(s, tcgen05.slice(t, {0, 0}, {128, 8}, {0, 1})); });
  }
};

TEST(Tcgen05Pair, MulticastMasksAndCopiesIntoAPairsTileAreReported) {
  {
    const std::string got = error_of<CommitsToMask<0b100>>();
    EXPECT_EQ(got, at(line,
                      "tcgen05.commit: the multicast mask 0x4 names blocks outside the cluster of 2 blocks "
                      "(attrs.cluster = {2, 1, 1}); set bit r for each block rank r in 0..1 that receives the "
                      "arrival"));
  }
  {
    const std::string got = error_of<AsksForAResponseInOneBlockOfTwo>();
    EXPECT_EQ(got, at(line,
                      "clc.try_cancel: a multicast response lands in every block of the cluster, so the mask must "
                      "be 0b11 for the cluster of 2 blocks (attrs.cluster, set before this call); got 0b1"));
  }
  {
    const std::string got = error_of<CopiesIntoAPairsTile>();
    EXPECT_EQ(got, at(line,
                      "tcgen05.copy: copying into a pair's tile (CtaGroup::two) is not supported; copy into "
                      "tensor memory of a kernel that allocates with CtaGroup::one"));
  }
}

TEST(Tcgen05Pair, TheGeneratedCodeUsesThePairFormsAndCompilesForSm100a) {
  Kernel<PairMatmul<>> k(Device::simulator(), KernelOptions{.arch = "sm_100a"});
  const std::string src = k.cuda_source((f16*)nullptr, (f16*)nullptr, (float*)nullptr);
  for (const char* piece :
       {"tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32",
        "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", "tcgen05.mma.cta_group::2.kind::f16",
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
        "tcgen05.dealloc.cta_group::2.sync.aligned.b32"})
    EXPECT_NE(src.find(piece), std::string::npos) << piece;
  EXPECT_FALSE(k.cubin((f16*)nullptr, (f16*)nullptr, (float*)nullptr).empty());
  Kernel<LoadsOntoTheEvenBlocksBarrier<>> load(Device::simulator(), KernelOptions{.arch = "sm_100a"});
  EXPECT_NE(load.cuda_source((float*)nullptr, (float*)nullptr)
                .find("cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes"),
            std::string::npos);
  EXPECT_FALSE(load.cubin((float*)nullptr, (float*)nullptr).empty());
  Kernel<IntegerPairMatmul> integer(Device::simulator(), KernelOptions{.arch = "sm_100a"});
  EXPECT_NE(integer.cuda_source((int8_t*)nullptr, (uint8_t*)nullptr, (int32_t*)nullptr)
                .find("tcgen05.mma.cta_group::2.kind::i8"),
            std::string::npos);
  EXPECT_FALSE(integer.cubin((int8_t*)nullptr, (uint8_t*)nullptr, (int32_t*)nullptr).empty());
}

}  // namespace
}  // namespace tessel::testing
