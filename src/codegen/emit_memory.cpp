// Data movement between global memory, shared memory and register tiles.
#include <algorithm>
#include <functional>

#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

std::string shared_byte_offset(Emitter& e, const ir::SharedTensor& s, const std::string& index, int64_t constant) {
  const int64_t base = e.shared_offsets.at(s->allocation());
  const int bytes = dtype_bytes(s->dtype);
  std::string swizzled = index, outside;  // element indices inside and outside the swizzle
  const auto add = [](std::string& sum, const std::string& term) { sum = sum.empty() ? term : sum + " + " + term; };
  // The swizzle permutes bytes within periods of 128 << bits bytes (layout/shared_swizzle.hpp).
  const int64_t period = s->swizzle_bits ? (int64_t(128) << s->swizzle_bits) / bytes : 1;
  int64_t view_offset = 0;
  if (s->offset && ir::as_const_int(s->offset, &view_offset))
    constant += view_offset;
  else if (s->offset)
    add(e.divisibility.divides(period, s->offset) ? outside : swizzled, e.expr(s->offset));
  // swizzle(x + q * period + r) = swizzle(x + r) + q * period: whole periods of the constant leave it.
  const int64_t within = constant % period;
  if (constant - within) add(outside, std::to_string(constant - within));
  if (within) add(swizzled, std::to_string(within));
  std::string offset = std::to_string(base);
  if (!outside.empty()) offset += fmt::format(" + ({}) * {}", outside, bytes);
  if (s->swizzle_bits == 0) return offset + fmt::format(" + ({}) * {}", swizzled, bytes);
  return offset + fmt::format(" + tessel_swizzle<{}>(({}) * {})", s->swizzle_bits, swizzled, bytes);
}

std::vector<std::string> unproven_alignment(Emitter& e, const ir::GlobalTensor& g, const std::vector<ir::Expr>& offsets,
                                            int run_bytes, const std::string& origin) {
  const int bytes = dtype_bytes(g->dtype);
  const ir::Divisibility& div = e.divisibility;
  // A term offset * stride of the origin, in bytes, is proven a multiple of run_bytes.
  const auto proven = [&](const ir::Expr& offset, const ir::Expr& stride) {
    const int64_t d = div.of(ir::binary(ir::BinaryOp::Mul, offset, stride));
    return d == 0 || d * bytes % run_bytes == 0;
  };
  bool origin_proven = div.divides(run_bytes, g->ptr);
  for (int d = 0; d < g->rank(); ++d) origin_proven = origin_proven && proven(offsets[size_t(d)], g->strides[d]);
  std::vector<std::string> tests;
  if (!origin_proven) tests.push_back(fmt::format("reinterpret_cast<uint64_t>({}) % {} == 0", origin, run_bytes));
  for (int d = 0; d + 1 < g->rank(); ++d) {
    const int64_t stride = div.of(g->strides[d]);
    if (stride == 0 || stride * bytes % run_bytes == 0) continue;
    tests.push_back(fmt::format("(int64_t({}) * {}) % {} == 0", e.expr(g->strides[d]), bytes, run_bytes));
  }
  return tests;
}

std::vector<std::string> declare_tile(Emitter& e, const ir::GlobalTensor& g, const std::vector<ir::Expr>& offsets,
                                      const std::vector<int>& extent, const std::string& pointer) {
  std::vector<std::string> origin, whole;
  for (int d = 0; d < g->rank(); ++d) {
    e.line(fmt::format("const int o{} = {};", d, e.expr(offsets[size_t(d)])));
    origin.push_back(fmt::format("int64_t(o{}) * {}", d, e.expr(g->strides[d])));
    whole.push_back(fmt::format("o{0} >= 0 && o{0} + {1} <= {2}", d, extent[size_t(d)], e.expr(g->shape[d])));
  }
  e.line(fmt::format("{} tile = {} + ({});", pointer, e.expr(g->ptr), fmt::join(origin, " + ")));
  return whole;
}

std::string run_offset(Emitter& e, const ir::GlobalTensor& g, const std::vector<int>& k) {
  std::vector<std::string> terms;
  for (int d = 0; d < g->rank(); ++d)
    if (k[size_t(d)] != 0) terms.push_back(fmt::format("int64_t({}) * {}", k[size_t(d)], e.expr(g->strides[d])));
  return terms.empty() ? "" : fmt::format(" + ({})", fmt::join(terms, " + "));
}

