// Race detection: happens-before between the warps of a simulated launch and the asynchronous work
// they observe, with vector clocks, and shadow memory that reports two accesses of one byte that
// nothing orders, one of them a write (DJIT+/FastTrack style).
//
// Actors are the warps, each mbarrier (its clock counts completed phases), each warp's cp.async
// groups and the bulk groups of each thread that issues TMA stores (the clocks count retired
// groups). Orderings:
//  - sync(), named barriers and cluster.sync(): every participant acquires what all released;
//  - an mbarrier arrival releases the arriving warp's clock (a tcgen05.commit the committing
//    warp's), a completed phase publishes all of them plus the phase, and a wait acquires them;
//  - an asynchronous write (a TMA load, a try_cancel response) lands as an access of the phase of
//    the barrier it completes bytes on, or of the cp.async group its copy belongs to, so only a
//    warp that waited for that phase or group (or is ordered after one that did) may touch it;
//  - a TMA copy's global bytes are accessed when it completes, as its issuing warp stood: a load's
//    read as an access of the phase it completes bytes on, a store's write as an access of its
//    thread's bulk group, which a wait_group that is not `read` retires;
//  - an asynchronous read (a TMA store's source, wgmma and tcgen05 operands) happens as its issuing
//    warp stands: what it reads must have been written before, in happens-before; and what the
//    generic proxy wrote (stores, cp.async) must have passed a proxy fence on the way (one by the
//    writer after the write, by the reader after acquiring it, or by any warp in between);
//  - atomics (PTX memory model): two atomics never race when each one's scope includes the other's
//    thread (they are "morally strong"); a release (or a read-modify-write after it, continuing its
//    release sequence) publishes its warp's clock with the write, and an acquire that reads the write
//    acquires what every release it is morally strong with published; a load reads any write that
//    coherence order lets it (an older one than the newest where nothing ordered before the load
//    wrote or read a newer one);
//  - memory fences (the model's release and acquire patterns): a strong write after a fence
//    publishes the warp's clock as it stood at the fence; what a strong read saw published is
//    acquired at the warp's next fence whose scope includes the releasing warp; fence.sc fences
//    acquire what every morally strong fence.sc executed before them released.
// Shared memory is shadowed per block, global memory per allocation, byte by byte.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "prior_grids.hpp"
#include "tessel/error.hpp"
#include "tessel/ir/ir.hpp"

namespace tessel::sim {

using Clock = uint32_t;

// A point in an actor's history; clock 0 names none.
struct Epoch {
  uint32_t actor = 0;
  Clock clock = 0;
};

class VectorClock {
 public:
  Clock operator[](uint32_t actor) const { return actor < clocks_.size() ? clocks_[actor] : 0; }
  void raise(uint32_t actor, Clock c);  // to at least c
  void join(const VectorClock& other);
  bool covers(Epoch e) const { return (*this)[e.actor] >= e.clock; }

