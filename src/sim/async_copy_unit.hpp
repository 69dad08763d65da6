// The cp.async unit of a block. Copies are issued per thread and committed into per-thread groups;
// a copy reads global memory when issued and writes shared memory when it completes.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "async_agent.hpp"

namespace tessel::sim {

class Cta;

class AsyncCopyUnit final : public AsyncAgent {
 public:
  explicit AsyncCopyUnit(Cta& cta);

  // Thread `thread` copies `data` (read from global memory now) to shared bytes starting at `byte`.
  // Thread `thread`, of a warp whose clock is `issuer`, copies `bytes` bytes of `data` to shared
  // byte `byte`.
  void issue(int thread, int64_t byte, const uint8_t* data, int bytes, const VectorClock& issuer, const SourceLoc& loc);
  void commit(int thread);
  // The thread's groups committed so far.
  int committed(int thread) const { return threads_[size_t(thread)].committed; }
  // The thread's committed groups from its oldest incomplete one on (cp.async.wait_group's count).
  int pending_groups(int thread) const;

  std::string_view engine() const override { return "the cp.async unit"; }

  std::string_view operation() const override { return "copy_async"; }
  std::string_view wait_advice() const override {
    return "wait for the copy (copy_async_wait_group / copy_async_wait_all) and sync() first";
  }
  bool busy() const override { return !in_flight_.empty(); }
  void complete_all() override;
  void complete_at_random(std::mt19937_64& rng) override;
  bool complete_needed_by(const Warp& warp, const WaitCondition& condition) override;

 private:
  struct Copy {
    InFlightWrite write;
    std::vector<uint8_t> data;
    int group;  // index among the thread's groups; the open group's is `committed`
  };
  struct ThreadGroups {
    int committed = 0;
    std::map<int, int> copies_in_flight;  // by group
  };
  // Completes the copies for which `pick` answers true, keeping the others in issue order.
  template <class Pick> bool complete_where(Pick&& pick);
  void land(const Copy& c);

  Cta& cta_;
  std::vector<std::unique_ptr<Copy>> in_flight_;  // issue order; boxed because shared bytes point at them
  std::vector<ThreadGroups> threads_;
};

}  // namespace tessel::sim
