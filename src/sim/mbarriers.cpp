// The mbarrier state machine (PTX ISA 9.7.13.15) and the misuse it reports at the user's line.
#include "mbarriers.hpp"

#include <algorithm>

#include <fmt/ranges.h>

namespace tessel::sim {

namespace {

// Arrival counts and the transaction count are 20-bit fields of the barrier word.
constexpr int64_t kMaxCount = (int64_t(1) << 20) - 1;

}  // namespace

std::string barrier_name(const ir::SharedTensorNode& array, int index) {
  if (!array.owner.empty())
    return fmt::format("barrier {} of {} (the array allocated at {})", index, array.owner, array.loc.str());
  return fmt::format("barrier {} of the array allocated at {}", index, array.loc.str());
}

void Mbarriers::init(int64_t byte, const ir::SharedTensorNode& array, int index, int64_t count, uint32_t actor,
                     uint32_t peer_actor, const Origin& by) {
  auto [it, fresh] = barriers_.try_emplace(byte);
  if (!fresh)
    throw Error(*by.loc,
                fmt::format("mbarrier.alloc: {} is initialized a second time (thread {} of block {}) while it "
                            "is live since {}; allocate barriers once, outside loops",
                            barrier_name(array, index), by.thread, by.block, it->second.initialized_at->str()));
  TESSEL_CHECK(count >= 1 && count <= kMaxCount, "barrier init count {} at {}", count, by.loc->str());
  it->second = MbarrierState{.expected = count,
                             .pending = count,
                             .array = &array,
                             .index = index,
                             .initialized_at = by.loc,
                             .actor = actor,
                             .peer_actor = peer_actor};
}

const MbarrierState& Mbarriers::at(int64_t byte, const ir::SharedTensorNode& array, int index,
                                   std::string_view operation, const Origin& by) const {
  auto it = barriers_.find(byte);
  if (it == barriers_.end())
    throw Error(*by.loc, fmt::format("{} on {} before it was initialized (thread {} of block {})", operation,
                                     barrier_name(array, index), by.thread, by.block));
  return it->second;
}

MbarrierState& Mbarriers::initialized(int64_t byte, const SourceLoc& loc) {
  auto it = barriers_.find(byte);
  TESSEL_CHECK(it != barriers_.end(), "operation at {} on the uninitialized barrier at shared byte {}", loc.str(),
               byte);
  return it->second;
}

namespace {

// "16384, by the arrive_and_expect_tx / expect_tx at k.cpp:15", or "none".
std::string announced_bytes(const MbarrierState& b) {
  if (b.announced.empty()) return "none";
  int64_t total = 0;
  std::vector<std::string> lines;
  for (const auto& [loc, bytes] : b.announced) {
    total += bytes;
    if (std::find(lines.begin(), lines.end(), loc->str()) == lines.end()) lines.push_back(loc->str());
  }
  return fmt::format("{}, by the arrive_and_expect_tx / expect_tx at {}", total, fmt::join(lines, ", "));
}

}  // namespace

void Mbarriers::complete_phase_if_done(MbarrierState& b) {
  if (b.pending != 0 || b.tx != 0) return;
  for (const UnobservedLoad& load : b.loads_in_flight)
    if (load.phase == b.phase)
      throw Error(*load.issued_at,
                  fmt::format("phase {} of {} completed while this copy, issued in that phase to signal it, was "
                              "still in flight, so its bytes would count towards phase {}: the transaction bytes "
                              "announced for phase {} ({}) are fewer than those of the copies that signal it; "
                              "announce every copy's bytes (a shared tile's nbytes())",
                              b.phase, barrier_name(*b.array, b.index), b.phase + 1, b.phase, announced_bytes(b)));
  b.announced.clear();
  ++b.phase;
  b.pending = b.expected;
  b.released.join(b.arrivals);
  b.released.raise(b.actor, Clock(b.phase));
  b.released_to_cluster.join(b.released);
  b.released_to_cluster.join(b.peer_arrivals);
  b.released_to_cluster.raise(b.peer_actor, Clock(b.phase));
  b.arrivals = b.peer_arrivals = VectorClock{};
}

bool Mbarriers::arrive(int64_t byte, int64_t count, int64_t tx_bytes, const VectorClock& clock, bool from_peer,
                       std::string_view operation, const Origin& by) {
  MbarrierState& b = initialized(byte, *by.loc);
  (from_peer ? b.peer_arrivals : b.arrivals).join(clock);
  if (tx_bytes != 0) expect_tx(byte, tx_bytes, by);
  if (count > b.pending)
    throw Error(*by.loc, fmt::format("{}: thread {} of block {} arrives with a count of {} on {}, which has {} of its "
                                     "{} arrivals left in phase {}; arrivals beyond the count would complete a phase "
                                     "nobody waited for",
                                     operation, by.thread, by.block, count, barrier_name(*b.array, b.index), b.pending,
                                     b.expected, b.phase));
  const int64_t phase = b.phase;
  b.pending -= count;
  complete_phase_if_done(b);
  if (b.phase != phase) b.completed_by = by.loc;
  return b.phase != phase;
}

void Mbarriers::expect_tx(int64_t byte, int64_t bytes, const Origin& by) {
  MbarrierState& b = initialized(byte, *by.loc);
  if (b.tx + bytes > kMaxCount)
    throw Error(*by.loc,
                fmt::format("mbarrier.expect_tx: {} more transaction bytes on {} (thread {} of block {}) "
                            "would make {}, more than the {} a barrier counts",
                            bytes, barrier_name(*b.array, b.index), by.thread, by.block, b.tx + bytes, kMaxCount));
  b.tx += bytes;
  b.announced.emplace_back(by.loc, bytes);
}

void Mbarriers::complete_tx(int64_t byte, int64_t bytes, const SourceLoc& issued_at) {
  MbarrierState& b = initialized(byte, issued_at);
  const auto landed = std::find_if(b.loads_in_flight.begin(), b.loads_in_flight.end(),
                                   [&](const UnobservedLoad& load) { return load.issued_at == &issued_at; });
  if (landed != b.loads_in_flight.end()) b.loads_in_flight.erase(landed);
  // While arrivals are pending, bytes may land before the expect_tx that announces them (the
  // count goes negative); once every arrival is in, no expect_tx can legitimately follow.
  if (b.pending == 0 && bytes > b.tx)
    throw Error(issued_at, fmt::format("{} transaction bytes landed on {}, whose phase {} has all its arrivals and "
                                       "expects only {} more bytes: the bytes announced with arrive_and_expect_tx / "
                                       "expect_tx are fewer than the bytes of the copies that signal the barrier",
                                       bytes, barrier_name(*b.array, b.index), b.phase, b.tx));
  if (b.tx - bytes < -kMaxCount)
    throw Error(issued_at, fmt::format("{} transaction bytes landed on {} before any expect_tx announced them, beyond "
                                       "the {} a barrier counts",
                                       bytes - b.tx, barrier_name(*b.array, b.index), kMaxCount));
  b.tx -= bytes;
  const int64_t phase = b.phase;
  complete_phase_if_done(b);
  if (b.phase != phase) b.completed_by = nullptr;
}

const VectorClock& Mbarriers::released(int64_t byte, ir::WaitScope scope) const {
  auto it = barriers_.find(byte);
  TESSEL_CHECK(it != barriers_.end(), "wait on the uninitialized barrier at shared byte {}", byte);
  return scope == ir::WaitScope::Cta ? it->second.released : it->second.released_to_cluster;
}

Epoch Mbarriers::landing(int64_t byte, bool from_peer) const {
  auto it = barriers_.find(byte);
  TESSEL_CHECK(it != barriers_.end(), "bytes landing on the uninitialized barrier at shared byte {}", byte);
  return Epoch{from_peer ? it->second.peer_actor : it->second.actor, Clock(it->second.phase + 1)};
}

bool Mbarriers::phase_completed(int64_t byte, int64_t parity) const {
  auto it = barriers_.find(byte);
  TESSEL_CHECK(it != barriers_.end(), "wait on the uninitialized barrier at shared byte {}", byte);
  return (it->second.phase & 1) != (parity & 1);
}

std::string Mbarriers::expect_load(int64_t byte, const SourceLoc& issued_at, bool inside_tensor,
                                   std::string_view operation) {
  auto it = barriers_.find(byte);
  if (it == barriers_.end()) return {};
  MbarrierState& b = it->second;
  b.loads_not_observed.push_back(UnobservedLoad{b.phase, &issued_at, inside_tensor, operation});
  b.loads_in_flight.push_back(UnobservedLoad{b.phase, &issued_at, inside_tensor, operation});
  if (!b.announced.empty() || !b.completed_by) return {};
  return fmt::format(
      "its bytes count toward phase {} of {}, for which nothing had announced transaction bytes when it "
      "was issued, and phase {} completed at the arrival at {} without them: a wait for phase {} does not wait "
      "for this copy (announce its bytes with mbarrier.arrive_and_expect_tx or expect_tx in the phase its "
      "readers wait for)",
      b.phase, barrier_name(*b.array, b.index), b.phase - 1, b.completed_by->str(), b.phase - 1);
}

void Mbarriers::observed(int64_t byte) {
  MbarrierState& b = barriers_.at(byte);
  std::erase_if(b.loads_not_observed, [&](const UnobservedLoad& load) { return load.phase < b.phase; });
}

std::vector<std::pair<const MbarrierState*, UnobservedLoad>> Mbarriers::loads_never_waited_for() const {
  std::vector<std::pair<const MbarrierState*, UnobservedLoad>> out;
  for (const auto& [byte, b] : barriers_)
    for (const UnobservedLoad& load : b.loads_not_observed) out.emplace_back(&b, load);
  return out;
}

}  // namespace tessel::sim
