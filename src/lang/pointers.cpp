// Pointers made from 64-bit addresses: entries of a table of pointers, or another pointer's bytes
// viewed as elements of another type.
#include <fmt/format.h>

#include "tessel/lang/values.hpp"

namespace tessel::detail {

Expr<uint64_t> address_value(ir::Expr address, const SourceLoc& loc) {
  return Expr<uint64_t>(ir::cast(DType::U64, std::move(address), loc));
}

ir::Expr made_pointer(DType t, const Expr<uint64_t>& address, int alignment, const SourceLoc& loc) {
  Builder::current(loc);  // inside a kernel only
  if (alignment < element_alignment(t) || (alignment & (alignment - 1)) != 0)
    throw Error(loc, fmt::format("as_pointer<{}>: an alignment of {} bytes; a pointer is aligned to a power of two "
                                 "bytes, at least its element's {}",
                                 dtype_name(t), alignment, element_alignment(t)));
  return ir::pointer_at(t, address.ir(), alignment, loc);
}

}  // namespace tessel::detail
