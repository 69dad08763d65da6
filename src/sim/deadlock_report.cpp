// The deadlock report: first the wait that nothing can satisfy, with what its barrier lacks and
// which instructions of the kernel provide it; then every warp of the blocked group with the line
// it waits at and what it waits for, every barrier with arrivals pending and every mbarrier's
// state.
#include <map>
#include <set>

#include "code_sites.hpp"
#include "machine.hpp"
#include "tessel/ir/effects.hpp"
#include "tessel/ir/visitor.hpp"

namespace tessel::sim {

namespace {

// The instructions of the kernel that arrive on or complete bytes on each barrier array, with
// their lines and thread groups: the roles expected to complete its phases.
class BarrierProviders : public ir::Visitor {
 public:
  explicit BarrierProviders(const ir::KernelNode& k) { visit_kernel(k); }
  const std::vector<std::string>& of(const ir::SharedTensorNode* array) const {
    static const std::vector<std::string> none;
    const auto it = providers_.find(array);
    return it == providers_.end() ? none : it->second;
  }

 private:
  void visit_instruction(const ir::StmtNode& s) override {
    const ir::Effects e = ir::effects(s);
    std::set<const ir::SharedTensorNode*> arrays;
    for (const ir::BarrierArrival& a : e.arrivals) arrays.insert(a.barrier->array->allocation());
    for (const ir::ExpectedBytes& x : e.expected_bytes) arrays.insert(x.barrier->array->allocation());
    for (const ir::CompletedBytes& c : e.completed_bytes) arrays.insert(c.barrier->array->allocation());
    for (const ir::SharedTensorNode* array : arrays) providers_[array].push_back(describe_site(s, position().group()));
  }
  std::map<const ir::SharedTensorNode*, std::vector<std::string>> providers_;
};

// The first warp, in block and warp order, blocked on an mbarrier phase: in a deadlock nothing in
// flight and no other warp can complete it, and the warps blocked elsewhere (a sync(), a
// cluster.sync()) most often wait for it.
const Warp* first_mbarrier_waiter(const std::vector<std::unique_ptr<Cta>>& ctas) {
  for (const auto& cta : ctas)
    for (const auto& w : cta->warps)
      if (w->state == Warp::State::Blocked && std::holds_alternative<MbarrierPhaseWait>(w->waiting.until))
        return w.get();
  return nullptr;
}

// "warp 1 (threads 32..63) waits at k.cpp:20 for phase 0 (parity 0) of barrier 0 of the array
// allocated at k.cpp:12, which lacks 1 of its 2 arrivals; ..."
std::string cause(const ir::KernelNode& k, const Warp& w, bool several) {
  const MbarrierState& b = w.cta.mbarriers.all().at(std::get<MbarrierPhaseWait>(w.waiting.until).barrier);
  std::vector<std::string> lacks;
  if (b.pending > 0) lacks.push_back(fmt::format("{} of its {} arrivals", b.pending, b.expected));
  if (b.tx > 0) lacks.push_back(fmt::format("{} transaction bytes", b.tx));
  const BarrierProviders all_providers(k);
  const std::vector<std::string>& providers = all_providers.of(b.array);
  return fmt::format(
      "{}warp {} (threads {}..{}) waits at {} for phase {} (parity {}) of {}, which lacks {}, and nothing in flight "
      "and no other warp can provide them; {}",
      several ? fmt::format("block {} ", w.cta.block_name()) : "", w.id, w.id * 32, w.id * 32 + 31, w.waiting.at->str(),
      b.phase, b.phase & 1, barrier_name(*b.array, b.index), fmt::join(lacks, " and "),
      providers.empty() ? std::string("no instruction of the kernel arrives on it")
                        : fmt::format("what completes phases of its array is {}", fmt::join(providers, ", ")));
}

std::string describe_barrier(int id, const Barrier& b) {
  if (id == Cta::kBlockBarrier)
    return fmt::format(
        "barrier of sync(): {} of {} threads arrived; a sync() must be reached by every thread of the "
        "block (is it inside a thread group or a branch that only some threads take?)",
        b.arrived, b.expected);
  return fmt::format(
      "barrier {}: {} of {} threads arrived; the sync() of a thread group must be reached by every "
      "warp of the group (is it inside a branch that only some of them take?)",
      id, b.arrived, b.expected);
}

std::string describe_mbarrier(const MbarrierState& b) {
  return fmt::format("{}: in phase {} (parity {}), {} of {} arrivals pending, tx-count {}",
                     barrier_name(*b.array, b.index), b.phase, b.phase & 1, b.pending, b.expected, b.tx);
}

}  // namespace

Error deadlock_error(const ir::KernelNode& k, const std::vector<std::unique_ptr<Cta>>& ctas) {
  const bool several = ctas.size() > 1;
  std::vector<std::string> blocks;
  std::string lines;
  SourceLoc first;
  for (const auto& cta : ctas) {
    blocks.push_back(cta->block_name());
    const std::string block = several ? fmt::format("block {} ", cta->block_name()) : "";
    for (const auto& w : cta->warps) {
      const std::string who = fmt::format("{}warp {} (threads {}..{})", block, w->id, w->id * 32, w->id * 32 + 31);
      switch (w->state) {
        case Warp::State::Done: lines += fmt::format("\n  {}: finished", who); break;
        case Warp::State::Blocked:
          if (!first.known()) first = *w->waiting.at;
          lines += fmt::format("\n  {}: {}", who, describe(*w, w->waiting));
          break;
        case Warp::State::Ready: TESSEL_CHECK(false, "deadlock reported while {} is ready", who);
      }
    }
  }
  for (const auto& cta : ctas)
    for (int id = 0; id < int(cta->barriers.size()); ++id)
      if (const Barrier& b = cta->barriers[size_t(id)]; b.arrived > 0)
        lines += fmt::format("\n  {}{}", several ? fmt::format("block {} ", cta->block_name()) : "",
                             describe_barrier(id, b));
  for (const auto& cta : ctas)
    if (const Barrier& b = cta->cluster_barrier; b.arrived > 0)
      lines += fmt::format(
          "\n  cluster barrier of cluster.sync(): {} of {} threads arrived; every thread of every "
          "block of the cluster must reach cluster.sync()",
          b.arrived, b.expected);
  for (const auto& cta : ctas)
    for (const auto& [byte, b] : cta->mbarriers.all())
      lines +=
          fmt::format("\n  {}{}", several ? fmt::format("block {} ", cta->block_name()) : "", describe_mbarrier(b));
  const Warp* waiter = first_mbarrier_waiter(ctas);
  return Error(waiter ? *waiter->waiting.at : first,
               fmt::format("deadlock in {} {} of kernel {}: {}every warp is blocked or finished and nothing can "
                           "release the waiting ones{}",
                           several ? "blocks" : "block", fmt::join(blocks, ", "), k.name,
                           waiter ? cause(k, *waiter, several) + ".\n  " : "", lines));
}

}  // namespace tessel::sim