std::vector<std::string> coordinates(int rank) {
  std::vector<std::string> c;
  for (int d = 0; d < rank; ++d) c.push_back(fmt::format("c{}", d));
  return c;
}

std::string shared_element(Emitter& e, const ir::SharedTensor& s, const std::string& index, int64_t constant,
                           const std::string& memory) {
  return fmt::format("*reinterpret_cast<{}*>({} + {})", c_type(s->dtype), memory,
                     shared_byte_offset(e, s, index, constant));
}

void open_run_loop(Emitter& e, const ir::RegisterTensor& tile, const std::vector<ir::Expr>& offsets,
                   const std::string& slot, int run, const IndexedDim& indexed) {
  const int n = tile->layout.local_size();
  // The index tile's slot of each of the moved tile's slots, where their layouts differ: a table
  // that the unrolled loop reads with constants.
  std::string index_slot = slot;
  if (indexed.index && !(indexed.index->layout == tile->layout)) {
    index_slot = fmt::format("tessel_index_slot[{}]", slot);
    e.line(fmt::format("constexpr int tessel_index_slot[] = {{{}}};",
                       fmt::join(e.broadcast_slots(indexed.index, tile->layout), ", ")));
  }
  e.line("#pragma unroll");
  e.open(run == 1 ? fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", slot, n)
                  : fmt::format("for (int {0} = 0; {0} < {1}; {0} += {2})", slot, n, run));
  const auto c = tile->layout.coord_exprs("t", slot);
  for (size_t d = 0; d < c.size(); ++d) {
    const std::string off = e.expr(offsets[d]);
    if (int(d) == indexed.dim)
      e.line(fmt::format("const int64_t c{} = int64_t({}[{}]){};", d, e.tile(indexed.index), index_slot,
                         off == "0" ? "" : " + " + off));
    else
      e.line(fmt::format("const int c{} = {}{};", d, c[d], off == "0" ? "" : " + " + off));
  }
}

void open_slot_loop(Emitter& e, const ir::RegisterTensor& tile, const std::vector<ir::Expr>& offsets,
                    const IndexedDim& indexed) {
  e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  open_run_loop(e, tile, offsets, "l", 1, indexed);
}

std::string global_index(Emitter& e, const ir::GlobalTensor& g) {
  std::vector<std::string> terms;
  for (int d = 0; d < g->rank(); ++d) terms.push_back(fmt::format("int64_t(c{}) * {}", d, e.expr(g->strides[d])));
  return fmt::format("{}", fmt::join(terms, " + "));
}

namespace {

// Whether dimension d of a tile of `extent` elements at `offsets` lies inside `g` by trace-time
// constants (the offset and the view's extent): its coordinates then need no test. A gather's
// indexed dimension never does.
bool proven_inside(const ir::GlobalTensor& g, const std::vector<ir::Expr>& offsets, const std::vector<int>& extent,
                   int d, int indexed_dim) {
  int64_t offset = 0, shape = 0;
  return d != indexed_dim && size_t(d) < offsets.size() && ir::as_const_int(offsets[size_t(d)], &offset) &&
         ir::as_const_int(g->shape[d], &shape) && offset >= 0 && offset + extent[size_t(d)] <= shape;
}

// The bounds tests of coordinates c0, c1, ... that trace-time constants leave open: none for a
// dimension proven_inside; in the last dimension, a run of `run` elements must fit whole.
std::vector<std::string> unproven_bounds(Emitter& e, const ir::GlobalTensor& g, const std::vector<ir::Expr>& offsets,
                                         const std::vector<int>& extent, int run = 1, int indexed_dim = -1) {
  std::vector<std::string> conds;
  const int last = g->rank() - 1;
  for (int d = 0; d < g->rank(); ++d)
    if (!proven_inside(g, offsets, extent, d, indexed_dim))
      conds.push_back(d == last && run > 1 ? fmt::format("c{0} >= 0 && c{0} + {1} <= {2}", d, run, e.expr(g->shape[d]))
                                           : fmt::format("c{0} >= 0 && c{0} < {1}", d, e.expr(g->shape[d])));
  return conds;
}

// The conjunction of `conds`, "true" for none.
std::string all_of(const std::vector<std::string>& conds) {
  return conds.empty() ? "true" : fmt::format("{}", fmt::join(conds, " && "));
}

}  // namespace

