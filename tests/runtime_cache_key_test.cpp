// The one key builder of the compile cache and the tuning database: every field counts, field
// boundaries count, and the framing is fixed, so keys stay valid across versions of the code.
#include "tessel/runtime/cache_key.hpp"

#include <gtest/gtest.h>

#include "tessel/runtime/disk_cache.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/runtime/sha256.hpp"
#include "tessel/tuning/tuning_db.hpp"

namespace tessel::runtime {
namespace {

std::string key_of(const std::vector<std::string>& fields) {
  CacheKey key("purpose-v1");
  for (const std::string& f : fields) key.add(f);
  return key.digest();
}

TEST(CacheKey, IsTheSha256OfLengthFramedFields) {
  EXPECT_EQ(CacheKey("p").add("ab").add("").digest(), sha256_hex("1:p2:ab0:"));
  const std::string key = key_of({"a", "b"});
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(CacheKey, ChangingAnyFieldChangesTheKey) {
  const std::vector<std::string> fields = {"kernel", "block=128", "n<=4096", "sm_90a"};
  const std::string key = key_of(fields);
  EXPECT_EQ(key, key_of(fields));
  for (size_t i = 0; i < fields.size(); ++i) {
    std::vector<std::string> changed = fields;
    changed[i] += "x";
    EXPECT_NE(key_of(changed), key) << "field " << i;
    changed[i] = "";
    EXPECT_NE(key_of(changed), key) << "field " << i;
  }
  EXPECT_NE(CacheKey("purpose-v2").add("kernel").add("block=128").add("n<=4096").add("sm_90a").digest(), key);
}

TEST(CacheKey, FieldBoundariesAndCountsMatter) {
  EXPECT_NE(key_of({"ab", "c"}), key_of({"a", "bc"}));
  EXPECT_NE(key_of({"a", ""}), key_of({"a"}));
  EXPECT_NE(key_of({"1:a"}), key_of({"", "a"}));
  const std::vector<std::string> each = {"a", "b"};
  EXPECT_EQ(CacheKey("purpose-v1").add_each(each).digest(), key_of({"a", "b"}));
}

// Both stores name their entries with this builder.
TEST(CacheKey, BuildsTheCompileAndTuningKeys) {
  const std::vector<std::string> options = {"-O3"};
  EXPECT_EQ(compile_cache_key("source", "sm_90a", options), CacheKey("tessel-compile-key-v2")
                                                                .add(TESSEL_VERSION)
                                                                .add(nvrtc_version())
                                                                .add("source")
                                                                .add("sm_90a")
                                                                .add("-O3")
                                                                .digest());
  EXPECT_EQ(
      tuning::TuningDb::key("K", "c0de", {"block=64", "block=128"}, "k=8", "a: 16-byte aligned", "n<=1024", "sm_90a"),
      CacheKey("tessel-tuning-key-v3")
          .add("K")
          .add("c0de")
          .add("block=64")
          .add("block=128")
          .add("k=8")
          .add("a: 16-byte aligned")
          .add("n<=1024")
          .add("sm_90a")
          .digest());
}

}  // namespace
}  // namespace tessel::runtime
