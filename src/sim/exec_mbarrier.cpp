// Simulator semantics of mbarriers (mbarriers.hpp holds the state machine): every thread that
// executes an instruction performs its own operation, lane by lane in lane order, on the barrier
// its lane names.
#include <set>

#include "machine.hpp"

namespace tessel::sim {

namespace {

// Who performs a lane's operation, for messages; `block` is the block's name.
Mbarriers::Origin origin(const Warp& w, const SourceLoc& loc, int lane, const std::string& block) {
  return {&loc, w.thread(lane), block};
}

// The barrier each active lane names, by the shared byte of its word; an index out of range is
// reported, and so is a barrier used before its initialization.
std::array<int64_t, 32> barrier_bytes(Warp& w, const ir::MbarrierRef& b, Mask mask, const SourceLoc& loc,
                                      std::string_view operation, const std::string& block) {
  const ir::SharedTensorNode& array = *b.array->allocation();
  const int64_t base = w.cta.shared_offsets.at(&array);
  const Lanes index = w.eval(b.index, mask);
  std::array<int64_t, 32> bytes{};
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    if (index[lane].i < 0 || index[lane].i >= array.shape[0])
      throw Error(loc,
                  fmt::format("barrier index {} is out of range: the barrier array allocated at {} has {} barriers "
                              "(thread {} of block {})",
                              index[lane].i, array.loc.str(), array.shape[0], w.thread(lane), block));
    bytes[size_t(lane)] = base + 8 * index[lane].i;
    w.cta.mbarriers.at(bytes[size_t(lane)], array, int(index[lane].i), operation, origin(w, loc, lane, block));
  }
  return bytes;
}

// The block whose barrier each lane's arrival reaches: its own, or with `ranks` the block of that
// rank in the cluster, which must still be running (hw-semantics: a block must not end while
// others of its cluster may still arrive on its barriers).
Cta& arrival_target(Warp& w, const Lanes* ranks, int lane, const SourceLoc& loc, std::string_view operation) {
  if (!ranks) return w.cta;
  return cluster_block(w, (*ranks)[size_t(lane)].i, lane, loc, operation, "arrives on a barrier of",
                       "arrive on its barriers");
}

// Each lane arrives `count` times after raising the transaction count by `tx`, on its own block's
// barrier or, with `ranks`, on the barrier at the same offset in the block of that cluster rank.
// Lanes of one instruction arriving on a phase that an earlier lane of it completed have spilled
// into the next phase, which no thread could have waited for: reported.
void arrive(Warp& w, const ir::MbarrierRef& b, const Lanes& count, const Lanes& tx, Mask mask, const SourceLoc& loc,
            std::string_view operation, const Lanes* ranks = nullptr) {
  const std::string block = w.cta.block_name();
  const std::array<int64_t, 32> bytes = barrier_bytes(w, b, mask, loc, operation, block);
  std::set<std::pair<const Cta*, int64_t>> completed;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int64_t byte = bytes[size_t(lane)];
    Cta& target = arrival_target(w, ranks, lane, loc, operation);
    const std::string remote_operation =
        ranks ? fmt::format("{} to block {}", operation, target.block_name()) : std::string(operation);
    const ir::SharedTensorNode& array = *b.array->allocation();
    const MbarrierState& state = target.mbarriers.at(byte, array, int((byte - w.cta.shared_offsets.at(&array)) / 8),
                                                     remote_operation, origin(w, loc, lane, block));
    if (completed.count({&target, byte}))
      throw Error(loc, fmt::format("{}: thread {} of block {} arrives on {} after earlier threads of this same "
                                   "instruction completed its phase {} (the barrier's count is {}); every thread that "
                                   "executes it arrives: run it in single_thread(), or allocate the barrier with the "
                                   "count of all arriving threads",
                                   operation, w.thread(lane), block, barrier_name(*state.array, state.index),
                                   state.phase - 1, state.expected));
    if (tx[lane].i < 0)
      throw Error(loc, fmt::format("{}: {} transaction bytes (thread {} of block {}); the count cannot be negative",
                                   operation, tx[lane].i, w.thread(lane), block));
    if (count[lane].i < 1)
      throw Error(loc, fmt::format("{}: an arrival count of {} (thread {} of block {}); it must be at least 1",
                                   operation, count[lane].i, w.thread(lane), block));
    if (target.mbarriers.arrive(byte, count[lane].i, tx[lane].i, w.clock, &target != &w.cta, remote_operation,
                                origin(w, loc, lane, block)))
      completed.insert({&target, byte});
  }
  w.note(w.arrivals, loc);
  w.tick();
}

