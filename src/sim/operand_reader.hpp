// Reading an operand of a tile instruction element by element: a scalar's value, or the tile's
// register that each slot of the result broadcasts from (exec_tiles.cpp, and the indices of
// gathers and scatters in exec_memory.cpp).
#pragma once

#include "machine.hpp"

namespace tessel::sim {

// The value of operand `o` for slot `l` of `out` in `lane`.
class OperandReader {
 public:
  OperandReader(Warp& w, const ir::Operand& o, const ir::RegisterTensorNode* out, Mask mask) : w_(w), o_(o) {
    if (o.scalar) {
      scalar_ = w.eval(o.scalar, mask);
    } else {
      values_ = &w.tile(o.tensor.get());
      local_ = o.tensor->layout.local_size();
      out_local_ = out->layout.local_size();
      if (!(o.tensor->layout == out->layout)) slots_ = &w.cta.tables.broadcast(o.tensor.get(), out);
    }
  }
  ir::Scalar operator()(int lane, int l) const {
    if (o_.scalar) return scalar_[lane];
    const int t = w_.thread_in_group(lane);
    const int slot = slots_ ? (*slots_)[size_t(t) * out_local_ + l] : l;
    return (*values_)[size_t(lane) * local_ + slot];
  }
  DType dtype() const { return o_.dtype(); }

 private:
  Warp& w_;
  const ir::Operand& o_;
  Lanes scalar_{};
  std::vector<ir::Scalar>* values_ = nullptr;
  const std::vector<int>* slots_ = nullptr;
  int local_ = 0, out_local_ = 0;
};

}  // namespace tessel::sim
