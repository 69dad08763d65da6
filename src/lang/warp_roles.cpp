// Tracing setmaxnreg and fast_divmod; their trace-time checks at the user's line.
#include "tessel/lang/warp_roles.hpp"

namespace tessel {

void SetmaxnregInstructions::trace(bool increase, int registers, loc_t loc) {
  const SourceLoc l = SourceLoc::from(loc);
  Builder& b = Builder::current(l);
  const char* call = increase ? "setmaxnreg.increase" : "setmaxnreg.decrease";
  if (registers < 24 || registers > 256 || registers % 8 != 0)
    throw Error(l, fmt::format("{}({}): the register count must be a multiple of 8 from 24 to 256", call, registers));
  const ir::ThreadRange g = b.group(l);
  if (!g.whole_warpgroups())
    throw Error(l, fmt::format("{}({}) in a thread group of {}: setmaxnreg is executed by whole warpgroups (128 "
                               "threads starting at a multiple of 128), since every warp of a warpgroup must run it "
                               "together; call it in warp_group(i, ...)",
                               call, registers, g.str()));
  b.register_requests.push_back({g, increase, registers, l});
  b.emit(ir::make<ir::SetMaxNRegNode>(l, increase, registers));
}

namespace detail {

void trace_fast_divmod(const ir::Var& quotient, const ir::Var& remainder, ir::Expr x, ir::Expr divisor, SourceLoc loc) {
  Builder& b = Builder::current(loc);
  b.emit(ir::make<ir::FastDivmodNode>(loc, quotient, remainder, std::move(x), std::move(divisor)));
}

void check_divisor(int divisor, std::source_location loc) {
  if (divisor == 0) throw Error(SourceLoc::from(loc), "fast_divmod: the divisor is 0");
}

}  // namespace detail

}  // namespace tessel
