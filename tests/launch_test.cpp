// The launch path on the simulator: the values of run-time parameters of every type.
#include "launch_kernels.hpp"

namespace tessel::testing {
namespace {

TEST(Launch, EveryParameterTypeReachesTheKernel) { check_every_parameter_type(Device::simulator()); }

}  // namespace
}  // namespace tessel::testing
