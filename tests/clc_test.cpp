// Cluster launch control: a persistent kernel that cancels the blocks not yet started and does their
// work, on the simulator against a host reference under every completion order and several numbers
// of resident blocks; the misuse the simulator reports; the generated code through NVRTC for sm_100a.
#include <random>

#include <gtest/gtest.h>

#include "simulate.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

using testing::every_order;

int line = 0;

// Cluster launch control exists from sm_100a: the kernels here are traced for it.
constexpr const char* kTarget = "sm_100a";

template <class S, class... A> void simulate(const sim::Options& options, const A&... args) {
  Kernel<S>(Device::simulator(), KernelOptions{.arch = kTarget, .sim = options})(args...);
}

template <class S, class... A> std::string error_of(const A&... args) {
  try {
    simulate<S>({}, args...);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

constexpr int kTileRows = 8, kTileCols = 32;

// out = 2 * in + 1, tile by tile over a grid of one block per tile, and counts[tile] += 1 for every
// time a tile is computed. Each block computes its own tile, then the tiles of the blocks it
// cancels, until a response says none is left (hw-semantics §7.2). The next request is issued
// before the tile is computed, so that it is in flight meanwhile.
struct DoublesTilesPersistently : Script {
  void operator()(Int32 gx, Int32 gy, Ptr<float> in, Ptr<float> out, Ptr<int32_t> counts) {
    attrs.blocks = {gx, gy};
    attrs.warps = 4;
    auto response = shared_tensor<uint32_t>({4});
    auto bars = mbarrier.alloc({1});
    auto src = global_view(in, {gy * kTileRows, gx * kTileCols});
    auto dst = global_view(out, {gy * kTileRows, gx * kTileCols});
    auto computed = global_view(counts, {gy, gx});
    Int32 tile_x = blockIdx.x, tile_y = blockIdx.y;
    Var<bool> finished = false;
    UInt32 phase = mbarrier.consumer_initial_phase;
    while_([&] { return !finished; },
           [&] {
             single_thread([&] {
               mbarrier.arrive_and_expect_tx(bars[0], 16);
               clc.try_cancel(response, bars[0]);
             });
             auto t = load_global(src, {tile_y * kTileRows, tile_x * kTileCols}, {kTileRows, kTileCols});
             store_global(dst, t + t + 1.0f, {tile_y * kTileRows, tile_x * kTileCols});
             single_thread([&] {
               auto count = load_global(computed, {tile_y, tile_x}, {1, 1});
               store_global(computed, count + 1, {tile_y, tile_x});
             });
             mbarrier.wait(bars[0], phase);
             phase ^= 1;
             ClcResponse next = clc.query_response(response);
             finished = !next.is_canceled;
             tile_x = next.first_ctaid.x;
             tile_y = next.first_ctaid.y;
             // Every thread has read the response before the next request overwrites it (through the
             // async proxy, hence the fence on hardware).
             fence.proxy_async();
             sync();
           });
  }
};

void check_persistent(int gx, int gy, const sim::Options& options) {
  const size_t elements = size_t(gx * kTileCols) * size_t(gy * kTileRows);
  std::mt19937 rng(uint32_t(gx * 131 + gy));
  std::uniform_real_distribution<float> dist(-4, 4);
  std::vector<float> in(elements);
  for (float& x : in) x = dist(rng);
  Buffer<float> din(Device::simulator(), in), out(Device::simulator(), std::vector<float>(elements, 77.0f));
  Buffer<int32_t> counts(Device::simulator(), std::vector<int32_t>(size_t(gx * gy), 0));
  simulate<DoublesTilesPersistently>(options, gx, gy, din, out, counts);
  const auto got = out.download();
  for (size_t i = 0; i < elements; ++i) ASSERT_EQ(got[i], 2 * in[i] + 1) << "element " << i;
  const auto computed = counts.download();
  for (size_t t = 0; t < computed.size(); ++t) ASSERT_EQ(computed[t], 1) << "tile " << t;
}

TEST(Clc, APersistentKernelComputesEveryTileOnceUnderEveryOrderAndResidency) {
  for (sim::Options o : every_order())
    for (int resident : {1, 2, 3}) {
      o.resident_clusters = resident;
      SCOPED_TRACE(fmt::format("resident {}, seed {}", resident, o.seed));
      check_persistent(5, 3, o);
      check_persistent(1, 1, o);
    }
}

TEST(Clc, WithEveryBlockResidentNoRequestSucceeds) {
  sim::Options o{.completion = sim::CompletionOrder::Eager};
  o.resident_clusters = 15;
  check_persistent(5, 3, o);
}

// Asks four times whatever the responses say.
struct AsksAgainAfterAFailure : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto response = shared_tensor<uint32_t>({4});
    auto bars = mbarrier.alloc({1});
    for (Int32 round : range(0, 4)) {
      single_thread([&] {
        mbarrier.arrive_and_expect_tx(bars[0], 16);
        line = __LINE__ + 1;
        clc.try_cancel(response, bars[0]);
      });
      mbarrier.wait(bars[0], round % 2);
      ClcResponse r = clc.query_response(response);
      single_thread([&] { store_global(global_view(out, {1}), register_tensor<int32_t>({1}, r.first_ctaid.x), {0}); });
      sync();
    }
  }
};

