// The PTX instructions the emitter writes as inline assembly, each spelled once (ptx.cpp); the
// `asm volatile` statements are rendered from this table, never written by hand.
#pragma once

#include <string>
#include <vector>

namespace tessel::codegen {

// `asm volatile("<ptx>" :: "<constraint>"(operand), ... : "memory");` for the named instruction;
// `operands` are C++ expressions, one per operand of the instruction.
std::string ptx_asm(const std::string& name, const std::vector<std::string>& operands);

}  // namespace tessel::codegen
