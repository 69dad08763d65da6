// The simulator's view of global memory: the allocations made through Device::simulator(), so
// that every access can be checked against them.
#include <cstring>
#include <map>
#include <mutex>

#include "machine.hpp"

namespace tessel::sim {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<uint64_t, size_t> allocations;  // start -> bytes
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_allocation(const void* p, size_t bytes) {
  std::lock_guard lock(registry().mutex);
  registry().allocations[reinterpret_cast<uint64_t>(p)] = bytes;
}

void unregister_allocation(const void* p) {
  host_synchronized();  // freeing waits for the kernels, as cuMemFree does
  std::lock_guard lock(registry().mutex);
  registry().allocations.erase(reinterpret_cast<uint64_t>(p));
}

std::string_view parameter_of(const Warp& w, const ir::GlobalTensorNode& view) {
  for (const ir::Var& p : w.cta.kernel.params)
    if (p.get() == view.ptr.get()) return p->name;
  return {};
}

void check_global_access(uint64_t p, size_t bytes, bool write, const SourceLoc& loc, std::string_view parameter) {
  std::lock_guard lock(registry().mutex);
  auto& a = registry().allocations;
  auto it = a.upper_bound(p);
  if (it != a.begin()) {
    auto prev = std::prev(it);
    if (p >= prev->first && p + bytes <= prev->first + prev->second) return;
    if (p < prev->first + prev->second + (uint64_t(1) << 20))
      throw Error(loc, fmt::format("out-of-bounds global {} of {} bytes at byte {} of a {}-byte allocation (index "
                                   "past its end){}; check the global_view's shape and strides against the buffer",
                                   write ? "write" : "read", bytes, p - prev->first, prev->second,
                                   parameter.empty() ? "" : fmt::format(", through the global_view of {}", parameter)));
  }
  throw Error(loc, fmt::format("out-of-bounds global {} of {} bytes at address 0x{:x}, which is in no allocation "
                               "made through tessel::Device",
                               write ? "write" : "read", bytes, p));
}

bool is_registered(const void* p, size_t bytes) {
  uint64_t first = 0;
  size_t size = 0;
  const uint64_t address = reinterpret_cast<uint64_t>(p);
  return allocation_containing(address, &first, &size) && address + bytes <= first + size;
}

bool allocation_containing(uint64_t p, uint64_t* first, size_t* bytes) {
  std::lock_guard lock(registry().mutex);
  auto& a = registry().allocations;
  auto it = a.upper_bound(p);
  if (it == a.begin()) return false;
  --it;
  if (p >= it->first + it->second) return false;
  *first = it->first;
  *bytes = it->second;
  return true;
}

// A vector access through a pointer less aligned than promised faults on the GPU, or reads the
// wrong bytes.
void check_promised_alignment(const Warp& w, const ir::GlobalTensorNode& view, uint64_t pointer, int lane) {
  if (view.ptr->kind != ir::NodeKind::Cast) return;
  const auto& made = static_cast<const ir::CastNode&>(*view.ptr);
  if (made.alignment == 0 || pointer % uint64_t(made.alignment) == 0) return;
  throw Error(made.loc,
              fmt::format("as_pointer: the address 0x{:x} is not aligned to the {} bytes promised for a "
                          "pointer to {} (thread {} of block {})",
                          pointer, made.alignment, dtype_name(made.type.dtype), w.thread(lane), w.cta.block_name()));
}

namespace {

// Calls check(shadow, offset, name) with the race detector's shadow of the allocation that holds
// `p`, p's offset in it, and how messages name a byte of it.
template <class Check> void check_global(HappensBefore& hb, uint64_t p, Check check) {
  uint64_t first = 0;
  size_t size = 0;
  Shadow& shadow = hb.global_shadow(p, &first, &size);
  check(shadow, int64_t(p - first), global_byte_name(size));
}

}  // namespace

void access_global(Warp& w, uint64_t p, size_t bytes, bool write, const SourceLoc& loc, std::string_view operation,
                   const uint8_t* incoming) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (!hb.enabled()) return;
  check_global(hb, p, [&](Shadow& shadow, int64_t offset, const auto& name) {
    Access at = w.access(loc, operation);
    at.generic = write;
    hb.access(shadow, offset, int(bytes), write, w.clock, at, name, incoming, reinterpret_cast<const uint8_t*>(p));
  });
}

void read_global_non_coherent(Warp& w, uint64_t p, size_t bytes, const SourceLoc& loc, std::string_view operation) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (!hb.enabled()) return;
  check_global(hb, p, [&](Shadow& shadow, int64_t offset, const auto& name) {
    const Access at = w.access(loc, operation);
    hb.access(shadow, offset, int(bytes), false, w.clock, at, name);
    hb.non_coherent_read(shadow, p - uint64_t(offset), offset, int(bytes), at, name);
  });
}

void store_global_packed_alone(Warp& w, uint64_t p, int shift, DType t, const SourceLoc& loc,
                               std::string_view operation, const uint8_t* incoming) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (!hb.enabled()) return;
  check_global(hb, p, [&](Shadow& shadow, int64_t offset, const auto& name) {
    hb.packed_store(shadow, offset, shift, dtype_bits(t), w.clock, w.access(loc, operation), name, incoming,
                    reinterpret_cast<const uint8_t*>(p));
  });
}

void atomic_global(Warp& w, uint64_t p, int bytes, const Access& at) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (!hb.enabled()) return;
  check_global(hb, p, [&](Shadow& shadow, int64_t offset, const auto& name) {
    hb.atomic_access(shadow, offset, bytes, w.clock, at, name);
  });
}

// Memory holds elements little-endian in their width, as the GPU does; the bit patterns are those
// a bitcast keeps (ir::bits_of).
ir::Scalar load_value(DType t, const void* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, size_t(dtype_bytes(t)));
  if (t == DType::Bool) return ir::Scalar{.i = bits != 0};
  return ir::from_bits(t, bits);
}

void store_value(DType t, void* p, ir::Scalar v) {
  const uint64_t bits = t == DType::Bool ? uint64_t(v.i != 0) : ir::bits_of(t, v);
  std::memcpy(p, &bits, size_t(dtype_bytes(t)));
}

int packed_bytes(DType t, int shift) { return (shift + dtype_bits(t) + 7) / 8; }

ir::Scalar load_packed(DType t, const uint8_t* bytes, int shift) {
  unsigned word = bytes[0];
  if (packed_bytes(t, shift) == 2) word |= unsigned(bytes[1]) << 8;
  return ir::from_bits(t, (word >> shift) & ((1u << dtype_bits(t)) - 1u));
}

void store_packed(DType t, uint8_t* bytes, int shift, ir::Scalar v) {
  const unsigned mask = ((1u << dtype_bits(t)) - 1u) << shift;
  const unsigned field = (unsigned(ir::bits_of(t, v)) << shift) & mask;
  for (int b = 0; b < packed_bytes(t, shift); ++b)
    bytes[b] = uint8_t((bytes[b] & ~(mask >> (8 * b))) | (field >> (8 * b)));
}

}  // namespace tessel::sim
