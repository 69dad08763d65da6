// The non-template half of tessel::Kernel: argument checks, the per-signature compile cache,
// and launching on the GPU or the simulator.
#include <cxxabi.h>

#include <chrono>
#include <cstdlib>

#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/printer.hpp"
#include "tessel/passes/pipeline.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "tessel/runtime/kernel.hpp"
#include "tessel/runtime/nvrtc_compiler.hpp"
#include "tessel/sim/simulator.hpp"

namespace tessel::detail {

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

ir::Arch arch_of_device(const Device& d) {
  if (!d.is_gpu()) return ir::Arch::Sm90a;
  const auto info = runtime::CudaDriver::get().device_info();
  if (info.cc_major >= 10) return ir::Arch::Sm100a;
  if (info.cc_major == 9) return ir::Arch::Sm90a;
  return ir::Arch::Sm80;
}

std::string describe_param(const ParamSpec& p) {
  switch (p.kind) {
    case ParamSpec::Kind::CompileInt: return "a compile-time int";
    case ParamSpec::Kind::CompileBool: return "a compile-time bool";
    case ParamSpec::Kind::Scalar: return fmt::format("a run-time {}", dtype_name(p.dtype));
    case ParamSpec::Kind::Pointer: return fmt::format("a pointer to {}", dtype_name(p.dtype));
  }
  return "?";
}

}  // namespace

std::string kernel_name_of(const std::type_info& t) {
  int status = 0;
  char* d = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && d ? d : t.name();
  std::free(d);
  const auto colon = name.rfind("::");
  if (colon != std::string::npos) name = name.substr(colon + 2);
  return name;
}

ir::Kernel finish_trace(Builder& b, Attrs& attrs, const std::string& name, std::vector<ir::Var> params) {
  ir::Stmt body = b.close_scope({});
  if (attrs.blocks.dims().empty() || attrs.blocks.dims().size() > 3)
    throw Error(fmt::format("kernel {}: attrs.blocks must be set to 1 to 3 grid extents in the kernel body, got {}",
                            name, attrs.blocks.dims().size()));
  if (attrs.warps < 1 || attrs.warps > 32)
    throw Error(fmt::format("kernel {}: attrs.warps must be set to a value in 1..32 in the kernel body, got {}", name,
                            attrs.warps));
  auto k = std::make_shared<ir::KernelNode>();
  k->name = name;
  k->params = std::move(params);
  k->blocks = attrs.blocks.dims();
  k->warps = attrs.warps;
  k->body = std::move(body);
  // The kernel is reported where its body starts.
  const auto& stmts = static_cast<const ir::SeqNode&>(*k->body).stmts;
  for (const ir::Stmt& s : stmts)
    if (s->loc.known()) {
      k->loc = s->loc;
      break;
    }
  return k;
}

struct KernelCore::Compiled {
  ir::Kernel kernel;  // lowered
  std::string hyperparameters;
  void* module = nullptr;    // CUmodule
  void* function = nullptr;  // CUfunction
};

KernelCore::KernelCore(std::string name, std::vector<ParamSpec> params, TraceFn trace, Space space, Device device,
                       KernelOptions options)
    : name_(std::move(name)), params_(std::move(params)), trace_(std::move(trace)), space_(std::move(space)),
      device_(device), options_(std::move(options)),
      arch_(options_.arch.empty() ? arch_of_device(device_) : ir::parse_arch(options_.arch)) {}

KernelCore::~KernelCore() {
  if (!device_.is_gpu()) return;
  auto& d = runtime::CudaDriver::get();
  for (auto& [key, c] : compiled_)
    if (c->module) d.moduleUnload(static_cast<CUmodule>(c->module));
}

