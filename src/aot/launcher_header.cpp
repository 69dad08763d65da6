// The launcher header of ahead-of-time exported kernels: for each kernel a class that loads its
// embedded cubin (or, for sm_80 code on a later GPU, its embedded PTX) into the current context and whose call does, in
// generated C++, what KernelCore::launch_variant does for the same variant (src/jit/launch_variant.cpp).
#include <span>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "host_expressions.hpp"
#include "tessel/aot/exported_kernel.hpp"
#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/target_limits.hpp"

namespace tessel::aot {

namespace {

// A C++ string literal of `text`.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

// The C++ type of a scalar kernel parameter, as the kernel takes it.
std::string scalar_type(const ir::VarNode& p, const ir::KernelNode& k) {
  switch (p.type.dtype) {
    case DType::Bool: return "bool";
    case DType::I8: return "int8_t";
    case DType::U8: return "uint8_t";
    case DType::I16: return "int16_t";
    case DType::U16: return "uint16_t";
    case DType::I32: return "int32_t";
    case DType::U32: return "uint32_t";
    case DType::I64: return "int64_t";
    case DType::U64: return "uint64_t";
    case DType::F32: return "float";
    case DType::F64: return "double";
    default:
      throw Error(k.loc, fmt::format("aot: kernel {} takes parameter {} of type {}, which an exported launcher does "
                                     "not take yet; pass it as f32 and convert it in the kernel",
                                     k.name, p.name, dtype_name(p.type.dtype)));
  }
}

std::string tensor_map_type(DType t) {
  if (t == DType::F4E2M1) return "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B";
  if (t == DType::F6E2M3 || t == DType::F6E3M2) return "CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B";
  switch (t) {
    case DType::Bool:
    case DType::I8:
    case DType::U8:
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::E8M0: return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
    case DType::I16:
    case DType::U16: return "CU_TENSOR_MAP_DATA_TYPE_UINT16";
    case DType::I32: return "CU_TENSOR_MAP_DATA_TYPE_INT32";
    case DType::U32:
    case DType::TF32: return "CU_TENSOR_MAP_DATA_TYPE_UINT32";
    case DType::I64: return "CU_TENSOR_MAP_DATA_TYPE_INT64";
    case DType::U64: return "CU_TENSOR_MAP_DATA_TYPE_UINT64";
    case DType::F16: return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
    case DType::BF16: return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
    case DType::F32: return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
    case DType::F64: return "CU_TENSOR_MAP_DATA_TYPE_FLOAT64";
    default: TESSEL_CHECK(false, "a tensor map of {} elements", dtype_name(t));
  }
  return "";
}

std::string tensor_map_swizzle(int bits) {
  switch (bits) {
    case 0: return "CU_TENSOR_MAP_SWIZZLE_NONE";
    case 1: return "CU_TENSOR_MAP_SWIZZLE_32B";
    case 2: return "CU_TENSOR_MAP_SWIZZLE_64B";
    case 3: return "CU_TENSOR_MAP_SWIZZLE_128B";
  }
  TESSEL_CHECK(false, "a tensor map swizzle of {} bits", bits);
  return "";
}

class LauncherWriter {
 public:
  explicit LauncherWriter(const ExportedKernel& e) : e_(e), k_(*e.kernel) {}

  std::string text() {
    line(fmt::format("// {}: kernel {} for {}, compiled for {}.", e_.name, k_.name, e_.arch,
                     e_.compiled_for.empty() ? "any arguments" : e_.compiled_for));
    line(fmt::format("class {} {{", e_.name));
    line(" public:");
    constructor();
    line(fmt::format("  ~{}() {{", e_.name));
    if (scratch_count()) {
      line("    for (Scratch& s : scratch_)");
      line("      for (CUdeviceptr b : s.buffer)");
      line("        if (b) cuMemFree(b);");
    }
    line("    if (module_) cuModuleUnload(module_);");
    line("  }");
    line(fmt::format("  {0}(const {0}&) = delete;", e_.name));
    line(fmt::format("  {0}& operator=(const {0}&) = delete;", e_.name));
    call();
    line("");
    line(" private:");
    bytes("kCubin", e_.cubin);
    // NUL-terminated, as cuModuleLoadData takes PTX.
    if (!e_.ptx.empty()) bytes("kPtx", std::span<const char>(e_.ptx.c_str(), e_.ptx.size() + 1));
    line("  CUmodule module_ = nullptr;");
    line("  CUfunction function_ = nullptr;");
    line("  int multiprocessors_ = 0;");
    if (scratch_count()) scratch_members();
    line("};");
    return out_;
  }

