#include "tessel/runtime/disk_cache.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <system_error>
#include <tuple>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "tessel/error.hpp"
#include "tessel/runtime/cache_key.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/runtime/sha256.hpp"

namespace tessel::runtime {
namespace fs = std::filesystem;
namespace {

// A cache file is: magic, payload length (8 bytes, little-endian), SHA-256 of the payload
// (64 hex characters), payload. The magic doubles as a format version: files written in any
// other layout read as misses.
constexpr std::string_view kMagic = "TSLCACH1";
constexpr std::size_t kLengthBytes = 8;
constexpr std::size_t kDigestBytes = 64;
constexpr std::size_t kHeaderBytes = kMagic.size() + kLengthBytes + kDigestBytes;

// Temporary files are "<key>.tmp.XXXXXX". A '.' never occurs in a valid key, so a temporary file
// can never be mistaken for an entry.
constexpr std::string_view kTempInfix = ".tmp.";

bool is_name(std::string_view s) {
  return !s.empty() && std::ranges::all_of(s, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

std::string encode_header(std::string_view payload) {
  std::string header(kMagic);
  const std::uint64_t length = payload.size();
  for (std::size_t i = 0; i < kLengthBytes; ++i) header += static_cast<char>(length >> (8 * i) & 0xff);
  header += sha256_hex(payload);
  return header;
}

// The payload of a cache file, or nullopt unless the header matches it exactly.
std::optional<std::vector<char>> decode(const std::vector<char>& file) {
  if (file.size() < kHeaderBytes || std::string_view(file.data(), kMagic.size()) != kMagic) return std::nullopt;
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    length |= std::uint64_t(static_cast<unsigned char>(file[kMagic.size() + i])) << (8 * i);
  if (length != file.size() - kHeaderBytes) return std::nullopt;
  const std::string_view digest(file.data() + kMagic.size() + kLengthBytes, kDigestBytes);
  const std::string_view payload(file.data() + kHeaderBytes, length);
  if (sha256_hex(payload) != digest) return std::nullopt;
  return std::vector<char>(payload.begin(), payload.end());
}

[[noreturn]] void throw_unwritable(const fs::path& dir, const std::string& what) {
  throw Error(
      fmt::format("cannot write to the tessel compile cache in '{}': {}. Set TESSEL_CACHE_DIR to a "
                  "writable directory.",
                  dir.string(), what));
}

std::string errno_message(int error) { return std::error_code(error, std::generic_category()).message(); }

// The whole file behind `fd`; false on a read error.
bool read_all(int fd, std::vector<char>& out) {
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return true;
    out.insert(out.end(), chunk, chunk + got);
  }
}

// write(2) may write less than asked; returns false with errno set on failure.
bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return false;
    bytes.remove_prefix(std::size_t(written));
  }
  return true;
}

enum class FileRole { entry, temporary, foreign };

FileRole role_of(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return FileRole::foreign;
  if (is_name(name)) return FileRole::entry;
  if (name.find(kTempInfix) != std::string_view::npos) return FileRole::temporary;
  return FileRole::foreign;
}

// Calls fn(kind, role, file) for each regular file at <dir>/<kind>/<prefix>/<name>, the only
// places store() writes. Unreadable directories are skipped: the cache is an optimisation, and
// looking at it should not fail because of something else in a shared directory.
template <class Fn> void for_each_cache_file(const fs::path& dir, Fn&& fn) {
  std::error_code ec;
  for (const auto& kind_dir : fs::directory_iterator(dir, ec)) {
    const std::string kind = kind_dir.path().filename().string();
    if (!is_name(kind) || !kind_dir.is_directory(ec)) continue;
    for (const auto& prefix_dir : fs::directory_iterator(kind_dir.path(), ec)) {
      const std::string prefix = prefix_dir.path().filename().string();
      if (prefix.size() != 2 || !is_name(prefix) || !prefix_dir.is_directory(ec)) continue;
      for (const auto& file : fs::directory_iterator(prefix_dir.path(), ec)) {
        if (file.is_regular_file(ec)) fn(kind, role_of(file.path().filename().string(), prefix), file);
      }
    }
  }
}

}  // namespace

DiskCache::DiskCache(fs::path dir) : dir_(std::move(dir)) {}

