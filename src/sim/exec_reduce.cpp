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

// The row-major index of `c` in `shape`.
int64_t element_index(const std::vector<int>& c, const std::vector<int>& shape) {
  int64_t index = 0;
  for (size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + c[d];
  return index;
}

void combine_across_warps(Warp& w, const ir::ReduceNode& n, Mask mask, std::vector<ir::Scalar>& partials) {
  const Layout& out = n.out->layout;
  const DType t = n.out->dtype;
  const int out_local = out.local_size(), bytes = dtype_bytes(t);
  const int64_t elements = out.num_elements();
  Layout::WarpSplit split;
  TESSEL_CHECK(n.a->layout.split_at_warps(n.dim, &split), "reduction at {} over an unsplittable layout", n.loc.str());
  int rows = 1;
  for (const Layout::ThreadSpan& s : split.warps) rows *= s.size;
  Cta& cta = w.cta;
  const int64_t base = cta.shared_offsets.at(n.scratch.get());
  const auto byte_of = [&](int64_t row, int lane, int lo) {
    return base + (row * elements + element_index(out.coords(w.thread_in_group(lane), lo), out.shape())) * bytes;
  };
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    bool first_lane = true;
    for (const Layout::ThreadSpan& s : split.lanes) first_lane &= th / s.stride % s.size == 0;
    if (!first_lane) continue;
    int64_t q = 0, step = 1;
    for (const Layout::ThreadSpan& s : split.warps) {
      q += th / s.stride % s.size * step;
      step *= s.size;
    }
    for (int lo = 0; lo < out_local; ++lo) {
      const int64_t byte = byte_of(q, lane, lo);
      uint8_t incoming[8];
      store_value(t, incoming, partials[size_t(lane) * out_local + lo]);
      cta.check_not_in_flight(byte, bytes, true, n.loc, w.thread(lane));
      cta.access_shared(w, byte, bytes, true, n.loc, "reduction across warps", incoming);
      std::memcpy(&cta.smem[size_t(byte)], incoming, size_t(bytes));
      std::memset(&cta.written[size_t(byte)], 1, size_t(bytes));
    }
  }
  cta.arrive_at_barrier(w, n.barrier, w.group().count, mask, n.loc);
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    for (int lo = 0; lo < out_local; ++lo) {
      ir::Scalar acc{};
      for (int64_t row = 0; row < rows; ++row) {
        const int64_t byte = byte_of(row, lane, lo);
        cta.access_shared(w, byte, bytes, false, n.loc, "reduction across warps");
        const ir::Scalar v = load_value(t, &cta.smem[size_t(byte)]);
        acc = row == 0 ? v : combine(n.op, t, acc, v);
      }
      partials[size_t(lane) * out_local + lo] = acc;
    }
  }
  cta.arrive_at_barrier(w, n.barrier, w.group().count, mask, n.loc);
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

}  // namespace

void exec_Reduce(Warp& w, const ir::ReduceNode& n, Mask mask) {
  const Layout& in = n.a->layout;
  const Layout& out = n.out->layout;
  const int in_local = in.local_size(), out_local = out.local_size(), rank = in.rank();
  const auto& src = w.tile(n.a.get());
  auto& dst = w.tile(n.out.get());
  const DType t = n.a->dtype;
  // The elements this warp holds, by row (the result element they fold into) and by position k
  // along the dimension; the lowest lane holding an element is its holder, as the shuffles reach it.
  struct Held {
    int lane;
    ir::Scalar value;
  };
  std::map<int64_t, std::map<int, Held>> rows;
  const auto& coords = w.cta.tables.coords(n.a.get());
  for (int lane = 0; lane < 32; ++lane) {
    const int th = w.thread_in_group(lane);
    if (th < 0 || th >= in.num_threads()) continue;
    for (int l = 0; l < in_local; ++l) {
      std::vector<int> c(&coords[(size_t(th) * in_local + l) * rank], &coords[(size_t(th) * in_local + l + 1) * rank]);
      const int k = c[size_t(n.dim)];
      c[size_t(n.dim)] = 0;
      rows[element_index(c, out.shape())].try_emplace(k, Held{lane, src[size_t(lane) * in_local + l]});
    }
  }
  std::map<int64_t, ir::Scalar> folded;
  for (const auto& [row, held] : rows) {
    ir::Scalar acc{.i = 0};
    bool first = true;
    for (const auto& [k, h] : held) {
      if (!(mask >> h.lane & 1))
        throw Error(n.loc, fmt::format("{} over dim {} executed by only part of a warp: thread {} holds an element "
                                       "but does not take part (is the reduction inside a branch?)",
                                       ir::op_name(n.op), n.dim, w.thread(h.lane)));
      acc = first ? h.value : combine(n.op, t, acc, h.value);
      first = false;
    }
    folded[row] = acc;
  }
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int lo = 0; lo < out_local; ++lo) {
      const auto it = folded.find(element_index(out.coords(th, lo), out.shape()));
      TESSEL_CHECK(it != folded.end(), "reduce at {}: no element of a result row in warp {}", n.loc.str(), w.id);
      dst[size_t(lane) * out_local + lo] = it->second;
    }
  }
  if (n.scratch) combine_across_warps(w, n, mask, dst);
}

