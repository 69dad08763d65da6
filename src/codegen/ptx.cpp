#include "ptx.hpp"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tessel/error.hpp"

namespace tessel::codegen {

namespace {

struct PtxInstruction {
  const char* text;
  std::vector<const char*> constraints;  // one per %N operand; "=..." and "+..." are outputs
  bool memory = true;                    // reads or writes memory the compiler must not cache
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
      // PTX ISA 9.7.14.5.15: ldmatrix, four or two 8x8 matrices of 16-bit elements.
      {"ldmatrix.x4", {"ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];", {"=r", "=r", "=r", "=r", "r"}}},
      {"ldmatrix.x2", {"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];", {"=r", "=r", "r"}}},
      // PTX ISA 9.7.14.5.16: stmatrix (sm_90+), the inverse of ldmatrix.
      {"stmatrix.x4", {"stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};", {"r", "r", "r", "r", "r"}}},
      {"stmatrix.x2", {"stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};", {"r", "r", "r"}}},
      // PTX ISA 9.7.14.5.14: mma.sync.aligned.m16n8k16, row-major A, column-major B, f32 accumulate.
      {"mma.m16n8k16.f16",
       {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};",
        {"+f", "+f", "+f", "+f", "r", "r", "r", "r", "r", "r"},
        false}},
      {"mma.m16n8k16.bf16",
       {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};",
        {"+f", "+f", "+f", "+f", "r", "r", "r", "r", "r", "r"},
        false}},
      // PTX ISA 9.7.14.5.14: mma.sync.aligned.m16n8k32 with s8 operands, s32 accumulate (wrapping).
      {"mma.m16n8k32.s8",
       {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};",
        {"+r", "+r", "+r", "+r", "r", "r", "r", "r", "r", "r"},
        false}},
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
  std::vector<std::string> outputs, inputs;
  for (size_t i = 0; i < operands.size(); ++i) {
    const bool output = p.constraints[i][0] == '=' || p.constraints[i][0] == '+';
    (output ? outputs : inputs).push_back(fmt::format("\"{}\"({})", p.constraints[i], operands[i]));
  }
  std::string s = fmt::format("asm volatile(\"{}\" :", p.text);
  if (!outputs.empty()) s += fmt::format(" {} ", fmt::join(outputs, ", "));
  s += ":";
  if (!inputs.empty()) s += fmt::format(" {}", fmt::join(inputs, ", "));
  if (p.memory) s += inputs.empty() ? ": \"memory\"" : " : \"memory\"";
  return s + ");";
}

}  // namespace tessel::codegen
