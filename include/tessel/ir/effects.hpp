// What an instruction does to the block's shared resources besides reading and writing its
// operands: the barriers it initializes, arrives on, and expects or completes transaction bytes
// on; the shared tiles that tensor cores read, those read or written a row at a time, and those TMA
// moves; the tensor memory it allocates and frees. Every instruction states its effects beside its verifier
// rule (src/ir/instructions/<family>.cpp), declared from nodes.def, so a new instruction does not
// link until it says what it does; the analyses that need these facts (arrival counts, transaction
// bytes, swizzles, tensor memory) read them instead of testing node kinds.
#pragma once

#include <vector>

#include "tessel/ir/ir.hpp"

namespace tessel::ir {

// Arrivals on `barrier`. `per_thread` is how many each executing thread makes; null when they are
// not made by the executing threads of this block (another block's barrier, or the tensor core's
// arrival once earlier operations complete), so no per-block count can be made.
struct BarrierArrival {
  const MbarrierRef* barrier;
  Expr per_thread;
};

// A raise of the phase's expected transaction bytes on `barrier` (in another block when `remote`).
struct ExpectedBytes {
  const MbarrierRef* barrier;
  Expr bytes;
  bool remote = false;
};

// Transaction bytes an asynchronous operation completes on `barrier`. With `other_blocks`, the
// barriers of other blocks of the cluster may receive bytes from it too, or this block's barrier
// from theirs.
struct CompletedBytes {
  const MbarrierRef* barrier;
  int64_t bytes;
  bool other_blocks = false;
};

// A shared tile read by a tensor core through matrix descriptors, which need the tile swizzled by
// `swizzle_bits`: the swizzle whose span is a K-major or MN-major row (wgmma_swizzle_bits), or 0
// for the 16-byte rows tcgen05.cp reads block scales from.
struct TensorCoreRead {
  const SharedTensorNode* tile;
  int swizzle_bits;
};

// A shared tile a TMA copy moves, in box rows of `row_bytes`: its swizzle's span must hold a row.
struct TmaRows {
  const SharedTensorNode* tile;
  int64_t row_bytes;
};

struct Effects {
  const SharedTensorNode* shared_allocated = nullptr;
  // A barrier array initialized, with each barrier's arrival count.
  const SharedTensorNode* barriers_initialized = nullptr;
  const std::vector<int>* barrier_counts = nullptr;
  std::vector<BarrierArrival> arrivals;
  std::vector<ExpectedBytes> expected_bytes;
  std::vector<CompletedBytes> completed_bytes;
  std::vector<TensorCoreRead> tensor_core_reads;
  // Shared tiles read (ldmatrix) or written (stmatrix) in 8-row matrix accesses.
  std::vector<const SharedTensorNode*> row_accesses;
  std::vector<TmaRows> tma_rows;
  const TMemoryTensorNode* tensor_memory_allocated = nullptr;
  const TMemoryTensorNode* tensor_memory_freed = nullptr;
};

// The effects of instruction `s` (none for control flow).
Effects effects(const StmtNode& s);

// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) Effects effects_of(const Name##Node& n);
#include "tessel/ir/nodes.def"
// clang-format on

}  // namespace tessel::ir
