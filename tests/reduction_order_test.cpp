// Sums and scans on the simulator give the generated code's bits (reduction_order_kernels.hpp).
#include "reduction_order_kernels.hpp"
#include "simulate.hpp"

namespace tessel::testing {
namespace {

TEST(ReductionOrder, SumsAndScansCombineAsTheGeneratedCodeDoes) {
  for (const sim::Options& o : every_order()) {
    check_reduction_order<float>(Device::simulator(), o);
    check_reduction_order<f16>(Device::simulator(), o);
    check_reduction_order<bf16>(Device::simulator(), o);
  }
}

}  // namespace
}  // namespace tessel::testing
