// Simulator semantics of TMA: the group's first thread hands its stores and loads to the block's
// TMA engine (tma_unit.cpp), which moves the box between its shared image and global memory when
// it completes.
#include "machine.hpp"
#include "tessel/sim/tma_box.hpp"
#include "unwritten_memory.hpp"

namespace tessel::sim {

namespace {

// The box's coordinates, innermost first, from the issuing lane's offsets (outermost first).
std::array<int64_t, ir::kTensorMapMaxRank> box_coordinates(Warp& w, const std::vector<ir::Expr>& offsets, int lane) {
  const int rank = int(offsets.size());
  std::array<int64_t, ir::kTensorMapMaxRank> coords{};
  for (int d = 0; d < rank; ++d)
    coords[size_t(d)] = w.eval(offsets[size_t(rank - 1 - d)], Mask(1) << lane)[size_t(lane)].i;
  return coords;
}

// The first shared byte of `tile`'s box image, checked to lie in its allocation and to be aligned
// as TMA requires.
int64_t box_start(Warp& w, const ir::SharedTensorNode& tile, const ir::TensorMapValues& map, int lane,
                  const SourceLoc& loc, std::string_view operation) {
  const ir::SharedTensorNode& allocation = *tile.allocation();
  const int64_t first = w.cta.shared_offsets.at(&allocation);
  const int64_t view = tile.offset ? w.eval(tile.offset, Mask(1) << lane)[size_t(lane)].i : 0;
  const int64_t begin = first + view * ir::tma_shared_element_bytes(tile.dtype), end = begin + box_footprint(map);
  if (begin < first || end > first + allocation.nbytes())
    throw Error(loc, fmt::format("{}: the box's image, bytes [{}, {}) of its {}-byte allocation, lies outside it "
                                 "(thread {} of block {})",
                                 operation, begin - first, end - first, allocation.nbytes(), w.thread(lane),
                                 w.cta.block_name()));
  ir::check_tma_shared_address(begin, map.swizzle_bytes, loc);
  return begin;
}

// Throws unless every byte of the image at `begin` that holds an element was written.
void check_image_written(const Warp& w, const ir::SharedTensorNode& tile, const ir::TensorMapValues& map, int64_t begin,
                         int lane, const SourceLoc& loc, std::string_view operation = "tma.shared_to_global") {
  const std::vector<uint8_t> elements = box_element_mask(map, begin);
  for (size_t b = 0; b < elements.size(); ++b)
    if (elements[b] && !w.cta.written[size_t(begin) + b]) {
      const ir::SharedTensorNode& allocation = *tile.allocation();
      throw Error(loc, fmt::format("{}: reads shared memory that was never written: {} (allocated at {}), byte {} of "
                                   "the allocation, stored by thread {} of block {}; store to the tile (and sync()) "
                                   "before storing it to global memory{}",
                                   operation, allocation.name, allocation.loc.str(),
                                   begin + int64_t(b) - w.cta.shared_offsets.at(&allocation), w.thread(lane),
                                   w.cta.block_name(), unwritten_memory_cause(w.cta, begin + int64_t(b), w.id)));
    }
}

// Throws unless the box's first element lies 16-byte aligned in global memory: the tensor's address
// and the strides of its outer dimensions are multiples of 16 bytes, so the innermost offset decides.
// On Hopper a box that starts elsewhere ends the kernel with an illegal instruction. Packed elements
// have their chunk rule instead (exec_TmaLoad).
void check_box_alignment(const Warp& w, const ir::TensorMapValues& map, int64_t innermost, int lane,
                         const SourceLoc& loc, std::string_view operation) {
  if (is_packed(map.dtype)) return;
  const int64_t bytes = dtype_bytes(map.dtype);
  if (innermost * bytes % 16 == 0) return;
  throw Error(loc, fmt::format("{}: the last offset (the innermost dimension) is {}, {} bytes from the start of a "
                               "row of {}; TMA needs a box's first element 16-byte aligned in global memory, so that "
                               "offset must be a multiple of {} (thread {} of block {})",
                               operation, innermost, innermost * bytes, dtype_name(map.dtype), 16 / bytes,
                               w.thread(lane), w.cta.block_name()));
}

// Race detection's view of the box's bytes in global memory at issue: checked against the kernels
// this launch may overlap, and kept for the next launch's check. The TMA engine checks them against
// this launch's accesses when the copy completes.
void note_box_global_bytes(Warp& w, const ir::TensorMapValues& map, std::span<const int64_t> coords, bool write,
                           const Access& at) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (!hb.enabled()) return;
  for_each_global_run(map, coords,
                      [&](uint64_t address, int64_t n) { hb.untracked_global_access(address, n, write, w.clock, at); });
}

}  // namespace