 private:
  void line(const std::string& s) { out_ += s + "\n"; }
  size_t call_params() const { return k_.call_params(); }
  size_t scratch_count() const {
    size_t n = 0;
    for (const ir::DerivedParam& p : k_.derived_params) n += p.is_scratch();
    return n;
  }
  std::string expr(const ir::Expr& e) const { return host_expression(*e, k_); }

  // The global_scratch buffers, a set for each stream (the per-thread default stream is one for each
  // host thread), so that launches on two streams, which may run at once, never share one.
  void scratch_members() {
    line("  struct Scratch {");
    line("    CUstream stream;");
    line("    std::thread::id thread;");
    line(fmt::format("    CUdeviceptr buffer[{}] = {{}};", scratch_count()));
    line(fmt::format("    int64_t bytes[{}] = {{}};", scratch_count()));
    line("  };");
    line("  std::vector<Scratch> scratch_;");
    line("  Scratch& scratch_for(CUstream stream) {");
    line(
        "    const std::thread::id thread = stream == CU_STREAM_PER_THREAD ? std::this_thread::get_id() : "
        "std::thread::id();");
    line("    for (Scratch& s : scratch_)");
    line("      if (s.stream == stream && s.thread == thread) return s;");
    line("    return scratch_.emplace_back(Scratch{stream, thread});");
    line("  }");
  }
  // A static array of `data`'s bytes, 24 to a line.
  void bytes(std::string_view array, std::span<const char> data) {
    line(fmt::format("  static constexpr unsigned char {}[{}] = {{", array, data.size()));
    for (size_t i = 0; i < data.size(); i += 24) {
      std::string row = "     ";
      for (size_t j = i; j < std::min(data.size(), i + 24); ++j) row += fmt::format(" {},", uint8_t(data[j]));
      line(row);
    }
    line("  };");
  }
  std::string where(const SourceLoc& loc) const { return quoted(loc.str() + ": "); }

  void constructor() {
    line("  // Loads the kernel into the current CUDA context, on its device, which must run its target's code.");
    line(fmt::format("  {}() {{", e_.name));
    line("    CUdevice device;");
    line(fmt::format(
        "    detail::check(cuCtxGetDevice(&device), \"{}: cuCtxGetDevice (the launcher loads its kernel into "
        "the current CUDA context: call cuInit(0) and make a context current first, as "
        "cuDevicePrimaryCtxRetain and cuCtxSetCurrent do, or cudaSetDevice)\");",
        e_.name));
    runs_here();
    if (e_.ptx.empty()) {
      line(fmt::format("    detail::check(cuModuleLoadData(&module_, kCubin), \"{}: cuModuleLoadData\");", e_.name));
    } else {
      line("    CUresult loaded = cuModuleLoadData(&module_, kCubin);");
      line("    // sm_80 machine code runs on compute capability 8.x; the driver compiles the PTX for later GPUs.");
      line("    if (loaded == CUDA_ERROR_NO_BINARY_FOR_GPU) loaded = cuModuleLoadData(&module_, kPtx);");
      line(fmt::format("    detail::check(loaded, \"{}: cuModuleLoadData\");", e_.name));
    }
    line(fmt::format("    detail::check(cuModuleGetFunction(&function_, module_, {}), \"{}: cuModuleGetFunction\");",
                     quoted(e_.symbol), e_.name));
    if (k_.shared_bytes > 48 * 1024)
      line(fmt::format(
          "    detail::check(cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "
          "{}), \"{}: cuFuncSetAttribute\");",
          k_.shared_bytes, e_.name));
    line(
        "    detail::check(cuDeviceGetAttribute(&multiprocessors_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),");
    line(fmt::format("                  \"{}: cuDeviceGetAttribute\");", e_.name));
    line("  }");
  }

