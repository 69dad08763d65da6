// The st.async stores a block has issued into the shared memory of blocks of its cluster
// (store_shared_async). Each store writes a run of 4 to 16 bytes, captured from the issuing
// thread's registers, when it completes, at a time the scheduler chooses up to the receiver's
// wait, then completes those bytes on the receiver's mbarrier. Until then the bytes are a write in
// flight in the receiver's shared memory, through the generic proxy.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "async_agent.hpp"

namespace tessel::sim {

class Cta;

class AsyncStoreUnit final : public AsyncAgent {
 public:
  explicit AsyncStoreUnit(Cta& cta) : cta_(cta) {}

  // Thread `thread` stores `bytes` bytes of `data` at shared byte `begin` of `target` (a block of
  // the cluster, this one included); when the store completes they land and count against
  // `target`'s mbarrier at `barrier_byte`.
  void issue(int thread, Cta& target, int64_t begin, const uint8_t* data, int bytes, int64_t barrier_byte,
             const VectorClock& issuer, const SourceLoc& loc);

  std::string_view engine() const override { return "the st.async stores"; }
  std::string_view operation() const override { return "store_shared_async"; }
  std::string_view wait_advice() const override {
    return "wait on the mbarrier phase the stores complete (mbarrier.wait with WaitScope::cluster) before accessing "
           "their tile";
  }
  bool busy() const override { return !in_flight_.empty(); }
  void complete_all() override;
  void complete_at_random(std::mt19937_64& rng) override;
  bool complete_needed_by(const Warp& warp, const WaitCondition& condition) override;

 private:
  struct Store {
    InFlightWrite write;  // in `target`'s shared memory
    Cta* target;
    int64_t barrier_byte;  // in `target`
    std::array<uint8_t, 16> data;
  };
  template <class Pick> bool complete_where(Pick&& pick);
  void land(const Store& s);

  Cta& cta_;
  std::vector<std::unique_ptr<Store>> in_flight_;  // issue order; boxed because shared bytes point at them
};

}  // namespace tessel::sim
