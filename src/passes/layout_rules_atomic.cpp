// Layout rules of the atomics: a tile atomic's old values come back in the layout of its values,
// and a compare-and-exchange's expected values and a scatter's positions share it; where no rule
// fixes it, that layout holds each element in one thread.
#include <algorithm>
#include <functional>
#include <numeric>

#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_AtomicScalar(LayoutRules&, const ir::AtomicScalarNode&) {}

void layout_rule_AtomicTensor(LayoutRules& r, const ir::AtomicTensorNode& n) {
  const int values = r.index(n.value);
  if (n.compare) r.same(values, r.index(n.compare));
  if (n.index) r.same(values, r.index(n.index));
  if (!n.out) return;
  const std::string op = fmt::format("atomic.{}fetch_{}", n.index ? "scatter_" : "", ir::atomic_op_name(n.op));
  r.same(values, r.define(n.out, op));
  // Each old value comes back to the one thread that added: runs of consecutive elements as the
  // coalescing default has them, shortened until every thread holds elements of its own.
  const ir::RegisterTensor& v = n.value;
  const Layout fallback = coalescing_default(v);
  if (int64_t(fallback.num_threads()) * fallback.local_size() == fallback.num_elements()) return;  // no copies
  const int elements = std::accumulate(v->shape().begin(), v->shape().end(), 1, std::multiplies<>());
  int run = 16 / std::max(1, dtype_bytes(v->dtype));
  while (run > 1 && elements / run < v->threads) run /= 2;
  r.constraints.preferred.push_back({Layout::distributed_runs(v->shape(), v->threads, run), values,
                                     "gets one thread for each element from", op, n.loc});
}

}  // namespace tessel::passes
