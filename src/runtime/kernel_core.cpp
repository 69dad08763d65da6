// The non-template half of tessel::Kernel: argument checks, choosing and caching the variant a
// call runs (tuning when the kernel has a space), and launching on the GPU or the simulator.
#include <cxxabi.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fmt/ranges.h>

#include "output_backup.hpp"
#include "tessel/codegen/cuda.hpp"
#include "tessel/ir/evaluate.hpp"
#include "tessel/passes/pipeline.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/disk_cache.hpp"
#include "tessel/runtime/kernel.hpp"
#include "tessel/runtime/kernel_compiler.hpp"
#include "tessel/sim/simulator.hpp"
#include "tessel/tuning/gpu_timer.hpp"
#include "tessel/tuning/tuner.hpp"

namespace tessel {

std::string_view selection_name(Selection s) {
  switch (s) {
    case Selection::Only: return "the only configuration";
    case Selection::Tuned: return "tuned";
    case Selection::FromDatabase: return "from the tuning database";
    case Selection::FirstFeasible: return "first feasible candidate";
  }
  return "?";
}

std::string HostArg::type_name() const {
  switch (kind) {
    case Kind::Int: return is_bool ? "bool" : "integer";
    case Kind::Float: return "floating-point";
    case Kind::Pointer: return void_pointer ? "void*" : fmt::format("{}*", dtype_name(pointee));
  }
  return "?";
}

}  // namespace tessel

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

bool compile_time(const ParamSpec& p) {
  return p.kind == ParamSpec::Kind::CompileInt || p.kind == ParamSpec::Kind::CompileBool;
}

bool integer_size(const ParamSpec& p) { return p.kind == ParamSpec::Kind::Scalar && !is_float(p.dtype); }

// Run-time sizes share a tuning result within a power-of-two bucket: 3000 and 4096 tune once.
int64_t size_bucket(int64_t v) {
  if (v <= 1) return v;
  int64_t b = 1;
  while (b < v) b <<= 1;
  return b;
}

tuning::Fingerprint fingerprint_of(const Device& d, ir::Arch arch) {
  tuning::Fingerprint f;
  f.nvrtc_version = runtime::nvrtc_version();
  f.tessel_version = TESSEL_VERSION;
  if (d.is_gpu()) {
    const auto info = runtime::CudaDriver::get().device_info();
    f.gpu = info.name;
    f.compute_capability = fmt::format("{}.{}", info.cc_major, info.cc_minor);
    f.sm_count = info.sm_count;
    f.driver_version = info.driver_version;
  } else {
    f.gpu = "simulator";
    f.compute_capability = std::string(ir::arch_name(arch));
  }
  return f;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The first line of a message: a dropped candidate is reported on one line.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kRegistersPerBlock = 65536;

}  // namespace

