#include "tessel/ir/mma_operand.hpp"

namespace tessel::ir {

int64_t MmaOperand::element(int r, int kk) const {
  if (!mn_major) return int64_t(r) * row_stride + kk;
  return int64_t(r / block) * block_stride + r % block + int64_t(kk) * row_stride;
}

int64_t MmaOperand::extent() const {
  if (!mn_major) return int64_t(mn - 1) * row_stride + k;
  return int64_t((mn - 1) / block) * block_stride + int64_t(k - 1) * row_stride + block;
}

MmaOperand mma_operand(const SharedTensorNode& t, int k_dim) {
  const int bits = t.slot_bits();
  MmaOperand o;
  if (t.rank() == 3) {
    o.mn_major = true;
    o.block = t.shape[2];
    o.mn = t.shape[0] * t.shape[2];
    o.k = t.shape[1];
    o.row_bytes = t.strides[2] == 1 ? t.shape[2] * bits / 8 : -1;
    o.block_stride = t.shape[0] > 1 ? t.strides[0] : 0;
    o.row_stride = t.strides[1];
    return o;
  }
  const int mn_dim = 1 - k_dim;
  o.mn = t.shape[size_t(mn_dim)];
  o.k = t.shape[size_t(k_dim)];
  o.mn_major = t.strides[size_t(mn_dim)] == 1 && o.mn > 1;
  o.row_stride = t.strides[size_t(o.mn_major ? k_dim : mn_dim)];
  o.block = o.mn;
  o.row_bytes = o.mn_major ? o.mn * bits / 8 : t.strides[size_t(k_dim)] == 1 ? o.k * bits / 8 : -1;
  return o;
}

}  // namespace tessel::ir
