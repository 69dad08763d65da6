// The simulator's machine state: blocks (CTAs) of warps, each warp a fiber with per-lane scalars
// and per-lane register tiles, sharing its block's shared memory, barriers and asynchronous
// agents; and the scheduler that runs a group of blocks together.
#pragma once

#include <ucontext.h>

#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <unordered_map>

#include "async_copy_unit.hpp"
#include "async_store_unit.hpp"
#include "clc_unit.hpp"
#include "happens_before.hpp"
#include "mbarriers.hpp"
#include "tensor_memory.hpp"
#include "tessel/sim/simulator.hpp"
#include "tma_unit.hpp"
#include "wait_condition.hpp"
#include "warnings.hpp"
#include "wgmma_unit.hpp"

namespace tessel::sim {

using Lanes = std::array<ir::Scalar, 32>;

inline int popcount(Mask m) { return __builtin_popcount(m); }

class Cta;
class Scheduler;
class Timeline;

// Per-kernel-run caches of layout arithmetic (coordinates of every (thread, slot)).
class LayoutTables {
 public:
  // coords[(t * local + l) * rank + d]
  const std::vector<int>& coords(const ir::RegisterTensorNode* t);
  // For each (thread, slot) of `out`, the slot of `operand` holding the broadcast source.
  const std::vector<int>& broadcast(const ir::RegisterTensorNode* operand, const ir::RegisterTensorNode* out);
  // For each slot of a slice's result, the slot of its source that holds the same element.
  const std::vector<int>& slice(const ir::SliceRegisterNode& n);
  // For each slot of a regrouping's result, the operand and slot that hold its element.
  const std::vector<std::pair<int, int>>& regroup(const ir::RegroupRegistersNode& n);
  // For each slot of a relayout's result, the thread and slot of the operand that hold its element.
  const std::vector<ir::RelayoutSource>& relayout(const ir::RelayoutNode* n);
  // How many warps hold a copy of each element of `t`: its replica digits that select threads of
  // other warps (1 for a tile without copies across warps).
  int warps_with_copies(const ir::RegisterTensorNode* t);

 private:
  std::unordered_map<const void*, std::vector<int>> coords_;
  std::map<std::pair<const void*, const void*>, std::vector<int>> broadcast_;
  std::unordered_map<const void*, std::vector<int>> slice_;
  std::unordered_map<const void*, std::vector<std::pair<int, int>>> regroup_;
  std::unordered_map<const void*, std::vector<ir::RelayoutSource>> relayout_;
  std::unordered_map<const void*, int> warps_with_copies_;
};

class Warp {
 public:
  Warp(Cta& cta, int id);
  Cta& cta;
  const int id;

  enum class State { Ready, Blocked, Done } state = State::Ready;
  Wait waiting{};  // while Blocked
  std::exception_ptr error;

  // The thread groups this warp is inside, innermost last.
  std::vector<ir::ThreadRange> groups;
  // For each loop this warp is inside, innermost last: the lanes that left it by a break_, and
  // those that ended the current pass by a continue_.
  struct LoopLanes {
    Mask left = 0, passed = 0;
  };
  std::vector<LoopLanes> loops;
  // The lanes that have run return_, and where each did: they skip the rest of the kernel.
  Mask returned = 0;
  std::array<const SourceLoc*, 32> returned_at{};
  // "; thread 3 returned at k.cpp:12" for the first lane of `absent` that returned, to end a
  // message about lanes missing from an instruction; empty when none of them returned.
  std::string returned_note(Mask absent) const;
  // Throws at `loc` unless every lane of the warp runs `instruction` (a .sync.aligned one).
  void require_whole_warp(Mask mask, std::string_view instruction, const SourceLoc& loc) const;
  ir::ThreadRange group() const { return groups.back(); }
  int thread(int lane) const { return id * 32 + lane; }
  int thread_in_group(int lane) const { return thread(lane) - group().begin; }

  void exec(const ir::Stmt& s, Mask mask);
  void exec_here(const ir::Stmt& s, Mask mask);
  Lanes eval(const ir::Expr& e, Mask mask);
  // Sets the active lanes' copies of `var` (an instruction's result variables).
  void assign(const ir::VarNode* var, const Lanes& values, Mask mask);

  // Register tiles: values[lane * local_size + slot].
  std::vector<ir::Scalar>& tile(const ir::RegisterTensorNode* t);