std::string kernel_name_of(const std::type_info& t) {
  int status = 0;
  char* d = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string full = status == 0 && d ? d : t.name();
  std::free(d);
  for (size_t at; (at = full.find("(anonymous namespace)::")) != std::string::npos;) full.erase(at, 23);
  // Namespaces are dropped everywhere; template arguments become part of an identifier:
  // "ns::Matmul<tessel::bf16>" gives "Matmul_bf16".
  std::string name;
  size_t word = 0;  // where the identifier being read starts in `name`
  for (size_t i = 0; i < full.size(); ++i) {
    const char c = full[i];
    if (c == ':') {
      name.resize(word);
      ++i;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      if (i == 0 || !(std::isalnum(static_cast<unsigned char>(full[i - 1])) || full[i - 1] == '_')) word = name.size();
      name += c;
    } else if ((c == '<' || c == ',') && !name.empty() && name.back() != '_') {
      name += '_';
    }
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
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

// One configuration of the kernel for one set of compile-time arguments: lowered, and on a GPU
// compiled and loaded.
struct KernelCore::Variant {
  ir::Kernel kernel;
  std::string hyperparameters;
  runtime::KernelBinary binary;
  CompileStats stats;
  void* module = nullptr;    // CUmodule
  void* function = nullptr;  // CUfunction
};

void KernelCore::set_binary(Variant& v, runtime::KernelBinary binary) {
  v.binary = std::move(binary);
  v.stats.codegen_ms = v.binary.codegen_ms;
  v.stats.compile_ms = v.binary.compile_ms;
  v.stats.from_cache = v.binary.from_cache;
  v.stats.registers = v.binary.resources.registers;
  v.stats.spill_bytes = v.binary.resources.spill_store_bytes + v.binary.resources.spill_load_bytes;
}

const CompileStats& KernelCore::stats() const {
  static const CompileStats none;
  return last_ ? last_->stats : none;
}

KernelCore::KernelCore(std::string name, std::vector<ParamSpec> params, std::vector<std::string> param_names,
                       TraceFn trace, Space space, Device device, KernelOptions options)
    : name_(std::move(name)), params_(std::move(params)), param_names_(std::move(param_names)),
      trace_(std::move(trace)), space_(std::move(space)), device_(device), options_(std::move(options)),
      arch_(options_.arch.empty() ? arch_of_device(device_) : ir::parse_arch(options_.arch)),
      launch_label_("kernel " + name_) {}

KernelCore::~KernelCore() {
  if (!device_.is_gpu()) return;
  auto& d = runtime::CudaDriver::get();
  for (auto& [key, v] : variants_)
    if (v->module) d.moduleUnload(static_cast<CUmodule>(v->module));
}

void KernelCore::check_args(const std::vector<HostArg>& args) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamSpec& p = params_[i];
    const HostArg& a = args[i];
    auto fail = [&] {
      throw Error(fmt::format("kernel {}, argument {}: expected {}, got a {} value", name_, i, describe_param(p),
                              a.type_name()));
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
        if (a.kind != HostArg::Kind::Pointer || (!a.void_pointer && a.pointee != p.dtype)) fail();
        break;
    }
  }
}

void KernelCore::signature(const std::vector<HostArg>& args, std::vector<int64_t>& out) const {
  out.clear();
  const bool tunable = space_.size() > 1;
  for (size_t i = 0; i < params_.size(); ++i)
    if (compile_time(params_[i])) out.push_back(args[i].i);
    else if (tunable && integer_size(params_[i])) out.push_back(size_bucket(args[i].i));
}

