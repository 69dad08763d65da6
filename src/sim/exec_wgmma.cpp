// Simulator semantics of the wgmma instructions: each warp of a warpgroup hands its share of an
// mma to the block's wgmma unit (wgmma_unit.cpp), which completes it asynchronously; commit and
// wait are per warp, as every warp of the warpgroup executes them.
#include "machine.hpp"

namespace tessel::sim {

void exec_WgmmaFence(Warp& w, const ir::WgmmaFenceNode& n, Mask mask) {
  w.require_whole_warp(mask, "wgmma.fence", n.loc);
  w.cta.wgmma.fence(w);
}

void exec_WgmmaMma(Warp& w, const ir::WgmmaMmaNode& n, Mask mask) {
  w.cta.wgmma.issue(w, n, mask);
  w.cta.scheduler.issued(w.cta.wgmma);
}

void exec_WgmmaCommitGroup(Warp& w, const ir::WgmmaCommitGroupNode& n, Mask mask) {
  w.require_whole_warp(mask, "wgmma.commit_group", n.loc);
  w.cta.wgmma.commit(w);
  w.cta.scheduler.issued(w.cta.wgmma);
}

void exec_WgmmaWaitGroup(Warp& w, const ir::WgmmaWaitGroupNode& n, Mask mask) {
  w.require_whole_warp(mask, "wgmma.wait_group", n.loc);
  w.wait(n.loc, WgmmaGroupWait{n.pending});
  w.cta.wgmma.retire(w, n.pending);
}

}  // namespace tessel::sim