  // Blocks until `condition` holds: the scheduler re-checks it and resumes the warp.
  void wait(const SourceLoc& at, WaitCondition condition);
  // After an atomic read at `at` that saw `observed` (the addresses and values its lanes read): lets
  // the other warps run, so that a warp spinning on a flag lets its writer go on; the scheduler
  // calls a spin that sees nothing change a deadlock.
  void poll(const SourceLoc& at, uint64_t observed);
  const SourceLoc* polled_at = nullptr;
  uint64_t polled = 0;
  bool polled_unchanged = false;  // the last poll saw what the one before it at the same line saw

  // The warp's arrival at the cluster barrier that its wait has not yet passed: where, in which
  // phase (the barrier's completed phases then), and how many of its threads.
  struct ClusterArrival {
    const SourceLoc* at;
    int phase;
    int threads;
  };
  std::optional<ClusterArrival> cluster_arrival;
  bool passed_cluster_barrier = false;  // so every block of its cluster has started

  // Happens-before: the warp's actor, the actor of its cp.async groups, and its vector clock.
  uint32_t actor = 0, copy_actor = 0;
  VectorClock clock;
  // This warp's access at its current clock, for shadow memory.
  Access access(const SourceLoc& loc, std::string_view operation);
  // After the warp releases what it did (an arrival, an asynchronous issue): later work is new.
  void tick() { clock.raise(actor, clock[actor] + 1); }
  // The warp's latest mbarrier arrivals and passed waits, each with the warp's own clock then: what
  // a report of a stage refilled while an mma reads it names (Cta::check_not_in_flight).
  struct Step {
    const SourceLoc* at;
    Clock clock;
    uint64_t order;  // among the warp's noted steps, from 1 (waits leave the clock as it was)
  };
  std::deque<Step> arrivals, waits;
  uint64_t steps_noted = 0;
  void note(std::deque<Step>& steps, const SourceLoc& at);

  // Fiber plumbing.
  ucontext_t context;
  std::vector<char> stack;

 private:
  std::unordered_map<const ir::VarNode*, Lanes> vars_;
  std::unordered_map<const ir::RegisterTensorNode*, std::vector<ir::Scalar>> tiles_;
};

// A CTA barrier (bar.sync): a phase completes when `expected` threads have arrived.
struct Barrier {
  int expected = 0;  // set by the first arrival of a phase
  int arrived = 0;
  ir::ThreadRange group{};                   // the threads it waits for, and where the phase's first
  const SourceLoc* first_arrival = nullptr;  // arrival was: set with `expected`
  int phases = 0;                            // completed phases
  VectorClock arrivals;                      // what the current phase's arrivals released
  VectorClock released;                      // what the completed phases published
  // The cluster barrier's relaxed arrivals (cluster.arrive(MemoryOrder::relaxed)) by line: what
  // they would have released in the current phase and the completed ones, for race reports.
  std::map<const SourceLoc*, VectorClock> relaxed_arrivals, relaxed_released;
  void complete_phase();
};

class Cta {
 public:
  Cta(Scheduler& scheduler, const ir::KernelNode& k, const Launch& launch, std::array<int, 3> block,
      LayoutTables& tables);

  Scheduler& scheduler;
  const ir::KernelNode& kernel;
  const Launch& launch;
  const std::array<int, 3> block;
  LayoutTables& tables;
  std::unordered_map<const ir::VarNode*, ir::Scalar> params;
  std::vector<std::unique_ptr<Warp>> warps;

  // Shared memory with a per-byte "written" mark: reads of unwritten bytes are reported. A store to
  // a tile records the tile too, so that a read of a tile that took a freed tile's bytes finds
  // what the freed tile left there (null for writes of no tile: asynchronous copies, scratch).
  std::vector<uint8_t> smem, written;
  std::vector<const ir::SharedTensorNode*> written_by;
  void mark_written(int64_t byte, int64_t n, const ir::SharedTensorNode* tile = nullptr);
  std::unordered_map<const ir::SharedTensorNode*, int64_t> shared_offsets;
  // Where free_shared freed a tile, once a warp has run the free: race reports name it.
  std::unordered_map<const ir::SharedTensorNode*, const SourceLoc*> freed_at;
  // Throws when an asynchronous write in flight owns one of the bytes [byte, byte + n), or when
  // `write` and an asynchronous read in flight still needs one of them. `thread` is of block
  // `issuer` (this one when null: another block's multicast or copy reaches this one's memory);
  // `asynchronous`: the access is an asynchronous write being issued. `accessor`, the clock of the
  // accessing warp (at issue, for an asynchronous write): a read not ordered after the write's
  // issue may want the bytes before it, and a write of bytes an mma reads is ordered after that
  // mma's warp by some arrival, or not at all; the message then names that way out, or those lines.
  void check_not_in_flight(int64_t byte, int n, bool write, const SourceLoc& loc, int thread,
                           const Cta* issuer = nullptr, bool asynchronous = false,
                           const VectorClock* accessor = nullptr) const;
  // How a write by `writer` (whose clock is `clock`) of bytes that `mma` reads came to follow it.
  std::string how_the_write_follows(const WgmmaUnit::Reader& mma, const Warp& writer, const VectorClock& clock) const;
  // Bytes [begin, end) of `w` belong to it until it completes and writes `data` to all of its bytes.
  void mark_in_flight(const InFlightWrite& w, int64_t begin, int64_t end);
  // The write lands, as an access at `landed` (the barrier phase or cp.async group that observes
  // it), checked against the accesses before it as its issuer stood.
  void complete_in_flight_write(const InFlightWrite& w, const uint8_t* data, Epoch landed);