int issuing_lane(const Warp& w, Mask mask) {
  for (int lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1) && w.thread_in_group(lane) == 0) return lane;
  return -1;
}

void exec_TmaStore(Warp& w, const ir::TmaStoreNode& n, Mask mask) {
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  TESSEL_CHECK(n.tensor_map >= 0 && size_t(n.tensor_map) < w.cta.tensor_maps.size(),
               "tma store at {} reached the simulator without a tensor map", n.loc.str());
  const ir::TensorMapValues& map = w.cta.tensor_maps[size_t(n.tensor_map)];
  const auto coords = box_coordinates(w, n.offsets, lane);
  for (int d = 0; d < map.rank; ++d)
    if (coords[size_t(d)] < 0)  // PTX ISA 9.7.9.25.5.1: stores start inside the tensor
      throw Error(n.loc, fmt::format("tma.shared_to_global: offset {} is {}; TMA stores need non-negative offsets "
                                     "(thread {} of block {})",
                                     map.rank - 1 - d, coords[size_t(d)], w.thread(lane), w.cta.block_name()));
  check_box_alignment(w, map, coords[0], lane, n.loc, "tma.shared_to_global");
  const int64_t begin = box_start(w, *n.src, map, lane, n.loc, "tma.shared_to_global");
  check_image_written(w, *n.src, map, begin, lane, n.loc);
  w.cta.check_async_read(w.clock, w.access(n.loc, "tma.shared_to_global"), begin, begin + box_footprint(map));
  note_box_global_bytes(w, map, std::span(coords).first(size_t(map.rank)), true,
                        w.access(n.loc, "tma.shared_to_global"));
  w.cta.tma.issue_store(w.thread(lane), map, coords, begin, w.clock, n.loc);
  w.tick();
  w.cta.scheduler.issued(w.cta.tma);
}

void exec_TmaLoad(Warp& w, const ir::TmaLoadNode& n, Mask mask) {
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  TESSEL_CHECK(n.tensor_map >= 0 && size_t(n.tensor_map) < w.cta.tensor_maps.size(),
               "tma load at {} reached the simulator without a tensor map", n.loc.str());
  const ir::TensorMapValues& map = w.cta.tensor_maps[size_t(n.tensor_map)];
  const auto coords = box_coordinates(w, n.offsets, lane);
  if (is_packed(map.dtype) && coords[0] % ir::kTmaPackedChunk != 0)
    throw Error(n.loc, fmt::format("tma.global_to_shared: the box starts at element {} of the rows of packed {} "
                                   "elements; TMA moves them {} to a chunk, so a box starts at a multiple of {} "
                                   "(thread {} of block {})",
                                   coords[0], dtype_name(map.dtype), ir::kTmaPackedChunk, ir::kTmaPackedChunk,
                                   w.thread(lane), w.cta.block_name()));
  check_box_alignment(w, map, coords[0], lane, n.loc, "tma.global_to_shared");
  const int64_t begin = box_start(w, *n.dst, map, lane, n.loc, "tma.global_to_shared");
  const int64_t barrier = mbarrier_byte(w, n.barrier, lane, n.loc, "tma.global_to_shared");
  std::vector<Cta*> targets = n.cta_mask
                                  ? multicast_blocks(w, w.eval(n.cta_mask, Mask(1) << lane)[size_t(lane)].i, n.barrier,
                                                     lane, n.loc, "tma.global_to_shared", "receives the box")
                                  : std::vector<Cta*>{&w.cta};
  Cta* barrier_block = nullptr;
  if (n.barrier_rank) {
    barrier_block =
        &pair_block(w, w.eval(n.barrier_rank, Mask(1) << lane)[size_t(lane)].i, lane, n.loc, "tma.global_to_shared");
    barrier_block->mbarriers.at(
        barrier, *n.barrier.array->allocation(),
        int((barrier - w.cta.shared_offsets.at(n.barrier.array->allocation())) / 8),
        fmt::format("tma.global_to_shared to the barrier of block {}", barrier_block->block_name()),
        {&n.loc, w.thread(lane), w.cta.block_name()});
  }
  note_box_global_bytes(w, map, std::span(coords).first(size_t(map.rank)), false,
                        w.access(n.loc, "tma.global_to_shared"));
  w.cta.tma.issue_load(w.thread(lane), map, coords, begin, barrier, std::move(targets), barrier_block, w.clock, n.loc);
  w.tick();
  w.cta.scheduler.issued(w.cta.tma);
}

