// Simulator semantics of data movement and of barriers.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "machine.hpp"
#include "memory_access.hpp"
#include "operand_reader.hpp"
#include "tessel/layout/shared_swizzle.hpp"
#include "unwritten_memory.hpp"

namespace tessel::sim {

// The barrier expects the threads of the group the sync() runs in: the block's for barrier 0.
void exec_Sync(Warp& w, const ir::SyncNode& n, Mask mask) {
  TESSEL_CHECK(n.barrier != ir::SyncNode::kUnallocated, "sync at {} reached the simulator without a barrier",
               n.loc.str());
  w.cta.arrive_at_barrier(w, n.barrier, mask, n.loc, "sync()");
}

void exec_AllocShared(Warp& w, const ir::AllocSharedNode& n, Mask) { w.cta.shared_offsets[n.tensor.get()] = n.offset; }

// The planner acts on a free; the race detector orders the freed tile's accesses against those of
// the tile that takes its bytes, as it orders any two accesses of the same bytes, and names the free.
// A read of the later tile that finds bytes the freed one wrote is reported too (unwritten_memory.cpp).
void exec_FreeShared(Warp& w, const ir::FreeSharedNode& n, Mask) { w.cta.freed_at.emplace(n.tensor.get(), &n.loc); }

namespace {

constexpr std::string_view kLoadGlobal = "load_global", kStoreGlobal = "store_global", kLoadShared = "load_shared",
                           kStoreShared = "store_shared", kLoadGlobalGather = "load_global_gather",
                           kStoreGlobalScatter = "store_global_scatter", kLoadSharedGather = "load_shared_gather",
                           kStoreSharedScatter = "store_shared_scatter";

// Tells the race detector that the instruction at `loc` moves a tile whose copies are in several
// warps (an in-place update of such a tile races between them).
void note_copies(Warp& w, const SourceLoc& loc, std::string_view operation, const ir::RegisterTensorNode* tile) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (!hb.enabled()) return;
  if (const int warps = w.cta.tables.warps_with_copies(tile); warps > 1) hb.note_copies(&loc, operation, warps);
}

// Tells the race detector that the instruction at `loc` moves a packed view, which atomics do not take.
void note_packed(Warp& w, const SourceLoc& loc, std::string_view operation) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (hb.enabled()) hb.note_packed(&loc, operation);
}

// Where a tile keeps copies of its elements in several lanes of a warp, a store writes one address
// from each, and the GPU keeps one of them, which one undefined: copies that differ (made so by a
// warp shuffle, say) are an error at the store. So are a scatter's elements that go to one address
// with different values. Copies and targets in other warps are the race checker's.
class CopiesAgree {
 public:
  CopiesAgree(const ir::RegisterTensorNode& tile, std::string_view operation, const SourceLoc& loc,
              bool scatter = false)
      : tile_(tile),
        operation_(operation),
        loc_(loc),
        scatter_(scatter),
        active_(scatter || !tile.layout.replica_spans().empty()) {}

  void check(const Warp& w, uint64_t address, int lane, const int* c, ir::Scalar v, DType t) {
    if (!active_) return;
    const int rank = tile_.layout.rank();
    // A scatter's elements are told apart by their coordinates; a plain store's copies share them.
    const auto [it, fresh] =
        seen_.try_emplace(address, Seen{lane, scatter_ ? std::vector<int>(c, c + rank) : std::vector<int>{}, v});
    const ir::Scalar kept = it->second.value;
    if (fresh || (t == DType::Bool ? (kept.i != 0) == (v.i != 0) : ir::bits_of(t, kept) == ir::bits_of(t, v))) return;
    const auto text = [&](ir::Scalar x) { return is_float(t) ? fmt::format("{}", x.f) : fmt::format("{}", x.i); };
    const std::vector<int>& first = it->second.coords;
    if (scatter_ && !std::equal(first.begin(), first.end(), c))
      throw Error(loc_, fmt::format("{}: elements ({}) and ({}) of the tile created at {} go to the same element of "
                                    "the view with different values, {} and {} (threads {} and {}), and which one "
                                    "memory keeps is undefined; give each element its own place, or combine them "
                                    "with atomic.scatter_add",
                                    operation_, fmt::join(first, ", "), fmt::join(c, c + rank, ", "), tile_.loc.str(),
                                    text(kept), text(v), w.thread(it->second.lane), w.thread(lane)));
    throw Error(loc_, fmt::format("{} of the tile created at {} ({}), which keeps copies of each element in several "
                                  "lanes: threads {} and {} hold different values of element ({}), {} and {}, and "
                                  "which one memory keeps is undefined; an operation that differs between the copies "
                                  "(a warp shuffle) made them differ: give the tile a layout without copies before it",
                                  operation_, tile_.loc.str(), tile_.layout.str(), w.thread(it->second.lane),
                                  w.thread(lane), fmt::join(c, c + rank, ", "), text(kept), text(v)));
  }

