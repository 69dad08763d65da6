// Global scratch buffers on the simulator (scratch_kernels.hpp) under every order, and misuse: a
// zeroed scratch left nonzero, a shape known only inside the kernel, and what an undefined scratch
// holds before the launch writes it.
#include <cmath>

#include <gmock/gmock.h>

#include "expect_error.hpp"
#include "scratch_kernels.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/ir/printer.hpp"

namespace tessel::testing {
namespace {

TEST(Scratch, LastBlockAddsThePartials) {
  for (sim::Options o : every_order()) {
    check_last_block_column_sums(Device::simulator(), 200, o);
    o.blocks_per_group = {13, 1, 1};  // every block at once, so that any of them may take the last ticket
    check_last_block_column_sums(Device::simulator(), 200, o);
  }
}

TEST(Scratch, ALaunchMustLeaveAZeroedScratchZeroed) {
  Buffer<float> x(Device::simulator(), std::vector<float>(200 * 64, 1.0f)),
      sums(Device::simulator(), std::vector<float>(64, 0.0f));
  EXPECT_EQ(error_of<LastBlockColumnSums<false>>(200, x, sums),
            source_at("tests/last_block_column_sums.hpp", "auto tickets = global_scratch<int32_t>") +
                ": kernel LastBlockColumnSums_false: the zeroed global_scratch made here is not zero when the launch "
                "ends (byte 0, in element 0, is 0x0d); the next launch expects zeros, so put back every value the "
                "launch changed");
}

struct ScratchSizedByTheBlock : Script {
  void operator()(Ptr<float> out) {
    attrs.blocks = 2;
    attrs.warps = 1;
    auto scratch = global_scratch<float>({blockIdx.x + 1});
    store_global(global_view(out, {32}), load_global(scratch, {0}, {32}), {0});
  }
};

TEST(Scratch, TheShapeIsComputedBeforeTheLaunch) {
  Buffer<float> out(Device::simulator(), std::vector<float>(32, 0.0f));
  EXPECT_EQ(error_of<ScratchSizedByTheBlock>(out),
            source_at("tests/scratch_test.cpp", "auto scratch = global_scratch<float>({blockIdx.x + 1})") +
                ": the shape of a global_scratch of kernel ScratchSizedByTheBlock uses blockIdx.x, which is only "
                "known inside the kernel");
}

struct ReadUnwrittenScratch : Script {
  void operator()(Int32 n, Ptr<float> out) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto scratch = global_scratch<float>({n});
    store_global(global_view(out, {n}), load_global(scratch, {0}, {32}), {0});
  }
};

TEST(Scratch, AnUndefinedScratchHoldsNaNOnTheSimulator) {
  Buffer<float> out(Device::simulator(), std::vector<float>(32, 0.0f));
  simulate<ReadUnwrittenScratch>(sim::Options{}, 32, out);
  for (float v : out.download()) EXPECT_TRUE(std::isnan(v));
}

TEST(Scratch, TheIrNamesTheBuffers) {
  Buffer<float> x(Device::simulator(), std::vector<float>(64, 1.0f)),
      sums(Device::simulator(), std::vector<float>(64, 0.0f));
  Kernel<LastBlockColumnSums<>> kernel(Device::simulator());
  const std::string ir = ir::print(*kernel.lowered(1, x, sums));
  EXPECT_THAT(ir, ::testing::HasSubstr("global scratch of"));
  EXPECT_THAT(ir, ::testing::HasSubstr("bytes, zeroed, at launch"));
}

}  // namespace
}  // namespace tessel::testing
