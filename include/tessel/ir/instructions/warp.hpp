// The IR nodes of the warp instruction family (nodes.def): warp shuffles, votes and layout
// conversions.
#pragma once

#include <optional>

#include "tessel/ir/core.hpp"
#include "tessel/ir/instructions/reduce.hpp"

namespace tessel::ir {

// Every lane of the warp reads `value` of another lane (PTX shfl.sync): of lane `lane` (Index,
// modulo 32), of its own index xor `lane` (Xor), of the lane `lane` below (Up) or above (Down). A
// lane whose source lies outside the warp keeps its own value. The value is a kernel scalar, whose
// lanes' values land in `result`, or a tile, each register of which moves so into `out`.
enum class ShuffleMode : uint8_t { Index, Xor, Up, Down };
std::string_view shuffle_name(ShuffleMode m);  // "shuffle", "shuffle_xor", ...
// The lane whose value lane `lane` of the warp receives, for the argument `arg`.
int shuffle_source(ShuffleMode m, int lane, int64_t arg);
struct ShuffleNode : StmtNode {
  ShuffleNode(SourceLoc l, Var result, RegisterTensor out, ShuffleMode mode, Operand value, Expr lane)
      : StmtNode(NodeKind::Shuffle, std::move(l)),
        result(std::move(result)),
        out(std::move(out)),
        mode(mode),
        value(std::move(value)),
        lane(std::move(lane)) {}
  Var result;          // a scalar's shuffle (else null)
  RegisterTensor out;  // a tile's shuffle (else null)
  ShuffleMode mode;
  Operand value;
  Expr lane;
  static constexpr auto operands() {
    return std::tuple{optional(&ShuffleNode::out), &ShuffleNode::value, &ShuffleNode::lane};
  }
  static constexpr auto results() { return std::tuple{&ShuffleNode::result}; }
};

// What the lanes of the warp say of `predicate` (PTX vote.sync): the u32 with bit i set where lane
// i's holds (Ballot), whether any lane's holds (Any), whether every lane's does (All).
enum class VoteMode : uint8_t { Ballot, Any, All };
std::string_view vote_name(VoteMode m);  // "ballot", "any", "all"
struct VoteNode : StmtNode {
  VoteNode(SourceLoc l, Var result, VoteMode mode, Expr predicate)
      : StmtNode(NodeKind::Vote, std::move(l)),
        result(std::move(result)),
        mode(mode),
        predicate(std::move(predicate)) {}
  Var result;
  VoteMode mode;
  Expr predicate;
  static constexpr auto operands() { return std::tuple{&VoteNode::predicate}; }
  static constexpr auto results() { return std::tuple{&VoteNode::result}; }
};

// out = a in out's layout (convert_layout). Where every element's new threads are in a warp that
// holds it, and every warp of the group moves its elements alike, they move by warp shuffles; the
// others go through `scratch` (relayout_scratch_slot of each position, row-major), which the group
// writes, meets at `barrier`, reads in the new layout and meets at again (plan_reductions plans it).
struct RelayoutNode : StmtNode {
  RelayoutNode(SourceLoc l, RegisterTensor out, RegisterTensor a)
      : StmtNode(NodeKind::Relayout, std::move(l)), out(std::move(out)), a(std::move(a)) {}
  RegisterTensor out;
  RegisterTensor a;
  SharedTensor scratch;
  int barrier = ReduceNode::kUnallocated;
  static constexpr auto operands() {
    return std::tuple{&RelayoutNode::out, &RelayoutNode::a, optional(&RelayoutNode::scratch)};
  }
};
// Where slot `slot` of thread `thread` of the group finds its element in `a`: a thread of its warp
// (itself when it holds the element), and that thread's slot.
struct RelayoutSource {
  int thread = 0, slot = 0;
};
// The sources of every slot of `out`, [thread * out's local size + slot], for a relayout whose
// tiles have their layouts, or nothing where shuffles cannot move the elements: an element that no
// thread of the receiving thread's warp holds in a's layout, or a warp whose lanes read otherwise
// than warp 0's (one shuffle sequence serves every warp).
std::optional<std::vector<RelayoutSource>> shuffle_sources(const RelayoutNode& n);
// The scratch of a relayout holds a tile of `t` row by row (rows along the last dimension, of
// `row_length` elements). A row whose bytes are a multiple of 128 would put a column's elements in
// one bank of shared memory, so such rows are followed by 4 bytes of padding (one element of 8
// bytes): a warp's lanes that write or read a column then fall in different banks (two to a bank
// for 8-byte types). `relayout_scratch_slot` is the element at row-major `position`;
// `relayout_scratch_slots` is the scratch's extent for `elements` positions.
inline int relayout_row_padding(int row_length, DType t) {
  return row_length * dtype_bytes(t) % 128 == 0 ? (dtype_bytes(t) >= 4 ? 1 : 4 / dtype_bytes(t)) : 0;
}
inline int64_t relayout_scratch_slot(int64_t position, int row_length, DType t) {
  return position + position / row_length * relayout_row_padding(row_length, t);
}
inline int relayout_scratch_slots(int elements, int row_length, DType t) {
  return int(relayout_scratch_slot(elements - 1, row_length, t)) + 1;
}

}  // namespace tessel::ir
