// The TMA engine: per-thread bulk groups of stores, completed when the scheduler chooses.
#include "machine.hpp"
#include "tessel/sim/tma_box.hpp"

namespace tessel::sim {

TmaUnit::TmaUnit(Cta& cta) : cta_(cta), threads_(size_t(cta.kernel.threads())) {}

void TmaUnit::issue_store(int thread, const ir::TensorMapValues& map,
                          std::array<int64_t, ir::kTensorMapMaxRank> coords, int64_t begin, const SourceLoc& loc) {
  const int64_t end = begin + box_footprint(map);
  TESSEL_CHECK(begin >= 0 && end <= int64_t(cta_.smem.size()), "a TMA store of shared bytes [{}, {}) of {}", begin,
               end, cta_.smem.size());
  // The engine may read the source at once: a copy still writing it is a race.
  cta_.check_not_in_flight(begin, int(end - begin), false, loc, thread);
  ThreadGroups& groups = threads_[size_t(thread)];
  in_flight_.push_back(std::make_unique<Store>(Store{{this, begin, end, &loc, thread}, map, coords, groups.committed}));
  ++groups.stores_in_flight[groups.committed];
}

void TmaUnit::commit(int thread) { ++threads_[size_t(thread)].committed; }

int TmaUnit::pending_groups(int thread) const {
  const ThreadGroups& groups = threads_[size_t(thread)];
  if (groups.stores_in_flight.empty()) return 0;
  return std::max(0, groups.committed - groups.stores_in_flight.begin()->first);
}

template <class Pick> bool TmaUnit::complete_where(Pick&& pick) {
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

void TmaUnit::land(const Store& s) {
  store_box_image(s.map, std::span(s.coords).first(size_t(s.map.rank)), cta_.smem, s.read.begin, *s.read.issued_at);
  std::map<int, int>& by_group = threads_[size_t(s.read.thread)].stores_in_flight;
  if (--by_group[s.group] == 0) by_group.erase(s.group);
}

void TmaUnit::complete_all() {
  complete_where([](const Store&) { return true; });
}

void TmaUnit::complete_at_random(std::mt19937_64& rng) {
  complete_where([&](const Store&) { return rng() % 2 == 0; });
}

bool TmaUnit::complete_needed_by(const Warp& warp, const WaitCondition& condition) {
  return std::visit(PerCondition{
                        [](const BarrierWait&) { return false; },
                        [](const CopyGroupWait&) { return false; },
                        [](const WgmmaGroupWait&) { return false; },
                        // Loads will complete their bytes on mbarriers; stores signal none.
                        [](const MbarrierPhaseWait&) { return false; },
                        [&](const BulkGroupWait& wait) {
                          if (&warp.cta != &cta_) return false;
                          return complete_where([&](const Store& s) {
                            const int lane = s.read.thread - warp.thread(0);
                            return lane >= 0 && lane < 32 && (wait.lanes >> lane & 1) &&
                                   s.group < threads_[size_t(s.read.thread)].committed - wait.max_pending;
                          });
                        },
                    },
                    condition);
}

void TmaUnit::check_no_store_reading(const std::string& block) const {
  if (in_flight_.empty()) return;
  const InFlightRead& r = in_flight_.front()->read;
  throw Error(*r.issued_at, fmt::format("tma.shared_to_global: block {} ended while this store (thread {}) may still "
                                        "be reading its shared source; the issuing thread must retire it "
                                        "(tma.commit_group, tma.wait_group(0, read = true)) before the block ends",
                                        block, r.thread));
}

const InFlightRead* TmaUnit::reading(int64_t begin, int64_t end) const {
  for (const auto& s : in_flight_)
    if (s->read.begin < end && begin < s->read.end) return &s->read;
  return nullptr;
}

}  // namespace tessel::sim