  // Race detection on shared memory (happens_before.hpp): a load or store by `w`, and an
  // asynchronous read of [begin, end) issued by a thread whose clock was `issuer`.
  Shadow shadow;
  // A write passes the bytes it writes (`incoming`).
  void access_shared(Warp& w, int64_t byte, int n, bool write, const SourceLoc& loc, std::string_view operation,
                     const uint8_t* incoming = nullptr);
  void check_async_read(const VectorClock& issuer, Access at, int64_t begin, int64_t end);
  void check_async_read(const VectorClock& issuer, Access at, const std::vector<int64_t>& bytes);
  // A store by `thread` of `w` of the `n` bytes `incoming` at `byte` (of `tile`, where a tile is
  // stored to): checked against asynchronous work in flight and for races, then written and marked
  // written.
  void store_shared(Warp& w, int thread, int64_t byte, const uint8_t* incoming, int n, const SourceLoc& loc,
                    std::string_view operation, const ir::SharedTensorNode* tile = nullptr);
  // The same for a packed element of type `t` stored alone from bit `shift` of `byte`, which the
  // generated code writes with atomics (HappensBefore::packed_store).
  void store_shared_packed_alone(Warp& w, int thread, int64_t byte, const uint8_t* incoming, int shift, DType t,
                                 const SourceLoc& loc, std::string_view operation,
                                 const ir::SharedTensorNode* tile = nullptr);
  // "shared memory s_a (allocated at k.cpp:3), byte 12 of the allocation, in block (0, 0, 0)"
  std::string shared_byte_name(int64_t byte) const;

  // sync() is barrier 0 with the whole block; a thread group's sync() is a named barrier.
  static constexpr int kBlockBarrier = ir::SyncNode::kBlockBarrier;
  std::array<Barrier, ir::SyncNode::kBarriers> barriers;
  // `operation` names the instruction in messages ("sync()").
  void arrive_at_barrier(Warp& w, int barrier, Mask mask, const SourceLoc& loc, std::string_view operation);
  // Lanes `mask` of `w` run return_ at `loc`: a barrier phase that waits for them is an error, and
  // the cluster barrier no longer waits for them.
  void threads_returned(Warp& w, Mask mask, const SourceLoc& loc);

  // The block's mbarriers, by the shared byte of their word.
  Mbarriers mbarriers;
  // For asynchronous agents (the TMA engine): `bytes` of transactions issued at `issued_at` have
  // landed and count against the mbarrier whose word is at shared byte `barrier_byte`
  // (complete-tx, PTX ISA 9.7.13.15): it may complete the barrier's phase. Misuse (bytes beyond
  // what the phase expects) is reported at `issued_at`.
  void complete_tx(int64_t barrier_byte, int64_t bytes, const SourceLoc& issued_at);

  // The kernel's tensor maps at this launch, checked as the driver would (KernelNode::tensor_maps).
  std::vector<ir::TensorMapValues> tensor_maps;

  AsyncCopyUnit async_copies;
  WgmmaUnit wgmma;
  TmaUnit tma;
  TensorMemory tensor_memory;
  ClcUnit clc;
  AsyncStoreUnit async_stores;  // st.async of this block's threads, to any block of the cluster
  // The try_cancel response read that found no cluster cancelled, if any: a try_cancel after it
  // is undefined behavior (PTX ISA 9.7.13.17).
  const SourceLoc* clc_failure_observed_at = nullptr;
  std::vector<AsyncAgent*> agents;  // every agent of the block, for the scheduler

