// The cp.async unit: per-thread groups of copies, completed when the scheduler chooses. A thread's
// copies are merged while they extend one another, so a vectorized copy is one record.
#include "machine.hpp"

namespace tessel::sim {

AsyncCopyUnit::AsyncCopyUnit(Cta& cta) : cta_(cta), threads_(size_t(cta.kernel.threads())) {}

void AsyncCopyUnit::issue(int thread, int64_t byte, const uint8_t* data, int bytes, const VectorClock& issuer,
                          const SourceLoc& loc) {
  cta_.check_not_in_flight(byte, bytes, true, loc, thread, nullptr, true, &issuer);
  ThreadGroups& groups = threads_[size_t(thread)];
  if (!in_flight_.empty()) {
    Copy& last = *in_flight_.back();
    if (last.write.thread == thread && last.group == groups.committed && last.write.issued_at == &loc &&
        last.write.end == byte) {
      last.data.insert(last.data.end(), data, data + bytes);
      last.write.end += bytes;
      cta_.mark_in_flight(last.write, byte, byte + bytes);
      return;
    }
  }
  in_flight_.push_back(std::make_unique<Copy>(Copy{
      InFlightWrite{this, Proxy::Generic, byte, byte + bytes, &loc, thread, issuer,
                    cta_.warps[size_t(thread / 32)]->actor},
      std::vector<uint8_t>(data, data + bytes),
      groups.committed,
  }));
  cta_.mark_in_flight(in_flight_.back()->write, byte, byte + bytes);
  ++groups.copies_in_flight[groups.committed];
}

void AsyncCopyUnit::commit(int thread) { ++threads_[size_t(thread)].committed; }

int AsyncCopyUnit::pending_groups(int thread) const {
  const ThreadGroups& groups = threads_[size_t(thread)];
  if (groups.copies_in_flight.empty()) return 0;
  return std::max(0, groups.committed - groups.copies_in_flight.begin()->first);
}

template <class Pick> bool AsyncCopyUnit::complete_where(Pick&& pick) {
  bool completed = false;
  size_t kept = 0;
  for (size_t i = 0; i < in_flight_.size(); ++i) {
    if (pick(*in_flight_[i])) {
      land(*in_flight_[i]);
      completed = true;
    } else {
      std::swap(in_flight_[kept++], in_flight_[i]);
    }
  }
  in_flight_.resize(kept);
  return completed;
}

void AsyncCopyUnit::land(const Copy& c) {
  // The copy is observed by the wait that retires its group: the warp's copy groups' clock.
  const Epoch landed{cta_.warps[size_t(c.write.thread / 32)]->copy_actor, Clock(c.group + 1)};
  cta_.complete_in_flight_write(c.write, c.data.data(), landed);
  std::map<int, int>& by_group = threads_[size_t(c.write.thread)].copies_in_flight;
  if (--by_group[c.group] == 0) by_group.erase(c.group);
}

void AsyncCopyUnit::complete_all() {
  complete_where([](const Copy&) { return true; });
}

void AsyncCopyUnit::complete_at_random(std::mt19937_64& rng) {
  complete_where([&](const Copy&) { return rng() % 2 == 0; });
}

bool AsyncCopyUnit::complete_needed_by(const Warp& warp, const WaitCondition& condition) {
  return std::visit(PerCondition{
                        [](const BarrierWait&) { return false; },
                        [](const WgmmaGroupWait&) { return false; },
                        [](const TensorMemoryWait&) { return false; },
                        [](const MbarrierPhaseWait&) { return false; },  // cp.async does not signal mbarriers
                        [](const BulkGroupWait&) { return false; },
                        [](const ClusterBarrierWait&) { return false; },
                        [&](const CopyGroupWait& wait) {
                          if (&warp.cta != &cta_) return false;
                          return complete_where([&](const Copy& c) {
                            const int lane = c.write.thread - warp.thread(0);
                            return lane >= 0 && lane < 32 && (wait.lanes >> lane & 1) &&
                                   c.group < threads_[size_t(c.write.thread)].committed - wait.max_pending;
                          });
                        },
                    },
                    condition);
}

}  // namespace tessel::sim
