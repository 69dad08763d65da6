// Vector clocks, shadow memory and the race reports of the simulator.
#include "happens_before.hpp"

#include <algorithm>
#include <ranges>

#include <fmt/format.h>

#include "machine.hpp"

namespace tessel::sim {

void VectorClock::raise(uint32_t actor, Clock c) {
  if (actor >= clocks_.size()) clocks_.resize(actor + 1, 0);
  clocks_[actor] = std::max(clocks_[actor], c);
}

void VectorClock::join(const VectorClock& other) {
  if (other.clocks_.size() > clocks_.size()) clocks_.resize(other.clocks_.size(), 0);
  for (size_t i = 0; i < other.clocks_.size(); ++i) clocks_[i] = std::max(clocks_[i], other.clocks_[i]);
}

void Shadow::resize(size_t bytes) {
  write.assign(bytes, Access{});
  replica.assign(bytes, Access{});
  read[0].assign(bytes, Access{});
  read[1].assign(bytes, Access{});
  atomic[0].clear();
  atomic[1].clear();
  non_coherent_read.clear();
  atomic_write.clear();
  tma_write.clear();
  multicast_reads.clear();
  longest_multicast_read = 0;
}

void Shadow::size_atomics() {
  if (!atomic[0].empty()) return;
  for (auto* slots : {&atomic[0], &atomic[1], &atomic_write}) slots->assign(write.size(), Access{});
}

uint32_t HappensBefore::add_actor(ActorKind kind, std::string name, uint32_t owner) {
  const uint32_t id = uint32_t(actors_.size());
  actors_.push_back(Actor{kind, std::move(name), owner ? owner : id});
  return id;
}

void HappensBefore::place(uint32_t warp, int64_t block, int64_t cluster) {
  actors_[warp].block = block;
  actors_[warp].cluster = cluster;
}

bool HappensBefore::includes(ir::MemoryScope scope, uint32_t a, uint32_t b) const {
  switch (scope) {
    case ir::MemoryScope::Cta: return actors_[a].block == actors_[b].block;
    case ir::MemoryScope::Cluster: return actors_[a].cluster == actors_[b].cluster;
    case ir::MemoryScope::Gpu:
    case ir::MemoryScope::Sys: return true;
  }
  return false;
}

bool HappensBefore::morally_strong(const Access& x, const Access& y) const {
  return x.atomic && y.atomic && includes(*x.atomic, x.epoch.actor, y.epoch.actor) &&
         includes(*y.atomic, y.epoch.actor, x.epoch.actor);
}

void HappensBefore::report_weak_atomics(const Access& earlier, const Access& later, const std::string& memory) const {
  const Site& s = sites_[later.site];
  const Access& narrow = includes(*later.atomic, later.epoch.actor, earlier.epoch.actor) ? earlier : later;
  throw Error(*s.loc, fmt::format("data race on {}: {} and {} are atomics that do not exclude each other: the scope {} "
                                  "of {} does not include the other's thread (PTX memory model: atomics are atomic "
                                  "with each other only when each one's scope includes the other's thread); give "
                                  "both a scope that includes both threads, such as MemoryScope::gpu",
                                  memory, describe(later), describe(earlier), ir::memory_scope_name(*narrow.atomic),
                                  describe(narrow)));
}

void HappensBefore::atomic_access(Shadow& shadow, int64_t begin, int n, const VectorClock& clock, Access at,
                                  const std::function<std::string(int64_t)>& memory, const uint8_t* incoming,
                                  const uint8_t* current) const {
  if (!enabled_) return;
  const auto unordered = [&](const Access& a) { return HappensBefore::unordered(a, at, clock); };
  shadow.size_atomics();
  if (at.atomic_write) {
    check_not_read_only(shadow, begin, n, at, memory);
    check_after_multicast_reads(shadow, begin, n, clock, at, memory, 0);
    std::fill_n(shadow.atomic_write.begin() + begin, n, at);
  }
  for (int64_t byte = begin; byte < begin + n; ++byte) {
    const Access& last_write = shadow.write[size_t(byte)];
    const Access& replica = shadow.replica[size_t(byte)];
    const bool after_replica = replica.epoch.clock != 0 && !unordered(replica);
    if (unordered(last_write) && (at.atomic_write || !after_replica)) report(last_write, at, memory(byte), clock);
    if (at.atomic_write) {
      if (unordered(replica)) report(replica, at, memory(byte), clock);
      for (const auto& reads : shadow.read)
        if (unordered(reads[size_t(byte)])) report(reads[size_t(byte)], at, memory(byte), clock);
    }
    Access& a0 = shadow.atomic[0][size_t(byte)];
    Access& a1 = shadow.atomic[1][size_t(byte)];
    for (const Access* a : {&a0, &a1}) {
      if (!unordered(*a)) continue;
      if ((at.atomic_write || a->atomic_write) && !morally_strong(*a, at)) report_weak_atomics(*a, at, memory(byte));
      if (incoming && current && (a->packed_bits & at.packed_bits & (incoming[byte - begin] ^ current[byte - begin])))
        report(*a, at, memory(byte), clock);
    }
    (unordered(a0) ? a1 : a0) = at;
  }
}

void HappensBefore::packed_store(Shadow& shadow, int64_t begin, int shift, int bits, const VectorClock& clock,
                                 Access at, const std::function<std::string(int64_t)>& memory, const uint8_t* incoming,
                                 const uint8_t* current) const {
  at.atomic = ir::MemoryScope::Gpu;
  at.atomic_write = true;
  at.generic = true;
  const uint32_t field = ((1u << bits) - 1u) << shift;
  for (int b = 0; b * 8 < shift + bits; ++b) {
    at.packed_bits = uint8_t(field >> (8 * b));
    atomic_access(shadow, begin + b, 1, clock, at, memory, incoming + b, current + b);
  }
}

void HappensBefore::memory_fence(uint32_t warp, VectorClock& clock, ir::MemoryScope scope, bool sequentially_consistent,
                                 const SourceLoc* at) {
  if (!enabled_) return;
  FenceState& state = memory_fences_[warp];
  std::erase_if(state.unacquired, [&](Unacquired& u) {
    const Release& r = u.release;
    if (!includes(scope, warp, r.warp) || !includes(r.scope, r.warp, warp)) {
      u.narrow_fence = at;
      u.narrow_scope = scope;
      return false;
    }
    clock.join(r.clock);
    return true;
  });
  if (sequentially_consistent) {
    for (const Release& f : sc_fences_)
      if (includes(f.scope, f.warp, warp) && includes(scope, warp, f.warp)) clock.join(f.clock);
    const auto mine = std::find_if(sc_fences_.begin(), sc_fences_.end(),
                                   [&](const Release& f) { return f.warp == warp && f.scope == scope; });
    if (mine != sc_fences_.end())
      mine->clock = clock;
    else
      sc_fences_.push_back(Release{clock, warp, scope});
  }
  // A fence of a scope is one of every narrower scope too.
  std::vector<VectorClock>& released = state.released_by_scope;
  if (released.size() < size_t(scope) + 1) released.resize(size_t(scope) + 1);
  for (size_t s = 0; s <= size_t(scope); ++s) released[s] = clock;
}

void HappensBefore::fence_proxy(uint32_t warp, const VectorClock& clock, ir::ProxyFenceSpace space) {
  using enum ir::ProxyFenceSpace;
  if (enabled_)
    fences_[warp].push_back(
        Fence{clock, space == Global || space == All, space == SharedCta, space == SharedCluster || space == All});
}

bool HappensBefore::fence_covers(const Fence& f, uint32_t warp, int64_t space) const {
  if (space == global_memory) return f.global;
  if (f.shared_cluster) return true;
  return f.shared_cta && actors_[warp].block == space;
}

bool HappensBefore::fenced(const Access& write, const VectorClock& reader, int64_t space) const {
  // The writer's own fences first: they are where kernels put them.
  const uint32_t writer = actors_[write.epoch.actor].owner;
  const auto covered_by = [&](uint32_t warp, const std::vector<Fence>& fences) {
    // The fences that precede the read are a prefix of the warp's; the latest of them that covers
    // the memory has seen the most.
    auto it = std::upper_bound(fences.begin(), fences.end(), reader[warp],
                               [warp](Clock c, const Fence& f) { return c < f.clock[warp]; });
    while (it != fences.begin())
      if (--it; fence_covers(*it, warp, space)) return it->clock.covers(write.epoch);
    return false;
  };
  if (const auto mine = fences_.find(writer); mine != fences_.end() && covered_by(writer, mine->second)) return true;
  for (const auto& [warp, fences] : fences_)
    if (warp != writer && covered_by(warp, fences)) return true;
  return false;
}

void HappensBefore::report_unfenced(const Access& write, const Access& read, const std::string& memory,
                                    int64_t space) const {
  const Site& s = sites_[read.site];
  // A write that lands as a barrier phase's (st.async) is fenced by a thread that waited for it; a
  // warp's write into another block's shared memory by the writer's fence of the cluster's.
  const Actor& writer = actors_[actors_[write.epoch.actor].owner];
  const char* fence = space == global_memory ? "fence.proxy_async(ProxySpace::global)"
                      : writer.kind == ActorKind::Warp && writer.block != space
                          ? "fence.proxy_async(ProxySpace::shared_cluster)"
                          : "fence.proxy_async()";
  const char* where = writer.kind == ActorKind::Warp
                          ? "call it after the writes, in the threads that wrote, before the sync(), arrival or "
                            "release that hands the memory over (or in the reading thread, after what orders the "
                            "writes before it)"
                          : "call it in the reading thread after the wait that sees the write land";
  throw Error(*s.loc, fmt::format("{}: {} reads through the async proxy what {} wrote through the generic proxy, and "
                                  "no {} (or ProxySpace::all) lies between them; {}",
                                  memory, describe(read), describe(write), fence, where));
}

void HappensBefore::weak_wait(uint32_t warp, const VectorClock& published, WeakWait wait) {
  auto [it, fresh] = weak_waits_[warp].try_emplace({wait.at, wait.relaxed_arrival}, wait, VectorClock{});
  // The latest pass: every pass's publication precedes what its warp issues after it.
  it->second.first.warp_clock = std::max(it->second.first.warp_clock, wait.warp_clock);
  it->second.second.join(published);
}

std::string HappensBefore::remedy(const Access& earlier, const Access& later, const VectorClock& clock,
                                  uint32_t waiter) const {
  if (actors_[earlier.epoch.actor].kind == ActorKind::PriorGrids)
    return "this kernel calls grid_dependency.wait(), so it is launched to run beside the kernels before it until "
           "its wait: make the access after grid_dependency.wait(), in the thread that waited or in one ordered "
           "after it (a sync(), an mbarrier phase)";
  // The waits of `later`'s warp (of the warp that issued it, for a landing) before it.
  const uint32_t warp = waiter ? waiter : later.epoch.actor;
  const auto waits = weak_waits_.find(warp);
  if (waits != weak_waits_.end())
    for (const auto& [lines, wait] : waits->second) {
      const SourceLoc* at = lines.first;
      if (wait.first.warp_clock > clock[warp] || !wait.second.covers(earlier.epoch)) continue;
      if (wait.first.relaxed_arrival)
        return fmt::format(
            "the {} at {} passed the phase of a relaxed cluster.arrive (at {}) that came after it, but a relaxed "
            "arrival releases nothing: arrive with MemoryOrder::release (the default)",
            wait.first.cluster_sync ? "cluster.sync()" : "cluster.wait", at->str(), wait.first.relaxed_arrival->str());
      if (wait.first.relaxed)
        return fmt::format(
            "the mbarrier wait at {} saw the phase that publishes it, but a relaxed wait orders no "
            "memory: wait with WaitSemantics::acquire",
            at->str());
      return fmt::format(
          "the mbarrier wait at {} saw the phase that publishes it, but another block of the "
          "cluster released or landed it, which a wait of cta scope does not acquire: wait with "
          "WaitScope::cluster",
          at->str());
    }
  const auto site_name = [&](uint32_t site) {
    return fmt::format("{} at {}", sites_[site].operation, sites_[site].loc->str());
  };
  // A flag between the two: a read that acquired nothing, or a write that released nothing, which
  // `later` is ordered after and which saw or followed `earlier`.
  for (const auto& [warp, state] : memory_fences_)
    for (const Unacquired& u : state.unacquired)
      if (clock.covers(u.read) && u.release.clock.covers(earlier.epoch))
        return u.narrow_fence
                   ? fmt::format(
                         "the {} saw it released, but the fence at {} after it has scope {}, which does not "
                         "include the writing thread; give the fence a scope that does, such as "
                         "MemoryScope::gpu",
                         site_name(u.read_site), u.narrow_fence->str(), ir::memory_scope_name(u.narrow_scope))
                   : fmt::format(
                         "the {} saw it released, but a relaxed read acquires nothing: read with "
                         "MemoryOrder::acquire, or call fence.acq_rel() after the read",
                         site_name(u.read_site));
  for (const ReadOfRelaxedWrite& r : reads_of_relaxed_writes_)
    if (clock.covers(r.read) && r.write.clock.covers(earlier.epoch))
      return fmt::format(
          "the {} read what the {} wrote, but a relaxed write releases nothing: write with MemoryOrder::release, or "
          "call fence.acq_rel() before the write, with a scope that includes the reader",
          site_name(r.read_site), site_name(r.write.site));
  // A TMA store's bytes are written until a wait of its thread that retires its group: a handoff, or
  // another store of the same bytes, must come after that wait.
  if (actors_[earlier.epoch.actor].kind == ActorKind::BulkGroups)
    return "a TMA store writes global memory until a tma.wait_group(n) of its issuing thread retires its group "
           "(tma.wait_group(n, read = true) waits only until its source is read): order the access after such a "
           "wait, through a sync(), an mbarrier phase or a release the other block acquires; two stores of the "
           "same bytes need such a wait between them";
  // Two writes landing in one phase of an mbarrier (or one cp.async group): nothing orders them.
  if (earlier.epoch.actor == later.epoch.actor && earlier.epoch.clock == later.epoch.clock &&
      (actors_[earlier.epoch.actor].kind == ActorKind::Mbarrier ||
       actors_[earlier.epoch.actor].kind == ActorKind::CopyGroups))
    return "the asynchronous writes that complete one mbarrier phase (or belong to one cp.async group) land in any "
           "order, so no byte may be written by two of them: give each copy its own bytes";
  // A landing in a later phase of a barrier whose earlier phase the access's warp acquired: the wait
  // passed on a phase before the copy's.
  if (const Clock acquired = clock[earlier.epoch.actor];
      actors_[earlier.epoch.actor].kind == ActorKind::Mbarrier && acquired > 0 && acquired < earlier.epoch.clock)
    return fmt::format(
        "this access is ordered after phase {} of that barrier at most: did the wait before it pass on an earlier "
        "phase than the copy's (a parity one phase behind, an arrival that completed the phase it waits for "
        "without the copy's transaction bytes announced), or is the wait for the copy's phase missing?",
        acquired - 1);
  // Warps of two blocks share no sync(): only the memory model, or a barrier of their cluster, orders them.
  const Actor &a = actors_[actors_[earlier.epoch.actor].owner], &b = actors_[actors_[later.epoch.actor].owner];
  const bool across_blocks =
      a.kind == ActorKind::Warp && b.kind == ActorKind::Warp && a.block >= 0 && b.block >= 0 && a.block != b.block;
  // `later` acquired what another warp of the writer's block released: that release published its
  // own warp's past, which the write was not part of.
  if (across_blocks)
    for (uint32_t w = 0; w < actors_.size(); ++w)
      if (w != actors_[earlier.epoch.actor].owner && actors_[w].kind == ActorKind::Warp &&
          actors_[w].block == a.block && clock[w] > 0)
        return fmt::format(
            "it acquired what {} released, but a release publishes only what its own warp did before it, and "
            "nothing orders the access by {} before that release: call sync() in that block after the access and "
            "before the release",
            actors_[w].name, a.name);
  // Atomics take no packed view: where either access is one, the blocks must not share its elements.
  const bool packed = sites_[earlier.site].packed || sites_[later.site].packed;
  if (across_blocks)
    return fmt::format(
        "the two blocks share no sync(): {}, or hand the data over with an atomic release that the other block "
        "acquires (MemoryOrder::release and MemoryOrder::acquire, or fence.acq_rel() around relaxed atomics){}",
        packed ? "give each block packed elements of its own (atomics take no packed view)"
               : "combine into one place with atomics (atomic.add)",
        a.cluster == b.cluster ? ", or order them with cluster.sync() or an mbarrier of their cluster" : "");
  // Two warps of a block (not a warp and its own asynchronous copies), both moving a copied tile:
  // an in-place update whose copies each warp loads and stores. Where either access moves no copies,
  // removing the copies would leave the race as it is.
  const bool warps = actors_[earlier.epoch.actor].kind == ActorKind::Warp &&
                     actors_[later.epoch.actor].kind == ActorKind::Warp && a.block >= 0 && a.block == b.block;
  const bool both_copied = sites_[earlier.site].copies_in_warps > 1 && sites_[later.site].copies_in_warps > 1;
  for (const Access* access : {&earlier, &later})
    if (const Site& s = sites_[access->site]; warps && both_copied && s.loc)
      return fmt::format(
          "the {} at {} moves a tile whose layout keeps a copy of each element in {} warps, and each warp loads or "
          "stores its own copy: give the tile a layout without copies across warps (Layout::spatial over its shape "
          "where the tile has an element for each thread, or a thread group of no more threads than the tile has "
          "elements; docs/layouts.md), or order the accesses with a sync()",
          s.operation, s.loc->str(), s.copies_in_warps);
  return "order them with a sync(), an mbarrier arrival and a wait on its phase, or the wait that retires the "
         "asynchronous operation";
}

uint32_t HappensBefore::site(const SourceLoc* loc, std::string_view operation) {
  const auto key = std::make_pair(loc, operation.data());
  const auto it = site_ids_.find(key);
  if (it != site_ids_.end()) return it->second;
  sites_.push_back(Site{loc, operation});
  return site_ids_[key] = uint32_t(sites_.size() - 1);
}

void HappensBefore::note_copies(const SourceLoc* loc, std::string_view operation, int warps) {
  sites_[site(loc, operation)].copies_in_warps = warps;
}

void HappensBefore::note_packed(const SourceLoc* loc, std::string_view operation) {
  sites_[site(loc, operation)].packed = true;
}

std::string HappensBefore::describe(const Access& a) const {
  const Site& s = sites_[a.site];
  const Actor& actor = actors_[a.epoch.actor];
  const std::string at = s.loc ? fmt::format("the {} at {}", s.operation, s.loc->str()) : std::string(s.operation);
  switch (actor.kind) {
    case ActorKind::Warp: return fmt::format("{} by {}", at, actor.name);
    case ActorKind::Mbarrier: return fmt::format("{}, landed in phase {} of {}", at, a.epoch.clock - 1, actor.name);
    case ActorKind::CopyGroups:
    case ActorKind::BulkGroups: return fmt::format("{}, in group {} of {}", at, a.epoch.clock - 1, actor.name);
    case ActorKind::PriorGrids: return fmt::format("{} (launched before this kernel)", at);
  }
  return at;
}

void HappensBefore::report(const Access& earlier, const Access& later, const std::string& memory,
                           const VectorClock& clock, uint32_t waiter) const {
  const Site& s = sites_[later.site];
  throw Error(*s.loc, fmt::format("data race on {}: {} is not ordered after {}; {}", memory, describe(later),
                                  describe(earlier), remedy(earlier, later, clock, waiter)));
}

void HappensBefore::access(Shadow& shadow, int64_t begin, int n, bool write, const VectorClock& clock, Access at,
                           const std::function<std::string(int64_t)>& memory, const uint8_t* incoming,
                           const uint8_t* current, uint32_t issuer) const {
  if (!enabled_) return;
  const auto unordered = [&](const Access& a) { return HappensBefore::unordered(a, at, clock); };
  const auto block_of = [&](const Access& a) { return actors_[actors_[a.epoch.actor].owner].block; };
  if (write) {
    check_not_read_only(shadow, begin, n, at, memory);
    check_after_multicast_reads(shadow, begin, n, clock, at, memory, issuer);
  }
  for (int64_t byte = begin; byte < begin + n; ++byte) {
    Access& last_write = shadow.write[size_t(byte)];
    Access& replica = shadow.replica[size_t(byte)];
    Access& r0 = shadow.read[0][size_t(byte)];
    Access& r1 = shadow.read[1][size_t(byte)];
    if (!shadow.atomic[0].empty()) {
      Access& a0 = shadow.atomic[0][size_t(byte)];
      Access& a1 = shadow.atomic[1][size_t(byte)];
      for (const Access* a : {&a0, &a1})
        if (unordered(*a) && (write || a->atomic_write)) report(*a, at, memory(byte), clock, issuer);
      if (write) a0 = a1 = Access{};
    }
    // The same instruction writing the same value again in the same block: a replica of the last
    // write (copies of a register tile). In another block it races, whatever the value; so does a
    // landing of another phase or group of its actor (a stage refilled too early with the same bytes).
    if (write && unordered(last_write) && last_write.site == at.site && incoming && current &&
        incoming[byte - begin] == current[byte - begin] && block_of(last_write) == block_of(at) &&
        !(at.unordered_in_actor && last_write.epoch.actor == at.epoch.actor &&
          last_write.epoch.clock != at.epoch.clock)) {
      replica = at;
      continue;
    }
    // Reading either of two writes of one value reads that value; a write must follow both.
    const bool after_replica = replica.epoch.clock != 0 && !unordered(replica);
    if (unordered(last_write) && (write || !after_replica)) report(last_write, at, memory(byte), clock, issuer);
    if (write && unordered(replica)) report(replica, at, memory(byte), clock, issuer);
    if (write) {
      for (const Access* r : {&r0, &r1})
        if (unordered(*r)) report(*r, at, memory(byte), clock, issuer);
      last_write = at;
      replica = r0 = r1 = Access{};
      continue;
    }
    // Keep the reads a later write must be ordered after: the first read gives way when this one is
    // ordered after it, the second otherwise (with three unordered readers, the oldest is kept).
    (unordered(r0) ? r1 : r0) = at;
  }
}

bool HappensBefore::written_in_launch(const Access& a) const {
  return a.epoch.clock != 0 && actors_[a.epoch.actor].kind != ActorKind::PriorGrids;
}

void HappensBefore::report_read_only(const Access& write, const Access& read, bool read_first,
                                     const std::string& memory) const {
  const std::string why =
      "ld.global.nc reads through the non-coherent cache, which may keep the old bytes, so nothing may write a "
      "read-only view's bytes while the kernel runs; drop read_only() from the views of bytes the kernel writes";
  if (read_first)
    throw Error(*sites_[write.site].loc, fmt::format("read-only bytes written, {}: {} writes them, and {} read them "
                                                     "through a read-only view in this launch: {}",
                                                     memory, describe(write), describe(read), why));
  throw Error(*sites_[read.site].loc, fmt::format("read-only bytes written, {}: {} reads them through a read-only "
                                                  "view, and {} wrote them in this launch: {}",
                                                  memory, describe(read), describe(write), why));
}

void HappensBefore::check_not_read_only(const Shadow& shadow, int64_t begin, int n, const Access& at,
                                        const std::function<std::string(int64_t)>& memory) const {
  if (shadow.non_coherent_read.empty()) return;
  for (int64_t byte = begin; byte < begin + n; ++byte)
    if (shadow.non_coherent_read[size_t(byte)].epoch.clock != 0)
      report_read_only(at, shadow.non_coherent_read[size_t(byte)], true, memory(byte));
}

void HappensBefore::non_coherent_read(Shadow& shadow, uint64_t first, int64_t begin, int n, Access at,
                                      const std::function<std::string(int64_t)>& memory) {
  if (!enabled_) return;
  non_coherent_reads_ = true;
  if (shadow.non_coherent_read.empty()) {
    // The allocation's first such read: the TMA stores so far become the shadow's, and the later
    // ones reach it as they are issued.
    const uint64_t end = first + shadow.write.size();
    shadow.non_coherent_read.assign(shadow.write.size(), Access{});
    shadow.tma_write.assign(shadow.write.size(), Access{});
    for (const UntrackedAccess& u : untracked_)
      if (u.write && u.address < end && u.address + uint64_t(u.n) > first)
        for (uint64_t a = std::max(u.address, first); a < std::min(u.address + uint64_t(u.n), end); ++a)
          shadow.tma_write[a - first] = Access{.epoch = u.epoch, .site = u.site};
  }
  for (int64_t byte = begin; byte < begin + n; ++byte) {
    const size_t b = size_t(byte);
    for (const Access* write : {&shadow.write[b], &shadow.replica[b], &shadow.tma_write[b]})
      if (written_in_launch(*write)) report_read_only(*write, at, false, memory(byte));
    if (!shadow.atomic_write.empty() && written_in_launch(shadow.atomic_write[b]))
      report_read_only(shadow.atomic_write[b], at, false, memory(byte));
    if (shadow.non_coherent_read[b].epoch.clock == 0) shadow.non_coherent_read[b] = at;
  }
}

void HappensBefore::check_async_read(const Shadow& shadow, int64_t begin, int n, const VectorClock& clock, Access at,
                                     const std::function<std::string(int64_t)>& memory, int64_t space,
                                     uint32_t waiter) const {
  check_async_reads(shadow, std::views::iota(begin, begin + n), clock, at, memory, space, waiter);
}

void HappensBefore::check_async_read(const Shadow& shadow, std::span<const int64_t> bytes, const VectorClock& clock,
                                     Access at, const std::function<std::string(int64_t)>& memory,
                                     int64_t space) const {
  check_async_reads(shadow, bytes, clock, at, memory, space, 0);
}

template <class Bytes> void HappensBefore::check_async_reads(const Shadow& shadow, const Bytes& bytes,
                                                             const VectorClock& clock, Access at,
                                                             const std::function<std::string(int64_t)>& memory,
                                                             int64_t space, uint32_t waiter) const {
  if (!enabled_) return;
  // Neighbouring bytes mostly share their write's epoch: ask once for each run of them.
  Epoch asked;
  bool answer = false;
  const auto is_fenced = [&](const Access& write) {
    if (write.epoch.actor != asked.actor || write.epoch.clock != asked.clock) {
      asked = write.epoch;
      answer = fenced(write, clock, space);
    }
    return answer;
  };
  for (const int64_t byte : bytes) {
    const Access& last_write = shadow.write[size_t(byte)];
    const Access& replica = shadow.replica[size_t(byte)];
    if (unordered(last_write, at, clock) && (replica.epoch.clock == 0 || unordered(replica, at, clock)))
      report(last_write, at, memory(byte), clock, waiter);
    if (last_write.generic && !is_fenced(last_write) && !(replica.generic && is_fenced(replica)))
      report_unfenced(last_write, at, memory(byte), space);
    if (shadow.atomic[0].empty()) continue;
    for (const auto& atomics : shadow.atomic) {
      const Access& a = atomics[size_t(byte)];
      if (!a.atomic_write) continue;
      if (unordered(a, at, clock)) report(a, at, memory(byte), clock, waiter);
      if (a.generic && !is_fenced(a)) report_unfenced(a, at, memory(byte), space);
    }
  }
}

Shadow& HappensBefore::global_shadow(uint64_t address, uint64_t* first, size_t* bytes) {
  if (last_global_ && address >= last_global_first_ && address < last_global_first_ + last_global_->write.size()) {
    *first = last_global_first_;
    *bytes = last_global_->write.size();
    return *last_global_;
  }
  TESSEL_CHECK(allocation_containing(address, first, bytes), "a global access at 0x{:x} outside every allocation",
               address);
  auto [it, fresh] = globals_.try_emplace(*first);
  if (fresh || it->second.write.size() != *bytes) {
    it->second.resize(*bytes);
    seed_prior_grids(it->second, *first);
  }
  last_global_first_ = *first;
  last_global_ = &it->second;
  return it->second;
}

void HappensBefore::overlap_prior_grids(const PriorGridAccesses& prior) {
  TESSEL_CHECK(prior_ == nullptr && globals_.empty(), "the prior grids joined a launch after it began");
  prior_ = &prior;
  prior_grids_ = add_actor(ActorKind::PriorGrids, "the kernels launched before this one");
  prior_sites_.resize(prior.sites.size(), 0);
}

void HappensBefore::seed_prior_grids(Shadow& shadow, uint64_t first) {
  if (!enabled_ || !prior_) return;
  const auto runs = prior_->allocations.find(first);
  if (runs == prior_->allocations.end()) return;
  for (const PriorGridAccesses::Run& run : runs->second) {
    uint32_t& site_id = prior_sites_[run.site];
    if (site_id == 0) site_id = site(&prior_->sites[run.site].loc, prior_->sites[run.site].operation);
    Access access{.epoch = {prior_grids_, 1}, .site = site_id};
    std::vector<Access>* slots = run.write ? &shadow.write : &shadow.read[0];
    if (run.atomic) {
      shadow.size_atomics();
      access.atomic = run.atomic;
      access.atomic_write = run.write;
      slots = &shadow.atomic[0];
    }
    const int64_t end = std::min<int64_t>(run.end, int64_t(shadow.write.size()));
    for (int64_t byte = run.begin; byte < end; ++byte) (*slots)[size_t(byte)] = access;
  }
}

void HappensBefore::grid_dependency_wait(int64_t block) {
  if (enabled_) waiting_blocks_.insert(block);
}

void HappensBefore::launch_dependents(int64_t block, const VectorClock& clock) {
  if (enabled_ && (prior_grids_ == 0 || clock[prior_grids_] == 0)) early_blocks_.insert(block);
}

void HappensBefore::untracked_global_access(uint64_t address, int64_t n, bool write, const VectorClock& clock,
                                            Access at) {
  if (!enabled_) return;
  untracked_.push_back(UntrackedAccess{address, n, write, at.site, at.epoch});
  uint64_t first = 0;
  size_t bytes = 0;
  const auto memory = [&](int64_t byte) { return global_byte_name(bytes)(byte); };  // `bytes` is found below
  // A TMA store into an allocation that a read-only view's load read: non_coherent_read found the
  // stores before it in untracked_. Bytes past the allocation are the store's landing to report.
  if (write && non_coherent_reads_ && allocation_containing(address, &first, &bytes))
    if (const auto it = globals_.find(first); it != globals_.end() && !it->second.non_coherent_read.empty()) {
      const int64_t begin = int64_t(address - first), end = std::min(begin + n, int64_t(bytes));
      check_not_read_only(it->second, begin, int(end - begin), at, memory);
      std::fill(it->second.tma_write.begin() + begin, it->second.tma_write.begin() + end, at);
    }
  if (!prior_ || clock[prior_grids_] >= 1) return;
  Shadow& shadow = global_shadow(address, &first, &bytes);
  const auto conflicts = [&](const Access& a) { return a.epoch.actor == prior_grids_ && (write || a.atomic_write); };
  const int64_t end = std::min(int64_t(address - first) + n, int64_t(bytes));
  for (int64_t byte = int64_t(address - first); byte < end; ++byte) {
    const Access& written = shadow.write[size_t(byte)];
    if (written.epoch.actor == prior_grids_) report(written, at, memory(byte), clock);
    if (write)
      for (const auto* reads : {&shadow.read[0], &shadow.read[1]})
        if ((*reads)[size_t(byte)].epoch.actor == prior_grids_) report((*reads)[size_t(byte)], at, memory(byte), clock);
    if (!shadow.atomic[0].empty())
      for (const auto* atomics : {&shadow.atomic[0], &shadow.atomic[1]})
        if (conflicts((*atomics)[size_t(byte)])) report((*atomics)[size_t(byte)], at, memory(byte), clock);
  }
}

void HappensBefore::check_after_multicast_reads(Shadow& shadow, int64_t begin, int n, const VectorClock& clock,
                                                const Access& at, const std::function<std::string(int64_t)>& memory,
                                                uint32_t waiter) const {
  if (shadow.multicast_reads.empty()) return;
  const int64_t end = begin + n;
  auto it = shadow.multicast_reads.lower_bound(begin - shadow.longest_multicast_read);
  for (; it != shadow.multicast_reads.end() && it->first < end; ++it) {
    const auto& [first, read] = *it;
    if (read.end > begin &&
        std::none_of(read.phases->begin(), read.phases->end(), [&](Epoch e) { return clock.covers(e); }))
      report(Access{.epoch = read.phases->front(), .site = read.site}, at, memory(std::max(begin, first)), clock,
             waiter);
  }
}

void HappensBefore::async_global_access(uint64_t address, int64_t n, bool write, const VectorClock& issuer, Access at,
                                        uint32_t issuer_warp, std::span<const Epoch> other_phases) {
  if (!enabled_) return;
  // A multicast's phases, shared by the records of its runs.
  std::shared_ptr<const std::vector<Epoch>> phases;
  if (!other_phases.empty()) {
    auto all = std::make_shared<std::vector<Epoch>>(1, at.epoch);
    all->insert(all->end(), other_phases.begin(), other_phases.end());
    phases = std::move(all);
  }
  // A run may span neighbouring allocations (a bulk copy is not clipped to its view): each has its shadow.
  while (n > 0) {
    uint64_t first = 0;
    size_t bytes = 0;
    Shadow& shadow = global_shadow(address, &first, &bytes);
    const auto memory = global_byte_name(bytes);
    const int64_t begin = int64_t(address - first), end = std::min(begin + n, int64_t(bytes));
    // A load reads through the async proxy, so what the generic proxy wrote must have been fenced;
    // access() then keeps the read (its check of the writes repeats check_async_read's).
    if (!write) check_async_read(shadow, begin, int(end - begin), issuer, at, memory, global_memory, issuer_warp);
    if (!phases) {
      access(shadow, begin, int(end - begin), write, issuer, at, memory, nullptr, nullptr, issuer_warp);
    } else {
      shadow.multicast_reads.emplace(begin, Shadow::MulticastRead{end, phases, at.site});
      shadow.longest_multicast_read = std::max(shadow.longest_multicast_read, end - begin);
    }
    address += uint64_t(end - begin);
    n -= end - begin;
  }
}

PriorGridAccesses HappensBefore::recorded_accesses(std::string_view kernel) const {
  PriorGridAccesses record;
  if (!enabled_) {
    // Whether this launch let the next one start before its wait is not followed either: the
    // kernels before it that left no record may still run beside the next.
    if (prior_) record.unrecorded = prior_->unrecorded;
    record.unrecorded.push_back(std::string(kernel));
    return record;
  }
  // The record's site of each of this launch's sites, made on first use; the prior grids' sites
  // already name their kernels.
  std::map<uint32_t, uint32_t> sites;
  const auto site_of = [&](uint32_t site, bool prior) {
    auto [it, fresh] = sites.try_emplace(site, uint32_t(record.sites.size()));
    if (fresh) {
      const Site& s = sites_[site];
      record.sites.push_back({s.loc ? *s.loc : SourceLoc{},
                              prior ? std::string(s.operation) : fmt::format("{} of kernel {}", s.operation, kernel)});
    }
    return it->second;
  };
  // The kernels before still overlap the next launch only if this one let it start before its own
  // wait: every block that waits triggered launch_dependents before it (a block that never waits
  // may end at any time, which lets the next launch start as a trigger does).
  const bool passes_on_prior = prior_ && std::all_of(waiting_blocks_.begin(), waiting_blocks_.end(),
                                                     [&](int64_t block) { return early_blocks_.contains(block); });
  if (passes_on_prior) record.unrecorded = prior_->unrecorded;
  for (const auto& [first, shadow] : globals_) {
    std::vector<PriorGridAccesses::Run>& runs = record.allocations[first];
    // One kind of access at a time, so that neighbouring bytes' accesses merge into runs.
    const auto add_all = [&](const std::vector<Access>& accesses, bool writes) {
      for (size_t byte = 0; byte < accesses.size(); ++byte) {
        const Access& a = accesses[byte];
        if (a.epoch.clock == 0 || a.epoch.actor == 0) continue;  // nothing, or the host's
        const bool prior = prior_grids_ != 0 && a.epoch.actor == prior_grids_;
        if (prior && !passes_on_prior) continue;
        PriorGridAccesses::append(runs, {int64_t(byte), int64_t(byte) + 1, site_of(a.site, prior),
                                         a.atomic ? a.atomic_write : writes, a.atomic});
      }
    };
    add_all(shadow.write, true);
    add_all(shadow.read[0], false);
    add_all(shadow.read[1], false);
    add_all(shadow.atomic[0], true);
    add_all(shadow.atomic[1], true);
  }
  // A TMA copy that landed is in the shadows too; its record as issued stays for the copies that
  // never landed (a launch that failed), and names the same site.
  for (const UntrackedAccess& u : untracked_) {
    uint64_t first = 0;
    size_t bytes = 0;
    if (!allocation_containing(u.address, &first, &bytes)) continue;
    const int64_t begin = int64_t(u.address - first);
    PriorGridAccesses::append(record.allocations[first], {begin, begin + u.n, site_of(u.site, false), u.write});
  }
  // The prior grids' accesses of memory this launch did not touch.
  if (passes_on_prior) {
    std::vector<uint32_t> carried(prior_->sites.size(), ~0u);  // record site by prior site
    for (const auto& [first, runs] : prior_->allocations) {
      if (globals_.contains(first)) continue;
      for (PriorGridAccesses::Run run : runs) {
        uint32_t& site = carried[run.site];
        if (site == ~0u) {
          site = uint32_t(record.sites.size());
          record.sites.push_back(prior_->sites[run.site]);
        }
        run.site = site;
        PriorGridAccesses::append(record.allocations[first], run);
      }
    }
  }
  return record;
}

}  // namespace tessel::sim
