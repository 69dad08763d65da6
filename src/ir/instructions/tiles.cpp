// Verifier rules and effects (tessel/ir/effects.hpp) of the register-tile instructions: creation,
// elementwise math, casts, bitcasts, index tiles, copies.
#include "verification.hpp"

namespace tessel::ir {

void verify_AllocRegister(Verification& v, const AllocRegisterNode& n) { v.define(n.out, n); }

void verify_ElementwiseBinary(Verification& v, const ElementwiseBinaryNode& n) {
  v.use(n.a, n);
  v.use(n.b, n);
  v.define(n.out, n);
}

void verify_ElementwiseUnary(Verification& v, const ElementwiseUnaryNode& n) {
  v.use(n.a, n);
  v.define(n.out, n);
}

void verify_Where(Verification& v, const WhereNode& n) {
  v.use(n.cond, n);
  v.use(n.a, n);
  v.use(n.b, n);
  v.define(n.out, n);
}

void verify_Fma(Verification& v, const FmaNode& n) {
  v.use(n.a, n);
  v.use(n.b, n);
  v.use(n.c, n);
  v.define(n.out, n);
}

void verify_CastTensor(Verification& v, const CastTensorNode& n) {
  v.use(n.a, n);
  v.define(n.out, n);
}

// The bits of a row stay in order: a bitcast between widths regroups its last dimension.
void verify_BitcastTensor(Verification& v, const BitcastTensorNode& n) {
  const auto &in = n.a->shape(), &out = n.out->shape();
  bool regrouped = in.size() == out.size() && !in.empty() &&
                   int64_t(in.back()) * dtype_bits(n.a->dtype) == int64_t(out.back()) * dtype_bits(n.out->dtype);
  for (size_t d = 0; regrouped && d + 1 < in.size(); ++d) regrouped = in[d] == out[d];
  TESSEL_CHECK(regrouped, "bitcast at {} does not keep the bits of each row of its tile", n.loc.str());
  v.use(n.a, n);
  v.define(n.out, n);
}

void verify_Iota(Verification& v, const IotaNode& n) {
  TESSEL_CHECK(n.out->dtype == DType::I32 && n.dim >= 0 && n.dim < int(n.out->shape().size()),
               "arange at {} is not an i32 tile indexed along one of its dimensions", n.loc.str());
  v.define(n.out, n);
}

void verify_CopyRegister(Verification& v, const CopyRegisterNode& n) {
  TESSEL_CHECK(n.dst->shape() == n.src->shape() && n.dst->dtype == n.src->dtype,
               "copy between tiles of other types at {}", n.loc.str());
  v.use(n.src, n);
  v.use(n.dst, n);
}

void verify_SliceRegister(Verification& v, const SliceRegisterNode& n) {
  const auto &in = n.src->shape(), &out = n.out->shape();
  bool inside = in.size() == out.size() && n.offsets.size() == in.size();
  for (size_t d = 0; inside && d < in.size(); ++d) inside = n.offsets[d] >= 0 && n.offsets[d] + out[d] <= in[d];
  TESSEL_CHECK(inside && n.out->dtype == n.src->dtype && n.out->threads == n.src->threads,
               "slice at {} is not a sub-tile of its source", n.loc.str());
  v.use(n.src, n);
  v.define(n.out, n);
}

void verify_AnnotateLayout(Verification& v, const AnnotateLayoutNode& n) { v.use(n.tile, n); }

void verify_PrintTensor(Verification& v, const PrintTensorNode& n) { v.use(n.tensor, n); }

// ---- effects ----

Effects effects_of(const AllocRegisterNode&) { return {}; }
Effects effects_of(const ElementwiseBinaryNode&) { return {}; }
Effects effects_of(const ElementwiseUnaryNode&) { return {}; }
Effects effects_of(const WhereNode&) { return {}; }
Effects effects_of(const FmaNode&) { return {}; }
Effects effects_of(const CastTensorNode&) { return {}; }
Effects effects_of(const BitcastTensorNode&) { return {}; }
Effects effects_of(const IotaNode&) { return {}; }
Effects effects_of(const CopyRegisterNode&) { return {}; }
Effects effects_of(const SliceRegisterNode&) { return {}; }
Effects effects_of(const AnnotateLayoutNode&) { return {}; }
Effects effects_of(const PrintTensorNode&) { return {}; }

}  // namespace tessel::ir