std::string KernelCore::describe_call(const std::vector<HostArg>& args, bool sizes) const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string& n = param_names_[i];
    if (!sizes && compile_time(params_[i])) parts.push_back(fmt::format("{}={}", n, args[i].i));
    if (sizes && integer_size(params_[i])) parts.push_back(fmt::format("{}<={}", n, size_bucket(args[i].i)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::unique_ptr<KernelCore::Variant> KernelCore::build(const std::vector<HostArg>& args, int index, bool compile,
                                                       double time_limit_s, bool strict,
                                                       std::string* infeasible) const {
  auto v = std::make_unique<Variant>();
  const Space::Candidate& config = space_.candidates()[size_t(index)];
  v->hyperparameters = Space::describe(config);
  v->stats.arch = std::string(ir::arch_name(arch_));
  v->stats.hyperparameters = v->hyperparameters;
  ir::Kernel lowered;
  try {
    auto t0 = std::chrono::steady_clock::now();
    ir::Kernel k = trace_(args, config);
    v->stats.trace_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    lowered = passes::lower(k, passes::PassContext{arch_});
    v->stats.lower_ms = ms_since(t0);
  } catch (const Error& e) {
    // With a single configuration the error is the user's to fix; within a space it rules out
    // one candidate (a tile that does not divide, shared memory over the target's limit).
    if (space_.size() == 1) throw;
    *infeasible = first_line(e.what());
    return nullptr;
  }
  v->kernel = lowered;
  if (lowered->threads() > kMaxThreadsPerBlock) {
    *infeasible = fmt::format("{} threads per block; the limit is {}", lowered->threads(), kMaxThreadsPerBlock);
    return nullptr;
  }
  if (device_.is_gpu()) {
    const int limit = runtime::CudaDriver::get().device_info().max_shared_per_block_optin;
    if (lowered->shared_bytes > limit) {
      *infeasible = fmt::format("needs {} bytes of shared memory per block; the device allows {}",
                                lowered->shared_bytes, limit);
      return nullptr;
    }
  }
  if (!compile) return v;
  set_binary(*v, runtime::compile_kernel(*lowered, arch_, {time_limit_s, strict}));
  const runtime::ResourceUsage& r = v->binary.resources;
  if (r.registers > 0 && int64_t(r.registers) * lowered->threads() > kRegistersPerBlock) {
    *infeasible = fmt::format("{} registers x {} threads exceed the {} registers of an SM", r.registers,
                              lowered->threads(), kRegistersPerBlock);
    return nullptr;
  }
  return v;
}

void KernelCore::load(Variant& v) {
  if (v.function || !device_.is_gpu()) return;
  const auto t0 = std::chrono::steady_clock::now();
  auto& d = runtime::CudaDriver::get();
  d.context();
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  d.check(d.moduleLoadData(&mod, v.binary.cubin.data()), "cuModuleLoadData", "kernel " + name_);
  v.module = mod;
  d.check(d.moduleGetFunction(&fn, mod, v.binary.symbol.c_str()), "cuModuleGetFunction", "kernel " + name_);
  v.function = fn;
  if (v.kernel->shared_bytes > 48 * 1024)
    d.check(d.funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(v.kernel->shared_bytes)),
            "cuFuncSetAttribute", "kernel " + name_);
  v.stats.load_ms = ms_since(t0);
}

KernelCore::Variant& KernelCore::adopt(const std::string& compile_args, std::unique_ptr<Variant> v) {
  const std::string key = compile_args + "|" + v->hyperparameters;
  auto it = variants_.find(key);
  if (it == variants_.end()) it = variants_.emplace(key, std::move(v)).first;
  load(*it->second);
  return *it->second;
}

KernelCore::Variant& KernelCore::select(const std::vector<HostArg>& args, bool allow_tuning) {
  const auto& candidates = space_.candidates();
  const std::string compile_args = describe_call(args, false);
  const bool gpu = device_.is_gpu();
  tuning::TunerSettings settings = tuning::TunerSettings::from_environment();
  settings.verbose = options_.verbose;
  const bool compile = gpu;
  auto build_one = [&](int i) {
    std::string infeasible;
    auto v = build(args, i, compile, settings.compile_time_limit_s, settings.strict, &infeasible);
    if (!v) throw Error(fmt::format("kernel {} [{}] cannot run here: {}", name_, Space::describe(candidates[size_t(i)]),
                                    infeasible));
    return v;
  };
  if (candidates.size() == 1) {
    Variant& v = adopt(compile_args, build_one(0));
    v.stats.selection = Selection::Only;
    return v;
  }

  std::vector<std::string> descriptions;
  for (const Space::Candidate& c : candidates) descriptions.push_back(Space::describe(c));
  const std::string sizes = describe_call(args, true);
  const std::string label =
      fmt::format("{} ({})", name_, compile_args.empty() ? sizes : sizes.empty() ? compile_args : compile_args + ", " + sizes);
  // Candidates are built concurrently into their own slots.
  std::vector<std::unique_ptr<Variant>> built(candidates.size());
  tuning::TuningSteps steps;
  steps.build = [&](int i) {
    std::string infeasible;
    built[size_t(i)] = build(args, i, compile, settings.compile_time_limit_s, settings.strict, &infeasible);
    tuning::BuiltCandidate b;
    b.infeasible = infeasible;
    if (const Variant* v = built[size_t(i)].get()) {
      const runtime::ResourceUsage& r = v->binary.resources;
      b.registers = r.registers;
      b.spills = r.spills();
      b.spill_report = fmt::format("{} bytes spill stores, {} bytes spill loads", r.spill_store_bytes, r.spill_load_bytes);
      b.compile_ms = v->binary.compile_ms;
    }
    return b;
  };
  const std::filesystem::path cache_dir = runtime::DiskCache::default_dir();
  const bool can_time = gpu || options_.tuning_timer;
  if (!settings.enabled || !can_time || !allow_tuning) {
    const tuning::TuneResult r = tuning::first_feasible(label, descriptions, steps, settings, cache_dir / "logs");
    Variant& v = adopt(compile_args, std::move(built[size_t(r.winner)]));
    v.stats.selection = Selection::FirstFeasible;
    v.stats.candidates = int(candidates.size());
    return v;
  }

  const tuning::TuningDb db(cache_dir);
  const std::string target(ir::arch_name(arch_));
  const std::string key = tuning::TuningDb::key(name_, descriptions, compile_args, sizes, target);
  const tuning::Fingerprint fingerprint = fingerprint_of(device_, arch_);
  auto usable = [&](const std::optional<tuning::TuningRecord>& rec) -> int {
    if (!rec || rec->fingerprint != fingerprint) return -1;
    for (size_t i = 0; i < descriptions.size(); ++i)
      if (descriptions[i] == rec->winner) return int(i);
    return -1;
  };
  auto from_database = [&](int winner) -> Variant& {
    Variant& v = adopt(compile_args, build_one(winner));
    v.stats.selection = Selection::FromDatabase;
    v.stats.candidates = int(candidates.size());
    if (options_.verbose)
      fmt::print(stderr, "tessel: kernel {} [{}]: {}\n", label, v.hyperparameters, selection_name(v.stats.selection));
    return v;
  };
  std::optional<tuning::TuningRecord> record = db.load(key);
  if (int w = usable(record); w >= 0) return from_database(w);
  if (settings.strict)
    throw Error(fmt::format("kernel {}: {}, and TESSEL_STRICT_CACHE=1 forbids tuning at run time; run once without "
                            "it on this machine to record a result in {}",
                            label,
                            record ? fmt::format("the tuning result was measured elsewhere ({})",
                                                 record->fingerprint.difference(fingerprint))
                                   : std::string("there is no tuning result for it"),
                            cache_dir.string()));

  // One process tunes a key at a time; the others wait and then read its result.
  const tuning::TuningDb::Lock lock = db.lock(key);
  record = db.load(key);
  if (int w = usable(record); w >= 0) return from_database(w);
  if (record && options_.verbose)
    fmt::print(stderr, "tessel: kernel {}: retuning, the recorded result was measured elsewhere ({})\n", label,
               record->fingerprint.difference(fingerprint));

  std::optional<tuning::GpuTimer> timer;
  std::optional<runtime::OutputBackup> backup;
  if (!options_.tuning_timer) {
    timer.emplace();
    backup.emplace(args);  // timing runs write the call's outputs; they are put back afterwards
  }
  steps.time = [&](int i) {
    Variant& v = *built[size_t(i)];
    if (options_.tuning_timer) return options_.tuning_timer(v.hyperparameters);
    load(v);
    return timer->median_ms([&](void* stream) { launch_variant(v, args, stream); });
  };
  const tuning::TuneResult r = tuning::tune(label, descriptions, steps, settings, cache_dir / "logs");
  if (backup) backup->restore();

  tuning::TuningRecord rec;
  rec.kernel = name_;
  rec.compile_args = compile_args;
  rec.size_bucket = sizes;
  rec.target = target;
  rec.fingerprint = fingerprint;
  rec.winner = descriptions[size_t(r.winner)];
  rec.winner_ms = r.outcomes[size_t(r.winner)].median_ms;
  rec.tuning_wall_ms = r.wall_ms;
  rec.tuned_at = utc_now();
  rec.candidates = r.outcomes;
  db.store(key, rec);

  Variant& v = adopt(compile_args, std::move(built[size_t(r.winner)]));
  v.stats.selection = Selection::Tuned;
  v.stats.candidates = int(candidates.size());
  v.stats.tuning_wall_ms = r.wall_ms;
  return v;
}

KernelCore::Variant& KernelCore::prepare(const std::vector<HostArg>& args, bool allow_tuning) {
  check_args(args);
  signature(args, call_signature_);
  for (size_t i = bindings_.size(); i-- > 0;)
    if (bindings_[i].signature == call_signature_) {
      last_ = bindings_[i].variant;
      return *bindings_[i].variant;
    }
  Variant& v = select(args, allow_tuning);
  last_ = &v;
  const CompileStats& s = v.stats;
  if (options_.verbose)
    fmt::print(stderr,
               "tessel: kernel {} [{}] for {} ({}): trace {:.2f} ms, passes {:.2f} ms, codegen {:.2f} ms, {} {:.2f} ms, "
               "module load {:.2f} ms{}\n",
               name_, v.hyperparameters, s.arch, selection_name(s.selection), s.trace_ms,
               s.lower_ms, s.codegen_ms, s.from_cache ? "cache load" : "NVRTC compile",
               s.compile_ms, s.load_ms,
               s.registers >= 0 ? fmt::format(", {} registers, {} spill bytes", s.registers, s.spill_bytes)
                                     : "");
  // Only calls that may tune are remembered: an introspection call must not pin an untuned choice.
  if (allow_tuning || space_.size() == 1) bindings_.push_back({call_signature_, &v});
  return v;
}

ir::Kernel KernelCore::traced(const std::vector<HostArg>& args) {
  check_args(args);
  return trace_(args, space_.candidates().front());
}

ir::Kernel KernelCore::lowered(const std::vector<HostArg>& args) { return prepare(args, false).kernel; }

std::string KernelCore::cuda_source(const std::vector<HostArg>& args) {
  return codegen::emit_cuda(*prepare(args, false).kernel, arch_).source;
}

std::vector<char> KernelCore::cubin(const std::vector<HostArg>& args) {
  Variant& v = prepare(args, false);
  if (v.binary.cubin.empty()) {  // the simulator prepares kernels without compiling them
    set_binary(v, runtime::compile_kernel(*v.kernel, arch_));
  }
  last_ = &v;
  return v.binary.cubin;
}

void KernelCore::launch(const std::vector<HostArg>& args, void* stream) {
  launch_variant(prepare(args, true), args, stream);
}

void KernelCore::launch_variant(const Variant& v, const std::vector<HostArg>& args, void* stream) const {
  const ir::KernelNode& k = *v.kernel;
  // Run-time parameter values, in the order of the kernel's parameters.
  constexpr size_t kInline = 16;
  std::array<ir::Scalar, kInline> inline_values;
  std::vector<ir::Scalar> heap_values;
  ir::Scalar* values = inline_values.data();
  if (k.params.size() > kInline) {
    heap_values.resize(k.params.size());
    values = heap_values.data();
  }
  size_t p = 0;
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamSpec& spec = params_[i];
    if (compile_time(spec)) continue;
    const HostArg& a = args[i];
    ir::Scalar s{.i = 0};
    if (spec.kind == ParamSpec::Kind::Pointer) s.i = int64_t(reinterpret_cast<uintptr_t>(a.p));
    else if (is_float(spec.dtype)) s.f = a.kind == HostArg::Kind::Float ? a.f : double(a.i);
    else s.i = a.i;
    values[p++] = s;
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
    sim::run(k, sim::Launch{grid, std::vector<ir::Scalar>(values, values + p)}, sim::Options{options_.sim_seed});
    return;
  }
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return;
  std::array<uint64_t, kInline> inline_storage;
  std::array<void*, kInline> inline_pointers;
  std::vector<uint64_t> heap_storage;
  std::vector<void*> heap_pointers;
  uint64_t* storage = inline_storage.data();
  void** pointers = inline_pointers.data();
  if (p > kInline) {
    heap_storage.resize(p);
    heap_pointers.resize(p);
    storage = heap_storage.data();
    pointers = heap_pointers.data();
  }
  for (size_t j = 0; j < p; ++j) {
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
  d.check(d.launchKernel(static_cast<CUfunction>(v.function), unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]),
                         unsigned(k.threads()), 1, 1, unsigned(k.shared_bytes), static_cast<CUstream>(stream), pointers,
                         nullptr),
          "cuLaunchKernel", launch_label_);
}

}  // namespace tessel::detail
