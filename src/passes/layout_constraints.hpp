// What infer_layouts needs to know about a kernel's register tiles: every tile with the
// instruction that created it, and the layout rules each instruction imposes (see
// infer_layouts.cpp for the rules and their priority).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::passes {

struct TileInfo {
  ir::RegisterTensor tile;
  std::string created_by;  // the user's name of the creating instruction ("load_global", "add", ...)
  SourceLoc loc;
};

// A rule that gives `tile` `layout`: "<how> <instruction> at <loc>".
struct Requirement {
  Layout layout;
  int tile;
  std::string how;          // "is pinned by", "is needed as the mma A fragment by", ...
  std::string instruction;  // empty for the default
  SourceLoc loc;
  bool broadcast_operand = false;  // the layout a broadcast gives its operand, which a copy could take
  int source = -1;                 // the tile whose layout a directed rule derived this one from
  std::string describe() const;
};

struct DotUse {
  const ir::DotNode* node;
  int a, b, c, out;
  int m, n, k, warps;
  DType operand;
  SourceLoc loc;
};

struct ReduceUse {
  int in, out, dim;
  std::string op;
  SourceLoc loc;
};

// `out` is the sub-tile of `in` at `offsets`.
struct SliceUse {
  int in, out;
  std::vector<int> offsets;
  SourceLoc loc;
};

// `to`'s layout follows from `from`'s (forward) and, where the rule inverts, `from`'s from `to`'s
// (backward): bitcasts between widths and register regroupings, which keep every element in its
// thread. A layout a rule cannot map is refused at `loc`: "<instruction>: the tile created by ...
// (<layout>) <refusal>".
struct DerivedUse {
  int from, to;
  std::function<Layout(const Layout&)> forward, backward;
  std::string how;  // for the result: "is the bitcast to narrower elements by"
  std::string instruction, refusal;
  SourceLoc loc;
  // Whether the coalescing default goes to the operand before the result: a concat's or an
  // interleave's result is its operands' layout with a register digit added, which the result's
  // own default (threads along every dimension) lacks.
  bool operand_first = false;
};

// `operand` is broadcast along `dims` (extent 1 in the operand, more in `result`).
struct BroadcastUse {
  int operand, result;
  std::vector<int> dims;
  std::string op;
  SourceLoc loc;
};

struct LayoutConstraints {
  std::vector<TileInfo> tiles;                   // in program order; indices below refer to it
  std::vector<std::pair<int, int>> same_layout;  // pairs of tiles that share one layout
  std::vector<Requirement> pins;                 // in program order
  std::vector<DotUse> dots;
  std::vector<ReduceUse> reductions;
  // Layouts that instructions need of a tile where no pin, mma or propagation fixes one: a scan's
  // runs along its dimension, a fetching atomic's one thread per element.
  std::vector<Requirement> preferred;
  std::vector<BroadcastUse> broadcasts;
  std::vector<SliceUse> slices;
  std::vector<DerivedUse> derived;
  bool has_annotations = false;
};

LayoutConstraints collect_layout_constraints(const ir::KernelNode& k);

// The layout infer_layouts gives a tile that no rule fixes (Layout::distributed_runs): runs of up
// to 16 bytes, neighbouring threads neighbouring runs. An instruction prefers another only where
// this one would not do.
Layout coalescing_default(const ir::RegisterTensor& tile);

}  // namespace tessel::passes
