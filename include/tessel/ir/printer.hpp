// The printer is a contract: its text is deterministic (names are assigned by first appearance,
// never from addresses or counters), tests compare it, IR dumps show it, and the compile cache
// hashes it.
#pragma once

#include <string>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

std::string print(const KernelNode& k);
std::string print(const Stmt& s);
std::string print(const Expr& e);

}  // namespace tessel::ir
