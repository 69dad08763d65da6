// Reductions over one dimension of a register tile: first over each thread's own slots, then
// across the lanes that span the dimension with butterfly shuffles, then, when the dimension spans
// warps, across the warps through the shared partials that plan_reductions gave the reduction.
// Scans likewise: each thread's run, then the lanes (Hillis-Steele with shuffles up), then the
// warps' totals through shared memory.
#include <cmath>
#include <map>

#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

// x and y combined by `op`, as a C++ expression of t's arithmetic type.
std::string combined(ir::ReduceOp op, DType t, const std::string& x, const std::string& y) {
  switch (op) {
    case ir::ReduceOp::Sum: return binary_expr(ir::BinaryOp::Add, t, x, y);
    case ir::ReduceOp::Max: return binary_expr(ir::BinaryOp::Max, t, x, y);
    case ir::ReduceOp::Min: return binary_expr(ir::BinaryOp::Min, t, x, y);
  }
  return x;
}

// The identity of `op` on `t` as a C++ expression of t's arithmetic type: what an exclusive scan's
// first element holds.
std::string identity(ir::ReduceOp op, DType t) {
  const std::string a = arith_type(t);
  if (op == ir::ReduceOp::Sum) return fmt::format("({})0", a);
  const bool lowest = op == ir::ReduceOp::Max;
  if (is_float(t)) return float_literal(lowest ? -HUGE_VAL : HUGE_VAL);
  const int bits = dtype_bytes(t) * 8;
  if (!is_signed(t)) return lowest ? fmt::format("({})0", a) : fmt::format("({})~0ull", a);
  const std::string largest = fmt::format("(({})((1ull << {}) - 1))", a, bits - 1);
  return lowest ? fmt::format("(-{} - 1)", largest) : largest;
}

// Whether (v, p) precedes (acc, pos) in a reduction that keeps positions: the larger value for Max
// (smaller for Min), the smaller position between equal values, a NaN after every number. It orders
// every pair of elements, so the lanes of a butterfly all end with the same pair.
std::string precedes(ir::ReduceOp op, const std::string& v, const std::string& p, const std::string& acc,
                     const std::string& pos, bool nan) {
  const std::string wins =
      fmt::format("{} {} {} || ({} == {} && {} < {})", v, op == ir::ReduceOp::Max ? ">" : "<", acc, v, acc, p, pos);
  if (!nan) return wins;
  return fmt::format("({0} != {0} ? ({1} == {1} || {2} < {3}) : ({4}))", acc, v, p, pos, wins);
}

// Declares `q`, the thread's warp position along `warps` (least significant first), from `t`;
// returns the number of positions.
int declare_warp_position(Emitter& e, const std::vector<Layout::ThreadSpan>& warps) {
  std::vector<std::string> terms;
  int positions = 1;
  for (const Layout::ThreadSpan& s : warps) {
    terms.push_back(fmt::format("t / {} % {} * {}", s.stride, s.size, positions));
    positions *= s.size;
  }
  e.line(fmt::format("const int q = {};", terms.empty() ? "0" : fmt::format("{}", fmt::join(terms, " + "))));
  return positions;
}

