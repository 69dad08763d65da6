#include "tessel/runtime/nvrtc_compiler.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
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
    throw Error(
        fmt::format("NVRTC call {} failed for kernel '{}': {}", call, kernel_name, nvrtcGetErrorString(result)));
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

// NVRTC polls this during a compile; returning 1 cancels it.
int past_deadline(void* deadline, void*) {
  return std::chrono::steady_clock::now() > *static_cast<std::chrono::steady_clock::time_point*>(deadline) ? 1 : 0;
}

// Calls `each` with every line of `log`, without its '\n'.
void for_each_line(std::string_view log, const std::function<void(std::string_view)>& each) {
  for (size_t start = 0; start < log.size();) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    each(log.substr(start, end - start));
    start = end + 1;
  }
}

// The log without ptxas's `-v` report, which is returned as ResourceUsage instead.
std::string without_ptxas_info(std::string_view log) {
  std::string out;
  for_each_line(log, [&](std::string_view line) {
    if (line.starts_with("ptxas info") || line.starts_with("ptxas         .")) return;
    out += line;
    out += '\n';
  });
  return trim(out);
}

std::string ptxas_warnings(std::string_view log) {
  std::string out;
  for_each_line(log, [&](std::string_view line) {
    const size_t colon = line.find(':');
    if (!line.starts_with("ptxas") || colon == std::string_view::npos ||
        (line.find("warning") > colon && line.find("Performance Loss") == std::string_view::npos))
      return;
    // "ptxas info    : (C7514) ..." as "ptxas: (C7514) ..."
    out += "ptxas: " + trim(line.substr(colon + 1));
    out += '\n';
  });
  return trim(out);
}

int number_before(std::string_view line, std::string_view suffix) {
  const size_t at = line.find(suffix);
  if (at == std::string_view::npos) return -1;
  size_t begin = at;
  while (begin > 0 && line[begin - 1] == ' ') --begin;
  size_t digits = begin;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1]))) --digits;
  if (digits == begin) return -1;
  return std::atoi(std::string(line.substr(digits, begin - digits)).c_str());
}

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
  // --no-cache: where a driver is installed, NVRTC (12.9 and later) keeps compiled programs in the
  // driver's compute cache and returns a hit without running ptxas, so without ptxas's report: no
  // registers or spills for the tuner, the spill warning or `tessel space`. tessel's own cache
  // keeps cubins with their report.
  // `--fmad=false`: which a * b + c are one fma is decided in the IR, where the simulator sees it
  // (passes/contract_multiply_adds.cpp), not by the compiler.
  std::vector<std::string> options = {"--gpu-architecture=" + request.arch,
                                      "-std=c++17",
                                      "-default-device",
                                      "-lineinfo",
                                      "--fmad=false",
                                      "--ptxas-options=-v",
                                      "--no-cache"};
  if (const auto& include_dir = cuda_include_dir()) options.push_back("--include-path=" + *include_dir);
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> option_pointers;
  for (const auto& option : options) option_pointers.push_back(option.c_str());

  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(request.time_limit_s));
  if (request.time_limit_s > 0)
    check(nvrtcSetFlowCallback(program.get(), past_deadline, &deadline), "nvrtcSetFlowCallback", request.kernel_name);

  const nvrtcResult compiled = nvrtcCompileProgram(program.get(), int(option_pointers.size()), option_pointers.data());
  if (compiled == NVRTC_ERROR_CANCELLED)
    throw Error(fmt::format("NVRTC compile of kernel '{}' for {} was stopped at its time limit of {:g} s",
                            request.kernel_name, request.arch, request.time_limit_s));
  CompileResult result;
  const std::string full_log = program_log(program, request.kernel_name);
  result.resources = parse_ptxas_info(full_log);
  result.log = without_ptxas_info(full_log);
  result.ptxas_warnings = ptxas_warnings(full_log);
  if (compiled != NVRTC_SUCCESS)
    throw Error(fmt::format("NVRTC failed to compile kernel '{}' for {}:\n{}", request.kernel_name, request.arch,
                            result.log.empty() ? nvrtcGetErrorString(compiled) : result.log));

  std::size_t size = 0;
  check(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize", request.kernel_name);
  result.cubin.resize(size);
  check(nvrtcGetCUBIN(program.get(), result.cubin.data()), "nvrtcGetCUBIN", request.kernel_name);
  check(nvrtcGetPTXSize(program.get(), &size), "nvrtcGetPTXSize", request.kernel_name);
  result.ptx.resize(size);
  check(nvrtcGetPTX(program.get(), result.ptx.data()), "nvrtcGetPTX", request.kernel_name);
  result.ptx.pop_back();  // the size counts the terminating NUL, which std::string keeps by itself
  result.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

ResourceUsage parse_ptxas_info(std::string_view log) {
  ResourceUsage r;
  for_each_line(log, [&](std::string_view line) {
    if (line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos)
      r.registers = number_before(line, "registers");
    if (line.find("spill stores") != std::string_view::npos) {
      r.stack_bytes = std::max(0, number_before(line, "bytes stack frame"));
      r.spill_store_bytes = std::max(0, number_before(line, "bytes spill stores"));
      r.spill_load_bytes = std::max(0, number_before(line, "bytes spill loads"));
    }
  });
  return r;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  const nvrtcResult result = nvrtcVersion(&major, &minor);
  TESSEL_CHECK(result == NVRTC_SUCCESS, "nvrtcVersion failed: {}", nvrtcGetErrorString(result));
  return fmt::format("{}.{}", major, minor);
}

}  // namespace tessel::runtime
