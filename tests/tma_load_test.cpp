// TMA loads: tiles loaded onto an mbarrier, on the simulator against a host reference under every
// completion order, the read of a tile before its phase completes, and the generated code.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/tessel.hpp"
#include "tma_kernels.hpp"

namespace tessel {
namespace {

using testing::error_of;
using testing::every_order;
using testing::LoadTileByTma;

int line = 0;

TEST(TmaLoad, LoadsTilesAtMultipleAndNonMultipleSizesUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    testing::check_tile_by_tma<LoadTileByTma<float, 32, 32, Swizzle::none>, float>(64, 96, o);
    testing::check_tile_by_tma<LoadTileByTma<float, 32, 32, Swizzle::none>, float>(45, 76, o);
    testing::check_tile_by_tma<LoadTileByTma<f16, 32, 64, Swizzle::b128>, f16>(64, 128, o);
    testing::check_tile_by_tma<LoadTileByTma<f16, 32, 64, Swizzle::b128>, f16>(70, 88, o);
    testing::check_tile_by_tma<LoadTileByTma<bf16, 16, 32, Swizzle::b64>, bf16>(33, 40, o);
  }
}

TEST(TmaLoad, TheLoadHasItsTensorMapAndBarrierInTheIr) {
  Kernel<LoadTileByTma<f16, 32, 64, Swizzle::b128>> k(Device::simulator());
  const ir::Kernel lowered = k.lowered(64, 128, (f16*)nullptr, (f16*)nullptr);
  ASSERT_EQ(lowered->tensor_maps.size(), 1u);
  EXPECT_EQ(lowered->tensor_maps[0].box, (std::vector<int>{32, 64}));
  EXPECT_EQ(lowered->tensor_maps[0].swizzle_bits, 3);
  const std::string text = ir::print(*lowered);
  EXPECT_NE(text.find("tma.global_to_shared global<f16>"), std::string::npos) << text;
  EXPECT_NE(text.find("by tensor map 0"), std::string::npos) << text;
}

// Reads the tile without waiting on the barrier the load completes.
struct ReadsBeforeThePhaseCompletes : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * 4);
      line = __LINE__ + 1;
      tma.global_to_shared(global_view(in, {8, 32}), s, {0, 0}, bars[0]);
    });
    auto t = load_shared(s);
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), t, {0, 0});
  }
};

TEST(TmaLoad, ReadingTheTileBeforeThePhaseCompletesIsReported) {
  Buffer<float> in(Device::simulator(), std::vector<float>(256, 1.0f)),
      out(Device::simulator(), std::vector<float>(256));
  try {
    Kernel<ReadsBeforeThePhaseCompletes> k(Device::simulator(), KernelOptions{});
    k(in, out);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{0}:{1}: read of shared memory that a tma.global_to_shared issued at {0}:{2} may still be "
                          "writing (thread 0 of block (0, 0, 0)); wait on the mbarrier phase the load completes "
                          "(mbarrier.wait) before accessing its tile",
                          __FILE__, line + 2, line));
  }
}

// A plain arrival completes the barrier's phase before the load that should fill it is issued: the
// load's bytes count toward the next phase, and the wait passes on the one the arrival completed.
struct LoadsWithoutAnnouncingItsBytes : Script {
  static inline int tile_line = 0, alloc_line = 0, arrive_line = 0, load_line = 0, read_line = 0;
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    tile_line = __LINE__ + 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    alloc_line = __LINE__ + 1;
    auto bars = mbarrier.alloc({1});
    arrive_line = __LINE__ + 1;
    single_thread([&] { mbarrier.arrive(bars[0]); });
    load_line = __LINE__ + 1;
    single_thread([&] { tma.global_to_shared(global_view(in, {8, 32}), s, {0, 0}, bars[0]); });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    read_line = __LINE__ + 1;
    store_global(global_view(out, {8, 32}), load_shared(s), {0, 0});
  }
};