  // Refuses a GPU that runs no code of the kernel's target, as the JIT does (runtime::require_runnable):
  // sm_80 code runs from compute capability 8.0 on (from its PTX after 8.x), an "a" target's on its
  // own compute capability only.
  void runs_here() {
    const ir::Arch arch = ir::parse_arch(e_.arch);
    const int major = ir::compute_capability_major(arch);
    line("    int major = 0, minor = 0;");
    for (const auto& [variable, attribute] : {std::pair{"major", "MAJOR"}, {"minor", "MINOR"}})
      line(
          fmt::format("    detail::check(cuDeviceGetAttribute(&{}, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{}, device), "
                      "\"{}: cuDeviceGetAttribute\");",
                      variable, attribute, e_.name));
    line(fmt::format(
        "    if ({}) throw Error(\"kernel {} is built for {}, which runs on {}; \"",
        arch == ir::Arch::Sm80 ? fmt::format("major < {}", major) : fmt::format("major != {} || minor != 0", major),
        k_.name, e_.arch, ir::gpus_running(arch)));
    line("                       \"this GPU has compute capability \" + std::to_string(major) + \".\" +");
    line(
        "                       std::to_string(minor) + \": export it for the GPU's own target (tessel aot "
        "--arch)\");");
  }

  void call() {
    std::vector<std::string> params;
    for (size_t i = 0; i < call_params(); ++i) {
      const ir::VarNode& p = *k_.params[i];
      params.push_back(p.type.pointer ? fmt::format("Buffer {}", p.name)
                                      : fmt::format("{} {}", scalar_type(p, k_), p.name));
    }
    line("  // Checks the arguments as tessel's JIT does and launches on `stream`.");
    line(fmt::format("  void operator()(CUstream stream{}{}) {{", params.empty() ? "" : ", ", fmt::join(params, ", ")));
    line(fmt::format("    const std::string tessel_kernel = \"kernel {}\";", k_.name));
    line(fmt::format("    int64_t tessel_v[{}] = {{}};", k_.params.size()));
    for (size_t i = 0; i < call_params(); ++i) arguments(i);
    requirements();
    derived();
    views();
    grid();
    tensor_maps();
    launch();
    line("  }");
  }

  void arguments(size_t i) {
    const ir::VarNode& p = *k_.params[i];
    const int64_t divisor = k_.param_divisor(i);
    if (!p.type.pointer) {
      if (!is_float(p.type.dtype)) line(fmt::format("    tessel_v[{}] = int64_t({});", i, p.name));
      if (divisor > 1)
        line(
            fmt::format("    if (tessel_v[{0}] % {1} != 0) throw Error(tessel_kernel + \", parameter {2}: \" + "
                        "std::to_string(tessel_v[{0}]) "
                        "+ \" is not a multiple of {1}, and this export was compiled for multiples of {1}; export it "
                        "for sizes that are not multiples of {1}\");",
                        i, divisor, p.name));
      return;
    }
    const int align = element_alignment(p.type.dtype);
    line(fmt::format("    tessel_v[{}] = int64_t({}.data);", i, p.name));
    line(fmt::format(
        "    if (!{}.data) throw Error(tessel_kernel + \", parameter {}: the pointer is null; pass device memory\");",
        p.name, p.name));
    // Any address holds an element of one byte (or fewer bits).
    if (align > 1)
      line(fmt::format(
          "    if ({0}.data % {1} != 0) throw Error(tessel_kernel + \", parameter {0}: the pointer is not aligned to "
          "its element type {2} ({1} bytes); pass the address of a whole {2} element\");",
          p.name, align, dtype_name(p.type.dtype)));
    if (divisor > align)
      line(
          fmt::format("    if ({0}.data % {1} != 0) throw Error(tessel_kernel + \", parameter {0}: the pointer is not "
                      "{1}-byte aligned, and this export was compiled for a {1}-byte aligned {0}\");",
                      p.name, divisor));
  }

