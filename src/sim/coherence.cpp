// The coherence order of the locations atomics write, and what an atomic that reads there reads and
// acquires (PTX ISA, "Memory Consistency Model": coherence order, release sequences,
// synchronizes-with). A read-modify-write reads the newest write of its location; a load may read an
// older one, as long as nothing ordered before it (in happens-before) wrote or read a newer one.
#include <algorithm>

#include "happens_before.hpp"

namespace tessel::sim {

namespace {

// The writes of a location kept besides its newest, for loads to read. The PTX model bounds nothing;
// the bound keeps memory in check, and only narrows what a run may show.
constexpr size_t kept_writes = 8;

// Calls `f` with each release an acquire that reads write `write` of `l` acquires: the releases of
// the writes from the last one that ends the sequences before it up to it, and, where every kept
// write before it continues them, those of the writes dropped before the first.
template <class Location, class F> void for_each_release(const Location& l, uint64_t write, F f) {
  uint64_t head = write;
  while (head > l.first && l.writes[size_t(head - l.first)].continues) --head;
  if (head == l.first && l.writes.front().continues)
    for (const auto& r : l.continued) f(r);
  for (uint64_t w = head; w <= write; ++w)
    for (const auto& r : l.writes[size_t(w - l.first)].releases) f(r);
}

}  // namespace

void HappensBefore::release(std::vector<Release>& sequences, const VectorClock& clock, uint32_t warp,
                            ir::MemoryScope scope) {
  for (Release& r : sequences)
    if (r.warp == warp && r.scope == scope) {
      r.clock.join(clock);
      return;
    }
  sequences.push_back(Release{clock, warp, scope});
}

HappensBefore::AtomicLocation& HappensBefore::atomic_location(SyncLocation location, AtomicBits current) {
  AtomicLocation& l = atomic_locations_[location];
  if (l.writes.empty() || l.bytes != current.bytes || l.writes.back().bits != current.bits) {
    l.first = l.writes.empty() ? 0 : l.newest() + 1;
    l.bytes = current.bytes;
    l.continued.clear();
    // What memory holds was written by a plain access or before the launch: whatever reads it now is
    // ordered after that write, or races with it. Shared bytes nothing wrote are marked, for a load
    // that reads them to report.
    CoherentWrite before{current.bits, Epoch{}};
    before.unwritten = !current.written;
    l.writes.assign(1, std::move(before));
  }
  return l;
}

HappensBefore::AtomicLocation* HappensBefore::tracked_location(SyncLocation location, AtomicBits current) {
  const auto it = atomic_locations_.find(location);
  return it == atomic_locations_.end() ? nullptr : &atomic_location(location, current);
}

uint64_t HappensBefore::oldest_readable(AtomicLocation& l, uint32_t warp, const VectorClock& clock) const {
  uint64_t oldest = l.first;
  for (uint64_t w = l.newest(); w > l.first; --w) {
    const CoherentWrite& write = l.at(w);
    if (clock.covers(write.epoch) || std::ranges::any_of(write.readers, [&](Epoch r) { return clock.covers(r); })) {
      oldest = w;
      break;
    }
  }
  // A warp that polls sees the location move on: each of its reads a newer write than the last.
  if (const auto last = l.last_read.find(warp); last != l.last_read.end())
    oldest = std::max(oldest, std::min(last->second + 1, l.newest()));
  return oldest;
}

HappensBefore::ReadOfWrite HappensBefore::atomic_read(SyncLocation location, AtomicBits current, VectorClock& clock,
                                                      const Access& at, bool acquire, bool observed,
                                                      const PickWrite* pick, std::optional<uint64_t> same) {
  if (!enabled_) return {current.bits, 0};
  // A read-modify-write of a location without history reads what memory holds, which released nothing.
  AtomicLocation* const tracked = pick ? &atomic_location(location, current) : tracked_location(location, current);
  if (!tracked) return {current.bits, 0};
  AtomicLocation& l = *tracked;
  const uint32_t warp = at.epoch.actor;
  const ir::MemoryScope scope = *at.atomic;
  uint64_t read = l.newest();
  if (same && *same >= l.first && *same <= l.newest()) {
    read = *same;
  } else if (pick) {
    const uint64_t oldest = oldest_readable(l, warp, clock);
    read = std::clamp((*pick)(oldest, l.newest()), oldest, l.newest());
  }
  const auto last = l.last_read.try_emplace(warp, read).first;
  last->second = std::max(last->second, read);
  CoherentWrite& write = l.at(read);
  if (std::ranges::none_of(write.readers, [&](Epoch r) { return r.actor == warp; })) write.readers.push_back(at.epoch);

  if (observed && write.relaxed && write.relaxed->warp != warp) {
    const RelaxedWrite& w = *write.relaxed;
    const auto same_read =
        std::find_if(reads_of_relaxed_writes_.begin(), reads_of_relaxed_writes_.end(), [&](const auto& r) {
          return r.write.site == w.site && r.write.warp == w.warp && r.read_site == at.site && r.read.actor == warp;
        });
    if (same_read != reads_of_relaxed_writes_.end()) {
      same_read->write.clock.join(w.clock);
      same_read->read = at.epoch;
    } else {
      reads_of_relaxed_writes_.push_back(ReadOfRelaxedWrite{w, at.epoch, at.site});
    }
  }
  for_each_release(l, read, [&](const Release& r) {
    if (!includes(r.scope, r.warp, warp) || !includes(scope, warp, r.warp)) return;
    if (acquire) {
      clock.join(r.clock);
      return;
    }
    std::vector<Unacquired>& unacquired = memory_fences_[warp].unacquired;
    const auto same_release = std::find_if(unacquired.begin(), unacquired.end(), [&](const Unacquired& u) {
      return u.read_site == at.site && u.release.warp == r.warp && u.release.scope == r.scope;
    });
    if (same_release != unacquired.end()) {
      same_release->release.clock.join(r.clock);
      same_release->read = at.epoch;
    } else {
      unacquired.push_back(Unacquired{r, at.epoch, at.site});
    }
  });
  return {write.bits, read, write.unwritten};
}

void HappensBefore::atomic_write(SyncLocation location, AtomicBits before, uint64_t written, const VectorClock& clock,
                                 const Access& at, bool release, bool read_modify_write, bool recorded) {
  if (!enabled_) return;
  const uint32_t warp = at.epoch.actor;
  const ir::MemoryScope scope = *at.atomic;
  CoherentWrite w{written, at.epoch};
  w.continues = read_modify_write;
  if (release) {
    this->release(w.releases, clock, warp, scope);
  } else {
    if (recorded) w.relaxed = RelaxedWrite{clock, warp, at.site};
    // The release pattern's scope is the narrower of the fence's and the write's: each must include
    // the acquiring thread.
    if (const auto fences = memory_fences_.find(warp); fences != memory_fences_.end()) {
      const std::vector<VectorClock>& released = fences->second.released_by_scope;
      for (size_t s = 0; s < released.size(); ++s)
        this->release(w.releases, released[s], warp, std::min(ir::MemoryScope(s), scope));
    }
  }
  AtomicLocation* const tracked = recorded || !w.releases.empty() || !read_modify_write
                                      ? &atomic_location(location, before)
                                      : tracked_location(location, before);
  if (!tracked) return;
  AtomicLocation& l = *tracked;
  l.writes.push_back(std::move(w));
  if (l.writes.size() > kept_writes + 1) {
    // The new first write's sequences go on from the dropped one's, or begin at it.
    if (l.writes[1].continues) {
      if (!l.writes[0].continues) l.continued.clear();
      for (const Release& r : l.writes[0].releases) this->release(l.continued, r.clock, r.warp, r.scope);
    } else {
      l.continued.clear();
    }
    l.writes.pop_front();
    ++l.first;
  }
}

}  // namespace tessel::sim
