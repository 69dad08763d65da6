// dot: matrix multiply-accumulate of register tiles on tensor cores. The fragment layouts and the
// warp split are chosen by infer_layouts; tracing checks what does not depend on them.
#include <fmt/ranges.h>

#include "tessel/layout/mma_atoms.hpp"
#include "tile_tracing.hpp"

namespace tessel {

namespace {

RegisterTensor trace_dot(const RegisterTensor& a, const RegisterTensor& b, const RegisterTensor& c, bool saturate,
                         const SourceLoc& loc) {
  Builder& bld = Builder::current(loc);
  const ir::ThreadRange g = bld.group(loc);
  if (a.shape().size() != 2 || b.shape().size() != 2 || c.shape().size() != 2)
    throw Error(loc, "dot: the operands must be 2-D tiles");
  const int m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  if (b.shape()[0] != k || c.shape()[0] != m || c.shape()[1] != n)
    throw Error(loc, fmt::format("dot: shapes [{}] @ [{}] + [{}] do not match (want [m, k] @ [k, n] + [m, n])",
                                 fmt::join(a.shape(), ", "), fmt::join(b.shape(), ", "), fmt::join(c.shape(), ", ")));
  const bool half =
      (a.dtype() == DType::F16 || a.dtype() == DType::BF16) && b.dtype() == a.dtype() && c.dtype() == DType::F32;
  const bool bytes = is_byte_integer(a.dtype()) && is_byte_integer(b.dtype()) && c.dtype() == DType::I32;
  const bool fp8 = is_fp8(a.dtype()) && is_fp8(b.dtype()) && c.dtype() == DType::F32;
  const bool tf32 = a.dtype() == DType::TF32 && b.dtype() == DType::TF32 && c.dtype() == DType::F32;
  if (!(half || bytes || fp8 || tf32))
    throw Error(loc, fmt::format("dot: tensor cores take f16 or bf16 operands of one type with an f32 accumulator, "
                                 "tf32 or fp8 operands (e4m3 or e5m2 each) with an f32 accumulator, or i8 or u8 "
                                 "operands (either signedness each) with an i32 accumulator; got {} @ {} + {}",
                                 dtype_name(a.dtype()), dtype_name(b.dtype()), dtype_name(c.dtype())));
  if (saturate && !bytes)
    throw Error(loc,
                fmt::format("dot(..., saturate): saturation clamps the i32 sums of 8-bit integer operands; {} @ {} "
                            "+ {} sums in floating point",
                            dtype_name(a.dtype()), dtype_name(b.dtype()), dtype_name(c.dtype())));
  if (g.count % 32 != 0)
    throw Error(loc,
                fmt::format("dot: tensor cores are used by whole warps; the thread group has {} threads", g.count));
  for (const RegisterTensor* t : {&a, &b, &c}) detail::check_group(t->ir(), "dot", loc);
  const int warps = g.count / 32;
  const MmaAtom& atom = mma_atom(a.dtype());
  if (mma_warp_splits(m, n, k, warps, a.dtype()).empty())
    throw Error(loc, fmt::format("dot: a {}x{}x{} tile does not split into m{}n{}k{} tensor-core atoms over {} warps "
                                 "(k must be a multiple of {}, and m and n multiples of {} and {} times the warps "
                                 "along them)",
                                 m, n, k, atom.m, atom.n, atom.k, warps, atom.k, atom.m, atom.n));
  auto out = detail::new_tile(c.dtype(), c.shape(), Layout(), "acc", loc);
  auto node = ir::make<ir::DotNode>(loc, out, a.ir(), b.ir(), c.ir(), 0, 0);
  node->saturate = saturate;
  bld.emit(node);
  return RegisterTensor(out);
}

}  // namespace

RegisterTensor Instructions::dot(const RegisterTensor& a, const RegisterTensor& b, const RegisterTensor& c, loc_t l) {
  return trace_dot(a, b, c, false, SourceLoc::from(l));
}

RegisterTensor Instructions::dot(const RegisterTensor& a, const RegisterTensor& b, const RegisterTensor& c, Saturate,
                                 loc_t l) {
  return trace_dot(a, b, c, true, SourceLoc::from(l));
}

}  // namespace tessel
