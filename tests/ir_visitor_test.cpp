// The one scoped traversal: where each statement runs (thread group, enclosing loops and if_
// bodies, values in scope) as the Visitor and the Mutator see it, and what instructions' effects
// say about barriers, transaction bytes, tensor-core reads and tensor memory.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tessel/ir/effects.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/tessel.hpp"

namespace tessel {
namespace {

// Arrivals placed at every kind of position: the block, a warp, a thread inside it, a loop, an
// if_ of the warp, and an if_ around a thread group (which does not make the group's own
// statements branched: every thread of the group reaches them).
struct Positions : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 2;
    auto bars = mbarrier.alloc({64, 32, 1, 1, 32, 1});
    mbarrier.arrive(bars[0]);
    thread_group(32, 32, [&] {
      mbarrier.arrive(bars[1]);
      thread_group(0, 1, [&] { mbarrier.arrive(bars[2]); });
      for ([[maybe_unused]] Int32 i : range(n)) mbarrier.arrive(bars[3], 1);
      if_(n > 1, [&] { mbarrier.arrive(bars[4]); });
    });
    if_(n > 2, [&] { thread_group(0, 1, [&] { mbarrier.arrive(bars[5]); }); });
  }
};

ir::Kernel traced_positions() { return Kernel<Positions>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1); }

int64_t barrier_index(const ir::StmtNode& s) {
  int64_t index = -1;
  ir::as_const_int(static_cast<const ir::MbarrierArriveNode&>(s).barrier.index, &index);
  return index;
}

class RecordPositions : public ir::Visitor {
 public:
  std::vector<std::string> seen;

 protected:
  void visit(const ir::MbarrierArriveNode& n) override {
    const ir::Position& p = position();
    seen.push_back(fmt::format("bars[{}]: {}, loops {}, branched {}, nested {}", barrier_index(n), p.group().str(),
                               p.loops(), p.branched(), p.nested()));
  }
};

TEST(Visitor, KnowsTheThreadGroupLoopsAndBranchesOfEveryStatement) {
  RecordPositions record;
  record.visit_kernel(*traced_positions());
  EXPECT_EQ(record.seen, (std::vector<std::string>{
                             "bars[0]: threads 0..63, loops 0, branched false, nested false",
                             "bars[1]: threads 32..63, loops 0, branched false, nested false",
                             "bars[2]: threads 32..32, loops 0, branched false, nested false",
                             "bars[3]: threads 32..63, loops 1, branched false, nested true",
                             "bars[4]: threads 32..63, loops 0, branched true, nested true",
                             "bars[5]: threads 0..0, loops 0, branched false, nested true",
                         }));
}

// The mutator keeps the same position, from the block down, when it rewrites a kernel.
class RecordGroupsWhileMutating : public ir::Mutator {
 public:
  std::vector<std::string> seen;

 protected:
  ir::Stmt visit(const ir::MbarrierArriveNode& n, const ir::Stmt& self) override {
    seen.push_back(fmt::format("bars[{}]: {}", barrier_index(n), position().group().str()));
    return self;
  }
};

TEST(Visitor, TheMutatorKeepsTheSamePosition) {
  const ir::Kernel k = traced_positions();
  RecordGroupsWhileMutating record;
  EXPECT_EQ(record.mutate_kernel(k), k);
  EXPECT_EQ(record.seen,
            (std::vector<std::string>{"bars[0]: threads 0..63", "bars[1]: threads 32..63", "bars[2]: threads 32..32",
                                      "bars[3]: threads 32..63", "bars[4]: threads 32..63", "bars[5]: threads 0..0"}));
}

// A value is in scope in the body that defines it and the bodies inside, not after it.
class RecordScopes : public ir::Visitor {
 public:
  std::vector<bool> loop_var_defined_at_arrivals;
  const void* loop_var = nullptr;

 protected:
  void visit(const ir::ForNode& n) override {
    loop_var = n.var.get();
    ir::Visitor::visit(n);
  }
  void visit(const ir::MbarrierArriveNode&) override {
    loop_var_defined_at_arrivals.push_back(loop_var && position().defined(loop_var));
  }
};

TEST(Visitor, ALoopVariableIsInScopeOnlyInItsBody) {
  RecordScopes record;
  record.visit_kernel(*traced_positions());
  EXPECT_EQ(record.loop_var_defined_at_arrivals, (std::vector<bool>{false, false, false, true, false, false}));
}

// ---- effects ----

struct BarrierTraffic : Script {
  void operator()(Int32 n) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto bars = mbarrier.alloc({1, 3});
    single_thread([&] {
      mbarrier.arrive_and_expect_tx(bars[0], 64);
      mbarrier.arrive(bars[1], n);
      mbarrier.expect_tx(bars[1], 32);
    });
  }
};

TEST(Effects, BarrierInstructionsSayWhatTheyInitializeArriveOnAndExpect) {
  const ir::Kernel k = Kernel<BarrierTraffic>(Device::simulator(), KernelOptions{"sm_90a"}).traced(1);
  std::vector<std::string> seen;
  ir::walk(k->body, [&](const ir::StmtNode& s) {
    const ir::Effects e = ir::effects(s);
    if (e.barriers_initialized)
      seen.push_back(fmt::format("{}: counts [{}]", ir::call_name(s.kind), fmt::join(*e.barrier_counts, ", ")));
    for (const ir::BarrierArrival& a : e.arrivals) {
      int64_t per_thread = -1;
      ir::as_const_int(a.per_thread, &per_thread);
      seen.push_back(fmt::format("{}: arrives {}", ir::call_name(s.kind), per_thread));
    }
    for (const ir::ExpectedBytes& x : e.expected_bytes) {
      int64_t bytes = -1;
      ir::as_const_int(x.bytes, &bytes);
      seen.push_back(fmt::format("{}: expects {} bytes", ir::call_name(s.kind), bytes));
    }
  });
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "mbarrier.alloc: counts [1, 3]",
                      "mbarrier.arrive_and_expect_tx: arrives 1",
                      "mbarrier.arrive_and_expect_tx: expects 64 bytes",
                      "mbarrier.arrive: arrives -1",  // a run-time count
                      "mbarrier.expect_tx: expects 32 bytes",
                  }));
}

// ---- making nodes ----

// The message of the internal error `make` raises, from the failed check's own text on.
template <class F> std::string internal_error_of(F&& make) {
  try {
    make();
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    return what.substr(what.find("failed: ") + 8);
  }
  return "no error";
}

TEST(MakingNodes, ANodeWithoutARequiredOperandIsRefusedWhereItIsMade) {
  const ir::Expr one = ir::const_int(1);
  EXPECT_EQ(internal_error_of([&] {
              ir::make<ir::BinaryNode>(SourceLoc{"k.cpp", 3}, one->type, ir::BinaryOp::Add, one, nullptr);
            }),
            "Binary made at k.cpp:3 without its operand 1");
  EXPECT_EQ(internal_error_of([&] {
              ir::make<ir::WhileNode>(SourceLoc{"k.cpp", 4}, nullptr, ir::seq({}));
            }),
            "While made at k.cpp:4 without its operand 0");
  // An optional operand may be left out: an if_ without else.
  EXPECT_EQ(internal_error_of([&] {
              ir::make<ir::IfNode>(SourceLoc{"k.cpp", 5}, ir::const_int(1, DType::Bool), ir::seq({}), nullptr);
            }),
            "no error");
}

}  // namespace
}  // namespace tessel
