// Simulator semantics of the atomics. Each element's read-modify-write is indivisible: a warp runs
// its instruction lane by lane, slot by slot, with no other warp in between. Each access is
// checked as the PTX memory model orders it (happens_before.hpp): against plain accesses, and
// against atomics whose scope does not include this thread. Releases and acquires order the
// warps' clocks, and so do relaxed atomics through the memory fences around them; an atomic that
// reads lets the other warps run after it, so that a spin on a flag lets its writer go on.
#include <algorithm>
#include <cstring>

#include "machine.hpp"
#include "memory_access.hpp"
#include "unwritten_memory.hpp"

namespace tessel::sim {

namespace {

// The operation in race reports; static, since reports keep the text by address.
std::string_view operation_name(ir::AtomicOp op) {
  static constexpr std::string_view names[] = {
      "atomic add",  "atomic min",  "atomic max",      "atomic and",
      "atomic or",   "atomic xor",  "atomic exchange", "atomic compare_exchange",
      "atomic load", "atomic store"};
  return names[int(op)];
}

// The value the element holds after `op` found `old` there.
ir::Scalar updated(ir::AtomicOp op, DType t, ir::Scalar old, ir::Scalar value, ir::Scalar expected) {
  switch (op) {
    case ir::AtomicOp::Add: return ir::apply_binary(ir::BinaryOp::Add, t, old, value);
    case ir::AtomicOp::Min: return ir::apply_binary(ir::BinaryOp::Min, t, old, value);
    case ir::AtomicOp::Max: return ir::apply_binary(ir::BinaryOp::Max, t, old, value);
    case ir::AtomicOp::And: return ir::apply_binary(ir::BinaryOp::BitAnd, t, old, value);
    case ir::AtomicOp::Or: return ir::apply_binary(ir::BinaryOp::BitOr, t, old, value);
    case ir::AtomicOp::Xor: return ir::apply_binary(ir::BinaryOp::BitXor, t, old, value);
    // cas compares bit patterns (.b32, .b64), floats included.
    case ir::AtomicOp::CompareExchange: return ir::bits_of(t, old) == ir::bits_of(t, expected) ? value : old;
    case ir::AtomicOp::Exchange:
    case ir::AtomicOp::Store: return value;
    case ir::AtomicOp::Load: return old;
  }
  return old;
}

bool acquires(ir::MemoryOrder o) { return o == ir::MemoryOrder::Acquire || o == ir::MemoryOrder::AcqRel; }
bool releases(ir::MemoryOrder o) { return o == ir::MemoryOrder::Release || o == ir::MemoryOrder::AcqRel; }

// One atomic on one element, by one lane of `w`.
class ElementAtomic {
 public:
  // `observed`: the instruction returns the old values; `flag`: a scalar atomic, the kind that
  // hands data between threads, whose relaxed writes race reports may name.
  ElementAtomic(Warp& w, const ir::StmtNode& n, ir::AtomicOp op, ir::MemoryOrder order, ir::MemoryScope scope, DType t,
                bool observed, bool flag)
      : w_(w),
        n_(n),
        op_(op),
        order_(order),
        scope_(scope),
        t_(t),
        bytes_(dtype_bytes(t)),
        observed_value_(observed),
        flag_(flag) {}

  // The atomic on global memory at `address`; returns the old value.
  ir::Scalar global(uint64_t address, ir::Scalar value, ir::Scalar expected) {
    check_global_access(address, size_t(bytes_), ir::writes_memory(op_), n_.loc);
    atomic_global(w_, address, bytes_, access());
    void* p = reinterpret_cast<void*>(address);
    return apply(p, SyncLocation{-1, address}, value, expected);
  }

  // The atomic on the shared memory of `cta` (w's block, or another of its cluster) at `byte`, by
  // thread `thread`; returns the old value.
  ir::Scalar shared(Cta& cta, const SharedAddress& a, int thread, ir::Scalar value, ir::Scalar expected) {
    cta.check_not_in_flight(a.byte, bytes_, ir::writes_memory(op_), n_.loc, thread);
    if (ir::reads_memory(op_))
      check_shared_written(w_, cta, a, bytes_, thread, n_.loc, operation_name(op_),
                           fmt::format("the {}", operation_name(op_)));
    cta.scheduler.happens_before.atomic_access(cta.shadow, a.byte, bytes_, w_.clock, access(),
                                               [&](int64_t byte) { return cta.shared_byte_name(byte); });
    const bool written = std::all_of(cta.written.begin() + a.byte, cta.written.begin() + a.byte + bytes_,
                                     [](auto b) { return bool(b); });
    const ir::Scalar old =
        apply(&cta.smem[size_t(a.byte)], SyncLocation{cta.linear_block(), uint64_t(a.byte)}, value, expected, written);
    if (read_unwritten_)
      throw Error(n_.loc, fmt::format("atomic load of shared memory that was never written: the allocation at {}, "
                                      "byte {} of the allocation, read by thread {} of block {}; an atomic write to "
                                      "it is not ordered before this load, which may read what the bytes held "
                                      "before that write: order the write before the load (a sync(), an mbarrier "
                                      "handoff, or a release this load acquires)",
                                      a.allocation->loc.str(), a.byte - cta.shared_offsets.at(a.allocation), thread,
                                      cta.block_name()));
    if (ir::writes_memory(op_)) cta.mark_written(a.byte, bytes_, a.allocation);
    return old;
  }

