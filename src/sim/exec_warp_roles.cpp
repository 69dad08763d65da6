// Simulator semantics of the warp-role instructions.
#include "machine.hpp"
#include "tessel/ir/fast_divmod.hpp"

namespace tessel::sim {

// Registers are not modelled: what remains is who runs it. Every lane of each warp of the
// warpgroup executes it (.sync.aligned); the verifier already holds the group to whole warpgroups.
void exec_SetMaxNReg(Warp& w, const ir::SetMaxNRegNode& n, Mask mask) {
  if (mask != ~Mask(0))
    throw Error(n.loc, fmt::format("setmaxnreg.{} is executed by every thread of a warpgroup together, but warp {} "
                                   "of block {} reaches it with {} of its 32 threads (is it inside an if_ or loop "
                                   "that splits the warp?){}",
                                   n.increase ? "increase" : "decrease", w.id, w.cta.block_name(), popcount(mask),
                                   w.returned_note(~mask)));
}

// Divides as the generated code does, with the magic numbers the launch computed.
void exec_FastDivmod(Warp& w, const ir::FastDivmodNode& n, Mask mask) {
  TESSEL_CHECK(n.planned(), "fast_divmod at {} reached the simulator without its magic numbers", n.loc.str());
  const Lanes x = w.eval(n.x, mask), d = w.eval(n.divisor, mask);
  const Lanes multiplier = w.eval(n.multiplier, mask), log2 = w.eval(n.log2, mask);
  const bool is_signed = n.x->type.dtype == DType::I32;
  Lanes q{}, r{};
  for (int l = 0; l < 32; ++l) {
    if (!(mask >> l & 1)) continue;
    const ir::DivisorMagic magic{uint32_t(multiplier[l].i), uint32_t(log2[l].i)};
    const int64_t quotient = is_signed ? int64_t(ir::fast_divide(int32_t(x[l].i), magic))
                                       : int64_t(ir::fast_divide(uint32_t(x[l].i), magic));
    q[l] = ir::normalize(n.x->type.dtype, ir::Scalar{.i = quotient});
    r[l] = ir::normalize(n.x->type.dtype, ir::Scalar{.i = x[l].i - quotient * d[l].i});
  }
  w.assign(n.quotient.get(), q, mask);
  w.assign(n.remainder.get(), r, mask);
}

}  // namespace tessel::sim