// Each warp's partials acc0, acc1, ... (one per result slot) go to row q of the partials (kept in
// f32 for the narrow floats: ir::combining_type), q being the warp's position along the dimension,
// from the lanes at position 0 within their warp; after a barrier every thread folds the rows in
// order; a second barrier frees the partials for the next time the reduction runs. A reduction that
// keeps positions sends pos0, pos1, ... beside them, and folds the pairs. The caller declares `t`,
// the thread's index in its group.
void emit_across_warps(Emitter& e, const ir::ReduceNode& n, const Layout::WarpSplit& split) {
  const Layout& out = n.out->layout;
  const DType t = n.out->dtype;
  const int elements = out.num_elements();
  const int rows = declare_warp_position(e, split.warps);
  std::vector<std::string> first_lane;
  for (const Layout::ThreadSpan& s : split.lanes)
    first_lane.push_back(fmt::format("t / {} % {} == 0", s.stride, s.size));
  // The result element of each slot, row-major in the result's shape.
  const auto element = [&](int lo) {
    const auto c = out.coord_exprs("t", std::to_string(lo));
    std::string index = "0";
    for (int d = 0; d < out.rank(); ++d) index = fmt::format("({}) * {} + ({})", index, out.shape()[d], c[size_t(d)]);
    return index;
  };
  const auto partial = [&](const std::string& row, int lo) {
    return shared_element(e, n.scratch, fmt::format("({}) * {} + {}", row, elements, element(lo)));
  };
  const DType kept = n.scratch->dtype;
  e.open(first_lane.empty() ? "" : fmt::format("if ({})", fmt::join(first_lane, " && ")));
  const auto position = [&](const std::string& row, int lo) {
    return shared_element(e, n.position_scratch, fmt::format("({}) * {} + {}", row, elements, element(lo)));
  };
  for (int lo = 0; lo < out.local_size(); ++lo) {
    e.line(fmt::format("{} = {};", partial("q", lo), to_storage(kept, fmt::format("acc{}", lo))));
    if (n.position) e.line(fmt::format("{} = pos{};", position("q", lo), lo));
  }
  e.close();
  emit_barrier(e, n.barrier);
  for (int lo = 0; lo < out.local_size(); ++lo) {
    if (n.position) {
      // Row 0's pair, then each later row's where it precedes.
      e.line(fmt::format("acc{} = {};", lo, to_arith(kept, partial("0", lo))));
      e.line(fmt::format("pos{} = {};", lo, position("0", lo)));
      e.open(fmt::format("for (int r = 1; r < {}; ++r)", rows));
      e.line(fmt::format("const {} v = {};", arith_type(t), to_arith(kept, partial("r", lo))));
      e.line(fmt::format("const int p = {};", position("r", lo)));
      e.line(fmt::format("if ({}) {{ acc{} = v; pos{} = p; }}",
                         precedes(n.op, "v", "p", fmt::format("acc{}", lo), fmt::format("pos{}", lo), is_float(t)), lo,
                         lo));
      e.close();
      continue;
    }
    std::string acc = to_arith(kept, partial("0", lo));
    for (int r = 1; r < rows; ++r) acc = combined(n.op, t, acc, to_arith(kept, partial(std::to_string(r), lo)));
    e.line(fmt::format("{}[{}] = {};", e.tile(n.out), lo, to_storage(t, acc)));
  }
  emit_barrier(e, n.barrier);
}

// The result's slot `lo` from acc<lo> and pos<lo>: a line whose extreme is a NaN (NaNs alone) has
// the extent as its position.
void store_extreme(Emitter& e, const ir::ReduceNode& n, int lo) {
  const DType t = n.out->dtype;
  e.line(fmt::format("{}[{}] = {};", e.tile(n.out), lo, to_storage(t, fmt::format("acc{}", lo))));
  const std::string pos = fmt::format("pos{}", lo);
  e.line(fmt::format(
      "{}[{}] = {};", e.tile(n.position), lo,
      is_float(t) ? fmt::format("acc{0} != acc{0} ? {1} : {2}", lo, n.a->shape()[size_t(n.dim)], pos) : pos));
}

// acc<lo> and pos<lo> of a reduction that keeps positions: the thread's own `slots` of output slot
// `lo` (each at its position along the dimension, which depends on the thread), then the lanes'.
void emit_positioned_lanes(Emitter& e, const ir::ReduceNode& n, const std::vector<int>& slots,
                           const std::vector<Layout::ThreadSpan>& spans, unsigned mask, int lo) {
  const Layout& in = n.a->layout;
  const DType t = n.a->dtype;
  const std::string a_type = arith_type(t), acc = fmt::format("acc{}", lo), pos = fmt::format("pos{}", lo);
  const auto value = [&](int la) { return to_arith(t, fmt::format("{}[{}]", e.tile(n.a), la)); };
  const auto position = [&](int la) { return in.coord_exprs("t", std::to_string(la))[size_t(n.dim)]; };
  e.line(fmt::format("{} {} = {};", a_type, acc, value(slots.front())));
  e.line(fmt::format("int {} = {};", pos, position(slots.front())));
  for (size_t i = 1; i < slots.size(); ++i) {
    e.open("");
    e.line(fmt::format("const {} v = {};", a_type, value(slots[i])));
    e.line(fmt::format("const int p = {};", position(slots[i])));
    e.line(fmt::format("if ({}) {{ {} = v; {} = p; }}", precedes(n.op, "v", "p", acc, pos, is_float(t)), acc, pos));
    e.close();
  }
  for (const auto& s : spans)
    for (int k = 1; k < s.size; k <<= 1) {
      e.open("");
      e.line(fmt::format("const {} v = tessel_shfl_xor(0x{:08x}u, {}, {});", a_type, mask, acc, k * s.stride));
      e.line(fmt::format("const int p = tessel_shfl_xor(0x{:08x}u, {}, {});", mask, pos, k * s.stride));
      e.line(fmt::format("if ({}) {{ {} = v; {} = p; }}", precedes(n.op, "v", "p", acc, pos, is_float(t)), acc, pos));
      e.close();
    }
}

}  // namespace

