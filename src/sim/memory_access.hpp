// What the instructions that address memory element by element share: the elements a warp's
// lanes hold, shared-memory addresses with their checks, and per-lane operands.
#pragma once

#include <optional>

#include "machine.hpp"
#include "tessel/layout/shared_swizzle.hpp"

namespace tessel::sim {

// Calls f(lane, thread-in-group, slot, coords) for every element the active lanes hold.
template <class F> void for_each_element(Warp& w, const ir::RegisterTensorNode* tile, Mask mask, F&& f) {
  const auto& table = w.cta.tables.coords(tile);
  const int local = tile->layout.local_size(), rank = tile->layout.rank();
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int t = w.thread_in_group(lane);
    for (int l = 0; l < local; ++l) f(lane, t, l, &table[(size_t(t) * local + l) * rank]);
  }
}

struct SharedAddress {
  int64_t byte;
  const ir::SharedTensorNode* allocation;
  int shift = 0;  // a packed element's first bit within its byte
};

inline SharedAddress shared_address(Warp& w, const ir::SharedTensor& s, const Lanes& view_offset, int lane,
                                    const std::vector<Lanes>& offsets, const int* c, const SourceLoc& loc) {
  int64_t index = s->offset ? view_offset[lane].i : 0;
  for (int d = 0; d < s->rank(); ++d) {
    const int64_t coord = c[d] + offsets[d][lane].i;
    if (coord < 0 || coord >= s->shape[d])
      throw Error(loc, fmt::format("the shared tensor [{}] (allocated at {}) accessed at index {} of dimension {}, "
                                   "outside its extent {} (thread {} of block {})",
                                   fmt::join(s->shape, ", "), s->allocation()->loc.str(), coord, d, s->shape[d],
                                   w.thread(lane), w.cta.block_name()));
    index += coord * s->strides[d];
  }
  const ir::SharedTensorNode* root = s->allocation();
  const int64_t base = w.cta.shared_offsets.at(root);
  const int64_t elements = root->nbytes() * 8 / s->slot_bits();
  if (index < 0 || index >= elements)
    throw Error(loc, fmt::format("a view of the shared tensor allocated at {} reaches element {} of its "
                                 "{}-element allocation",
                                 root->loc.str(), index, elements));
  const int64_t bit = root->element_bit(index);
  const int64_t byte = base + swizzle_byte(bit / 8, s->swizzle_bits);
  return {byte, root, int(bit % 8)};
}

// The block whose shared memory each lane reaches: its own, or with `ranks` (tile.remote(rank)) the
// cluster's block of that rank (remote_shared_block).
class SharedOwners {
 public:
  SharedOwners(Warp& w, const ir::Expr& rank, Mask mask, const SourceLoc& loc, std::string_view operation, bool write)
      : w_(w), loc_(loc), operation_(operation), write_(write) {
    if (rank) ranks_ = w.eval(rank, mask);
  }
  Cta& operator()(int lane) const {
    return ranks_ ? remote_shared_block(w_, (*ranks_)[size_t(lane)].i, lane, loc_, operation_, write_) : w_.cta;
  }
  // Where CopiesAgree compares the copies of an element: the byte and the block that holds it.
  uint64_t address(int lane, int64_t byte) const {
    return ranks_ ? uint64_t((*ranks_)[size_t(lane)].i) << 40 | uint64_t(byte) : uint64_t(byte);
  }

 private:
  Warp& w_;
  std::optional<Lanes> ranks_;
  const SourceLoc& loc_;
  std::string_view operation_;
  bool write_;
};

// Whether thread `t` holds the first replica of its elements of `layout` (the one that writes
// them where several threads hold them).
inline bool first_replica(const Layout& layout, int t) {
  for (const Layout::ThreadSpan& s : layout.replica_spans())
    if (t / s.stride % s.size != 0) return false;
  return true;
}

// The row-major position, in a tile's `shape`, of the element in slot `l` of thread `t` of the
// group, from the tile's coordinate table (LayoutTables::coords) for `local` slots per thread.
inline int64_t row_major_position(const std::vector<int>& table, const std::vector<int>& shape, int local, int t,
                                  int l) {
  const size_t rank = shape.size();
  int64_t position = 0;
  for (size_t d = 0; d < rank; ++d)
    position = position * shape[d] + table[(size_t(t) * size_t(local) + size_t(l)) * rank + d];
  return position;
}

inline std::vector<Lanes> eval_all(Warp& w, const std::vector<ir::Expr>& es, Mask mask) {
  std::vector<Lanes> out;
  for (const ir::Expr& e : es) out.push_back(w.eval(e, mask));
  return out;
}

// A gather's or scatter's coordinate along its indexed dimension; none where `dim` is -1.
struct IndexedCoordinate {
  int dim = -1;
  int64_t value = 0;
};

// A global view as the active lanes of a warp see it: its pointer, shape and strides.
class GlobalViewLanes {
 public:
  GlobalViewLanes(Warp& w, const ir::GlobalTensor& g, Mask mask)
      : w_(w),
        g_(g),
        ptr_(w.eval(g->ptr, mask)),
        shape_(eval_all(w, g->shape, mask)),
        strides_(eval_all(w, g->strides, mask)) {}

  // The address of the element at coordinates c + offsets in `lane`; none outside the view. A
  // gather or scatter gives the coordinate along `indexed.dim` as `indexed.value` instead of c's.
  std::optional<uint64_t> address(int lane, const int* c, const std::vector<Lanes>& offsets,
                                  IndexedCoordinate indexed = {}) const {
    const auto i = index(lane, c, offsets, indexed);
    if (!i) return std::nullopt;
    check_promised_alignment(w_, *g_, uint64_t(ptr_[lane].i), lane);
    return uint64_t(ptr_[lane].i) + uint64_t(*i * dtype_bytes(g_->dtype));
  }
  // A packed element's byte and its first bit within it.
  std::optional<std::pair<uint64_t, int>> packed_address(int lane, const int* c,
                                                         const std::vector<Lanes>& offsets) const {
    const auto i = index(lane, c, offsets);
    if (!i) return std::nullopt;
    check_promised_alignment(w_, *g_, uint64_t(ptr_[lane].i), lane);
    const int64_t bit = *i * dtype_bits(g_->dtype);
    return std::pair{uint64_t(ptr_[lane].i) + uint64_t(bit / 8), int(bit % 8)};
  }
  int64_t extent(int d, int lane) const { return shape_[size_t(d)][lane].i; }

 private:
  // The element's index from the view's pointer; none outside the view.
  std::optional<int64_t> index(int lane, const int* c, const std::vector<Lanes>& offsets,
                               IndexedCoordinate indexed = {}) const {
    int64_t index = 0;
    for (int d = 0; d < g_->rank(); ++d) {
      const int64_t coord = (d == indexed.dim ? indexed.value : c[d]) + offsets[size_t(d)][lane].i;
      if (coord < 0 || coord >= extent(d, lane)) return std::nullopt;
      index += coord * strides_[size_t(d)][lane].i;
    }
    return index;
  }

  const Warp& w_;
  const ir::GlobalTensor& g_;
  Lanes ptr_;
  std::vector<Lanes> shape_, strides_;
};

}  // namespace tessel::sim
