// select_instructions: decides, once, how each data movement is carried out, and records it in
// the IR for the code generator (and for choose_swizzles, which swizzles the tiles that ldmatrix
// and stmatrix touch):
//   - load_shared into an mma A/B fragment layout whose rows are 16-byte chunks: ldmatrix;
//     otherwise the widest vector load that every run of the tile allows;
//   - store_shared of a 16-bit accumulator fragment on sm_90+: stmatrix; otherwise the widest
//     vector store that every run of the tile allows;
//   - load_global / store_global: the widest vector that the tile's contiguous runs allow over a
//     unit-stride last dimension (alignment is checked at run time, per access);
//   - copy_async: the split of the tile over the group's threads (no thread copies twice) and the
//     bytes per cp.async.
#include <functional>
#include <numeric>

#include "tessel/ir/divisibility.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/layout/mma_atoms.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

using ir::MatrixAccess;
using ir::MatrixInstruction;

// The allocation's rows of 16-bit elements start on 16-byte boundaries.
bool allocation_rows_are_chunks(const ir::SharedTensor& s) {
  for (size_t d = 0; d + 1 < s->allocation()->strides.size(); ++d)
    if (s->allocation()->strides[d] % 8 != 0) return false;
  return true;
}

// ldmatrix reads rows of 8 contiguous 16-bit elements starting on 16-byte boundaries: along k
// (dimension `contiguous` of the view) for the fragment being loaded.
bool rows_are_chunks(const ir::SharedTensor& s, const std::vector<ir::Expr>& offsets, int contiguous) {
  if (s->strides[contiguous] != 1 || s->strides[1 - contiguous] % 8 != 0 || !allocation_rows_are_chunks(s))
    return false;
  int64_t offset = 0;
  return ir::as_const_int(offsets[contiguous], &offset) && offset % 8 == 0;
}

MatrixAccess ldmatrix(const ir::LoadSharedNode& n, int warps) {
  const auto& shape = n.out->shape();
  if (shape.size() != 2 || dtype_bits(n.out->dtype) != 16 || !n.out->has_layout()) return {};
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    if (shape[0] % (16 * wm) == 0 && shape[1] % 16 == 0 &&
        mma_layouts(shape[0], 8 * wn, shape[1], wm, wn).a == n.out->layout)
      return rows_are_chunks(n.src, n.offsets, 1) ? MatrixAccess{MatrixInstruction::LdmatrixA, wm, wn} : MatrixAccess{};
    if (shape[0] % 16 == 0 && shape[1] % (8 * wn) == 0 &&
        mma_layouts(16 * wm, shape[1], shape[0], wm, wn).b == n.out->layout)
      return rows_are_chunks(n.src, n.offsets, 0) ? MatrixAccess{MatrixInstruction::LdmatrixB, wm, wn} : MatrixAccess{};
  }
  return {};
}

MatrixAccess stmatrix(const ir::StoreSharedNode& n, int warps) {
  const auto& shape = n.src->shape();
  if (shape.size() != 2 || dtype_bits(n.src->dtype) != 16 || !n.src->has_layout()) return {};
  if (!rows_are_chunks(n.dst, n.offsets, 1)) return {};
  for (int wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0) continue;
    const int wn = warps / wm;
    if (shape[0] % (16 * wm) == 0 && shape[1] % (8 * wn) == 0 &&
        mma_layouts(shape[0], shape[1], 16, wm, wn).c == n.src->layout)
      return MatrixAccess{MatrixInstruction::Stmatrix, wm, wn};
  }
  return {};
}

// The widest run of consecutive elements that one access moves, as far as `fits` allows: up to 16
// bytes, a power of two (vector accesses need a power-of-two size and alignment). Packed elements
// move as whole 32-bit words or one by one; a width that does not divide 32 moves the words of the
// smallest run that fills whole words (32 elements of 3 bits are 3 words), or one by one.
int vector_width(DType t, const std::function<bool(int)>& fits) {
  const int bits = dtype_bits(t);
  if (32 % bits != 0) {
    const int whole_words = 32 / std::gcd(bits, 32);
    return fits(whole_words) ? whole_words : 1;
  }
  int vec = 128 / bits;
  while (vec > 1 && !fits(vec)) vec /= 2;
  return is_packed(t) && vec * bits < 32 ? 1 : vec;
}