void exec_Scan(Warp& w, const ir::ScanNode& n, Mask mask) {
  const Layout& in = n.a->layout;
  const int local = in.local_size(), rank = in.rank(), bytes = dtype_bytes(n.a->dtype);
  const auto& src = w.tile(n.a.get());
  auto& dst = w.tile(n.out.get());
  const DType t = n.a->dtype;
  Layout::ScanOrder order;
  TESSEL_CHECK(in.scan_order(n.dim, &order), "scan at {} over a layout out of scan order", n.loc.str());
  // The elements of each row this warp holds, by position; the lowest lane holding one is its holder.
  struct Held {
    int lane;
    ir::Scalar value;
  };
  std::map<int64_t, std::map<int, Held>> rows;
  const auto& coords = w.cta.tables.coords(n.a.get());
  const auto row_of = [&](int th, int l, int* k) {
    std::vector<int> c(&coords[(size_t(th) * local + l) * rank], &coords[(size_t(th) * local + l + 1) * rank]);
    *k = c[size_t(n.dim)];
    c[size_t(n.dim)] = 0;
    return element_index(c, in.shape());
  };
  for (int lane = 0; lane < 32; ++lane) {
    const int th = w.thread_in_group(lane);
    if (th < 0 || th >= in.num_threads()) continue;
    for (int l = 0; l < local; ++l) {
      int k = 0;
      const int64_t row = row_of(th, l, &k);
      rows[row].try_emplace(k, Held{lane, src[size_t(lane) * local + l]});
    }
  }
  // This warp's inclusive values by position, and each row's total.
  std::map<int64_t, std::map<int, ir::Scalar>> inclusive;
  for (const auto& [row, held] : rows) {
    ir::Scalar acc{};
    bool first = true;
    for (const auto& [k, h] : held) {
      if (!(mask >> h.lane & 1))
        throw Error(n.loc, fmt::format("cum{} over dim {} executed by only part of a warp: thread {} holds an element "
                                       "but does not take part (is the scan inside a branch?)",
                                       ir::op_name(n.op), n.dim, w.thread(h.lane)));
      acc = first ? h.value : combine(n.op, t, acc, h.value);
      first = false;
      inclusive[row][k] = acc;
    }
  }
  // The prefix of the warps before this one, per row.
  std::map<int64_t, ir::Scalar> warps_before;
  if (n.scratch) {
    Cta& cta = w.cta;
    const int64_t base = cta.shared_offsets.at(n.scratch.get());
    const int64_t elements = in.num_elements() / in.shape()[size_t(n.dim)];
    // The rows of the scratch are indexed by row-major coordinates but along dim.
    std::vector<int> row_shape = in.shape();
    row_shape[size_t(n.dim)] = 1;
    const auto row_index = [&](int64_t row) {
      std::vector<int> c(static_cast<size_t>(rank), 0);
      for (int d = rank - 1; d >= 0; --d) {
        c[size_t(d)] = int(row % in.shape()[size_t(d)]);
        row /= in.shape()[size_t(d)];
      }
      return element_index(c, row_shape);
    };
    int64_t q = 0, step = 1;
    const int th0 = w.thread_in_group(0);
    for (const Layout::ThreadSpan& s : order.warps) {
      q += th0 / s.stride % s.size * step;
      step *= s.size;
    }
    for (const auto& [row, values] : inclusive) {
      const int writer = rows[row].rbegin()->second.lane;
      const int64_t byte = base + (q * elements + row_index(row)) * bytes;
      uint8_t incoming[8];
      store_value(t, incoming, values.rbegin()->second);
      cta.check_not_in_flight(byte, bytes, true, n.loc, w.thread(writer));
      cta.access_shared(w, byte, bytes, true, n.loc, "scan across warps", incoming);
      std::memcpy(&cta.smem[size_t(byte)], incoming, size_t(bytes));
      std::memset(&cta.written[size_t(byte)], 1, size_t(bytes));
    }
    cta.arrive_at_barrier(w, n.barrier, w.group().count, mask, n.loc);
    for (const auto& [row, values] : inclusive)
      for (int64_t before = 0; before < q; ++before) {
        const int64_t byte = base + (before * elements + row_index(row)) * bytes;
        cta.access_shared(w, byte, bytes, false, n.loc, "scan across warps");
        const ir::Scalar v = load_value(t, &cta.smem[size_t(byte)]);
        warps_before[row] = before == 0 ? v : combine(n.op, t, warps_before[row], v);
      }
    cta.arrive_at_barrier(w, n.barrier, w.group().count, mask, n.loc);
  }
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int th = w.thread_in_group(lane);
    for (int l = 0; l < local; ++l) {
      int k = 0;
      const int64_t row = row_of(th, l, &k);
      const std::map<int, ir::Scalar>& values = inclusive.at(row);
      const auto it = values.find(k);
      const auto before = warps_before.find(row);
      std::optional<ir::Scalar> own;
      if (!n.exclusive)
        own = it->second;
      else if (it != values.begin())
        own = std::prev(it)->second;
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
