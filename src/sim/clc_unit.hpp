// The cluster-launch-control unit of a block: try_cancel requests in flight. A request completes
// at a time the scheduler chooses: it then takes a cluster from the grid's launch queue, if any
// is left (Scheduler::cancel_cluster), writes the 16-byte response and completes its 16 bytes on
// the request's mbarrier. Until then the response's bytes are an asynchronous write in flight.
// A multicast request does both in every block of the cluster, at the same shared offsets.
#pragma once

#include <memory>
#include <vector>

#include "async_agent.hpp"

namespace tessel::sim {

class Cta;

class ClcUnit final : public AsyncAgent {
 public:
  explicit ClcUnit(Cta& cta) : cta_(cta) {}

  // Thread `thread` asks to cancel a cluster; the response lands at shared byte `response` of each
  // of `targets` (this block, or every block of the cluster) and completes on each one's barrier.
  void issue(int thread, int64_t response, int64_t barrier_byte, std::vector<Cta*> targets, const VectorClock& issuer,
             const SourceLoc& loc);
  // Throws at the issuing line of a request still in flight when block `block` ends.
  void check_none_pending(const std::string& block) const;

  std::string_view engine() const override { return "cluster launch control"; }

  std::string_view operation() const override { return "clc.try_cancel"; }
  std::string_view wait_advice() const override {
    return "wait on the mbarrier phase the request completes (mbarrier.wait) before reading its response";
  }
  bool busy() const override { return !in_flight_.empty(); }
  void complete_all() override;
  void complete_at_random(std::mt19937_64& rng) override;
  bool complete_needed_by(const Warp& warp, const WaitCondition& condition) override;

 private:
  struct Request {
    InFlightWrite write;
    int64_t barrier_byte;
    std::vector<Cta*> targets;
  };
  template <class Pick> bool complete_where(Pick&& pick);
  void land(const Request& r);

  Cta& cta_;
  std::vector<std::unique_ptr<Request>> in_flight_;  // issue order; boxed because shared bytes point at them
};

// The response's words: 1 when a cluster was cancelled, then its first block's x, y, z.
struct ClcResponseWords {
  uint32_t canceled, x, y, z;
};

}  // namespace tessel::sim