// After a wait at `loc`: the lanes in `passed` saw the phases of their barriers complete, and the
// loads that completed bytes on them count as waited for. An acquiring wait acquires what those
// phases published, from its block (cta scope) or from the whole cluster; a relaxed one acquires
// nothing (PTX ISA, mbarrier.test_wait/try_wait: .relaxed gives no ordering). What a wait saw and
// did not acquire is remembered, so that a race it would have ordered names it.
void pass_wait(Warp& w, const std::array<int64_t, 32>& bytes, Mask passed, ir::WaitSemantics sem, ir::WaitScope scope,
               const SourceLoc& loc) {
  HappensBefore& happens_before = w.cta.scheduler.happens_before;
  // Outside clusters a wait of cta scope misses nothing.
  const bool weak = happens_before.enabled() &&
                    (sem == ir::WaitSemantics::Relaxed || (scope == ir::WaitScope::Cta && w.cta.kernel.clustered()));
  if (passed) w.note(w.waits, loc);
  int64_t previous = -1;  // lanes of a warp mostly wait on one barrier: join its clocks once
  for (int lane = 0; lane < 32; ++lane)
    if ((passed >> lane & 1) && bytes[size_t(lane)] != previous) {
      const int64_t byte = previous = bytes[size_t(lane)];
      if (sem == ir::WaitSemantics::Acquire) w.clock.join(w.cta.mbarriers.released(byte, scope));
      if (weak)
        happens_before.weak_wait(w.actor, w.cta.mbarriers.released(byte, ir::WaitScope::Cluster),
                                 HappensBefore::WeakWait{&loc, w.clock[w.actor], sem == ir::WaitSemantics::Relaxed});
      w.cta.mbarriers.observed(byte);
    }
}

Lanes filled(int64_t v) {
  Lanes l{};
  l.fill(ir::Scalar{.i = v});
  return l;
}

}  // namespace

int64_t mbarrier_byte(Warp& w, const ir::MbarrierRef& b, int lane, const SourceLoc& loc, std::string_view operation) {
  return barrier_bytes(w, b, Mask(1) << lane, loc, operation, w.cta.block_name())[size_t(lane)];
}

void exec_MbarrierInit(Warp& w, const ir::MbarrierInitNode& n, Mask mask) {
  const std::string block = w.cta.block_name();
  const int64_t base = w.cta.shared_offsets.at(n.array->allocation());
  for (int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1)
      for (size_t i = 0; i < n.counts.size(); ++i) {
        HappensBefore& happens_before = w.cta.scheduler.happens_before;
        const std::string name = fmt::format("{} in block {}", barrier_name(*n.array, int(i)), block);
        const uint32_t actor = happens_before.add_actor(HappensBefore::ActorKind::Mbarrier, name);
        const uint32_t peer_actor =
            w.cta.kernel.clustered()
                ? happens_before.add_actor(HappensBefore::ActorKind::Mbarrier, name + ", from another block")
                : actor;
        w.cta.mbarriers.init(base + 8 * int64_t(i), *n.array, int(i), n.counts[i], actor, peer_actor,
                             origin(w, n.loc, lane, block));
      }
}

void exec_MbarrierArrive(Warp& w, const ir::MbarrierArriveNode& n, Mask mask) {
  arrive(w, n.barrier, w.eval(n.count, mask), filled(0), mask, n.loc, "mbarrier.arrive");
}

