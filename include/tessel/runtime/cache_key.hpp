// The one way tessel names stored results: the compile cache and the tuning database both key
// their entries with a CacheKey over everything that changes the stored result.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tessel::runtime {

// The SHA-256 of a sequence of fields. Each field is written as "<length>:<bytes>", so where a
// field ends is known from its length, never guessed from its contents: ("ab", "c") and
// ("a", "bc") give different keys, and so do sequences of different lengths. The first field
// names the purpose and its version, so keys made for different purposes never meet.
class CacheKey {
 public:
  explicit CacheKey(std::string_view purpose) { add(purpose); }

  CacheKey& add(std::string_view field);
  // Each element as its own field.
  CacheKey& add_each(std::span<const std::string> fields);

  // 64 lowercase hex characters: a valid DiskCache key.
  std::string digest() const;

 private:
  std::string framed_;
};

}  // namespace tessel::runtime
