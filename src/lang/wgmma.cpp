// wgmma: tracing of the warpgroup tensor-core instructions. Everything that can be checked from
// shapes, types, memories and strides is checked here, at the user's line; the fragment layouts
// are given by infer_layouts and the shared tiles' swizzle by choose_swizzles.
#include <fmt/ranges.h>

#include "tessel/layout/wgmma_atoms.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"
#include "tile_tracing.hpp"

namespace tessel {

namespace {

// The number of warpgroups of the current thread group; the group must be whole warpgroups.
int warpgroups(const SourceLoc& loc, std::string_view what) {
  const ir::ThreadRange g = Builder::current(loc).group(loc);
  if (!g.whole_warpgroups())
    throw Error(loc, fmt::format("{} is executed by whole warpgroups (4 aligned warps, 128 threads), but it runs in a "
                                 "thread group of {}; make the group start and end at multiples of 128 threads",
                                 what, g.str()));
  return g.count / 128;
}

void trace_mma(const ir::SharedTensor& a_shared, const ir::RegisterTensor& a_registers, const SharedTensor& b,
               const RegisterTensor& acc, bool accumulate, bool saturate, const SourceLoc& loc) {
  Builder& bld = Builder::current(loc);
  const int groups = warpgroups(loc, "wgmma.mma");
  const DType a_type = a_shared ? a_shared->dtype : a_registers->dtype;
  const bool shared_ranks =
      (!a_shared || a_shared->rank() == 2 || a_shared->rank() == 3) && (b.shape().size() == 2 || b.shape().size() == 3);
  if (!shared_ranks || (a_registers && a_registers->shape().size() != 2) || acc.shape().size() != 2)
    throw Error(loc,
                "wgmma.mma: the operands must be 2-D tiles (a shared operand may also be MN-major in span-wide "
                "blocks, a 3-D tile)");
  const std::vector<int> a_shape = a_shared ? detail::mma_operand_shape(a_shared, 1) : a_registers->shape();
  const std::vector<int> b_shape = detail::mma_operand_shape(b.ir(), 0);
  const int m = a_shape[0], k = a_shape[1], n = b_shape[1];
  if (b_shape[0] != k || acc.shape()[0] != m || acc.shape()[1] != n)
    throw Error(loc, fmt::format("wgmma.mma: shapes [{}] @ [{}] into [{}] do not match (want a [m, k], b [k, n], acc "
                                 "[m, n])",
                                 fmt::join(a_shape, ", "), fmt::join(b_shape, ", "), fmt::join(acc.shape(), ", ")));
  const bool half = (a_type == DType::F16 || a_type == DType::BF16) && b.dtype() == a_type;
  const bool fp8 = is_fp8(a_type) && is_fp8(b.dtype());
  const bool tf32 = a_type == DType::TF32 && b.dtype() == DType::TF32;
  const bool integer = is_byte_integer(a_type) && is_byte_integer(b.dtype());
  if (!((half || fp8 || tf32) && acc.dtype() == DType::F32) && !(integer && acc.dtype() == DType::I32))
    throw Error(loc, fmt::format("wgmma.mma: takes f16 or bf16 operands of one type, tf32 operands, or fp8 operands "
                                 "(f8e4m3, f8e5m2, in any pairing), and an f32 accumulator; or 8-bit integer operands "
                                 "(i8, u8, in any pairing) and an i32 accumulator; got {} @ {} into {}{}",
                                 dtype_name(a_type), dtype_name(b.dtype()), dtype_name(acc.dtype()),
                                 a_type == DType::F32 && b.dtype() == DType::F32
                                     ? "; the tensor cores read f32 as tf32: shared tiles of tf32 take f32 data as it "
                                       "is (docs/language.md, \"tf32\")"
                                     : ""));
  if (saturate && !integer)
    throw Error(loc, fmt::format("wgmma.mma(..., saturate): saturation clamps the i32 sums of 8-bit integer operands; "
                                 "{} @ {} into {} sums in floating point",
                                 dtype_name(a_type), dtype_name(b.dtype()), dtype_name(acc.dtype())));
  if (m % (kWgmmaM * groups) != 0)
    throw Error(loc, fmt::format("wgmma.mma: m = {} must be a multiple of {} (64 rows for each of the {} warpgroups "
                                 "of the thread group)",
                                 m, kWgmmaM * groups, groups));
  if (!wgmma_n_is_legal(n, a_type))
    throw Error(loc, integer ? fmt::format("wgmma.mma: n = {} is not a wgmma shape for 8-bit integers; n must be 8, "
                                           "16, 24, or a multiple of 16 from 32 to 256",
                                           n)
                             : fmt::format("wgmma.mma: n = {} is not a wgmma shape; n must be a multiple of 8 from 8 "
                                           "to 256",
                                           n));
  if (k % wgmma_k(a_type) != 0 || wgmma_swizzle_bits(k * dtype_bytes(a_type)) < 0)
    throw Error(loc, half   ? fmt::format("wgmma.mma: k = {} does not fit; k must be 16, 32 or 64 (one m64nNk16 "
                                            "instruction per 16, and shared rows of 32, 64 or 128 bytes, one swizzle "
                                            "span)",
                                          k)
                     : tf32 ? fmt::format("wgmma.mma: k = {} does not fit; for tf32 operands, k must be 8, 16 or 32 "
                                          "(one m64nNk8 instruction per 8, and shared rows of 32, 64 or 128 bytes, one "
                                          "swizzle span)",
                                          k)
                            : fmt::format("wgmma.mma: k = {} does not fit; for 8-bit operands, k must be 32, 64 or 128 "
                                          "(one m64nNk32 instruction per 32, and shared rows of 32, 64 or 128 bytes, "
                                          "one swizzle span)",
                                          k));
  if (a_shared) detail::check_mma_operand(a_shared, "wgmma.mma", "a", 1, loc);
  detail::check_mma_operand(b.ir(), "wgmma.mma", "b", 0, loc);

  if (a_registers) detail::check_group(a_registers, "wgmma.mma", loc);
  detail::check_group(acc.ir(), "wgmma.mma", loc);
  auto node = ir::make<ir::WgmmaMmaNode>(loc, acc.ir(), a_shared, a_registers, b.ir(), accumulate);
  node->saturate = saturate;
  bld.emit(node);
}

}  // namespace

void WgmmaInstructions::fence(loc_t l) const {
  const SourceLoc loc = SourceLoc::from(l);
  warpgroups(loc, "wgmma.fence");
  Builder::current(loc).emit(ir::make<ir::WgmmaFenceNode>(loc));
}

void WgmmaInstructions::mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, loc_t l) const {
  trace_mma(a.ir(), nullptr, b, acc, true, false, SourceLoc::from(l));
}

