// Verifier rules and effects (tessel/ir/effects.hpp) of the wgmma instructions. nodes.def gives
// their oldest target (sm_90a) and executor (whole warpgroups); wgmma is also absent from every
// later target (sm_90a features are not forward compatible, and Blackwell has tcgen05 instead),
// which is checked here. Shapes, types and strides were checked at tracing; what passes decide is
// checked as an invariant.
#include "tessel/layout/wgmma_atoms.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"
#include "verification.hpp"

namespace tessel::ir {

namespace {

void check_hopper_only(const Verification& v, const StmtNode& n) {
  if (v.arch != Arch::Sm90a)
    throw Error(n.loc, fmt::format("{} exists only on sm_90a (wgmma is not forward compatible; later targets have "
                                   "no wgmma); the kernel is compiled for {}",
                                   call_name(n.kind), arch_name(v.arch)));
}

// A register operand pinned by the user to a layout other than the fragment wgmma needs.
void check_fragment(const RegisterTensor& t, const Layout& want, std::string_view role, const WgmmaMmaNode& n) {
  if (t->has_layout() && !(t->layout == want))
    throw Error(n.loc, fmt::format("wgmma.mma: the {} (created at {}) has the layout {}, but wgmma needs {}; create "
                                   "it without a layout argument and layout inference gives it the fragment",
                                   role, t->loc.str(), t->layout.str(), want.str()));
}

}  // namespace

void check_operand_swizzle(const SharedTensorNode& t, int row_bytes, const StmtNode& n) {
  const int bits = t.allocation()->swizzle_bits;
  TESSEL_CHECK(bits == kSwizzleUndecided || bits == wgmma_swizzle_bits(row_bytes),
               "{} at {} reads rows of {} bytes from a tile swizzled by {} bits", call_name(n.kind), n.loc.str(),
               row_bytes, bits);
}

void verify_WgmmaFence(Verification& v, const WgmmaFenceNode& n) { check_hopper_only(v, n); }

void verify_WgmmaMma(Verification& v, const WgmmaMmaNode& n) {
  check_hopper_only(v, n);
  const int warpgroups = v.group().count / 128;
  TESSEL_CHECK(n.m() % (kWgmmaM * warpgroups) == 0 && wgmma_n_is_legal(n.n(), n.operand_type()) &&
                   n.k() % wgmma_k(n.operand_type()) == 0,
               "wgmma.mma at {} of shape {}x{}x{} over {} warpgroups", n.loc.str(), n.m(), n.n(), n.k(), warpgroups);
  const WgmmaLayouts want = wgmma_layouts(n.m(), n.n(), n.k(), warpgroups, n.operand_type());
  check_fragment(n.acc, want.c, "accumulator", n);
  if (n.a_shared) check_operand_swizzle(*n.a_shared, n.a_operand().row_bytes, n);
  check_operand_swizzle(*n.b, n.b_operand().row_bytes, n);
  if (dtype_bytes(n.operand_type()) != 2)
    TESSEL_CHECK(!(n.a_shared && n.a_operand().mn_major) && !n.b_operand().mn_major,
                 "wgmma.mma at {} reads a {} operand MN-major", n.loc.str(), dtype_name(n.operand_type()));
  if (n.a_registers) {
    check_fragment(n.a_registers, want.a, "register A operand", n);
    v.use(n.a_registers, n);
  }
  v.use(n.acc, n);
}

void verify_WgmmaCommitGroup(Verification& v, const WgmmaCommitGroupNode& n) { check_hopper_only(v, n); }

void verify_WgmmaWaitGroup(Verification& v, const WgmmaWaitGroupNode& n) {
  check_hopper_only(v, n);
  TESSEL_CHECK(n.pending >= 0 && n.pending <= 7, "wgmma.wait_group {} at {}", n.pending, n.loc.str());
}

// ---- effects ----

Effects effects_of(const WgmmaFenceNode&) { return {}; }
Effects effects_of(const WgmmaCommitGroupNode&) { return {}; }
Effects effects_of(const WgmmaWaitGroupNode&) { return {}; }

Effects effects_of(const WgmmaMmaNode& n) {
  Effects e;
  if (n.a_shared)
    e.tensor_core_reads.push_back({n.a_shared->allocation(), wgmma_swizzle_bits(n.a_operand().row_bytes)});
  e.tensor_core_reads.push_back({n.b->allocation(), wgmma_swizzle_bits(n.b_operand().row_bytes)});
  return e;
}

}  // namespace tessel::ir