  std::string block_name() const;
  // The block's and its cluster's indices in the grid, x fastest (a block is a cluster of one in a
  // kernel without clusters).
  int64_t linear_block() const;
  int64_t linear_cluster() const;

  // Clusters: the block's rank in its cluster, and the cluster barrier of cluster.sync(), used in
  // the cluster's block of rank 0 (Scheduler::cluster_peer).
  int cluster_rank = 0;
  size_t cluster_first = 0;  // the index of its cluster's block of rank 0 among the scheduler's
  Barrier cluster_barrier;
  // The threads `mask` of `w` arrive at the cluster barrier (releasing the warp's accesses unless
  // `relaxed`), and later wait for its phase: cluster.sync() is both, cluster.arrive() and
  // cluster.wait() one each (`split`, which names the arrival in messages).
  void arrive_at_cluster_barrier(Warp& w, Mask mask, const SourceLoc& loc, bool relaxed = false);
  void wait_at_cluster_barrier(Warp& w, const SourceLoc& loc, bool split = false);
  // PTX ISA 9.7.13.3: the phase completes once every thread of the cluster that has not exited
  // arrived, so a warp that finishes, or threads that return, can complete it too.
  void complete_cluster_barrier_if_all_arrived();
  // Whether every warp of the block has finished.
  bool ended() const;

 private:
  std::vector<const InFlightWrite*> in_flight_writes_;  // per shared byte; null when none
};

// Runs groups of blocks (clusters, when the kernel has them) from a launch queue, `resident` groups
// at a time: their warps as fibers and their agents, in the completion order of the options; a
// group starts when a resident one has ended. Deadlock: no warp is ready and no work in flight can
// release one.
class Scheduler {
 public:
  // `groups` holds the first block of each group of `group_shape` blocks, in launch order.
  Scheduler(const ir::KernelNode& k, const Launch& launch, std::deque<std::array<int, 3>> groups,
            std::array<int, 3> group_shape, int resident, const Options& options, LayoutTables& tables,
            HappensBefore& happens_before, RunWarnings& warnings);
  HappensBefore& happens_before;
  RunWarnings& warnings;
  void run();
  // Called when a warp issued work to `agent`: completes work now or later, by the completion order.
  void issued(AsyncAgent& agent);
  // The block of rank `rank` in the cluster of `cta` (the block itself in a kernel without clusters,
  // whose blocks are clusters of one).
  Cta& cluster_peer(const Cta& cta, int rank);
  // try_cancel's completion: takes a group that has not started from the launch queue, never to
  // start, and returns its first block; none when the queue is empty. Seeded orders take any.
  std::optional<std::array<int, 3>> cancel_cluster();
  // Which write an atomic load reads, of those from `oldest` to `newest` in coherence order that it
  // may read: the newest with eager completion, the oldest with lazy, one drawn from the seed.
  uint64_t pick_write(uint64_t oldest, uint64_t newest);
  ucontext_t context;            // where warps yield to
  Timeline* timeline = nullptr;  // records the run's turns when tracing

 private:
  void launch_groups_while_room();
  void launch_group(std::array<int, 3> first);

  void release_warps_whose_wait_holds();
  bool complete_work_a_waiting_warp_needs();
  bool complete_all_work();
  bool time_out_try_waits();

