// The atomic instruction group: read-modify-writes (add, min, max, bitwise and/or/xor, exchange,
// compare-and-exchange) and ordered loads and stores on global and shared memory, per element of
// a tile or per thread on one element, each with its memory order and scope (PTX ISA atom, red,
// ld/st.acquire/.release; docs/language.md, "Atomics").
#pragma once

#include <optional>
#include <source_location>
#include <vector>

#include "tessel/lang/memory_model.hpp"
#include "tessel/lang/tensors.hpp"

namespace tessel {

// Where an atomic acts: a global view, a shared tile, or another block's shared tile
// (tile.remote(rank), at cluster scope by default).
struct AtomicTarget {
  AtomicTarget(const GlobalTensor& g) : global(g.ir()) {}
  AtomicTarget(const SharedTensor& s) : shared(s.ir()) {}
  AtomicTarget(const RemoteSharedTensor& s) : shared(s.tile().ir()), rank(s.rank()) {}
  // A register tile is private to its threads: there is nothing for an atomic to share.
  template <class Never = void> AtomicTarget(const RegisterTensor&) {
    static_assert(detail::never<Never>,
                  "atomics act on memory that threads share: a global view (global_view) or a shared tile "
                  "(shared_tensor); a register tile is private to its threads: combine its elements with sum, max "
                  "or min, or give it as the values an atomic adds into a view");
  }
  ir::GlobalTensor global;
  ir::SharedTensor shared;
  ir::Expr rank;  // the block of the cluster whose `shared` it is; null for the block's own
  DType dtype() const { return global ? global->dtype : shared->dtype; }
};

namespace detail {
// The element type of an atomic's scalar value: a kernel value's, or a literal's (int, unsigned,
// int64_t, ..., float for floating-point literals).
template <class V> struct atomic_elem { using type = kernel_elem_t<V>; };
template <class V>
requires is_literal<V>
struct atomic_elem<V> {
  using type = std::conditional_t<std::is_floating_point_v<V>, float, std::remove_cvref_t<V>>;
};
template <class V> using atomic_elem_t = typename atomic_elem<std::remove_cvref_t<V>>::type;
}  // namespace detail

// The value of a scalar atomic: a kernel value or a C++ literal.
template <class V>
concept AtomicValue = detail::is_kernel_scalar<V> || detail::is_literal<V>;

class AtomicInstructions {
 public:
  using loc_t = std::source_location;
  using Scope = std::optional<MemoryScope>;