void KernelCore::check_args(const std::vector<HostArg>& args) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamSpec& p = params_[i];
    const HostArg& a = args[i];
    auto fail = [&] {
      throw Error(fmt::format("kernel {}, argument {}: expected {}, got a {} value", name_, i, describe_param(p), a.type));
    };
    switch (p.kind) {
      case ParamSpec::Kind::CompileInt:
      case ParamSpec::Kind::CompileBool:
        if (a.kind != HostArg::Kind::Int) fail();
        break;
      case ParamSpec::Kind::Scalar:
        if (a.kind == HostArg::Kind::Pointer || (a.kind == HostArg::Kind::Float && !is_float(p.dtype))) fail();
        if (p.dtype == DType::U32 && a.kind == HostArg::Kind::Int && (a.i < 0 || a.i > int64_t(UINT32_MAX))) fail();
        if (p.dtype == DType::I32 && a.kind == HostArg::Kind::Int && (a.i < INT32_MIN || a.i > INT32_MAX))
          throw Error(fmt::format("kernel {}, argument {}: {} does not fit in i32", name_, i, a.i));
        break;
      case ParamSpec::Kind::Pointer:
        if (a.kind != HostArg::Kind::Pointer) fail();
        if (a.type != "void*" && a.type != fmt::format("{}*", dtype_name(p.dtype))) fail();
        break;
    }
  }
}

ir::Kernel KernelCore::traced(const std::vector<HostArg>& args) {
  check_args(args);
  return trace_(args, space_.candidates().front());
}

ir::Kernel KernelCore::lowered(const std::vector<HostArg>& args) { return prepare(args).kernel; }

std::string KernelCore::cuda_source(const std::vector<HostArg>& args) {
  return codegen::emit_cuda(*prepare(args).kernel, arch_).source;
}

std::vector<char> KernelCore::compile(const ir::KernelNode& k) {
  auto t0 = std::chrono::steady_clock::now();
  const codegen::CudaModule m = codegen::emit_cuda(k, arch_);
  stats_.codegen_ms = ms_since(t0);
  const std::vector<std::string> options;
  // The key covers the generated source together with every header it includes.
  std::string all_source = m.source;
  for (const auto& [header, text] : m.headers) all_source += "\n// header " + header + "\n" + text;
  const std::string cache_key = runtime::compile_cache_key(ir::print(k), all_source, ir::arch_name(arch_), options);
  runtime::DiskCache cache(runtime::DiskCache::default_dir());
  t0 = std::chrono::steady_clock::now();
  std::vector<char> cubin;
  if (auto hit = cache.load(cache_key, "cubin")) {
    cubin = std::move(*hit);
    stats_.from_cache = true;
  } else {
    runtime::CompileRequest req{m.source, name_, std::string(ir::arch_name(arch_)), m.headers, options};
    cubin = runtime::compile_to_cubin(req).cubin;
    cache.store(cache_key, "cubin", cubin);
    stats_.from_cache = false;
  }
  stats_.compile_ms = ms_since(t0);
  return cubin;
}

std::vector<char> KernelCore::cubin(const std::vector<HostArg>& args) { return compile(*prepare(args).kernel); }

KernelCore::Compiled& KernelCore::prepare(const std::vector<HostArg>& args) {
  check_args(args);
  std::string key;
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].kind == ParamSpec::Kind::CompileInt || params_[i].kind == ParamSpec::Kind::CompileBool)
      key += fmt::format("{},", args[i].i);
  auto it = compiled_.find(key);
  if (it != compiled_.end()) return *it->second;

  auto c = std::make_unique<Compiled>();
  stats_ = CompileStats{};
  stats_.arch = std::string(ir::arch_name(arch_));
  // Tuning over the space comes with the autotuner; until then the first candidate is used.
  const Space::Candidate& config = space_.candidates().front();
  c->hyperparameters = Space::describe(config);
  stats_.hyperparameters = c->hyperparameters;
  auto t0 = std::chrono::steady_clock::now();
  ir::Kernel k = trace_(args, config);
  stats_.trace_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  c->kernel = passes::lower(k, passes::PassContext{arch_});
  stats_.lower_ms = ms_since(t0);

  if (device_.is_gpu()) {
    const std::vector<char> cubin = compile(*c->kernel);
    const std::string symbol = codegen::emit_cuda(*c->kernel, arch_).kernel_name;
    t0 = std::chrono::steady_clock::now();
    auto& d = runtime::CudaDriver::get();
    d.context();
    CUmodule mod = nullptr;
    CUfunction fn = nullptr;
    d.check(d.moduleLoadData(&mod, cubin.data()), "cuModuleLoadData", "kernel " + name_);
    c->module = mod;
    d.check(d.moduleGetFunction(&fn, mod, symbol.c_str()), "cuModuleGetFunction", "kernel " + name_);
    c->function = fn;
    if (c->kernel->shared_bytes > 48 * 1024)
      d.check(d.funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(c->kernel->shared_bytes)),
              "cuFuncSetAttribute", "kernel " + name_);
    stats_.load_ms = ms_since(t0);
  }
  if (options_.verbose)
    fmt::print(stderr,
               "tessel: kernel {} [{}] for {}: trace {:.2f} ms, passes {:.2f} ms, codegen {:.2f} ms, {} {:.2f} ms, "
               "module load {:.2f} ms\n",
               name_, c->hyperparameters, stats_.arch, stats_.trace_ms, stats_.lower_ms, stats_.codegen_ms,
               stats_.from_cache ? "cache load" : "NVRTC compile", stats_.compile_ms, stats_.load_ms);
  return *compiled_.emplace(key, std::move(c)).first->second;
}

