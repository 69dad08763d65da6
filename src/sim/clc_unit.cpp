// The cluster-launch-control unit: try_cancel requests that take clusters from the grid's launch
// queue when they complete.
#include "clc_unit.hpp"

#include <cstring>

#include "machine.hpp"

namespace tessel::sim {

void ClcUnit::issue(int thread, int64_t response, int64_t barrier_byte, std::vector<Cta*> targets,
                    const VectorClock& issuer, const SourceLoc& loc) {
  const int64_t end = response + ir::kClcResponseBytes;
  for (Cta* target : targets)
    target->check_not_in_flight(response, ir::kClcResponseBytes, true, loc, thread, nullptr, true);
  in_flight_.push_back(std::make_unique<Request>(Request{
      InFlightWrite{this, Proxy::Async, response, end, &loc, thread, issuer, cta_.warps[size_t(thread / 32)]->actor},
      barrier_byte, std::move(targets)}));
  for (Cta* target : in_flight_.back()->targets) target->mark_in_flight(in_flight_.back()->write, response, end);
}

template <class Pick> bool ClcUnit::complete_where(Pick&& pick) {
  return complete_ops(in_flight_, pick, [&](const Request& op) { land(op); });
}

void ClcUnit::land(const Request& r) {
  ClcResponseWords response{};
  if (const std::optional<std::array<int, 3>> first = cta_.scheduler.cancel_cluster())
    response = {1, uint32_t((*first)[0]), uint32_t((*first)[1]), uint32_t((*first)[2])};
  uint8_t bytes[ir::kClcResponseBytes];
  static_assert(sizeof response == sizeof bytes);
  std::memcpy(bytes, &response, sizeof bytes);
  for (Cta* target : r.targets) {
    target->complete_in_flight_write(r.write, bytes, target->mbarriers.landing(r.barrier_byte, target != &cta_));
    target->complete_tx(r.barrier_byte, ir::kClcResponseBytes, *r.write.issued_at);
  }
}

void ClcUnit::complete_all() {
  complete_where([](const Request&) { return true; });
}

void ClcUnit::complete_at_random(std::mt19937_64& rng) {
  complete_where([&](const Request&) { return rng() % 2 == 0; });
}

bool ClcUnit::complete_needed_by(const Warp& warp, const WaitCondition& condition) {
  return std::visit(PerCondition{
                        [](const BarrierWait&) { return false; },
                        [](const CopyGroupWait&) { return false; },
                        [](const WgmmaGroupWait&) { return false; },
                        [](const BulkGroupWait&) { return false; },
                        [](const TensorMemoryWait&) { return false; },
                        [](const ClusterBarrierWait&) { return false; },
                        // The oldest request on the barrier the warp waits for.
                        [&](const MbarrierPhaseWait& wait) {
                          const auto oldest = std::find_if(
                              in_flight_.begin(), in_flight_.end(), [&](const std::unique_ptr<Request>& r) {
                                return r->barrier_byte == wait.barrier &&
                                       std::find(r->targets.begin(), r->targets.end(), &warp.cta) != r->targets.end();
                              });
                          if (oldest == in_flight_.end()) return false;
                          const Request* needed = oldest->get();
                          return complete_where([&](const Request& r) { return &r == needed; });
                        },
                    },
                    condition);
}

void ClcUnit::check_none_pending(const std::string& block) const {
  if (in_flight_.empty()) return;
  const InFlightWrite& w = in_flight_.front()->write;
  throw Error(*w.issued_at, fmt::format("clc.try_cancel: block {} ended while this request (thread {}) was pending; "
                                        "wait on its mbarrier phase before the block ends",
                                        block, w.thread));
}

}  // namespace tessel::sim
