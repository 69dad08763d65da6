// Global loads and stores under a view's qualifiers: the non-coherent cache (ld.global.nc), an L1
// eviction priority and an L2 cache policy. Each combination a kernel uses is a function of its own
// source, defined on first use, so the device header does not carry every combination.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

std::string l1_qualifier(ir::L1Hint hint) {
  return hint == ir::L1Hint::Normal ? "" : fmt::format(".L1::{}", ir::l1_hint_name(hint));
}

// The text of a function moving N elements of T (1, 2, 4, 8 or 16 bytes, aligned to their size)
// between `p` in global memory and registers, each access rendered by `access` for its width.
std::string access_function(const std::string& name, bool load, const std::function<std::string(int bytes)>& access) {
  const std::string signature = load ? "T* dst, const T* p" : "T* p, const T* src";
  std::vector<std::string> branches;
  for (const int bytes : {16, 8, 4, 2, 1}) {
    const std::string words = bytes == 16  ? "uint32_t w[4];"
                              : bytes == 8 ? "uint32_t w[2];"
                              : bytes == 4 ? "uint32_t w;"
                                           : "unsigned short w;";
    // A byte moves in a 16-bit register: PTX has no 8-bit ones.
    const std::string address = bytes >= 8 ? "w" : "&w";
    const std::string to_registers = bytes == 1 ? "w = *reinterpret_cast<const unsigned char*>(src);"
                                                : fmt::format("memcpy({}, src, {});", address, bytes);
    const std::string from_registers = bytes == 1 ? "*reinterpret_cast<unsigned char*>(dst) = (unsigned char)w;"
                                                  : fmt::format("memcpy(dst, {}, {});", address, bytes);
    branches.push_back(fmt::format("if constexpr (bytes == {}) {{\n    {}\n    {}\n    {}\n  }}", bytes, words,
                                   load ? access(bytes) : to_registers, load ? from_registers : access(bytes)));
  }
  const std::string body = "  " + fmt::format("{}", fmt::join(branches, " else ")) + "\n";
  return fmt::format(R"CUDA(
template <class T, int N> __device__ __forceinline__ void {}({}) {{
  constexpr int bytes = int(sizeof(T)) * N;
  static_assert(bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16, "an access of 1 to 16 bytes");
{}}}
)CUDA",
                     name, signature, body);
}

}  // namespace

std::string global_access(Emitter& e, const ir::GlobalTensorNode& g, bool load) {
  const bool non_coherent = load && g.read_only;
  if (!non_coherent && g.l1_hint == ir::L1Hint::Normal && g.cache_hint == ir::CacheHint::Normal)
    return load ? "tessel_load_vec" : "tessel_store_vec";
  const std::string name = fmt::format(
      "tessel_{}_vec{}{}{}", load ? "load" : "store", non_coherent ? "_nc" : "",
      g.l1_hint == ir::L1Hint::Normal ? "" : fmt::format("_l1_{}", ir::l1_hint_name(g.l1_hint)),
      g.cache_hint == ir::CacheHint::Normal ? "" : fmt::format("_l2_{}", ir::cache_hint_name(g.cache_hint)));
  if (e.functions.contains(name)) return name;
  const auto access = [&](int bytes) {
    PtxOperands operands;
    PtxModifiers modifiers{{"l1", l1_qualifier(g.l1_hint)}};
    if (load) modifiers["nc"] = non_coherent ? ".nc" : "";
    const bool vector = bytes >= 8;
    const std::vector<std::string> words = bytes == 16 ? std::vector<std::string>{"w[0]", "w[1]", "w[2]", "w[3]"}
                                           : vector    ? std::vector<std::string>{"w[0]", "w[1]"}
                                                       : std::vector<std::string>{"w"};
    if (load)
      operands = {words, {"p"}};
    else
      operands = {{"p"}, words};
    add_cache_hint(g.cache_hint, operands, modifiers);
    if (!vector) {
      modifiers["width"] = bytes == 4 ? "b32" : bytes == 2 ? "b16" : "b8";
      modifiers["register"] = bytes == 4 ? "r" : "h";
    }
    const Ptx row = load ? (vector ? Ptx::LdGlobalQualifiedVector : Ptx::LdGlobalQualified)
                         : (vector ? Ptx::StGlobalQualifiedVector : Ptx::StGlobalQualified);
    return ptx_asm(row, ir::Arch::Sm80, operands, modifiers);
  };
  e.functions[name] = access_function(name, load, access);
  return name;
}

}  // namespace tessel::codegen
