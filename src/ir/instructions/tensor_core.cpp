// Verifier rules and effects (tessel/ir/effects.hpp) of the tensor-core instructions.
#include "verification.hpp"

namespace tessel::ir {

void verify_Dot(Verification& v, const DotNode& n) {
  TESSEL_CHECK(n.warps_m == 0 || n.warps_m * n.warps_n * 32 == v.group().count,
               "dot at {} split over {}x{} warps in a group of {}", n.loc.str(), n.warps_m, n.warps_n, v.group().count);
  // mma.sync takes fp8 operands from sm_89 (PTX ISA 9.7.14.5.14): of tessel's targets, sm_90a and newer.
  if (is_fp8(n.a->dtype) && int(v.arch) < int(Arch::Sm90a))
    throw Error(n.loc, fmt::format("dot of {} @ {} runs mma.sync on fp8 operands, which needs sm_89 or newer (sm_90a "
                                   "of the targets); the kernel is compiled for {}",
                                   dtype_name(n.a->dtype), dtype_name(n.b->dtype), arch_name(v.arch)));
  v.use(n.a, n);
  v.use(n.b, n);
  v.use(n.c, n);
  v.define(n.out, n);
}

// ---- effects ----

Effects effects_of(const DotNode&) { return {}; }

}  // namespace tessel::ir
