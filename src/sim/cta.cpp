// A block: its warps, its shared memory with the bytes asynchronous writes still own, and its
// barriers.
#include <algorithm>
#include <cstring>
#include <tuple>

#include <fmt/ranges.h>

#include "machine.hpp"

namespace tessel::sim {

Warp::Warp(Cta& c, int i) : cta(c), id(i) {
  groups.push_back({0, c.kernel.threads()});
  HappensBefore& hb = c.scheduler.happens_before;
  actor = hb.add_actor(HappensBefore::ActorKind::Warp, fmt::format("warp {} of block {}", i, c.block_name()));
  copy_actor = hb.add_actor(HappensBefore::ActorKind::CopyGroups,
                            fmt::format("the cp.async groups of warp {} of block {}", i, c.block_name()), actor);
  hb.place(actor, c.linear_block(), c.linear_cluster());
  tick();
}

Access Warp::access(const SourceLoc& loc, std::string_view operation) {
  return Access{.epoch = Epoch{actor, clock[actor]}, .site = cta.scheduler.happens_before.site(&loc, operation)};
}

void Barrier::complete_phase() {
  arrived = 0;
  ++phases;
  released.join(arrivals);
  arrivals = VectorClock{};
  for (const auto& [at, clock] : relaxed_arrivals) relaxed_released[at].join(clock);
  relaxed_arrivals.clear();
}

std::vector<ir::Scalar>& Warp::tile(const ir::RegisterTensorNode* t) {
  auto& v = tiles_[t];
  if (v.empty()) v.resize(size_t(32) * t->layout.local_size());
  return v;
}

Cta::Cta(Scheduler& s, const ir::KernelNode& k, const Launch& l, std::array<int, 3> b, LayoutTables& t)
    : scheduler(s),
      kernel(k),
      launch(l),
      block(b),
      tables(t),
      async_copies(*this),
      wgmma(*this),
      tma(*this),
      tensor_memory(*this),
      clc(*this),
      async_stores(*this),
      agents{&async_copies, &wgmma, &tma, &tensor_memory, &clc, &async_stores} {
  for (size_t i = 0; i < k.params.size(); ++i) params[k.params[i].get()] = l.args[i];
  const auto parameter = [&](const ir::ExprNode& e) {
    const auto it = params.find(static_cast<const ir::VarNode*>(&e));
    TESSEL_CHECK(e.kind == ir::NodeKind::Var && it != params.end(),
                 "a tensor map of kernel {} depends on a non-parameter", k.name);
    return it->second;
  };
  for (const ir::TensorMap& map : k.tensor_maps) {
    tensor_maps.push_back(ir::evaluate_tensor_map(map, parameter));
    ir::check_tensor_map(tensor_maps.back(), map.loc);
  }
  for (int w = 0; w < k.warps; ++w) warps.push_back(std::make_unique<Warp>(*this, w));
  smem.assign(size_t(k.shared_bytes), 0);
  written.assign(size_t(k.shared_bytes), 0);
  written_by.assign(size_t(k.shared_bytes), nullptr);
  in_flight_writes_.assign(size_t(k.shared_bytes), nullptr);
  if (s.happens_before.enabled()) shadow.resize(size_t(k.shared_bytes));
}

std::string Cta::block_name() const { return fmt::format("({}, {}, {})", block[0], block[1], block[2]); }

int64_t Cta::linear_block() const {
  return block[0] + int64_t(launch.grid[0]) * (block[1] + int64_t(launch.grid[1]) * block[2]);
}

int64_t Cta::linear_cluster() const {
  if (!kernel.clustered()) return linear_block();
  std::array<int64_t, 3> c{}, clusters{};
  for (int d = 0; d < 3; ++d) {
    c[size_t(d)] = block[size_t(d)] / kernel.cluster[size_t(d)];
    clusters[size_t(d)] = launch.grid[size_t(d)] / kernel.cluster[size_t(d)];
  }
  return c[0] + clusters[0] * (c[1] + clusters[1] * c[2]);
}

// Two copies in flight over the same bytes: waiting for the first may be impossible (both complete
// one phase), so the advice names both ways out.
constexpr std::string_view kOverlappingAsyncWrites =
    "two asynchronous writes in flight may not share bytes: issue this one after a wait that sees that one "
    "complete, or give each its own bytes";

std::string Cta::how_the_write_follows(const WgmmaUnit::Reader& mma, const Warp& writer,
                                       const VectorClock& clock) const {
  const Warp& reader = *mma.warp;
  // The mma's own warp writes in program order after it: the wait is what is missing.
  if (&writer == &reader) return std::string(wgmma.wait_advice());
  // Ordered after the mma's warp at or past its issue: an arrival of that warp after the issue let
  // the write happen before a wgmma.wait_group retired the mma.
  if (clock[reader.actor] >= mma.issued) {
    for (auto a = reader.arrivals.rbegin(); a != reader.arrivals.rend(); ++a)
      if (a->clock >= mma.issued && a->clock <= clock[reader.actor])
        return fmt::format(
            "warp {} arrived at {} after it issued the mma, and this write is ordered after that "
            "arrival: retire the mma with wgmma.wait_group before the arrival that frees its stage",
            reader.id, a->at->str());
    return std::string(wgmma.wait_advice());
  }
  // Not ordered after the issue at all: the write's wait did not wait for that warp's release, or
  // the mma read the stage before its wait saw it filled.
  std::vector<std::string> waits;
  if (!writer.waits.empty())
    waits.push_back(fmt::format("the wait at {} that this thread passed last did not wait for a release by warp {}",
                                writer.waits.back().at->str(), reader.id));
  for (auto w = reader.waits.rbegin(); w != reader.waits.rend(); ++w)
    if (w->order <= mma.steps_before) {
      waits.push_back(fmt::format("warp {}'s wait at {}, before its mma, passed before this write filled the stage",
                                  reader.id, w->at->str()));
      break;
    }
  return fmt::format(
      "nothing orders this write after warp {}'s issue of the mma{}{}: check each wait's phase "
      "(parity), and that every warp that reads a stage arrives on the barrier that frees it",
      reader.id, waits.empty() ? "" : ": ", fmt::join(waits, ", or "));
}

void Cta::check_not_in_flight(int64_t byte, int n, bool write, const SourceLoc& loc, int thread, const Cta* issuer,
                              bool asynchronous, const VectorClock* accessor) const {
  // Named only for a message: this runs on every shared access.
  const auto by = [&] { return (issuer ? issuer : this)->block_name(); };
  for (int b = 0; b < n; ++b)
    if (const InFlightWrite* w = in_flight_writes_[size_t(byte + b)]) {
      const bool maybe_earlier = !write && accessor && (*accessor)[w->issuer_warp] < w->issuer[w->issuer_warp];
      // A read that the write's issue does not precede may want the bytes' earlier contents.
      const std::string earlier =
          maybe_earlier ? fmt::format(
                              "; or, if this read wants what the bytes held before the {0}, the {0} was issued "
                              "too early: issue it once this read is ordered before it (a sync(), or the "
                              "release of its stage, after the read)",
                              w->operation_name())
                        : std::string();
      throw Error(loc, fmt::format("{} of shared memory that a {} issued at {} may still be writing (thread {} of "
                                   "block {}); {}{}",
                                   write ? "write" : "read", w->operation_name(), w->issued_at->str(), thread, by(),
                                   asynchronous ? kOverlappingAsyncWrites : w->advice_text(), earlier));
    }
  if (!write) return;
  if (const auto mma = wgmma.reading(byte, n)) {
    const Warp* writer = accessor ? (issuer ? issuer : this)->warps[size_t(thread / 32)].get() : nullptr;
    throw Error(loc, fmt::format("write of shared memory that a {} issued at {} may still be reading (thread {} of "
                                 "block {}); {}",
                                 wgmma.operation(), mma->issued_at->str(), thread, by(),
                                 writer ? how_the_write_follows(*mma, *writer, *accessor) : wgmma.wait_advice()));
  }
  for (const AsyncAgent* agent : agents)
    if (const InFlightRead* r = agent->reading(byte, byte + n))
      throw Error(loc, fmt::format("write of shared memory that a {} issued at {} may still be reading (thread {} of "
                                   "block {}); {}",
                                   r->operation.empty() ? agent->operation() : r->operation, r->issued_at->str(),
                                   thread, by(), r->advice.empty() ? agent->wait_advice() : r->advice));
}

void Cta::mark_in_flight(const InFlightWrite& w, int64_t begin, int64_t end) {
  std::fill(in_flight_writes_.begin() + begin, in_flight_writes_.begin() + end, &w);
}

void Cta::complete_in_flight_write(const InFlightWrite& w, const uint8_t* data, Epoch landed) {
  const size_t n = size_t(w.end - w.begin);
  const Access at{.epoch = landed,
                  .site = scheduler.happens_before.site(w.issued_at, w.operation_name()),
                  .generic = w.proxy == Proxy::Generic,
                  .unordered_in_actor = true};
  scheduler.happens_before.access(
      shadow, w.begin, int(n), true, w.issuer, at, [&](int64_t byte) { return shared_byte_name(byte); }, data,
      &smem[size_t(w.begin)], w.issuer_warp);
  std::memcpy(&smem[size_t(w.begin)], data, n);
  mark_written(w.begin, int64_t(n));
  std::fill_n(in_flight_writes_.begin() + w.begin, n, nullptr);
}

void Cta::complete_tx(int64_t barrier_byte, int64_t bytes, const SourceLoc& issued_at) {
  mbarriers.complete_tx(barrier_byte, bytes, issued_at);
}

std::string Warp::returned_note(Mask absent) const {
  const Mask gone = absent & returned;
  if (!gone) return "";
  const int lane = __builtin_ctz(gone);
  return fmt::format("; thread {} returned at {}", thread(lane), returned_at[size_t(lane)]->str());
}

void Warp::require_whole_warp(Mask mask, std::string_view instruction, const SourceLoc& loc) const {
  if (mask == 0xffffffffu) return;
  throw Error(loc,
              fmt::format("{} is executed by whole warps, but only {} lanes of warp {} of block {} reach it (is it "
                          "inside an if_ that part of the warp takes?){}",
                          instruction, popcount(mask), id, cta.block_name(), returned_note(~mask)));
}

// A barrier waits for every thread of its group, and one that has returned never arrives: the
// generated bar.sync would wait for its warp forever, or count the warp's other threads as all of
// it, neither of which the kernel means.
void Cta::arrive_at_barrier(Warp& w, int id, Mask mask, const SourceLoc& loc, std::string_view operation) {
  const ir::ThreadRange group = w.group();
  for (int t = group.begin; t < group.end(); ++t) {
    const Warp& owner = *warps[size_t(t / 32)];
    if (owner.returned >> (t % 32) & 1)
      throw Error(loc, fmt::format("{} in block {} waits for {}, but thread {} returned at {}: a barrier waits for "
                                   "every thread of its group, and one that has returned never arrives; return_ "
                                   "after the group's last barrier, or skip the work with if_ instead",
                                   operation, block_name(), group.str(), t, owner.returned_at[size_t(t % 32)]->str()));
  }
  Barrier& b = barriers[size_t(id)];
  if (b.arrived == 0) {
    b.expected = group.count;
    b.group = group;
    b.first_arrival = &loc;
  }
  TESSEL_CHECK(b.expected == group.count, "barrier {} of block {} expects {} threads, an arrival at {} {}", id,
               block_name(), b.expected, loc.str(), group.count);
  const BarrierWait wait{id, b.phases, popcount(mask)};
  b.arrived += popcount(mask);
  b.arrivals.join(w.clock);
  if (b.arrived >= b.expected) b.complete_phase();
  w.wait(loc, wait);
  w.clock.join(b.released);
  w.tick();
}

void Cta::mark_written(int64_t byte, int64_t n, const ir::SharedTensorNode* tile) {
  std::fill_n(written.begin() + byte, n, uint8_t(1));
  std::fill_n(written_by.begin() + byte, n, tile);
}

void Cta::store_shared(Warp& w, int thread, int64_t byte, const uint8_t* incoming, int n, const SourceLoc& loc,
                       std::string_view operation, const ir::SharedTensorNode* tile) {
  check_not_in_flight(byte, n, true, loc, thread);
  access_shared(w, byte, n, true, loc, operation, incoming);
  std::memcpy(&smem[size_t(byte)], incoming, size_t(n));
  mark_written(byte, n, tile);
}

void Cta::store_shared_packed_alone(Warp& w, int thread, int64_t byte, const uint8_t* incoming, int shift, DType t,
                                    const SourceLoc& loc, std::string_view operation,
                                    const ir::SharedTensorNode* tile) {
  const int n = packed_bytes(t, shift);
  check_not_in_flight(byte, n, true, loc, thread);
  scheduler.happens_before.packed_store(
      shadow, byte, shift, dtype_bits(t), w.clock, w.access(loc, operation),
      [&](int64_t b) { return shared_byte_name(b); }, incoming, &smem[size_t(byte)]);
  std::memcpy(&smem[size_t(byte)], incoming, size_t(n));
  mark_written(byte, n, tile);
}

void Cta::access_shared(Warp& w, int64_t byte, int n, bool write, const SourceLoc& loc, std::string_view operation,
                        const uint8_t* incoming) {
  Access at = w.access(loc, operation);
  at.generic = write;
  scheduler.happens_before.access(
      shadow, byte, n, write, w.clock, at, [&](int64_t b) { return shared_byte_name(b); }, incoming,
      &smem[size_t(byte)]);
}

void Cta::check_async_read(const VectorClock& issuer, Access at, int64_t begin, int64_t end) {
  scheduler.happens_before.check_async_read(
      shadow, begin, int(end - begin), issuer, at, [&](int64_t b) { return shared_byte_name(b); }, linear_block());
}

void Cta::check_async_read(const VectorClock& issuer, Access at, const std::vector<int64_t>& bytes) {
  scheduler.happens_before.check_async_read(
      shadow, bytes, issuer, at, [&](int64_t b) { return shared_byte_name(b); }, linear_block());
}

std::string Cta::shared_byte_name(int64_t byte) const {
  std::vector<std::pair<const ir::SharedTensorNode*, int64_t>> tiles;  // those the byte lies in, and where
  for (const auto& [tensor, offset] : shared_offsets)
    if (byte >= offset && byte < offset + tensor->nbytes()) tiles.emplace_back(tensor, byte - offset);
  const auto tile_name = [](const ir::SharedTensorNode& t) {
    return t.owner.empty() ? fmt::format("allocated at {}", t.loc.str())
                           : fmt::format("{} (allocated at {})", t.owner, t.loc.str());
  };
  if (tiles.empty()) return fmt::format("byte {} of the shared memory of block {}", byte, block_name());
  if (tiles.size() == 1)
    return fmt::format("shared memory {}, byte {} of the allocation, in block {}", tile_name(*tiles[0].first),
                       tiles[0].second, block_name());
  // Tiles that take the same bytes in turn, after a free_shared.
  std::sort(tiles.begin(), tiles.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first->loc.file, a.first->loc.line) < std::tie(b.first->loc.file, b.first->loc.line);
  });
  std::vector<std::string> names;
  for (const auto& [tensor, at] : tiles) {
    const auto free = freed_at.find(tensor);
    names.push_back(fmt::format("the tile {} (its byte {}{})", tile_name(*tensor), at,
                                free == freed_at.end() ? "" : fmt::format(", freed at {}", free->second->str())));
  }
  return fmt::format("shared memory that tiles take in turn after a free_shared, {}, in block {}",
                     fmt::join(names, " and "), block_name());
}

}  // namespace tessel::sim

