// TMA (the tensor memory accelerator, sm_90a+): copies of whole boxes between a global view and a
// shared tile through a tensor map that tessel builds on the host at launch. Each call is issued
// by the first thread of the thread group that runs it; the bulk groups are that thread's.
#pragma once

#include <source_location>
#include <vector>

#include "tessel/lang/cluster.hpp"
#include "tessel/lang/mbarrier.hpp"
#include "tessel/lang/tensors.hpp"

namespace tessel {

class TmaInstructions {
 public:
  using loc_t = std::source_location;

  // Starts writing the shared tile `src` as the box at `offsets` of `dst` (one offset per
  // dimension of dst); elements outside dst are not written. The tile's dimensions are `dims` of
  // dst (empty: its last ones); the box has extent 1 in the others. The tile must not be
  // overwritten until wait_group(n, read = true) retires the store's group; on hardware, shared
  // writes by ordinary stores must be made visible to TMA first (fence.proxy_async, then sync()).
  void shared_to_global(const SharedTensor& src, const GlobalTensor& dst, std::vector<Dim> offsets,
                        std::vector<int> dims = {}, loc_t loc = loc_t::current());
  // Starts loading the box at `offsets` of `src` (one offset per dimension of src; negative or
  // beyond the view reads zeros) into the shared tile `dst`, whose dimensions are `dims` of src
  // (empty: its last ones). The load completes its bytes (the box's, zeros included) on
  // `barrier`: announce them with mbarrier.arrive_and_expect_tx on the same phase, wait on the
  // phase, and only then read the tile.
  void global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                        const Mbarrier& barrier, std::vector<int> dims = {}, loc_t loc = loc_t::current());
  // The same load multicast (sm_90a, clusters): the box lands at dst's offset in every block of the
  // cluster in `multicast.cta_mask` and completes its bytes on each one's barrier at `barrier`'s
  // offset, so every receiving block announces the bytes of all the loads that reach it.
  void global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                        const Mbarrier& barrier, const Multicast& multicast, std::vector<int> dims = {},
                        loc_t loc = loc_t::current());
  // The same load completing its bytes on `barrier` of the block of rank `barrier.rank()` in this
  // block's pair (the two blocks of the cluster whose ranks differ in bit 0; sm_100a,
  // cta_group::2): each block of a pair loads its half of a pair mma's operands, and the even
  // block's barrier, which announces the bytes of both, tells its mma warp that both halves landed.
  void global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                        const RemoteMbarrier& barrier, std::vector<int> dims = {}, loc_t loc = loc_t::current());
  // Starts copying the bytes of this block's shared tile `src` into `dst` (`tile.remote(rank)`, a
  // tile of one type and shape in the block of cluster rank `rank`; sm_90a, clusters), completing
  // them on that block's barrier at `barrier`'s offset: the receiving block announces the bytes
  // (mbarrier.arrive_and_expect_tx), waits on the phase, and only then reads the tile. Until that
  // phase completes the copy may still read `src`; the receiver says when it may be reused.
  void shared_to_cluster(const SharedTensor& src, const RemoteSharedTensor& dst, const Mbarrier& barrier,
                         loc_t loc = loc_t::current());
  // Bulk copies without a tensor map (sm_90a): the dense tile `dst` receives, in row-major order,
  // the run of one row of `src` that starts at `offsets` (one offset per dimension of src), which
  // lies in the row, starts 16-byte aligned and is a multiple of 16 bytes long; the copy completes
  // its bytes on `barrier`, as a TMA load does. No tensor map is built: the row of each copy can be
  // chosen at run time (a gather of rows is a copy per row).
  void bulk_global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                             const Mbarrier& barrier, loc_t loc = loc_t::current());
  // The dense tile `src`, in row-major order, to the run of one row of `dst` at `offsets`, in the
  // issuing thread's bulk group, as a TMA store.
  void bulk_shared_to_global(const SharedTensor& src, const GlobalTensor& dst, std::vector<Dim> offsets,
                             loc_t loc = loc_t::current());
  // Closes the issuing thread's bulk group of the stores issued since the last commit.
  void commit_group(loc_t loc = loc_t::current());
  // Waits until at most `n` of the issuing thread's committed bulk groups are in flight: with
  // `read`, until they finished reading shared memory (their sources may be reused); without,
  // until their global writes are done too.
  void wait_group(int n, bool read = false, loc_t loc = loc_t::current());
};

}  // namespace tessel
