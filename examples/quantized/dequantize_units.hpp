#pragma once

#include <vector>

#include "tessel/tessel.hpp"
#include "weight_units.hpp"

namespace tessel::examples::quantized {

// Dequantizes units of repacked weights (weight_units.hpp) in registers: w = (q - zero) * scale in
// f16, exactly for integer zero points, or, unscaled, q - zero (exact), for a GEMM that scales its
// products instead. Both weight-only GEMMs use it, each then renaming the runs into its tensor
// core's fragments.
//   words  [groups, units, 32, w]: each lane's run of each unit, as b 32-bit words, or w
//          consecutive ones of them (w dividing b: 32 w / b consecutive elements, a slice of k);
//   scales [groups, units, 2, 8]: each unit's 8 scales, then its 8 zero points (row g of a unit is
//          lane 4 g + t's, so a thread holds those of its row);
//   result [groups, units, 32, 32 w / b] in f16: element e of each lane's run (or of its slice) in
//          the fragments' order.
template <class W> struct DequantizeUnits : Class {
  static constexpr DType type = dtype_v<W>;
  static constexpr int rows = WeightUnits::rows, lanes = WeightUnits::lanes;

  bool scaled;

  explicit DequantizeUnits(bool scaled = true, loc_t at = loc_t::current())
      : Class("DequantizeUnits", at), scaled(scaled) {}

  RegisterTensor operator()(const RegisterTensor& words, const RegisterTensor& scales) {
    if constexpr (WeightUnits::interleaved(type)) return fields(words, scales);
    const int groups = words.shape()[0], units = words.shape()[1], elements = elements_of(words);
    // Lane 4 g + t's run, [groups, units, g, t, elements]: row g of its unit.
    auto q = reshape(words.template bitcast<W>().template to<f16>(), {groups, units, rows, 4, elements});
    auto centered = q - per_row(scales, 1);
    return reshape(scaled ? centered * per_row(scales, 0) : centered, {groups, units, lanes, elements});
  }

 private:
  // The elements of each lane's words: 32 per b words.
  static int elements_of(const RegisterTensor& words) { return words.shape()[3] * 32 / dtype_bits(type); }

  // Row `which` of the scales (0: the scales, 1: the zero points) as [groups, units, 8, 1, 1].
  RegisterTensor per_row(const RegisterTensor& scales, int which) {
    const int groups = scales.shape()[0], units = scales.shape()[1];
    return reshape(scales.slice({0, 0, which, 0}, {groups, units, 1, rows}), {groups, units, rows, 1, 1});
  }

  // Integers of 1, 2, 4 and 8 bits, F = 32 / b to a word in the interleaved order
  // (weight_units.hpp), two at a time as Marlin dequantizes 4-bit ones: one and-or (one lop3) puts
  // the fields at bits s and 16 + s (s = b p' for p' < 8 / b, of the word or of the word shifted by
  // 8) under the f16 exponent whose last mantissa place is worth 1 at bit s, that of 2^(10 - s)
  // (1024, 0x6400, at bit 0; 64, 0x5400, at bit 4), which makes f16 pairs of 2^(10 - s) + v; one
  // subtraction of that base + zero (and one product by the scale) finishes each pair, exactly for
  // integer zero points. Signed weights are made excess-2^(b-1) first (an xor of each field's top
  // bit), so v is the weight plus 2^(b-1).
  RegisterTensor fields(const RegisterTensor& words, const RegisterTensor& scales) {
    constexpr int bits = dtype_bits(type), pairs = 16 / bits, per_byte = pairs / 2;
    constexpr bool is_signed_weight = is_signed(type);
    constexpr float excess = is_signed_weight ? float(1 << (bits - 1)) : 0.0f;
    constexpr uint32_t field = (1u << bits) - 1, top_bits = 0xffff'ffffu / field << (bits - 1);
    const int groups = words.shape()[0], units = words.shape()[1], per_lane = words.shape()[3];
    const auto zero = per_row(scales, 1);
    // The field at bit s of a byte is under 2^(10 - s): what its pairs subtract.
    std::vector<RegisterTensor> bases;
    for (int at = 0; at < 8; at += bits) bases.push_back(zero + (float(1 << (10 - at)) + excess));
    const auto biased = is_signed_weight ? words ^ top_bits : words;
    const auto shifted = biased >> 8u;
    // Pair p of the fields of each word (at bits b p and 16 + b p of the word for p < 8 / b, of the
    // word shifted by 8 after that), dequantized.
    const auto pair = [&](int p) {
      const int at = bits * (p % per_byte);
      const uint32_t mask = (field << at) * 0x10001u, exponent = (uint32_t(10 - at + 15) << 10) * 0x10001u;
      const auto& w = p < per_byte ? biased : shifted;
      auto magic = reshape(((w & mask) | exponent).template bitcast<f16>(), {groups, units, rows, 4, 2 * per_lane});
      auto centered = magic - bases[size_t(p % per_byte)];
      return reshape(scaled ? centered * per_row(scales, 0) : centered, {groups, units, lanes, per_lane, 1, 2});
    };
    // Element 2 p + h of a word sits at field p + F / 2 h: the pairs in order p = 0, 1, ...
    const auto in_order = [&](const auto& self, int first, int count) -> RegisterTensor {
      if (count == 1) return pair(first);
      return concat(self(self, first, count / 2), self(self, first + count / 2, count / 2), 4);
    };
    return reshape(in_order(in_order, 0, pairs), {groups, units, lanes, elements_of(words)});
  }
};

}  // namespace tessel::examples::quantized
