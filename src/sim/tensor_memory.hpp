// A block's tensor memory and its tcgen05 tensor core (hw-semantics.md §5.10): 128 lanes x 512
// columns of 32 bits, an allocation table, and the tensor core as an asynchronous agent.
//
// Allocation: tcgen05.alloc takes the first free run of its (power-of-two) column count aligned
// to that count, and blocks while there is none; the columns are filled with NaN, so an mma whose
// first step accumulates (enable_input_d true) shows. Freeing what is not allocated, touching
// columns of no live allocation, and a block that ends holding an allocation are reported.
// Allocating a tensor again before freeing it makes a second allocation; the first is leaked.
//
// The tensor core: a tcgen05.mma (or tcgen05.copy) is issued by one thread and completes, in issue
// order per thread, when the scheduler chooses: it reads its shared operands through its
// descriptors then and writes its accumulator (destination). A tcgen05.commit arrives on its
// mbarrier once every operation its thread issued before has completed. Until the phase that arrival counts toward has
// completed, the mma owns its accumulator's columns (loads, stores and deallocation are reported) and its operand tiles
// (writes are reported), whenever it actually completed: a program may not rely on an early completion. An mma never
// committed owns them for good. Once that phase has completed, a warp still touches the columns only if it is ordered
// after the phase (an acquiring wait on it, or a warp that did): each column remembers the committed write and the
// phase, so a missing wait is reported however early the mma completed.
//
// Pairs (cta_group::2): the even block of a pair issues the pair's mma, which reads the operand
// halves of both blocks at the same shared offsets and writes each block's rows into that block's
// tensor memory at the same columns, where both blocks hold the accumulator's allocation. A
// multicast commit arrives on the barrier at the same offset in each block of its mask; a block
// sees the mma release its columns and operands when the phase of its own barrier that the
// commit counts toward has completed.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "async_agent.hpp"
#include "tessel/ir/target_limits.hpp"
#include "tessel/layout/tcgen05_descriptor.hpp"

namespace tessel::sim {

// The tensor memory of an SM, which exists from sm_100a (ir::TargetLimits): lanes and 32-bit columns.
inline const int kTmemLanes = ir::target_limits(ir::Arch::Sm100a).tmem_lanes;
inline const int kTmemColumns = ir::target_limits(ir::Arch::Sm100a).tmem_columns;

class Cta;

class TensorMemory final : public AsyncAgent {
 public:
  explicit TensorMemory(Cta& cta);

  // Whether a tcgen05.alloc of `columns` would find them free now.
  bool can_allocate(int columns) const;
  int free_columns() const;
  // Warp `w` allocates the tensor of `n`, whose columns are free.
  void allocate(const Warp& w, const ir::Tcgen05AllocNode& n);
  void deallocate(const Warp& w, const ir::Tcgen05DeallocNode& n);

  void load(Warp& w, const ir::Tcgen05LoadNode& n, Mask mask);
  void store(Warp& w, const ir::Tcgen05StoreNode& n, Mask mask);
  void issue_mma(Warp& w, const ir::Tcgen05MmaNode& n, Mask mask);
  void issue_copy(Warp& w, const ir::Tcgen05CopyNode& n, Mask mask);
  void commit(Warp& w, const ir::Tcgen05CommitNode& n, Mask mask);

  // Throws at the allocating line of an allocation still held when the block ends.
  void check_released() const;

  std::string_view engine() const override { return "the tensor core"; }

  std::string_view operation() const override { return "tcgen05.mma"; }
  std::string_view wait_advice() const override {
    return "wait for the phase of the mbarrier its tcgen05.commit arrives on (mbarrier.wait) first";
  }
  bool busy() const override;
  void complete_all() override;
  void complete_at_random(std::mt19937_64& rng) override;
  bool complete_needed_by(const Warp& warp, const WaitCondition& condition) override;
  const InFlightRead* reading(int64_t begin, int64_t end) const override;

