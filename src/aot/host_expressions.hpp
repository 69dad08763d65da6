// Values a launch computes, as C++ for an exported launcher: IR expressions over the kernel's
// parameters and the multiprocessor count, with ir::evaluate's integer semantics (64-bit
// arithmetic wrapped to each operation's type, unsigned values zero-extended, division by zero an
// error), through the helpers of the launcher header's common part.
#pragma once

#include <string>

#include "tessel/ir/ir.hpp"

namespace tessel::aot {

// `e` as a C++ expression of type int64_t over `tessel_v[i]` (parameter i's value: an integer, or a
// pointer's address) and `multiprocessors`. Throws tessel::Error at e's line for what a launcher
// cannot compute: floating-point values, and values the launch does not have.
std::string host_expression(const ir::ExprNode& e, const ir::KernelNode& k);

// The common part of every launcher header: the helpers host_expression uses, the buffer type and
// the error type.
std::string launcher_runtime();

}  // namespace tessel::aot
