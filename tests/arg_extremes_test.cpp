// argmax and argmin on the simulator under every order (arg_extremes_kernels.hpp).
#include "arg_extremes_kernels.hpp"
#include "simulate.hpp"

namespace tessel::testing {
namespace {

TEST(ArgExtremes, FirstPositionOfTheExtremeAcrossWarpsUnderEveryOrder) {
  for (const sim::Options& o : every_order()) {
    check_arg_extremes<int32_t>(Device::simulator(), o);
    check_arg_extremes<float>(Device::simulator(), o);
  }
}

}  // namespace
}  // namespace tessel::testing