 private:
  std::vector<Clock> clocks_;
};

// An access as shadow memory remembers it.
struct Access {
  Epoch epoch;
  uint32_t site = 0;         // HappensBefore::site
  bool generic : 1 = false;  // a write through the generic proxy (a store, cp.async)
  // An atomic's: whether it writes, and whom its scope includes (ir::MemoryScope).
  bool atomic_write : 1 = false;
  std::optional<ir::MemoryScope> atomic = std::nullopt;
  // An access its actor's clock does not order against the actor's other accesses: a TMA store's
  // write (only a wait that retires its bulk group orders it against its thread's other TMA stores),
  // and an asynchronous write's landing (the copies of one mbarrier phase or cp.async group land in
  // any order).
  bool unordered_in_actor : 1 = false;
  // A packed element stored alone, which the generated code writes with atomics on its word: the
  // bits of the byte it writes (0 for any other access).
  uint8_t packed_bits = 0;
};

// Where an atomic synchronizes: a global address (block -1), or a byte of a block's shared memory.
struct SyncLocation {
  int64_t block;
  uint64_t address;
  auto operator<=>(const SyncLocation&) const = default;
};

// The accesses of a region of memory, per byte: the last write, a replica of it (the same
// instruction in another warp writing the same value, as the warps holding replicas of a register
// tile do), up to two reads that no later read is ordered after, and as many atomics since the
// last write (sized on the first atomic access, so memory no atomic touches costs nothing more).
// For global memory also what a read through a read-only view (ld.global.nc) checks, since nothing
// may write what it reads while the kernel runs: the first such read, the last atomic that wrote
// (sized with the atomics, which reads displace from their slots) and, once there is such a read,
// the TMA stores (sized then).
struct Shadow {
  std::vector<Access> write, replica, read[2], atomic[2];
  std::vector<Access> non_coherent_read, atomic_write, tma_write;
  // For global memory, the reads of TMA loads multicast to several blocks, by first byte: each is
  // observed by the phase it completes in any of them, so a later write must follow one of those
  // phases. (A write that follows one does not retire it: a replica of that write need not follow.)
  struct MulticastRead {
    int64_t end;  // one past the last byte read
    std::shared_ptr<const std::vector<Epoch>> phases;
    uint32_t site;
  };
  std::multimap<int64_t, MulticastRead> multicast_reads;
  int64_t longest_multicast_read = 0;
  void resize(size_t bytes);
  void size_atomics();  // on the first atomic access
};

// How messages name a byte of a global allocation of `bytes` bytes.
inline auto global_byte_name(size_t bytes) {
  return [bytes](int64_t byte) { return fmt::format("global memory, byte {} of a {}-byte allocation", byte, bytes); };
}

class HappensBefore {
 public:
  // Disabled, it records and checks nothing.
  explicit HappensBefore(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  // PriorGrids: the kernels launched before this one, which a kernel that waits for them
  // (grid_dependency.wait()) may overlap until its wait (prior_grids.hpp).
  enum class ActorKind { Warp, Mbarrier, CopyGroups, BulkGroups, PriorGrids };
  // A new actor; `name` describes it in messages ("warp 2 of block (0, 0, 0)"). The cp.async
  // groups of a warp, and the bulk groups of its threads, name the warp as their `owner`.
  uint32_t add_actor(ActorKind kind, std::string name, uint32_t owner = 0);
  // Where a warp actor runs, for the scopes of its atomics: its block's and its cluster's linear
  // indices in the grid.
  void place(uint32_t warp, int64_t block, int64_t cluster);
  // Warp `warp`, whose clock is `clock`, executes fence.proxy_async of `space`: the generic writes
  // ordered before it (its own, the cp.async groups it retired, and what it acquired) to the memory
  // of that space (shared memory for the shared spaces, of its block for shared_cta and of its
  // cluster for shared_cluster; global memory for the global one; every space for all) are visible
  // to the async reads ordered after it.
  void fence_proxy(uint32_t warp, const VectorClock& clock, ir::ProxyFenceSpace space);
  // The interned (line, operation) of an access, for messages.
  uint32_t site(const SourceLoc* loc, std::string_view operation);
  // Marks the accesses of (loc, operation) as those of a tile whose layout keeps a copy of each
  // element in `warps` warps, each loaded or stored by its own warp: a race between two of them
  // then names the copies as its cause.
  void note_copies(const SourceLoc* loc, std::string_view operation, int warps);
  // Marks the accesses of (loc, operation) as those of a packed view, which atomics do not take: a
  // race between blocks then names the remedies that remain.
  void note_packed(const SourceLoc* loc, std::string_view operation);

  // A wait at `at` that saw a phase complete and acquired less than it published to the cluster:
  // a relaxed wait (nothing), or one of cta scope (nothing other blocks released or landed).
  struct WeakWait {
    const SourceLoc* at;
    Clock warp_clock;  // the waiting warp's own clock when it passed the wait (its latest pass)
    bool relaxed;
    // A wait of the cluster barrier after a relaxed arrival, which the message names, and whether
    // it was a cluster.sync() rather than a cluster.wait().
    const SourceLoc* relaxed_arrival = nullptr;
    bool cluster_sync = false;
  };
  // Warp `warp` passed such a wait, which missed (some of) `published`; a race that an acquiring
  // wait of cluster scope would have ordered names that wait.
  void weak_wait(uint32_t warp, const VectorClock& published, WeakWait wait);

  // An access of bytes [begin, begin + n) of `shadow` at `at`, by an actor whose clock is `clock`:
  // throws, at the line of `at`'s site, when an earlier access that nothing orders before this one
  // conflicts with it (one of them writes). A write passes `incoming`, the bytes it writes, and
  // `current`, the bytes there now: a replica's write of the same value is no conflict.
  // `memory(byte)` names a byte in messages.
  // `issuer`: for an asynchronous write's landing, the warp that issued it, whose waits a report
  // names (the accessing actor's otherwise).
  void access(Shadow& shadow, int64_t begin, int n, bool write, const VectorClock& clock, Access at,
              const std::function<std::string(int64_t)>& memory, const uint8_t* incoming = nullptr,
              const uint8_t* current = nullptr, uint32_t issuer = 0) const;
  // An atomic access (at.atomic set) of bytes [begin, begin + n): it races with a plain access that
  // nothing orders against it, and with an atomic that is not morally strong with it. A packed
  // element's store (at.packed_bits, one byte) passes `incoming` and `current` as access() does:
  // it also races with another such store, unordered, that wrote other values into the same bits
  // (which of the two values the byte keeps depends on their order).
  void atomic_access(Shadow& shadow, int64_t begin, int n, const VectorClock& clock, Access at,
                     const std::function<std::string(int64_t)>& memory, const uint8_t* incoming = nullptr,
                     const uint8_t* current = nullptr) const;
  // A packed element of `bits` bits stored alone from bit `shift` of byte `begin`, as the generated
  // code stores it: an atomic and-or of gpu scope on the bits of each byte it spans, through the
  // generic proxy. `incoming` and `current` are those bytes, as atomic_access takes them.
  void packed_store(Shadow& shadow, int64_t begin, int shift, int bits, const VectorClock& clock, Access at,
                    const std::function<std::string(int64_t)>& memory, const uint8_t* incoming,
                    const uint8_t* current) const;
  // The bits of an atomic's element (`bytes` wide) as memory holds them.
  struct AtomicBits {
    uint64_t bits;
    int bytes;
    bool written = true;  // false: shared bytes nothing has written yet
  };
  // A write an atomic read: its bits, and its place in its location's coherence order; `unwritten`:
  // the bytes as they were before the location's first atomic write, which nothing had written.
  struct ReadOfWrite {
    uint64_t bits;
    uint64_t write;
    bool unwritten = false;
  };
  // Which write an atomic load reads, of those in coherence order from `oldest` to `newest` that the
  // PTX model lets it read (the scheduler's choice, by the completion order).
  using PickWrite = std::function<uint64_t(uint64_t oldest, uint64_t newest)>;
  // An atomic's read at `location`, which holds `current`, by the warp whose clock is `clock`
  // (`at.atomic` its scope). A read-modify-write reads the newest write; a load (`pick` set) reads
  // one that no write or read ordered before it has superseded in coherence order, and, in a warp
  // that read the location before, a newer one than it read then, unless it is the newest; `same`:
  // the write another lane of the same instruction read, which this lane reads too. An acquire
  // acquires what every release of the write's release sequences published, where it is morally
  // strong with them; a relaxed read leaves that for the warp's next memory fence to acquire.
  // `observed`: the thread receives the value read, so a race report may name the write it read.
  ReadOfWrite atomic_read(SyncLocation location, AtomicBits current, VectorClock& clock, const Access& at, bool acquire,
                          bool observed, const PickWrite* pick, std::optional<uint64_t> same);
  // An atomic's write of `written` where memory held `before`: a release publishes `clock`, a
  // relaxed write what the warp's memory fences before it released. A store heads the location's
  // release sequences anew; a read-modify-write continues them (and heads one of its own when it
  // releases). A relaxed write with `recorded` (a scalar atomic's) is kept for race reports to name.
  // A relaxed read-modify-write that releases nothing, at a location no load or release has been
  // to, is not kept: a tile's reduction into many locations costs no history.
  void atomic_write(SyncLocation location, AtomicBits before, uint64_t written, const VectorClock& clock,
                    const Access& at, bool release, bool read_modify_write, bool recorded);
  // Warp `warp`, whose clock is `clock`, executes fence.acq_rel (or fence.sc with
  // `sequentially_consistent`) at `scope`: `clock` acquires, then the fence releases it.
  void memory_fence(uint32_t warp, VectorClock& clock, ir::MemoryScope scope, bool sequentially_consistent,
                    const SourceLoc* at);

  // A read of bytes [begin, begin + n) of the global allocation at `first` (`shadow`) through a
  // read-only view (ld.global.nc), beside its access(): throws when anything of this launch wrote
  // them, in whatever order; a write after it throws in access(), atomic_access() or
  // untracked_global_access().
  void non_coherent_read(Shadow& shadow, uint64_t first, int64_t begin, int n, Access at,
                         const std::function<std::string(int64_t)>& memory);

  // The memory an asynchronous read reads: the shared memory of a block (its linear index), or this.
  static constexpr int64_t global_memory = -1;
  // An asynchronous read of `space`, which leaves no trace: the bytes were written before it, and a
  // proxy fence of that memory lies between what the generic proxy wrote and it.
  // `waiter`: the warp whose weak waits a report names when it is not `at`'s (a copy's issuer).
  void check_async_read(const Shadow& shadow, int64_t begin, int n, const VectorClock& clock, Access at,
                        const std::function<std::string(int64_t)>& memory, int64_t space, uint32_t waiter = 0) const;
  // The same for the bytes `bytes` (a wgmma operand's, in the order the instruction reads them).
  void check_async_read(const Shadow& shadow, std::span<const int64_t> bytes, const VectorClock& clock, Access at,
                        const std::function<std::string(int64_t)>& memory, int64_t space) const;

  // Global memory: the shadow of the allocation that holds `address` (whose first byte is at
  // `*first`), made on first use, with the prior grids' accesses in it when the launch overlaps them.
  Shadow& global_shadow(uint64_t address, uint64_t* first, size_t* bytes);

  // The launch overlaps the kernels before it until grid_dependency.wait(): their accesses of global
  // memory become those of one more actor, whose clock 1 the wait acquires. `prior` must outlive
  // the launch.
  void overlap_prior_grids(const PriorGridAccesses& prior);
  // The actor overlap_prior_grids made; 0 when the launch overlaps no kernel.
  uint32_t prior_grids() const { return prior_grids_; }
  // A warp of block `block` executes grid_dependency.wait(), or launch_dependents() with `clock`:
  // whether every waiting block let the next launch start before its wait decides whether that
  // launch may still overlap the kernels before this one.
  void grid_dependency_wait(int64_t block);
  void launch_dependents(int64_t block, const VectorClock& clock);
  // An access of global memory that the shadows do not follow (a TMA copy's, whose bytes move when
  // the copy completes): checked against the prior grids' accesses by its issuing warp's `clock`,
  // and kept for the next launch's record.
  void untracked_global_access(uint64_t address, int64_t n, bool write, const VectorClock& clock, Access at);
  // A TMA copy's access of global bytes [address, address + n) as the copy completes: checked
  // against this launch's accesses as its issuing warp stood (`issuer`), and kept as `at`, the
  // phase or bulk group that observes it. A multicast load's read passes the phases it completes in
  // the other blocks it reaches, `other_phases`: any of them observes it. `issuer_warp` is the
  // issuing warp, whose weak waits a report names.
  void async_global_access(uint64_t address, int64_t n, bool write, const VectorClock& issuer, Access at,
                           uint32_t issuer_warp, std::span<const Epoch> other_phases = {});
  // What this launch of `kernel` (and, when it overlapped them, the kernels before it) did to global
  // memory: what the next launch overlaps if it is a programmatic dependent.
  PriorGridAccesses recorded_accesses(std::string_view kernel) const;

 private:
  struct Actor {
    ActorKind kind;
    std::string name;
    uint32_t owner;  // the warp of a warp's cp.async groups; the actor itself otherwise
    int64_t block = -1, cluster = -1;
  };
  // Whether `scope`, taken by actor `a`, includes actor `b`'s thread.
  bool includes(ir::MemoryScope scope, uint32_t a, uint32_t b) const;
  bool morally_strong(const Access& x, const Access& y) const;
  [[noreturn]] void report_weak_atomics(const Access& earlier, const Access& later, const std::string& memory) const;
  struct Release {
    VectorClock clock;
    uint32_t warp;
    ir::MemoryScope scope;
  };
  // Joins a release of `clock` by `warp` at `scope` into `sequences`.
  static void release(std::vector<Release>& sequences, const VectorClock& clock, uint32_t warp, ir::MemoryScope scope);
  // A warp's memory fences: by scope, the clock its latest fence of at least that scope released,
  // and what its relaxed reads saw released that no fence has acquired yet.
  struct Unacquired {
    Release release;
    Epoch read;  // the latest such read
    uint32_t read_site;
    // A fence after the read whose scope left out the releasing warp, with that scope.
    const SourceLoc* narrow_fence = nullptr;
    ir::MemoryScope narrow_scope = ir::MemoryScope::Cta;
  };
  struct FenceState {
    std::vector<VectorClock> released_by_scope;
    std::vector<Unacquired> unacquired;
  };
  std::map<uint32_t, FenceState> memory_fences_;  // by warp actor
  std::vector<Release> sc_fences_;                // one per warp and scope, joined
  // For race reports: a relaxed write, with its writer's clock, and the relaxed writes that atomics
  // read, with the latest such read.
  struct RelaxedWrite {
    VectorClock clock;
    uint32_t warp;
    uint32_t site;
  };
  // The writes of a location that atomics wrote in this launch, in coherence order, as far back as a
  // load may still read (coherence.cpp).
  struct CoherentWrite {
    uint64_t bits;
    Epoch epoch;                 // the writer's access; none for what the location held before
    std::vector<Epoch> readers;  // each warp's first read of it
    // Its own releases, and whether it continues the release sequences of the writes before it (a
    // read-modify-write) or ends them (a store, or the value before). What an acquire that reads it
    // acquires is the releases of the writes from the last that ends them up to it.
    std::vector<Release> releases;
    bool continues = false;
    std::optional<RelaxedWrite> relaxed;  // a relaxed write, kept for race reports to name
    bool unwritten = false;               // the bytes before the first atomic write, never written
  };
  struct AtomicLocation {
    int bytes = 0;
    uint64_t first = 0;  // the place in coherence order of writes.front()
    std::deque<CoherentWrite> writes;
    // The releases of the sequences that writes.front() continues, of the writes dropped before it.
    std::vector<Release> continued;
    std::map<uint32_t, uint64_t> last_read;  // by warp: the newest write it read
    uint64_t newest() const { return first + writes.size() - 1; }
    CoherentWrite& at(uint64_t write) { return writes[size_t(write - first)]; }
  };
  std::map<SyncLocation, AtomicLocation> atomic_locations_;
  // The location's writes, begun anew with the value memory holds, `current`, when memory no longer
  // holds the newest write's (a plain store, a copy wrote it since) or the access is of another width.
  AtomicLocation& atomic_location(SyncLocation location, AtomicBits current);
  // The location's writes where it has them and they are still what memory holds; null otherwise.
  AtomicLocation* tracked_location(SyncLocation location, AtomicBits current);
  // The oldest write a load by `warp`, whose clock is `clock`, may read: the newest that a write or
  // a read ordered before the load wrote or read.
  uint64_t oldest_readable(AtomicLocation& l, uint32_t warp, const VectorClock& clock) const;
  struct ReadOfRelaxedWrite {
    RelaxedWrite write;
    Epoch read;
    uint32_t read_site;
  };
  std::vector<ReadOfRelaxedWrite> reads_of_relaxed_writes_;
  struct Fence {
    VectorClock clock;  // the fencing warp's
    // The memories whose writes it makes visible to the async proxy: global memory; the shared
    // memory of the fencing warp's block, or of every block of its cluster.
    bool global, shared_cta, shared_cluster;
  };
  // Whether fence `f` by warp actor `warp` makes writes to `space` visible to the async proxy.
  bool fence_covers(const Fence& f, uint32_t warp, int64_t space) const;
  // Whether a proxy fence of `space` lies on a path from `write` to a read by `reader` (the PTX
  // model's proxy-preserved base causality order): by the writer after the write, by the reader
  // after it acquired the write, or by any warp between them.
  bool fenced(const Access& write, const VectorClock& reader, int64_t space) const;
  template <class Bytes> void check_async_reads(const Shadow& shadow, const Bytes& bytes, const VectorClock& clock,
                                                Access at, const std::function<std::string(int64_t)>& memory,
                                                int64_t space, uint32_t waiter) const;
  [[noreturn]] void report_unfenced(const Access& write, const Access& read, const std::string& memory,
                                    int64_t space) const;
  // A write of this launch (not of the kernels before it) of bytes a read-only view's load read;
  // `read_first`: the read came first, so the write is the access at fault.
  bool written_in_launch(const Access& a) const;
  [[noreturn]] void report_read_only(const Access& write, const Access& read, bool read_first,
                                     const std::string& memory) const;
  // Throws when `at`, a write of [begin, begin + n) by an actor whose clock is `clock`, follows none
  // of the phases that observe a multicast load's read of one of its bytes.
  void check_after_multicast_reads(Shadow& shadow, int64_t begin, int n, const VectorClock& clock, const Access& at,
                                   const std::function<std::string(int64_t)>& memory, uint32_t waiter) const;
  // Throws when `at`, a write of [begin, begin + n), writes a byte a read-only view's load read.
  void check_not_read_only(const Shadow& shadow, int64_t begin, int n, const Access& at,
                           const std::function<std::string(int64_t)>& memory) const;
  struct Site {
    const SourceLoc* loc;
    std::string_view operation;
    int copies_in_warps = 1;  // note_copies
    bool packed = false;      // note_packed
  };
  // Whether `earlier` is an access by another actor (or, for `at` unordered_in_actor, by the same)
  // that `clock` is not ordered after.
  static bool unordered(const Access& earlier, const Access& at, const VectorClock& clock) {
    return earlier.epoch.clock != 0 && (earlier.epoch.actor != at.epoch.actor || at.unordered_in_actor) &&
           !clock.covers(earlier.epoch);
  }
  // "the store_shared at k.cpp:12 by warp 0 of block (0, 0, 0)"
  std::string describe(const Access& a) const;
  // `clock` is the clock of `later`'s actor.
  // `waiter`: the warp whose weak waits may have missed the ordering, when not `later`'s actor.
  [[noreturn]] void report(const Access& earlier, const Access& later, const std::string& memory,
                           const VectorClock& clock, uint32_t waiter = 0) const;
  // How to order `earlier` before `later`: the weak wait of `later`'s warp that saw it published,
  // or the ways to order accesses.
  std::string remedy(const Access& earlier, const Access& later, const VectorClock& clock, uint32_t waiter) const;

  bool enabled_;
  std::vector<Actor> actors_ = {{ActorKind::Warp, "nobody", 0}};  // actor 0: host writes, before every launch
  std::map<uint32_t, std::vector<Fence>> fences_;                 // proxy fences by warp actor, in program order
  // By warp actor, then by the wait's line and the relaxed arrival it names (if any): what its weak
  // waits saw published.
  std::map<uint32_t, std::map<std::pair<const SourceLoc*, const SourceLoc*>, std::pair<WeakWait, VectorClock>>>
      weak_waits_;
  std::vector<Site> sites_ = {{nullptr, "host write"}};
  std::map<std::pair<const SourceLoc*, const char*>, uint32_t> site_ids_;
  const PriorGridAccesses* prior_ = nullptr;
  uint32_t prior_grids_ = 0;
  std::vector<uint32_t> prior_sites_;  // by the prior record's site
  std::set<int64_t> waiting_blocks_, early_blocks_;
  // Seeds a new shadow of the allocation at `first` with the prior grids' accesses.
  void seed_prior_grids(Shadow& shadow, uint64_t first);
  struct UntrackedAccess {
    uint64_t address;
    int64_t n;
    bool write;
    uint32_t site;
    Epoch epoch;
  };
  std::vector<UntrackedAccess> untracked_;
  bool non_coherent_reads_ = false;     // whether a read through a read-only view happened
  std::map<uint64_t, Shadow> globals_;  // by first byte of the allocation
  uint64_t last_global_first_ = 0;      // the allocation of the last global access
  Shadow* last_global_ = nullptr;
};

}  // namespace tessel::sim
