// Verifier rules and effects (tessel/ir/effects.hpp) of the instructions of warp-specialized
// kernels: register reallocation between warpgroups and division by grid constants. Who runs them
// and on which target is nodes.def's data.
#include "verification.hpp"

namespace tessel::ir {

void verify_SetMaxNReg(Verification&, const SetMaxNRegNode& n) {
  TESSEL_CHECK(n.registers >= 24 && n.registers <= 256 && n.registers % 8 == 0, "setmaxnreg {} at {}", n.registers,
               n.loc.str());
}

void verify_FastDivmod(Verification&, const FastDivmodNode& n) {
  const Type t = n.x->type;
  TESSEL_CHECK(!t.pointer && (t.dtype == DType::I32 || t.dtype == DType::U32), "fast_divmod of {} at {}", t.str(),
               n.loc.str());
  TESSEL_CHECK(n.quotient->type == t && n.remainder->type == t && n.divisor->type == t, "fast_divmod at {} mixes types",
               n.loc.str());
  TESSEL_CHECK(!n.planned() || (n.multiplier->type.dtype == DType::U32 && n.log2->type.dtype == DType::U32),
               "fast_divmod at {} has magic numbers of the wrong type", n.loc.str());
}

// ---- effects ----

Effects effects_of(const SetMaxNRegNode&) { return {}; }
Effects effects_of(const FastDivmodNode&) { return {}; }

}  // namespace tessel::ir
