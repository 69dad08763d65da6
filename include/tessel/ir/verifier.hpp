// The verifier: structural and type invariants of a kernel, plus the target's limits. Internal
// invariants fail with an internal error; what the user can cause (a tile used outside its thread
// group, too much shared memory for the target) is a tessel::Error naming the user's line.
#pragma once

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

void verify(const KernelNode& k, Arch arch);

// Per-target limits used by the verifier and the analysis tools.
int64_t max_shared_bytes_per_block(Arch arch);

}  // namespace tessel::ir
