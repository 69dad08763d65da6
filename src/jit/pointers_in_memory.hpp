// Writes through pointers a kernel reads from memory (as_pointer of an address that is not made of
// parameters alone): what timing runs would change without a copy to put back.
#pragma once

#include <optional>

#include "tessel/ir/ir.hpp"

namespace tessel::detail {

// The line that made the pointer of the first such write in `k`, if there is one.
std::optional<SourceLoc> write_through_pointer_in_memory(const ir::KernelNode& k);

}  // namespace tessel::detail
