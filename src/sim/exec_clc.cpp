// Simulator semantics of cluster launch control: the group's first thread hands its try_cancel to
// the block's unit (clc_unit.cpp); every thread that queries a response reads it from shared
// memory, and a block that read a failed response may not ask again.
#include <cstring>

#include "machine.hpp"

namespace tessel::sim {

namespace {

// The first shared byte of the response tile `tile` as `lane` names it, checked to be 16-byte
// aligned.
int64_t response_byte(Warp& w, const ir::SharedTensorNode& tile, int lane, const SourceLoc& loc,
                      std::string_view operation) {
  const ir::SharedTensorNode& allocation = *tile.allocation();
  const int64_t first = w.cta.shared_offsets.at(&allocation);
  const int64_t view = tile.offset ? w.eval(tile.offset, Mask(1) << lane)[size_t(lane)].i : 0;
  const int64_t byte = first + view * dtype_bytes(tile.dtype);
  if (byte % ir::kClcResponseBytes != 0)
    throw Error(loc, fmt::format("{0}: the response starts at byte {1} of {2} (allocated at {3}), which is not a "
                                 "multiple of {4} (thread {5} of block {6}); responses are {4}-byte aligned",
                                 operation, byte - first, allocation.name, allocation.loc.str(), ir::kClcResponseBytes,
                                 w.thread(lane), w.cta.block_name()));
  return byte;
}

}  // namespace

void exec_ClcTryCancel(Warp& w, const ir::ClcTryCancelNode& n, Mask mask) {
  const int lane = issuing_lane(w, mask);
  if (lane < 0) return;
  if (const SourceLoc* failure = w.cta.clc_failure_observed_at)
    throw Error(n.loc, fmt::format("clc.try_cancel: block {} asks again (thread {}) after its response read at {} "
                                   "found no cluster left to cancel; a request after an observed failure is undefined: "
                                   "leave the loop once is_canceled is false",
                                   w.cta.block_name(), w.thread(lane), failure->str()));
  const int64_t response = response_byte(w, *n.response, lane, n.loc, "clc.try_cancel");
  const int64_t barrier = mbarrier_byte(w, n.barrier, lane, n.loc, "clc.try_cancel");
  std::vector<Cta*> targets = n.multicast
                                  ? multicast_blocks(w, (int64_t(1) << w.cta.kernel.cluster_blocks()) - 1, n.barrier,
                                                     lane, n.loc, "clc.try_cancel", "receives the response")
                                  : std::vector<Cta*>{&w.cta};
  w.cta.clc.issue(w.thread(lane), response, barrier, std::move(targets), w.clock, n.loc);
  w.tick();
  w.cta.scheduler.issued(w.cta.clc);
}

void exec_ClcQuery(Warp& w, const ir::ClcQueryNode& n, Mask mask) {
  Lanes canceled{}, x{}, y{}, z{};
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int64_t byte = response_byte(w, *n.response, lane, n.loc, "clc.query_response");
    w.cta.check_not_in_flight(byte, ir::kClcResponseBytes, false, n.loc, w.thread(lane));
    w.cta.access_shared(w, byte, ir::kClcResponseBytes, false, n.loc, "clc.query_response");
    for (int b = 0; b < ir::kClcResponseBytes; ++b)
      if (!w.cta.written[size_t(byte + b)])
        throw Error(n.loc, fmt::format("clc.query_response: reads a response that no try_cancel wrote ({}, allocated "
                                       "at {}; thread {} of block {}); query a response after waiting on the "
                                       "mbarrier phase of the try_cancel that fills it",
                                       n.response->allocation()->name, n.response->allocation()->loc.str(),
                                       w.thread(lane), w.cta.block_name()));
    ClcResponseWords response;
    std::memcpy(&response, &w.cta.smem[size_t(byte)], sizeof response);
    canceled[size_t(lane)].i = response.canceled;
    x[size_t(lane)].i = int32_t(response.x);
    y[size_t(lane)].i = int32_t(response.y);
    z[size_t(lane)].i = int32_t(response.z);
    if (!response.canceled) w.cta.clc_failure_observed_at = &n.loc;
  }
  w.assign(n.canceled.get(), canceled, mask);
  w.assign(n.x.get(), x, mask);
  w.assign(n.y.get(), y, mask);
  w.assign(n.z.get(), z, mask);
}

}  // namespace tessel::sim
