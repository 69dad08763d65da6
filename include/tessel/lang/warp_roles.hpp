// What warp-specialized kernels use besides thread groups: `setmaxnreg` (moving registers
// between the warpgroups of a block, sm_90a) and `fast_divmod` (division by a value that is the
// same for the whole grid). A thread group's sync() is in script.hpp with the other controls.
#pragma once

#include <source_location>
#include <utility>

#include "tessel/lang/values.hpp"

namespace tessel {

// setmaxnreg (sm_90a): run by whole warpgroups (warp_group(i, ...), or a thread group of
// multiples of 128 threads); each warp's registers per thread become `registers`, a multiple of 8
// in 24..256. A producer role decreases, consumer roles increase. The registers an increase takes
// come only from what decreases released, so the block's total stays what the kernel starts with:
// registers_at_entry(threads) per thread, which tessel fixes for kernels that use setmaxnreg. An
// increase beyond that would wait forever on the GPU; the trace refuses it.
class SetmaxnregInstructions {
 public:
  using loc_t = std::source_location;
  void increase(int registers, loc_t loc = loc_t::current()) { trace(true, registers, loc); }
  void decrease(int registers, loc_t loc = loc_t::current()) { trace(false, registers, loc); }
  // Each thread's registers at entry in a block of `threads` that uses setmaxnreg: its share of
  // the 65536-register file, rounded down to a multiple of 8 (168 for 384 threads).
  static constexpr int registers_at_entry(int threads) { return 65536 / threads / 8 * 8; }

 private:
  static void trace(bool increase, int registers, loc_t loc);
};

namespace detail {
void trace_fast_divmod(const ir::Var& quotient, const ir::Var& remainder, ir::Expr x, ir::Expr divisor, SourceLoc loc);
void check_divisor(int divisor, std::source_location loc);
}  // namespace detail

// (x / d, x % d), truncating as C does, for 32-bit integers: `auto [q, r] = fast_divmod(x, d);`.
// `d` must be the same for the whole grid: an expression of the kernel's run-time parameters and
// of variables declared once from them. The launch computes its magic numbers on the host and the
// kernel divides by a multiply-high and shifts; a d that is 0 (or negative) at a launch is an error
// there.
template <class X, class D>
requires(detail::is_kernel_scalar<X>&& detail::is_kernel_scalar<D>)
    std::pair<Var<typename detail::result_elem<X, D>::type>, Var<typename detail::result_elem<X, D>::type>> fast_divmod(
        const X& x, const D& d, std::source_location loc = std::source_location::current()) {
  using T = typename detail::result_elem<X, D>::type;
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>,
                "fast_divmod divides 32-bit integers (Int32, UInt32)");
  Var<T> q(T{0}, loc), r(T{0}, loc);
  detail::trace_fast_divmod(q.var(), r.var(), detail::to_ir<T>(x), detail::to_ir<T>(d), SourceLoc::from(loc));
  return {std::move(q), std::move(r)};
}

// A divisor known at compile time needs no magic numbers: x / d and x % d, which the compiler
// turns into a multiply and shifts itself.
template <class X>
requires(detail::is_kernel_scalar<X>)
    std::pair<Var<detail::kernel_elem_t<X>>, Var<detail::kernel_elem_t<X>>> fast_divmod(
        const X& x, int d, std::source_location loc = std::source_location::current()) {
  using T = detail::kernel_elem_t<X>;
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>,
                "fast_divmod divides 32-bit integers (Int32, UInt32)");
  detail::check_divisor(d, loc);
  Var<T> q(x / d, loc), r(x % d, loc);
  return {std::move(q), std::move(r)};
}

}  // namespace tessel
