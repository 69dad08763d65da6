// The example kernels, registered with the command line as any user's kernels are
// (tessel/cli/registry.hpp), and used by the CLI, the tests and the benchmarks.
#pragma once

#include "tessel/cli/host_check.hpp"
#include "tessel/cli/registry.hpp"

namespace tessel::examples {

using cli::add_introspection;
using cli::compare;
using cli::compare_within;
using cli::KernelEntry;
using cli::poisoned;
using cli::random_vector;
using cli::RunResult;

// Every example, in the order `tessel list` shows them.
const cli::Registry& registry();
// registry().find(name).
const KernelEntry& find_example(const std::string& name);

// softmax along each row of the row-major [rows, cols] `x`, in double and rounded once: the host
// reference of the softmax examples (row_softmax.cpp).
std::vector<float> row_softmax_reference(const std::vector<float>& x, int rows, int cols);

// The examples' registrations (one per example file).
KernelEntry vector_add_example();
KernelEntry row_softmax_example();
KernelEntry wide_row_softmax_example();
KernelEntry greedy_sampling_example();
KernelEntry cluster_row_softmax_example();
KernelEntry layer_norm_example();
KernelEntry dequantize_int4_example();
KernelEntry matmul_simt_example();
KernelEntry broken_sync_example();
KernelEntry quantize_fp8_groups_example();
std::vector<KernelEntry> ampere_ladder_examples();
std::vector<KernelEntry> hopper_ladder_examples();
std::vector<KernelEntry> blackwell_ladder_examples();
std::vector<KernelEntry> blackwell_low_precision_examples();
std::vector<KernelEntry> attention_ladder_examples();
std::vector<KernelEntry> fp8_gemm_examples();
std::vector<KernelEntry> weight_only_gemm_examples();
std::vector<KernelEntry> moe_examples();
std::vector<KernelEntry> moe_grouped_gemm_examples();

}  // namespace tessel::examples