TEST(TmaLoad, ALoadWhoseBytesNoPhaseAnnouncedNamesTheArrivalThatCompletedThePhaseBefore) {
  Buffer<float> in(Device::simulator(), std::vector<float>(256, 1.0f)),
      out(Device::simulator(), std::vector<float>(256));
  const std::string got = testing::simulation_error<LoadsWithoutAnnouncingItsBytes>(
      sim::Options{.completion = sim::CompletionOrder::Lazy}, in, out);
  using K = LoadsWithoutAnnouncingItsBytes;
  EXPECT_EQ(got, fmt::format("{0}:{1}: read of shared memory that a tma.global_to_shared issued at {0}:{2} may still "
                             "be writing (thread 0 of block (0, 0, 0)); wait on the mbarrier phase the load completes "
                             "(mbarrier.wait) before accessing its tile; its bytes count toward phase 1 of barrier 0 "
                             "of the array allocated at {0}:{3}, for which nothing had announced transaction bytes "
                             "when it was issued, and phase 0 completed at the arrival at {0}:{4} without them: a "
                             "wait for phase 0 does not wait for this copy (announce its bytes with "
                             "mbarrier.arrive_and_expect_tx or expect_tx in the phase its readers wait for)",
                             __FILE__, K::read_line, K::load_line, K::alloc_line, K::arrive_line));
  // Landed at once, the copy's bytes are in phase 1, which the wait for phase 0 does not order.
  EXPECT_EQ(testing::simulation_error<LoadsWithoutAnnouncingItsBytes>(
                sim::Options{.completion = sim::CompletionOrder::Eager}, in, out),
            fmt::format("{0}:{1}: data race on shared memory allocated at {0}:{2}, byte 0 of the allocation, in block "
                        "(0, 0, 0): the load_shared at {0}:{1} by warp 0 of block (0, 0, 0) is not ordered after the "
                        "tma.global_to_shared at {0}:{3}, landed in phase 1 of barrier 0 of the array allocated at "
                        "{0}:{4} in block (0, 0, 0); this access is ordered after phase 0 of that barrier at most: did "
                        "the wait before it pass on an earlier phase than the copy's (a parity one phase behind, an "
                        "arrival that completed the phase it waits for without the copy's transaction bytes "
                        "announced), or is the wait for the copy's phase missing?",
                        __FILE__, K::read_line, K::tile_line, K::load_line, K::alloc_line));
}

// Loads into a tile that an earlier load, whose phase nobody waited for, may still be writing.
struct LoadsTwiceWithoutWaiting : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    auto bars = mbarrier.alloc({1, 1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * 4);
      line = __LINE__ + 1;
      tma.global_to_shared(global_view(in, {8, 32}), s, {0, 0}, bars[0]);
      mbarrier.arrive_and_expect_tx(bars[1], 8 * 32 * 4);
      tma.global_to_shared(global_view(in, {8, 32}), s, {0, 0}, bars[1]);
    });
    mbarrier.wait(bars[1], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), load_shared(s), {0, 0});
  }
};

TEST(TmaLoad, ASecondLoadIntoATileInFlightIsReported) {
  Buffer<float> in(Device::simulator(), std::vector<float>(256, 1.0f)),
      out(Device::simulator(), std::vector<float>(256));
  try {
    Kernel<LoadsTwiceWithoutWaiting> k(Device::simulator(), KernelOptions{});
    k(in, out);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{0}:{1}: write of shared memory that a tma.global_to_shared issued at {0}:{2} may still be "
                          "writing (thread 0 of block (0, 0, 0)); two asynchronous writes in flight may not share "
                          "bytes: issue this one after a wait that sees that one complete, or give each its own bytes",
                          __FILE__, line + 2, line));
  }
}

// Loads a tile of another type than the view's.
struct LoadsAnotherType : Script {
  void operator()(Ptr<f16> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    tma.global_to_shared(global_view(in, {8, 32}), s, {0, 0}, bars[0]);
  }
};

