// The one table of hardware limits, and the places that draw their lines by it.
#include "tessel/ir/target_limits.hpp"

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/ir/verifier.hpp"
#include "tessel/tessel.hpp"

namespace tessel::ir {
namespace {

TEST(TargetLimits, TheVerifierAndTheGpuTableReadThem) {
  for (Arch a : {Arch::Sm80, Arch::Sm90a, Arch::Sm100a})
    EXPECT_EQ(max_shared_bytes_per_block(a), target_limits(a).max_shared_bytes_per_block);
  for (const auto& [key, arch] :
       {std::pair{"a100", Arch::Sm80}, {"h100", Arch::Sm90a}, {"h200", Arch::Sm90a}, {"b200", Arch::Sm100a}}) {
    const analysis::GpuSpec& g = analysis::gpu_spec(key);
    const TargetLimits& l = target_limits(arch);
    EXPECT_EQ(g.max_threads_per_block, l.max_threads_per_block) << key;
    EXPECT_EQ(g.shared_per_block_optin, l.max_shared_bytes_per_block) << key;
    EXPECT_EQ(g.shared_per_sm, l.shared_bytes_per_sm) << key;
    EXPECT_EQ(g.registers_per_sm, l.registers_per_sm) << key;
    EXPECT_EQ(g.max_registers_per_thread, l.max_registers_per_thread) << key;
    EXPECT_EQ(g.tmem_columns, l.tmem_columns) << key;
  }
}

}  // namespace
}  // namespace tessel::ir

namespace tessel {
namespace {

// Each limit of the table is where tessel draws its line: a kernel at the limit lowers, one a
// step past it is refused, naming the limit. The kernels take the amount as a hyperparameter, set
// per kernel object by KernelOptions::configuration.
struct SharedMemoryOf : Script {
  int floats = 1;
  static Space space() {
    const int most = int(ir::target_limits(ir::Arch::Sm90a).max_shared_bytes_per_block / 4);
    return tune("floats", &SharedMemoryOf::floats, {most, most + 4});
  }
  static inline int line = 0;
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 1;
    line = __LINE__ + 1;
    shared_tensor<float>({floats});
  }
};

struct WarpsOf : Script {
  int warps = 1;
  static Space space() {
    const int most = ir::target_limits(ir::Arch::Sm80).max_threads_per_block / 32;
    return tune("warps", &WarpsOf::warps, {most, most + 1});
  }
  static constexpr int line = __LINE__ + 3;
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = warps;
  }
};

struct ClusterOf : Script {
  int blocks = 1;
  static Space space() {
    const int most = ir::target_limits(ir::Arch::Sm90a).max_cluster_blocks;
    return tune("blocks", &ClusterOf::blocks, {most, most + 1});
  }
  void operator()(Ptr<float> x) {
    attrs.cluster = {blocks};
    attrs.blocks = blocks;
    attrs.warps = 1;
  }
};

struct TensorMemoryOf : Script {
  int columns = 32;
  static Space space() {
    const int most = ir::target_limits(ir::Arch::Sm100a).tmem_columns;
    return tune("columns", &TensorMemoryOf::columns, {most, 2 * most});
  }
  static inline int line = 0;
  void operator()(Ptr<float> x) {
    attrs.blocks = 1;
    attrs.warps = 4;
    line = __LINE__ + 1;
    auto t = tcgen05.alloc<float>({128, columns});
    sync();
    tcgen05.dealloc(t);
  }
};

// The error of lowering kernel `S` configured with `configuration` for `arch`, or "no error".
template <class S> std::string lowering(const std::string& arch, const std::string& configuration) {
  return testing::error_of_call([&] {
    Kernel<S>(Device::simulator(), KernelOptions{.arch = arch, .configuration = configuration})
        .lowered((float*)nullptr);
  });
}

TEST(TargetLimits, EachLimitIsWhereTheCompilerDrawsTheLine) {
  const int64_t shared = ir::target_limits(ir::Arch::Sm90a).max_shared_bytes_per_block;
  EXPECT_EQ(lowering<SharedMemoryOf>("sm_90a", fmt::format("floats={}", shared / 4)), "no error");
  EXPECT_EQ(lowering<SharedMemoryOf>("sm_90a", fmt::format("floats={}", shared / 4 + 4)),
            fmt::format("{0}:{1}: kernel SharedMemoryOf needs {2} bytes of shared memory per block, more than the {3} "
                        "bytes sm_90a allows: {2} bytes for a shared tensor (f32[{4}] at {0}:{1})",
                        __FILE__, SharedMemoryOf::line, shared + 16, shared, shared / 4 + 4));
  const int warps = ir::target_limits(ir::Arch::Sm80).max_threads_per_block / 32;
  EXPECT_EQ(lowering<WarpsOf>("sm_80", fmt::format("warps={}", warps)), "no error");
  EXPECT_EQ(lowering<WarpsOf>("sm_80", fmt::format("warps={}", warps + 1)),
            fmt::format("{}:{}: kernel WarpsOf: attrs.warps must be set to a value in 1..{} in the kernel body, got {}",
                        __FILE__, WarpsOf::line, warps, warps + 1));
  const int cluster = ir::target_limits(ir::Arch::Sm90a).max_cluster_blocks;
  EXPECT_EQ(lowering<ClusterOf>("sm_90a", fmt::format("blocks={}", cluster)), "no error");
  EXPECT_EQ(lowering<ClusterOf>("sm_90a", fmt::format("blocks={}", cluster + 1)),
            fmt::format("kernel ClusterOf: attrs.cluster = {{{0}}} makes clusters of {0} blocks; a cluster has at "
                        "most {1}",
                        cluster + 1, cluster));
  const int columns = ir::target_limits(ir::Arch::Sm100a).tmem_columns;
  EXPECT_EQ(lowering<TensorMemoryOf>("sm_100a", fmt::format("columns={}", columns)), "no error");
  EXPECT_EQ(lowering<TensorMemoryOf>("sm_100a", fmt::format("columns={}", 2 * columns)),
            fmt::format("{0}:{1}: tcgen05.alloc: [128, {2}] needs {2} columns of tensor memory; a block has {3} (from "
                        "1 to {3} columns per allocation)",
                        __FILE__, TensorMemoryOf::line, 2 * columns, columns));
}

}  // namespace
}  // namespace tessel
