// The on-disk compile cache: compiled artifacts (cubins, ...) stored under a content hash so
// that a kernel is compiled once per machine rather than once per process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::runtime {

// Entries live at <dir>/<kind>/<key[0:2]>/<key>; the two-character level keeps directories small.
// Several processes may share one cache: a write goes to a unique temporary file that is then
// renamed over the entry, so readers see the old or the new file, never a mix. Writes are not
// fsync'ed; instead each file carries its payload length and SHA-256, so whatever a crash or a
// full disk leaves behind reads as a miss, never as a wrong cubin.
class DiskCache {
 public:
  // Nothing is created until the first store, so an unusable directory costs nothing until then.
  explicit DiskCache(std::filesystem::path dir);

  // $TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel, else $HOME/.cache/tessel, else /tmp/tessel-cache.
  static std::filesystem::path default_dir();

  const std::filesystem::path& dir() const { return dir_; }

  // The payload stored under (key, kind), or nullopt when it is absent, unreadable or damaged.
  // Keys and kinds are names tessel makes: letters, digits, '_' and '-' (keys at least 2 long).
  std::optional<std::vector<char>> load(const std::string& key, const std::string& kind) const;

  // Replaces the entry atomically. Throws tessel::Error naming the directory when it is not writable.
  void store(const std::string& key, const std::string& kind, std::span<const char> bytes) const;

  struct Entry {
    std::string key, kind;
    std::uintmax_t bytes;  // size of the file on disk, header included
    std::filesystem::file_time_type written;
  };
  // Every entry, sorted by kind then key.
  std::vector<Entry> list() const;

  // Removes every entry and any temporary file an interrupted store left; returns how many files
  // it removed. Files that are not the cache's own are left alone, as the directory may be shared.
  std::size_t clear() const;

 private:
  std::filesystem::path entry_path(const std::string& key, const std::string& kind) const;

  std::filesystem::path dir_;
};

// The cache key for a compiled kernel: the SHA-256 of everything NVRTC sees, i.e. the generated
// CUDA source, the arch and NVRTC options, plus the tessel and NVRTC versions. Kernels whose IR
// differs but whose generated code is the same (variants whose facts prove nothing new) share one
// cubin. Anything else a compile depends on (such as headers handed to compile_to_cubin) must be
// folded into one of these fields by the caller.
std::string compile_cache_key(std::string_view cuda_source, std::string_view arch,
                              std::span<const std::string> options);

}  // namespace tessel::runtime
