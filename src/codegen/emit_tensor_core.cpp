// dot on tensor cores: one mma.sync.m16n8k16 per atom of each warp's region. The operands are in
// the layouts of mma_layouts(), whose register digits put the atom repetition outermost, so the
// registers of atom (i, j) are a fixed run of each thread's slots.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_Dot(Emitter& e, const ir::DotNode& n) {
  e.header(n, fmt::format("dot on tensor cores: mma.sync m16n8k16, {}x{} warps", n.warps_m, n.warps_n));
  e.declare_tile(n.out);
  const int m = n.c->shape()[0], nn = n.c->shape()[1], k = n.a->shape()[1];
  const int rm = m / 16 / n.warps_m, rn = nn / 8 / n.warps_n, rk = k / 16;
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {}[l];", n.out->layout.local_size(), e.tile(n.out), e.tile(n.c)));
  const std::string instr = n.a->dtype == DType::BF16 ? "mma.m16n8k16.bf16" : "mma.m16n8k16.f16";
  const std::string a = e.tile(n.a), b = e.tile(n.b), d = e.tile(n.out);
  for (int ki = 0; ki < rk; ++ki)
    for (int mi = 0; mi < rm; ++mi)
      for (int ni = 0; ni < rn; ++ni) {
        const int as = (mi * rk + ki) * 8, bs = (ki * rn + ni) * 4, ds = (mi * rn + ni) * 4;
        std::vector<std::string> ops;
        for (int i = 0; i < 4; ++i) ops.push_back(fmt::format("{}[{}]", d, ds + i));
        for (int i = 0; i < 8; i += 2) ops.push_back(fmt::format("tessel_pack2({0}[{1}], {0}[{2}])", a, as + i, as + i + 1));
        for (int i = 0; i < 4; i += 2) ops.push_back(fmt::format("tessel_pack2({0}[{1}], {0}[{2}])", b, bs + i, bs + i + 1));
        e.line(ptx_asm(instr, ops));
      }
}

}  // namespace tessel::codegen