  // ---- tile forms: each element of `values` at its coordinates plus `offsets` of `dst` ----
  // Elements outside a global view are skipped; an element that several threads hold (a reduced
  // tile's replicas) is combined once. The plain forms discard the old values (red); the fetch_
  // forms return them, in the layout of `values`.
  void add(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
           MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  void min(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
           MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  void max(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
           MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  void bit_and(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
               MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  void bit_or(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
              MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  void bit_xor(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
               MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  RegisterTensor fetch_add(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                           MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  RegisterTensor fetch_min(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                           MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  RegisterTensor fetch_max(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                           MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  RegisterTensor exchange(const AtomicTarget& dst, const RegisterTensor& values, std::vector<Dim> offsets,
                          MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  // Stores `desired` where the element equals `expected`; returns the old values either way.
  RegisterTensor compare_exchange(const AtomicTarget& dst, const RegisterTensor& expected,
                                  const RegisterTensor& desired, std::vector<Dim> offsets,
                                  MemoryOrder order = MemoryOrder::relaxed, Scope scope = {},
                                  loc_t loc = loc_t::current());

  // ---- scatter forms: each element of `values` into the element of the rank-1 `dst` at its position ----
  // `positions` is an integer tile of the values' shape (in the same layout). Positions outside `dst`
  // are skipped, so -1 leaves an element out; elements that share a position are each combined by
  // an atomic of their own (a histogram, counts per expert).
  void scatter_add(const AtomicTarget& dst, const RegisterTensor& positions, const RegisterTensor& values,
                   MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  void scatter_min(const AtomicTarget& dst, const RegisterTensor& positions, const RegisterTensor& values,
                   MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  void scatter_max(const AtomicTarget& dst, const RegisterTensor& positions, const RegisterTensor& values,
                   MemoryOrder order = MemoryOrder::relaxed, Scope scope = {}, loc_t loc = loc_t::current());
  // The old values, in the layout of `values` (0 where a position was skipped): a slot claimed per
  // element, as when tokens take places in their expert's list.
  RegisterTensor scatter_fetch_add(const AtomicTarget& dst, const RegisterTensor& positions,
                                   const RegisterTensor& values, MemoryOrder order = MemoryOrder::relaxed,
                                   Scope scope = {}, loc_t loc = loc_t::current());

  // ---- scalar forms: every executing thread, on the element at `index` of `dst` ----
  template <AtomicValue V> void add(const AtomicTarget& dst, std::vector<Dim> index, const V& value,
                                    MemoryOrder order = MemoryOrder::relaxed, Scope scope = {},
                                    loc_t loc = loc_t::current()) {
    scalar(ir::AtomicOp::Add, dst, index, value, false, order, scope, loc);
  }
  template <AtomicValue V> void min(const AtomicTarget& dst, std::vector<Dim> index, const V& value,
                                    MemoryOrder order = MemoryOrder::relaxed, Scope scope = {},
                                    loc_t loc = loc_t::current()) {
    scalar(ir::AtomicOp::Min, dst, index, value, false, order, scope, loc);
  }
  template <AtomicValue V> void max(const AtomicTarget& dst, std::vector<Dim> index, const V& value,
                                    MemoryOrder order = MemoryOrder::relaxed, Scope scope = {},
                                    loc_t loc = loc_t::current()) {
    scalar(ir::AtomicOp::Max, dst, index, value, false, order, scope, loc);
  }
  template <AtomicValue V> void store(const AtomicTarget& dst, std::vector<Dim> index, const V& value,
                                      MemoryOrder order = MemoryOrder::relaxed, Scope scope = {},
                                      loc_t loc = loc_t::current()) {
    scalar(ir::AtomicOp::Store, dst, index, value, false, order, scope, loc);
  }
  template <AtomicValue V> Expr<detail::atomic_elem_t<V>> fetch_add(const AtomicTarget& dst, std::vector<Dim> index,
                                                                    const V& value,
                                                                    MemoryOrder order = MemoryOrder::relaxed,
                                                                    Scope scope = {}, loc_t loc = loc_t::current()) {
    return scalar(ir::AtomicOp::Add, dst, index, value, true, order, scope, loc);
  }
  template <AtomicValue V> Expr<detail::atomic_elem_t<V>> fetch_min(const AtomicTarget& dst, std::vector<Dim> index,
                                                                    const V& value,
                                                                    MemoryOrder order = MemoryOrder::relaxed,
                                                                    Scope scope = {}, loc_t loc = loc_t::current()) {
    return scalar(ir::AtomicOp::Min, dst, index, value, true, order, scope, loc);
  }
  template <AtomicValue V> Expr<detail::atomic_elem_t<V>> fetch_max(const AtomicTarget& dst, std::vector<Dim> index,
                                                                    const V& value,
                                                                    MemoryOrder order = MemoryOrder::relaxed,
                                                                    Scope scope = {}, loc_t loc = loc_t::current()) {
    return scalar(ir::AtomicOp::Max, dst, index, value, true, order, scope, loc);
  }
  template <AtomicValue V> Expr<detail::atomic_elem_t<V>> exchange(const AtomicTarget& dst, std::vector<Dim> index,
                                                                   const V& value,
                                                                   MemoryOrder order = MemoryOrder::relaxed,
                                                                   Scope scope = {}, loc_t loc = loc_t::current()) {
    return scalar(ir::AtomicOp::Exchange, dst, index, value, true, order, scope, loc);
  }
  // Stores `desired` where the element equals `expected`; returns the old value either way.
  template <AtomicValue E, AtomicValue V>
  Expr<detail::atomic_elem_t<V>> compare_exchange(const AtomicTarget& dst, std::vector<Dim> index, const E& expected,
                                                  const V& desired, MemoryOrder order = MemoryOrder::relaxed,
                                                  Scope scope = {}, loc_t loc = loc_t::current()) {
    using T = detail::atomic_elem_t<V>;
    return Expr<T>(scalar_atomic(ir::AtomicOp::CompareExchange, dst, std::move(index), detail::to_ir<T>(desired),
                                 detail::to_ir<T>(expected), dtype_v<T>, true, order, scope, SourceLoc::from(loc)));
  }
  // The element's value, read atomically (order relaxed or acquire): `load<int32_t>(flags, {i},
  // MemoryOrder::acquire)`.
  template <class T> Expr<T> load(const AtomicTarget& src, std::vector<Dim> index,
                                  MemoryOrder order = MemoryOrder::relaxed, Scope scope = {},
                                  loc_t loc = loc_t::current()) {
    return Expr<T>(scalar_atomic(ir::AtomicOp::Load, src, std::move(index), nullptr, nullptr, dtype_v<T>, true, order,
                                 scope, SourceLoc::from(loc)));
  }

 private:
  template <class V> Expr<detail::atomic_elem_t<V>> scalar(ir::AtomicOp op, const AtomicTarget& dst,
                                                           std::vector<Dim>& index, const V& value, bool result,
                                                           MemoryOrder order, Scope scope, loc_t loc) {
    using T = detail::atomic_elem_t<V>;
    return Expr<T>(scalar_atomic(op, dst, std::move(index), detail::to_ir<T>(value), nullptr, dtype_v<T>, result, order,
                                 scope, SourceLoc::from(loc)));
  }
  // The atomic's result variable (a constant 0 when it has none).
  ir::Expr scalar_atomic(ir::AtomicOp op, const AtomicTarget& dst, std::vector<Dim> index, ir::Expr value,
                         ir::Expr compare, DType value_type, bool result, MemoryOrder order, Scope scope,
                         const SourceLoc& loc);
  RegisterTensor tile_atomic(ir::AtomicOp op, const AtomicTarget& dst, const RegisterTensor& values,
                             const RegisterTensor* expected, std::vector<Dim> offsets, bool result, MemoryOrder order,
                             Scope scope, const SourceLoc& loc);
  RegisterTensor scatter_atomic(ir::AtomicOp op, const AtomicTarget& dst, const RegisterTensor& positions,
                                const RegisterTensor& values, bool result, MemoryOrder order, Scope scope,
                                const SourceLoc& loc);
};

}  // namespace tessel
