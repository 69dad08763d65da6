// load_shared into tensor-core fragments with ldmatrix: when the destination is the A or B layout
// of mma_layouts() and the source keeps k contiguous in rows of 16-byte chunks, each warp loads
// its fragments with one ldmatrix per atom instead of element by element (PTX ISA 9.7.14.5.15).
#include <optional>

#include "emitter.hpp"
#include "ptx.hpp"
#include "tessel/layout/mma_atoms.hpp"

namespace tessel::codegen {

namespace {

enum class Operand { A, B };

struct Match {
  Operand operand;
  int warps_m, warps_n;
};

// Which fragment layout `out` is, if any, for the warps of the current group.
std::optional<Match> match_fragment(const ir::LoadSharedNode& n, int warps) {
  const auto& shape = n.out->shape();
  if (shape.size() != 2 || dtype_bytes(n.out->dtype) != 2) return std::nullopt;
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    if (shape[0] % (16 * wm) == 0 && shape[1] % 16 == 0 &&
        mma_layouts(shape[0], 8 * wn, shape[1], wm, wn).a == n.out->layout)
      return Match{Operand::A, wm, wn};
    if (shape[0] % 16 == 0 && shape[1] % (8 * wn) == 0 &&
        mma_layouts(16 * wm, shape[1], shape[0], wm, wn).b == n.out->layout)
      return Match{Operand::B, wm, wn};
  }
  return std::nullopt;
}

// ldmatrix reads rows of 8 contiguous 16-bit elements starting on 16-byte boundaries.
bool rows_are_chunks(const ir::LoadSharedNode& n, Operand op) {
  const ir::SharedTensor& s = n.src;
  const int contiguous = op == Operand::A ? 1 : 0;  // the k dimension of the view
  if (s->strides[contiguous] != 1 || s->strides[1 - contiguous] % 8 != 0) return false;
  for (size_t d = 0; d + 1 < s->allocation()->strides.size(); ++d)
    if (s->allocation()->strides[d] % 8 != 0) return false;
  int64_t k_offset = 0;
  return ir::as_const_int(n.offsets[contiguous], &k_offset) && k_offset % 8 == 0;
}

}  // namespace

bool emit_ldmatrix(Emitter& e, const ir::LoadSharedNode& n, const std::function<std::string(const std::string&)>& element) {
  const Emitter::Group g = e.group();
  if (g.count % 32 != 0 || g.begin % 32 != 0) return false;
  const auto match = match_fragment(n, g.count / 32);
  if (!match || !rows_are_chunks(n, match->operand)) return false;
  const auto& shape = n.out->shape();
  const std::string T = c_type(n.out->dtype), out = e.tile(n.out);
  e.line(fmt::format("const int lane = int(threadIdx.x) % 32, warp = {} / 32;", e.thread_in_group()));
  const std::string off0 = e.expr(n.offsets[0]), off1 = e.expr(n.offsets[1]);
  if (match->operand == Operand::A) {
    // Matrices 0..3 of an atom: rows 0-7 / 8-15 x columns 0-7 / 8-15; lane l addresses row l % 16
    // of column half l / 16.
    const int rm = shape[0] / 16 / match->warps_m, rk = shape[1] / 16;
    e.line(fmt::format("const int row = {} + (warp / {}) * 16 + lane % 16, col = {} + (lane / 16) * 8;", off0,
                       match->warps_n, off1));
    for (int mi = 0; mi < rm; ++mi)
      for (int ki = 0; ki < rk; ++ki) {
        const std::string index = fmt::format("(row + {}) * {} + (col + {}) * {}", mi * match->warps_m * 16,
                                              n.src->strides[0], ki * 16, n.src->strides[1]);
        const int slot = (mi * rk + ki) * 8;
        e.open("");
        e.line("uint32_t r0, r1, r2, r3;");
        e.line(ptx_asm("ldmatrix.x4", {"r0", "r1", "r2", "r3", fmt::format("uint32_t(__cvta_generic_to_shared(&{}))",
                                                                         element(index))}));
        for (int r = 0; r < 4; ++r)
          e.line(fmt::format("{0}[{1}] = tessel_unpack<{2}>(r{3}, 0); {0}[{4}] = tessel_unpack<{2}>(r{3}, 1);", out,
                             slot + 2 * r, T, r, slot + 2 * r + 1));
        e.close();
      }
  } else {
    // Matrices 0, 1 of an atom: its 8 columns (n) x k rows 0-7 / 8-15, read from k-contiguous storage;
    // lane l addresses n = l % 8 of k half (l / 8) % 2.
    const int rk = shape[0] / 16, rn = shape[1] / 8 / match->warps_n;
    e.line(fmt::format("const int k = {} + ((lane / 8) % 2) * 8, col = {} + (warp % {}) * 8 + lane % 8;", off0, off1,
                       match->warps_n));
    for (int ki = 0; ki < rk; ++ki)
      for (int ni = 0; ni < rn; ++ni) {
        const std::string index = fmt::format("(k + {}) * {} + (col + {}) * {}", ki * 16, n.src->strides[0],
                                              ni * match->warps_n * 8, n.src->strides[1]);
        const int slot = (ki * rn + ni) * 4;
        e.open("");
        e.line("uint32_t r0, r1;");
        e.line(ptx_asm("ldmatrix.x2", {"r0", "r1", fmt::format("uint32_t(__cvta_generic_to_shared(&{}))", element(index))}));
        for (int r = 0; r < 2; ++r)
          e.line(fmt::format("{0}[{1}] = tessel_unpack<{2}>(r{3}, 0); {0}[{4}] = tessel_unpack<{2}>(r{3}, 1);", out,
                             slot + 2 * r, T, r, slot + 2 * r + 1));
        e.close();
      }
  }
  return true;
}

}  // namespace tessel::codegen