TEST(Clc, ARequestAfterAnObservedFailureIsReported) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(1, 0));
  const std::string got = error_of<AsksAgainAfterAFailure>(out);
  const int query = line + 3;
  EXPECT_EQ(got, fmt::format("{0}:{1}: clc.try_cancel: block (0, 0, 0) asks again (thread 0) after its response read "
                             "at {0}:{2} found no cluster left to cancel; a request after an observed failure is "
                             "undefined: leave the loop once is_canceled is false",
                             __FILE__, line, query));
}

// Reads the response without waiting for it.
struct ReadsTheResponseEarly : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto response = shared_tensor<uint32_t>({4});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 16);
      line = __LINE__ + 1;
      clc.try_cancel(response, bars[0]);
    });
    ClcResponse r = clc.query_response(response);
    mbarrier.wait(bars[0], 0);
    single_thread([&] { store_global(global_view(out, {2}), register_tensor<int32_t>({1}, r.first_ctaid.x), {0}); });
  }
};

TEST(Clc, ReadingAResponseBeforeItLandsIsReported) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(2, 0));
  const std::string got = error_of<ReadsTheResponseEarly>(out);
  EXPECT_EQ(got, fmt::format("{0}:{2}: read of shared memory that a clc.try_cancel issued at {0}:{1} may still be "
                             "writing (thread 0 of block (0, 0, 0)); wait on the mbarrier phase the request completes "
                             "(mbarrier.wait) before reading its response",
                             __FILE__, line, line + 2));
}

// Ends without waiting for its request.
struct EndsWithARequestPending : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 3;
    attrs.warps = 1;
    auto response = shared_tensor<uint32_t>({4});
    auto bars = mbarrier.alloc({1});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 16);
      line = __LINE__ + 1;
      clc.try_cancel(response, bars[0]);
    });
  }
};

TEST(Clc, ABlockEndingWithARequestPendingIsReported) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(1, 0));
  const std::string got = error_of<EndsWithARequestPending>(out);
  EXPECT_EQ(got, fmt::format("{}:{}: clc.try_cancel: block (0, 0, 0) ended while this request (thread 0) was pending; "
                             "wait on its mbarrier phase before the block ends",
                             __FILE__, line));
}

struct CancelsIntoAWideTile : Script {
  void operator()(Ptr<int32_t> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto response = shared_tensor<uint32_t>({8});
    auto bars = mbarrier.alloc({1});
    line = __LINE__ + 1;
    single_thread([&] { clc.try_cancel(response, bars[0]); });
  }
};