// Loads a box larger than the tile's row can take in its swizzle.
struct LoadsRowsNarrowerThanTheSwizzle : Script {
  void operator()(Ptr<f16> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({8, 16}, Swizzle::b64);
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    tma.global_to_shared(global_view(in, {8, 16}), s, {0, 0}, bars[0]);
  }
};

// Gives one offset for a view of rank 2.
struct LoadsWithTooFewOffsets : Script {
  void operator()(Ptr<f16> in) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<f16>({8, 16}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    tma.global_to_shared(global_view(in, {8, 16}), s, {0}, bars[0]);
  }
};

TEST(TmaLoad, MistakesVisibleAtTraceTimeAreReportedAtTheLine) {
  Buffer<f16> h(Device::simulator(), std::vector<f16>(4096, f16(0.0f)));
  const auto at = [](const std::string& got, const std::string& message) {
    EXPECT_EQ(got, fmt::format("{}:{}: {}", __FILE__, line, message));
  };
  at(error_of<LoadsAnotherType>(h),
     "tma.global_to_shared: into a shared tile of f32 from a global view of f16; TMA "
     "copies elements unchanged, so the types must be equal");
  at(error_of<LoadsRowsNarrowerThanTheSwizzle>(h),
     "tma.global_to_shared: the shared tile's rows are 32 bytes and its swizzle is 64 bytes; TMA puts each row of a "
     "swizzled box on a 64-byte line, so the rows must be exactly 64 bytes");
  at(error_of<LoadsWithTooFewOffsets>(h), "tma.global_to_shared: 1 offsets given for a global view of rank 2");
}

// Announces `Bytes` for two loads of an [8, 32] f32 tile (2048 bytes in all).
template <int Bytes> struct AnnouncesBytes : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({2, 8, 32}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      line = __LINE__ + 1;
      mbarrier.arrive_and_expect_tx(bars[0], Bytes);
      tma.global_to_shared(global_view(in, {8, 32}), s[0], {0, 0}, bars[0]);
      tma.global_to_shared(global_view(in, {8, 32}), s[1], {0, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), load_shared(s[1]), {0, 0});
  }
};

TEST(TmaLoad, AnnouncedBytesThatCannotMatchTheLoadsAreReportedAtTheLine) {
  Buffer<float> in(Device::simulator(), std::vector<float>(256, 1.0f)),
      out(Device::simulator(), std::vector<float>(256));
  const auto expect = [&](const std::string& got, int bytes, const char* outcome) {
    EXPECT_EQ(got, fmt::format("{0}:{1}: mbarrier.arrive_and_expect_tx: announces {2} transaction bytes, but the "
                               "operations that complete bytes on this barrier (tma.global_to_shared {0}:{3}, "
                               "tma.global_to_shared {0}:{4}) bring 2048 bytes, every byte of the TMA loads' boxes; "
                               "the phase would {5}. Announce exactly the bytes they "
                               "bring",
                               __FILE__, line, bytes, line + 1, line + 2, outcome));
  };
  expect(error_of<AnnouncesBytes<1024>>(in, out), 1024, "receive more bytes than it expects");
  expect(error_of<AnnouncesBytes<4096>>(in, out), 4096, "never complete");
  EXPECT_EQ(error_of<AnnouncesBytes<2048>>(in, out), "no error");
}

// The same with a count only the run knows: the simulator checks what lands.
struct AnnouncesBytesAtRunTime : Script {
  void operator()(Int32 bytes, Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({2, 8, 32}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], bytes);
      line = __LINE__ + 1;
      tma.global_to_shared(global_view(in, {8, 32}), s[0], {0, 0}, bars[0]);
      tma.global_to_shared(global_view(in, {8, 32}), s[1], {0, 0}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), load_shared(s[1]), {0, 0});
  }
};

