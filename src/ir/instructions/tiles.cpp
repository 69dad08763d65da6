// Verifier rules and effects (tessel/ir/effects.hpp) of the register-tile instructions: creation,
// elementwise math, casts, bitcasts, index tiles, copies, slices and regroupings.
#include "tessel/ir/evaluate.hpp"
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
  TESSEL_CHECK(!n.saturate || saturates_to(n.out->dtype), "saturating cast at {} to {}", n.loc.str(),
               dtype_name(n.out->dtype));
  TESSEL_CHECK(n.rounding.has_value() == (n.out->dtype == DType::E8M0 && n.a->dtype != DType::E8M0),
               "cast at {} from {} to {} with{} a rounding", n.loc.str(), dtype_name(n.a->dtype),
               dtype_name(n.out->dtype), n.rounding ? "" : "out");
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

void verify_TileElement(Verification& v, const TileElementNode& n) {
  const Layout& layout = n.a->layout;
  bool everywhere = layout.num_elements() == 1 && layout.local_size() == 1;
  const std::vector<int> origin(size_t(layout.rank()), 0);
  for (int t = 0, slot = 0; everywhere && t < layout.num_threads(); ++t) everywhere = layout.holds(t, origin, &slot);
  TESSEL_CHECK(everywhere && n.result->type == Type{n.a->dtype},
               "item at {} reads a tile that not every thread holds as its one {} element", n.loc.str(),
               dtype_name(n.a->dtype));
  v.use(n.a, n);
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

DType printed_type(DType t) { return !is_packed(t) ? t : is_float(t) ? DType::F32 : DType::I32; }

std::string shared_print_header(const SharedTensorNode& s) {
  const std::string swizzle = s.swizzle_bits > 0 ? fmt::format(" swizzle {}B", 16 << s.swizzle_bits) : "";
  return fmt::format("shared<{}>[{}] strides [{}]{}", dtype_name(s.dtype), fmt::join(s.shape, ", "),
                     fmt::join(s.strides, ", "), swizzle);
}

std::string_view regroup_name(Regroup r) {
  switch (r) {
    case Regroup::Reshape: return "reshape";
    case Regroup::Permute: return "permute";
    case Regroup::Concat: return "concat";
    case Regroup::Interleave: return "interleave";
  }
  return "?";
}

std::pair<int, std::vector<int>> RegroupRegistersNode::source(const std::vector<int>& out_coords) const {
  std::vector<int> c = out_coords;
  const std::vector<int>& in = a->shape();
  switch (regroup) {
    case Regroup::Reshape: {
      int64_t index = 0;
      for (size_t d = 0; d < c.size(); ++d) index = index * out->shape()[d] + c[d];
      std::vector<int> from(in.size());
      for (size_t d = in.size(); d-- > 0;) {
        from[d] = int(index % in[d]);
        index /= in[d];
      }
      return {0, from};
    }
    case Regroup::Permute:
      for (size_t i = 0; i < dims.size(); ++i) c[size_t(dims[i])] = out_coords[i];
      return {0, c};
    case Regroup::Concat: {
      const int d = dims[0], which = c[size_t(d)] / in[size_t(d)];
      c[size_t(d)] %= in[size_t(d)];
      return {which, c};
    }
    case Regroup::Interleave: {
      const int d = dims[0], which = c[size_t(d)] % 2;
      c[size_t(d)] /= 2;
      return {which, c};
    }
  }
  return {0, c};
}

std::vector<std::pair<int, int>> regroup_registers(const RegroupRegistersNode& n) {
  const Layout& out = n.out->layout;
  std::vector<std::pair<int, int>> slots(size_t(out.local_size()), {-1, -1});
  for (int t = 0; t < out.num_threads(); ++t)
    for (int l = 0; l < out.local_size(); ++l) {
      const auto [which, coords] = n.source(out.coords(t, l));
      int slot = -1;
      const RegisterTensor& operand = which == 0 ? n.a : n.b;
      if (!operand->layout.holds(t, coords, &slot) ||
          (slots[size_t(l)].first >= 0 && slots[size_t(l)] != std::pair{which, slot}))
        throw Error(n.loc, fmt::format("{}: the result's layout {} does not keep each element in the thread and "
                                       "register order of its operand's layout {}; give the operand a layout the "
                                       "regrouping keeps in its threads",
                                       regroup_name(n.regroup), out.str(), operand->layout.str()));
      slots[size_t(l)] = {which, slot};
    }
  return slots;
}

void verify_RegroupRegisters(Verification& v, const RegroupRegistersNode& n) {
  int64_t in = 1, out = 1;
  for (int e : n.a->shape()) in *= e;
  for (int e : n.out->shape()) out *= e;
  const bool pair = n.regroup == Regroup::Concat || n.regroup == Regroup::Interleave;
  TESSEL_CHECK(n.out->dtype == n.a->dtype &&
                   (pair ? n.b && n.b->shape() == n.a->shape() && n.b->dtype == n.a->dtype : !n.b) &&
                   out == (pair ? 2 * in : in),
               "{} at {} does not regroup its operands' elements", regroup_name(n.regroup), n.loc.str());
  v.use(n.a, n);
  if (n.b) v.use(n.b, n);
  v.define(n.out, n);
}

void verify_AnnotateLayout(Verification& v, const AnnotateLayoutNode& n) { v.use(n.tile, n); }

// A tile is printed from a gathering scratch of its elements, at the barrier of its group.
void verify_PrintTensor(Verification& v, const PrintTensorNode& n) {
  if (n.scratch) {
    TESSEL_CHECK(!n.scratch->root && n.scratch->dtype == printed_type(n.tensor->dtype) &&
                     n.scratch->nbytes() * 8 == int64_t(n.tensor->layout.num_elements()) * dtype_bits(n.scratch->dtype),
                 "the scratch of the print at {} does not hold its tile", n.loc.str());
    check_group_barrier(v, n.barrier, n);
  }
  TESSEL_CHECK(n.memory == "reg" || n.memory == "tmem", "print at {} of a tile from memory \"{}\"", n.loc.str(),
               n.memory);
  v.use(n.tensor, n);
}

void verify_PrintShared(Verification&, const PrintSharedNode& n) {
  TESSEL_CHECK(n.tensor->rank() > 0, "print at {} of a shared tile without dimensions", n.loc.str());
}

void verify_PrintValues(Verification&, const PrintValuesNode& n) {
  size_t holes = 0;
  for (size_t at = n.format.find("{}"); at != std::string::npos; at = n.format.find("{}", at + 2)) ++holes;
  TESSEL_CHECK(holes == n.values.size(), "print at {} has {} values for {} places", n.loc.str(), n.values.size(),
               holes);
}

// ---- effects ----

Effects effects_of(const AllocRegisterNode&) { return {}; }
Effects effects_of(const ElementwiseBinaryNode&) { return {}; }
Effects effects_of(const ElementwiseUnaryNode&) { return {}; }
Effects effects_of(const WhereNode&) { return {}; }
Effects effects_of(const FmaNode&) { return {}; }
Effects effects_of(const CastTensorNode&) { return {}; }
Effects effects_of(const BitcastTensorNode&) { return {}; }
Effects effects_of(const IotaNode&) { return {}; }
Effects effects_of(const TileElementNode&) { return {}; }
Effects effects_of(const CopyRegisterNode&) { return {}; }
Effects effects_of(const SliceRegisterNode&) { return {}; }
Effects effects_of(const RegroupRegistersNode&) { return {}; }
Effects effects_of(const AnnotateLayoutNode&) { return {}; }
Effects effects_of(const PrintTensorNode&) { return {}; }
Effects effects_of(const PrintSharedNode&) { return {}; }
Effects effects_of(const PrintValuesNode&) { return {}; }

}  // namespace tessel::ir