  void derived() {
    if (scratch_count()) line("    Scratch& tessel_scratch = scratch_for(stream);");
    size_t scratch = 0;
    for (size_t i = 0; i < k_.derived_params.size(); ++i) {
      const ir::DerivedParam& p = k_.derived_params[i];
      const size_t j = call_params() + i;
      switch (p.value) {
        case ir::DerivedValue::Divisor:
        case ir::DerivedValue::Multiplier:
        case ir::DerivedValue::Log2: {
          line("    {");
          line(fmt::format("      const int64_t d = {};", expr(p.source)));
          line(fmt::format(
              "      if (d <= 0) throw Error({} \"fast_divmod: the divisor is \" + std::to_string(d) + \" at "
              "this launch of \" + tessel_kernel + \"; it must be positive\");",
              where(p.loc)));
          if (p.value == ir::DerivedValue::Divisor) {
            line(fmt::format("      tessel_v[{}] = d;", j));
          } else {
            line("      int64_t multiplier, log2;");
            line("      detail::divisor_magic(uint32_t(d), &multiplier, &log2);");
            line(fmt::format("      tessel_v[{}] = {};", j,
                             p.value == ir::DerivedValue::Multiplier ? "multiplier" : "log2"));
          }
          line("    }");
          break;
        }
        case ir::DerivedValue::Multiprocessors: line(fmt::format("    tessel_v[{}] = multiprocessors_;", j)); break;
        case ir::DerivedValue::TraceBuffer: break;  // an exported launcher records no timeline: null
        case ir::DerivedValue::Scratch:
        case ir::DerivedValue::ZeroedScratch: {
          line("    {");
          line(fmt::format("      const int64_t bytes = {};", expr(p.source)));
          line(fmt::format(
              "      if (bytes < 0) throw Error({} \"global_scratch: the shape gives \" + std::to_string(bytes) "
              "+ \" bytes at this launch of \" + tessel_kernel);",
              where(p.loc)));
          const std::string buffer = fmt::format("tessel_scratch.buffer[{}]", scratch);
          line(fmt::format("      if (bytes > tessel_scratch.bytes[{}] || !{}) {{", scratch, buffer));
          line(fmt::format("        if ({0}) cuMemFree({0});", buffer));
          line(fmt::format("        {} = 0;", buffer));
          line(
              fmt::format("        detail::check(cuMemAlloc(&{}, size_t(bytes > 0 ? bytes : 1)), tessel_kernel + \": "
                          "cuMemAlloc of a scratch buffer\");",
                          buffer));
          if (p.value == ir::DerivedValue::ZeroedScratch)
            line(
                fmt::format("        detail::check(cuMemsetD8Async({}, 0, size_t(bytes), stream), tessel_kernel + \": "
                            "cuMemsetD8Async\");",
                            buffer));
          line(fmt::format("        tessel_scratch.bytes[{}] = bytes;", scratch));
          line("      }");
          line(fmt::format("      tessel_v[{}] = int64_t({});", j, buffer));
          line("    }");
          ++scratch;
          break;
        }
      }
    }
  }

  void views() {
    for (const CheckedView& c : e_.checked_views) {
      const ir::GlobalTensorNode& view = *c.view;
      const std::string& param = k_.params[c.param]->name;
      line(fmt::format("    if ({}.elements >= 0) {{", param));
      line("      int64_t first = 0, last = 0;");
      line("      bool empty = false;");
      for (int d = 0; d < view.rank(); ++d) {
        line(fmt::format("      {{ const int64_t extent = {}, stride = {};", expr(view.shape[size_t(d)]),
                         expr(view.strides[size_t(d)])));
        line("        empty = empty || extent <= 0; (stride < 0 ? first : last) += (extent - 1) * stride; }");
      }
      line(fmt::format("      if (!empty && (first < 0 || last >= {}.elements))", param));
      line(fmt::format(
          "        throw Error({} + tessel_kernel + \": the global_view of parameter {} spans elements \" + "
          "std::to_string(first) + \" to \" + std::to_string(last) + \", but the argument for {} holds \" "
          "+ std::to_string({}.elements) + \"; pass a larger tensor, or sizes that fit it\");",
          where(view.loc), param, param, param));
      line("    }");
    }
  }

  // Script::require: the first condition that fails throws, naming the user's line and the values
  // of the parameters it reads, as the JIT's launch does.
  void requirements() {
    for (const ir::Requirement& r : k_.requirements)
      line(fmt::format("    if (!({})) throw Error({} + tessel_kernel + {});", expr(r.cond), where(r.loc),
                       with_launch_values(": " + r.message, r.cond)));
  }

