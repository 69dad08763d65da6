// store_shared of tensor-core accumulator fragments with stmatrix (sm_90+): a 16-bit tile in the C
// layout of mma_layouts() is, atom by atom, the x2 stmatrix fragment (matrix_load_atoms.hpp), so
// each warp stores two atoms side by side with one stmatrix.x4 (one atom with .x2 when a warp has
// an odd number along n) instead of element by element (PTX ISA 9.7.14.5.16).
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

bool emit_stmatrix(Emitter& e, const ir::StoreSharedNode& n, const SharedElement& element) {
  const ir::MatrixAccess& split = n.matrix;
  if (split.instruction == ir::MatrixInstruction::None) return false;
  const int rm = n.src->shape()[0] / 16 / split.warps_m, rn = n.src->shape()[1] / 8 / split.warps_n;
  const int atoms = rn % 2 == 0 ? 2 : 1;  // atoms along n per stmatrix
  const std::string src = e.tile(n.src);
  e.line(fmt::format("const int lane = int(threadIdx.x) % 32, warp = {} / 32;", e.thread_in_group()));
  // Lane l addresses row l % 16 of atom (l / 16) % atoms: matrices 0, 1 are the row halves of the
  // first atom, 2, 3 those of the second.
  e.line(fmt::format(
      "const int row = {} + (warp / {}) * 16 + lane % 16, col = {} + (warp % {}) * 8 + ((lane / 16) % {}) * {};",
      e.expr(n.offsets[0]), split.warps_n, e.expr(n.offsets[1]), split.warps_n, atoms, split.warps_n * 8));
  const std::string thread = fmt::format("row * {} + col", n.dst->strides[0]);
  for (int mi = 0; mi < rm; ++mi)
    for (int ni = 0; ni < rn; ni += atoms) {
      const int64_t constant = int64_t(mi * split.warps_m * 16) * n.dst->strides[0] + ni * split.warps_n * 8;
      std::vector<std::string> registers;
      for (int a = 0; a < atoms; ++a) {
        const int slot = (mi * rn + ni + a) * 4;
        for (int r = 0; r < 2; ++r)
          registers.push_back(fmt::format("tessel_pack2({0}[{1}], {0}[{2}])", src, slot + 2 * r, slot + 2 * r + 1));
      }
      e.line(ptx_asm(Ptx::Stmatrix, e.arch,
                     {{fmt::format("uint32_t(__cvta_generic_to_shared(&{}))", element(thread, constant))}, registers}));
    }
  return true;
}

}  // namespace tessel::codegen
