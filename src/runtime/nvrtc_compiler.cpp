#include "tessel/runtime/nvrtc_compiler.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/ranges.h>
#include <nvrtc.h>

#include "tessel/error.hpp"

namespace tessel::runtime {
namespace {

// The targets tessel generates code for. The "a" variants are required for the
// architecture-specific instructions (wgmma and TMA on sm_90a, tcgen05 on sm_100a).
constexpr std::array<std::string_view, 3> kSupportedArchs = {"sm_80", "sm_90a", "sm_100a"};

void check(nvrtcResult result, const char* call, const std::string& kernel_name) {
  if (result != NVRTC_SUCCESS)
    throw Error(fmt::format("NVRTC call {} failed for kernel '{}': {}", call, kernel_name,
                            nvrtcGetErrorString(result)));
}

// NVRTC logs end with a NUL and blank lines; the message shows only the text.
std::string trim(std::string_view text) {
  constexpr std::string_view kSpace(" \t\r\n\v\f\0", 7);
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kSpace);
  return std::string(text.substr(first, last - first + 1));
}

// NVRTC does not search the toolkit's headers by itself, yet kernels include cuda_fp16.h,
// cuda/barrier and friends. Looked up at run time, not baked in at build time, so that a
// binary keeps working when the toolkit lives elsewhere on the machine it runs on.
const std::optional<std::string>& cuda_include_dir() {
  static const std::optional<std::string> dir = []() -> std::optional<std::string> {
    std::vector<std::filesystem::path> candidates;
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
      const char* root = std::getenv(variable);
      if (root && *root) candidates.push_back(std::filesystem::path(root) / "include");
    }
    candidates.emplace_back("/usr/local/cuda/include");
    for (const auto& candidate : candidates) {
      std::error_code ec;
      if (std::filesystem::is_directory(candidate, ec)) return candidate.string();
    }
    return std::nullopt;
  }();
  return dir;
}

// Owns an nvrtcProgram so that it is destroyed on every path out, exceptions included.
class Program {
 public:
  explicit Program(const CompileRequest& request) {
    std::vector<const char*> contents, names;
    for (const auto& [name, text] : request.headers) {
      names.push_back(name.c_str());
      contents.push_back(text.c_str());
    }
    const std::string program_name = request.kernel_name + ".cu";
    check(nvrtcCreateProgram(&program_, request.source.c_str(), program_name.c_str(), int(contents.size()),
                             contents.data(), names.data()),
          "nvrtcCreateProgram", request.kernel_name);
  }
  ~Program() { nvrtcDestroyProgram(&program_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcProgram get() const { return program_; }

 private:
  nvrtcProgram program_ = nullptr;
};

std::string program_log(const Program& program, const std::string& kernel_name) {
  std::size_t size = 0;
  check(nvrtcGetProgramLogSize(program.get(), &size), "nvrtcGetProgramLogSize", kernel_name);
  std::string log(size, '\0');
  check(nvrtcGetProgramLog(program.get(), log.data()), "nvrtcGetProgramLog", kernel_name);
  return trim(log);
}

}  // namespace

CompileResult compile_to_cubin(const CompileRequest& request) {
  if (std::ranges::find(kSupportedArchs, request.arch) == kSupportedArchs.end())
    throw Error(fmt::format("cannot compile kernel '{}' for unsupported GPU architecture '{}'; supported: {}",
                            request.kernel_name, request.arch, fmt::join(kSupportedArchs, ", ")));

  const auto start = std::chrono::steady_clock::now();
  Program program(request);

  // A real architecture (sm_*, not compute_*) makes NVRTC emit a cubin rather than only PTX.
  std::vector<std::string> options = {"--gpu-architecture=" + request.arch, "-std=c++17", "-default-device",
                                      "-lineinfo"};
  if (const auto& include_dir = cuda_include_dir()) options.push_back("--include-path=" + *include_dir);
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> option_pointers;
  for (const auto& option : options) option_pointers.push_back(option.c_str());

  const nvrtcResult compiled = nvrtcCompileProgram(program.get(), int(option_pointers.size()), option_pointers.data());
  CompileResult result;
  result.log = program_log(program, request.kernel_name);
  if (compiled != NVRTC_SUCCESS)
    throw Error(fmt::format("NVRTC failed to compile kernel '{}' for {}:\n{}", request.kernel_name, request.arch,
                            result.log.empty() ? nvrtcGetErrorString(compiled) : result.log));

  std::size_t size = 0;
  check(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize", request.kernel_name);
  result.cubin.resize(size);
  check(nvrtcGetCUBIN(program.get(), result.cubin.data()), "nvrtcGetCUBIN", request.kernel_name);
  result.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  const nvrtcResult result = nvrtcVersion(&major, &minor);
  TESSEL_CHECK(result == NVRTC_SUCCESS, "nvrtcVersion failed: {}", nvrtcGetErrorString(result));
  return fmt::format("{}.{}", major, minor);
}

}  // namespace tessel::runtime
