// Simulator semantics of reductions: each output element combines the input elements of its
// row (along the reduced dimension). Within a warp the lanes that hold them combine directly;
// across warps, as the generated code does: each warp's partial goes to its row of the shared
// partials, the group's barrier, every thread folds the rows in order, and a second barrier.
#include <cstring>
#include <map>

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

}  // namespace tessel::sim
