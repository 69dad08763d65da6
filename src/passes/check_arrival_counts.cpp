// Checks, where the trace decides it, that the threads arriving on an mbarrier per phase are as
// many as its count: every thread that executes mbarrier.arrive arrives, so an arrival by a
// 32-thread group on a barrier of count 1 completes a phase and spills into the next one, and one
// by a single thread on a barrier of count 128 never completes it. Decided only when the array's
// barriers all have one count and one statement arrives on them, with a constant count, from
// this block, outside any if_ of its thread group: then every execution is one phase's arrivals.
// Changes nothing.
#include <map>

#include "tessel/ir/mutator.hpp"
#include "tessel/passes/pipeline.hpp"

namespace tessel::passes {

namespace {

struct ArrivalSite {
  const ir::StmtNode* node;
  int threads;    // of the innermost thread group around it
  bool branched;  // inside an if_ of that group: some of its threads may not arrive
  int64_t count;  // arrivals per thread; 0 when not a trace-time constant
};

struct BarrierArrivals {
  std::vector<int> counts;  // of the array's barriers, from its init
  std::vector<ArrivalSite> sites;
  bool other = false;  // arrivals the check cannot count: remote ones, tcgen05.commit
};

class ArrivalCollector {
 public:
  explicit ArrivalCollector(int block_threads) : threads_(block_threads) {}
  std::map<const ir::SharedTensorNode*, BarrierArrivals> arrays;

  void visit(const ir::Stmt& s) {
    switch (s->kind) {
      case ir::NodeKind::ThreadGroup: {
        const auto& g = static_cast<const ir::ThreadGroupNode&>(*s);
        const int threads = threads_;
        const bool branched = branched_;
        threads_ = g.count;
        branched_ = false;
        visit(g.body);
        threads_ = threads;
        branched_ = branched;
        return;
      }
      case ir::NodeKind::If: {
        const bool branched = branched_;
        branched_ = true;
        visit_children(*s);
        branched_ = branched;
        return;
      }
      case ir::NodeKind::MbarrierInit: {
        const auto& n = static_cast<const ir::MbarrierInitNode&>(*s);
        arrays[n.array->allocation()].counts = n.counts;
        return;
      }
      case ir::NodeKind::MbarrierArrive: {
        const auto& n = static_cast<const ir::MbarrierArriveNode&>(*s);
        int64_t count = 0;
        ir::as_const_int(n.count, &count);
        arrays[n.barrier.array->allocation()].sites.push_back({&n, threads_, branched_, count});
        return;
      }
      case ir::NodeKind::MbarrierArriveExpectTx: {
        const auto& n = static_cast<const ir::MbarrierArriveExpectTxNode&>(*s);
        arrays[n.barrier.array->allocation()].sites.push_back({&n, threads_, branched_, 1});
        return;
      }
      case ir::NodeKind::MbarrierRemoteArrive:
        arrays[static_cast<const ir::MbarrierRemoteArriveNode&>(*s).barrier.array->allocation()].other = true;
        return;
      case ir::NodeKind::Tcgen05Commit:
        arrays[static_cast<const ir::Tcgen05CommitNode&>(*s).barrier.array->allocation()].other = true;
        return;
      default: visit_children(*s);
    }
  }

 private:
  void visit_children(const ir::StmtNode& s) {
    for (const ir::Stmt& child : ir::direct_operands(s).children) visit(child);
  }
  int threads_;
  bool branched_ = false;
};

}  // namespace

ir::Kernel check_arrival_counts(const ir::Kernel& k, const PassContext&) {
  ArrivalCollector collector(k->threads());
  collector.visit(k->body);
  for (const auto& [array, arrivals] : collector.arrays) {
    if (arrivals.other || arrivals.sites.size() != 1 || arrivals.counts.empty()) continue;
    const ArrivalSite& site = arrivals.sites.front();
    const int expected = arrivals.counts.front();
    if (site.branched || site.count <= 0 ||
        std::any_of(arrivals.counts.begin(), arrivals.counts.end(), [&](int c) { return c != expected; }))
      continue;
    const int64_t arriving = site.threads * site.count;
    if (arriving == expected) continue;
    const std::string_view what =
        site.node->kind == ir::NodeKind::MbarrierArrive ? "mbarrier.arrive" : "mbarrier.arrive_and_expect_tx";
    const std::string who = site.threads == 1 ? std::string("the 1 thread of its thread group arrives")
                                              : fmt::format("the {} threads of its thread group arrive", site.threads);
    const std::string times = site.count == 1    ? ""
                              : site.threads == 1 ? fmt::format(" {} times", site.count)
                                                  : fmt::format(" {} times each", site.count);
    const std::string_view advice = arriving > expected
                                        ? "run it in single_thread() or a smaller thread group, or allocate the "
                                          "barriers with the count of every arrival"
                                        : "allocate the barriers with the count of the arrivals";
    throw Error(site.node->loc,
                fmt::format("{}: each time it runs, {}{} ({} arrival{} in all), but the barriers it arrives on "
                            "(allocated at {}) expect {} per phase, and no other statement arrives on them; {}",
                            what, who, times, arriving, arriving == 1 ? "" : "s", array->loc.str(), expected,
                            advice));
  }
  return k;
}

}  // namespace tessel::passes
