// The cluster-launch-control instruction group (`clc.try_cancel`, `clc.query_response`; sm_100a):
// a persistent kernel asks the hardware to cancel the launch of a cluster that has not started and
// processes that cluster's work itself, until none is left (PTX ISA 9.7.13.17-18).
#pragma once

#include <source_location>

#include "tessel/lang/cluster.hpp"
#include "tessel/lang/mbarrier.hpp"
#include "tessel/lang/tensors.hpp"

namespace tessel {

// What a response says: whether a cluster was cancelled and, when one was, the blockIdx of its
// first block (undefined otherwise).
struct ClcResponse {
  Expr<bool> is_canceled;
  Index3 first_ctaid;
};

class ClcInstructions {
 public:
  using loc_t = std::source_location;

  // Issued by the first thread of the group that runs it (put it in single_thread()): asks to
  // cancel one cluster of the grid that has not started. The 16-byte response lands in
  // `response`, a 16-byte shared tile (shared_tensor<uint32_t>({4}), or one row of a [n, 4] ring),
  // and completes 16 transaction bytes on `barrier`: announce them with
  // mbarrier.arrive_and_expect_tx(barrier, 16) and wait on the phase before reading the response.
  // After a response said no cluster was cancelled, asking again is undefined: leave the loop.
  void try_cancel(const SharedTensor& response, const Mbarrier& barrier, loc_t loc = loc_t::current());
  // The same, the response landing at `response`'s offset in every block of the cluster and
  // completing its 16 bytes on each one's barrier at `barrier`'s offset (.multicast::cluster::all):
  // `multicast.cta_mask` names every block of the cluster (0b11 for a pair). Every block announces
  // the bytes on its own barrier.
  void try_cancel(const SharedTensor& response, const Mbarrier& barrier, const Multicast& multicast,
                  loc_t loc = loc_t::current());
  // Reads the response in `response` (by every executing thread).
  ClcResponse query_response(const SharedTensor& response, loc_t loc = loc_t::current());
};

}  // namespace tessel
