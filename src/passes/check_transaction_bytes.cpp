// Checks, where the trace decides it, that an mbarrier.arrive_and_expect_tx (or expect_tx)
// announces exactly the bytes of the asynchronous operations that complete bytes on its barrier
// (their effects say which: TMA loads, and the 16-byte responses of clc.try_cancel): a phase
// expecting more never completes, one expecting fewer underflows (PTX ISA 9.7.13.15.2). Decided
// only in the producer shape whose count cannot depend on the run: one thread announces a
// constant byte count and issues the operations, in straight-line code, and nothing else in the
// kernel expects bytes or produces them on that barrier array, and no operation multicasts on it
// or signals it from another block (the bytes of other blocks' operations count too).
// Changes nothing.
#include <map>

#include "tessel/ir/effects.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

// The expect-tx instructions and producers of each barrier array in the kernel.
struct BarrierUses {
  int expects = 0;
  int producers = 0;
  bool other_blocks = false;
};

bool same_barrier(const ir::MbarrierRef& a, const ir::MbarrierRef& b) {
  if (a.array->allocation() != b.array->allocation()) return false;
  int64_t x = 0, y = 0;
  if (ir::as_const_int(a.index, &x) && ir::as_const_int(b.index, &y)) return x == y;
  return a.index == b.index;
}

void check_producer(const ir::SeqNode& body, const std::map<const ir::SharedTensorNode*, BarrierUses>& uses) {
  for (const ir::Stmt& s : body.stmts)
    for (const ir::ExpectedBytes& expect : ir::effects(*s).expected_bytes) {
      const BarrierUses& all = uses.at(expect.barrier->array->allocation());
      int64_t expected = 0;
      if (expect.remote || all.expects != 1 || all.producers == 0 || all.other_blocks ||
          !ir::as_const_int(expect.bytes, &expected))
        continue;
      int here = 0;
      int64_t produced = 0;
      std::vector<std::string> lines;
      for (const ir::Stmt& t : body.stmts)
        for (const ir::CompletedBytes& p : ir::effects(*t).completed_bytes)
          if (same_barrier(*p.barrier, *expect.barrier)) {
            ++here;
            produced += p.bytes;
            lines.push_back(fmt::format("{} {}", ir::call_name(t->kind), t->loc.str()));
          }
      if (here != all.producers) continue;
      if (produced != expected)
        throw Error(s->loc, fmt::format("{}: announces {} transaction bytes, but the operations that complete bytes on "
                                        "this barrier ({}) bring {} bytes, every byte of the TMA loads' boxes and 16 "
                                        "of each try_cancel response; the phase would {}. Announce exactly the bytes "
                                        "they bring",
                                        ir::call_name(s->kind), expected, fmt::join(lines, ", "), produced,
                                        produced < expected ? "never complete" : "receive more bytes than it expects"));
    }
}

// The producer shape: a thread group of one thread whose body is straight-line code.
class SingleThreadBodies : public ir::Visitor {
 public:
  explicit SingleThreadBodies(const std::map<const ir::SharedTensorNode*, BarrierUses>& uses) : uses_(uses) {}

 protected:
  void visit(const ir::ThreadGroupNode& n) override {
    if (n.count == 1 && n.body->kind == ir::NodeKind::Seq)
      check_producer(static_cast<const ir::SeqNode&>(*n.body), uses_);
    ir::Visitor::visit(n);
  }

 private:
  const std::map<const ir::SharedTensorNode*, BarrierUses>& uses_;
};

}  // namespace

ir::Kernel check_transaction_bytes(const ir::Kernel& k, const PassContext&) {
  std::map<const ir::SharedTensorNode*, BarrierUses> uses;
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    const ir::Effects e = ir::effects(s);
    for (const ir::ExpectedBytes& expect : e.expected_bytes) {
      BarrierUses& barrier = uses[expect.barrier->array->allocation()];
      ++barrier.expects;
      barrier.other_blocks |= expect.remote;
    }
    for (const ir::CompletedBytes& p : e.completed_bytes) {
      BarrierUses& barrier = uses[p.barrier->array->allocation()];
      ++barrier.producers;
      barrier.other_blocks |= p.other_blocks;
    }
  });
  SingleThreadBodies(uses).visit_kernel(*k);
  return k;
}

}  // namespace tessel::passes
