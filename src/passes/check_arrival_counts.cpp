// Checks, where the trace decides it, that the threads arriving on an mbarrier per phase are as
// many as its count: every thread that executes mbarrier.arrive arrives, so an arrival by a
// 32-thread group on a barrier of count 1 completes a phase and spills into the next one, and one
// by a single thread on a barrier of count 128 never completes it. Decided only when the array's
// barriers all have one count and one statement arrives on them, with a constant count, from
// this block, outside any if_ of its thread group and any loop that some threads may leave or
// pass over (break_, continue_, return_), and after no return_: then every execution is one
// phase's arrivals.
// Changes nothing.
#include <map>

#include "tessel/ir/effects.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/visitor.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

struct ArrivalSite {
  const ir::StmtNode* node;
  int threads;    // of the innermost thread group around it
  bool branched;  // inside an if_ of that group, a loop with break_, continue_ or return_, or after a return_: some
                  // of its threads may not arrive
  int64_t count;  // arrivals per thread; 0 when not a trace-time constant
};

struct BarrierArrivals {
  const std::vector<int>* counts = nullptr;  // of the array's barriers, from its init
  std::vector<ArrivalSite> sites;
  bool other = false;  // arrivals the check cannot count: another block's, the tensor core's
};

class ArrivalCollector : public ir::Visitor {
 public:
  std::map<const ir::SharedTensorNode*, BarrierArrivals> arrays;

 protected:
  void visit(const ir::ForNode& n) override {
    in_loop(n.body, [&] { Visitor::visit(n); });
  }
  void visit(const ir::WhileNode& n) override {
    in_loop(n.body, [&] { Visitor::visit(n); });
  }

  void visit(const ir::ReturnNode&) override { returned_ = true; }

  void visit_instruction(const ir::StmtNode& s) override {
    const ir::Effects e = ir::effects(s);
    if (e.barriers_initialized) arrays[e.barriers_initialized].counts = e.barrier_counts;
    for (const ir::BarrierArrival& a : e.arrivals) {
      BarrierArrivals& array = arrays[a.barrier->array->allocation()];
      if (!a.per_thread) {
        array.other = true;
        continue;
      }
      int64_t count = 0;
      ir::as_const_int(a.per_thread, &count);
      array.sites.push_back(
          {&s, position().group().count, position().branched() || loops_with_exits_ > 0 || returned_, count});
    }
  }

 private:
  // Visits a loop, counting it among those some threads may leave or pass over early.
  template <class F> void in_loop(const ir::Stmt& body, F visit_loop) {
    bool exits = false;
    ir::walk(body, [&](const ir::StmtNode& s) {
      exits |= s.kind == ir::NodeKind::Break || s.kind == ir::NodeKind::Continue || s.kind == ir::NodeKind::Return;
    });
    loops_with_exits_ += exits;
    visit_loop();
    loops_with_exits_ -= exits;
  }
  int loops_with_exits_ = 0;
  bool returned_ = false;  // a return_ was visited: the sites after it in the program's text
};

}  // namespace

ir::Kernel check_arrival_counts(const ir::Kernel& k, const PassContext&) {
  ArrivalCollector collector;
  collector.visit_kernel(*k);
  for (const auto& [array, arrivals] : collector.arrays) {
    if (arrivals.other || arrivals.sites.size() != 1 || !arrivals.counts || arrivals.counts->empty()) continue;
    const ArrivalSite& site = arrivals.sites.front();
    const int expected = arrivals.counts->front();
    if (site.branched || site.count <= 0 ||
        std::any_of(arrivals.counts->begin(), arrivals.counts->end(), [&](int c) { return c != expected; }))
      continue;
    const int64_t arriving = site.threads * site.count;
    if (arriving == expected) continue;
    const std::string_view what = ir::call_name(site.node->kind);
    const std::string who = site.threads == 1 ? std::string("the 1 thread of its thread group arrives")
                                              : fmt::format("the {} threads of its thread group arrive", site.threads);
    const std::string times = site.count == 1     ? ""
                              : site.threads == 1 ? fmt::format(" {} times", site.count)
                                                  : fmt::format(" {} times each", site.count);
    // Fewer arrivers are right only where they stand for the rest: a release of a stage that every
    // warp read is every warp's (docs/language.md, "Pipeline").
    const std::string_view advice =
        arriving > expected
            ? "allocate the barriers with the count of every arrival, or, where fewer threads stand for all of "
              "them (a producer's one thread), run it in single_thread() or a smaller thread group; a release of "
              "data that every thread of the group read needs every thread's arrival"
            : "allocate the barriers with the count of the arrivals";
    const std::string barriers = array->owner.empty()
                                     ? fmt::format("allocated at {}", array->loc.str())
                                     : fmt::format("{}, allocated at {}", array->owner, array->loc.str());
    throw Error(site.node->loc,
                fmt::format("{}: each time it runs, {}{} ({} arrival{} in all), but the barriers it arrives on "
                            "({}) expect {} per phase, and no other statement arrives on them; {}",
                            what, who, times, arriving, arriving == 1 ? "" : "s", barriers, expected, advice));
  }
  return k;
}

}  // namespace tessel::passes