void WgmmaInstructions::mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc, loc_t l) const {
  trace_mma(nullptr, a.ir(), b, acc, true, false, SourceLoc::from(l));
}

void WgmmaInstructions::mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate,
                            loc_t l) const {
  trace_mma(a.ir(), nullptr, b, acc, accumulate, false, SourceLoc::from(l));
}

void WgmmaInstructions::mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate,
                            loc_t l) const {
  trace_mma(nullptr, a.ir(), b, acc, accumulate, false, SourceLoc::from(l));
}

void WgmmaInstructions::mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, Saturate,
                            loc_t l) const {
  trace_mma(a.ir(), nullptr, b, acc, true, true, SourceLoc::from(l));
}

void WgmmaInstructions::mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc, Saturate,
                            loc_t l) const {
  trace_mma(nullptr, a.ir(), b, acc, true, true, SourceLoc::from(l));
}

void WgmmaInstructions::mma(const SharedTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate,
                            Saturate, loc_t l) const {
  trace_mma(a.ir(), nullptr, b, acc, accumulate, true, SourceLoc::from(l));
}

void WgmmaInstructions::mma(const RegisterTensor& a, const SharedTensor& b, const RegisterTensor& acc, bool accumulate,
                            Saturate, loc_t l) const {
  trace_mma(nullptr, a.ir(), b, acc, accumulate, true, SourceLoc::from(l));
}

void WgmmaInstructions::commit_group(loc_t l) const {
  const SourceLoc loc = SourceLoc::from(l);
  warpgroups(loc, "wgmma.commit_group");
  Builder::current(loc).emit(ir::make<ir::WgmmaCommitGroupNode>(loc));
}

void WgmmaInstructions::wait_group(int pending, loc_t l) const {
  const SourceLoc loc = SourceLoc::from(l);
  warpgroups(loc, "wgmma.wait_group");
  if (pending < 0 || pending > 7)
    throw Error(loc, fmt::format("wgmma.wait_group({}): the number of groups left running must be in 0..7", pending));
  Builder::current(loc).emit(ir::make<ir::WgmmaWaitGroupNode>(loc, pending));
}

}  // namespace tessel
