// Simulator semantics of the tcgen05 instructions: the block's tensor memory and tensor core
// (tensor_memory.cpp). Loads and stores complete in the instruction, as the generated code waits
// for them in the same statement; the waits only order (fences), which a sequential simulator
// needs nothing for.
#include "machine.hpp"

namespace tessel::sim {

void exec_Tcgen05Alloc(Warp& w, const ir::Tcgen05AllocNode& n, Mask) {
  const int columns = n.tensor->allocated_columns();
  if (!w.cta.tensor_memory.can_allocate(columns)) w.wait(n.loc, TensorMemoryWait{columns});
  w.cta.tensor_memory.allocate(w, n);
}

void exec_Tcgen05Dealloc(Warp& w, const ir::Tcgen05DeallocNode& n, Mask) { w.cta.tensor_memory.deallocate(w, n); }

void exec_Tcgen05Mma(Warp& w, const ir::Tcgen05MmaNode& n, Mask mask) {
  w.cta.tensor_memory.issue_mma(w, n, mask);
  w.cta.scheduler.issued(w.cta.tensor_memory);
}

void exec_Tcgen05Commit(Warp& w, const ir::Tcgen05CommitNode& n, Mask mask) {
  w.cta.tensor_memory.commit(w, n, mask);
  // The commit's arrival releases the warp's clock as it stands: what follows is not released by it.
  w.tick();
  w.cta.scheduler.issued(w.cta.tensor_memory);
}

void exec_Tcgen05Copy(Warp& w, const ir::Tcgen05CopyNode& n, Mask mask) {
  w.cta.tensor_memory.issue_copy(w, n, mask);
  w.cta.scheduler.issued(w.cta.tensor_memory);
}

void exec_Tcgen05Load(Warp& w, const ir::Tcgen05LoadNode& n, Mask mask) {
  w.require_whole_warp(mask, "tcgen05.load", n.loc);
  w.cta.tensor_memory.load(w, n, mask);
}

void exec_Tcgen05Store(Warp& w, const ir::Tcgen05StoreNode& n, Mask mask) {
  w.require_whole_warp(mask, "tcgen05.store", n.loc);
  w.cta.tensor_memory.store(w, n, mask);
}

void exec_Tcgen05Wait(Warp& w, const ir::Tcgen05WaitNode& n, Mask mask) {
  w.require_whole_warp(mask, "tcgen05.wait", n.loc);
}

}  // namespace tessel::sim
