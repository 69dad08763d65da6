// The TMA engine: per-thread bulk groups of stores, and loads that complete their bytes on
// mbarriers, completed when the scheduler chooses.
#include "machine.hpp"
#include "tessel/sim/tma_box.hpp"

namespace tessel::sim {

TmaUnit::TmaUnit(Cta& cta) : cta_(cta), threads_(size_t(cta.kernel.threads())) {}

void TmaUnit::issue_store(int thread, const ir::TensorMapValues& map, std::array<int64_t, ir::kTensorMapMaxRank> coords,
                          int64_t begin, const VectorClock& issuer, const SourceLoc& loc, std::string_view operation) {
  const int64_t end = begin + box_footprint(map);
  TESSEL_CHECK(begin >= 0 && end <= int64_t(cta_.smem.size()), "a TMA store of shared bytes [{}, {}) of {}", begin, end,
               cta_.smem.size());
  // The engine may read the source at once: a copy still writing it is a race.
  cta_.check_not_in_flight(begin, int(end - begin), false, loc, thread);
  ThreadGroups& groups = threads_[size_t(thread)];
  in_flight_.push_back(
      std::make_unique<Store>(Store{{this, begin, end, &loc, thread, operation},
                                    map,
                                    coords,
                                    groups.committed,
                                    cta_.scheduler.happens_before.enabled() ? issuer : VectorClock{}}));
  ++groups.stores_in_flight[groups.committed];
}

void TmaUnit::issue_load(int thread, const ir::TensorMapValues& map, std::array<int64_t, ir::kTensorMapMaxRank> coords,
                         int64_t begin, int64_t barrier_byte, std::vector<Cta*> targets, Cta* barrier_block,
                         const VectorClock& issuer, const SourceLoc& loc, std::string_view operation) {
  const int64_t end = begin + box_footprint(map);
  TESSEL_CHECK(begin >= 0 && end <= int64_t(cta_.smem.size()), "a TMA load of shared bytes [{}, {}) of {}", begin, end,
               cta_.smem.size());
  for (Cta* target : targets)
    target->check_not_in_flight(begin, int(end - begin), true, loc, thread, &cta_, true, &issuer);
  loads_in_flight_.push_back(
      std::make_unique<Load>(Load{InFlightWrite{this, Proxy::Async, begin, end, &loc, thread, issuer,
                                                cta_.warps[size_t(thread / 32)]->actor, operation},
                                  map, coords, barrier_byte, std::move(targets), barrier_block}));
  Load& load = *loads_in_flight_.back();
  const bool inside = !box_outside_tensor(map, std::span(coords).first(size_t(map.rank)));
  for (Cta* target : load.targets) {
    std::string note =
        (load.barrier_block ? *load.barrier_block : *target)
            .mbarriers.expect_load(barrier_byte, loc, inside, operation.empty() ? write_operation() : operation);
    if (load.unannounced.empty() && !note.empty())
      load.unannounced = fmt::format("{}; {}", load.write.advice_text(), note);
  }
  load.write.advice = load.unannounced;
  for (Cta* target : load.targets) target->mark_in_flight(load.write, begin, end);
}

void TmaUnit::issue_cluster_copy(int thread, int64_t src, int64_t bytes, Cta& target, int64_t dst, int64_t barrier_byte,
                                 const VectorClock& issuer, const SourceLoc& loc) {
  cta_.check_not_in_flight(src, int(bytes), false, loc, thread);
  target.check_not_in_flight(dst, int(bytes), true, loc, thread, &cta_, true);
  constexpr std::string_view operation = "tma.shared_to_cluster";
  copies_in_flight_.push_back(std::make_unique<ClusterCopy>(ClusterCopy{
      InFlightRead{this, src, src + bytes, &loc, thread, operation,
                   "the copy is done when the receiving block's barrier phase completes: reuse the source once the "
                   "receiver says so (an mbarrier arrival after its wait, or a cluster.sync())"},
      InFlightWrite{this, Proxy::Async, dst, dst + bytes, &loc, thread, issuer, cta_.warps[size_t(thread / 32)]->actor,
                    operation,
                    "wait on the mbarrier phase the copy completes (mbarrier.wait with WaitScope::cluster) before "
                    "accessing its tile"},
      &target, barrier_byte}));
  const ClusterCopy& copy = *copies_in_flight_.back();
  target.mark_in_flight(copy.write, dst, dst + bytes);
  target.mbarriers.expect_load(barrier_byte, loc, true, operation);
}

bool TmaUnit::Load::signals(const Cta& block) const {
  if (barrier_block) return barrier_block == &block;
  return std::find(targets.begin(), targets.end(), &block) != targets.end();
}

void TmaUnit::commit(int thread) { ++threads_[size_t(thread)].committed; }

uint32_t TmaUnit::bulk_actor(int thread) {
  uint32_t& actor = threads_[size_t(thread)].actor;
  if (actor == 0)
    actor = cta_.scheduler.happens_before.add_actor(
        HappensBefore::ActorKind::BulkGroups,
        fmt::format("the bulk groups of thread {} of block {}", thread, cta_.block_name()),
        cta_.warps[size_t(thread / 32)]->actor);
  return actor;
}

int TmaUnit::pending_groups(int thread) const {
  const ThreadGroups& groups = threads_[size_t(thread)];
  if (groups.stores_in_flight.empty()) return 0;
  return std::max(0, groups.committed - groups.stores_in_flight.begin()->first);
}

template <class PickCopy> bool TmaUnit::complete_copies_where(PickCopy&& pick) {
  return complete_ops(copies_in_flight_, pick, [&](const ClusterCopy& c) { land(c); });
}

template <class PickStore, class PickLoad> bool TmaUnit::complete_where(PickStore&& pick_store, PickLoad&& pick_load) {
  const bool stored = complete_ops(in_flight_, pick_store, [&](const Store& s) { land(s); });
  const bool loaded = complete_ops(loads_in_flight_, pick_load, [&](const Load& l) { land(l); });
  return stored || loaded;
}

void TmaUnit::land(const Store& s) {
  const std::span coords = std::span(s.coords).first(size_t(s.map.rank));
  store_box_image(s.map, coords, cta_.smem, s.read.begin, *s.read.issued_at);
  HappensBefore& hb = cta_.scheduler.happens_before;
  if (hb.enabled()) {
    // The store's bytes are written as a wait_group that is not `read` retiring its group observes them.
    const Access written{.epoch = {bulk_actor(s.read.thread), Clock(s.group + 1)},
                         .site = hb.site(s.read.issued_at, s.read.operation.empty() ? operation() : s.read.operation),
                         .unordered_in_actor = true};
    for_each_global_run(s.map, coords, [&](uint64_t address, int64_t n) {
      hb.async_global_access(address, n, true, s.issuer, written, cta_.warps[size_t(s.read.thread / 32)]->actor);
    });
  }
  std::map<int, int>& by_group = threads_[size_t(s.read.thread)].stores_in_flight;
  if (--by_group[s.group] == 0) by_group.erase(s.group);
}

// The image lands, then the engine performs complete-tx of every byte of the box, zeros of
// elements outside the tensor included (hw-semantics.md §3.3).
void TmaUnit::land(const Load& l) {
  const std::span coords = std::span(l.coords).first(size_t(l.map.rank));
  const BoxImage image = load_box_image(l.map, coords, l.write.begin, *l.write.issued_at);
  note_global_read(l, coords);
  TESSEL_CHECK(std::all_of(image.written.begin(), image.written.end(), [](uint8_t w) { return w == 1; }),
               "a TMA load at {} whose image has row padding", l.write.issued_at->str());
  int64_t box_bytes = ir::tma_shared_element_bytes(l.map.dtype);
  for (int d = 0; d < l.map.rank; ++d) box_bytes *= l.map.box[size_t(d)];
  for (Cta* target : l.targets) {
    Cta& signalled = l.barrier_block ? *l.barrier_block : *target;
    target->complete_in_flight_write(l.write, image.bytes.data(),
                                     signalled.mbarriers.landing(l.barrier_byte, &signalled != &cta_));
    signalled.complete_tx(l.barrier_byte, box_bytes, *l.write.issued_at);
  }
}

// The box's global bytes are read as the phase the load completes bytes on observes them. A
// multicast's one read is observed by a phase in each block it reaches: a write after any of them
// follows it. A pair's load completes bytes on one barrier only, whose phase observes it.
void TmaUnit::note_global_read(const Load& l, std::span<const int64_t> coords) {
  HappensBefore& hb = cta_.scheduler.happens_before;
  if (!hb.enabled()) return;
  const Cta& signalled = l.barrier_block ? *l.barrier_block : *l.targets.front();
  const Access read{.epoch = signalled.mbarriers.landing(l.barrier_byte, &signalled != &cta_),
                    .site = hb.site(l.write.issued_at, l.write.operation_name())};
  // A multicast's read is observed by the phase it completes in any block it reaches.
  std::vector<Epoch> other_phases;
  if (!l.barrier_block)
    for (const Cta* target : l.targets)
      if (target != &signalled) other_phases.push_back(target->mbarriers.landing(l.barrier_byte, target != &cta_));
  for_each_global_run(l.map, coords, [&](uint64_t address, int64_t n) {
    hb.async_global_access(address, n, false, l.write.issuer, read, l.write.issuer_warp, other_phases);
  });
}

// The source's bytes land in the target, then count against its barrier.
void TmaUnit::land(const ClusterCopy& c) {
  Cta& receiver = *c.target;
  if (cta_.ended() || receiver.ended())
    throw Error(*c.read.issued_at,
                fmt::format("tma.shared_to_cluster: block {} ended while this copy (thread {} of block {}) to block {} "
                            "was in flight; a block's shared memory goes to the next block when it ends: end the "
                            "cluster's blocks with cluster.sync() after the receiver's wait",
                            cta_.ended() ? cta_.block_name() : receiver.block_name(), c.read.thread, cta_.block_name(),
                            receiver.block_name()));
  const std::vector<uint8_t> bytes(cta_.smem.begin() + c.read.begin, cta_.smem.begin() + c.read.end);
  receiver.complete_in_flight_write(c.write, bytes.data(),
                                    receiver.mbarriers.landing(c.barrier_byte, &receiver != &cta_));
  receiver.complete_tx(c.barrier_byte, c.read.end - c.read.begin, *c.read.issued_at);
}

void TmaUnit::complete_all() {
  complete_where([](const Store&) { return true; }, [](const Load&) { return true; });
  complete_copies_where([](const ClusterCopy&) { return true; });
}

void TmaUnit::complete_at_random(std::mt19937_64& rng) {
  complete_where([&](const Store&) { return rng() % 2 == 0; }, [&](const Load&) { return rng() % 2 == 0; });
  complete_copies_where([&](const ClusterCopy&) { return rng() % 2 == 0; });
}

bool TmaUnit::complete_needed_by(const Warp& warp, const WaitCondition& condition) {
  const auto none_stored = [](const Store&) { return false; };
  const auto none_loaded = [](const Load&) { return false; };
  return std::visit(PerCondition{
                        [](const BarrierWait&) { return false; },
                        [](const CopyGroupWait&) { return false; },
                        [](const WgmmaGroupWait&) { return false; },
                        [](const TensorMemoryWait&) { return false; },
                        [](const ClusterBarrierWait&) { return false; },
                        // One load at a time, oldest first: the phase may complete before the
                        // later loads land, whose bytes then count toward the next phase. A
                        // multicast load signals the barrier of every block it lands in, a
                        // cta_group::2 load the barrier of a block of its pair.
                        [&](const MbarrierPhaseWait& wait) {
                          // The oldest copy to the cluster that signals the barrier, else the
                          // oldest load.
                          const auto copy =
                              std::find_if(copies_in_flight_.begin(), copies_in_flight_.end(),
                                           [&](const std::unique_ptr<ClusterCopy>& c) {
                                             return c->barrier_byte == wait.barrier && c->target == &warp.cta;
                                           });
                          if (copy != copies_in_flight_.end()) {
                            const ClusterCopy* needed = copy->get();
                            return complete_copies_where([&](const ClusterCopy& c) { return &c == needed; });
                          }
                          const auto oldest = std::find_if(
                              loads_in_flight_.begin(), loads_in_flight_.end(), [&](const std::unique_ptr<Load>& l) {
                                return l->barrier_byte == wait.barrier && l->signals(warp.cta);
                              });
                          if (oldest == loads_in_flight_.end()) return false;
                          const Load* needed = oldest->get();
                          return complete_where(none_stored, [&](const Load& l) { return &l == needed; });
                        },
                        [&](const BulkGroupWait& wait) {
                          if (&warp.cta != &cta_) return false;
                          return complete_where(
                              [&](const Store& s) {
                                const int lane = s.read.thread - warp.thread(0);
                                return lane >= 0 && lane < 32 && (wait.lanes >> lane & 1) &&
                                       s.group < threads_[size_t(s.read.thread)].committed - wait.max_pending;
                              },
                              none_loaded);
                        },
                    },
                    condition);
}

void TmaUnit::check_no_store_reading(const std::string& block) const {
  if (!copies_in_flight_.empty()) {
    const InFlightRead& r = copies_in_flight_.front()->read;
    throw Error(*r.issued_at, fmt::format("tma.shared_to_cluster: block {} ended while this copy (thread {}) may still "
                                          "be reading its shared source; the receiving block's barrier says when the "
                                          "copy is done: end the blocks with cluster.sync() after the receiver's wait",
                                          block, r.thread));
  }
  if (in_flight_.empty()) return;
  const InFlightRead& r = in_flight_.front()->read;
  throw Error(*r.issued_at, fmt::format("{}: block {} ended while this store (thread {}) may still be reading its "
                                        "shared source; the issuing thread must retire it (tma.commit_group, "
                                        "tma.wait_group(0, read = true)) before the block ends",
                                        r.operation.empty() ? operation() : r.operation, block, r.thread));
}

const InFlightRead* TmaUnit::reading(int64_t begin, int64_t end) const {
  for (const auto& s : in_flight_)
    if (s->read.begin < end && begin < s->read.end) return &s->read;
  for (const auto& c : copies_in_flight_)
    if (c->read.begin < end && begin < c->read.end) return &c->read;
  return nullptr;
}

}  // namespace tessel::sim
