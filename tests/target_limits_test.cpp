// The one table of hardware limits, and the places that read it.
#include "tessel/ir/target_limits.hpp"

#include <gtest/gtest.h>

#include "tessel/analysis/gpu_specs.hpp"
#include "tessel/ir/verifier.hpp"

namespace tessel::ir {
namespace {

TEST(TargetLimits, FiguresPerTarget) {
  const TargetLimits& sm80 = target_limits(Arch::Sm80);
  const TargetLimits& sm90a = target_limits(Arch::Sm90a);
  const TargetLimits& sm100a = target_limits(Arch::Sm100a);
  for (const TargetLimits* l : {&sm80, &sm90a, &sm100a}) {
    EXPECT_EQ(l->max_threads_per_block, 1024);
    EXPECT_EQ(l->registers_per_sm, 65536);
    EXPECT_EQ(l->max_registers_per_thread, 255);
    EXPECT_EQ(l->max_grid_blocks, (std::array<int64_t, 3>{2147483647, 65535, 65535}));
    EXPECT_EQ(l->max_shared_bytes_per_block + l->shared_bytes_reserved_per_block, l->shared_bytes_per_sm);
  }
  EXPECT_EQ(sm80.max_shared_bytes_per_block, 163 * 1024);
  EXPECT_EQ(sm90a.max_shared_bytes_per_block, 227 * 1024);
  EXPECT_EQ(sm100a.max_shared_bytes_per_block, 227 * 1024);
  EXPECT_EQ(sm80.max_cluster_blocks, 1);
  EXPECT_EQ(sm90a.max_cluster_blocks, 8);
  EXPECT_EQ(sm90a.tmem_columns, 0);
  EXPECT_EQ(sm100a.tmem_columns, 512);
  EXPECT_EQ(sm100a.tmem_lanes, 128);
}

TEST(TargetLimits, TheVerifierAndTheGpuTableReadThem) {
  for (Arch a : {Arch::Sm80, Arch::Sm90a, Arch::Sm100a})
    EXPECT_EQ(max_shared_bytes_per_block(a), target_limits(a).max_shared_bytes_per_block);
  for (const auto& [key, arch] : {std::pair{"a100", Arch::Sm80}, {"h100", Arch::Sm90a}, {"h200", Arch::Sm90a},
                                  {"b200", Arch::Sm100a}}) {
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