 private:
  struct Seen {
    int lane;
    std::vector<int> coords;
    ir::Scalar value;
  };
  const ir::RegisterTensorNode& tile_;
  std::string_view operation_;
  const SourceLoc& loc_;
  bool scatter_, active_;
  std::map<uint64_t, Seen> seen_;
};

// A gather's or scatter's coordinate along its indexed dimension: the element of the index tile
// that the moved tile's element in slot `l` of `lane` broadcasts from. None for a plain load or store.
class IndexReader {
 public:
  IndexReader(Warp& w, const ir::RegisterTensor& index, int dim, const ir::RegisterTensorNode* tile, Mask mask)
      : dim_(dim), index_{index, nullptr} {
    if (index) reader_.emplace(w, index_, tile, mask);
  }
  IndexedCoordinate operator()(int lane, int l) const {
    return reader_ ? IndexedCoordinate{dim_, (*reader_)(lane, l).i} : IndexedCoordinate{};
  }

 private:
  int dim_;
  ir::Operand index_;  // read by reader_, which keeps a reference to it
  std::optional<OperandReader> reader_;
};

// The coordinates of a shared gather's or scatter's element: the tile's, with the indexed one taken
// from the index tile; whether that one, plus its offset, lies inside the shared view's `shape`
// (the others always do). A plain access's coordinates are the tile's.
class IndexedCoords {
 public:
  IndexedCoords(const int* tile, int rank, IndexedCoordinate indexed, const std::vector<Lanes>& offsets, int lane,
                const std::vector<int>& shape)
      : tile_(tile) {
    if (indexed.dim < 0) return;
    const int64_t coord = indexed.value + offsets[size_t(indexed.dim)][lane].i;
    inside_ = coord >= 0 && coord < shape[size_t(indexed.dim)];
    own_.assign(tile, tile + rank);
    own_[size_t(indexed.dim)] = int(indexed.value);
  }
  bool inside() const { return inside_; }
  const int* get() const { return own_.empty() ? tile_ : own_.data(); }

 private:
  const int* tile_;
  std::vector<int> own_;
  bool inside_ = true;
};

// A packed element is a part of a byte or two: its load reads them, its store writes them back
// whole with the element replaced.
void load_packed_global(Warp& w, const ir::LoadGlobalNode& n, Mask mask) {
  note_copies(w, n.loc, kLoadGlobal, n.out.get());
  note_packed(w, n.loc, kLoadGlobal);
  const auto offsets = eval_all(w, n.offsets, mask);
  const GlobalViewLanes view(w, n.src, mask);
  auto& out = w.tile(n.out.get());
  const int local = n.out->layout.local_size();
  for_each_element(w, n.out.get(), mask, [&](int lane, int, int l, const int* c) {
    ir::Scalar v = ir::normalize(n.src->dtype,
                                 is_float(n.src->dtype) ? ir::Scalar{.f = n.fill} : ir::Scalar{.i = int64_t(n.fill)});
    if (const auto at = view.packed_address(lane, c, offsets)) {
      const int bytes = packed_bytes(n.src->dtype, at->second);
      check_global_access(at->first, size_t(bytes), false, n.loc, parameter_of(w, *n.src));
      if (n.src->read_only)
        read_global_non_coherent(w, at->first, size_t(bytes), n.loc, kLoadGlobal);
      else
        access_global(w, at->first, size_t(bytes), false, n.loc, kLoadGlobal);
      v = load_packed(n.src->dtype, reinterpret_cast<const uint8_t*>(at->first), at->second);
    }
    out[size_t(lane) * local + l] = v;
  });
}

// Whether the generated code stores the element in slot `l` (at coordinates `c`) of `lane` in whole
// words: its run of n.vector slots lies in the view, starts on a byte and is aligned for its words
// (codegen/packed_tiles.cpp). It stores any other element alone, with atomics on its word.
bool stored_in_words(const ir::StoreGlobalNode& n, const GlobalViewLanes& view, int lane, int l, const int* c,
                     const std::vector<Lanes>& offsets) {
  const int run = n.vector;
  if (run == 1) return false;
  const int rank = n.src->layout.rank();
  std::vector<int> ends(c, c + rank);
  ends.back() -= l % run;
  const auto first = view.packed_address(lane, ends.data(), offsets);
  ends.back() += run - 1;
  if (!first || first->second != 0 || !view.packed_address(lane, ends.data(), offsets)) return false;
  const int words = run * dtype_bits(n.dst->dtype) / 32;
  const int alignment = (words & (words - 1)) == 0 ? 4 * words : 4;
  return first->first % uint64_t(alignment) == 0;
}