std::string in_bounds(Emitter& e, const ir::GlobalTensor& g) { return all_of(unproven_bounds(e, g, {}, {})); }

std::string shared_index(const ir::SharedTensor& s) {
  std::vector<std::string> terms;
  for (int d = 0; d < s->rank(); ++d) terms.push_back(fmt::format("c{} * {}", d, s->strides[d]));
  return fmt::format("{}", fmt::join(terms, " + "));
}

void emit_AllocShared(Emitter& e, const ir::AllocSharedNode& n) {
  TESSEL_CHECK(n.offset >= 0, "shared tensor {} was not planned", n.tensor->name);
  e.shared_offsets[n.tensor.get()] = n.offset;
  e.line(fmt::format("// shared {}<{}>[{}] at byte {}{}", e.name(n.tensor.get(), n.tensor->name),
                     dtype_name(n.tensor->dtype), fmt::join(n.tensor->shape, ", "), n.offset, e.where(n.loc)));
}

// No instruction: a compiler barrier keeps nvcc from moving a thread's accesses of the freed tile
// past those of the tile, of another type perhaps, that takes its bytes.
void emit_FreeShared(Emitter& e, const ir::FreeSharedNode& n) {
  e.line(fmt::format("// {}'s bytes are free from here{}", e.name(n.tensor.get(), n.tensor->name), e.where(n.loc)));
  e.line("asm volatile(\"\" ::: \"memory\");");
}

