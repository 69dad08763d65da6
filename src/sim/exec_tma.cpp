// Simulator semantics of TMA: the group's first thread hands its stores to the block's TMA engine
// (tma_unit.cpp), which reads the box's shared image and writes global memory when it completes.
#include "machine.hpp"
#include "tessel/sim/tma_box.hpp"

namespace tessel::sim {

namespace {

// The lane of the thread that issues the group's TMA instructions, or -1 when it is not in this
// warp's active lanes.
int issuing_lane(const Warp& w, Mask mask) {
  for (int lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1) && w.thread_in_group(lane) == 0) return lane;
  return -1;
}

}  // namespace

void exec_TmaStore(Warp& w, const ir::TmaStoreNode& n, Mask mask) {
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  TESSEL_CHECK(n.tensor_map >= 0 && size_t(n.tensor_map) < w.cta.tensor_maps.size(),
               "tma store at {} reached the simulator without a tensor map", n.loc.str());
  const ir::TensorMapValues& map = w.cta.tensor_maps[size_t(n.tensor_map)];
  const Mask issuer = Mask(1) << lane;
  std::array<int64_t, ir::kTensorMapMaxRank> coords{};
  for (int d = 0; d < map.rank; ++d) {
    coords[size_t(d)] = w.eval(n.offsets[size_t(map.rank - 1 - d)], issuer)[size_t(lane)].i;
    if (coords[size_t(d)] < 0)
      throw Error(n.loc, fmt::format("tma.shared_to_global: offset {} is {}; TMA stores need non-negative offsets "
                                     "(thread {} of block {})",
                                     map.rank - 1 - d, coords[size_t(d)], w.thread(lane), w.cta.block_name()));
  }
  const int64_t view = n.src->offset ? w.eval(n.src->offset, issuer)[size_t(lane)].i : 0;
  const int64_t allocation = w.cta.shared_offsets.at(n.src->allocation());
  const int64_t begin = allocation + view * dtype_bytes(n.src->dtype), end = begin + box_footprint(map);
  if (begin < allocation || end > allocation + n.src->allocation()->nbytes())
    throw Error(n.loc, fmt::format("tma.shared_to_global: the box's image, bytes [{}, {}) of its {}-byte allocation, "
                                   "lies outside it (thread {} of block {})",
                                   begin - allocation, end - allocation, n.src->allocation()->nbytes(), w.thread(lane),
                                   w.cta.block_name()));
  ir::check_tma_shared_address(begin, map.swizzle_bytes, n.loc);
  const std::vector<uint8_t> elements = box_element_mask(map, begin);
  for (size_t b = 0; b < elements.size(); ++b)
    if (elements[b] && !w.cta.written[size_t(begin) + b])
      throw Error(n.loc, fmt::format("tma.shared_to_global: reads shared memory that was never written: {} (allocated "
                                     "at {}), byte {} of the allocation, stored by thread {} of block {}; store to the "
                                     "tile (and sync()) before storing it to global memory",
                                     n.src->allocation()->name, n.src->allocation()->loc.str(),
                                     begin + int64_t(b) - allocation, w.thread(lane), w.cta.block_name()));
  w.cta.tma.issue_store(w.thread(lane), map, coords, begin, n.loc);
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
}

}  // namespace tessel::sim