  // `text` followed by the call parameters that `e` reads with this launch's values, as a C++ string
  // expression: "<text> (this launch has " + "n = " + std::to_string(...) + ")", as the JIT's
  // messages have them; `text` alone when `e` reads none.
  std::string with_launch_values(const std::string& text, const ir::Expr& e) const {
    std::vector<std::string> values;
    for (size_t j : ir::call_params_read(*e, k_)) {
      const ir::VarNode& p = *k_.params[j];
      values.push_back(fmt::format("{} + std::to_string({})", quoted(p.name + " = "), host_expression(p, k_)));
    }
    if (values.empty()) return quoted(text);
    return quoted(text + " (this launch has ") + " + " + fmt::format("{}", fmt::join(values, " + \", \" + ")) +
           " + \")\"";
  }

  void grid() {
    const std::array<int64_t, 3>& limit = ir::target_limits(ir::parse_arch(e_.arch)).max_grid_blocks;
    line("    unsigned tessel_grid[3] = {1, 1, 1};");
    for (size_t d = 0; d < k_.blocks.size(); ++d) {
      line("    {");
      line(fmt::format("      const int64_t g = {};", expr(k_.blocks[d])));
      line(fmt::format(
          "      if (g < 0 || g > {}) throw Error({} + tessel_kernel + \": grid extent {} is \" + std::to_string(g) + "
          "{});",
          limit[d], where(k_.blocks_loc), d,
          with_launch_values(fmt::format(", outside the range the hardware accepts (0 to {})", limit[d]),
                             k_.blocks[d])));
      line(fmt::format("      tessel_grid[{}] = unsigned(g);", d));
      line("    }");
    }
    if (k_.clustered())
      line(
          fmt::format("    if (tessel_grid[0] % {} || tessel_grid[1] % {} || tessel_grid[2] % {}) throw Error({} + "
                      "tessel_kernel + \": attrs.blocks "
                      "gives a grid that is not a whole number of its {} x {} x {} clusters (attrs.cluster)\");",
                      k_.cluster[0], k_.cluster[1], k_.cluster[2], where(k_.blocks_loc), k_.cluster[0], k_.cluster[1],
                      k_.cluster[2]));
    line("    if (tessel_grid[0] == 0 || tessel_grid[1] == 0 || tessel_grid[2] == 0) return;");
  }

  void tensor_maps() {
    if (k_.tensor_maps.empty()) return;
    line(fmt::format("    alignas(64) CUtensorMap tessel_maps[{}];", k_.tensor_maps.size()));
    for (size_t m = 0; m < k_.tensor_maps.size(); ++m) {
      const ir::TensorMap& map = k_.tensor_maps[m];
      const ir::GlobalTensorNode& view = *map.view;
      const int rank = view.rank();
      // Bytes of a stride of packed elements: a whole number, as a packed view's rows are whole bytes.
      const std::string bytes = is_packed(view.dtype) ? fmt::format("{} / 8", dtype_bits(view.dtype))
                                                      : std::to_string(dtype_bytes(view.dtype));
      line("    {");
      line(fmt::format("      const int64_t address = {};", expr(view.ptr)));
      line(
          fmt::format("      if (address % 16 != 0) throw Error({} \"tma: the global view starts at an address that is "
                      "not 16-byte aligned; TMA needs a 16-byte aligned global address\");",
                      where(map.loc)));
      std::vector<std::string> extents, strides, box, ones;
      for (int d = 0; d < rank; ++d) {
        const size_t inner = size_t(rank - 1 - d);  // the driver counts from the innermost dimension
        extents.push_back(fmt::format("cuuint64_t({})", expr(view.shape[inner])));
        if (d > 0) strides.push_back(fmt::format("cuuint64_t({}) * {}", expr(view.strides[inner]), bytes));
        box.push_back(std::to_string(map.box[inner]));
        ones.push_back("1");
      }
      line(fmt::format("      const cuuint64_t extents[{}] = {{{}}};", rank, fmt::join(extents, ", ")));
      line(fmt::format("      const cuuint64_t strides[{}] = {{{}}};", std::max(rank - 1, 1),
                       strides.empty() ? "0" : fmt::format("{}", fmt::join(strides, ", "))));
      line(fmt::format("      const cuuint32_t box[{}] = {{{}}}, element_strides[{}] = {{{}}};", rank,
                       fmt::join(box, ", "), rank, fmt::join(ones, ", ")));
      line(fmt::format(
          "      detail::check(cuTensorMapEncodeTiled(&tessel_maps[{}], {}, {}, reinterpret_cast<void*>(address), "
          "extents, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, {}, "
          "CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), {} + tessel_kernel + \": "
          "cuTensorMapEncodeTiled\");",
          m, tensor_map_type(view.dtype), rank, tensor_map_swizzle(map.swizzle_bits), where(map.loc)));
      line("    }");
    }
  }

