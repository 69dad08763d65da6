// dot: matrix multiply-accumulate of register tiles on tensor cores.
#include <fmt/ranges.h>

#include "tessel/lang/script.hpp"
#include "tessel/layout/mma_atoms.hpp"

namespace tessel {

RegisterTensor Instructions::dot(const RegisterTensor& a, const RegisterTensor& b, const RegisterTensor& c, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& bld = Builder::current(loc);
  const Builder::Group g = bld.group(loc);
  if (a.shape().size() != 2 || b.shape().size() != 2 || c.shape().size() != 2)
    throw Error(loc, "dot: the operands must be 2-D tiles");
  const int m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  if (b.shape()[0] != k || c.shape()[0] != m || c.shape()[1] != n)
    throw Error(loc, fmt::format("dot: shapes [{}] @ [{}] + [{}] do not match (want [m, k] @ [k, n] + [m, n])",
                                 fmt::join(a.shape(), ", "), fmt::join(b.shape(), ", "), fmt::join(c.shape(), ", ")));
  if (a.dtype() != b.dtype() || (a.dtype() != DType::F16 && a.dtype() != DType::BF16) || c.dtype() != DType::F32)
    throw Error(loc, fmt::format("dot: tensor cores take f16 or bf16 operands of one type and an f32 accumulator; got "
                                 "{} @ {} + {}",
                                 dtype_name(a.dtype()), dtype_name(b.dtype()), dtype_name(c.dtype())));
  if (g.count % 32 != 0)
    throw Error(loc, fmt::format("dot: tensor cores are used by whole warps; the thread group has {} threads", g.count));
  const int warps = g.count / 32;
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    if (m % (16 * wm) != 0 || n % (8 * wn) != 0 || k % 16 != 0) continue;
    const MmaLayouts want = mma_layouts(m, n, k, wm, wn);
    if (a.layout() == want.a && b.layout() == want.b && c.layout() == want.c) {
      auto out = std::make_shared<ir::RegisterTensorNode>(ir::RegisterTensorNode{DType::F32, c.layout(), "acc", loc});
      bld.emit(std::make_shared<ir::DotNode>(loc, out, a.ir(), b.ir(), c.ir(), wm, wn));
      return RegisterTensor(out);
    }
  }
  throw Error(loc, fmt::format("dot: the operands are not in tensor-core fragment layouts for a {}x{}x{} tile over {} "
                               "warps; create them with the layouts of mma_layouts({}, {}, {}, warps_m, warps_n) "
                               "(a: {}; b: {}; c: {})",
                               m, n, k, warps, m, n, k, a.layout().str(), b.layout().str(), c.layout().str()));
}

}  // namespace tessel