void exec_MbarrierArriveExpectTx(Warp& w, const ir::MbarrierArriveExpectTxNode& n, Mask mask) {
  arrive(w, n.barrier, filled(1), w.eval(n.bytes, mask), mask, n.loc, "mbarrier.arrive_and_expect_tx");
}

void exec_MbarrierRemoteArrive(Warp& w, const ir::MbarrierRemoteArriveNode& n, Mask mask) {
  const Lanes ranks = w.eval(n.rank, mask);
  if (n.bytes)
    arrive(w, n.barrier, filled(1), w.eval(n.bytes, mask), mask, n.loc, "mbarrier.arrive_and_expect_tx", &ranks);
  else
    arrive(w, n.barrier, w.eval(n.count, mask), filled(0), mask, n.loc, "mbarrier.arrive", &ranks);
}

void exec_MbarrierExpectTx(Warp& w, const ir::MbarrierExpectTxNode& n, Mask mask) {
  const std::string block = w.cta.block_name();
  const std::array<int64_t, 32> bytes = barrier_bytes(w, n.barrier, mask, n.loc, "mbarrier.expect_tx", block);
  const Lanes tx = w.eval(n.bytes, mask);
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    if (tx[lane].i < 0)
      throw Error(n.loc, fmt::format("mbarrier.expect_tx: {} transaction bytes (thread {} of block {}); the count "
                                     "cannot be negative",
                                     tx[lane].i, w.thread(lane), block));
    w.cta.mbarriers.expect_tx(bytes[size_t(lane)], tx[lane].i, origin(w, n.loc, lane, block));
  }
}

// Lanes waiting on one barrier and parity pass together when the scheduler finds their phase
// completed; the others are checked again and waited for in turn.
void exec_MbarrierWait(Warp& w, const ir::MbarrierWaitNode& n, Mask mask) {
  const std::array<int64_t, 32> bytes = barrier_bytes(w, n.barrier, mask, n.loc, "mbarrier.wait", w.cta.block_name());
  const Lanes parity = w.eval(n.parity, mask);
  Mask waiting = mask;
  for (;;) {
    for (int lane = 0; lane < 32; ++lane)
      if ((waiting >> lane & 1) && w.cta.mbarriers.phase_completed(bytes[size_t(lane)], parity[lane].i))
        waiting &= ~(1u << lane);
    if (!waiting) return pass_wait(w, bytes, mask, n.sem, n.scope, n.loc);
    const int first = __builtin_ctz(waiting);
    const MbarrierPhaseWait until{bytes[size_t(first)], parity[first].i & 1, false};
    w.wait(n.loc, until);
    for (int lane = 0; lane < 32; ++lane)
      if (bytes[size_t(lane)] == until.barrier && (parity[lane].i & 1) == until.parity) waiting &= ~(1u << lane);
  }
}

// try_wait suspends the thread until the phase completes or a time limit passes; here the limit
// passes when nothing else in the block can run (the scheduler then resumes the warp).
void exec_MbarrierTryWait(Warp& w, const ir::MbarrierTryWaitNode& n, Mask mask) {
  const std::array<int64_t, 32> bytes =
      barrier_bytes(w, n.barrier, mask, n.loc, "mbarrier.try_wait", w.cta.block_name());
  const Lanes parity = w.eval(n.parity, mask);
  auto completed_lanes = [&] {
    Lanes ready{};
    for (int lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1) ready[lane].i = w.cta.mbarriers.phase_completed(bytes[size_t(lane)], parity[lane].i);
    return ready;
  };
  Lanes ready = completed_lanes();
  for (int lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1) && !ready[lane].i) {
      w.wait(n.loc, MbarrierPhaseWait{bytes[size_t(lane)], parity[lane].i & 1, true});
      ready = completed_lanes();
      break;
    }
  Mask passed = 0;
  for (int lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1) && ready[lane].i) passed |= 1u << lane;
  pass_wait(w, bytes, passed, n.sem, n.scope, n.loc);
  w.assign(n.ready.get(), ready, mask);
}

}  // namespace tessel::sim