namespace tessel::sim {

void Cta::arrive_at_cluster_barrier(Warp& w, Mask mask, const SourceLoc& loc, bool relaxed) {
  Barrier& b = scheduler.cluster_peer(*this, 0).cluster_barrier;
  w.cluster_arrival = Warp::ClusterArrival{&loc, b.phases, popcount(mask)};
  b.arrived += popcount(mask);
  if (relaxed)
    b.relaxed_arrivals[&loc].join(w.clock);
  else
    b.arrivals.join(w.clock);
  complete_cluster_barrier_if_all_arrived();
  w.tick();
}

void Cta::wait_at_cluster_barrier(Warp& w, const SourceLoc& loc, bool split) {
  const Warp::ClusterArrival arrival = *w.cluster_arrival;
  w.wait(loc, ClusterBarrierWait{arrival.phase, arrival.threads, split ? arrival.at : nullptr});
  w.cluster_arrival.reset();
  w.passed_cluster_barrier = true;
  const Barrier& b = scheduler.cluster_peer(*this, 0).cluster_barrier;
  w.clock.join(b.released);
  for (const auto& [arrival, clock] : b.relaxed_released)
    scheduler.happens_before.weak_wait(w.actor, clock,
                                       HappensBefore::WeakWait{&loc, w.clock[w.actor], true, arrival, !split});
  w.tick();
}

void Cta::complete_cluster_barrier_if_all_arrived() {
  Cta& first = scheduler.cluster_peer(*this, 0);
  Barrier& b = first.cluster_barrier;
  if (b.arrived == 0) return;
  // Each warp that has not finished must have arrived in this phase with all its threads that have
  // not returned; a warp that arrived and then finished counts no more.
  b.expected = 0;
  b.arrived = 0;
  bool all_arrived = true;
  for (int rank = 0; rank < kernel.cluster_blocks(); ++rank)
    for (const auto& w : scheduler.cluster_peer(first, rank).warps) {
      if (w->state == Warp::State::Done) continue;
      const int threads = 32 - popcount(w->returned);
      b.expected += threads;
      if (w->cluster_arrival && w->cluster_arrival->phase == b.phases && w->cluster_arrival->threads >= threads)
        b.arrived += threads;
      else
        all_arrived = false;
    }
  if (all_arrived) b.complete_phase();
}

void Cta::threads_returned(Warp& w, Mask mask, const SourceLoc& loc) {
  for (const Barrier& b : barriers) {
    if (b.arrived == 0) continue;
    for (int lane = 0; lane < 32; ++lane)
      if ((mask >> lane & 1) && b.group.contains(w.thread(lane)))
        throw Error(loc, fmt::format("return_ by thread {} of block {} while threads of its group ({}) wait at the "
                                     "barrier at {}, which waits for every thread of the group: a thread that has "
                                     "returned never arrives; return_ after the group's last barrier, or skip the "
                                     "work with if_ instead",
                                     w.thread(lane), block_name(), b.group.str(), b.first_arrival->str()));
  }
  w.returned |= mask;
  for (int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1) w.returned_at[size_t(lane)] = &loc;
  complete_cluster_barrier_if_all_arrived();
}

bool Cta::ended() const {
  return std::all_of(warps.begin(), warps.end(), [](const auto& w) { return w->state == Warp::State::Done; });
}

}  // namespace tessel::sim
