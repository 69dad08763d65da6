// Helper classes (tessel::Class): a report about a barrier that an instance owns names the
// instance, by the line that constructed it and the member, and the Pipeline's waits are reported
// at the lines that call them.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "simulate.hpp"
#include "source_line.hpp"
#include "tessel/lib/pipeline.hpp"

namespace tessel::testing {
namespace {

int first_line = 0, second_line = 0, acquire_line = 0;

// Two rings: the first is filled and its stage consumed, the second is never filled.
struct ConsumesARingNobodyFills : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    first_line = __LINE__ + 1;
    Pipeline first(2);
    second_line = __LINE__ + 1;
    Pipeline second(2);
    single_thread([&] { mbarrier.arrive(first.producer_barrier()); });
    first.consumer_acquire();
    acquire_line = __LINE__ + 1;
    second.consumer_acquire();
  }
};

TEST(HelperClasses, ADeadlockInAPipelinesWaitNamesTheCallersLineAndTheInstance) {
  Buffer<float> unused(Device::simulator(), 32);  // a launch refuses a null pointer
  const std::string got = simulation_error<ConsumesARingNobodyFills>(sim::Options{}, unused);
  const std::string wait = fmt::format("{}:{}", __FILE__, acquire_line);
  const std::string alloc = source_at("include/tessel/lib/pipeline.hpp",
                                      "mbarrier.alloc(std::vector<int>(num_stages, producer_arrive_count)");
  EXPECT_EQ(got.substr(0, got.find('\n')),
            fmt::format("{0}: deadlock in block (0, 0, 0) of kernel ConsumesARingNobodyFills: warp 0 (threads 0..31) "
                        "waits at {0} for phase 0 (parity 0) of barrier 0 of full_barriers of the Pipeline "
                        "constructed at {1}:{2} (the array allocated at {3}), which lacks 1 of its 1 arrivals, and "
                        "nothing in flight and no other warp can provide them; no instruction of the kernel arrives "
                        "on it.",
                        wait, __FILE__, second_line, alloc));
}

int turns_line = 0;

struct SharesEightStagesInThreeTurns : Script {
  void operator()(Ptr<float>) {
    attrs.blocks = 1;
    attrs.warps = 1;
    turns_line = __LINE__ + 1;
    Pipeline ring(8, Turns{3});
  }
};

TEST(HelperClasses, APipelineTakenInTurnsGivesEachConsumerAWholeNumberOfStages) {
  Buffer<float> unused(Device::simulator(), 32);
  const std::string got = error_of<SharesEightStagesInThreeTurns>(unused);
  EXPECT_EQ(got, fmt::format("{}:{}: Pipeline: 8 stages cannot be shared by 3 consumers in turn; each takes a whole "
                             "number of stages of its own (num_stages a multiple of Turns::consumers)",
                             __FILE__, turns_line));
}

}  // namespace
}  // namespace tessel::testing
