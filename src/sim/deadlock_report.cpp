// The deadlock report: every warp of the blocked group with the line it waits at and what it
// waits for, then every barrier with arrivals pending and every mbarrier's state.
#include "machine.hpp"

namespace tessel::sim {

namespace {

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
  return Error(first, fmt::format("deadlock in {} {} of kernel {}: every warp is blocked or finished and nothing can "
                                  "release the waiting ones{}",
                                  several ? "blocks" : "block", fmt::join(blocks, ", "), k.name, lines));
}

}  // namespace tessel::sim
