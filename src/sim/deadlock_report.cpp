// The deadlock report: first the wait that tells most of its cause, with what its barrier lacks and
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

// An instruction that arrives on or completes bytes on a barrier, and the threads that run it;
// `in_block` when what it provides comes from those threads of the barrier's own block (not a
// remote arrival, a multicast or the tensor core's arrival).
struct Provider {
  const ir::StmtNode* instruction;
  ir::ThreadRange group;
  bool in_block;
};

// The instructions of the kernel that arrive on or complete bytes on each barrier array, with
// their lines and thread groups: the roles expected to complete its phases.
class BarrierProviders : public ir::Visitor {
 public:
  explicit BarrierProviders(const ir::KernelNode& k) { visit_kernel(k); }
  const std::vector<Provider>& of(const ir::SharedTensorNode* array) const {
    static const std::vector<Provider> none;
    const auto it = providers_.find(array);
    return it == providers_.end() ? none : it->second;
  }

 private:
  void visit_instruction(const ir::StmtNode& s) override {
    const ir::Effects e = ir::effects(s);
    std::map<const ir::SharedTensorNode*, bool> in_block;  // the arrays it provides for
    const auto add = [&](const ir::MbarrierRef* barrier, bool from_this_block) {
      const auto it = in_block.emplace(barrier->array->allocation(), from_this_block).first;
      it->second = it->second && from_this_block;
    };
    for (const ir::BarrierArrival& a : e.arrivals) add(a.barrier, bool(a.per_thread));
    for (const ir::ExpectedBytes& x : e.expected_bytes) add(x.barrier, !x.remote);
    for (const ir::CompletedBytes& c : e.completed_bytes) add(c.barrier, !c.other_blocks);
    for (const auto& [array, from_this_block] : in_block)
      providers_[array].push_back({&s, position().group(), from_this_block});
  }
  std::map<const ir::SharedTensorNode*, std::vector<Provider>> providers_;
};

// Where the threads of `w` in `group` that ran return_ did: "returned at k.cpp:12 and k.cpp:20".
std::string returned_sites(const Warp& w, ir::ThreadRange group) {
  std::set<std::string> sites;
  for (int lane = 0; lane < 32; ++lane)
    if ((w.returned >> lane & 1) && group.contains(w.thread(lane))) sites.insert(w.returned_at[size_t(lane)]->str());
  return sites.empty() ? "" : fmt::format("returned at {}", fmt::join(sites, " and "));
}

// "mbarrier.arrive at k.cpp:31 (thread 32, finished)": a provider, with where the warps of `cta`
// that run it are when all of them have finished or all wait (one step along the chain of waits).
std::string describe_provider(const Provider& p, const Cta& cta) {
  if (!p.in_block) return describe_site(*p.instruction, p.group);
  std::set<std::string> waits, returns;
  bool all_done = true, all_blocked = true;
  for (const auto& w : cta.warps)
    if (w->id * 32 < p.group.end() && p.group.begin < w->id * 32 + 32) {
      all_done = all_done && w->state == Warp::State::Done;
      all_blocked = all_blocked && w->state == Warp::State::Blocked;
      if (w->state == Warp::State::Blocked) waits.insert(w->waiting.at->str());
      if (std::string r = returned_sites(*w, p.group); !r.empty()) returns.insert(std::move(r));
    }
  if (all_done)
    return describe_site(*p.instruction, p.group,
                         returns.empty() ? "finished" : fmt::format("finished; {}", fmt::join(returns, "; ")));
  if (all_blocked)
    return describe_site(*p.instruction, p.group, fmt::format("waiting at {}", fmt::join(waits, " and ")));
  return describe_site(*p.instruction, p.group);
}

// How much a blocked wait on an mbarrier phase tells of a deadlock's cause, most first: a barrier
// that no instruction of the kernel arrives on or brings bytes to; a phase that has had some of its
// arrivals, or bytes announced or landed that do not balance, where a count most likely disagrees
// with what arrives; any other, most often a wait for a warp that is itself blocked (a producer
// waiting for a stage its blocked consumers free).
int telling(const MbarrierState& b, const BarrierProviders& providers) {
  if (providers.of(b.array).empty()) return 2;
  return b.pending < b.expected || b.tx != 0 ? 1 : 0;
}

// The warp, of those blocked on an mbarrier phase, whose wait tells most of the deadlock's cause
// (the first in block and warp order among equals): the warps blocked elsewhere (a sync(), a
// cluster.sync()) most often wait for it.
const Warp* most_telling_mbarrier_waiter(const std::vector<std::unique_ptr<Cta>>& ctas,
                                         const BarrierProviders& providers) {
  const Warp* most = nullptr;
  int most_told = -1;
  for (const auto& cta : ctas)
    for (const auto& w : cta->warps)
      if (w->state == Warp::State::Blocked)
        if (const auto* wait = std::get_if<MbarrierPhaseWait>(&w->waiting.until)) {
          const int told = telling(w->cta.mbarriers.all().at(wait->barrier), providers);
          if (told > most_told) most = w.get(), most_told = told;
        }
  return most;
}

// "warp 1 (threads 32..63) waits at k.cpp:20 for phase 0 (parity 0) of barrier 0 of the array
// allocated at k.cpp:12, which lacks 1 of its 2 arrivals; ..."
std::string cause(const Warp& w, const BarrierProviders& all_providers, bool several) {
  const MbarrierState& b = w.cta.mbarriers.all().at(std::get<MbarrierPhaseWait>(w.waiting.until).barrier);
  std::vector<std::string> lacks;
  if (b.pending > 0) lacks.push_back(fmt::format("{} of its {} arrivals", b.pending, b.expected));
  if (b.tx > 0) lacks.push_back(fmt::format("{} transaction bytes", b.tx));
  std::vector<std::string> providers;
  for (const Provider& p : all_providers.of(b.array)) providers.push_back(describe_provider(p, w.cta));
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
      if (std::string r = returned_sites(*w, {w->id * 32, 32}); !r.empty())
        lines += fmt::format(" ({} of its threads {})", popcount(w->returned), r);
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
          "block of the cluster must reach cluster.sync() (or cluster.arrive())",
          b.arrived, b.expected);
  for (const auto& cta : ctas)
    for (const auto& [byte, b] : cta->mbarriers.all())
      lines +=
          fmt::format("\n  {}{}", several ? fmt::format("block {} ", cta->block_name()) : "", describe_mbarrier(b));
  const BarrierProviders providers(k);
  const Warp* waiter = most_telling_mbarrier_waiter(ctas, providers);
  return Error(waiter ? *waiter->waiting.at : first,
               fmt::format("deadlock in {} {} of kernel {}: {}every warp is blocked or finished and nothing can "
                           "release the waiting ones{}",
                           several ? "blocks" : "block", fmt::join(blocks, ", "), k.name,
                           waiter ? cause(*waiter, providers, several) + ".\n  " : "", lines));
}

}  // namespace tessel::sim