 private:
  struct Allocation {
    const ir::TMemoryTensorNode* tensor;
    int column, columns;
  };
  struct Instruction {
    Tcgen05SmemDescriptor a, b;                  // a copy reads its source through `a`
    int k0;                                      // its first column of k (of the destination, for a copy)
    uint32_t instruction_descriptor = 0;         // an mma's
    int scale_a_column = 0, scale_b_column = 0;  // a block-scaled mma's first scale columns
  };
  // An mma or a copy: both write tensor-memory columns from shared operands, complete in issue
  // order per thread, and are observed through commits.
  struct Operation {
    const ir::Tcgen05MmaNode* mma = nullptr;    // null for a copy
    const ir::Tcgen05CopyNode* copy = nullptr;  // null for an mma
    int thread;
    int64_t sequence;  // among the thread's operations
    int column;        // the destination's first TMEM column
    int columns;
    bool accumulate = false;
    std::vector<Instruction> instructions;
    std::vector<std::pair<int, int>> scale_columns;  // a block-scaled mma's: the columns [begin, end) it reads
    InFlightRead a, b;                               // `b` empty for a copy
    Cta* peer = nullptr;  // a pair mma's odd block, whose memories it touches at the same places
    bool done = false;
    bool committed = false;  // a commit covering it arrived, and its columns remember it
    const SourceLoc& loc() const { return mma ? mma->loc : copy->loc; }
    std::string_view name() const { return mma ? "tcgen05.mma" : "tcgen05.copy"; }
    std::string_view kind() const { return mma ? "mma" : "copy"; }
  };
  // Where a commit arrives: a block's mbarrier.
  struct Arrival {
    Cta* block;
    int64_t barrier;    // the mbarrier's shared byte
    int64_t phase = 0;  // once arrived: the barrier's phase the arrival counts toward
  };
  struct Commit {
    const ir::Tcgen05CommitNode* node;
    int thread;
    std::vector<Arrival> arrivals;  // this block's barrier, or those of a multicast
    int64_t covers;                 // the thread's operations of sequence < covers
    VectorClock issuer;             // the committing warp's clock, which the arrivals release
    bool arrived = false;
    // The arrival through which `block` sees the commit: on its own barrier when the commit arrives
    // there, else on the first one.
    const Arrival& arrival_seen_by(const Cta& block) const;
    // Whether `block` has seen that arrival's phase complete.
    bool released_for(const Cta& block) const;
  };

  // The last mma or copy that wrote a column of this block, once a commit covering it arrived: an
  // access is ordered after it only through the phase one such arrival counts toward, acquired on
  // the barrier's own actor (a wait of the block) or its peer actor (of cluster scope).
  struct CommittedWrite {
    const SourceLoc* loc = nullptr;  // the write's line and "tcgen05.mma" or "tcgen05.copy"; null: none
    std::string_view name;
    const TensorMemory* issuer = nullptr;  // the write's tensor core and thread, and its place among
    int thread = 0;                        // the thread's operations, which later commits of that
    int64_t sequence = 0;                  // thread cover too
    std::vector<Epoch> observed_through;
  };
  // On the arrival of `c`: its operations' destination columns remember them as the last writes,
  // and every column whose last write `c` covers can be observed through `c`'s phase.
  void note_commit(const Commit& c);
  // Throws when warp `w` touches one of the columns [begin, end) without being ordered after a
  // phase through which the write that last wrote it can be observed.
  void check_observed(int begin, int end, std::string_view operation, const SourceLoc& loc, const Warp& w) const;

  // The first TMEM column of `t` as lane `lane` of `w` sees it, checked against its allocation.
  int first_column(Warp& w, const ir::TMemoryTensor& t, int lane, std::string_view operation,
                   const SourceLoc& loc) const;
  // Throws when an operation that still owns them writes one of this block's columns [begin, end)
  // or, for an `operation` that writes them, reads one as block scales.
  void check_not_written(int begin, int end, std::string_view operation, const SourceLoc& loc, int warp,
                         bool writes = true) const;
  // Whether `m` still owns what it touches in `block` (its issuing block or its peer).
  bool owned(const Operation& m, const Cta& block) const;
  bool touches(const Operation& m, const Cta& block) const { return &block == &cta_ || m.peer == &block; }
  // The tensor cores whose operations may touch this block: its own and, in a pair kernel, the
  // one of its pair's even block, which issues the pair's mma.
  std::vector<const TensorMemory*> issuers() const;
  // For a pair mma issued by `w`: the odd block of the pair, checked to hold the accumulator's
  // allocation at the columns this block holds it.
  Cta& pair_peer(Warp& w, const ir::Tcgen05MmaNode& n) const;
  // The TMEM lane a thread of a 32x32b access reads: 32 (warp mod 4) + lane, checked against
  // the row the tile's layout gives it.
  int access_lane(const Warp& w, const ir::TMemoryTensor& t, const ir::RegisterTensor& tile, int lane,
                  std::string_view operation, const SourceLoc& loc) const;
  void complete(Operation& m);
  void complete_copy(Operation& m);
  // Completes the thread's operations up to (not including) sequence `end`, in order.
  void complete_thread_until(int thread, int64_t end);
  // Arrives every commit whose mma have all completed; drops what no longer owns anything.
  void arrive_ready_commits();
  void forget_released();

  Cta& cta_;
  std::vector<uint32_t> cells_;                   // [lane * 512 + column]
  std::vector<CommittedWrite> committed_writes_;  // per column
  std::vector<bool> taken_;                       // per column
  // Live allocations, oldest first. Allocating a tensor again before freeing it (in a loop) makes
  // a new one; the tensor then names the newest, and the older is leaked.
  std::vector<Allocation> allocations_;
  const Allocation* newest(const ir::TMemoryTensorNode* tensor) const;
  std::map<const ir::TMemoryTensorNode*, const SourceLoc*> freed_at_;
  std::vector<std::unique_ptr<Operation>> operations_;  // issue order; boxed because reads point at them
  std::vector<Commit> commits_;                         // issue order
  std::map<int, int64_t> issued_;                       // per thread: operations issued so far
};

}  // namespace tessel::sim