namespace {

// The first shared byte of `tile` (the same in every block of the cluster), checked to lie in its
// allocation and to be 16-byte aligned, as a bulk copy's addresses must be.
int64_t bulk_copy_start(Warp& w, const ir::SharedTensorNode& tile, int lane, const SourceLoc& loc,
                        std::string_view operation) {
  const ir::SharedTensorNode& allocation = *tile.allocation();
  const int64_t first = w.cta.shared_offsets.at(&allocation);
  const int64_t view = tile.offset ? w.eval(tile.offset, Mask(1) << lane)[size_t(lane)].i : 0;
  const int64_t begin = first + view * dtype_bytes(tile.dtype), end = begin + tile.nbytes();
  if (begin < first || end > first + allocation.nbytes())
    throw Error(loc, fmt::format("{}: the tile, bytes [{}, {}) of its {}-byte allocation (allocated at {}), lies "
                                 "outside it (thread {} of block {})",
                                 operation, begin - first, end - first, allocation.nbytes(), allocation.loc.str(),
                                 w.thread(lane), w.cta.block_name()));
  if (begin % 16 != 0)
    throw Error(loc, fmt::format("{}: the tile {} starts at byte {} of shared memory; a bulk copy needs 16-byte "
                                 "aligned shared addresses (thread {} of block {})",
                                 operation, tile.name, begin, w.thread(lane), w.cta.block_name()));
  return begin;
}

}  // namespace

void exec_TmaSharedToCluster(Warp& w, const ir::TmaSharedToClusterNode& n, Mask mask) {
  constexpr std::string_view operation = "tma.shared_to_cluster";
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  const int64_t rank = w.eval(n.rank, Mask(1) << lane)[size_t(lane)].i;
  Cta& target = remote_shared_block(w, rank, lane, n.loc, operation, true);
  const int64_t src = bulk_copy_start(w, *n.src, lane, n.loc, operation),
                dst = bulk_copy_start(w, *n.dst, lane, n.loc, operation);
  const int64_t bytes = n.src->nbytes();
  for (int64_t b = src; b < src + bytes; ++b)
    if (!w.cta.written[size_t(b)]) {
      const ir::SharedTensorNode& allocation = *n.src->allocation();
      throw Error(
          n.loc, fmt::format("{}: reads shared memory that was never written: {} (allocated at {}), byte {} of "
                             "the allocation (thread {} of block {}); store to the tile (and sync()) before "
                             "copying it{}",
                             operation, allocation.name, allocation.loc.str(), b - w.cta.shared_offsets.at(&allocation),
                             w.thread(lane), w.cta.block_name(), unwritten_memory_cause(w.cta, b, w.id)));
    }
  const int64_t barrier = mbarrier_byte(w, n.barrier, lane, n.loc, operation);
  target.mbarriers.at(barrier, *n.barrier.array->allocation(),
                      int((barrier - w.cta.shared_offsets.at(n.barrier.array->allocation())) / 8),
                      fmt::format("{} to block {}", operation, target.block_name()),
                      {&n.loc, w.thread(lane), w.cta.block_name()});
  w.cta.check_async_read(w.clock, w.access(n.loc, operation), src, src + bytes);
  w.cta.tma.issue_cluster_copy(w.thread(lane), src, bytes, target, dst, barrier, w.clock, n.loc);
  w.tick();
  w.cta.scheduler.issued(w.cta.tma);
}

void exec_TmaCommit(Warp& w, const ir::TmaCommitNode&, Mask mask) {
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  w.cta.tma.commit(w.thread(lane));
  w.cta.scheduler.issued(w.cta.tma);
}

void exec_TmaWait(Warp& w, const ir::TmaWaitNode& n, Mask mask) {
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  w.wait(n.loc, BulkGroupWait{Mask(1) << lane, n.pending, n.read});
  // Without `read`, the stores of the retired groups wrote global memory: the thread observes them.
  if (const int retired = w.cta.tma.committed(w.thread(lane)) - n.pending; !n.read && retired > 0)
    w.clock.raise(w.cta.tma.bulk_actor(w.thread(lane)), Clock(retired));
}

