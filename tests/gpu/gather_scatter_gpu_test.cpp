// Gathers and scatters by index tiles on the GPU: the same results as the host reference.
#include "../gather_scatter_kernels.hpp"
#include "gpu_test.hpp"

namespace tessel::testing {
namespace {

using GatherScatterOnGpu = GpuTest;

TEST_F(GatherScatterOnGpu, TokenRowsGoToTheirPlacesAndComeFromTheirSources) { check_permute_token_rows(Device::gpu()); }

TEST_F(GatherScatterOnGpu, ElementsAlongTheLastDimension) { check_gather_and_scatter_columns(Device::gpu()); }

TEST_F(GatherScatterOnGpu, ThroughSharedMemory) { check_compact_and_reverse_in_shared(Device::gpu()); }

}  // namespace
}  // namespace tessel::testing
