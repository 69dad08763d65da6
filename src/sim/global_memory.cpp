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
  std::lock_guard lock(registry().mutex);
  registry().allocations.erase(reinterpret_cast<uint64_t>(p));
}

void check_global_access(uint64_t p, size_t bytes, bool write, const SourceLoc& loc) {
  std::lock_guard lock(registry().mutex);
  auto& a = registry().allocations;
  auto it = a.upper_bound(p);
  if (it != a.begin()) {
    auto prev = std::prev(it);
    if (p >= prev->first && p + bytes <= prev->first + prev->second) return;
    if (p < prev->first + prev->second + (uint64_t(1) << 20))
      throw Error(loc, fmt::format("out-of-bounds global {} of {} bytes at byte {} of a {}-byte allocation (index "
                                   "past its end); check the global_view's shape and strides against the buffer",
                                   write ? "write" : "read", bytes, p - prev->first, prev->second));
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

void access_global(Warp& w, uint64_t p, size_t bytes, bool write, const SourceLoc& loc, std::string_view operation,
                   const uint8_t* incoming) {
  HappensBefore& hb = w.cta.scheduler.happens_before;
  if (!hb.enabled()) return;
  uint64_t first = 0;
  size_t size = 0;
  Shadow& shadow = hb.global_shadow(p, &first, &size);
  hb.access(
      shadow, int64_t(p - first), int(bytes), write, w.clock, w.access(loc, operation),
      [&](int64_t byte) { return fmt::format("global memory, byte {} of a {}-byte allocation", byte, size); }, incoming,
      reinterpret_cast<const uint8_t*>(p));
}

ir::Scalar load_value(DType t, const void* p) {
  switch (t) {
    case DType::Bool: return ir::Scalar{.i = *static_cast<const uint8_t*>(p) != 0};
    case DType::I8: return ir::Scalar{.i = *static_cast<const int8_t*>(p)};
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return ir::Scalar{.i = v};
    }
    case DType::U32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return ir::Scalar{.i = v};
    }
    case DType::I64:
    case DType::U64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return ir::Scalar{.i = v};
    }
    case DType::F16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return ir::Scalar{.f = float(f16::from_bits(b))};
    }
    case DType::BF16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return ir::Scalar{.f = float(bf16::from_bits(b))};
    }
    case DType::F32: {
      float v;
      std::memcpy(&v, p, 4);
      return ir::Scalar{.f = v};
    }
  }
  return ir::Scalar{.i = 0};
}

void store_value(DType t, void* p, ir::Scalar v) {
  switch (t) {
    case DType::Bool: *static_cast<uint8_t*>(p) = v.i != 0; return;
    case DType::I8: *static_cast<int8_t*>(p) = int8_t(v.i); return;
    case DType::I32:
    case DType::U32: {
      const uint32_t x = uint32_t(v.i);
      std::memcpy(p, &x, 4);
      return;
    }
    case DType::I64:
    case DType::U64: std::memcpy(p, &v.i, 8); return;
    case DType::F16: {
      const uint16_t b = f16(float(v.f)).bits;
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::BF16: {
      const uint16_t b = bf16(float(v.f)).bits;
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::F32: {
      const float x = float(v.f);
      std::memcpy(p, &x, 4);
      return;
    }
  }
}

}  // namespace tessel::sim