namespace {

// Whether every run of `vec` elements of an aligned access lies wholly inside the view's last
// dimension or wholly outside it: the runs start at multiples of `vec` there (the tile's runs lie at
// multiples of `vec` within its contiguous runs, and the alignment proven of the access proves its
// offset a multiple), so the dimension's end must be one too. A run is then never partly inside,
// and one that is not moved whole is not moved. The coordinate of a gather's indexed dimension is
// an index, not a run's start.
bool runs_never_straddle_the_edge(Emitter& e, const ir::GlobalTensor& g, int indexed_dim, int vec) {
  const int last = g->rank() - 1;
  return indexed_dim != last && e.divisibility.divides(vec, g->shape[last]);
}

// Emits the per-thread loop of a global load or store. Runs of `vec` consecutive elements that are
// fully inside the view and aligned move as one vector access; the others element by element, or,
// where no run can straddle the view's edge, not at all: `outside(l)` gives a load's element l its
// fill (a store passes none and skips them). In debug mode each access is checked against its
// allocation first, reported as `what` at n's line.
void emit_global_access(Emitter& e, const ir::StmtNode& n, const std::string& what, const ir::RegisterTensor& tile,
                        const ir::GlobalTensor& g, const std::vector<ir::Expr>& offsets, const IndexedDim& indexed,
                        int vec, const std::function<void(const std::string&, const std::string&)>& scalar,
                        const std::function<void(const std::string&, const std::string&)>& vector,
                        const std::function<void(const std::string&)>& outside) {
  TESSEL_CHECK(vec >= 1, "global access of {} reached code generation without a vector width", tile->name);
  const int bytes = dtype_bytes(g->dtype);
  const std::vector<int> extent = tile->layout.shape();
  const bool runs_aligned = unproven_alignment(e, g, offsets, vec * bytes, "tile").empty();
  const auto checked_scalar = [&] {
    if (e.debug)
      emit_access_check(e, n, what, g, in_bounds(e, g), fmt::format("&{}[{}]", e.expr(g->ptr), global_index(e, g)),
                        std::to_string(bytes), coordinates(g->rank()));
    scalar("l", all_of(unproven_bounds(e, g, offsets, extent, 1, indexed.dim)));
  };
  if (vec == 1) {
    open_slot_loop(e, tile, offsets, indexed);
    checked_scalar();
    e.close();
    return;
  }
  e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  // A tile wholly inside the view, with every run aligned, moves run by run without a test: the
  // thread's address is computed once and each run adds an immediate. Debug mode checks every
  // access; a gather's or scatter's addresses depend on its indices.
  const bool fast_path = !e.debug && !indexed.index;
  if (fast_path) {
    const std::string T = c_type(g->dtype);
    std::vector<std::string> whole = declare_tile(e, g, offsets, tile->layout.shape(), T + "*");
    for (const std::string& test : unproven_alignment(e, g, offsets, vec * bytes, "tile")) whole.push_back(test);
    e.open(fmt::format("if ({})", fmt::join(whole, " && ")));
    std::vector<std::string> thread;
    const std::vector<std::string> thread_coord = tile->layout.coord_exprs("t", "0");
    for (int d = 0; d < g->rank(); ++d)
      thread.push_back(fmt::format("int64_t({}) * {}", thread_coord[size_t(d)], e.expr(g->strides[d])));
    e.line(fmt::format("{}* thread_p = tile + ({});", T, fmt::join(thread, " + ")));
    for (int lv = 0; lv < tile->layout.local_size(); lv += vec) {
      e.open("");
      e.line(fmt::format("{}* p = thread_p{};", T, run_offset(e, g, tile->layout.coords(0, lv))));
      vector("p", std::to_string(lv));
      e.close();
    }
    e.close(" else {");
    ++e.indent;
  }
  // Each run's test leaves out what trace-time constants prove: dimensions inside the view, and
  // the alignment when the tile's origin and strides are proven aligned (so is every run then),
  // so that no loop-invariant test of a run is computed, hoisted and kept alive by the compiler.
  // Where no run straddles the view's edge and every run is aligned, a run not moved whole lies
  // outside, and the element-wise accesses, whose registers the compiler would otherwise keep
  // beside the vector's, are not emitted.
  const bool wholly_outside = !e.debug && runs_aligned && runs_never_straddle_the_edge(e, g, indexed.dim, vec);
  open_run_loop(e, tile, offsets, "lv", vec, indexed);
  const int last = g->rank() - 1;
  if (!wholly_outside) e.line(fmt::format("const int c{0}_base = c{0};", last));
  std::vector<std::string> inside = unproven_bounds(e, g, offsets, extent, vec, indexed.dim);
  e.line(fmt::format("{}* p = {} + ({});", c_type(g->dtype), e.expr(g->ptr), global_index(e, g)));
  if (!runs_aligned) inside.push_back(fmt::format("(reinterpret_cast<uint64_t>(p) % {}) == 0", vec * bytes));
  e.open(fmt::format("if ({})", all_of(inside)));
  if (e.debug) emit_access_check(e, n, what, g, "", "p", std::to_string(vec * bytes), coordinates(g->rank()));
  vector("p", "lv");
  if (wholly_outside && !outside) {
    e.close();
  } else {
    e.close(" else {");
    ++e.indent;
    e.line("#pragma unroll");
    e.open(fmt::format("for (int j = 0; j < {}; ++j)", vec));
    e.line("const int l = lv + j;");
    if (wholly_outside) {
      outside("l");
    } else {
      e.line(fmt::format("const int c{0} = c{0}_base + j;", last));
      checked_scalar();
    }
    e.close();
    e.close();
  }
  e.close();
  if (fast_path) e.close();
}

}  // namespace

void emit_LoadGlobal(Emitter& e, const ir::LoadGlobalNode& n) {
  e.header(n, "load_global");
  e.declare_tile(n.out);
  e.open("");
  if (is_packed(n.out->dtype)) {
    TESSEL_CHECK(!n.index, "a gather of packed elements at {} reached code generation", n.loc.str());
    emit_packed_load_global(e, n);
    return e.close();
  }
  const std::string fill =
      to_storage(n.out->dtype, fmt::format("({})({})", arith_type(n.out->dtype), value_literal(n.out->dtype, n.fill)));
  const std::string T = c_type(n.out->dtype);
  const std::string load = global_access(e, *n.src, true);
  const bool qualified = load != "tessel_load_vec";
  emit_global_access(
      e, n, n.index ? "load_global_gather reads" : "load_global reads", n.out, n.src, n.offsets, {n.index, n.index_dim},
      n.vector,
      [&](const std::string& l, const std::string& inside) {
        const std::string element = fmt::format("{}[{}]", e.expr(n.src->ptr), global_index(e, n.src));
        if (qualified)
          e.line(fmt::format("if ({2}) {0}<{1}, 1>(&{3}[{4}], &{5}); else {3}[{4}] = {6};", load, T, inside,
                             e.tile(n.out), l, element, fill));
        else
          e.line(fmt::format("{}[{}] = ({}) ? {} : {};", e.tile(n.out), l, inside, element, fill));
      },
      [&](const std::string& p, const std::string& lv) {
        e.line(fmt::format("{}<{}, {}>(&{}[{}], {});", load, T, n.vector, e.tile(n.out), lv, p));
      },
      [&](const std::string& l) { e.line(fmt::format("{}[{}] = {};", e.tile(n.out), l, fill)); });
  e.close();
}