void emit_Reduce(Emitter& e, const ir::ReduceNode& n) {
  e.header(
      n, fmt::format("{} over dim {}", n.position ? ir::reduction_name(n) : "reduce_" + ir::reduction_name(n), n.dim));
  e.declare_tile(n.out);
  const Layout& in = n.a->layout;
  const Layout& out = n.out->layout;
  const DType t = n.a->dtype;
  const auto combine = [&](const std::string& x, const std::string& y) { return combined(n.op, t, x, y); };
  Layout::WarpSplit split;
  TESSEL_CHECK(in.split_at_warps(n.dim, &split), "reduction at {} over an unsplittable layout", n.loc.str());
  const auto& spans = split.lanes;
  const auto g = e.group();
  const unsigned mask = g.count >= 32 ? 0xffffffffu : ((1u << g.count) - 1u) << (g.begin % 32);
  if (n.position) e.declare_tile(n.position);
  e.open("");
  if (n.position || n.scratch) e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  for (int lo = 0; lo < out.local_size(); ++lo) {
    // The slots of this thread that fold into output slot `lo` (the same for every thread).
    std::vector<int> c = out.coords(0, lo);
    std::vector<int> slots;
    for (int k = 0; k < in.shape()[n.dim]; ++k) {
      c[n.dim] = k;
      int la = 0;
      if (in.holds(0, c, &la)) slots.push_back(la);  // else held by another lane: folded in by the shuffles
    }
    if (n.position) {
      emit_positioned_lanes(e, n, slots, spans, mask, lo);
      if (!n.scratch) store_extreme(e, n, lo);
      continue;
    }
    std::string acc;
    for (int la : slots) {
      const std::string v = to_arith(t, fmt::format("{}[{}]", e.tile(n.a), la));
      acc = acc.empty() ? v : combine(acc, v);
    }
    e.line(fmt::format("{} acc{} = {};", arith_type(t), lo, acc));
    for (const auto& s : spans)
      for (int k = 1; k < s.size; k <<= 1)
        e.line(fmt::format("acc{0} = {1};", lo,
                           combine(fmt::format("acc{}", lo),
                                   fmt::format("tessel_shfl_xor(0x{:08x}u, acc{}, {})", mask, lo, k * s.stride))));
    if (!n.scratch)
      e.line(fmt::format("{}[{}] = {};", e.tile(n.out), lo, to_storage(n.out->dtype, fmt::format("acc{}", lo))));
  }
  if (n.scratch) {
    emit_across_warps(e, n, split);
    if (n.position)
      for (int lo = 0; lo < out.local_size(); ++lo) store_extreme(e, n, lo);
  }
  e.close();
}