  // What the lanes observed, for the scheduler's spin detection.
  uint64_t observed() const { return observed_; }
  bool wrote() const { return wrote_; }

 private:
  Access access() {
    Access at = w_.access(n_.loc, operation_name(op_));
    at.atomic = scope_;
    at.atomic_write = ir::writes_memory(op_);
    at.generic = at.atomic_write;  // the async proxy sees it only after a fence.proxy_async
    return at;
  }

  // `written`: the bytes hold what a write put there (shared memory starts unwritten).
  ir::Scalar apply(void* p, SyncLocation location, ir::Scalar value, ir::Scalar expected, bool written = true) {
    HappensBefore& hb = w_.cta.scheduler.happens_before;
    ir::Scalar old = load_value(t_, p);
    const HappensBefore::AtomicBits held{ir::bits_of(t_, old), bytes_, written};
    const Access at = hb.enabled() ? access() : Access{};
    if (hb.enabled() && ir::reads_memory(op_)) {
      // A load reads any write coherence lets it: an older one than memory holds, where nothing
      // ordered before it saw a newer one. The lanes of one instruction read one write of a location.
      const bool load = op_ == ir::AtomicOp::Load;
      const auto same = std::ranges::find(loaded_, location, &LoadedWrite::location);
      const HappensBefore::ReadOfWrite read =
          hb.atomic_read(location, held, w_.clock, at, acquires(order_), observed_value_, load ? &pick_ : nullptr,
                         same != loaded_.end() ? std::optional(same->write) : std::nullopt);
      if (load) {
        old = ir::from_bits(t_, read.bits);
        read_unwritten_ = read.unwritten;
        if (same == loaded_.end()) loaded_.push_back({location, read.write});
      }
    }
    if (ir::writes_memory(op_)) {
      const ir::Scalar next = updated(op_, t_, old, value, expected);
      store_value(t_, p, next);
      if (hb.enabled())
        hb.atomic_write(location, held, ir::bits_of(t_, next), w_.clock, at, releases(order_),
                        op_ != ir::AtomicOp::Store, flag_);
    }
    wrote_ = wrote_ || ir::writes_memory(op_);
    const auto address = reinterpret_cast<uint64_t>(p);
    observed_ = (observed_ * 1000003u) ^ address ^ (ir::bits_of(t_, old) * 0x9e3779b97f4a7c15ull);
    return old;
  }

