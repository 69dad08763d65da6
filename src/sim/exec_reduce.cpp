// Simulator semantics of reductions and scans: each output element combines the input elements of
// its row (along the dimension) - all of them, or those up to its position. Within a warp the lanes
// that hold them combine directly; across warps, as the generated code does: each warp's partial
// (or total) goes to its row of the shared scratch, the group's barrier, every thread folds the
// rows in order (those of the warps before its own, for a scan), and a second barrier.
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "machine.hpp"

namespace tessel::sim {

namespace {

ir::Scalar combine(ir::ReduceOp op, DType t, ir::Scalar a, ir::Scalar b) {
  switch (op) {
    case ir::ReduceOp::Sum: return ir::apply_binary(ir::BinaryOp::Add, t, a, b);
    case ir::ReduceOp::Max: return ir::apply_binary(ir::BinaryOp::Max, t, a, b);
    case ir::ReduceOp::Min: return ir::apply_binary(ir::BinaryOp::Min, t, a, b);
  }
  return a;
}

// The identity of `op` on `t`: what an exclusive scan's first element holds.
ir::Scalar identity(ir::ReduceOp op, DType t) {
  if (op == ir::ReduceOp::Sum) return is_float(t) ? ir::Scalar{.f = 0} : ir::Scalar{.i = 0};
  const bool lowest = op == ir::ReduceOp::Max;
  if (is_float(t)) return ir::Scalar{.f = lowest ? -INFINITY : INFINITY};
  const int bits = dtype_bytes(t) * 8;
  if (!is_signed(t)) return ir::normalize(t, ir::Scalar{.i = lowest ? 0 : -1});
  const int64_t largest = int64_t((uint64_t(1) << (bits - 1)) - 1);
  return ir::Scalar{.i = lowest ? -largest - 1 : largest};
}

// The shape of a tile's rows along `dim`: the tile's shape with extent 1 there (a reduction's
// result shape).
std::vector<int> row_shape(const Layout& layout, int dim) {
  std::vector<int> shape = layout.shape();
  shape[size_t(dim)] = 1;
  return shape;
}

// The row of the element at `c`: its row-major index in row_shape (the coordinate along `dim`
// dropped), and its position along `dim`.
int64_t row_of(const int* c, const std::vector<int>& rows, int dim, int* position) {
  int64_t index = 0;
  for (size_t d = 0; d < rows.size(); ++d) index = index * rows[d] + (int(d) == dim ? 0 : c[d]);
  *position = c[dim];
  return index;
}

// The elements of `tile` this warp holds, by row and by position along `dim`; the lowest lane
// holding an element is its holder, as the shuffles reach it. A holder outside `mask` is an error:
// the instruction (`what`, "the reduction" or "the scan" in messages) runs in only part of the warp.
struct Held {
  int lane;
  ir::Scalar value;
};
std::map<int64_t, std::map<int, Held>> held_rows(Warp& w, const ir::RegisterTensorNode& tile, int dim, Mask mask,
                                                 const SourceLoc& loc, std::string_view op, std::string_view what) {
  const Layout& layout = tile.layout;
  const int local = layout.local_size(), rank = layout.rank();
  const std::vector<int> rows = row_shape(layout, dim);
  const auto& coords = w.cta.tables.coords(&tile);
  const auto& values = w.tile(&tile);
  std::map<int64_t, std::map<int, Held>> held;
  for (int lane = 0; lane < 32; ++lane) {
    const int th = w.thread_in_group(lane);
    if (th < 0 || th >= layout.num_threads()) continue;
    for (int l = 0; l < local; ++l) {
      int k = 0;
      const int64_t row = row_of(&coords[(size_t(th) * local + l) * rank], rows, dim, &k);
      held[row].try_emplace(k, Held{lane, values[size_t(lane) * local + l]});
    }
  }
  for (const auto& [row, elements] : held)
    for (const auto& [k, h] : elements)
      if (!(mask >> h.lane & 1))
        throw Error(loc, fmt::format("{} over dim {} executed by only part of a warp: thread {} holds an element but "
                                     "does not take part (is {} inside a branch?)",
                                     op, dim, w.thread(h.lane), what));
  return held;
}

// This warp's position along the warps that span the dimension (the scratch row it writes).
int64_t warp_position(const Warp& w, const std::vector<Layout::ThreadSpan>& warps) {
  int64_t q = 0, step = 1;
  const int th = w.thread_in_group(0);
  for (const Layout::ThreadSpan& s : warps) {
    q += th / s.stride % s.size * step;
    step *= s.size;
  }
  return q;
}

// The exchange through a scratch of [warps, rows]: this warp's value of each row goes to scratch
// row `q`, the group meets at `barrier`, each of those rows folds scratch rows [0, fold) in order,
// and the group meets again. Rows fold to nothing when `fold` is 0.
std::map<int64_t, ir::Scalar> through_scratch(Warp& w, const ir::SharedTensor& scratch, int barrier, Mask mask,
                                              const SourceLoc& loc, ir::ReduceOp op, int64_t q,
                                              const std::map<int64_t, ir::Scalar>& mine, int64_t fold,
                                              std::string_view operation) {
  Cta& cta = w.cta;
  const DType t = scratch->dtype;
  const int bytes = dtype_bytes(t);
  const int64_t base = cta.shared_offsets.at(scratch.get()), rows = scratch->shape[1];
  const auto byte_of = [&](int64_t warp, int64_t row) { return base + (warp * rows + row) * bytes; };
  const int thread = w.thread(__builtin_ctz(mask));
  for (const auto& [row, value] : mine) {
    const int64_t byte = byte_of(q, row);
    uint8_t incoming[8];
    store_value(t, incoming, value);
    cta.store_shared(w, thread, byte, incoming, bytes, loc, operation);
  }
  cta.arrive_at_barrier(w, barrier, w.group().count, mask, loc);
  std::map<int64_t, ir::Scalar> folded;
  for (const auto& [row, value] : mine)
    for (int64_t warp = 0; warp < fold; ++warp) {
      const int64_t byte = byte_of(warp, row);
      cta.access_shared(w, byte, bytes, false, loc, operation);
      const ir::Scalar v = load_value(t, &cta.smem[size_t(byte)]);
      folded[row] = warp == 0 ? v : combine(op, t, folded[row], v);
    }
  cta.arrive_at_barrier(w, barrier, w.group().count, mask, loc);
  return folded;
}

}  // namespace

void exec_Reduce(Warp& w, const ir::ReduceNode& n, Mask mask) {
  const Layout& out = n.out->layout;
  const DType t = n.a->dtype;
  const auto held = held_rows(w, *n.a, n.dim, mask, n.loc, ir::op_name(n.op), "the reduction");
  std::map<int64_t, ir::Scalar> folded;
  for (const auto& [row, elements] : held) {
    ir::Scalar acc = elements.begin()->second.value;
    for (auto it = std::next(elements.begin()); it != elements.end(); ++it)
      acc = combine(n.op, t, acc, it->second.value);
    folded[row] = acc;
  }
  if (n.scratch) {
    Layout::WarpSplit split;
    TESSEL_CHECK(n.a->layout.split_at_warps(n.dim, &split), "reduction at {} over an unsplittable layout", n.loc.str());
    int64_t warps = 1;
    for (const Layout::ThreadSpan& s : split.warps) warps *= s.size;
    folded = through_scratch(w, n.scratch, n.barrier, mask, n.loc, n.op, warp_position(w, split.warps), folded, warps,
                             "reduction across warps");
  }
  auto& dst = w.tile(n.out.get());
  const int out_local = out.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    for (int lo = 0; lo < out_local; ++lo) {
      int k = 0;
      const auto it = folded.find(row_of(out.coords(w.thread_in_group(lane), lo).data(), out.shape(), n.dim, &k));
      TESSEL_CHECK(it != folded.end(), "reduce at {}: no element of a result row in warp {}", n.loc.str(), w.id);
      dst[size_t(lane) * out_local + lo] = it->second;
    }
  }
}