void store_packed_global(Warp& w, const ir::StoreGlobalNode& n, Mask mask) {
  note_copies(w, n.loc, kStoreGlobal, n.src.get());
  note_packed(w, n.loc, kStoreGlobal);
  const auto offsets = eval_all(w, n.offsets, mask);
  const GlobalViewLanes view(w, n.dst, mask);
  auto& src = w.tile(n.src.get());
  const int local = n.src->layout.local_size();
  for_each_element(w, n.src.get(), mask, [&](int lane, int, int l, const int* c) {
    const auto at = view.packed_address(lane, c, offsets);
    if (!at) return;
    const int bytes = packed_bytes(n.dst->dtype, at->second);
    check_global_access(at->first, size_t(bytes), true, n.loc, parameter_of(w, *n.dst));
    auto* memory = reinterpret_cast<uint8_t*>(at->first);
    uint8_t incoming[2];
    std::memcpy(incoming, memory, size_t(bytes));
    store_packed(n.dst->dtype, incoming, at->second, src[size_t(lane) * local + l]);
    if (stored_in_words(n, view, lane, l, c, offsets))
      access_global(w, at->first, size_t(bytes), true, n.loc, kStoreGlobal, incoming);
    else
      store_global_packed_alone(w, at->first, at->second, n.dst->dtype, n.loc, kStoreGlobal, incoming);
    std::memcpy(memory, incoming, size_t(bytes));
  });
}

}  // namespace

void exec_LoadGlobal(Warp& w, const ir::LoadGlobalNode& n, Mask mask) {
  TESSEL_CHECK(!n.index || !is_packed(n.src->dtype), "a gather of packed elements at {}", n.loc.str());
  if (is_packed(n.src->dtype)) return load_packed_global(w, n, mask);
  const std::string_view operation = n.index ? kLoadGlobalGather : kLoadGlobal;
  note_copies(w, n.loc, operation, n.out.get());
  const auto offsets = eval_all(w, n.offsets, mask);
  const GlobalViewLanes view(w, n.src, mask);
  const IndexReader indexed(w, n.index, n.index_dim, n.out.get(), mask);
  auto& out = w.tile(n.out.get());
  const int local = n.out->layout.local_size();
  const size_t bytes = dtype_bytes(n.src->dtype);
  for_each_element(w, n.out.get(), mask, [&](int lane, int, int l, const int* c) {
    ir::Scalar v = is_float(n.src->dtype) ? ir::Scalar{.f = n.fill} : ir::Scalar{.i = int64_t(n.fill)};
    if (const auto addr = view.address(lane, c, offsets, indexed(lane, l))) {
      check_global_access(*addr, bytes, false, n.loc, parameter_of(w, *n.src));
      if (n.src->read_only)
        read_global_non_coherent(w, *addr, bytes, n.loc, operation);
      else
        access_global(w, *addr, bytes, false, n.loc, operation);
      v = load_value(n.src->dtype, reinterpret_cast<const void*>(*addr));
    }
    out[size_t(lane) * local + l] = v;
  });
}

void exec_StoreGlobal(Warp& w, const ir::StoreGlobalNode& n, Mask mask) {
  TESSEL_CHECK(!n.index || !is_packed(n.dst->dtype), "a scatter of packed elements at {}", n.loc.str());
  if (is_packed(n.dst->dtype)) return store_packed_global(w, n, mask);
  const std::string_view operation = n.index ? kStoreGlobalScatter : kStoreGlobal;
  note_copies(w, n.loc, operation, n.src.get());
  const auto offsets = eval_all(w, n.offsets, mask);
  const GlobalViewLanes view(w, n.dst, mask);
  const IndexReader indexed(w, n.index, n.index_dim, n.src.get(), mask);
  auto& src = w.tile(n.src.get());
  const int local = n.src->layout.local_size();
  const size_t bytes = dtype_bytes(n.dst->dtype);
  CopiesAgree copies(*n.src, operation, n.loc, bool(n.index));
  for_each_element(w, n.src.get(), mask, [&](int lane, int, int l, const int* c) {
    const auto addr = view.address(lane, c, offsets, indexed(lane, l));
    if (!addr) return;
    check_global_access(*addr, bytes, true, n.loc, parameter_of(w, *n.dst));
    copies.check(w, *addr, lane, c, src[size_t(lane) * local + l], n.dst->dtype);
    uint8_t incoming[8];
    store_value(n.dst->dtype, incoming, src[size_t(lane) * local + l]);
    access_global(w, *addr, bytes, true, n.loc, operation, incoming);
    std::memcpy(reinterpret_cast<void*>(*addr), incoming, bytes);
  });
}