void emit_StoreGlobal(Emitter& e, const ir::StoreGlobalNode& n) {
  e.header(n, "store_global");
  e.open("");
  if (is_packed(n.src->dtype)) {
    TESSEL_CHECK(!n.index, "a scatter of packed elements at {} reached code generation", n.loc.str());
    emit_packed_store_global(e, n);
    return e.close();
  }
  const std::string T = c_type(n.dst->dtype);
  const std::string store = global_access(e, *n.dst, false);
  const bool qualified = store != "tessel_store_vec";
  emit_global_access(
      e, n, n.index ? "store_global_scatter writes" : "store_global writes", n.src, n.dst, n.offsets,
      {n.index, n.index_dim}, n.vector,
      [&](const std::string& l, const std::string& inside) {
        const std::string element = fmt::format("{}[{}]", e.expr(n.dst->ptr), global_index(e, n.dst));
        if (qualified)
          e.line(fmt::format("if ({}) {}<{}, 1>(&{}, &{}[{}]);", inside, store, T, element, e.tile(n.src), l));
        else
          e.line(fmt::format("if ({}) {} = {}[{}];", inside, element, e.tile(n.src), l));
      },
      [&](const std::string& p, const std::string& lv) {
        e.line(fmt::format("{}<{}, {}>({}, &{}[{}]);", store, T, n.vector, p, e.tile(n.src), lv));
      },
      nullptr);
  e.close();
}

namespace {

// Whether coordinate c<dim> of a gather or scatter lies inside the shared view `s`.
std::string indexed_inside(const ir::SharedTensor& s, int dim) {
  return fmt::format("c{0} >= 0 && c{0} < {1}", dim, s->shape[size_t(dim)]);
}

}  // namespace

void emit_LoadShared(Emitter& e, const ir::LoadSharedNode& n) {
  e.header(n, "load_shared");
  e.declare_tile(n.out);
  e.open("");
  // ldmatrix and packed loads address the block's own memory: the verifier and select_instructions
  // give another block's tile neither.
  TESSEL_CHECK(!n.rank || (n.matrix.instruction == ir::MatrixInstruction::None && !is_packed(n.out->dtype)),
               "load_shared of another block's tile at {} by ldmatrix or of packed elements", n.loc.str());
  const std::string memory = n.rank ? remote_shared_memory(e, n.rank) : "tessel_smem";
  TESSEL_CHECK(!n.index || (!is_packed(n.out->dtype) && n.matrix.instruction == ir::MatrixInstruction::None),
               "a gather at {} reached code generation of packed elements or by ldmatrix", n.loc.str());
  if (is_packed(n.out->dtype)) {
    emit_packed_load_shared(e, n);
  } else if (!emit_ldmatrix(e, n, [&](const std::string& index, int64_t constant) {
               return shared_element(e, n.src, index, constant);
             })) {
    TESSEL_CHECK(n.vector >= 1, "load_shared at {} reached code generation without a vector width", n.loc.str());
    const IndexedDim indexed{n.index, n.index_dim};
    const std::string element = shared_element(e, n.src, shared_index(n.src), 0, memory);
    const std::string fill = to_storage(
        n.out->dtype, fmt::format("({})({})", arith_type(n.out->dtype), value_literal(n.out->dtype, n.fill)));
    if (n.vector == 1) {
      open_slot_loop(e, n.out, n.offsets, indexed);
      if (n.index)
        e.line(
            fmt::format("{}[l] = ({}) ? {} : {};", e.tile(n.out), indexed_inside(n.src, n.index_dim), element, fill));
      else
        e.line(fmt::format("{}[l] = {};", e.tile(n.out), element));
    } else {
      e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
      open_run_loop(e, n.out, n.offsets, "lv", n.vector, indexed);
      const std::string load =
          fmt::format("tessel_load_vec<{}, {}>(&{}[lv], &{});", c_type(n.out->dtype), n.vector, e.tile(n.out), element);
      if (n.index)
        e.line(fmt::format("if ({}) {} else for (int j = 0; j < {}; ++j) {}[lv + j] = {};",
                           indexed_inside(n.src, n.index_dim), load, n.vector, e.tile(n.out), fill));
      else
        e.line(load);
    }
    e.close();
  }
  e.close();
}