  void launch() {
    std::vector<std::string> pointers;
    for (size_t i = 0; i < k_.params.size(); ++i) {
      const ir::VarNode& p = *k_.params[i];
      const std::string type = p.type.pointer ? "CUdeviceptr" : scalar_type(p, k_);
      const std::string value = !p.type.pointer && is_float(p.type.dtype) && i < call_params()
                                    ? p.name
                                    : fmt::format("{}(tessel_v[{}])", type, i);
      line(fmt::format("    {} tessel_p{} = {};", type, i, value));
      pointers.push_back(fmt::format("&tessel_p{}", i));
    }
    for (size_t m = 0; m < k_.tensor_maps.size(); ++m) pointers.push_back(fmt::format("&tessel_maps[{}]", m));
    line(fmt::format("    void* tessel_params[] = {{{}}};",
                     pointers.empty() ? "nullptr" : fmt::format("{}", fmt::join(pointers, ", "))));
    const std::string shape = fmt::format("tessel_grid[0], tessel_grid[1], tessel_grid[2], {}, 1, 1, {}", k_.threads(),
                                          std::max<int64_t>(k_.shared_bytes, 0));
    const bool dependent = ir::waits_for_prior_grids(k_);
    if (!k_.clustered() && !dependent) {
      line(fmt::format(
          "    detail::check(cuLaunchKernel(function_, {}, stream, tessel_params, nullptr), tessel_kernel + \": "
          "cuLaunchKernel\");",
          shape));
      return;
    }
    line("    CUlaunchAttribute tessel_attrs[2] = {};");
    int count = 0;
    if (k_.clustered()) {
      line(fmt::format("    tessel_attrs[{}].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;", count));
      for (int d = 0; d < 3; ++d)
        line(fmt::format("    tessel_attrs[{}].value.clusterDim.{} = {};", count, "xyz"[d], k_.cluster[size_t(d)]));
      ++count;
    }
    if (dependent) {
      // The kernel waits for prior grids (grid_dependency.wait()): it may start before they end.
      line(fmt::format("    tessel_attrs[{}].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;", count));
      line(fmt::format("    tessel_attrs[{}].value.programmaticStreamSerializationAllowed = 1;", count));
      ++count;
    }
    line("    CUlaunchConfig config = {};");
    line("    config.gridDimX = tessel_grid[0]; config.gridDimY = tessel_grid[1]; config.gridDimZ = tessel_grid[2];");
    line(fmt::format("    config.blockDimX = {}; config.blockDimY = 1; config.blockDimZ = 1;", k_.threads()));
    line(fmt::format("    config.sharedMemBytes = {};", std::max<int64_t>(k_.shared_bytes, 0)));
    line(fmt::format("    config.hStream = stream; config.attrs = tessel_attrs; config.numAttrs = {};", count));
    line(
        "    detail::check(cuLaunchKernelEx(&config, function_, tessel_params, nullptr), tessel_kernel + \": "
        "cuLaunchKernelEx\");");
  }

  const ExportedKernel& e_;
  const ir::KernelNode& k_;
  std::string out_;
};

}  // namespace

std::string launcher_header(const std::vector<ExportedKernel>& kernels) {
  std::vector<std::string> names;
  for (const ExportedKernel& e : kernels) names.push_back(e.name);
  std::string out = fmt::format(
      "// Generated by tessel aot: {}. Include it and link libcuda (-lcuda); a launcher class loads its kernel into "
      "the current CUDA context when constructed.\n#pragma once\n\n",
      fmt::join(names, ", "));
  out += "#ifndef TESSEL_AOT_RUNTIME\n#define TESSEL_AOT_RUNTIME\n" + launcher_runtime() +
         "#endif  // TESSEL_AOT_RUNTIME\n";
  out += "\nnamespace tessel_aot {\n\n";
  for (const ExportedKernel& e : kernels) out += LauncherWriter(e).text() + "\n";
  return out + "}  // namespace tessel_aot\n";
}

}  // namespace tessel::aot
