// What the tile instructions share while tracing: checks of shapes, layouts and thread groups,
// the output tile of an instruction, and operands lowered to IR.
#pragma once

#include <string_view>
#include <vector>

#include "tessel/lang/script.hpp"

namespace tessel::detail {

// "the tile reg<f32>[1, 256] (created at k.cpp:12)", for messages (tiles.cpp).
std::string tile_text(const RegisterTensor& t);

// A tile shape of compile-time, positive extents.
std::vector<int> static_shape(const std::vector<Dim>& shape, std::string_view what, const SourceLoc& loc);

std::vector<ir::Expr> exprs_of(const std::vector<Dim>& dims);

// Checks a layout the user pinned for a tile of `shape` over the current group. An empty layout
// stays empty: infer_layouts chooses it.
void check_pinned_layout(const Layout& given, const std::vector<int>& shape, std::string_view what,
                         const SourceLoc& loc);

// A tile of the current thread group; `layout` is the user's pin or empty.
ir::RegisterTensor new_tile(DType t, std::vector<int> shape, Layout layout, std::string name, SourceLoc loc);

// A load or store of `t` by the current group, `what` in messages: one warp per 32 lanes, each warp
// on its own lane quadrant (PTX ISA 9.7.16.8.1).
void check_lane_quadrants(Builder& b, const ir::TMemoryTensor& t, std::string_view what, const SourceLoc& loc);

// Register tiles belong to the thread group they were created in.
void check_group(const ir::RegisterTensor& t, std::string_view what, const SourceLoc& loc);

// A store of `src` into the shared tile `dst` at `offsets` (all zero when empty, filled in here),
// `what` in messages: the group, types, ranks and, except along a scatter's `dim`, the bounds
// (memory.cpp).
void check_shared_store(const SharedTensor& dst, const RegisterTensor& src, std::vector<Dim>& offsets,
                        std::string_view what, const SourceLoc& loc, int dim = -1);

// A shared operand of a tensor-core instruction `what` (wgmma.mma, tcgen05.mma, tcgen05.copy):
// K-major (`k_dim` is the dimension along k; the other runs over the rows), and swizzled, if the
// user chose a swizzle, by the one its rows are read with.
void check_k_major_operand(const ir::SharedTensor& t, std::string_view what, std::string_view name, int k_dim,
                           const SourceLoc& loc);

// A shared operand of a tensor-core mma (mma_operands.cpp): K-major, MN-major (16-bit types, the
// M or N dimension of stride 1), or MN-major in span-wide blocks (a 3-D tile [mn / P, k, P]).
void check_mma_operand(const ir::SharedTensor& t, std::string_view what, std::string_view name, int k_dim,
                       const SourceLoc& loc);

// The shape [m, k] (`k_dim` 1) or [k, n] (`k_dim` 0) that a shared mma operand stands for: its
// own, or that of its span-wide blocks.
std::vector<int> mma_operand_shape(const ir::SharedTensor& t, int k_dim);

// An operand of a tile instruction on tiles of `tile_type`: a tile, or a scalar (a C++ literal
// takes the tile's type; `keeps_bits` for the operands of & | ^, literal_as).
ir::Operand resolve(const TileOperand& o, DType tile_type, bool keeps_bits = false);

}  // namespace tessel::detail
