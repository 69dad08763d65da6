// The st.async stores into the cluster's shared memory: captured at issue, landed when they
// complete, each completing its bytes on the receiver's mbarrier.
#include "async_store_unit.hpp"

#include <cstring>

#include "machine.hpp"

namespace tessel::sim {

void AsyncStoreUnit::issue(int thread, Cta& target, int64_t begin, const uint8_t* data, int bytes, int64_t barrier_byte,
                           const VectorClock& issuer, const SourceLoc& loc) {
  TESSEL_CHECK(bytes > 0 && bytes <= 16, "an st.async of {} bytes", bytes);
  target.check_not_in_flight(begin, bytes, true, loc, thread, &cta_, true);
  auto store = std::make_unique<Store>(Store{InFlightWrite{this, Proxy::Generic, begin, begin + bytes, &loc, thread,
                                                           issuer, cta_.warps[size_t(thread / 32)]->actor},
                                             &target,
                                             barrier_byte,
                                             {}});
  std::memcpy(store->data.data(), data, size_t(bytes));
  in_flight_.push_back(std::move(store));
  target.mark_in_flight(in_flight_.back()->write, begin, begin + bytes);
  target.mbarriers.expect_load(barrier_byte, loc, true, operation());
}

template <class Pick> bool AsyncStoreUnit::complete_where(Pick&& pick) {
  return complete_ops(in_flight_, pick, [&](const Store& op) { land(op); });
}

void AsyncStoreUnit::land(const Store& s) {
  Cta& receiver = *s.target;
  if (receiver.ended())
    throw Error(*s.write.issued_at,
                fmt::format("store_shared_async: block {} ended while this store (thread {} of block {}) to it was in "
                            "flight; a block's shared memory goes to the next block when it ends: the receiving block "
                            "waits on the barrier phase the stores complete (mbarrier.wait with WaitScope::cluster) "
                            "before it ends",
                            receiver.block_name(), s.write.thread, cta_.block_name()));
  receiver.complete_in_flight_write(s.write, s.data.data(),
                                    receiver.mbarriers.landing(s.barrier_byte, &receiver != &cta_));
  receiver.complete_tx(s.barrier_byte, s.write.end - s.write.begin, *s.write.issued_at);
}

void AsyncStoreUnit::complete_all() {
  complete_where([](const Store&) { return true; });
}

void AsyncStoreUnit::complete_at_random(std::mt19937_64& rng) {
  complete_where([&](const Store&) { return rng() % 2 == 0; });
}

bool AsyncStoreUnit::complete_needed_by(const Warp& warp, const WaitCondition& condition) {
  return std::visit(PerCondition{
                        [](const BarrierWait&) { return false; },
                        [](const CopyGroupWait&) { return false; },
                        [](const WgmmaGroupWait&) { return false; },
                        [](const BulkGroupWait&) { return false; },
                        [](const TensorMemoryWait&) { return false; },
                        [](const ClusterBarrierWait&) { return false; },
                        // The oldest store on the barrier the warp waits for.
                        [&](const MbarrierPhaseWait& wait) {
                          const auto oldest =
                              std::find_if(in_flight_.begin(), in_flight_.end(), [&](const std::unique_ptr<Store>& s) {
                                return s->barrier_byte == wait.barrier && s->target == &warp.cta;
                              });
                          if (oldest == in_flight_.end()) return false;
                          const Store* needed = oldest->get();
                          return complete_where([&](const Store& s) { return &s == needed; });
                        },
                    },
                    condition);
}

}  // namespace tessel::sim
