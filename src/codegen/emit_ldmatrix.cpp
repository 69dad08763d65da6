// load_shared into tensor-core fragments with ldmatrix: when the destination is the A or B layout
// of mma_layouts() and the source keeps k contiguous in rows of 16-byte chunks, each warp loads
// its fragments with one ldmatrix per atom instead of element by element (PTX ISA 9.7.14.5.15).
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

bool emit_ldmatrix(Emitter& e, const ir::LoadSharedNode& n, const SharedElement& element) {
  const ir::MatrixAccess& match = n.matrix;
  if (match.instruction == ir::MatrixInstruction::None) return false;
  const auto& shape = n.out->shape();
  const std::string T = c_type(n.out->dtype), out = e.tile(n.out);
  e.line(fmt::format("const int lane = int(threadIdx.x) % 32, warp = {} / 32;", e.thread_in_group()));
  const std::string off0 = e.expr(n.offsets[0]), off1 = e.expr(n.offsets[1]);
  if (match.instruction == ir::MatrixInstruction::LdmatrixA) {
    // Matrices 0..3 of an atom: rows 0-7 / 8-15 x columns 0-7 / 8-15; lane l addresses row l % 16
    // of column half l / 16.
    const int rm = shape[0] / 16 / match.warps_m, rk = shape[1] / 16;
    e.line(fmt::format("const int row = {} + (warp / {}) * 16 + lane % 16, col = {} + (lane / 16) * 8;", off0,
                       match.warps_n, off1));
    const std::string thread = fmt::format("row * {} + col * {}", n.src->strides[0], n.src->strides[1]);
    for (int mi = 0; mi < rm; ++mi)
      for (int ki = 0; ki < rk; ++ki) {
        const int64_t constant =
            int64_t(mi * match.warps_m * 16) * n.src->strides[0] + int64_t(ki * 16) * n.src->strides[1];
        const int slot = (mi * rk + ki) * 8;
        e.open("");
        e.line("uint32_t r0, r1, r2, r3;");
        e.line(ptx_asm(Ptx::Ldmatrix, e.arch,
                       {{"r0", "r1", "r2", "r3"},
                        {fmt::format("uint32_t(__cvta_generic_to_shared(&{}))", element(thread, constant))}}));
        for (int r = 0; r < 4; ++r)
          e.line(fmt::format("{0}[{1}] = tessel_unpack<{2}>(r{3}, 0); {0}[{4}] = tessel_unpack<{2}>(r{3}, 1);", out,
                             slot + 2 * r, T, r, slot + 2 * r + 1));
        e.close();
      }
  } else {
    // Matrices 0, 1 of an atom: its 8 columns (n) x k rows 0-7 / 8-15, read from k-contiguous storage;
    // lane l addresses n = l % 8 of k half (l / 8) % 2. With an even number of atoms along n, one
    // .x4 reads two neighbouring atoms: lanes 16-31 address the second.
    const int rk = shape[0] / 16, rn = shape[1] / 8 / match.warps_n;
    const int per_load = rn % 2 == 0 ? 2 : 1, registers = 2 * per_load;
    e.line(fmt::format("const int k = {} + ((lane / 8) % 2) * 8, col = {} + (warp % {}) * 8 + lane % 8{};", off0, off1,
                       match.warps_n, per_load == 2 ? fmt::format(" + (lane / 16) * {}", match.warps_n * 8) : ""));
    const std::string thread = fmt::format("k * {} + col * {}", n.src->strides[0], n.src->strides[1]);
    for (int ki = 0; ki < rk; ++ki)
      for (int ni = 0; ni < rn; ni += per_load) {
        const int64_t constant =
            int64_t(ki * 16) * n.src->strides[0] + int64_t(ni * match.warps_n * 8) * n.src->strides[1];
        std::vector<std::string> regs;
        for (int r = 0; r < registers; ++r) regs.push_back(fmt::format("r{}", r));
        e.open("");
        e.line(fmt::format("uint32_t {};", fmt::join(regs, ", ")));
        e.line(ptx_asm(Ptx::Ldmatrix, e.arch,
                       {regs, {fmt::format("uint32_t(__cvta_generic_to_shared(&{}))", element(thread, constant))}}));
        for (int r = 0; r < registers; ++r) {
          const int slot = (ki * rn + ni + r / 2) * 4 + 2 * (r % 2);
          e.line(fmt::format("{0}[{1}] = tessel_unpack<{2}>(r{3}, 0); {0}[{4}] = tessel_unpack<{2}>(r{3}, 1);", out,
                             slot, T, r, slot + 1));
        }
        e.close();
      }
  }
  return true;
}

}  // namespace tessel::codegen