// Whether a gather's or scatter's indices may differ within a run of the last dimension: they are
// the same along a run only where they are broadcast along that dimension and index another.
bool indices_vary_along_runs(const ir::RegisterTensor& index, int index_dim) {
  const int last = index ? index->rank() - 1 : 0;
  return index && (index_dim == last || index->shape()[size_t(last)] != 1);
}

int global_vector(const ir::RegisterTensor& tile, const ir::GlobalTensor& g, const ir::RegisterTensor& index,
                  int index_dim) {
  int64_t stride = 0;
  if (!ir::as_const_int(g->strides.back(), &stride) || stride != 1 || indices_vary_along_runs(index, index_dim))
    return 1;
  return vector_width(tile->dtype, [&](int v) { return tile->layout.contiguous_run() % v == 0; });
}

// Whether every row of shared view `s` starts on a multiple of `v` elements: its strides, its
// allocation's and its offset into the allocation are multiples of `v`. Into 16-byte chunks of
// packed elements, a run of `v` stays in one chunk.
bool shared_rows_aligned(const ir::SharedTensor& s, int v, const ir::Divisibility& divisibility) {
  if (s->allocation()->chunks16 && 16 % v != 0) return false;
  for (size_t d = 0; d + 1 < s->strides.size(); ++d)
    if (s->strides[d] % v != 0) return false;
  for (size_t d = 0; d + 1 < s->allocation()->strides.size(); ++d)
    if (s->allocation()->strides[d] % v != 0) return false;
  return !s->offset || divisibility.divides(v, s->offset);
}

// As global_vector, for shared loads and stores: every run must also start on a multiple of the
// width (rows and offsets multiples of it). A swizzle moves aligned 16-byte chunks whole, so it
// never splits such a vector.
int shared_vector(const ir::SharedTensor& s, const ir::RegisterTensor& tile, const std::vector<ir::Expr>& offsets,
                  const ir::Divisibility& divisibility) {
  if (s->strides.back() != 1) return 1;
  return vector_width(s->dtype, [&](int v) {
    return tile->layout.contiguous_run() % v == 0 && divisibility.divides(v, offsets.back()) &&
           shared_rows_aligned(s, v, divisibility);
  });
}

// The copy is split over as many of the group's threads as have distinct elements to copy (a
// replicated split would copy the same bytes twice).
Layout copy_split(const ir::SharedTensor& dst, int threads) {
  Layout layout;
  for (int t = threads; t >= 1; t /= 2) {
    layout = Layout::distributed(dst->shape, t, dtype_bytes(dst->dtype));
    if (int64_t(layout.num_threads()) * layout.local_size() == layout.num_elements()) break;
  }
  return layout;
}

// Elements per cp.async of a copy whose threads each take runs of `contiguous` elements; 1 where
// runs of 4, 8 or 16 contiguous bytes on both sides are impossible and the copy is synchronous.
// The shared side's rows must start on the run's alignment (the global side is tested at run time).
int async_copy_vector(const ir::CopyAsyncNode& n, int contiguous, const ir::Divisibility& divisibility) {
  int64_t gstride = 0;
  if (!ir::as_const_int(n.src->strides.back(), &gstride) || gstride != 1 || n.dst->strides.back() != 1) return 1;
  const int bytes = dtype_bytes(n.dst->dtype);
  int vec = 16 / bytes;
  while (vec > 1 && (contiguous % vec != 0 || !shared_rows_aligned(n.dst, vec, divisibility))) vec /= 2;
  return vec * bytes >= 4 ? vec : 1;
}

// Whether a layout split keeps fewer than half of the threads busy that the tile's runs could:
// then each of its few threads copies many runs, unrolled, and the copy is better taken in turn.
bool too_few_threads(const Layout& split, int64_t runs, int threads) {
  return int64_t(split.num_threads()) * 2 < std::min<int64_t>(runs, threads);
}