void KernelCore::launch(const std::vector<HostArg>& args, void* stream) {
  Compiled& c = prepare(args);
  const ir::KernelNode& k = *c.kernel;
  // Run-time parameter values, in the order of the kernel's parameters.
  std::vector<ir::Scalar> values;
  size_t p = 0;
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamSpec& spec = params_[i];
    if (spec.kind == ParamSpec::Kind::CompileInt || spec.kind == ParamSpec::Kind::CompileBool) continue;
    const HostArg& a = args[i];
    ir::Scalar v{.i = 0};
    if (spec.kind == ParamSpec::Kind::Pointer) v.i = int64_t(reinterpret_cast<uintptr_t>(a.p));
    else if (is_float(spec.dtype)) v.f = a.kind == HostArg::Kind::Float ? a.f : double(a.i);
    else v.i = a.i;
    values.push_back(v);
    ++p;
  }
  TESSEL_CHECK(p == k.params.size(), "kernel {}: {} run-time values for {} parameters", name_, p, k.params.size());
  std::array<int, 3> grid = {1, 1, 1};
  for (size_t d = 0; d < k.blocks.size(); ++d) {
    const ir::Scalar g = ir::evaluate(*k.blocks[d], [&](const ir::ExprNode& e) {
      for (size_t j = 0; j < k.params.size(); ++j)
        if (k.params[j].get() == &e) return values[j];
      TESSEL_CHECK(false, "grid extent of kernel {} depends on a non-parameter", name_);
    });
    if (g.i < 0 || g.i > (d == 0 ? INT32_MAX : 65535))
      throw Error(k.loc, fmt::format("kernel {}: grid extent {} is {}, outside the range the hardware accepts", name_,
                                     d, g.i));
    grid[d] = int(g.i);
  }
  if (!device_.is_gpu()) {
    sim::run(k, sim::Launch{grid, values}, sim::Options{options_.sim_seed});
    return;
  }
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return;
  std::vector<uint64_t> storage(values.size());
  std::vector<void*> pointers(values.size());
  for (size_t j = 0; j < values.size(); ++j) {
    const ir::Type t = k.params[j]->type;
    if (t.pointer || t.dtype == DType::I64) std::memcpy(&storage[j], &values[j].i, 8);
    else if (t.dtype == DType::F32) {
      const float f = float(values[j].f);
      std::memcpy(&storage[j], &f, 4);
    } else {
      const uint32_t u = uint32_t(values[j].i);
      std::memcpy(&storage[j], &u, 4);
    }
    pointers[j] = &storage[j];
  }
  auto& d = runtime::CudaDriver::get();
  d.check(d.launchKernel(static_cast<CUfunction>(c.function), unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]),
                         unsigned(k.threads()), 1, 1, unsigned(k.shared_bytes), static_cast<CUstream>(stream),
                         pointers.data(), nullptr),
          "cuLaunchKernel", "kernel " + name_);
}

}  // namespace tessel::detail
