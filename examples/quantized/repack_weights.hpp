#pragma once

#include "tessel/tessel.hpp"
#include "weight_units.hpp"

namespace tessel::examples::quantized {

// Repacks a checkpoint's quantized weights once, on the device, into the order the weight-only
// GEMM reads (weight_units.hpp): W [n, k] of packed W elements, k contiguous (GPTQ's order; other
// orders are regrouped first), with scales and zero points [n, cdiv(k, 128)] in Act (f16 or bf16).
// Writes the units' words [k / 128, n / 8, 32, bits] and each unit's scales and zero points
// [k / 128, n / 8, 2, 8]. n must be a multiple of 8 and k of 128. Each warp gathers one unit: it
// loads the unit's weights in the B fragments' layout (element by element where a thread's run is
// shorter than a word) and stores each lane's run as whole words (each plane's, for planar types).
// The weights are renamed into the units' order in a type that holds every value of W exactly (f16
// for the floats, i32 for the integers), since renamings keep a packed tile's registers whole.
template <class W, class Act = f16> struct RepackWeights : Script {
  static constexpr int warps = 4, bits = dtype_bits(dtype_v<W>);
  using Exact = std::conditional_t<is_float(dtype_v<W>), f16, int32_t>;
  static constexpr const char* param_names[] = {"n", "k", "w", "scales", "zeros", "units", "unit_scales"};

  void operator()(Int32 n, Int32 k, Ptr<W> w, Ptr<Act> scales, Ptr<Act> zeros, Ptr<uint32_t> units_out,
                  Ptr<Act> unit_scales) {
    require_whole_units(*this, n, k);
    constexpr int block_rows = WeightUnits::rows * warps, depth = WeightUnits::depth;
    attrs.blocks = {cdiv(n, block_rows), k / depth};
    attrs.warps = warps;
    WeightUnits units(1, warps, 1, 1, mma_layouts(16, block_rows, depth, 1, warps).b);
    const Int32 row = blockIdx.x * block_rows, unit = blockIdx.x * warps, group = blockIdx.y;
    auto nk =
        load_global(global_view(w, {n, k}), {row, group * depth}, {block_rows, depth}, units.fragments.permute({1, 0}));
    auto g_units = global_view(units_out, {k / depth, n / 8, WeightUnits::lanes, bits});
    auto runs = units.from_fragments(permute(nk.template to<Exact>(), {1, 0}));
    if constexpr (WeightUnits::planar(dtype_v<W>)) {
      // Each plane of the weights made unsigned, as its own interleaved words.
      auto excess = is_signed(dtype_v<W>) ? runs + (1 << (bits - 1)) : runs;
      for (const WeightUnits::Plane& p : WeightUnits::planes(bits)) {
        const DType t = WeightUnits::plane_type(p.bits);
        const auto plane = units.interleave((excess >> p.offset) & ((1 << p.bits) - 1), t);
        store_global(g_units, plane.cast_to(t, SourceLoc::from(loc_t::current())).template bitcast<uint32_t>(),
                     {group, unit, 0, p.offset});
      }
    } else {
      const auto stored = [&](const RegisterTensor& r) {
        if constexpr (WeightUnits::interleaved(dtype_v<W>)) return units.interleave(r, dtype_v<W>);
        return r;
      };
      store_global(g_units, stored(runs).template to<W>().template bitcast<uint32_t>(), {group, unit, 0, 0});
    }
    auto g_unit_scales = global_view(unit_scales, {k / depth, n / 8, 2, WeightUnits::rows});
    auto g_scales = global_view(scales, {n, k / depth}), g_zeros = global_view(zeros, {n, k / depth});
    const auto of_units = [&](const RegisterTensor& t) { return reshape(t, {1, warps, 1, WeightUnits::rows}); };
    store_global(g_unit_scales, of_units(load_global(g_scales, {row, group}, {block_rows, 1})), {group, unit, 0, 0});
    store_global(g_unit_scales, of_units(load_global(g_zeros, {row, group}, {block_rows, 1})), {group, unit, 1, 0});
  }
};

}  // namespace tessel::examples::quantized
