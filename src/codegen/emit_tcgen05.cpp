// tcgen05: tensor memory and the fifth-generation tensor core. A tensor-memory tile's address is
// the word tcgen05.alloc wrote to shared memory (published by the sync() that follows the alloc),
// plus the tile's lane offset in bits 16-31 and its column offset in bits 0-15.
//
// Ordering (PTX ISA 9.7.16.6; hw-semantics.md §5.8): every instruction that touches tensor memory
// or issues to the tensor core starts with tcgen05.fence::after_thread_sync, so whatever sync()
// or mbarrier wait preceded it also orders the tensor core's work; the alloc and the waits end
// with fence::before_thread_sync, so the sync() or arrival that follows publishes the warp's
// tensor-memory work. Loads and stores wait for themselves in the same statement.
#include "emitter.hpp"
#include "ptx.hpp"
#include "tessel/layout/tcgen05_descriptor.hpp"

namespace tessel::codegen {

namespace {

// Every tcgen05 instruction of a kernel names the kernel's CTA group.
PtxModifiers cta_group(const Emitter& e) { return {{"cta_group", std::to_string(e.tcgen05_cta_group)}}; }

std::string shared_address(Emitter& e, const ir::SharedTensorNode& allocation) {
  return fmt::format("uint32_t(__cvta_generic_to_shared(tessel_smem + {}))", e.shared_offsets.at(&allocation));
}

// The allocation's TMEM address, as tcgen05.alloc wrote it.
std::string allocation_address(Emitter& e, const ir::TMemoryTensorNode& t) {
  return fmt::format("*reinterpret_cast<volatile uint32_t*>(tessel_smem + {})",
                     e.shared_offsets.at(t.allocation()->address.get()));
}

// The TMEM address of lane `lane` and column `column` (expressions) of the tile `t`.
std::string tmem_address(Emitter& e, const ir::TMemoryTensor& t, const std::string& lane, const std::string& column) {
  const std::string columns =
      t->column_offset ? fmt::format("uint32_t({}) + {}", e.expr(t->column_offset), column) : column;
  return fmt::format("({} + (uint32_t({} + {}) << 16) + {})", allocation_address(e, *t), t->lane_offset, lane, columns);
}

// The descriptor of shared operand `t` (read as `o`) for the instruction that starts at its
// column `k`.
std::string descriptor(Emitter& e, const ir::SharedTensor& t, const ir::MmaOperand& o, int k) {
  const int bits = t->allocation()->swizzle_bits;
  const uint64_t constant_bits =
      o.mn_major ? tcgen05_mn_major_descriptor(0, bits, uint32_t(o.block_stride * dtype_bytes(t->dtype))).bits()
                 : tcgen05_k_major_descriptor(0, bits).bits();
  return mma_descriptor(e, t, o, constant_bits, "0", k);
}

// Moves a 32x32b tile between the tile `tile` of the warp's registers and tensor memory, in
// statements of up to 128 columns (a power of two each).
void move_32x32b(Emitter& e, Ptx instruction, const ir::TMemoryTensor& t, const ir::RegisterTensor& tile) {
  e.line(ptx_asm(Ptx::Tcgen05FenceAfterThreadSync, e.arch, {}));
  e.line(fmt::format("const uint32_t tessel_taddr = {};",
                     tmem_address(e, t, fmt::format("32 * ({} / 32)", e.thread_in_group()), "0")));
  const PtxModifiers registers{{"reg", tile->dtype == DType::F32 ? "f" : "r"}};
  const int columns = t->shape[1];
  for (int first = 0; first < columns;) {
    int count = 128;
    while (count > columns - first) count /= 2;
    std::vector<std::string> regs;
    for (int j = first; j < first + count; ++j) regs.push_back(fmt::format("{}[{}]", e.tile(tile), j));
    const std::string taddr = fmt::format("tessel_taddr + {}", first);
    e.line(instruction == Ptx::Tcgen05Load32x32b ? ptx_asm(instruction, e.arch, {regs, {taddr}}, registers)
                                                 : ptx_asm(instruction, e.arch, {{taddr}, regs}, registers));
    first += count;
  }
}

}  // namespace

void emit_Tcgen05Alloc(Emitter& e, const ir::Tcgen05AllocNode& n) {
  const int columns = n.tensor->allocated_columns();
  e.header(n, fmt::format("tcgen05.alloc of {} columns of tensor memory, by one warp", columns));
  e.line(ptx_asm(Ptx::Tcgen05Alloc, e.arch, {{shared_address(e, *n.tensor->address)}, {std::to_string(columns)}},
                 cta_group(e)));
  if (n.relinquish)
    e.line(ptx_asm(Ptx::Tcgen05RelinquishAllocPermit, e.arch, {}, cta_group(e)) + "  // the kernel's last alloc");
  e.line(ptx_asm(Ptx::Tcgen05FenceBeforeThreadSync, e.arch, {}));
}

void emit_Tcgen05Dealloc(Emitter& e, const ir::Tcgen05DeallocNode& n) {
  e.header(n, "tcgen05.dealloc, by one warp");
  e.line(ptx_asm(Ptx::Tcgen05FenceAfterThreadSync, e.arch, {}));
  e.line(ptx_asm(Ptx::Tcgen05Dealloc, e.arch,
                 {{allocation_address(e, *n.tensor)}, {std::to_string(n.tensor->allocated_columns())}}, cta_group(e)));
}

void emit_Tcgen05Mma(Emitter& e, const ir::Tcgen05MmaNode& n) {
  const Tcgen05Kind kind = n.mma_kind();
  const int steps = n.instructions(), vector = tcgen05_scale_vector(kind);
  e.header(
      n, fmt::format("tcgen05.mma.kind::{} m{}n{}k{} x {}, issued by one thread of the warp{}", tcgen05_kind_name(kind),
                     n.m(), n.n(), n.instruction_k(), steps, n.cta_group() == 2 ? " for the block pair" : ""));
  e.open(fmt::format("if ({} == 0)", e.thread_in_group()));
  e.line("const uint32_t tessel_smem_base = uint32_t(__cvta_generic_to_shared(tessel_smem));");
  e.line(fmt::format("const uint32_t tessel_taddr = {};", tmem_address(e, n.acc, "0", "0")));
  if (vector) {
    e.line(fmt::format("const uint32_t tessel_scale_a = {};", tmem_address(e, n.scale_a, "0", "0")));
    e.line(fmt::format("const uint32_t tessel_scale_b = {};", tmem_address(e, n.scale_b, "0", "0")));
  }
  e.line(ptx_asm(Ptx::Tcgen05FenceAfterThreadSync, e.arch, {}));
  const ir::MmaOperand a = n.a_operand(), b = n.b_operand();
  PtxModifiers modifiers = cta_group(e);
  modifiers["kind"] = tcgen05_kind_name(kind);
  if (vector) modifiers["vector"] = std::to_string(vector);
  for (int s = 0; s < steps; ++s) {
    Tcgen05InstrDescriptor idesc{n.m(), n.n(), n.a->dtype, n.b->dtype, n.acc->dtype, a.mn_major, b.mn_major, kind};
    idesc.saturate = n.saturate;
    const std::string enable = s == 0 ? fmt::format("uint32_t({})", e.expr(n.enable_input_d)) : "1u";
    const std::string a_desc = descriptor(e, n.a, a, n.instruction_k() * s),
                      b_desc = descriptor(e, n.b, b, n.instruction_k() * s);
    if (!vector) {
      e.line(ptx_asm(Ptx::Tcgen05Mma, e.arch,
                     {{"tessel_taddr"}, {a_desc}, {b_desc}, {fmt::format("0x{:x}u", idesc.bits())}, {enable}},
                     modifiers));
      continue;
    }
    // Instruction s reads the scale bytes s * vector ... of its group of scale columns.
    idesc.scale_format = n.scale_format;
    idesc.a_scale_id = idesc.b_scale_id = s * vector % 4;
    const int group = s * vector / 4;
    e.line(ptx_asm(Ptx::Tcgen05MmaBlockScaled, e.arch,
                   {{"tessel_taddr"},
                    {a_desc},
                    {b_desc},
                    {fmt::format("0x{:x}u", idesc.bits())},
                    {fmt::format("tessel_scale_a + {}", group * n.scale_group_columns(0))},
                    {fmt::format("tessel_scale_b + {}", group * n.scale_group_columns(1))},
                    {enable}},
                   modifiers));
  }
  e.close();
}

void emit_Tcgen05Commit(Emitter& e, const ir::Tcgen05CommitNode& n) {
  const std::string bar = fmt::format("uint32_t(__cvta_generic_to_shared(tessel_smem + {} + 8 * ({})))",
                                      e.shared_offsets.at(n.barrier.array->allocation()), e.expr(n.barrier.index));
  e.open(fmt::format("if ({} == 0)", e.thread_in_group()));
  if (n.cta_mask)
    e.line(ptx_asm(Ptx::Tcgen05CommitMulticast, e.arch,
                   {{bar}, {fmt::format("(unsigned short)({})", e.expr(n.cta_mask))}}, cta_group(e)) +
           e.comment(n.loc));
  else
    e.line(ptx_asm(Ptx::Tcgen05Commit, e.arch, {{bar}}, cta_group(e)) + e.comment(n.loc));
  e.close();
}

void emit_Tcgen05Copy(Emitter& e, const ir::Tcgen05CopyNode& n) {
  const int columns = n.dst->shape[1];
  e.header(n, n.to_every_quadrant()
                  ? std::string("tcgen05.cp 32x128b.warpx4, issued by one thread of the warp")
                  : fmt::format("tcgen05.cp 128x256b x {}, issued by one thread of the warp", columns / 8));
  e.open(fmt::format("if ({} == 0)", e.thread_in_group()));
  e.line("const uint32_t tessel_smem_base = uint32_t(__cvta_generic_to_shared(tessel_smem));");
  e.line(fmt::format("const uint32_t tessel_taddr = {};", tmem_address(e, n.dst, "0", "0")));
  e.line(ptx_asm(Ptx::Tcgen05FenceAfterThreadSync, e.arch, {}));
  if (n.to_every_quadrant()) {
    const std::string start = fmt::format("tessel_smem_base + {} + ({}) * 4", e.shared_offsets.at(n.src->allocation()),
                                          n.src->offset ? e.expr(n.src->offset) : "0");
    e.line(ptx_asm(Ptx::Tcgen05Copy32x128bWarpx4, e.arch,
                   {{"tessel_taddr"},
                    {fmt::format("(0x{:x}ull | uint64_t((({}) & 0x3FFFF) >> 4))",
                                 tcgen05_interleaved_descriptor(0).bits(), start)}},
                   cta_group(e)));
  } else {
    for (int first = 0; first < columns; first += 8)
      e.line(ptx_asm(
          Ptx::Tcgen05Copy128x256b, e.arch,
          {{fmt::format("tessel_taddr + {}", first)}, {descriptor(e, n.src, ir::mma_operand(*n.src, 1), first)}},
          cta_group(e)));
  }
  e.close();
}

void emit_Tcgen05Load(Emitter& e, const ir::Tcgen05LoadNode& n) {
  e.declare_tile(n.out);
  e.header(n, "tcgen05.ld 32x32b and wait::ld, by each warp on its lane quadrant");
  e.open("");
  move_32x32b(e, Ptx::Tcgen05Load32x32b, n.src, n.out);
  e.close();
}

void emit_Tcgen05Store(Emitter& e, const ir::Tcgen05StoreNode& n) {
  e.header(n, "tcgen05.st 32x32b and wait::st, by each warp on its lane quadrant");
  e.open("");
  move_32x32b(e, Ptx::Tcgen05Store32x32b, n.dst, n.src);
  e.close();
}

void emit_Tcgen05Wait(Emitter& e, const ir::Tcgen05WaitNode& n) {
  e.line(ptx_asm(n.store ? Ptx::Tcgen05WaitStore : Ptx::Tcgen05WaitLoad, e.arch, {}) + e.comment(n.loc));
  e.line(ptx_asm(Ptx::Tcgen05FenceBeforeThreadSync, e.arch, {}));
}

}  // namespace tessel::codegen
