// The IR nodes of the atomic instruction family (nodes.def): atomics.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// What an atomic does to the element it addresses: a read-modify-write (atom, or red when the old
// value is unused), or a load or store with a memory order (ld/st.relaxed, .acquire, .release).
enum class AtomicOp : uint8_t { Add, Min, Max, And, Or, Xor, Exchange, CompareExchange, Load, Store };
std::string_view atomic_op_name(AtomicOp op);  // "add", ..., "compare_exchange", "load", "store"
bool reads_memory(AtomicOp op);                // all but Store
bool writes_memory(AtomicOp op);               // all but Load
// The call that writes `op` in kernels: "atomic.add", "atomic.fetch_add" (`fetch`: the old value
// returned), "atomic.bit_and", "atomic.scatter_fetch_add" (`scatter`), "atomic.exchange".
std::string atomic_call_name(AtomicOp op, bool fetch, bool scatter = false);
// The orders and scopes of the PTX memory model (PTX ISA, "Memory Consistency Model"): an acquire
// that reads what a release wrote (or a read-modify-write after it) orders the releasing thread's
// earlier accesses before the acquiring thread's later ones, when each operation's scope includes
// the other's thread.
enum class MemoryOrder : uint8_t { Relaxed, Acquire, Release, AcqRel };
enum class MemoryScope : uint8_t { Cta, Cluster, Gpu, Sys };
std::string_view memory_order_name(MemoryOrder o);  // "relaxed", "acquire", "release", "acq_rel"
std::string_view memory_scope_name(MemoryScope s);  // "cta", "cluster", "gpu", "sys"

// One thread's atomic on the element at `index` of `global` or of `shared` (one of them is null):
// `result` receives the old value (the value read, for Load); it is null for Store and for a
// read-modify-write whose old value is unused (red). With a `rank`, `shared` is the tile at the same
// offset in the shared memory of the cluster's block of that rank (tile.remote(rank)).

struct AtomicScalarNode : StmtNode {
  AtomicScalarNode(SourceLoc l, Var result, AtomicOp op, GlobalTensor global, SharedTensor shared,
                   std::vector<Expr> index, Expr value, Expr compare, MemoryOrder order, MemoryScope scope,
                   Expr rank = nullptr)
      : StmtNode(NodeKind::AtomicScalar, std::move(l)),
        result(std::move(result)),
        op(op),
        global(std::move(global)),
        shared(std::move(shared)),
        index(std::move(index)),
        value(std::move(value)),
        compare(std::move(compare)),
        order(order),
        scope(scope),
        rank(std::move(rank)) {}
  Var result;
  AtomicOp op;
  GlobalTensor global;
  SharedTensor shared;
  std::vector<Expr> index;
  Expr value;    // null for Load
  Expr compare;  // CompareExchange: the value expected; `value` is stored when it is found
  MemoryOrder order;
  MemoryScope scope;
  Expr rank;  // the owning block's cluster rank; null for global memory and the block's own tiles
  static constexpr auto operands() {
    return std::tuple{
        optional(&AtomicScalarNode::global), optional(&AtomicScalarNode::shared),  &AtomicScalarNode::index,
        optional(&AtomicScalarNode::value),  optional(&AtomicScalarNode::compare), optional(&AtomicScalarNode::rank)};
  }
  static constexpr auto results() { return std::tuple{&AtomicScalarNode::result}; }
};

// Every element of `value` combined into the element at its coordinates plus `offsets` of `global`
// or `shared` (one of them is null), each by one atomic; elements outside the view are skipped, and
// an element that several threads hold is combined once. `out` receives the old values (null: red).
// A scatter names the element by `index` instead: the element of the integer tile `index` at the
// value's coordinates is its position in the rank-1 `global` or `shared` (whose offset is 0), and
// positions outside it are skipped. `rank` as AtomicScalarNode's.
struct AtomicTensorNode : StmtNode {
  AtomicTensorNode(SourceLoc l, RegisterTensor out, AtomicOp op, GlobalTensor global, SharedTensor shared,
                   std::vector<Expr> offsets, RegisterTensor value, RegisterTensor compare, MemoryOrder order,
                   MemoryScope scope, RegisterTensor index = nullptr, Expr rank = nullptr)
      : StmtNode(NodeKind::AtomicTensor, std::move(l)),
        out(std::move(out)),
        op(op),
        global(std::move(global)),
        shared(std::move(shared)),
        offsets(std::move(offsets)),
        value(std::move(value)),
        compare(std::move(compare)),
        order(order),
        scope(scope),
        index(std::move(index)),
        rank(std::move(rank)) {}
  RegisterTensor out;
  AtomicOp op;
  GlobalTensor global;
  SharedTensor shared;
  std::vector<Expr> offsets;
  RegisterTensor value;
  RegisterTensor compare;  // CompareExchange only
  MemoryOrder order;
  MemoryScope scope;
  RegisterTensor index;  // a scatter's positions; null for the tile forms
  Expr rank;
  static constexpr auto operands() {
    return std::tuple{optional(&AtomicTensorNode::out),
                      optional(&AtomicTensorNode::global),
                      optional(&AtomicTensorNode::shared),
                      &AtomicTensorNode::offsets,
                      &AtomicTensorNode::value,
                      optional(&AtomicTensorNode::compare),
                      optional(&AtomicTensorNode::index),
                      optional(&AtomicTensorNode::rank)};
  }
};

}  // namespace tessel::ir