TEST(Clc, AResponseTileOfAnotherSizeIsReported) {
  Buffer<int32_t> out(Device::simulator(), std::vector<int32_t>(1, 0));
  const std::string got = error_of<CancelsIntoAWideTile>(out);
  EXPECT_EQ(got, fmt::format("{}:{}: clc.try_cancel: the response tile s has 32 bytes; a response takes a 16-byte "
                             "shared tile, such as shared_tensor<uint32_t>({{4}})",
                             __FILE__, line));
}

// One barrier completes the bytes of a TMA load (an [8, 32] f32 tile: 1024 bytes) and of a
// try_cancel response (16 bytes); the producer announces `Bytes`.
template <int Bytes> struct LoadsAndCancelsOnOneBarrier : Script {
  void operator()(Ptr<float> in, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto tile = shared_tensor<float>({8, 32}, Swizzle::none);
    auto response = shared_tensor<uint32_t>({4});
    auto bar = mbarrier.alloc(1);
    single_thread([&] {
      line = __LINE__ + 1;
      mbarrier.arrive_and_expect_tx(bar, Bytes);
      tma.global_to_shared(global_view(in, {8, 32}), tile, {0, 0}, bar);
      clc.try_cancel(response, bar);
    });
    mbarrier.wait(bar, mbarrier.consumer_initial_phase);
    ClcResponse next = clc.query_response(response);
    if_(!next.is_canceled, [&] { store_global(global_view(out, {8, 32}), load_shared(tile), {0, 0}); });
  }
};

TEST(Clc, TheResponseBytesCountWithTheLoadsOnItsBarrier) {
  std::vector<float> values(256);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i % 29) - 14.0f;
  Buffer<float> in(Device::simulator(), values), out(Device::simulator(), std::vector<float>(256, -1.0f));
  EXPECT_EQ(error_of<LoadsAndCancelsOnOneBarrier<1024 + 16>>(in, out), "no error");
  EXPECT_EQ(out.download(), values);
  const auto message = [](int bytes, const char* outcome) {
    return fmt::format(
        "{0}:{1}: mbarrier.arrive_and_expect_tx: announces {2} transaction bytes, but the operations "
        "that complete bytes on this barrier (tma.global_to_shared {0}:{3}, clc.try_cancel {0}:{4}) "
        "bring 1040 bytes, every byte of the TMA loads' boxes and 16 of each try_cancel response; the "
        "phase would {5}. Announce exactly the bytes they bring",
        __FILE__, line, bytes, line + 1, line + 2, outcome);
  };
  EXPECT_EQ(error_of<LoadsAndCancelsOnOneBarrier<1024>>(in, out), message(1024, "receive more bytes than it expects"));
  EXPECT_EQ(error_of<LoadsAndCancelsOnOneBarrier<1056>>(in, out), message(1056, "never complete"));
}

TEST(Clc, AKernelForSm90aIsRejectedNamingTheLineAndSm100a) {
  Kernel<CancelsIntoAWideTile> k(Device::simulator(), KernelOptions{.arch = "sm_90a"});
  try {
    k.lowered((int32_t*)nullptr);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        fmt::format("{}:{}: clc.try_cancel needs sm_100a or newer; the kernel is compiled for sm_90a", __FILE__, line));
  }
}

TEST(Clc, GeneratedCodeCompilesForSm100a) {
  Kernel<DoublesTilesPersistently> k(Device::simulator(), KernelOptions{.arch = kTarget});
  const std::string src = k.cuda_source(4, 2, (float*)nullptr, (float*)nullptr, (int32_t*)nullptr);
  EXPECT_NE(src.find("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"),
            std::string::npos)
      << src;
  runtime::CompileRequest req{
      src, "DoublesTilesPersistently", kTarget, {{codegen::kDeviceHeaderName, codegen::device_header()}}, {}};
  EXPECT_GE(runtime::compile_to_cubin(req).cubin.size(), 4u);
}

}  // namespace
}  // namespace tessel
