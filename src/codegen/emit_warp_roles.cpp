// Warp-role instructions: register reallocation between warpgroups, division by grid constants.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_SetMaxNReg(Emitter& e, const ir::SetMaxNRegNode& n) {
  e.header(n, fmt::format("setmaxnreg.{} {}", n.increase ? "inc" : "dec", n.registers));
  e.line(ptx_asm(n.increase ? Ptx::SetmaxnregInc : Ptx::SetmaxnregDec, e.arch, {{std::to_string(n.registers)}}));
}

// The magic numbers are parameters the launch computed (ir/fast_divmod.hpp).
void emit_FastDivmod(Emitter& e, const ir::FastDivmodNode& n) {
  TESSEL_CHECK(n.planned(), "fast_divmod at {} reached code generation without its magic numbers", n.loc.str());
  const std::string q = e.expr(n.quotient), r = e.expr(n.remainder), x = e.expr(n.x);
  e.line(fmt::format("{} = tessel_fast_divide({}, {}, {});{}", q, x, e.expr(n.multiplier), e.expr(n.log2),
                     e.comment(n.loc, "fast_divmod")));
  e.line(fmt::format("{} = {} - {} * {};", r, x, q, e.expr(n.divisor)));
}

}  // namespace tessel::codegen
