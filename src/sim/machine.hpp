// The simulator's machine state: a block (CTA) of warps, each a fiber with per-lane scalars and
// per-lane register tiles, sharing the block's shared memory and barrier.
#pragma once

#include <ucontext.h>

#include <exception>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>

#include "tessel/sim/simulator.hpp"

namespace tessel::sim {

using Mask = uint32_t;
using Lanes = std::array<ir::Scalar, 32>;

inline int popcount(Mask m) { return __builtin_popcount(m); }

class Cta;

// Per-kernel-run caches of layout arithmetic (coordinates of every (thread, slot)).
class LayoutTables {
 public:
  // coords[(t * local + l) * rank + d]
  const std::vector<int>& coords(const ir::RegisterTensorNode* t);
  // For each (thread, slot) of `out`, the slot of `operand` holding the broadcast source.
  const std::vector<int>& broadcast(const ir::RegisterTensorNode* operand, const ir::RegisterTensorNode* out);

 private:
  std::unordered_map<const void*, std::vector<int>> coords_;
  std::map<std::pair<const void*, const void*>, std::vector<int>> broadcast_;
};

class Warp {
 public:
  Warp(Cta& cta, int id);
  Cta& cta;
  const int id;

  enum class State { Ready, Blocked, Done } state = State::Ready;
  SourceLoc waiting_at;
  int arrived_threads = 0;
  std::exception_ptr error;

  // The lanes of this warp inside the current thread group and its first thread.
  struct Group { int begin, count; };
  std::vector<Group> groups;
  Group group() const { return groups.back(); }
  int thread(int lane) const { return id * 32 + lane; }
  int thread_in_group(int lane) const { return thread(lane) - group().begin; }

  void exec(const ir::Stmt& s, Mask mask);
  void exec_here(const ir::Stmt& s, Mask mask);
  Lanes eval(const ir::Expr& e, Mask mask);

  // Register tiles: values[lane * local_size + slot].
  std::vector<ir::Scalar>& tile(const ir::RegisterTensorNode* t);

  // cp.async operations in flight: the open group and the committed ones, oldest first. The data
  // is read from global memory at issue and lands in shared memory at completion.
  struct AsyncCopy {
    int64_t byte;
    std::vector<uint8_t> data;
  };
  std::vector<AsyncCopy> open_copies;
  std::vector<std::vector<AsyncCopy>> committed_copies;
  void complete_copies(size_t groups_left);

  // Fiber plumbing.
  ucontext_t context;
  std::vector<char> stack;
  void yield();

 private:
  std::unordered_map<const ir::VarNode*, Lanes> vars_;
  std::unordered_map<const ir::RegisterTensorNode*, std::vector<ir::Scalar>> tiles_;
};

class Cta {
 public:
  Cta(const ir::KernelNode& k, const Launch& launch, std::array<int, 3> block, const Options& options,
      LayoutTables& tables);
  void run();

  const ir::KernelNode& kernel;
  const Launch& launch;
  const std::array<int, 3> block;
  LayoutTables& tables;
  std::unordered_map<const ir::VarNode*, ir::Scalar> params;

  // Shared memory with a per-byte "written" mark: reads of unwritten bytes are reported.
  std::vector<uint8_t> smem, written;
  std::unordered_map<const ir::SharedTensorNode*, int64_t> shared_offsets;
  // For each shared byte, the cp.async still writing it (null when none).
  std::vector<const ir::CopyAsyncNode*> pending_copy;
  // Throws when [byte, byte + n) is being written by a cp.async that has not completed.
  void check_no_pending_copy(int64_t byte, int n, bool write, const SourceLoc& loc, int thread) const;
  // Whether a committed group may complete now (seeded interleavings let copies land early).
  bool complete_early();

  // The block-wide barrier of sync().
  int barrier_arrived = 0;
  void arrive_at_barrier(Warp& w, Mask mask, const SourceLoc& loc);

  std::string block_name() const;
  ucontext_t scheduler;

 private:
  [[noreturn]] void report_deadlock();
  std::vector<std::unique_ptr<Warp>> warps_;
  std::mt19937_64 rng_;
  bool random_;
};

// Global memory checks: throws tessel::Error at `loc` unless [p, p+bytes) lies in one allocation.
void check_global_access(uint64_t p, size_t bytes, bool write, const SourceLoc& loc);

ir::Scalar load_value(DType t, const void* p);
void store_value(DType t, void* p, ir::Scalar v);

#define TESSEL_INSTR(Name, family, min_target, executor) void exec_##Name(Warp& w, const ir::Name##Node& n, Mask mask);
#include "tessel/ir/nodes.def"

}  // namespace tessel::sim
