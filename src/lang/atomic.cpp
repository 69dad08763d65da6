// The atomic instruction group: the checks a user can fail at trace time (element types, orders,
// shapes), and the AtomicScalar and AtomicTensor instructions.
#include "tessel/lang/atomic.hpp"

#include "memory_model.hpp"
#include "tile_tracing.hpp"

namespace tessel {

using detail::check_group;
using detail::exprs_of;
using detail::new_tile;

namespace {

// By default an atomic is atomic with every thread that can reach its memory: the GPU's for global
// memory, the cluster's for another block's shared tile, the block's for its own.
ir::MemoryScope ir_scope(std::optional<MemoryScope> s, const AtomicTarget& dst) {
  if (!s) return dst.global ? ir::MemoryScope::Gpu : dst.rank ? ir::MemoryScope::Cluster : ir::MemoryScope::Cta;
  return detail::ir_memory_scope(*s);
}

// The element types PTX has each operation for (atom, red, ld, st).
bool supported(ir::AtomicOp op, DType t) {
  switch (op) {
    case ir::AtomicOp::Add:
      return t == DType::I32 || t == DType::U32 || t == DType::U64 || t == DType::F32 || t == DType::F64 ||
             t == DType::F16 || t == DType::BF16;
    case ir::AtomicOp::Min:
    case ir::AtomicOp::Max: return t == DType::I32 || t == DType::U32 || t == DType::I64 || t == DType::U64;
    case ir::AtomicOp::And:
    case ir::AtomicOp::Or:
    case ir::AtomicOp::Xor: return t == DType::I32 || t == DType::U32 || t == DType::I64 || t == DType::U64;
    case ir::AtomicOp::Exchange:
    case ir::AtomicOp::CompareExchange:
    case ir::AtomicOp::Load:
    case ir::AtomicOp::Store:
      return t == DType::I32 || t == DType::U32 || t == DType::I64 || t == DType::U64 || t == DType::F32 ||
             t == DType::F64;
  }
  return false;
}

std::string_view supported_types(ir::AtomicOp op) {
  switch (op) {
    case ir::AtomicOp::Add: return "i32, u32, u64, f32, f64, f16 and bf16";
    case ir::AtomicOp::Min:
    case ir::AtomicOp::Max:
    case ir::AtomicOp::And:
    case ir::AtomicOp::Or:
    case ir::AtomicOp::Xor: return "i32, u32, i64 and u64";
    default: return "i32, u32, i64, u64, f32 and f64";
  }
}

void check_order(ir::AtomicOp op, bool result, MemoryOrder order, const std::string& what, const SourceLoc& loc) {
  const bool acquires = order == MemoryOrder::acquire || order == MemoryOrder::acq_rel;
  const bool releases = order == MemoryOrder::release || order == MemoryOrder::acq_rel;
  if (op == ir::AtomicOp::Load && releases)
    throw Error(loc, fmt::format("{}: a load cannot release (order {}); a load is relaxed or acquire", what,
                                 ir::memory_order_name(detail::ir_memory_order(order))));
  if (op == ir::AtomicOp::Store && acquires)
    throw Error(loc, fmt::format("{}: a store cannot acquire (order {}); a store is relaxed or release", what,
                                 ir::memory_order_name(detail::ir_memory_order(order))));
  if (op != ir::AtomicOp::Load && op != ir::AtomicOp::Store && !result && acquires)
    throw Error(loc, fmt::format("{}: an atomic whose old value is not returned reads nothing to acquire (order {}); "
                                 "use fetch_{} to acquire, or order relaxed or release",
                                 what, ir::memory_order_name(detail::ir_memory_order(order)), ir::atomic_op_name(op)));
}

void check_target(ir::AtomicOp op, const AtomicTarget& dst, const std::string& what, const SourceLoc& loc) {
  if (!supported(op, dst.dtype()))
    throw Error(loc, fmt::format("{}: no atomic {} on {} elements; PTX has it for {}", what, ir::atomic_op_name(op),
                                 dtype_name(dst.dtype()), supported_types(op)));
}

std::string target_name(const AtomicTarget& dst) {
  if (dst.global) return "the global view";
  return fmt::format("{}the shared tensor allocated at {}", dst.rank ? "another block's copy of " : "",
                     dst.shared->allocation()->loc.str());
}

// A tile's elements go into memory of their own type.
void check_values(const RegisterTensor& values, const AtomicTarget& dst, const std::string& what,
                  const SourceLoc& loc) {
  if (values.dtype() != dst.dtype())
    throw Error(
        loc, fmt::format("{}: a tile of {} into {} of {}; convert it with .to<{}>()", what, dtype_name(values.dtype()),
                         target_name(dst), dtype_name(dst.dtype()), dtype_name(dst.dtype())));
}

}  // namespace

ir::Expr AtomicInstructions::scalar_atomic(ir::AtomicOp op, const AtomicTarget& dst, std::vector<Dim> index,
                                           ir::Expr value, ir::Expr compare, DType value_type, bool result,
                                           MemoryOrder order, Scope scope, const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  const std::string what = ir::atomic_call_name(op, result);
  check_target(op, dst, what, loc);
  check_order(op, result, order, what, loc);
  if (value_type != dst.dtype())
    throw Error(loc, fmt::format("{}: {} holds {} but the {} is {}; pass a value of {}", what, target_name(dst),
                                 dtype_name(dst.dtype()), op == ir::AtomicOp::Load ? "requested type" : "value",
                                 dtype_name(value_type), dtype_name(dst.dtype())));
  const int rank = dst.global ? dst.global->rank() : dst.shared->rank();
  if (int(index.size()) != rank)
    throw Error(loc, fmt::format("{}: {} index values for {} of rank {}", what, index.size(), target_name(dst), rank));
  ir::Var old;
  if (result) {
    old = ir::make_var(ir::Type{dst.dtype()}, "old", loc);
    b.emit(ir::make<ir::DeclareNode>(
        loc, old, is_float(dst.dtype()) ? ir::const_float(0, dst.dtype()) : ir::const_int(0, dst.dtype())));
  }
  b.emit(ir::make<ir::AtomicScalarNode>(loc, old, op, dst.global, dst.shared, exprs_of(index), std::move(value),
                                        std::move(compare), detail::ir_memory_order(order), ir_scope(scope, dst),
                                        dst.rank));
  if (old) return old;
  return ir::const_int(0);
}

RegisterTensor AtomicInstructions::tile_atomic(ir::AtomicOp op, const AtomicTarget& dst, const RegisterTensor& values,
                                               const RegisterTensor* expected, std::vector<Dim> offsets, bool result,
                                               MemoryOrder order, Scope scope, const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  const std::string what = ir::atomic_call_name(op, result);
  check_group(values.ir(), what, loc);
  check_target(op, dst, what, loc);
  check_order(op, result, order, what, loc);
  check_values(values, dst, what, loc);
  const int rank = dst.global ? dst.global->rank() : dst.shared->rank();
  if (int(values.shape().size()) != rank || int(offsets.size()) != rank)
    throw Error(loc, fmt::format("{}: a tile of rank {} at {} offsets into {} of rank {}; give a tile of rank {} and "
                                 "{} offsets",
                                 what, values.shape().size(), offsets.size(), target_name(dst), rank, rank, rank));
  if (dst.shared)
    for (int d = 0; d < rank; ++d)
      if (offsets[d].is_constant() &&
          (offsets[d].value() < 0 || offsets[d].value() + values.shape()[d] > dst.shared->shape[d]))
        throw Error(loc, fmt::format("{}: the tile [{}] at offset {} of dim {} exceeds {}'s shape [{}]", what,
                                     fmt::join(values.shape(), ", "), offsets[d].value(), d, target_name(dst),
                                     fmt::join(dst.shared->shape, ", ")));
  ir::RegisterTensor compare;
  if (expected) {
    check_group(expected->ir(), what, loc);
    if (expected->dtype() != values.dtype() || expected->shape() != values.shape())
      throw Error(loc, fmt::format("{}: expected is a [{}] tile of {} but desired a [{}] tile of {}", what,
                                   fmt::join(expected->shape(), ", "), dtype_name(expected->dtype()),
                                   fmt::join(values.shape(), ", "), dtype_name(values.dtype())));
    compare = expected->ir();
  }
  ir::RegisterTensor out = result ? new_tile(dst.dtype(), values.shape(), Layout(), "old", loc) : nullptr;
  b.emit(ir::make<ir::AtomicTensorNode>(loc, out, op, dst.global, dst.shared, exprs_of(offsets), values.ir(), compare,
                                        detail::ir_memory_order(order), ir_scope(scope, dst), nullptr, dst.rank));
  return out ? RegisterTensor(out) : RegisterTensor();
}

RegisterTensor AtomicInstructions::scatter_atomic(ir::AtomicOp op, const AtomicTarget& dst,
                                                  const RegisterTensor& positions, const RegisterTensor& values,
                                                  bool result, MemoryOrder order, Scope scope, const SourceLoc& loc) {
  Builder& b = Builder::current(loc);
  const std::string what = ir::atomic_call_name(op, result, true);
  check_group(values.ir(), what, loc);
  check_group(positions.ir(), what, loc);
  check_target(op, dst, what, loc);
  check_order(op, result, order, what, loc);
  check_values(values, dst, what, loc);
  const int rank = dst.global ? dst.global->rank() : dst.shared->rank();
  if (rank != 1)
    throw Error(loc, fmt::format("{}: positions address a target of rank 1, but {} has rank {}; view its elements "
                                 "as one dimension{}",
                                 what, target_name(dst), rank, dst.global ? " (global_view(ptr, {size}))" : ""));
  const DType p = positions.dtype();
  if (!is_byte_addressed_integer(p))
    throw Error(loc, fmt::format("{}: positions are an integer tile, got {}; convert them with .to<int32_t>()", what,
                                 dtype_name(p)));
  if (positions.shape() != values.shape())
    throw Error(loc, fmt::format("{}: positions [{}] for values [{}]; give one position per value", what,
                                 fmt::join(positions.shape(), ", "), fmt::join(values.shape(), ", ")));
  ir::RegisterTensor out = result ? new_tile(dst.dtype(), values.shape(), Layout(), "old", loc) : nullptr;
  b.emit(ir::make<ir::AtomicTensorNode>(loc, out, op, dst.global, dst.shared, std::vector<ir::Expr>{ir::const_int(0)},
                                        values.ir(), nullptr, detail::ir_memory_order(order), ir_scope(scope, dst),
                                        positions.ir(), dst.rank));
  return out ? RegisterTensor(out) : RegisterTensor();
}

void AtomicInstructions::scatter_add(const AtomicTarget& dst, const RegisterTensor& positions,
                                     const RegisterTensor& values, MemoryOrder order, Scope scope, loc_t l) {
  scatter_atomic(ir::AtomicOp::Add, dst, positions, values, false, order, scope, SourceLoc::from(l));
}

void AtomicInstructions::scatter_min(const AtomicTarget& dst, const RegisterTensor& positions,
                                     const RegisterTensor& values, MemoryOrder order, Scope scope, loc_t l) {
  scatter_atomic(ir::AtomicOp::Min, dst, positions, values, false, order, scope, SourceLoc::from(l));
}

void AtomicInstructions::scatter_max(const AtomicTarget& dst, const RegisterTensor& positions,
                                     const RegisterTensor& values, MemoryOrder order, Scope scope, loc_t l) {
  scatter_atomic(ir::AtomicOp::Max, dst, positions, values, false, order, scope, SourceLoc::from(l));
}

RegisterTensor AtomicInstructions::scatter_fetch_add(const AtomicTarget& dst, const RegisterTensor& positions,
                                                     const RegisterTensor& values, MemoryOrder order, Scope scope,
                                                     loc_t l) {
  return scatter_atomic(ir::AtomicOp::Add, dst, positions, values, true, order, scope, SourceLoc::from(l));
}

void AtomicInstructions::add(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                             MemoryOrder order, Scope scope, loc_t l) {
  tile_atomic(ir::AtomicOp::Add, dst, values, nullptr, std::move(offsets), false, order, scope, SourceLoc::from(l));
}

RegisterTensor AtomicInstructions::fetch_add(const AtomicTarget& dst, const RegisterTensor& values,
                                             std::vector<Dim> offsets, MemoryOrder order, Scope scope, loc_t l) {
  return tile_atomic(ir::AtomicOp::Add, dst, values, nullptr, std::move(offsets), true, order, scope,
                     SourceLoc::from(l));
}

void AtomicInstructions::min(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                             MemoryOrder order, Scope scope, loc_t l) {
  tile_atomic(ir::AtomicOp::Min, dst, values, nullptr, std::move(offsets), false, order, scope, SourceLoc::from(l));
}

RegisterTensor AtomicInstructions::fetch_min(const AtomicTarget& dst, const RegisterTensor& values,
                                             std::vector<Dim> offsets, MemoryOrder order, Scope scope, loc_t l) {
  return tile_atomic(ir::AtomicOp::Min, dst, values, nullptr, std::move(offsets), true, order, scope,
                     SourceLoc::from(l));
}

void AtomicInstructions::max(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                             MemoryOrder order, Scope scope, loc_t l) {
  tile_atomic(ir::AtomicOp::Max, dst, values, nullptr, std::move(offsets), false, order, scope, SourceLoc::from(l));
}

RegisterTensor AtomicInstructions::fetch_max(const AtomicTarget& dst, const RegisterTensor& values,
                                             std::vector<Dim> offsets, MemoryOrder order, Scope scope, loc_t l) {
  return tile_atomic(ir::AtomicOp::Max, dst, values, nullptr, std::move(offsets), true, order, scope,
                     SourceLoc::from(l));
}

void AtomicInstructions::bit_and(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                                 MemoryOrder order, Scope scope, loc_t l) {
  tile_atomic(ir::AtomicOp::And, dst, values, nullptr, std::move(offsets), false, order, scope, SourceLoc::from(l));
}

void AtomicInstructions::bit_or(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                                MemoryOrder order, Scope scope, loc_t l) {
  tile_atomic(ir::AtomicOp::Or, dst, values, nullptr, std::move(offsets), false, order, scope, SourceLoc::from(l));
}

void AtomicInstructions::bit_xor(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                                 MemoryOrder order, Scope scope, loc_t l) {
  tile_atomic(ir::AtomicOp::Xor, dst, values, nullptr, std::move(offsets), false, order, scope, SourceLoc::from(l));
}

RegisterTensor AtomicInstructions::exchange(const AtomicTarget& dst, const RegisterTensor& values,
                                            std::vector<Dim> offsets, MemoryOrder order, Scope scope, loc_t l) {
  return tile_atomic(ir::AtomicOp::Exchange, dst, values, nullptr, std::move(offsets), true, order, scope,
                     SourceLoc::from(l));
}

RegisterTensor AtomicInstructions::compare_exchange(const AtomicTarget& dst, const RegisterTensor& expected,
                                                    const RegisterTensor& desired, std::vector<Dim> offsets,
                                                    MemoryOrder order, Scope scope, loc_t l) {
  return tile_atomic(ir::AtomicOp::CompareExchange, dst, desired, &expected, std::move(offsets), true, order, scope,
                     SourceLoc::from(l));
}

}  // namespace tessel