namespace {

// ldmatrix and stmatrix, which select_instructions may make of a fragment's load or store, are
// .sync.aligned: the whole warp runs them together.
void require_whole_warp_for_matrix(const Warp& w, const ir::MatrixAccess& matrix, std::string_view operation, Mask mask,
                                   const SourceLoc& loc) {
  if (matrix.instruction != ir::MatrixInstruction::None)
    w.require_whole_warp(mask, fmt::format("{} (as {})", operation, matrix.str()), loc);
}

}  // namespace

void exec_LoadShared(Warp& w, const ir::LoadSharedNode& n, Mask mask) {
  const std::string_view operation = n.index ? kLoadSharedGather : kLoadShared;
  require_whole_warp_for_matrix(w, n.matrix, operation, mask, n.loc);
  note_copies(w, n.loc, operation, n.out.get());
  const auto offsets = eval_all(w, n.offsets, mask);
  const Lanes view = n.src->offset ? w.eval(n.src->offset, mask) : Lanes{};
  const SharedOwners owners(w, n.rank, mask, n.loc, operation, false);
  const IndexReader indexed(w, n.index, n.index_dim, n.out.get(), mask);
  auto& out = w.tile(n.out.get());
  const int local = n.out->layout.local_size();
  const DType t = n.src->dtype;
  for_each_element(w, n.out.get(), mask, [&](int lane, int, int l, const int* tile_coords) {
    IndexedCoords c(tile_coords, n.out->rank(), indexed(lane, l), offsets, lane, n.src->shape);
    if (!c.inside()) {
      out[size_t(lane) * local + l] =
          ir::normalize(t, is_float(t) ? ir::Scalar{.f = n.fill} : ir::Scalar{.i = int64_t(n.fill)});
      return;
    }
    Cta& owner = owners(lane);
    const SharedAddress a = shared_address(w, n.src, view, lane, offsets, c.get(), n.loc);
    const int bytes = is_packed(t) ? packed_bytes(t, a.shift) : dtype_bytes(t);
    check_shared_read(w, owner, a, bytes, lane, n.loc, "loading");
    owner.access_shared(w, a.byte, bytes, false, n.loc, operation);
    out[size_t(lane) * local + l] = is_packed(t) ? load_packed(t, &owner.smem[size_t(a.byte)], a.shift)
                                                 : load_value(t, &owner.smem[size_t(a.byte)]);
  });
}

void exec_StoreShared(Warp& w, const ir::StoreSharedNode& n, Mask mask) {
  const std::string_view operation = n.index ? kStoreSharedScatter : kStoreShared;
  require_whole_warp_for_matrix(w, n.matrix, operation, mask, n.loc);
  note_copies(w, n.loc, operation, n.src.get());
  const auto offsets = eval_all(w, n.offsets, mask);
  const Lanes view = n.dst->offset ? w.eval(n.dst->offset, mask) : Lanes{};
  const SharedOwners owners(w, n.rank, mask, n.loc, operation, true);
  const IndexReader indexed(w, n.index, n.index_dim, n.src.get(), mask);
  auto& src = w.tile(n.src.get());
  const int local = n.src->layout.local_size();
  const DType t = n.dst->dtype;
  CopiesAgree copies(*n.src, operation, n.loc, bool(n.index));
  for_each_element(w, n.src.get(), mask, [&](int lane, int, int l, const int* tile_coords) {
    IndexedCoords c(tile_coords, n.src->rank(), indexed(lane, l), offsets, lane, n.dst->shape);
    if (!c.inside()) return;
    Cta& owner = owners(lane);
    const SharedAddress a = shared_address(w, n.dst, view, lane, offsets, c.get(), n.loc);
    const int bytes = is_packed(t) ? packed_bytes(t, a.shift) : dtype_bytes(t);
    owner.check_not_in_flight(a.byte, bytes, true, n.loc, w.thread(lane), &w.cta, false, &w.clock);
    uint8_t incoming[8];
    const ir::Scalar v = src[size_t(lane) * local + l];
    if (!is_packed(t)) copies.check(w, owners.address(lane, a.byte), lane, tile_coords, v, t);
    if (is_packed(t)) {
      std::memcpy(incoming, &owner.smem[size_t(a.byte)], size_t(bytes));
      store_packed(t, incoming, a.shift, v);
      // Without runs of whole words, the generated code stores each element alone, with atomics.
      if (n.vector == 1)
        return owner.store_shared_packed_alone(w, w.thread(lane), a.byte, incoming, a.shift, t, n.loc, operation,
                                               a.allocation);
    } else {
      store_value(t, incoming, v);
    }
    owner.store_shared(w, w.thread(lane), a.byte, incoming, bytes, n.loc, operation, a.allocation);
  });
}

}  // namespace tessel::sim
