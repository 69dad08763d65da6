// Simulator semantics of reductions and scans: each output element combines the input elements of
// its row (along the dimension) - all of them, or those up to its position - in the order and in
// the type in which the generated code combines them (emit_reduce.cpp): each thread's own elements,
// then the lanes by shuffles, then the warps through the shared scratch, between two barriers of
// the group.
#include <array>
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

// The elements of `tile` each lane of this warp holds, by row and by position along `dim`. A lane
// outside `mask` that holds one is an error: the instruction (`what`, "the reduction" or "the scan"
// in messages) runs in only part of the warp.
using LaneRows = std::array<std::map<int64_t, std::map<int, ir::Scalar>>, 32>;
LaneRows lane_rows(Warp& w, const ir::RegisterTensorNode& tile, int dim, Mask mask, const SourceLoc& loc,
                   std::string_view op, std::string_view what) {
  const Layout& layout = tile.layout;
  const int local = layout.local_size(), rank = layout.rank();
  const std::vector<int> rows = row_shape(layout, dim);
  const auto& coords = w.cta.tables.coords(&tile);
  const auto& values = w.tile(&tile);
  LaneRows held;
  for (int lane = 0; lane < 32; ++lane) {
    const int th = w.thread_in_group(lane);
    if (th < 0 || th >= layout.num_threads()) continue;
    if (!(mask >> lane & 1))
      throw Error(loc, fmt::format("{} over dim {} executed by only part of a warp: thread {} holds an element but "
                                   "does not take part (is {} inside a branch?){}",
                                   op, dim, w.thread(lane), what, w.returned_note(~mask)));
    for (int l = 0; l < local; ++l) {
      int k = 0;
      const int64_t row = row_of(&coords[(size_t(th) * local + l) * rank], rows, dim, &k);
      held[size_t(lane)][row].emplace(k, values[size_t(lane) * local + l]);
    }
  }
  return held;
}

// Lane `lane`'s value of `row` in `values`, which the layout guarantees it has.
template <class V>
const V& value_at(const std::array<std::map<int64_t, V>, 32>& values, int lane, int64_t row, const SourceLoc& loc) {
  const auto it = values[size_t(lane)].find(row);
  TESSEL_CHECK(it != values[size_t(lane)].end(), "reduction at {}: lane {} holds no element of row {}", loc.str(), lane,
               row);
  return it->second;
}

// The lanes that span the dimension (`lanes`) combine their rows' values in `acc` by a butterfly
// of xor shuffles, as the generated code does: `fold(mine, theirs)` gives a lane's new value.
template <class V, class Fold> void butterfly(std::array<std::map<int64_t, V>, 32>& acc,
                                              const std::vector<Layout::ThreadSpan>& lanes, const SourceLoc& loc,
                                              Fold fold) {
  for (const Layout::ThreadSpan& s : lanes)
    for (int k = 1; k < s.size; k <<= 1) {
      const auto before = acc;
      for (int lane = 0; lane < 32; ++lane)
        for (auto& [row, v] : acc[size_t(lane)]) v = fold(v, value_at(before, lane ^ (k * s.stride), row, loc));
    }
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
  cta.arrive_at_barrier(w, barrier, mask, loc, operation);
  std::map<int64_t, ir::Scalar> folded;
  for (const auto& [row, value] : mine)
    for (int64_t warp = 0; warp < fold; ++warp) {
      const int64_t byte = byte_of(warp, row);
      cta.access_shared(w, byte, bytes, false, loc, operation);
      const ir::Scalar v = load_value(t, &cta.smem[size_t(byte)]);
      folded[row] = warp == 0 ? v : combine(op, t, folded[row], v);
    }
  cta.arrive_at_barrier(w, barrier, mask, loc, operation);
  return folded;
}

// An element's value and its position along the reduced dimension.
struct Positioned {
  ir::Scalar value;
  int64_t position;
};

