// The CUDA emitter's shared state, used by the per-instruction emitters (emit_*.cpp).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/divisibility.hpp"
#include "tessel/ir/visitor.hpp"

namespace tessel::codegen {

// The warp index read from lane 0 with __shfl_sync, which the compiler knows is the same on every
// lane (CUTLASS's canonical_warp_idx_sync): thread groups of whole warps branch on it, so the branch
// is warp-uniform and warp-collective instructions inside it (wgmma, setmaxnreg, elect.sync) are
// legal (partial warps test the thread index), and wgmma's descriptors built from it stay in
// uniform registers. Kernels with such groups or with wgmma define it at entry.
inline constexpr const char* kWarpIndex = "tessel_warp";

class Emitter : public ir::Visitor {
 public:
  Emitter(const ir::KernelNode& k, ir::Arch arch, const EmitOptions& options)
      : arch(arch),
        debug(options.debug),
        locations(options.source_locations),
        divisibility(k),
        trace_regions(ir::trace_region_names(k)) {}

  const ir::Arch arch;
  const bool debug;      // EmitOptions::debug: emit the checks of debug mode (debug_checks.cpp)
  const bool locations;  // EmitOptions::source_locations: comments name the user's lines
  // What the kernel's values are known to be multiples of: proves addresses aligned, so that no
  // run-time test is emitted for them.
  const ir::Divisibility divisibility;
  // The kernel's timeline regions: a mark records the index of its region's name.
  const std::vector<std::string> trace_regions;

  void line(const std::string& s) { out += std::string(2 * indent, ' ') + s + "\n"; }
  void open(const std::string& s) {
    line(s.empty() ? "{" : s + " {");
    ++indent;
  }
  void close(const std::string& tail = "") {
    --indent;
    line("}" + tail);
    // A tile declared in the block is out of scope now: later waits must not fence it.
    std::erase_if(wgmma_accumulators, [&](const ir::RegisterTensor& t) {
      const auto declared = tile_depths.find(t.get());
      return declared != tile_depths.end() && declared->second > indent;
    });
  }

  std::string name(const void* object, const std::string& hint);
  std::string expr(const ir::Expr& e);
  // The kernel's body.
  void body(const ir::KernelNode& k) { visit_kernel(k); }

  // The thread group running the current code: its first thread and size.
  ir::ThreadRange group() const { return position().group(); }
  // The thread's index within the current group.
  std::string thread_in_group() const;
  // The statement that makes the lanes of the warp running the current code meet
  // (tessel_sync_lanes): all 32 where every lane runs it (whole warps, outside loops and branches,
  // in a kernel without return_), else those converged there.
  std::string sync_lanes() const;
  // Whether the kernel has a return_(), after which lanes of a warp may have left.
  bool lanes_may_return = false;

  // Register tiles: a per-thread array `name[local_size]`.
  std::string tile(const ir::RegisterTensor& t) { return name(t.get(), t->name); }
  void declare_tile(const ir::RegisterTensor& t);
  // The local slot of `operand` holding the element that slot `l` of `out` needs (broadcasting),
  // as a table indexed by l; the same for every thread by construction of the layouts.
  std::vector<int> broadcast_slots(const ir::RegisterTensor& operand, const Layout& out);
  std::string operand(const ir::Operand& o, const std::string& l);
  // A comment naming who runs an instruction and where the user wrote it.
  void header(const ir::StmtNode& s, const std::string& what);
  // " (file:line)" when comments name the user's lines, else "".
  std::string where(const SourceLoc& loc) const { return locations ? fmt::format(" ({})", loc.str()) : ""; }
  // A trailing comment: "  // what (file:line)", without the parts there are not.
  std::string comment(const SourceLoc& loc, std::string_view what = {}) const {
    const std::string text = std::string(what) + (what.empty() && locations ? where(loc).substr(1) : where(loc));
    return text.empty() ? "" : "  // " + text;
  }

  std::string out;
  int indent = 0;
  std::map<const ir::SharedTensorNode*, int64_t> shared_offsets;
  // The accumulators of the wgmma.mma emitted so far that are still in scope, pinned after every
  // wgmma.wait_group.
  std::vector<ir::RegisterTensor> wgmma_accumulators;
  // The block depth at which each register tile was declared.
  std::map<const void*, int> tile_depths;
  // The last instruction emitted and the length of `out` after it, for the instructions that fuse
  // with the one they follow at once (emit_tiles.cpp).
  const ir::StmtNode* last_instruction = nullptr;
  size_t last_instruction_end = 0;
  // The instruction whose code `out` ends with, if it is a `T` of `kind`; else null.
  template <class T> const T* just_after(ir::NodeKind kind) const {
    if (!last_instruction || last_instruction_end != out.size() || last_instruction->kind != kind) return nullptr;
    return static_cast<const T*>(last_instruction);
  }
  std::vector<std::string> tensor_maps;    // the parameter name of each of the kernel's tensor maps
  std::array<int, 3> cluster = {1, 1, 1};  // the kernel's blocks per cluster
  int tcgen05_cta_group = 1;               // the CTA group of the kernel's tcgen05 instructions
  // Debug mode: the parameter holding the allocation of each pointer parameter.
  std::map<const ir::VarNode*, std::string> allocations;
  // Device functions of the kernel's own, by name: defined before the kernel (global_access).
  std::map<std::string, std::string> functions;

