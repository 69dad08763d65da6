// Verifier rules and effects (tessel/ir/effects.hpp) of the tensor-core instructions.
#include "verification.hpp"

namespace tessel::ir {

void verify_Dot(Verification& v, const DotNode& n) {
  TESSEL_CHECK(n.warps_m == 0 || n.warps_m * n.warps_n * 32 == v.group().count,
               "dot at {} split over {}x{} warps in a group of {}", n.loc.str(), n.warps_m, n.warps_n, v.group().count);
  v.use(n.a, n);
  v.use(n.b, n);
  v.use(n.c, n);
  v.define(n.out, n);
}

// ---- effects ----

Effects effects_of(const DotNode&) { return {}; }

}  // namespace tessel::ir
