// wgmma: the warpgroup tensor-core instructions. A wgmma.mma over an [m, n] accumulator and k
// columns is one m64nNk16 (8-bit types: m64nNk32) instruction per 64-row repetition of each
// warpgroup and per 16 (32) columns of k. Shared operands are passed as matrix descriptors built at
// run time from the operand's unswizzled shared address (the only field that varies) and constant
// bits derived from its swizzle (wgmma_descriptor.hpp). The accumulator registers of repetition r
// are slots [r * n/2, (r+1) * n/2) of the tile (wgmma_layouts()), a register A of (r, k-step s)
// slots [a (r * k/K + s), +a), a = 8 of 16-bit or 16 of 8-bit elements packed into four 32-bit
// registers, lowest element first.
#include <algorithm>

#include "emitter.hpp"
#include "ptx.hpp"
#include "tessel/layout/wgmma_atoms.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"

namespace tessel::codegen {

namespace {

// The descriptor of shared operand `t` (read as `o`) for the instruction that starts at its row
// `row` (an expression) and column `k`.
std::string descriptor(Emitter& e, const ir::SharedTensor& t, const ir::MmaOperand& o, const std::string& row, int k) {
  const int bits = t->allocation()->swizzle_bits;
  const uint64_t constant_bits =
      o.mn_major ? wgmma_mn_major_descriptor(0, bits, uint32_t(o.block_stride * dtype_bytes(t->dtype))).bits()
                 : wgmma_k_major_descriptor(0, bits).bits();
  return mma_descriptor(e, t, o, constant_bits, row, k);
}

}  // namespace

void emit_WgmmaFence(Emitter& e, const ir::WgmmaFenceNode& n) {
  e.line(ptx_asm(Ptx::WgmmaFence, e.arch, {}) + e.comment(n.loc, "wgmma.fence, by each warpgroup"));
}

void emit_WgmmaMma(Emitter& e, const ir::WgmmaMmaNode& n) {
  const int warpgroups = e.group().count / 128, m = n.m(), nn = n.n(), k = n.k(), step = wgmma_k(n.operand_type());
  const int rm = m / kWgmmaM / warpgroups, rk = k / step;
  e.header(n, fmt::format("wgmma.mma {} m64n{}k{} x {}, by each of {} warpgroups", n.a_shared ? "SS" : "RS", nn, step,
                          rm * rk, warpgroups));
  if (std::find(e.wgmma_accumulators.begin(), e.wgmma_accumulators.end(), n.acc) == e.wgmma_accumulators.end())
    e.wgmma_accumulators.push_back(n.acc);
  e.open("");
  e.line("const uint32_t tessel_smem_base = uint32_t(__cvta_generic_to_shared(tessel_smem));");
  // From the warp-uniform warp index, so that the descriptors built from it stay in uniform registers.
  e.line(warpgroups == 1 ? "const int warpgroup = 0;"
                         : fmt::format("const int warpgroup = ({} - {}) / 4;", kWarpIndex, e.group().begin / 32));
  const PtxModifiers types = wgmma_modifiers(nn, n.a_type(), n.operand_type(), n.saturate);
  const bool transposable = dtype_bytes(n.operand_type()) == 2;
  const std::string acc = e.tile(n.acc);
  const ir::MmaOperand b_operand = n.b_operand();
  for (int r = 0; r < rm; ++r) {
    const std::string row0 = fmt::format("64 * (warpgroup + {})", warpgroups * r);
    std::vector<std::string> d;
    for (int i = 0; i < nn / 2; ++i) d.push_back(fmt::format("{}[{}]", acc, r * nn / 2 + i));
    for (int s = 0; s < rk; ++s) {
      const std::string b = descriptor(e, n.b, b_operand, "0", step * s);
      const std::string trans_b = b_operand.mn_major ? "1" : "0";
      // Without accumulate, the first k-step of each row block overwrites the accumulator.
      const bool overwrite = !n.accumulate && s == 0;
      if (n.a_shared) {
        const ir::MmaOperand a_operand = n.a_operand();
        const std::string a = descriptor(e, n.a_shared, a_operand, row0, step * s);
        e.line(transposable ? ptx_asm(overwrite ? Ptx::WgmmaMmaSSOverwrite : Ptx::WgmmaMmaSS, e.arch,
                                      {d, {a}, {a_operand.mn_major ? "1" : "0"}, {b}, {trans_b}}, types)
                            : ptx_asm(overwrite ? Ptx::WgmmaMmaSSKMajorOverwrite : Ptx::WgmmaMmaSSKMajor, e.arch,
                                      {d, {a}, {b}}, types));
      } else {
        const int slots = 16 / dtype_bytes(n.a_type());
        const std::vector<std::string> regs =
            mma_register_words(e.tile(n.a_registers), (r * rk + s) * slots, slots, n.a_type());
        e.line(transposable ? ptx_asm(overwrite ? Ptx::WgmmaMmaRSOverwrite : Ptx::WgmmaMmaRS, e.arch,
                                      {d, regs, {b}, {trans_b}}, types)
                            : ptx_asm(overwrite ? Ptx::WgmmaMmaRSKMajorOverwrite : Ptx::WgmmaMmaRSKMajor, e.arch,
                                      {d, regs, {b}}, types));
      }
    }
  }
  e.close();
}

void emit_WgmmaCommitGroup(Emitter& e, const ir::WgmmaCommitGroupNode& n) {
  e.line(ptx_asm(Ptx::WgmmaCommitGroup, e.arch, {}) + e.comment(n.loc, "wgmma.commit_group, by each warpgroup"));
}

void emit_WgmmaWaitGroup(Emitter& e, const ir::WgmmaWaitGroupNode& n) {
  e.line(ptx_asm(Ptx::WgmmaWaitGroup, e.arch, {{std::to_string(n.pending)}}) +
         e.comment(n.loc, "wgmma.wait_group, by each warpgroup"));
  for (const ir::RegisterTensor& acc : e.wgmma_accumulators) {
    e.line("#pragma unroll");
    e.open(fmt::format("for (int l = 0; l < {}; ++l)", acc->layout.local_size()));
    e.line(ptx_asm(Ptx::WgmmaFenceOperand, e.arch, {{fmt::format("{}[l]", e.tile(acc))}},
                   {{"reg_kind", acc->dtype == DType::F32 ? "f" : "r"}}));
    e.close();
  }
}

}  // namespace tessel::codegen
