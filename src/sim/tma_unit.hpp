// The TMA engine of a block. Stores are issued per thread and committed into the thread's bulk
// groups; a store reads its shared source and writes the box to global memory in one step, at a
// time the scheduler chooses, no later than the wait that retires its group. Until then the
// source belongs to it: writes to those bytes are reported. A load reads the box from global
// memory and writes its image to shared memory in one step, then completes its bytes on its
// mbarrier; until then the image's bytes are an asynchronous write in flight. Race detection sees
// each copy's global bytes when it completes, as its issuer stood at issue. A multicast load
// does so in every block of the cluster it names, at the same shared offsets. A copy to the
// cluster reads its source and writes it to another block's shared memory in one step, then
// completes its bytes on that block's mbarrier; until then both are in flight.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <vector>

#include "async_agent.hpp"
#include "tessel/ir/tensor_map.hpp"

namespace tessel::sim {

class Cta;

class TmaUnit final : public AsyncAgent {
 public:
  explicit TmaUnit(Cta& cta);

  // Thread `thread` stores the box image at shared bytes [begin, begin + box_footprint(map)), inside
  // the block's shared memory, to `map` at `coords` (innermost first); its warp's clock is `issuer`.
  // `operation` names it in messages when it is not a tensor-map store (a bulk copy's).
  void issue_store(int thread, const ir::TensorMapValues& map, std::array<int64_t, ir::kTensorMapMaxRank> coords,
                   int64_t begin, const VectorClock& issuer, const SourceLoc& loc, std::string_view operation = {});
  // Thread `thread` loads the box of `map` at `coords` into the image at shared byte `begin` of
  // each of `targets` (this block, or the blocks of a multicast); when it completes, the bytes
  // land and count against each target's mbarrier at `barrier_byte`, or against the one of
  // `barrier_block` when given (the cta_group::2 form: a block of this block's pair). `operation`
  // names it in messages when it is not a tensor-map load (a bulk copy's).
  void issue_load(int thread, const ir::TensorMapValues& map, std::array<int64_t, ir::kTensorMapMaxRank> coords,
                  int64_t begin, int64_t barrier_byte, std::vector<Cta*> targets, Cta* barrier_block,
                  const VectorClock& issuer, const SourceLoc& loc, std::string_view operation = {});
  // Thread `thread` copies this block's shared bytes [src, src + bytes) to bytes [dst, dst + bytes)
  // of `target` (a block of the cluster, this one included); when it completes, the bytes land and
  // count against `target`'s mbarrier at `barrier_byte`.
  void issue_cluster_copy(int thread, int64_t src, int64_t bytes, Cta& target, int64_t dst, int64_t barrier_byte,
                          const VectorClock& issuer, const SourceLoc& loc);
  void commit(int thread);
  // The bulk groups thread `thread` committed.
  int committed(int thread) const { return threads_[size_t(thread)].committed; }
  // Race detection's actor of the thread's bulk groups, made on first use: its clock counts the
  // groups a wait_group that is not `read` retired.
  uint32_t bulk_actor(int thread);
  // The thread's committed bulk groups from its oldest incomplete one on (wait_group's count).
  int pending_groups(int thread) const;

  // Throws at the issuing line of a store, or a copy to the cluster, still reading this block's
  // shared memory when block `block` ends.
  void check_no_store_reading(const std::string& block) const;

  std::string_view engine() const override { return "the TMA engine"; }

  std::string_view operation() const override { return "tma.shared_to_global"; }
  std::string_view wait_advice() const override {
    return "the issuing thread must retire the store (tma.commit_group, tma.wait_group(n, read = true)) and sync() "
           "first";
  }
  std::string_view write_operation() const override { return "tma.global_to_shared"; }
  std::string_view write_advice() const override {
    return "wait on the mbarrier phase the load completes (mbarrier.wait) before accessing its tile";
  }
  bool busy() const override { return !in_flight_.empty() || !loads_in_flight_.empty() || !copies_in_flight_.empty(); }
  void complete_all() override;
  void complete_at_random(std::mt19937_64& rng) override;
  bool complete_needed_by(const Warp& warp, const WaitCondition& condition) override;
  const InFlightRead* reading(int64_t begin, int64_t end) const override;

 private:
  struct Store {
    InFlightRead read;
    ir::TensorMapValues map;
    std::array<int64_t, ir::kTensorMapMaxRank> coords;
    int group;  // index among the thread's groups; the open group's is `committed`
    VectorClock issuer;
  };
  struct ThreadGroups {
    int committed = 0;
    std::map<int, int> stores_in_flight;  // by group
    uint32_t actor = 0;                   // bulk_actor's; 0 until made
  };
  struct Load {
    InFlightWrite write;
    ir::TensorMapValues map;
    std::array<int64_t, ir::kTensorMapMaxRank> coords;
    int64_t barrier_byte;
    std::vector<Cta*> targets;
    Cta* barrier_block;       // null: each target's own barrier
    std::string unannounced;  // the write's advice when its bytes were not announced (Mbarriers::expect_load)
    // Whether the load completes bytes on `block`'s barrier at `barrier_byte`.
    bool signals(const Cta& block) const;
  };
  struct ClusterCopy {
    InFlightRead read;
    InFlightWrite write;  // in `target`'s shared memory
    Cta* target;
    int64_t barrier_byte;  // in `target`
  };
  // Completes the stores and the loads for which the picks answer true, keeping the others in
  // issue order.
  template <class PickStore, class PickLoad> bool complete_where(PickStore&& pick_store, PickLoad&& pick_load);
  // The same for copies to the cluster.
  template <class PickCopy> bool complete_copies_where(PickCopy&& pick);
  void land(const Store& s);
  void land(const Load& l);
  void note_global_read(const Load& l, std::span<const int64_t> coords);
  void land(const ClusterCopy& c);

  Cta& cta_;
  std::vector<std::unique_ptr<Store>> in_flight_;               // issue order
  std::vector<std::unique_ptr<Load>> loads_in_flight_;          // issue order; boxed because shared bytes point at them
  std::vector<std::unique_ptr<ClusterCopy>> copies_in_flight_;  // issue order; boxed for the same reason
  std::vector<ThreadGroups> threads_;
};

}  // namespace tessel::sim