 protected:
  // Control flow becomes C++ control flow; an instruction is its family's emit_<Name>.
  void visit(const ir::DeclareNode& n) override;
  void visit(const ir::AssignNode& n) override;
  void visit(const ir::ForNode& n) override;
  void visit(const ir::IfNode& n) override;
  void visit(const ir::WhileNode& n) override;
  void visit(const ir::BreakNode& n) override;
  void visit(const ir::ContinueNode& n) override;
  void visit(const ir::ReturnNode& n) override;
  void visit(const ir::ThreadGroupNode& n) override;
// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) void visit(const ir::Name##Node& n) override;
#include "tessel/ir/nodes.def"
  // clang-format on

 private:
  std::map<const void*, std::string> names_;
  std::set<std::string> used_;
};

// Runs `body` in the current group's first thread only: the instructions one thread issues for
// its group (TMA copies and waits, try_cancel), between meetings of the lanes of its warp, so that
// what they did before is ordered before the issue and what they do after after it.
template <class Body> void in_issuing_thread(Emitter& e, Body&& body) {
  if (e.group().count == 1) {
    body();
    return;
  }
  e.line(e.sync_lanes());
  e.open(fmt::format("if ({} == 0)", e.thread_in_group()));
  body();
  e.close();
  e.line(e.sync_lanes());
}

// The byte offset from tessel_smem of the element of shared view `s` at element index
// `index` + `constant` (counted from the view's first element), through the allocation's swizzle.
// `index` is what varies by thread, `constant` what an unrolled access adds. A view offset (a
// pipeline stage) or a constant that is a whole number of swizzle periods is added outside the
// swizzle: the swizzled part then depends on the thread alone, leaves the loops, and the constant
// becomes an immediate of the instruction.
std::string shared_byte_offset(Emitter& e, const ir::SharedTensor& s, const std::string& index, int64_t constant = 0);
// An lvalue for the element of `s` at element index `index` + `constant`, as above.
using SharedElement = std::function<std::string(const std::string& index, int64_t constant)>;

// The run-time conditions under which every run of `run_bytes` of a tile of view `g` at `offsets`
// starts on a `run_bytes` boundary, beyond what the kernel's divisibility proves: the tile's
// first address (`origin` in the generated code) and the strides of the outer dimensions. A run
// starts at a multiple of its length within the tile, by construction of the layouts.
std::vector<std::string> unproven_alignment(Emitter& e, const ir::GlobalTensor& g, const std::vector<ir::Expr>& offsets,
                                            int run_bytes, const std::string& origin);

// The tile of view `g` at `offsets` that a copy, load or store moves, `extent` elements along
// each dimension: declares its offsets `o0`, `o1`, ... and its first address `tile` (of type
// `pointer`), and returns the conditions under which it lies wholly inside the view.
std::vector<std::string> declare_tile(Emitter& e, const ir::GlobalTensor& g, const std::vector<ir::Expr>& offsets,
                                      const std::vector<int>& extent, const std::string& pointer);
// What a run at coordinates `k` of a tile of `g` adds, in elements, to its thread's first address:
// "" or " + (...)", constant in an unrolled access.
std::string run_offset(Emitter& e, const ir::GlobalTensor& g, const std::vector<int>& k);

// The conditions under which thread `t` (an expression) holds the first replica of its elements
// of `layout`: none when no element has several.
std::vector<std::string> first_replica_conditions(const Layout& layout, const std::string& t);
// The row-major position, in `layout`'s shape, of the element in slot `l` of thread `t` (both
// expressions).
std::string row_major_position(const Layout& layout, const std::string& t, const std::string& l);

// The barrier of the current thread group, as allocate_barriers numbered it (the block's is
// __syncthreads).
void emit_barrier(Emitter& e, int barrier);

// The shared-window (32-bit) address of `tile`'s first byte (emit_tma.cpp), and of barrier `b`
// (emit_mbarrier.cpp).
std::string shared_address(Emitter& e, const ir::SharedTensor& tile);
// An lvalue for the element of `s` at element index `index` + `constant` (from the view's first element),
// in the shared memory starting at `memory` (the block's own, or another block's: remote_shared_memory).
std::string shared_element(Emitter& e, const ir::SharedTensor& s, const std::string& index, int64_t constant = 0,
                           const std::string& memory = "tessel_smem");
// Declares the generic address of the shared memory of the cluster's block of rank `rank`, and
// returns its name (emit_cluster.cpp).
std::string remote_shared_memory(Emitter& e, const ir::Expr& rank);
// The element index in `s` of coordinates c0, c1, ...
std::string shared_index(const ir::SharedTensor& s);
// The element coordinates c0, c1, ... of a view of rank `rank`.
std::vector<std::string> coordinates(int rank);
// A gather's or scatter's indices: the coordinate along `dim` is its offset plus the element of
// `index` that the moved tile's element broadcasts from.
struct IndexedDim {
  ir::RegisterTensor index;  // null for a plain access
  int dim = -1;
};
// Opens a per-thread loop over the tile's slots `l` with `c0..cN` the element's coordinates in the
// source/destination (tile coordinates plus offsets, or the index along an IndexedDim's `dim`), and
// `t` the thread's index in its group.
void open_slot_loop(Emitter& e, const ir::RegisterTensor& tile, const std::vector<ir::Expr>& offsets,
                    const IndexedDim& indexed = {});
// The same over runs of `run` slots (`slot` the first of each run, `c0..cN` its element's
// coordinates), with `t` already declared.
void open_run_loop(Emitter& e, const ir::RegisterTensor& tile, const std::vector<ir::Expr>& offsets,
                   const std::string& slot, int run, const IndexedDim& indexed = {});
// The element index in `g`, and whether the element is inside it, of coordinates c0, c1, ...
std::string global_index(Emitter& e, const ir::GlobalTensor& g);
std::string in_bounds(Emitter& e, const ir::GlobalTensor& g);
std::string barrier_address(Emitter& e, const ir::MbarrierRef& b);

std::string c_type(DType t);
// A C identifier made from a display name.
std::string identifier(const std::string& hint);
// A C++ float literal for `v` (infinities and NaN as bit patterns), and a literal of `v` in the
// arithmetic type of `t` (a double for f64, a float for the other floats).
std::string float_literal(double v);
std::string value_literal(DType t, double v);
// The type arithmetic on `t` happens in (f32 for the half types).
std::string arith_type(DType t);
// Types held as their bit pattern in a struct (f16, bf16, fp8), with arithmetic in f32.
bool stored_as_bits(DType t);
// An element's bits as an unsigned integer of its width, and an element from such bits.
std::string bits_expr(DType t, const std::string& v);
std::string from_bits_expr(DType t, const std::string& bits);
// `v` (of type `from`, in its arithmetic type) converted to the arithmetic type of `to`.
std::string converted(DType from, DType to, const std::string& v);
// `v` (of arithmetic type) converted to the storage type `t`.
std::string to_storage(DType t, const std::string& v);
// `v` (of storage type `t`) converted to its arithmetic type.
std::string to_arith(DType t, const std::string& v);
std::string binary_expr(ir::BinaryOp op, DType t, const std::string& a, const std::string& b);
std::string unary_expr(ir::UnaryOp op, DType t, const std::string& a,
                       ir::MathPrecision precision = ir::MathPrecision::Exact);

// The descriptor (constant bits `constant_bits` and the start address) of the instruction that
// reads shared operand `t`, laid out as `o`, from its row `row` (an expression) and column `k`
// (mma_operands.cpp).
std::string mma_descriptor(Emitter& e, const ir::SharedTensor& t, const ir::MmaOperand& o, uint64_t constant_bits,
                           const std::string& row, int k);
// The 32-bit registers of a tensor-core register operand holding slots [first, first + count) of
// tile `tile` of type `t`: two 16-bit or four 8-bit elements each, lowest slot first
// (mma_operands.cpp).
std::vector<std::string> mma_register_words(const std::string& tile, int first, int count, DType t);

// The function that loads (`load`) or stores N elements of T through the global view `g`, as
// `f<T, N>(dst, p)` or `f<T, N>(p, src)` with `p` aligned to the access: tessel_load_vec or
// tessel_store_vec where the view has no qualifiers, else one defined in the kernel's source that
// carries them (ld.global.nc, .L1::, .L2::cache_hint; global_access.cpp).
std::string global_access(Emitter& e, const ir::GlobalTensorNode& g, bool load);

// Packed tiles (packed_tiles.cpp): each thread's slots packed into 32-bit words, `packed_words` of
// them. `packed_field` is slot `slot`'s bits, `packed_get` its value (an int, or a float for a
// packed float), `packed_set` the statement that sets its bits to `field`, and `packed_encode` the
// bits of `value` converted to packed type `t`: a value of arithmetic type, or an f16 element as
// it is where `from` is f16.
int packed_words(const ir::RegisterTensor& t);
std::string packed_field(Emitter& e, const ir::RegisterTensor& t, const std::string& slot);
std::string packed_get(Emitter& e, const ir::RegisterTensor& t, const std::string& slot);
std::string packed_set(Emitter& e, const ir::RegisterTensor& t, const std::string& slot, const std::string& field);
std::string packed_encode(DType t, const std::string& value, DType from = DType::F32);
void emit_packed_load_global(Emitter& e, const ir::LoadGlobalNode& n);
void emit_packed_store_global(Emitter& e, const ir::StoreGlobalNode& n);
// The value of element `index` of packed shared view `s` (as packed_get gives it).
std::string packed_shared_read(Emitter& e, const ir::SharedTensor& s, const std::string& index);
void emit_packed_load_shared(Emitter& e, const ir::LoadSharedNode& n);
void emit_packed_store_shared(Emitter& e, const ir::StoreSharedNode& n);
// An integer or float tile of 1 to 8 bits to f16 or bf16 of the same layout without a conversion
// instruction (8-bit integers to bf16: one packed conversion a pair): 4-bit integers a word at a
// time, 8-bit integers four elements at a time, from `words` where the 8-bit tile is the bytes of
// that 32-bit tile (else null), the other packed types two at a time; false when it does not apply.
bool emit_packed_dequantize(Emitter& e, const ir::CastTensorNode& n, const ir::RegisterTensor* words);

// load_shared of tensor-core fragments with ldmatrix; false when select_instructions did not choose it.
// `element` gives the lvalue of the source element at an element index of the view.
bool emit_ldmatrix(Emitter& e, const ir::LoadSharedNode& n, const SharedElement& element);
// store_shared of 16-bit accumulator fragments with stmatrix; false when select_instructions did not choose it.
bool emit_stmatrix(Emitter& e, const ir::StoreSharedNode& n, const SharedElement& element);

// Debug mode (debug_checks.cpp). The declarations a kernel needs at entry: its try_wait streak.
void emit_debug_entry(Emitter& e, const ir::KernelNode& k);
// A check that the `bytes` bytes at `address`, element `coords` of view `g`, lie in the allocation
// of g's pointer, wherever `in_view` holds (always when it is empty); otherwise the kernel reports
// `what` at n's line and stops. `what` names the access ("load_global", ...) and whether it reads or writes.
void emit_access_check(Emitter& e, const ir::StmtNode& n, const std::string& what, const ir::GlobalTensor& g,
                       const std::string& in_view, const std::string& address, const std::string& bytes,
                       const std::vector<std::string>& coords);
// A check, in the thread that issues a TMA copy (`what`) of elements of type t, that the box's
// innermost coordinate `innermost` starts it 16-byte aligned in global memory (for packed elements,
// at the first element of a 16-element chunk); otherwise the kernel reports n's line and stops.
void emit_box_alignment_check(Emitter& e, const ir::StmtNode& n, const std::string& what, DType t,
                              const std::string& innermost);
// Checks, in the thread that issues a bulk copy (`what`) of `elements` elements at `address` (the
// run's first byte, an integer), that the run at `offsets` lies in its row of `g` and in the
// allocation of g's pointer and starts 16-byte aligned; otherwise the kernel reports n's line and
// stops.
void emit_bulk_run_check(Emitter& e, const ir::StmtNode& n, const std::string& what, const ir::GlobalTensor& g,
                         const std::vector<ir::Expr>& offsets, int64_t elements, const std::string& address);
// A wait for the phase of parity `parity` of `barrier` that reports the barrier, the parity and n's
// line and stops the kernel when it has not completed in the debug budget (mbarrier.wait).
void emit_bounded_wait(Emitter& e, const ir::StmtNode& n, const ir::MbarrierRef& barrier, const std::string& parity,
                       const std::string& try_once);
// After one try (mbarrier.try_wait) whose result is `completed`: the same report once the tries of
// this thread have failed for the debug budget with none succeeding.
void emit_try_wait_watch(Emitter& e, const ir::StmtNode& n, const ir::MbarrierRef& barrier, const std::string& parity,
                         const std::string& completed);

// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) void emit_##Name(Emitter& e, const ir::Name##Node& n);
#include "tessel/ir/nodes.def"
// clang-format on

}  // namespace tessel::codegen
