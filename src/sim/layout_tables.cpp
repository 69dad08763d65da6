#include <algorithm>

#include "machine.hpp"

namespace tessel::sim {

const std::vector<int>& LayoutTables::coords(const ir::RegisterTensorNode* t) {
  auto [it, fresh] = coords_.try_emplace(t);
  if (fresh) {
    const Layout& lay = t->layout;
    auto& v = it->second;
    v.reserve(size_t(lay.num_threads()) * lay.local_size() * lay.rank());
    for (int th = 0; th < lay.num_threads(); ++th)
      for (int l = 0; l < lay.local_size(); ++l)
        for (int c : lay.coords(th, l)) v.push_back(c);
  }
  return it->second;
}

const std::vector<int>& LayoutTables::broadcast(const ir::RegisterTensorNode* operand,
                                                const ir::RegisterTensorNode* out) {
  auto [it, fresh] = broadcast_.try_emplace({operand, out});
  if (fresh) {
    const Layout& in = operand->layout;
    const Layout& o = out->layout;
    auto& v = it->second;
    for (int th = 0; th < o.num_threads(); ++th)
      for (int l = 0; l < o.local_size(); ++l) {
        std::vector<int> c = o.coords(th, l);
        for (int d = 0; d < in.rank(); ++d)
          if (in.shape()[d] == 1) c[d] = 0;
        int slot = 0;
        TESSEL_CHECK(in.holds(th, c, &slot), "operand {} lacks an element for thread {}", operand->name, th);
        v.push_back(slot);
      }
  }
  return it->second;
}

const std::vector<int>& LayoutTables::slice(const ir::SliceRegisterNode& n) {
  auto [it, fresh] = slice_.try_emplace(&n);
  if (fresh) it->second = n.src->layout.slice_registers(n.offsets, n.out->layout);
  return it->second;
}

const std::vector<std::pair<int, int>>& LayoutTables::regroup(const ir::RegroupRegistersNode& n) {
  auto [it, fresh] = regroup_.try_emplace(&n);
  if (fresh) it->second = ir::regroup_registers(n);
  return it->second;
}

const std::vector<ir::RelayoutSource>& LayoutTables::relayout(const ir::RelayoutNode* n) {
  auto [it, fresh] = relayout_.try_emplace(n);
  if (fresh) {
    std::optional<std::vector<ir::RelayoutSource>> sources = ir::shuffle_sources(*n);
    TESSEL_CHECK(sources, "convert_layout at {} across warps reached the simulator without its scratch", n->loc.str());
    it->second = std::move(*sources);
  }
  return it->second;
}

int LayoutTables::warps_with_copies(const ir::RegisterTensorNode* t) {
  auto [it, fresh] = warps_with_copies_.try_emplace(t);
  if (fresh) {
    std::vector<int> threads = {0};
    for (const Layout::ThreadSpan& span : t->layout.replica_spans()) {
      std::vector<int> more;
      for (int thread : threads)
        for (int i = 0; i < span.size; ++i) more.push_back(thread + i * span.stride);
      threads = std::move(more);
    }
    std::vector<int> warps;
    for (int thread : threads) warps.push_back(thread / 32);
    std::ranges::sort(warps);
    it->second = int(std::ranges::unique(warps).begin() - warps.begin());
  }
  return it->second;
}

}  // namespace tessel::sim