  const ir::KernelNode& kernel_;
  const Launch& launch_;
  LayoutTables& tables_;
  std::deque<std::array<int, 3>> launch_queue_;
  const std::array<int, 3> group_shape_;
  const int resident_;
  std::vector<std::unique_ptr<Cta>> ctas_;  // launched blocks; a group's in rank order
  std::vector<Warp*> warps_;                // of the launched blocks
  const CompletionOrder order_;
  const bool random_interleaving_;
  std::mt19937_64 rng_;
  // The mbarrier states and wait sites when try_waits last timed out: timing out again at the
  // same sites with no barrier changed in between is a spin that cannot end, so a deadlock.
  std::optional<std::vector<int64_t>> states_at_last_time_out_;
  // Scheduling turns in a row in which a warp only polled and saw nothing change.
  int64_t unchanged_polls_ = 0;
  [[noreturn]] void report_endless_spin() const;
};

// The report of a deadlock among `ctas`, built from the wait of every blocked warp.
Error deadlock_error(const ir::KernelNode& k, const std::vector<std::unique_ptr<Cta>>& ctas);

// The shared byte of the barrier `b` names in `lane`, checked as every mbarrier operation checks
// it (index in range, barrier initialized), with `operation` in messages (exec_mbarrier.cpp).
int64_t mbarrier_byte(Warp& w, const ir::MbarrierRef& b, int lane, const SourceLoc& loc, std::string_view operation);

// The blocks of `w`'s cluster whose rank bit is set in `mask` (an operation's multicast), each
// still running, with its barrier `barrier` initialized: what `operation` reaches from `lane`;
// `receives` says in messages what each block gets ("receives the box") (exec_cluster.cpp).
std::vector<Cta*> multicast_blocks(Warp& w, int64_t mask, const ir::MbarrierRef& barrier, int lane,
                                   const SourceLoc& loc, std::string_view operation, std::string_view receives);
// The block of `w`'s cluster of rank `rank`, still running: what `operation` reaches from `lane`
// (in messages, "thread t of block b <reaches> block c ...; ... while others still <still>").
Cta& cluster_block(Warp& w, int64_t rank, int lane, const SourceLoc& loc, std::string_view operation,
                   std::string_view reaches, std::string_view still);
// The block of `w`'s cluster of rank `rank` whose shared memory `operation` reads or writes from
// `lane`: still running, and, when it is another block, known to run (the GPU may fault or lose an
// access to a block that has not started; something it released must order the access after it).
Cta& remote_shared_block(Warp& w, int64_t rank, int lane, const SourceLoc& loc, std::string_view operation, bool write);
// The block of `w`'s pair (the two blocks of the cluster whose ranks differ in bit 0) of rank
// `rank`, still running: whose barrier or tensor memory `operation` reaches from `lane`.
Cta& pair_block(Warp& w, int64_t rank, int lane, const SourceLoc& loc, std::string_view operation);

// The lane of the thread that issues the group's single-thread instructions (TMA copies,
// try_cancel): the group's first thread, or -1 when it is not in this warp's active lanes
// (exec_tma.cpp).
int issuing_lane(const Warp& w, Mask mask);

// Throws at the line that made `view`'s pointer (as_pointer) when its value in `lane`, `pointer`, is
// not as aligned as promised; checked where an access lies inside the view, as debug mode does.
void check_promised_alignment(const Warp& w, const ir::GlobalTensorNode& view, uint64_t pointer, int lane);
// Global memory checks: throws tessel::Error at `loc` unless [p, p+bytes) lies in one allocation.
// `parameter`: the pointer parameter of the global view accessed, which the message names.
void check_global_access(uint64_t p, size_t bytes, bool write, const SourceLoc& loc, std::string_view parameter = {});
// The name of the kernel parameter `view` is over; empty when its pointer is computed in the kernel.
std::string_view parameter_of(const Warp& w, const ir::GlobalTensorNode& view);
// The allocation that holds address `p`: its first byte and size; false when none does.
bool allocation_containing(uint64_t p, uint64_t* first, size_t* bytes);
// Race detection on global memory: an access of `bytes` bytes at `p` by `w`.
void access_global(Warp& w, uint64_t p, size_t bytes, bool write, const SourceLoc& loc, std::string_view operation,
                   const uint8_t* incoming = nullptr);
// The same for a read through a read-only view (ld.global.nc), which also checks that nothing of
// the launch writes those bytes (HappensBefore::non_coherent_read).
void read_global_non_coherent(Warp& w, uint64_t p, size_t bytes, const SourceLoc& loc, std::string_view operation);
// The same for a packed element of type `t` stored alone from bit `shift` of the byte at `p`, which
// the generated code writes with atomics (HappensBefore::packed_store); `incoming` its new bytes.
void store_global_packed_alone(Warp& w, uint64_t p, int shift, DType t, const SourceLoc& loc,
                               std::string_view operation, const uint8_t* incoming);
// The same for an atomic of `bytes` bytes at `p`, whose access `at` carries its scope.
void atomic_global(Warp& w, uint64_t p, int bytes, const Access& at);

ir::Scalar load_value(DType t, const void* p);
void store_value(DType t, void* p, ir::Scalar v);
// A packed element from bit `shift` of bytes[0], which ends in bytes[1] where packed_bytes says it
// spans two; and `bytes` with that element replaced by `v`.
int packed_bytes(DType t, int shift);
ir::Scalar load_packed(DType t, const uint8_t* bytes, int shift);
void store_packed(DType t, uint8_t* bytes, int shift, ir::Scalar v);

// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) void exec_##Name(Warp& w, const ir::Name##Node& n, Mask mask);
#include "tessel/ir/nodes.def"
// clang-format on

}  // namespace tessel::sim
