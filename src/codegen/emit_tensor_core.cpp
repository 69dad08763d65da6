// dot on tensor cores: one mma.sync per atom of each warp's region. The operands are in the
// layouts of mma_layouts(), whose register digits put the atom repetition outermost, so the
// registers of atom (i, j) are a fixed run of each thread's slots; consecutive slots of a run are
// packed into the 32-bit registers mma.sync takes, lowest element first.
#include "emitter.hpp"
#include "ptx.hpp"
#include "tessel/layout/mma_atoms.hpp"

namespace tessel::codegen {

void emit_Dot(Emitter& e, const ir::DotNode& n) {
  const MmaAtom& atom = mma_atom(n.a->dtype);
  e.header(n, fmt::format("dot on tensor cores: mma.sync m{}n{}k{}, {}x{} warps", atom.m, atom.n, atom.k, n.warps_m,
                          n.warps_n));
  e.declare_tile(n.out);
  const int m = n.c->shape()[0], nn = n.c->shape()[1], k = n.a->shape()[1];
  const int rm = m / atom.m / n.warps_m, rn = nn / atom.n / n.warps_n, rk = k / atom.k;
  const int a_slots = atom.a.local_size(), b_slots = atom.b.local_size(), c_slots = atom.c.local_size();
  e.line("#pragma unroll");
  e.line(fmt::format("for (int l = 0; l < {}; ++l) {}[l] = {}[l];", n.out->layout.local_size(), e.tile(n.out),
                     e.tile(n.c)));
  const PtxModifiers mma = mma_sync_modifiers(atom, n.a->dtype, n.b->dtype, n.out->dtype, n.saturate);
  const std::string a = e.tile(n.a), b = e.tile(n.b), d = e.tile(n.out);
  for (int ki = 0; ki < rk; ++ki)
    for (int mi = 0; mi < rm; ++mi)
      for (int ni = 0; ni < rn; ++ni) {
        const int as = (mi * rk + ki) * a_slots, bs = (ki * rn + ni) * b_slots, ds = (mi * rn + ni) * c_slots;
        std::vector<std::string> accumulators;
        for (int i = 0; i < c_slots; ++i) accumulators.push_back(fmt::format("{}[{}]", d, ds + i));
        e.line(ptx_asm(Ptx::MmaSync, e.arch,
                       {accumulators, mma_register_words(a, as, a_slots, n.a->dtype),
                        mma_register_words(b, bs, b_slots, n.b->dtype)},
                       mma));
      }
}

}  // namespace tessel::codegen