class Selector : public ir::Mutator {
 public:
  Selector(ir::Arch arch, const ir::KernelNode& k) : arch_(arch), divisibility_(k) {}

 protected:
  ir::Stmt visit(const ir::LoadGlobalNode& n, const ir::Stmt& self) override {
    const int vector = global_vector(n.out, n.src, n.index, n.index_dim);
    if (vector == n.vector) return self;
    auto selected = ir::copy_of(n);
    selected->vector = vector;
    return selected;
  }

  ir::Stmt visit(const ir::StoreGlobalNode& n, const ir::Stmt& self) override {
    const int vector = global_vector(n.src, n.dst, n.index, n.index_dim);
    if (vector == n.vector) return self;
    auto selected = ir::copy_of(n);
    selected->vector = vector;
    return selected;
  }

  ir::Stmt visit(const ir::LoadSharedNode& n, const ir::Stmt& self) override {
    const ir::ThreadRange g = position().group();
    // ldmatrix reads the block's own shared memory only.
    // A gather reads the rows its indices name, one access per run.
    const MatrixAccess m = g.whole_warps() && !n.rank && !n.index ? ldmatrix(n, g.count / 32) : MatrixAccess{};
    // Packed tiles move whole words their own way (packed_tiles.cpp).
    const int vector = m.instruction == MatrixInstruction::None && !is_packed(n.out->dtype) &&
                               !indices_vary_along_runs(n.index, n.index_dim)
                           ? shared_vector(n.src, n.out, n.offsets, divisibility_)
                           : 1;
    if (m == n.matrix && vector == n.vector) return self;
    auto selected = ir::copy_of(n);
    selected->matrix = m;
    selected->vector = vector;
    return selected;
  }

  // stmatrix exists from sm_90 (PTX ISA 9.7.14.5.16).
  ir::Stmt visit(const ir::StoreSharedNode& n, const ir::Stmt& self) override {
    const ir::ThreadRange g = position().group();
    const MatrixAccess m = g.whole_warps() && int(arch_) >= int(ir::Arch::Sm90a) && !n.rank && !n.index
                               ? stmatrix(n, g.count / 32)
                               : MatrixAccess{};
    const int vector = m.instruction == MatrixInstruction::None && !indices_vary_along_runs(n.index, n.index_dim)
                           ? shared_vector(n.dst, n.src, n.offsets, divisibility_)
                           : 1;
    if (m == n.matrix && vector == n.vector) return self;
    auto selected = ir::copy_of(n);
    selected->matrix = m;
    selected->vector = vector;
    return selected;
  }

  ir::Stmt visit(const ir::StoreSharedAsyncNode& n, const ir::Stmt& self) override {
    const int vector = shared_vector(n.dst, n.src, n.offsets, divisibility_);
    if (vector == n.vector) return self;
    auto selected = ir::copy_of(n);
    selected->vector = vector;
    return selected;
  }

  ir::Stmt visit(const ir::CopyAsyncNode& n, const ir::Stmt& self) override {
    const int threads = position().group().count;
    Layout split = copy_split(n.dst, threads);
    int vector = async_copy_vector(n, split.contiguous_run(), divisibility_);
    int64_t elements = 1;
    for (int extent : n.dst->shape) elements *= extent;
    const int row_vector = n.dst->shape.empty() ? 1 : async_copy_vector(n, n.dst->shape.back(), divisibility_);
    const bool in_turn = too_few_threads(split, elements / row_vector, threads);
    if (in_turn) split = Layout(), vector = row_vector;
    if (split == n.layout && vector == n.vector && in_turn == n.in_turn) return self;
    auto selected = ir::copy_of(n);
    selected->layout = std::move(split);
    selected->vector = vector;
    selected->in_turn = in_turn;
    return selected;
  }

 private:
  ir::Arch arch_;
  const ir::Divisibility divisibility_;
};

}  // namespace

ir::Kernel select_instructions(const ir::Kernel& k, const PassContext& ctx) {
  return Selector(ctx.arch, *k).mutate_kernel(k);
}

}  // namespace tessel::passes
