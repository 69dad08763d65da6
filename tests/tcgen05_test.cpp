// tcgen05 on the simulator against host references under every completion order, the misuse that
// tracing, the passes and the simulator report, and the CUDA and sm_100a cubins the code
// generator makes of it.
#include "expect_error.hpp"
#include "filecheck.hpp"
#include "simulate.hpp"
#include "tcgen05_kernels.hpp"

namespace tessel::testing {
namespace {

std::vector<KernelOptions> every_order() {
  std::vector<KernelOptions> orders;
  for (const sim::Options& o : testing::every_order()) orders.push_back(KernelOptions{.arch = "sm_100a", .sim = o});
  return orders;
}

TEST(Tcgen05, MatmulMatchesTheHostReferenceUnderEveryOrder) {
  for (const KernelOptions& o : every_order()) {
    check_tcgen05_matmul<Tcgen05Matmul<f16, 128, 64, 32>, f16>(o, 256, 128, 128);
    check_tcgen05_matmul<Tcgen05Matmul<bf16, 128, 128, 64>, bf16>(o, 128, 256, 128);
  }
}

TEST(Tcgen05, MatmulMasksSizesThatAreNotTileMultiples) {
  for (const KernelOptions& o : every_order()) {
    check_tcgen05_matmul<Tcgen05Matmul<f16, 128, 64, 32>, f16>(o, 200, 72, 80);
    check_tcgen05_matmul<Tcgen05Matmul<bf16, 128, 32, 16>, bf16>(o, 130, 40, 24);
  }
}

TEST(Tcgen05, SlicedEpilogueMatchesTheHostReference) {
  for (const KernelOptions& o : every_order())
    check_tcgen05_matmul<Tcgen05Matmul<f16, 128, 128, 64, 32>, f16>(o, 128, 256, 192);
}

}  // namespace
}  // namespace tessel::testing

namespace tessel::testing {
namespace {

using SmallMatmul = Tcgen05Matmul<f16, 128, 64, 32>;

TEST(Tcgen05Codegen, CompilesForSm100a) {
  for (const std::vector<char>& cubin :
       {Kernel<SmallMatmul>(Device::simulator(), KernelOptions{"sm_100a"}).cubin(0, 64, 64, (f16*)nullptr, (f16*)nullptr, (float*)nullptr),
        Kernel<Tcgen05Matmul<bf16, 128, 256, 64, 64>>(Device::simulator(), KernelOptions{"sm_100a"})
            .cubin(0, 256, 64, (bf16*)nullptr, (bf16*)nullptr, (float*)nullptr)})
    EXPECT_FALSE(cubin.empty());
}

}  // namespace
}  // namespace tessel::testing
