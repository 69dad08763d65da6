// Checks, where the trace decides it, that an mbarrier.arrive_and_expect_tx announces exactly the
// bytes of the asynchronous operations that complete bytes on its barrier (TMA loads, and the
// 16-byte responses of clc.try_cancel): a phase expecting more never completes, one expecting
// fewer underflows (PTX ISA 9.7.13.15.2). Decided only in the producer shape whose count cannot
// depend on the run: one thread announces a constant byte count and issues the operations, in
// straight-line code, and nothing else in the kernel expects bytes or produces them on that
// barrier array, and no operation multicasts on it or signals it from the other block of a pair
// (the bytes of other blocks' operations count too).
// Changes nothing.
#include <map>
#include <optional>

#include "tessel/ir/mutator.hpp"
#include "tessel/ir/tensor_map.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// An operation that completes `bytes` transaction bytes on `barrier`.
struct Producer {
  const ir::MbarrierRef* barrier;
  int64_t bytes;
  bool multicast;  // other blocks of the cluster may complete bytes on the barrier too
};

// Every byte of a load's box counts, elements outside the tensor included.
int64_t box_bytes(const ir::TmaLoadNode& load) {
  int64_t bytes = dtype_bytes(load.src->dtype);
  for (int extent : ir::tma_box(*load.dst, load.src->rank(), load.dims)) bytes *= extent;
  return bytes;
}

// A try_cancel response is 16 bytes (PTX ISA 9.7.20.1).
constexpr int64_t kClcResponseBytes = 16;

std::optional<Producer> producer(const ir::StmtNode& s) {
  if (s.kind == ir::NodeKind::TmaLoad) {
    const auto& load = static_cast<const ir::TmaLoadNode&>(s);
    return Producer{&load.barrier, box_bytes(load), load.cta_mask != nullptr || load.barrier_rank != nullptr};
  }
  if (s.kind == ir::NodeKind::ClcTryCancel) {
    const auto& cancel = static_cast<const ir::ClcTryCancelNode&>(s);
    return Producer{&cancel.barrier, kClcResponseBytes, cancel.multicast};
  }
  return std::nullopt;
}

// The expect-tx instructions and producers of each barrier array in the kernel.
struct BarrierUses {
  int expects = 0;
  int producers = 0;
  bool multicast = false;
};

bool same_barrier(const ir::MbarrierRef& a, const ir::MbarrierRef& b) {
  if (a.array->allocation() != b.array->allocation()) return false;
  int64_t x = 0, y = 0;
  if (ir::as_const_int(a.index, &x) && ir::as_const_int(b.index, &y)) return x == y;
  return a.index == b.index;
}

void check_producer(const ir::SeqNode& body, const std::map<const ir::SharedTensorNode*, BarrierUses>& uses) {
  for (const ir::Stmt& s : body.stmts) {
    if (s->kind != ir::NodeKind::MbarrierArriveExpectTx) continue;
    const auto& expect = static_cast<const ir::MbarrierArriveExpectTxNode&>(*s);
    const BarrierUses& all = uses.at(expect.barrier.array->allocation());
    int64_t expected = 0;
    if (all.expects != 1 || all.producers == 0 || all.multicast || !ir::as_const_int(expect.bytes, &expected))
      continue;
    int here = 0;
    int64_t produced = 0;
    std::vector<std::string> lines;
    for (const ir::Stmt& t : body.stmts)
      if (const std::optional<Producer> p = producer(*t); p && same_barrier(*p->barrier, expect.barrier)) {
        ++here;
        produced += p->bytes;
        lines.push_back(fmt::format("{} {}", ir::call_name(t->kind), t->loc.str()));
      }
    if (here != all.producers) continue;
    if (produced != expected)
      throw Error(expect.loc, fmt::format("mbarrier.arrive_and_expect_tx: announces {} transaction bytes, but the "
                                          "operations that complete bytes on this barrier ({}) bring {} bytes, every "
                                          "byte of the TMA loads' boxes and 16 of each try_cancel response; the phase "
                                          "would {}. Announce exactly the bytes they bring",
                                          expected, fmt::join(lines, ", "), produced,
                                          produced < expected ? "never complete" : "receive more bytes than it expects"));
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
    if (const std::optional<Producer> p = producer(s)) {
      BarrierUses& barrier = uses[p->barrier->array->allocation()];
      ++barrier.producers;
      barrier.multicast |= p->multicast;
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