// Whether `b` precedes `a` (emit_reduce.cpp's `precedes`): the larger value for Max, the smaller
// for Min, the smaller position between equal values, a NaN after every number.
bool precedes(ir::ReduceOp op, DType t, const Positioned& b, const Positioned& a) {
  const bool earlier = b.position < a.position;
  if (is_float(t)) {
    if (std::isnan(a.value.f)) return !std::isnan(b.value.f) || earlier;
    if (std::isnan(b.value.f)) return false;
  }
  const auto test = [&](ir::BinaryOp o) { return ir::apply_binary(o, t, b.value, a.value).i != 0; };
  return test(op == ir::ReduceOp::Max ? ir::BinaryOp::Gt : ir::BinaryOp::Lt) || (test(ir::BinaryOp::Eq) && earlier);
}

// A reduction that keeps positions, as the generated code computes it: each lane's elements of a
// row, the lanes by xor shuffles, the warps through the two scratches (the values in
// ir::combining_type, the positions as i32) between two barriers of the group. Every order of
// combining gives the same pair, since `precedes` orders every two elements.
void exec_positioned_reduce(Warp& w, const ir::ReduceNode& n, Mask mask) {
  const DType t = n.a->dtype, a = ir::combining_type(t);
  const LaneRows held = lane_rows(w, *n.a, n.dim, mask, n.loc, ir::reduction_name(n), "the reduction");
  std::array<std::map<int64_t, Positioned>, 32> acc;
  for (int lane = 0; lane < 32; ++lane)
    for (const auto& [row, elements] : held[size_t(lane)])
      for (const auto& [k, v] : elements) {
        const Positioned candidate{a == t ? v : ir::convert(t, a, v), k};
        const auto [it, first] = acc[size_t(lane)].emplace(row, candidate);
        if (!first && precedes(n.op, a, candidate, it->second)) it->second = candidate;
      }
  Layout::WarpSplit split;
  TESSEL_CHECK(n.a->layout.split_at_warps(n.dim, &split), "reduction at {} over an unsplittable layout", n.loc.str());
  butterfly(acc, split.lanes, n.loc, [&](const Positioned& mine, const Positioned& theirs) {
    return precedes(n.op, a, theirs, mine) ? theirs : mine;
  });
  if (n.scratch) {
    Cta& cta = w.cta;
    std::map<int64_t, Positioned> mine;
    for (int lane = 0; lane < 32; ++lane) mine.insert(acc[size_t(lane)].begin(), acc[size_t(lane)].end());
    int64_t warps = 1;
    for (const Layout::ThreadSpan& s : split.warps) warps *= s.size;
    const int64_t q = warp_position(w, split.warps), rows = n.scratch->shape[1];
    const int64_t values = cta.shared_offsets.at(n.scratch.get()),
                  positions = cta.shared_offsets.at(n.position_scratch.get());
    const int bytes = dtype_bytes(a);
    const int thread = w.thread(__builtin_ctz(mask));
    const std::string_view operation = "reduction across warps";
    for (const auto& [row, pair] : mine) {
      uint8_t value[8], position[4];
      store_value(a, value, pair.value);
      store_value(DType::I32, position, ir::Scalar{.i = pair.position});
      cta.store_shared(w, thread, values + (q * rows + row) * bytes, value, bytes, n.loc, operation);
      cta.store_shared(w, thread, positions + (q * rows + row) * 4, position, 4, n.loc, operation);
    }
    cta.arrive_at_barrier(w, n.barrier, mask, n.loc, operation);
    std::map<int64_t, Positioned> folded;
    for (const auto& [row, pair] : mine)
      for (int64_t warp = 0; warp < warps; ++warp) {
        const int64_t value = values + (warp * rows + row) * bytes, position = positions + (warp * rows + row) * 4;
        cta.access_shared(w, value, bytes, false, n.loc, operation);
        cta.access_shared(w, position, 4, false, n.loc, operation);
        const Positioned part{load_value(a, &cta.smem[size_t(value)]),
                              load_value(DType::I32, &cta.smem[size_t(position)]).i};
        if (warp == 0 || precedes(n.op, a, part, folded[row])) folded[row] = part;
      }
    cta.arrive_at_barrier(w, n.barrier, mask, n.loc, operation);
    for (auto& lane_acc : acc)
      for (auto& [row, pair] : lane_acc) pair = folded.at(row);
  }
  const Layout& out = n.out->layout;
  auto& values = w.tile(n.out.get());
  auto& positions = w.tile(n.position.get());
  const int out_local = out.local_size();
  const int64_t extent = n.a->shape()[size_t(n.dim)];
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    for (int lo = 0; lo < out_local; ++lo) {
      int k = 0;
      const int64_t row = row_of(out.coords(w.thread_in_group(lane), lo).data(), out.shape(), n.dim, &k);
      const Positioned& pair = value_at(acc, lane, row, n.loc);
      // Moved, never computed: the element's own bits, NaN payloads included.
      values[size_t(lane) * out_local + lo] = a == t ? pair.value : ir::convert(a, t, pair.value);
      const bool nan = is_float(t) && std::isnan(pair.value.f);
      positions[size_t(lane) * out_local + lo] = ir::Scalar{.i = nan ? extent : pair.position};
    }
  }
}

}  // namespace

