// The weight-only GEMMs' registrations (mma.sync, and wgmma for many rows) and their weights'
// repacking, one of each per weight type: the widths 2, 3, 4, 6 and 8, integer and floating-point
// (tests/weight_only_gemm_test.cpp runs every other width); and both GEMMs with bf16 activations
// for 3-, 4-, 6- and 8-bit integers.
#include <tuple>
#include <type_traits>

#include "examples.hpp"
#include "weight_only_gemm_check.hpp"

namespace tessel::examples {

namespace {

// One of the weight-only GEMMs S over weights W and activations Act, named `name` and run by
// run_weight_only_gemm.
template <class W, class S, class Act = f16>
KernelEntry weight_only_gemm_entry(std::string name, std::string description, std::vector<int64_t> default_sizes) {
  KernelEntry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.size_names = {"m", "n (a multiple of 8)", "k (a multiple of 128)"};
  e.default_sizes = std::move(default_sizes);
  e.runner = [label = e.name](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    return quantized::run_weight_only_gemm<W, S, Act>(dev, int(s[0]), int(s[1]), int(s[2]), opt, label);
  };
  add_introspection<S>(e, [](const std::vector<int64_t>& s) {
    Act* h = nullptr;
    uint32_t* w = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), h, w, h, h);
  });
  return e;
}

// The mma.sync GEMM with activations, scales and output in Act; bf16's names say so.
template <class W, class Act = f16> KernelEntry weight_only_gemm_example() {
  const std::string type(dtype_name(dtype_v<W>)), act = std::is_same_v<Act, f16> ? "" : "bf16_";
  const std::string_view act_name = dtype_name(dtype_v<Act>);
  return weight_only_gemm_entry<W, quantized::WeightOnlyGemm<W, Act>, Act>(
      "weight_only_gemm_" + act + type,
      fmt::format("GEMM of {} activations and {} weights with {} scales and zero points per 128 of k "
                  "(mma.sync, dequantized in registers; weights repacked by weight_only_repack_{}{})",
                  act_name, type, act_name, act, type),
      {40, 200, 384});
}

// The wgmma GEMM with activations, scales and output in Act; bf16's names say so.
template <class W, class Act = f16> KernelEntry weight_only_gemm_wgmma_example() {
  const std::string type(dtype_name(dtype_v<W>)), act = std::is_same_v<Act, f16> ? "" : "bf16_";
  KernelEntry e = weight_only_gemm_entry<W, quantized::WeightOnlyGemmWgmma<W, Act>, Act>(
      "weight_only_gemm_wgmma_" + act + type,
      fmt::format("weight_only_gemm_{} on sm_90a (RS wgmma, the dequantized weights as the A operand; weights "
                  "repacked by weight_only_repack_{}{}){}",
                  type, act, type, act.empty() ? "" : ", with bf16 activations, scales, zero points and output"),
      {200, 200, 384});
  e.targets = {"sm_90a"};  // wgmma exists only on sm_90a
  return e;
}

template <class W, class Act = f16> KernelEntry repack_weights_example() {
  const std::string type(dtype_name(dtype_v<W>)), act = std::is_same_v<Act, f16> ? "" : "bf16_";
  KernelEntry e;
  e.name = "weight_only_repack_" + act + type;
  e.description = fmt::format(
      "repacks {} weights [n, k] (k contiguous) and their {} scales into the order weight_only_gemm_{}{} and "
      "weight_only_gemm_wgmma_{}{} read",
      type, act.empty() ? "f16" : "bf16", act, type, act, type);
  e.size_names = {"n (a multiple of 8)", "k (a multiple of 128)"};
  e.default_sizes = {200, 384};
  e.runner = [label = e.name](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    return quantized::run_repack_weights<W, Act>(dev, int(s[0]), int(s[1]), opt, label);
  };
  add_introspection<quantized::RepackWeights<W, Act>>(e, [](const std::vector<int64_t>& s) {
    quantized::StoredWeight<W>* w = nullptr;
    Act* h = nullptr;
    uint32_t* units = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), w, h, h, units, h);
  });
  return e;
}

}  // namespace

std::vector<KernelEntry> weight_only_gemm_examples() {
  std::vector<KernelEntry> entries;
  std::apply(
      [&](auto... types) {
        (entries.push_back(weight_only_gemm_example<decltype(types)>()), ...);
        (entries.push_back(weight_only_gemm_wgmma_example<decltype(types)>()), ...);
        (entries.push_back(repack_weights_example<decltype(types)>()), ...);
      },
      std::tuple<i2, i3, i4, u4, i6, int8_t, f4e2m1, f6e2m3, f6e3m2, f8e4m3>{});
  // bf16 activations, for the widths the GEMM benchmarks against int4pack and cuBLAS in bf16.
  std::apply(
      [&](auto... types) {
        (entries.push_back(weight_only_gemm_example<decltype(types), bf16>()), ...);
        (entries.push_back(weight_only_gemm_wgmma_example<decltype(types), bf16>()), ...);
        (entries.push_back(repack_weights_example<decltype(types), bf16>()), ...);
      },
      std::tuple<i3, i4, i6, int8_t>{});
  return entries;
}

}  // namespace tessel::examples
