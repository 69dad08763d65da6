#include "tessel/runtime/kernel_compiler.hpp"

#include <charconv>
#include <chrono>

#include "tessel/codegen/cuda.hpp"
#include "tessel/runtime/disk_cache.hpp"

namespace tessel::runtime {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// ptxas's figures travel with the cubin in the cache, as one line of numbers.
std::string encode(const ResourceUsage& r) {
  return fmt::format("{} {} {} {}", r.registers, r.spill_store_bytes, r.spill_load_bytes, r.stack_bytes);
}

// Parsed without iostreams: a stream's numeric parsing looks its facets up in the global locale,
// and in a process that holds a second copy of the C++ library's locale code (a Python module beside
// PyTorch's libraries) the lookup can return another facet and crash.
std::optional<ResourceUsage> decode(const std::vector<char>& bytes) {
  const char* at = bytes.data();
  const char* const end = at + bytes.size();
  ResourceUsage r;
  for (int* field : {&r.registers, &r.spill_store_bytes, &r.spill_load_bytes, &r.stack_bytes}) {
    while (at != end && *at == ' ') ++at;
    const auto [next, error] = std::from_chars(at, end, *field);
    if (error != std::errc()) return std::nullopt;
    at = next;
  }
  return r;
}

}  // namespace

KernelBinary compile_kernel(const ir::KernelNode& k, ir::Arch arch, const KernelCompileOptions& options) {
  KernelBinary out;
  auto t0 = std::chrono::steady_clock::now();
  const codegen::CudaModule m = codegen::emit_cuda(k, arch, {.debug = options.debug, .source_locations = false});
  out.codegen_ms = ms_since(t0);
  out.arch = arch;
  out.symbol = m.kernel_name;
  out.debug = options.debug;
  // The key covers the generated source together with every header it includes, so a kernel
  // generated in debug mode has a key of its own.
  std::string all_source = m.source;
  for (const auto& [header, text] : m.headers) all_source += "\n// header " + header + "\n" + text;
  const std::vector<std::string> nvrtc_options;
  const std::string arch_name(ir::arch_name(arch));
  const std::string key = compile_cache_key(all_source, arch_name, nvrtc_options);
  const DiskCache cache(DiskCache::default_dir());
  t0 = std::chrono::steady_clock::now();
  auto cubin = cache.load(key, "cubin");
  auto resources = cubin ? cache.load(key, "resources") : std::nullopt;
  const auto usage = resources ? decode(*resources) : std::nullopt;
  const auto warnings = usage ? cache.load(key, "warnings") : std::nullopt;
  const bool keeps_ptx = arch == ir::Arch::Sm80;
  const auto ptx = warnings && keeps_ptx ? cache.load(key, "ptx") : std::nullopt;
  if (cubin && usage && warnings && (ptx || !keeps_ptx)) {
    out.cubin = std::move(*cubin);
    if (ptx) out.ptx.assign(ptx->begin(), ptx->end());
    out.resources = *usage;
    out.warnings.assign(warnings->begin(), warnings->end());
    out.from_cache = true;
  } else {
    if (options.require_cached)
      throw Error(k.loc, fmt::format("kernel {} for {} is not in the compile cache at {}, and TESSEL_STRICT_CACHE=1 "
                                     "forbids compiling at run time; run it once without TESSEL_STRICT_CACHE to fill "
                                     "the cache",
                                     k.name, arch_name, cache.dir().string()));
    CompileRequest req{m.source, k.name, arch_name, m.headers, nvrtc_options, options.time_limit_s};
    CompileResult r = compile_to_cubin(req);
    out.cubin = std::move(r.cubin);
    out.resources = r.resources;
    out.warnings = r.ptxas_warnings;
    if (keeps_ptx) {
      out.ptx = std::move(r.ptx);
      cache.store(key, "ptx", out.ptx);
    }
    cache.store(key, "cubin", out.cubin);
    const std::string encoded = encode(out.resources);
    cache.store(key, "resources", encoded);
    cache.store(key, "warnings", out.warnings);
  }
  out.compile_ms = ms_since(t0);
  return out;
}

}  // namespace tessel::runtime
