// The IR nodes of the tiles instruction family (nodes.def): register tiles: creation, elementwise math, conversions,
// copies, slices, regroupings and printing.
#pragma once

#include <optional>

#include "tessel/ir/core.hpp"
#include "tessel/ir/instructions/reduce.hpp"

namespace tessel::ir {

struct AllocRegisterNode : StmtNode {
  AllocRegisterNode(SourceLoc l, RegisterTensor out, Expr init)
      : StmtNode(NodeKind::AllocRegister, std::move(l)), out(std::move(out)), init(std::move(init)) {}
  RegisterTensor out;
  Expr init;
  static constexpr auto operands() { return std::tuple{&AllocRegisterNode::out, &AllocRegisterNode::init}; }
};
struct ElementwiseBinaryNode : StmtNode {
  ElementwiseBinaryNode(SourceLoc l, RegisterTensor out, BinaryOp op, Operand a, Operand b)
      : StmtNode(NodeKind::ElementwiseBinary, std::move(l)),
        out(std::move(out)),
        op(op),
        a(std::move(a)),
        b(std::move(b)) {}
  RegisterTensor out;
  BinaryOp op;
  Operand a, b;
  static constexpr auto operands() {
    return std::tuple{&ElementwiseBinaryNode::out, &ElementwiseBinaryNode::a, &ElementwiseBinaryNode::b};
  }
};
struct ElementwiseUnaryNode : StmtNode {
  ElementwiseUnaryNode(SourceLoc l, RegisterTensor out, UnaryOp op, RegisterTensor a,
                       MathPrecision precision = MathPrecision::Exact)
      : StmtNode(NodeKind::ElementwiseUnary, std::move(l)),
        out(std::move(out)),
        op(op),
        a(std::move(a)),
        precision(precision) {}
  RegisterTensor out;
  UnaryOp op;
  RegisterTensor a;
  MathPrecision precision;  // Fast only for functions that have_fast_form
  static constexpr auto operands() { return std::tuple{&ElementwiseUnaryNode::out, &ElementwiseUnaryNode::a}; }
};
struct WhereNode : StmtNode {
  WhereNode(SourceLoc l, RegisterTensor out, Operand c, Operand a, Operand b)
      : StmtNode(NodeKind::Where, std::move(l)),
        out(std::move(out)),
        cond(std::move(c)),
        a(std::move(a)),
        b(std::move(b)) {}
  RegisterTensor out;
  Operand cond, a, b;
  static constexpr auto operands() {
    return std::tuple{&WhereNode::out, &WhereNode::cond, &WhereNode::a, &WhereNode::b};
  }
};
// out = a * b + c, rounded once, with a, b and c broadcast to out's shape (the user's fma has c
// of out's shape; contract_multiply_adds makes the others).
struct FmaNode : StmtNode {
  FmaNode(SourceLoc l, RegisterTensor out, Operand a, Operand b, Operand c)
      : StmtNode(NodeKind::Fma, std::move(l)), out(std::move(out)), a(std::move(a)), b(std::move(b)), c(std::move(c)) {}
  RegisterTensor out;
  Operand a, b, c;
  static constexpr auto operands() { return std::tuple{&FmaNode::out, &FmaNode::a, &FmaNode::b, &FmaNode::c}; }
};
// How a conversion to e8m0 takes a magnitude to a power of two (dtype.hpp, e8m0).
enum class Rounding : uint8_t { down, up };
struct CastTensorNode : StmtNode {
  CastTensorNode(SourceLoc l, RegisterTensor out, RegisterTensor a)
      : StmtNode(NodeKind::CastTensor, std::move(l)), out(std::move(out)), a(std::move(a)) {}
  RegisterTensor out;
  RegisterTensor a;
  // Rounded to the nearest and clamped to out's range (convert_saturated) rather than converted
  // as convert() does.
  bool saturate = false;
  // The rounding of a conversion to e8m0, which the user states; empty for the other types.
  std::optional<Rounding> rounding;
  static constexpr auto operands() { return std::tuple{&CastTensorNode::out, &CastTensorNode::a}; }
};
// out holds the bits of `a`, element by element, read as out's type of the same width.
struct BitcastTensorNode : StmtNode {
  BitcastTensorNode(SourceLoc l, RegisterTensor out, RegisterTensor a)
      : StmtNode(NodeKind::BitcastTensor, std::move(l)), out(std::move(out)), a(std::move(a)) {}
  RegisterTensor out;
  RegisterTensor a;
  static constexpr auto operands() { return std::tuple{&BitcastTensorNode::out, &BitcastTensorNode::a}; }
};
// arange: each element of `out` (i32) is its own coordinate along `dim`.
struct IotaNode : StmtNode {
  IotaNode(SourceLoc l, RegisterTensor out, int dim)
      : StmtNode(NodeKind::Iota, std::move(l)), out(std::move(out)), dim(dim) {}
  RegisterTensor out;
  int dim;
  static constexpr auto operands() { return std::tuple{&IotaNode::out}; }
};
// result = the one element of `a` (every extent 1), which every thread of the group holds in its
// only register: a tile's value as a kernel value (item<T>()).
struct TileElementNode : StmtNode {
  TileElementNode(SourceLoc l, Var result, RegisterTensor a)
      : StmtNode(NodeKind::TileElement, std::move(l)), result(std::move(result)), a(std::move(a)) {}
  Var result;
  RegisterTensor a;
  static constexpr auto operands() { return std::tuple{&TileElementNode::a}; }
  static constexpr auto results() { return std::tuple{&TileElementNode::result}; }
};
// dst <- src: the assignment of a register tile to a mutable tile variable.
struct CopyRegisterNode : StmtNode {
  CopyRegisterNode(SourceLoc l, RegisterTensor dst, RegisterTensor src)
      : StmtNode(NodeKind::CopyRegister, std::move(l)), dst(std::move(dst)), src(std::move(src)) {}
  RegisterTensor dst, src;
  static constexpr auto operands() { return std::tuple{&CopyRegisterNode::dst, &CopyRegisterNode::src}; }
};
// `out` holds the sub-tile of `src` at the constant `offsets`, of out's shape.
struct SliceRegisterNode : StmtNode {
  SliceRegisterNode(SourceLoc l, RegisterTensor out, RegisterTensor src, std::vector<int> offsets)
      : StmtNode(NodeKind::SliceRegister, std::move(l)),
        out(std::move(out)),
        src(std::move(src)),
        offsets(std::move(offsets)) {}
  RegisterTensor out, src;
  std::vector<int> offsets;
  static constexpr auto operands() { return std::tuple{&SliceRegisterNode::out, &SliceRegisterNode::src}; }
};
// Tiles rearranged without moving data: every register of `out` is a register of `a` or `b` in the
// same thread, so the instruction is a renaming of registers (Layout::reshape, permute, and the
// compositions that concatenate and interleave).
enum class Regroup : uint8_t {
  Reshape,     // `a` with out's shape, elements in row-major order
  Permute,     // out dimension i is dimension dims[i] of `a`
  Concat,      // `a` then `b` along dimension dims[0]
  Interleave,  // `a` and `b` alternating along dimension dims[0]
};
std::string_view regroup_name(Regroup r);
struct RegroupRegistersNode : StmtNode {
  RegroupRegistersNode(SourceLoc l, RegisterTensor out, Regroup regroup, RegisterTensor a, RegisterTensor b,
                       std::vector<int> dims)
      : StmtNode(NodeKind::RegroupRegisters, std::move(l)),
        out(std::move(out)),
        regroup(regroup),
        a(std::move(a)),
        b(std::move(b)),
        dims(std::move(dims)) {}
  RegisterTensor out;
  Regroup regroup;
  RegisterTensor a, b;  // b: concat and interleave only
  std::vector<int> dims;
  // The operand (0 for a, 1 for b) and coordinates of the element at `out_coords`.
  std::pair<int, std::vector<int>> source(const std::vector<int>& out_coords) const;
  static constexpr auto operands() {
    return std::tuple{&RegroupRegistersNode::out, &RegroupRegistersNode::a, optional(&RegroupRegistersNode::b)};
  }
};
// For each register of n.out, the operand and register that hold its element (the same in every
// thread); throws tessel::Error at n's line when the layouts do not allow it.
std::vector<std::pair<int, int>> regroup_registers(const RegroupRegistersNode& n);

// Pins the layout of `tile` (annotate_layout); infer_layouts consumes it.
struct AnnotateLayoutNode : StmtNode {
  AnnotateLayoutNode(SourceLoc l, RegisterTensor t, Layout layout)
      : StmtNode(NodeKind::AnnotateLayout, std::move(l)), tile(std::move(t)), layout(std::move(layout)) {}
  RegisterTensor tile;
  Layout layout;
  static constexpr auto operands() { return std::tuple{&AnnotateLayoutNode::tile}; }
};
// Prints a register tile from one thread, in block `block` (docs/language.md, "Printing"): the
// threads of the group gather the tile in `scratch` (planned by plan_reductions, at the group's
// barrier), and the group's first thread prints it, row by row, the same text on the GPU and on
// the simulator.
struct PrintTensorNode : StmtNode {
  PrintTensorNode(SourceLoc l, std::string label, RegisterTensor t, std::array<int, 3> block)
      : StmtNode(NodeKind::PrintTensor, std::move(l)), label(std::move(label)), tensor(std::move(t)), block(block) {}
  std::string label;
  RegisterTensor tensor;
  std::array<int, 3> block;
  // Where the tile was read from, as its header names it: "reg", or "tmem" for a tensor-memory tile
  // loaded into registers to be printed.
  std::string memory = "reg";
  SharedTensor scratch;
  int barrier = ReduceNode::kUnallocated;
  static constexpr auto operands() { return std::tuple{&PrintTensorNode::tensor, optional(&PrintTensorNode::scratch)}; }
};
// The type a printed tile's elements are gathered in: their own, but i32 for the packed integers and
// f32 for the packed floats.
DType printed_type(DType t);
// Prints a shared tile from the first thread of the group, in block `block`, straight from shared
// memory: a header with its type, shape, strides and swizzle, then one line per row.
struct PrintSharedNode : StmtNode {
  PrintSharedNode(SourceLoc l, std::string label, SharedTensor t, std::array<int, 3> block)
      : StmtNode(NodeKind::PrintShared, std::move(l)), label(std::move(label)), tensor(std::move(t)), block(block) {}
  std::string label;
  SharedTensor tensor;
  std::array<int, 3> block;
  static constexpr auto operands() { return std::tuple{&PrintSharedNode::tensor}; }
};
// The header of a printed shared tile: "shared<f16>[64, 64] strides [64, 1] swizzle 128B".
std::string shared_print_header(const SharedTensorNode& s);
// Prints kernel values from the first thread of the group, in block `block`: `format` with `{}`
// for each of `values`, in order, and a newline.
struct PrintValuesNode : StmtNode {
  PrintValuesNode(SourceLoc l, std::string format, std::vector<Expr> values, std::array<int, 3> block)
      : StmtNode(NodeKind::PrintValues, std::move(l)),
        format(std::move(format)),
        values(std::move(values)),
        block(block) {}
  std::string format;
  std::vector<Expr> values;
  std::array<int, 3> block;
  static constexpr auto operands() { return std::tuple{&PrintValuesNode::values}; }
};

}  // namespace tessel::ir