// Per row of the thread's run (slots sorted by position): running values s<slot>; the lanes'
// inclusive totals by shuffles up; the warps' totals through the scratch; then each slot is its
// prefix (warps before, lanes before) combined with its running value, or with the one before it.
void emit_Scan(Emitter& e, const ir::ScanNode& n) {
  e.header(n, fmt::format("scan_{} over dim {}{}", ir::op_name(n.op), n.dim, n.exclusive ? ", exclusive" : ""));
  e.declare_tile(n.out);
  const Layout& in = n.a->layout;
  const DType t = n.a->dtype;
  const std::string a_type = arith_type(t);
  const auto combine = [&](const std::string& x, const std::string& y) { return combined(n.op, t, x, y); };
  Layout::ScanOrder order;
  TESSEL_CHECK(in.scan_order(n.dim, &order), "scan at {} over a layout out of scan order", n.loc.str());
  // The thread's slots by row (the coordinates but along dim), each row's in order of position.
  std::map<std::vector<int>, std::map<int, int>> rows;
  for (int l = 0; l < in.local_size(); ++l) {
    std::vector<int> c = in.coords(0, l);
    const int k = c[size_t(n.dim)];
    c[size_t(n.dim)] = 0;
    rows[c][k] = l;
  }
  const auto g = e.group();
  const unsigned mask = g.count >= 32 ? 0xffffffffu : ((1u << g.count) - 1u) << (g.begin % 32);
  e.open("");
  e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  e.line(fmt::format("const int lane_pos = t / {} % {};", order.lanes.stride, order.lanes.size));
  declare_warp_position(e, order.warps);
  int r = 0;
  for (const auto& [row, slots] : rows) {
    std::string previous;
    for (const auto& [k, l] : slots) {
      const std::string v = to_arith(t, fmt::format("{}[{}]", e.tile(n.a), l));
      e.line(fmt::format("const {} s{} = {};", a_type, l, previous.empty() ? v : combine(previous, v)));
      previous = fmt::format("s{}", l);
    }
    // The lanes' inclusive totals, and the prefix of the lanes before this one.
    e.line(fmt::format("{} lanes{} = {};", a_type, r, previous));
    for (int d = 1; d < order.lanes.size; d <<= 1) {
      e.open("");
      e.line(fmt::format("const {} up = __shfl_up_sync(0x{:08x}u, lanes{}, {});", a_type, mask, r,
                         d * order.lanes.stride));
      e.line(fmt::format("if (lane_pos >= {}) lanes{} = {};", d, r, combine("up", fmt::format("lanes{}", r))));
      e.close();
    }
    e.line(
        fmt::format("{} prefix{} = __shfl_up_sync(0x{:08x}u, lanes{}, {});", a_type, r, mask, r, order.lanes.stride));
    e.line(fmt::format("bool has_prefix{} = lane_pos > 0;", r));
    ++r;
  }
  if (n.scratch) {
    // Each warp's total per row (its last lane's inclusive value) to row q of the scratch.
    // The row of slot l: its coordinates but along dim, row-major.
    const auto element = [&](int l) {
      const auto c = in.coord_exprs("t", std::to_string(l));
      std::string index = "0";
      for (int d = 0; d < in.rank(); ++d)
        if (d != n.dim) index = fmt::format("({}) * {} + ({})", index, in.shape()[size_t(d)], c[size_t(d)]);
      return index;
    };
    const int elements = in.num_elements() / in.shape()[size_t(n.dim)];
    const DType kept = n.scratch->dtype;
    const auto total = [&](const std::string& warp, const std::map<int, int>& slots) {
      return shared_element(e, n.scratch,
                            fmt::format("({}) * {} + {}", warp, elements, element(slots.begin()->second)));
    };
    e.open(fmt::format("if (lane_pos == {})", order.lanes.size - 1));
    r = 0;
    for (const auto& [row, slots] : rows)
      e.line(fmt::format("{} = {};", total("q", slots), to_storage(kept, fmt::format("lanes{}", r++))));
    e.close();
    emit_barrier(e, n.barrier);
    r = 0;
    for (const auto& [row, slots] : rows) {
      // The warps before this one, in order, then this warp's lanes before this lane.
      e.open("if (q > 0)");
      e.line(fmt::format("{} warps = {};", a_type, to_arith(kept, total("0", slots))));
      e.line(
          fmt::format("for (int w = 1; w < q; ++w) warps = {};", combine("warps", to_arith(kept, total("w", slots)))));
      e.line(fmt::format("prefix{0} = has_prefix{0} ? {1} : warps;", r, combine("warps", fmt::format("prefix{}", r))));
      e.line(fmt::format("has_prefix{} = true;", r));
      e.close();
      ++r;
    }
    emit_barrier(e, n.barrier);
  }
  r = 0;
  for (const auto& [row, slots] : rows) {
    std::string previous;
    for (const auto& [k, l] : slots) {
      const std::string running = fmt::format("s{}", l);
      const std::string own = n.exclusive ? previous : running;
      const std::string value =
          own.empty() ? fmt::format("(has_prefix{0} ? prefix{0} : {1})", r, identity(n.op, t))
                      : fmt::format("(has_prefix{0} ? {1} : {2})", r, combine(fmt::format("prefix{}", r), own), own);
      e.line(fmt::format("{}[{}] = {};", e.tile(n.out), l, to_storage(t, value)));
      previous = running;
    }
    ++r;
  }
  e.close();
}

}  // namespace tessel::codegen
