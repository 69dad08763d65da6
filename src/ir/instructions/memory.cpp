// Verifier rules and effects (tessel/ir/effects.hpp) of the memory instructions: allocations, loads
// and stores, barriers.
#include "verification.hpp"

namespace tessel::ir {

// Barrier 0 is the block's; a thread group's sync() has a named barrier of its own (or none yet).
void verify_Sync(Verification& v, const SyncNode& n) {
  const bool whole_block = v.group() == ThreadRange{0, v.kernel.threads()};
  TESSEL_CHECK(n.barrier >= SyncNode::kUnallocated && n.barrier < SyncNode::kBarriers, "sync barrier {} at {}",
               n.barrier, n.loc.str());
  TESSEL_CHECK((n.barrier == SyncNode::kBlockBarrier) == whole_block, "sync barrier {} in a group of {} at {}",
               n.barrier, v.group().str(), n.loc.str());
}

void verify_AllocShared(Verification& v, const AllocSharedNode& n) {
  TESSEL_CHECK(!n.tensor->root, "alloc_shared of a view at {}", n.loc.str());
  v.define(n.tensor);
}

void verify_FreeShared(Verification& v, const FreeSharedNode& n) { v.free(n.tensor, n); }

namespace {

// A gather's or scatter's indices: integers along one of the view's dimensions, of the moved tile's
// shape or broadcast to it.
void verify_index(Verification& v, const RegisterTensor& index, int dim, const RegisterTensor& tile,
                  const StmtNode& n) {
  if (!index) return;
  TESSEL_CHECK(
      dim >= 0 && dim < tile->rank() && is_byte_addressed_integer(index->dtype) && index->rank() == tile->rank(),
      "indices along dim {} at {}", dim, n.loc.str());
  for (int d = 0; d < tile->rank(); ++d)
    TESSEL_CHECK(index->shape()[d] == 1 || index->shape()[d] == tile->shape()[d],
                 "indices of extent {} in dim {} at {}", index->shape()[d], d, n.loc.str());
  v.use(index, n);
}

}  // namespace

void check_writable(const GlobalTensor& g, std::string_view what, const StmtNode& n) {
  if (g && g->read_only)
    throw Error(n.loc, fmt::format("{}: the view is read-only (made read_only() at {}): its loads read through the "
                                   "non-coherent cache (ld.global.nc), which may keep the old bytes, so nothing may "
                                   "write them while the kernel runs; drop read_only() from the views of bytes the "
                                   "kernel writes",
                                   what, g->read_only->str()));
}

void check_no_l1_hint(const GlobalTensor& g, std::string_view why, const StmtNode& n) {
  if (g && g->l1_hint != L1Hint::Normal)
    throw Error(n.loc, fmt::format("{}, and this view has L1 hint {}; pass the view without with_l1_hint", why,
                                   l1_hint_name(g->l1_hint)));
}

void verify_LoadGlobal(Verification& v, const LoadGlobalNode& n) {
  TESSEL_CHECK(int(n.offsets.size()) == n.src->rank(), "load_global with {} offsets at {}", n.offsets.size(),
               n.loc.str());
  verify_index(v, n.index, n.index_dim, n.out, n);
  v.define(n.out, n);
}

void verify_StoreGlobal(Verification& v, const StoreGlobalNode& n) {
  TESSEL_CHECK(int(n.offsets.size()) == n.dst->rank(), "store_global with {} offsets at {}", n.offsets.size(),
               n.loc.str());
  verify_index(v, n.index, n.index_dim, n.src, n);
  check_writable(n.dst, n.index ? "store_global_scatter" : "store_global", n);
  v.use(n.src, n);
}

void verify_LoadShared(Verification& v, const LoadSharedNode& n) {
  TESSEL_CHECK(int(n.offsets.size()) == n.src->rank(), "load_shared with {} offsets at {}", n.offsets.size(),
               n.loc.str());
  if (n.rank) check_remote_shared(v.kernel, n.rank, n.src->dtype, "load_shared", n);
  TESSEL_CHECK(!n.rank || !n.index, "a gather from another block's shared memory at {}", n.loc.str());
  verify_index(v, n.index, n.index_dim, n.out, n);
  v.define(n.out, n);
}

void verify_StoreShared(Verification& v, const StoreSharedNode& n) {
  TESSEL_CHECK(int(n.offsets.size()) == n.dst->rank(), "store_shared with {} offsets at {}", n.offsets.size(),
               n.loc.str());
  if (n.rank) check_remote_shared(v.kernel, n.rank, n.dst->dtype, "store_shared", n);
  TESSEL_CHECK(!n.rank || !n.index, "a scatter into another block's shared memory at {}", n.loc.str());
  verify_index(v, n.index, n.index_dim, n.src, n);
  v.use(n.src, n);
}

// ---- effects ----

Effects effects_of(const SyncNode&) { return {}; }
Effects effects_of(const LoadGlobalNode&) { return {}; }
Effects effects_of(const StoreGlobalNode&) { return {}; }

Effects effects_of(const AllocSharedNode& n) {
  Effects e;
  e.shared_allocated = n.tensor.get();
  return e;
}

Effects effects_of(const FreeSharedNode&) { return {}; }

Effects effects_of(const LoadSharedNode& n) {
  Effects e;
  if (n.matrix.instruction != MatrixInstruction::None) e.row_accesses.push_back(n.src->allocation());
  return e;
}

Effects effects_of(const StoreSharedNode& n) {
  Effects e;
  if (n.matrix.instruction != MatrixInstruction::None) e.row_accesses.push_back(n.dst->allocation());
  return e;
}

}  // namespace tessel::ir