void emit_StoreShared(Emitter& e, const ir::StoreSharedNode& n) {
  e.header(n, "store_shared");
  e.open("");
  TESSEL_CHECK(!n.rank || (n.matrix.instruction == ir::MatrixInstruction::None && !is_packed(n.src->dtype)),
               "store_shared to another block's tile at {} by stmatrix or of packed elements", n.loc.str());
  const std::string memory = n.rank ? remote_shared_memory(e, n.rank) : "tessel_smem";
  TESSEL_CHECK(!n.index || (!is_packed(n.src->dtype) && n.matrix.instruction == ir::MatrixInstruction::None),
               "a scatter at {} reached code generation of packed elements or by stmatrix", n.loc.str());
  if (is_packed(n.src->dtype)) {
    emit_packed_store_shared(e, n);
    return e.close();
  }
  const auto element = [&](const std::string& index, int64_t constant = 0) {
    return shared_element(e, n.dst, index, constant, memory);
  };
  if (emit_stmatrix(e, n, element)) {
    e.close();
    return;
  }
  const int vec = n.vector;
  TESSEL_CHECK(vec >= 1, "store_shared at {} reached code generation without a vector width", n.loc.str());
  const IndexedDim indexed{n.index, n.index_dim};
  // A scatter writes only the elements whose indexed coordinate is inside the tile.
  const std::string inside = n.index ? fmt::format("if ({}) ", indexed_inside(n.dst, n.index_dim)) : "";
  if (vec == 1) {
    open_slot_loop(e, n.src, n.offsets, indexed);
    e.line(fmt::format("{}{} = {}[l];", inside, element(shared_index(n.dst)), e.tile(n.src)));
  } else {
    e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
    open_run_loop(e, n.src, n.offsets, "lv", vec, indexed);
    e.line(fmt::format("{}tessel_store_vec<{}, {}>(&{}, &{}[lv]);", inside, c_type(n.dst->dtype), vec,
                       element(shared_index(n.dst)), e.tile(n.src)));
  }
  e.close();
  e.close();
}

std::vector<std::string> first_replica_conditions(const Layout& layout, const std::string& t) {
  std::vector<std::string> conditions;
  for (const Layout::ThreadSpan& s : layout.replica_spans())
    conditions.push_back(fmt::format("{} / {} % {} == 0", t, s.stride, s.size));
  return conditions;
}

std::string row_major_position(const Layout& layout, const std::string& t, const std::string& l) {
  const std::vector<std::string> c = layout.coord_exprs(t, l);
  std::string position = "0";
  for (size_t d = 0; d < c.size(); ++d) position = fmt::format("({}) * {} + ({})", position, layout.shape()[d], c[d]);
  return position;
}

void emit_barrier(Emitter& e, int barrier) {
  if (barrier == ir::SyncNode::kBlockBarrier) return e.line("__syncthreads();");
  e.line(ptx_asm(Ptx::BarSync, e.arch, {{std::to_string(barrier)}, {std::to_string(e.group().count)}}));
}

// The block's sync() is __syncthreads; a thread group's is its named barrier, over its threads.
void emit_Sync(Emitter& e, const ir::SyncNode& n) {
  TESSEL_CHECK(n.barrier != ir::SyncNode::kUnallocated, "sync at {} reached code generation without a barrier",
               n.loc.str());
  if (n.barrier == ir::SyncNode::kBlockBarrier) return e.line("__syncthreads();" + e.comment(n.loc, "sync"));
  e.header(n, fmt::format("sync: named barrier {}", n.barrier));
  e.line(ptx_asm(Ptx::BarSync, e.arch, {{std::to_string(n.barrier)}, {std::to_string(e.group().count)}}));
}

}  // namespace tessel::codegen
