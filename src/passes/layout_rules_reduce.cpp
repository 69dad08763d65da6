// Layout rules of the reductions (the result is the operand's layout reduced along the dimension)
// and of the scans (the result has the operand's layout); an operand whose layout no rule fixes,
// where the coalescing default cannot be reduced or scanned along the dimension, prefers a line
// layout (infer_layouts' rule (d)).
#include <numeric>

#include "layout_rules.hpp"

namespace tessel::passes {

namespace {

// The threads a line along a reduced or scanned dimension may span: within a warp, a power of two
// (a run of lanes that divides the warp, whichever warp it starts in); beyond, whole warps.
int threads_along(int extent, int threads) {
  const int most = std::gcd(extent, threads);
  return most % 32 == 0 ? most : std::min(most & -most, 32);
}

// The layout a scan or a reduction along `dim` takes where no rule fixes one and the coalescing
// default would not do: as many threads along `dim` as threads_along gives, each holding a run of
// the rest, consecutive threads consecutive runs; the other threads spread over the other
// dimensions where they divide them, and copies beyond that.
Layout line_layout(const std::vector<int>& shape, int threads, int dim) {
  const int rank = int(shape.size());
  std::vector<int> order;  // the dimensions with `dim` last, so that threads vary fastest along it
  for (int d = 0; d < rank; ++d)
    if (d != dim) order.push_back(d);
  order.push_back(dim);
  std::vector<int> thread_extent(size_t(rank), 1), run(size_t(rank), 1);
  int remaining = threads;
  for (int i = rank - 1; i >= 0; --i) {
    const int extent = shape[size_t(order[size_t(i)])];
    thread_extent[size_t(i)] = i == rank - 1 ? threads_along(extent, remaining) : std::gcd(extent, remaining);
    remaining /= thread_extent[size_t(i)];
    run[size_t(i)] = extent / thread_extent[size_t(i)];
  }
  const Layout ordered = Layout::replicated(rank, remaining) * Layout::spatial(thread_extent) * Layout::local(run);
  std::vector<int> back(size_t(rank), 0);  // result dimension d is dimension back[d] of `ordered`
  for (int i = 0; i < rank; ++i) back[size_t(order[size_t(i)])] = i;
  return ordered.permute(back);
}

// Whether lanes and warps can combine `layout` along `dim` (infer_layouts' check_reduction).
bool reducible(const Layout& layout, int dim) {
  Layout::WarpSplit split;
  if (!layout.split_at_warps(dim, &split)) return false;
  for (const Layout::ThreadSpan& s : split.lanes)
    if (s.size & (s.size - 1)) return false;
  return true;
}

}  // namespace

void layout_rule_Reduce(LayoutRules& r, const ir::ReduceNode& n) {
  const std::string op = ir::reduction_name(n);
  const int in = r.index(n.a);
  const int out = r.define(n.out, op);
  r.constraints.reductions.push_back({in, out, n.dim, op, n.loc});
  if (n.position) r.same(out, r.define(n.position, op));
  if (reducible(coalescing_default(n.a), n.dim)) return;
  r.constraints.preferred.push_back({line_layout(n.a->shape(), n.a->threads, n.dim), in,
                                     fmt::format("gets the layout of a reduction over dim {} from", n.dim), op, n.loc});
}

void layout_rule_Scan(LayoutRules& r, const ir::ScanNode& n) {
  const std::string op = fmt::format("cum{}", ir::op_name(n.op));
  const int in = r.index(n.a);
  r.same(in, r.define(n.out, op));
  // The default stands where it walks the dimension and holds each element once.
  const Layout fallback = coalescing_default(n.a);
  Layout::ScanOrder order;
  if (fallback.scan_order(n.dim, &order) &&
      int64_t(fallback.num_threads()) * fallback.local_size() == fallback.num_elements())
    return;
  r.constraints.preferred.push_back({line_layout(n.a->shape(), n.a->threads, n.dim), in,
                                     fmt::format("gets the layout of a scan over dim {} from", n.dim), op, n.loc});
}

}  // namespace tessel::passes
