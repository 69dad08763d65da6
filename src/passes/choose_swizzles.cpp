// choose_swizzles: decides the swizzle of every shared tile created without a Swizzle argument.
// A tile that a tensor core reads (wgmma.mma, tcgen05.mma, tcgen05.copy: their effects say so)
// gets the pattern whose span is its row (32, 64 or 128 bytes), the canonical K-major layout its
// matrix descriptor describes; every writer then writes that image.
// Otherwise a tile is swizzled, with the smallest conflict-free pattern, when select_instructions
// chose ldmatrix to read it or stmatrix to write it and its rows make those 8-row accesses
// conflict without one; the pattern needs rows of whole 16-byte chunks and whole 128-byte lines.
// Otherwise it stays unswizzled. A tile that TMA moves needs a pattern whose span holds the box's
// rows, so a narrower choice is dropped (8-row accesses conflict rather than TMA refusing the tile).
// Every view of a decided tile is rewritten with the allocation's pattern.
#include <algorithm>
#include <map>
#include <set>

#include "tessel/ir/effects.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/layout/shared_swizzle.hpp"
#include "tessel/layout/wgmma_descriptor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

int chosen_bits(const ir::SharedTensorNode& t, bool accessed_by_rows) {
  const int row_bytes = t.shape.back() * dtype_bits(t.dtype) / 8;
  if (!accessed_by_rows || row_bytes % 16 != 0 || t.nbytes() % 128 != 0) return 0;
  for (int chunk = 0; chunk * 16 < row_bytes; ++chunk)
    if (bank_groups_touched(row_bytes, 0, chunk) < 8) return conflict_free_swizzle_bits(row_bytes);
  return 0;
}

// Rewrites each decided allocation; the mutator rewrites its views to follow it.
class ApplySwizzles : public ir::Mutator {
 public:
  explicit ApplySwizzles(std::map<const ir::SharedTensorNode*, int> bits) : bits_(std::move(bits)) {}

 protected:
  ir::SharedTensor visit(const ir::SharedTensorNode& n, const ir::SharedTensor& self) override {
    if (n.root) return ir::Mutator::visit(n, self);
    auto it = bits_.find(&n);
    if (it == bits_.end()) return self;
    ir::SharedTensorNode decided = n;
    decided.swizzle_bits = it->second;
    return ir::make<ir::SharedTensorNode>(std::move(decided));
  }

 private:
  std::map<const ir::SharedTensorNode*, int> bits_;
};

}  // namespace

ir::Kernel choose_swizzles(const ir::Kernel& k, const PassContext&) {
  std::vector<const ir::SharedTensorNode*> undecided;
  std::set<const ir::SharedTensorNode*> accessed_by_rows;
  std::map<const ir::SharedTensorNode*, int> read_by_tensor_core;  // by wgmma or tcgen05.mma: the swizzle its rows need
  std::map<const ir::SharedTensorNode*, int64_t> tma_row_bytes;    // the widest box row TMA moves
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    const ir::Effects e = ir::effects(s);
    if (e.shared_allocated && e.shared_allocated->swizzle_bits == ir::kSwizzleUndecided)
      undecided.push_back(e.shared_allocated);
    accessed_by_rows.insert(e.row_accesses.begin(), e.row_accesses.end());
    for (const ir::TensorCoreRead& read : e.tensor_core_reads) read_by_tensor_core[read.tile] = read.swizzle_bits;
    for (const ir::TmaRows& rows : e.tma_rows)
      tma_row_bytes[rows.tile] = std::max(tma_row_bytes[rows.tile], rows.row_bytes);
  });
  if (undecided.empty()) return k;
  std::map<const ir::SharedTensorNode*, int> bits;
  for (const ir::SharedTensorNode* t : undecided) {
    auto wgmma = read_by_tensor_core.find(t);
    if (wgmma != read_by_tensor_core.end()) {
      bits[t] = wgmma->second;
      continue;
    }
    auto tma = tma_row_bytes.find(t);
    const int by_rows = chosen_bits(*t, accessed_by_rows.count(t) > 0);
    bits[t] = tma != tma_row_bytes.end() && tma->second > (16 << by_rows) ? 0 : by_rows;
  }
  return ir::with_body(k, ApplySwizzles(std::move(bits)).mutate(k->body));
}

}  // namespace tessel::passes
