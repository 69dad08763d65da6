// The mbarrier instruction group (`mbarrier.alloc`, `mbarrier.arrive`, `mbarrier.wait`, ...):
// barriers in shared memory whose phases complete once the expected number of arrivals and of
// transaction bytes came in (PTX ISA 9.7.13.15). Every thread that executes an operation performs
// it: 32 lanes arriving are 32 arrivals, so put arrivals in single_thread() (or count them).
#pragma once

#include <initializer_list>
#include <source_location>
#include <vector>

#include "tessel/lang/tensors.hpp"

namespace tessel {

class RemoteMbarrier;

// One barrier of an array: `bars[0]`, `bars[stage]`.
class Mbarrier {
 public:
  explicit Mbarrier(ir::MbarrierRef ref) : ref_(std::move(ref)) {}
  const ir::MbarrierRef& ir() const { return ref_; }
  // The barrier at the same offset in the block of cluster rank `rank` (cluster.blockRank), for
  // arrivals from this block (sm_90a); only its own block waits on a barrier.
  RemoteMbarrier remote(const Dim& rank) const;

 private:
  ir::MbarrierRef ref_;
};

// A barrier of another block of the cluster: `bars[stage].remote(peer)`.
class RemoteMbarrier {
 public:
  RemoteMbarrier(ir::MbarrierRef ref, ir::Expr rank) : ref_(std::move(ref)), rank_(std::move(rank)) {}
  const ir::MbarrierRef& ir() const { return ref_; }
  const ir::Expr& rank() const { return rank_; }

 private:
  ir::MbarrierRef ref_;
  ir::Expr rank_;
};

// The barriers of one mbarrier.alloc, one 8-byte word of shared memory each.
class MbarrierArray {
 public:
  explicit MbarrierArray(ir::SharedTensor words) : words_(std::move(words)) {}
  // The barrier at `index`, a trace-time int (checked against the size) or a kernel value, taken
  // when indexed.
  Mbarrier operator[](const ViewIndex& index) const;
  int size() const { return words_->shape[0]; }
  const ir::SharedTensor& ir() const { return words_; }

 private:
  ir::SharedTensor words_;
};

// What a wait orders: `acquire` (the default) makes the accesses that preceded the phase's
// arrivals and transactions visible after the wait, `relaxed` orders nothing; among the block's
// threads (`cta`, the default) or the cluster's. Anything but acquire at cta scope needs sm_90a.
enum class WaitSemantics { acquire, relaxed };
enum class WaitScope { cta, cluster };

// The helper-class member an allocation is, as Class::member gives it, for messages.
struct MemberOf {
  std::string description;
};

class MbarrierInstructions {
 public:
  using loc_t = std::source_location;

  // The parity a producer and a consumer start from in a ring of stages: a fresh barrier counts
  // its "phase before phase 0", of parity 1, as completed, so producers pass their first wait
  // on every empty stage while consumers wait for the first fill.
  static constexpr uint32_t producer_initial_phase = 1;
  static constexpr uint32_t consumer_initial_phase = 0;

  // One barrier per count, each expecting that many arrivals per phase. Called by the whole
  // block: one thread initializes the barriers, then the block syncs, so every thread (and the
  // asynchronous engines) may use them after the call. In a kernel with clusters (set
  // attrs.cluster first) the sync is cluster.sync(), so that the other blocks of the cluster may
  // arrive on them and multicast to them.
  MbarrierArray alloc(std::vector<int> counts, loc_t loc = loc_t::current());
  // The same, as the member `owner` of a helper-class instance (Class::member).
  MbarrierArray alloc(std::vector<int> counts, const MemberOf& owner, loc_t loc = loc_t::current());
  // `mbarrier.alloc({1})` is an array of one barrier, as a list of counts is.
  MbarrierArray alloc(std::initializer_list<int> counts, loc_t loc = loc_t::current()) {
    return alloc(std::vector<int>(counts), loc);
  }
  // One barrier expecting `count` arrivals per phase: `mbarrier.alloc(1)`.
  Mbarrier alloc(int count, loc_t loc = loc_t::current());
  // One barrier expecting an arrival from each thread of the current thread group (the block's,
  // since barriers are allocated outside thread groups): `mbarrier.alloc()`.
  Mbarrier alloc(loc_t loc = loc_t::current());

  // `count` arrivals on the barrier's current phase by every executing thread (a count other
  // than 1 needs sm_90a).
  void arrive(const Mbarrier& bar, const Dim& count = 1, loc_t loc = loc_t::current());
  // Raises the phase's expected transaction bytes by `bytes`, then arrives once (sm_90a): the
  // phase completes when the arrivals are in and the bytes have landed.
  void arrive_and_expect_tx(const Mbarrier& bar, const Dim& bytes, loc_t loc = loc_t::current());
  // The same on a barrier of another block of the cluster (mapa, then an arrival with release at
  // cluster scope; sm_90a). Waiters on it use WaitScope::cluster to acquire what the arriving
  // block wrote.
  void arrive(const RemoteMbarrier& bar, const Dim& count = 1, loc_t loc = loc_t::current());
  void arrive_and_expect_tx(const RemoteMbarrier& bar, const Dim& bytes, loc_t loc = loc_t::current());
  // Raises the phase's expected transaction bytes by `bytes` without arriving (sm_90a).
  void expect_tx(const Mbarrier& bar, const Dim& bytes, loc_t loc = loc_t::current());

  // Blocks every executing thread until the barrier's phase of parity `phase` completed, i.e.
  // until the barrier's current phase has the other parity.
  template <class P>
  requires(detail::is_kernel_scalar<P> || detail::is_literal<P>) void wait(const Mbarrier& bar, const P& phase,
                                                                           WaitSemantics sem = WaitSemantics::acquire,
                                                                           WaitScope scope = WaitScope::cta,
                                                                           loc_t loc = loc_t::current()) {
    wait_parity(bar, detail::to_ir<uint32_t>(phase), sem, scope, SourceLoc::from(loc));
  }
  // Whether that phase completed, after waiting for a while at most (sm_90a). It may be false
  // before the phase completes even when nothing else happens: loop on it.
  template <class P>
  requires(detail::is_kernel_scalar<P> ||
           detail::is_literal<P>) Expr<bool> try_wait(const Mbarrier& bar, const P& phase,
                                                      WaitSemantics sem = WaitSemantics::acquire,
                                                      WaitScope scope = WaitScope::cta, loc_t loc = loc_t::current()) {
    return try_wait_parity(bar, detail::to_ir<uint32_t>(phase), sem, scope, SourceLoc::from(loc));
  }

 private:
  void wait_parity(const Mbarrier& bar, ir::Expr parity, WaitSemantics sem, WaitScope scope, const SourceLoc& loc);
  Expr<bool> try_wait_parity(const Mbarrier& bar, ir::Expr parity, WaitSemantics sem, WaitScope scope,
                             const SourceLoc& loc);
};

}  // namespace tessel