void exec_Scan(Warp& w, const ir::ScanNode& n, Mask mask) {
  const Layout& in = n.a->layout;
  const int local = in.local_size(), rank = in.rank();
  const DType t = n.a->dtype;
  Layout::ScanOrder order;
  TESSEL_CHECK(in.scan_order(n.dim, &order), "scan at {} over a layout out of scan order", n.loc.str());
  // This warp's inclusive values by row and position, and each row's total.
  std::map<int64_t, std::map<int, ir::Scalar>> inclusive;
  std::map<int64_t, ir::Scalar> totals;
  for (const auto& [row, elements] :
       held_rows(w, *n.a, n.dim, mask, n.loc, fmt::format("cum{}", ir::op_name(n.op)), "the scan")) {
    ir::Scalar acc{};
    for (const auto& [k, h] : elements) {
      acc = k == elements.begin()->first ? h.value : combine(n.op, t, acc, h.value);
      inclusive[row][k] = acc;
    }
    totals[row] = acc;
  }
  // The prefix of the warps before this one, per row.
  std::map<int64_t, ir::Scalar> warps_before;
  if (n.scratch) {
    const int64_t q = warp_position(w, order.warps);
    warps_before = through_scratch(w, n.scratch, n.barrier, mask, n.loc, n.op, q, totals, q, "scan across warps");
  }
  auto& dst = w.tile(n.out.get());
  const std::vector<int> rows = row_shape(in, n.dim);
  const auto& coords = w.cta.tables.coords(n.a.get());
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int l = 0; l < local; ++l) {
      int k = 0;
      const int64_t row = row_of(&coords[(size_t(th) * local + l) * rank], rows, n.dim, &k);
      const std::map<int, ir::Scalar>& values = inclusive.at(row);
      const auto it = values.find(k);
      std::optional<ir::Scalar> own;
      if (!n.exclusive)
        own = it->second;
      else if (it != values.begin())
        own = std::prev(it)->second;
      const auto before = warps_before.find(row);
      ir::Scalar v;
      if (before != warps_before.end())
        v = own ? combine(n.op, t, before->second, *own) : before->second;
      else
        v = own ? *own : identity(n.op, t);
      dst[size_t(lane) * local + l] = v;
    }
  }
}

}  // namespace tessel::sim