  Warp& w_;
  const ir::StmtNode& n_;
  const ir::AtomicOp op_;
  const ir::MemoryOrder order_;
  const ir::MemoryScope scope_;
  const DType t_;
  const int bytes_;
  const bool observed_value_, flag_;
  uint64_t observed_ = 0;
  bool wrote_ = false;
  bool read_unwritten_ = false;  // the last load read the bytes from before any write
  const HappensBefore::PickWrite pick_ = [&s = w_.cta.scheduler](uint64_t oldest, uint64_t newest) {
    return s.pick_write(oldest, newest);
  };
  struct LoadedWrite {
    SyncLocation location;
    uint64_t write;
  };
  std::vector<LoadedWrite> loaded_;  // by this instruction's lanes
};

// After the instruction: later accesses of a warp that wrote are new to what the write released (or
// would have, for race reports); a warp that read lets the others run.
void finish(Warp& w, const ir::StmtNode& n, const ElementAtomic& atomic, bool reads) {
  if (atomic.wrote()) w.tick();
  if (reads) w.poll(n.loc, atomic.observed());
}

}  // namespace

void exec_AtomicScalar(Warp& w, const ir::AtomicScalarNode& n, Mask mask) {
  const DType t = n.global ? n.global->dtype : n.shared->dtype;
  const auto index = eval_all(w, n.index, mask);
  const Lanes value = n.value ? w.eval(n.value, mask) : Lanes{};
  const Lanes expected = n.compare ? w.eval(n.compare, mask) : Lanes{};
  Lanes old{};
  ElementAtomic atomic(w, n, n.op, n.order, n.scope, t, bool(n.result), true);
  if (n.global) {
    const GlobalViewLanes view(w, n.global, mask);
    const std::vector<int> origin(size_t(n.global->rank()), 0);
    for (int lane = 0; lane < 32; ++lane) {
      if (!(mask >> lane & 1)) continue;
      const auto address = view.address(lane, origin.data(), index);
      if (!address)
        for (int d = 0; d < n.global->rank(); ++d) {
          const int64_t at = index[size_t(d)][lane].i;
          if (at < 0 || at >= view.extent(d, lane)) {
            std::vector<int64_t> position;
            for (const Lanes& i : index) position.push_back(i[lane].i);
            throw Error(n.loc, fmt::format("atomic {} at index [{}], outside the global view's extent {} in dimension "
                                           "{} (thread {} of block {})",
                                           ir::atomic_op_name(n.op), fmt::join(position, ", "), view.extent(d, lane), d,
                                           w.thread(lane), w.cta.block_name()));
          }
        }
      old[lane] = atomic.global(*address, value[lane], expected[lane]);
    }
  } else {
    const Lanes view = n.shared->offset ? w.eval(n.shared->offset, mask) : Lanes{};
    const SharedOwners owners(w, n.rank, mask, n.loc, operation_name(n.op), ir::writes_memory(n.op));
    const std::vector<int> origin(size_t(n.shared->rank()), 0);
    for (int lane = 0; lane < 32; ++lane) {
      if (!(mask >> lane & 1)) continue;
      Cta& owner = owners(lane);
      const SharedAddress a = shared_address(w, n.shared, view, lane, index, origin.data(), n.loc);
      old[lane] = atomic.shared(owner, a, w.thread(lane), value[lane], expected[lane]);
    }
  }
  if (n.result) w.assign(n.result.get(), old, mask);
  finish(w, n, atomic, ir::reads_memory(n.op) && n.result);
}

void exec_AtomicTensor(Warp& w, const ir::AtomicTensorNode& n, Mask mask) {
  const DType t = n.value->dtype;
  const auto offsets = eval_all(w, n.offsets, mask);
  const auto& values = w.tile(n.value.get());
  const std::vector<ir::Scalar>* expected = n.compare ? &w.tile(n.compare.get()) : nullptr;
  std::vector<ir::Scalar>* out = n.out ? &w.tile(n.out.get()) : nullptr;
  const int local = n.value->layout.local_size();
  ElementAtomic atomic(w, n, n.op, n.order, n.scope, t, bool(out), false);
  const std::optional<GlobalViewLanes> global =
      n.global ? std::optional<GlobalViewLanes>(std::in_place, w, n.global, mask) : std::nullopt;
  const Lanes view = n.shared && n.shared->offset ? w.eval(n.shared->offset, mask) : Lanes{};
  const SharedOwners owners(w, n.rank, mask, n.loc, operation_name(n.op), ir::writes_memory(n.op));
  const std::vector<ir::Scalar>* positions = n.index ? &w.tile(n.index.get()) : nullptr;
  for_each_element(w, n.value.get(), mask, [&](int lane, int thread, int l, const int* c) {
    const size_t slot = size_t(lane) * local + l;
    const ir::Scalar compare = expected ? (*expected)[slot] : ir::Scalar{};
    if (out) (*out)[slot] = is_float(t) ? ir::Scalar{.f = 0} : ir::Scalar{.i = 0};
    if (!first_replica(n.value->layout, thread)) return;
    // A scatter's element goes to its position in the rank-1 target; positions outside it are skipped.
    int position = 0;
    if (positions) {
      const int64_t p = (*positions)[slot].i;
      const int64_t extent = n.global ? global->extent(0, lane) : n.shared->shape[0];
      if (p < 0 || p >= extent) return;
      position = int(p);
      c = &position;
    }
    if (n.shared) {
      Cta& owner = owners(lane);
      const SharedAddress a = shared_address(w, n.shared, view, lane, offsets, c, n.loc);
      const ir::Scalar old = atomic.shared(owner, a, w.thread(lane), values[slot], compare);
      if (out) (*out)[slot] = old;
      return;
    }
    const auto address = global->address(lane, c, offsets);
    if (!address) return;
    const ir::Scalar old = atomic.global(*address, values[slot], compare);
    if (out) (*out)[slot] = old;
  });
  finish(w, n, atomic, bool(out));
}

}  // namespace tessel::sim
