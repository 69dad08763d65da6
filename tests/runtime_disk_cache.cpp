#include "tessel/runtime/disk_cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tessel/error.hpp"
#include "tessel/runtime/sha256.hpp"

namespace tessel::runtime {
namespace {

namespace fs = std::filesystem;

std::vector<char> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

const std::string kKey = sha256_hex("some kernel");
const std::string kOtherKey = sha256_hex("another kernel");

class DiskCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / fmt::format("tessel-disk-cache-test-{}-{}", ::getpid(), test->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path entry_file(const std::string& key, const std::string& kind) const {
    return root_ / kind / key.substr(0, 2) / key;
  }

  fs::path root_;
};

TEST_F(DiskCacheTest, StoreThenLoadRoundTrips) {
  const DiskCache cache(root_);
  EXPECT_EQ(cache.dir(), root_);
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  EXPECT_FALSE(fs::exists(root_)) << "a lookup must not create the directory";

  const std::vector<char> payload =
      bytes_of(std::string("\x7f"
                           "ELF\0binary\xff",
                           12));
  cache.store(kKey, "cubin", payload);
  EXPECT_EQ(cache.load(kKey, "cubin"), payload);
  EXPECT_TRUE(fs::is_regular_file(entry_file(kKey, "cubin")));
  EXPECT_FALSE(cache.load(kKey, "ptx")) << "kinds are separate namespaces";
  EXPECT_FALSE(cache.load(kOtherKey, "cubin"));
}

TEST_F(DiskCacheTest, EmptyPayloadIsAHit) {
  const DiskCache cache(root_);
  cache.store(kKey, "cubin", {});
  const auto loaded = cache.load(kKey, "cubin");
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(loaded->empty());
}

TEST_F(DiskCacheTest, StoreReplacesAndLeavesNoTemporaryFiles) {
  const DiskCache cache(root_);
  cache.store(kKey, "cubin", bytes_of("first"));
  cache.store(kKey, "cubin", bytes_of("second, longer"));
  EXPECT_EQ(cache.load(kKey, "cubin"), bytes_of("second, longer"));
  std::vector<fs::path> files;
  for (const auto& file : fs::directory_iterator(entry_file(kKey, "cubin").parent_path())) files.push_back(file.path());
  EXPECT_EQ(files, std::vector<fs::path>{entry_file(kKey, "cubin")});
}

TEST_F(DiskCacheTest, DamagedFilesAreMisses) {
  const DiskCache cache(root_);
  const std::vector<char> payload = bytes_of("a payload long enough to damage in several ways");
  const fs::path file = entry_file(kKey, "cubin");

  auto rewrite = [&](auto&& damage) {
    cache.store(kKey, "cubin", payload);
    ASSERT_TRUE(cache.load(kKey, "cubin"));
    std::ifstream in(file, std::ios::binary);
    std::string contents((std::istreambuf_iterator<char>(in)), {});
    in.close();
    damage(contents);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << contents;
  };

  rewrite([](std::string& s) { s.pop_back(); });  // truncated payload
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  rewrite([](std::string& s) { s.resize(40); });  // truncated header
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  rewrite([](std::string& s) { s.clear(); });  // what a crash before writeback can leave
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  rewrite([](std::string& s) { s += 'x'; });  // trailing garbage
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  rewrite([](std::string& s) { s[s.size() - 3] ^= 1; });  // flipped payload bit
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  rewrite([](std::string& s) { s[0] = 'X'; });  // other format
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  rewrite([](std::string& s) { s = std::string(s.begin() + 80, s.end()); });  // raw payload, no header
  EXPECT_FALSE(cache.load(kKey, "cubin"));

  cache.store(kKey, "cubin", payload);
  EXPECT_EQ(cache.load(kKey, "cubin"), payload) << "a store repairs a damaged entry";
}

TEST_F(DiskCacheTest, ListsEntriesSortedAndIgnoresOtherFiles) {
  const DiskCache cache(root_);
  EXPECT_TRUE(cache.list().empty());
  cache.store(kOtherKey, "ptx", bytes_of("p"));
  cache.store(kOtherKey, "cubin", bytes_of("cc"));
  cache.store(kKey, "cubin", bytes_of("c"));
  // Neither a leftover temporary file nor a stranger's file is an entry.
  std::ofstream(entry_file(kKey, "cubin").string() + ".tmp.abc123") << "partial";
  std::ofstream(root_ / "README") << "not ours";
  std::ofstream(entry_file(kKey, "cubin").parent_path() / "notes.txt") << "not ours";

  const auto entries = cache.list();
  ASSERT_EQ(entries.size(), 3u);
  const auto [first, second] = std::minmax(kKey, kOtherKey);
  EXPECT_EQ(entries[0].kind, "cubin");
  EXPECT_EQ(entries[0].key, first);
  EXPECT_EQ(entries[1].kind, "cubin");
  EXPECT_EQ(entries[1].key, second);
  EXPECT_EQ(entries[2].kind, "ptx");
  EXPECT_EQ(entries[2].key, kOtherKey);
  for (const auto& entry : entries) {
    EXPECT_EQ(entry.bytes, fs::file_size(entry_file(entry.key, entry.kind)));
    EXPECT_EQ(entry.written, fs::last_write_time(entry_file(entry.key, entry.kind)));
  }
}

TEST_F(DiskCacheTest, ClearRemovesEntriesAndTemporariesOnly) {
  const DiskCache cache(root_);
  EXPECT_EQ(cache.clear(), 0u);
  cache.store(kKey, "cubin", bytes_of("c"));
  cache.store(kOtherKey, "cubin", bytes_of("c"));
  cache.store(kKey, "ptx", bytes_of("p"));
  std::ofstream(entry_file(kKey, "cubin").string() + ".tmp.abc123") << "partial";
  std::ofstream(root_ / "README") << "not ours";

  EXPECT_EQ(cache.clear(), 4u);
  EXPECT_TRUE(cache.list().empty());
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  EXPECT_TRUE(fs::exists(root_ / "README"));
  EXPECT_FALSE(fs::exists(root_ / "cubin")) << "emptied directories are removed";

  cache.store(kKey, "cubin", bytes_of("again"));
  EXPECT_EQ(cache.load(kKey, "cubin"), bytes_of("again"));
}

TEST_F(DiskCacheTest, UnwritableDirectoryIsAClearError) {
  // A regular file where a directory is needed blocks writing even for root.
  fs::create_directories(root_);
  std::ofstream(root_ / "blocker") << "file";
  const fs::path dir = root_ / "blocker" / "cache";
  const DiskCache cache(dir);
  EXPECT_FALSE(cache.load(kKey, "cubin"));
  try {
    cache.store(kKey, "cubin", bytes_of("x"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string prefix =
        fmt::format("cannot write to the tessel compile cache in '{}': cannot create '{}': ", dir.string(),
                    (dir / "cubin" / kKey.substr(0, 2)).string());
    EXPECT_TRUE(e.message().starts_with(prefix)) << e.message();
    EXPECT_TRUE(e.message().ends_with(". Set TESSEL_CACHE_DIR to a writable directory.")) << e.message();
  }
}

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value)
      ::setenv(name_, value->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DiskCacheDefaultDir, FollowsTheEnvironmentInOrder) {
  ScopedEnv cache_dir("TESSEL_CACHE_DIR", "/explicit");
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(DiskCache::default_dir(), fs::path("/explicit"));
  {
    ScopedEnv unset("TESSEL_CACHE_DIR", std::nullopt);
    EXPECT_EQ(DiskCache::default_dir(), fs::path("/xdg/tessel"));
    ScopedEnv empty_xdg("XDG_CACHE_HOME", "");
    EXPECT_EQ(DiskCache::default_dir(), fs::path("/home/someone/.cache/tessel"));
    ScopedEnv no_home("HOME", std::nullopt);
    EXPECT_EQ(DiskCache::default_dir(), fs::path("/tmp/tessel-cache"));
  }
}

TEST(CompileCacheKey, IsAStableSha256) {
  const std::vector<std::string> options = {"-O3"};
  const std::string key = compile_cache_key("source", "sm_90a", options);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key, compile_cache_key("source", "sm_90a", options));
}

TEST(CompileCacheKey, ChangesWithEveryField) {
  const std::vector<std::string> options = {"-O3"};
  const std::vector<std::string> other_options = {"-O2"};
  const std::vector<std::string> more_options = {"-O3", "-G"};
  const std::string key = compile_cache_key("source", "sm_90a", options);
  EXPECT_NE(key, compile_cache_key("source2", "sm_90a", options));
  EXPECT_NE(key, compile_cache_key("source", "sm_100a", options));
  EXPECT_NE(key, compile_cache_key("source", "sm_90a", other_options));
  EXPECT_NE(key, compile_cache_key("source", "sm_90a", more_options));
  EXPECT_NE(key, compile_cache_key("source", "sm_90a", {}));
}

TEST(CompileCacheKey, FieldBoundariesMatter) {
  const std::vector<std::string> none;
  const std::vector<std::string> split = {"a", "b"};
  const std::vector<std::string> joined = {"ab"};
  const std::vector<std::string> arch_as_option = {"sm_90a"};
  EXPECT_NE(compile_cache_key("src", "sm_90a", split), compile_cache_key("src", "sm_90a", joined));
  EXPECT_NE(compile_cache_key("src", "sm_90a", none), compile_cache_key("src", "", arch_as_option));
  EXPECT_NE(compile_cache_key("srcsm_90a", "", none), compile_cache_key("src", "sm_90a", none));
  // Framing text inside a field must not be able to imitate a boundary.
  EXPECT_NE(compile_cache_key("a1:b", "", none), compile_cache_key("a", "b", none));
}

}  // namespace
}  // namespace tessel::runtime
