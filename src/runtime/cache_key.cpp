#include "tessel/runtime/cache_key.hpp"

#include <fmt/format.h>

#include "tessel/runtime/sha256.hpp"

namespace tessel::runtime {

CacheKey& CacheKey::add(std::string_view field) {
  framed_ += fmt::format("{}:", field.size());
  framed_ += field;
  return *this;
}

CacheKey& CacheKey::add_each(std::span<const std::string> fields) {
  for (const std::string& field : fields) add(field);
  return *this;
}

std::string CacheKey::digest() const { return sha256_hex(framed_); }

}  // namespace tessel::runtime
