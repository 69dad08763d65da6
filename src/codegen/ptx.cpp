#include "ptx.hpp"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessel/error.hpp"

namespace tessel::codegen {

namespace {

struct PtxInstruction {
  const char* text;
  std::vector<const char*> constraints;  // one per %N operand
};

// PTX ISA 8.x: cp.async (9.7.9.25.3), cp.async.commit_group, cp.async.wait_group / wait_all.
const std::map<std::string, PtxInstruction>& table() {
  static const std::map<std::string, PtxInstruction> t = {
      {"cp.async.cg.16", {"cp.async.cg.shared.global [%0], [%1], 16, %2;", {"r", "l", "r"}}},
      {"cp.async.ca.8", {"cp.async.ca.shared.global [%0], [%1], 8, %2;", {"r", "l", "r"}}},
      {"cp.async.ca.4", {"cp.async.ca.shared.global [%0], [%1], 4, %2;", {"r", "l", "r"}}},
      {"cp.async.commit_group", {"cp.async.commit_group;", {}}},
      {"cp.async.wait_group", {"cp.async.wait_group %0;", {"n"}}},
      {"cp.async.wait_all", {"cp.async.wait_all;", {}}},
  };
  return t;
}

}  // namespace

std::string ptx_asm(const std::string& name, const std::vector<std::string>& operands) {
  auto it = table().find(name);
  TESSEL_CHECK(it != table().end(), "no PTX instruction named {}", name);
  const PtxInstruction& p = it->second;
  TESSEL_CHECK(p.constraints.size() == operands.size(), "{} takes {} operands, {} given", name, p.constraints.size(),
               operands.size());
  std::vector<std::string> bound;
  for (size_t i = 0; i < operands.size(); ++i) bound.push_back(fmt::format("\"{}\"({})", p.constraints[i], operands[i]));
  return fmt::format("asm volatile(\"{}\" :: {} : \"memory\");", p.text, fmt::join(bound, ", "));
}

}  // namespace tessel::codegen
