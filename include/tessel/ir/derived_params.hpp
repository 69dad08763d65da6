// The values a launch computes for a kernel's derived parameters (KernelNode::derived_params).
#pragma once

#include <span>

#include "tessel/ir/evaluate.hpp"

namespace tessel::ir {

// Fills the values of the kernel's derived parameters from the call's, which `values` holds first,
// and the device's multiprocessor count; scratch buffers are left to the caller, which owns them
// (scratch_bytes gives each one's size). Throws tessel::Error at the user's fast_divmod when its
// divisor is not positive at this launch.
void compute_derived_params(const KernelNode& k, int multiprocessors, std::span<Scalar> values);

// The bytes of the global scratch buffer `p` at a launch with the call's `values` (held first).
// Throws tessel::Error at the user's global_scratch when its size is negative.
int64_t scratch_bytes(const KernelNode& k, const DerivedParam& p, std::span<const Scalar> values, int multiprocessors);

}  // namespace tessel::ir