fs::path DiskCache::default_dir() {
  auto from_env = [](const char* variable) -> std::optional<fs::path> {
    const char* value = std::getenv(variable);
    if (value && *value) return fs::path(value);
    return std::nullopt;
  };
  if (auto dir = from_env("TESSEL_CACHE_DIR")) return *dir;
  if (auto dir = from_env("XDG_CACHE_HOME")) return *dir / "tessel";
  if (auto dir = from_env("HOME")) return *dir / ".cache" / "tessel";
  return "/tmp/tessel-cache";
}

fs::path DiskCache::entry_path(const std::string& key, const std::string& kind) const {
  TESSEL_CHECK(is_name(key) && key.size() >= 2, "invalid compile cache key '{}'", key);
  TESSEL_CHECK(is_name(kind), "invalid compile cache kind '{}'", kind);
  return dir_ / kind / key.substr(0, 2) / key;
}

// Read with POSIX calls, as store() writes: no iostreams, whose locale machinery is what a process
// with two copies of the C++ library (a Python module beside PyTorch's) can get wrong.
std::optional<std::vector<char>> DiskCache::load(const std::string& key, const std::string& kind) const {
  const int fd = ::open(entry_path(key, kind).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::vector<char> file;
  const bool read = read_all(fd, file);
  ::close(fd);
  if (!read) return std::nullopt;
  return decode(file);
}

void DiskCache::store(const std::string& key, const std::string& kind, std::span<const char> bytes) const {
  const fs::path path = entry_path(key, kind);
  const fs::path parent = path.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw_unwritable(dir_, fmt::format("cannot create '{}': {}", parent.string(), ec.message()));

  // mkstemp picks a name no other writer (thread or process) can be using; being in the same
  // directory as the entry makes the final rename atomic.
  std::string temp = (parent / (key + std::string(kTempInfix) + "XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0)
    throw_unwritable(dir_, fmt::format("cannot create a file in '{}': {}", parent.string(), errno_message(errno)));

  const std::string_view payload(bytes.data(), bytes.size());
  int error = write_all(fd, encode_header(payload)) && write_all(fd, payload) ? 0 : errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    throw_unwritable(dir_, fmt::format("cannot write '{}': {}", path.string(), errno_message(error)));
  }
}

std::vector<DiskCache::Entry> DiskCache::list() const {
  std::vector<Entry> entries;
  for_each_cache_file(dir_, [&](const std::string& kind, FileRole role, const fs::directory_entry& file) {
    if (role != FileRole::entry) return;
    // Another process may remove the file between listing and looking at it; then it is gone.
    std::error_code size_error, time_error;
    const std::uintmax_t size = file.file_size(size_error);
    const fs::file_time_type written = file.last_write_time(time_error);
    if (!size_error && !time_error) entries.push_back({file.path().filename().string(), kind, size, written});
  });
  std::ranges::sort(entries, {}, [](const Entry& e) { return std::tie(e.kind, e.key); });
  return entries;
}

std::size_t DiskCache::clear() const {
  std::vector<fs::path> files;
  for_each_cache_file(dir_, [&](const std::string&, FileRole role, const fs::directory_entry& file) {
    if (role != FileRole::foreign) files.push_back(file.path());
  });

  std::size_t removed = 0;
  std::set<fs::path> dirs;
  for (const auto& file : files) {
    std::error_code ec;
    if (fs::remove(file, ec)) ++removed;
    if (ec)
      throw Error(fmt::format("cannot remove '{}' from the tessel compile cache: {}", file.string(), ec.message()));
    dirs.insert(file.parent_path());
    dirs.insert(file.parent_path().parent_path());
  }
  // Deepest first, so that prefix directories go before their kind directory. A directory that
  // still holds other files is not empty, fs::remove leaves it, and that is what is wanted.
  for (auto dir = dirs.rbegin(); dir != dirs.rend(); ++dir) {
    std::error_code ignored;
    fs::remove(*dir, ignored);
  }
  return removed;
}

std::string compile_cache_key(std::string_view cuda_source, std::string_view arch,
                              std::span<const std::string> options) {
  return CacheKey("tessel-compile-key-v2")
      .add(TESSEL_VERSION)
      .add(nvrtc_version())
      .add(cuda_source)
      .add(arch)
      .add_each(options)
      .digest();
}

}  // namespace tessel::runtime
