// Checks, where the trace decides it, that an mbarrier.arrive_and_expect_tx announces exactly the
// bytes of the TMA loads that signal its barrier: a phase expecting more never completes, one
// expecting fewer underflows (PTX ISA 9.7.13.15.2). Decided only in the producer shape whose
// count cannot depend on the run: one thread announces a constant byte count and issues the
// loads, in straight-line code, and nothing else in the kernel expects bytes or loads on that
// barrier array, and no load multicasts on it or signals it from the other block of a pair (the
// bytes of other blocks' loads count too).
// Changes nothing.
#include <map>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/tensor_map.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// The expect-tx instructions and TMA loads of each barrier array in the kernel.
struct BarrierUses {
  int expects = 0;
  std::vector<const ir::TmaLoadNode*> loads;
  bool multicast = false;  // loads of other blocks of the cluster may signal it too
};

bool same_barrier(const ir::MbarrierRef& a, const ir::MbarrierRef& b) {
  if (a.array->allocation() != b.array->allocation()) return false;
  int64_t x = 0, y = 0;
  if (ir::as_const_int(a.index, &x) && ir::as_const_int(b.index, &y)) return x == y;
  return a.index == b.index;
}

// Every byte of a load's box counts, elements outside the tensor included.
int64_t box_bytes(const ir::TmaLoadNode& load) {
  int64_t bytes = dtype_bytes(load.src->dtype);
  for (int extent : ir::tma_box(*load.dst, load.src->rank(), load.dims)) bytes *= extent;
  return bytes;
}

void check_producer(const ir::SeqNode& body, const std::map<const ir::SharedTensorNode*, BarrierUses>& uses) {
  for (const ir::Stmt& s : body.stmts) {
    if (s->kind != ir::NodeKind::MbarrierArriveExpectTx) continue;
    const auto& expect = static_cast<const ir::MbarrierArriveExpectTxNode&>(*s);
    const BarrierUses& all = uses.at(expect.barrier.array->allocation());
    int64_t expected = 0;
    if (all.expects != 1 || all.loads.empty() || all.multicast || !ir::as_const_int(expect.bytes, &expected)) continue;
    std::vector<const ir::TmaLoadNode*> here;
    for (const ir::Stmt& t : body.stmts)
      if (t->kind == ir::NodeKind::TmaLoad) {
        const auto& load = static_cast<const ir::TmaLoadNode&>(*t);
        if (same_barrier(load.barrier, expect.barrier)) here.push_back(&load);
      }
    if (here.size() != all.loads.size()) continue;
    int64_t loaded = 0;
    std::vector<std::string> lines;
    for (const ir::TmaLoadNode* load : here) {
      loaded += box_bytes(*load);
      lines.push_back(load->loc.str());
    }
    if (loaded != expected)
      throw Error(expect.loc, fmt::format("mbarrier.arrive_and_expect_tx: announces {} transaction bytes, but the TMA "
                                          "loads that signal this barrier (at {}) bring {} bytes, every byte of their "
                                          "boxes; the phase would {}. Announce exactly the boxes' bytes",
                                          expected, fmt::join(lines, ", "), loaded,
                                          loaded < expected ? "never complete" : "receive more bytes than it expects"));
  }
}

}  // namespace

ir::Kernel check_transaction_bytes(const ir::Kernel& k, const PassContext&) {
  std::map<const ir::SharedTensorNode*, BarrierUses> uses;
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    if (s.kind == ir::NodeKind::MbarrierArriveExpectTx)
      ++uses[static_cast<const ir::MbarrierArriveExpectTxNode&>(s).barrier.array->allocation()].expects;
    if (s.kind == ir::NodeKind::MbarrierExpectTx)
      ++uses[static_cast<const ir::MbarrierExpectTxNode&>(s).barrier.array->allocation()].expects;
    if (s.kind == ir::NodeKind::TmaLoad) {
      const auto& load = static_cast<const ir::TmaLoadNode&>(s);
      BarrierUses& barrier = uses[load.barrier.array->allocation()];
      barrier.loads.push_back(&load);
      barrier.multicast |= load.cta_mask != nullptr || load.barrier_rank != nullptr;
    }
  });
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    if (s.kind != ir::NodeKind::ThreadGroup) return;
    const auto& group = static_cast<const ir::ThreadGroupNode&>(s);
    if (group.count == 1 && group.body->kind == ir::NodeKind::Seq)
      check_producer(static_cast<const ir::SeqNode&>(*group.body), uses);
  });
  return k;
}

}  // namespace tessel::passes