TEST(TmaLoad, RunTimeCountsThatDoNotMatchAreReportedBySimulator) {
  Buffer<float> in(Device::simulator(), std::vector<float>(256, 1.0f)),
      out(Device::simulator(), std::vector<float>(256));
  // Too few: the first load completes the phase while the second, whose bytes would count toward
  // the next phase, is in flight; reported at the second, with what announced the phase's bytes.
  const std::string fewer = error_of<AnnouncesBytesAtRunTime>(1024, in, out);  // sets `line`
  EXPECT_EQ(fewer,
            fmt::format("{0}:{1}: phase 0 of barrier 0 of the array allocated at {0}:{2} completed while this copy, "
                        "issued in that phase to signal it, was still in flight, so its bytes would count towards "
                        "phase 1: the transaction bytes announced for phase 0 (1024, by the arrive_and_expect_tx / "
                        "expect_tx at {0}:{3}) are fewer than those of the copies that signal it; announce every "
                        "copy's bytes (a shared tile's nbytes())",
                        __FILE__, line + 1, line - 4, line - 2));
  const std::string more = error_of<AnnouncesBytesAtRunTime>(4096, in, out);
  EXPECT_NE(more.find("deadlock in block (0, 0, 0)"), std::string::npos) << more;
  EXPECT_NE(more.find("tx-count 2048"), std::string::npos) << more;
  EXPECT_EQ(error_of<AnnouncesBytesAtRunTime>(2048, in, out), "no error");
}

// Loads the box at (-4, -8) of an [8, 32] view: the elements outside read as zero, and the box's
// every byte completes on the barrier.
struct LoadsAtNegativeOffsets : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto s = shared_tensor<float>({8, 32}, Swizzle::none);
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 8 * 32 * 4);
      tma.global_to_shared(global_view(in, {8, 32}), s, {-4, -8}, bars[0]);
    });
    mbarrier.wait(bars[0], mbarrier.consumer_initial_phase);
    store_global(global_view(out, {8, 32}), load_shared(s), {0, 0});
  }
};

TEST(TmaLoad, ElementsOutsideTheTensorReadAsZeroAtNegativeOffsets) {
  std::vector<float> host(256);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i + 1);
  for (const sim::Options& o : every_order()) {
    Buffer<float> in(Device::simulator(), host), out(Device::simulator(), std::vector<float>(256, -1.0f));
    testing::simulate<LoadsAtNegativeOffsets>(o, in, out);
    const std::vector<float> got = out.download();
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 32; ++c) {
        const bool inside = r >= 4 && c >= 8;
        ASSERT_EQ(got[size_t(r * 32 + c)], inside ? host[size_t((r - 4) * 32 + c - 8)] : 0.0f) << r << ", " << c;
      }
  }
}

TEST(TmaLoad, AKernelForSm80IsRejectedNamingSm90a) {
  Kernel<LoadTileByTma<float, 32, 32, Swizzle::none>> k(Device::simulator(), KernelOptions{.arch = "sm_80"});
  try {
    k.lowered(64, 64, (float*)nullptr, (float*)nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              testing::source_at("tests/tma_kernels.hpp",
                                 "mbarrier.arrive_and_expect_tx(bars[0], int(sizeof(T)) * TileM * TileN);") +
                  ": mbarrier.arrive_and_expect_tx needs sm_90a or newer; the kernel is compiled for sm_80");
  }
}

TEST(TmaLoad, GeneratedCodeCompilesForSm90aAndSm100a) {
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    Kernel<LoadTileByTma<f16, 32, 64, Swizzle::b128>> k(Device::simulator(), KernelOptions{.arch = arch});
    const std::string src = k.cuda_source(64, 128, (f16*)nullptr, (f16*)nullptr);
    EXPECT_NE(src.find("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
                       "%3}], [%4];"),
              std::string::npos)
        << src;
    runtime::CompileRequest req{
        src, "LoadTileByTma", arch, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
    const runtime::CompileResult r = runtime::compile_to_cubin(req);
    EXPECT_GE(r.cubin.size(), 4u) << arch;
  }
}

}  // namespace
}  // namespace tessel