namespace {

// The run of one row of `view` at `offsets` that a bulk copy of `tile` moves, as a tensor map of
// one dimension whose one box is the run, so that the TMA engine's loads and stores move
// it: checked to lie in its row and to start 16-byte aligned in global memory.
ir::TensorMapValues bulk_run(Warp& w, const ir::GlobalTensor& view, const std::vector<ir::Expr>& offsets,
                             const ir::SharedTensorNode& tile, int lane, const SourceLoc& loc,
                             std::string_view operation) {
  const Mask issuer = Mask(1) << lane;
  const auto value = [&](const ir::Expr& e) { return w.eval(e, issuer)[size_t(lane)].i; };
  const int bytes = dtype_bytes(view->dtype), rank = view->rank();
  const int64_t elements = tile.nbytes() / bytes;
  int64_t index = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t offset = value(offsets[size_t(d)]), extent = value(view->shape[d]);
    if (d == rank - 1 && (offset < 0 || offset + elements > extent))
      throw Error(loc, fmt::format("{}: the run of {} elements at element {} of a row of {} leaves the row; a bulk "
                                   "copy moves a run of one row (thread {} of block {})",
                                   operation, elements, offset, extent, w.thread(lane), w.cta.block_name()));
    if (d < rank - 1 && (offset < 0 || offset >= extent))
      throw Error(loc, fmt::format("{}: offset {} of dimension {} is outside the view's extent {} (thread {} of block "
                                   "{})",
                                   operation, offset, d, extent, w.thread(lane), w.cta.block_name()));
    index += offset * value(view->strides[d]);
  }
  check_promised_alignment(w, *view, uint64_t(value(view->ptr)), lane);
  const uint64_t address = uint64_t(value(view->ptr)) + uint64_t(index * bytes);
  if (address % 16 != 0)
    throw Error(loc, fmt::format("{}: the run starts {} bytes past a 16-byte boundary of global memory; a bulk copy "
                                 "needs 16-byte aligned global addresses (thread {} of block {})",
                                 operation, address % 16, w.thread(lane), w.cta.block_name()));
  ir::TensorMapValues run;
  run.dtype = view->dtype;
  run.rank = 1;
  run.address = address;
  run.extents[0] = uint64_t(elements);
  run.strides[0] = bytes;
  run.box[0] = uint32_t(elements);
  return run;
}

}  // namespace

void exec_TmaBulkLoad(Warp& w, const ir::TmaBulkLoadNode& n, Mask mask) {
  constexpr std::string_view operation = "tma.bulk_global_to_shared";
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  const ir::TensorMapValues run = bulk_run(w, n.src, n.offsets, *n.dst, lane, n.loc, operation);
  const int64_t begin = bulk_copy_start(w, *n.dst, lane, n.loc, operation);
  const int64_t barrier = mbarrier_byte(w, n.barrier, lane, n.loc, operation);
  const std::array<int64_t, ir::kTensorMapMaxRank> coords{};
  note_box_global_bytes(w, run, std::span(coords).first(1), false, w.access(n.loc, operation));
  w.cta.tma.issue_load(w.thread(lane), run, coords, begin, barrier, {&w.cta}, nullptr, w.clock, n.loc, operation);
  w.tick();
  w.cta.scheduler.issued(w.cta.tma);
}

void exec_TmaBulkStore(Warp& w, const ir::TmaBulkStoreNode& n, Mask mask) {
  constexpr std::string_view operation = "tma.bulk_shared_to_global";
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  const ir::TensorMapValues run = bulk_run(w, n.dst, n.offsets, *n.src, lane, n.loc, operation);
  const int64_t begin = bulk_copy_start(w, *n.src, lane, n.loc, operation);
  check_image_written(w, *n.src, run, begin, lane, n.loc, operation);
  w.cta.check_async_read(w.clock, w.access(n.loc, operation), begin, begin + box_footprint(run));
  const std::array<int64_t, ir::kTensorMapMaxRank> coords{};
  note_box_global_bytes(w, run, std::span(coords).first(1), true, w.access(n.loc, operation));
  w.cta.tma.issue_store(w.thread(lane), run, coords, begin, w.clock, n.loc, operation);
  w.tick();
  w.cta.scheduler.issued(w.cta.tma);
}

}  // namespace tessel::sim