// As the generated code computes it, in ir::combining_type (f32 for the narrow floats), rounded
// to the element type once: each lane folds its own elements of a row in order of position, the
// lanes that span the dimension combine by a butterfly of xor shuffles, and the warps that span it
// through the scratch.
void exec_Reduce(Warp& w, const ir::ReduceNode& n, Mask mask) {
  if (n.position) return exec_positioned_reduce(w, n, mask);
  const Layout& out = n.out->layout;
  const DType t = n.a->dtype, a = ir::combining_type(t);
  const LaneRows held = lane_rows(w, *n.a, n.dim, mask, n.loc, ir::op_name(n.op), "the reduction");
  std::array<std::map<int64_t, ir::Scalar>, 32> acc;
  for (int lane = 0; lane < 32; ++lane)
    for (const auto& [row, elements] : held[size_t(lane)]) {
      ir::Scalar v = elements.begin()->second;
      for (auto it = std::next(elements.begin()); it != elements.end(); ++it) v = combine(n.op, a, v, it->second);
      acc[size_t(lane)][row] = v;
    }
  Layout::WarpSplit split;
  TESSEL_CHECK(n.a->layout.split_at_warps(n.dim, &split), "reduction at {} over an unsplittable layout", n.loc.str());
  butterfly(acc, split.lanes, n.loc,
            [&](const ir::Scalar& mine, const ir::Scalar& theirs) { return combine(n.op, a, mine, theirs); });
  if (n.scratch) {
    // Every lane now holds its rows' warp totals; one value per row goes to the scratch.
    std::map<int64_t, ir::Scalar> mine;
    for (int lane = 0; lane < 32; ++lane) mine.insert(acc[size_t(lane)].begin(), acc[size_t(lane)].end());
    int64_t warps = 1;
    for (const Layout::ThreadSpan& s : split.warps) warps *= s.size;
    const auto folded = through_scratch(w, n.scratch, n.barrier, mask, n.loc, n.op, warp_position(w, split.warps), mine,
                                        warps, "reduction across warps");
    for (auto& lane_acc : acc)
      for (auto& [row, v] : lane_acc) v = folded.at(row);
  }
  auto& dst = w.tile(n.out.get());
  const int out_local = out.local_size();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    for (int lo = 0; lo < out_local; ++lo) {
      int k = 0;
      const int64_t row = row_of(out.coords(w.thread_in_group(lane), lo).data(), out.shape(), n.dim, &k);
      dst[size_t(lane) * out_local + lo] = ir::normalize(n.out->dtype, value_at(acc, lane, row, n.loc));
    }
  }
}

// As the generated code computes it, in ir::combining_type, rounded to the element type once:
// each lane's running values along its run, the lanes' inclusive totals by Hillis-Steele steps of
// shuffles up, the prefix of the lanes before each lane, then of the warps before its warp through
// the scratch; each element is its prefix combined with its running value (inclusive) or with the
// one before it (exclusive).
void exec_Scan(Warp& w, const ir::ScanNode& n, Mask mask) {
  const Layout& in = n.a->layout;
  const int local = in.local_size(), rank = in.rank();
  const DType t = n.a->dtype, a = ir::combining_type(t);
  Layout::ScanOrder order;
  TESSEL_CHECK(in.scan_order(n.dim, &order), "scan at {} over a layout out of scan order", n.loc.str());
  const LaneRows held = lane_rows(w, *n.a, n.dim, mask, n.loc, fmt::format("cum{}", ir::op_name(n.op)), "the scan");
  LaneRows running;
  std::array<std::map<int64_t, ir::Scalar>, 32> lanes;
  for (int lane = 0; lane < 32; ++lane)
    for (const auto& [row, elements] : held[size_t(lane)]) {
      ir::Scalar v{};
      for (const auto& [k, x] : elements) {
        v = k == elements.begin()->first ? x : combine(n.op, a, v, x);
        running[size_t(lane)][row][k] = v;
      }
      lanes[size_t(lane)][row] = v;
    }
  const auto lane_pos = [&](int lane) { return w.thread_in_group(lane) / order.lanes.stride % order.lanes.size; };
  for (int d = 1; d < order.lanes.size; d <<= 1) {
    const auto before = lanes;
    for (int lane = 0; lane < 32; ++lane)
      if (!held[size_t(lane)].empty() && lane_pos(lane) >= d)
        for (auto& [row, v] : lanes[size_t(lane)])
          v = combine(n.op, a, value_at(before, lane - d * order.lanes.stride, row, n.loc), v);
  }
  // Each lane's prefix: the inclusive total of the lane before it, where it has one.
  std::array<std::map<int64_t, ir::Scalar>, 32> prefix;
  for (int lane = 0; lane < 32; ++lane)
    if (!held[size_t(lane)].empty() && lane_pos(lane) > 0)
      for (const auto& [row, v] : lanes[size_t(lane)])
        prefix[size_t(lane)][row] = value_at(lanes, lane - order.lanes.stride, row, n.loc);
  if (n.scratch) {
    // The warp's totals, from its last lanes, to its row of the scratch; the warps before it fold.
    std::map<int64_t, ir::Scalar> totals;
    for (int lane = 0; lane < 32; ++lane)
      if (!held[size_t(lane)].empty() && lane_pos(lane) == order.lanes.size - 1)
        totals.insert(lanes[size_t(lane)].begin(), lanes[size_t(lane)].end());
    const int64_t q = warp_position(w, order.warps);
    const auto warps = through_scratch(w, n.scratch, n.barrier, mask, n.loc, n.op, q, totals, q, "scan across warps");
    if (q > 0)
      for (int lane = 0; lane < 32; ++lane)
        for (const auto& [row, v] : held[size_t(lane)]) {
          const auto own = prefix[size_t(lane)].find(row);
          prefix[size_t(lane)][row] =
              own != prefix[size_t(lane)].end() ? combine(n.op, a, warps.at(row), own->second) : warps.at(row);
        }
  }
  auto& dst = w.tile(n.out.get());
  const std::vector<int> rows = row_shape(in, n.dim);
  const auto& coords = w.cta.tables.coords(n.a.get());
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    if (th < 0 || th >= in.num_threads()) continue;
    for (int l = 0; l < local; ++l) {
      int k = 0;
      const int64_t row = row_of(&coords[(size_t(th) * local + l) * rank], rows, n.dim, &k);
      const std::map<int, ir::Scalar>& values = running[size_t(lane)].at(row);
      const auto it = values.find(k);
      std::optional<ir::Scalar> own;
      if (!n.exclusive)
        own = it->second;
      else if (it != values.begin())
        own = std::prev(it)->second;
      const auto before = prefix[size_t(lane)].find(row);
      ir::Scalar v;
      if (before != prefix[size_t(lane)].end())
        v = own ? combine(n.op, a, before->second, *own) : before->second;
      else
        v = own ? *own : identity(n.op, a);
      dst[size_t(lane) * local + l] = ir::normalize(n.out->dtype, v);
    }
  }
}

}  // namespace tessel::sim
