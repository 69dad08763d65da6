#pragma once

#include <optional>
#include <type_traits>
#include <vector>

#include "tessel/tessel.hpp"
#include "weight_units.hpp"

namespace tessel::examples::quantized {

// Dequantizes units of repacked weights (weight_units.hpp) in registers: w = (q - zero) * scale in
// Act (f16 or bf16), exactly for integer zero points, or, unscaled, q - zero (exact), for a GEMM
// that scales its products instead. Both weight-only GEMMs use it, each then renaming the runs into
// its tensor core's fragments.
//   words  [groups, units, 32, b]: each lane's run of each unit, as b 32-bit words;
//   scales [groups, units, 2, 8]: each unit's 8 scales, then its 8 zero points (row g of a unit is
//          lane 4 g + t's, so a thread holds those of its row);
//   result [groups, units, 32, 32 / slices] in Act: element e of each lane's run, or of its slice
//          (32 / slices consecutive elements, a slice of k), in the fragments' order.
template <class W, class Act = f16> struct DequantizeUnits : Class {
  static_assert(std::is_same_v<Act, f16> || std::is_same_v<Act, bf16>, "DequantizeUnits: f16 or bf16 weights");
  static constexpr DType type = dtype_v<W>;
  static constexpr int bits = dtype_bits(type), rows = WeightUnits::rows, lanes = WeightUnits::lanes;
  // The result type's mantissa bits and exponent bias.
  static constexpr FloatFormat format = float_format(dtype_v<Act>);
  static constexpr int mantissa = format.mantissa_bits, bias = format.bias();

  bool scaled;

  explicit DequantizeUnits(bool scaled = true, loc_t at = loc_t::current())
      : Class("DequantizeUnits", at), scaled(scaled) {}

  // Slice `slice` of `slices` of each run: its 32 / slices consecutive elements, from whole runs'
  // words [groups, units, 32, b].
  RegisterTensor operator()(const RegisterTensor& words, const RegisterTensor& scales, int slice = 0, int slices = 1) {
    if constexpr (WeightUnits::planar(type)) {
      return planes(words, scales, slice, slices);
    } else {
      const auto part = slices == 1 ? words : words_of(words, 0, bits, slice, slices);
      const auto zero = per_row(scales, 1);
      std::optional<RegisterTensor> scale;
      if (scaled) scale = per_row(scales, 0);
      if constexpr (WeightUnits::interleaved(type) && bits <= mantissa)
        return fields(part, bits, is_signed(type), &zero, is_signed(type) ? float(1 << (bits - 1)) : 0.0f,
                      scale ? &*scale : nullptr);
      const int groups = part.shape()[0], units = part.shape()[1], elements = part.shape()[3] * 32 / bits;
      const auto q = [&] {
        auto as_stored = part.template bitcast<W>().template to<Act>();
        // Bytes, which bf16's 7 mantissa bits cannot hold under a magic exponent, convert four at a
        // time from their words (under f32's exponent: docs/language.md, "Packed types"), then are
        // renamed from the interleaved order (element 2 p + h at byte p + 2 h of its word) to the run's.
        if constexpr (WeightUnits::interleaved(type))
          return reshape(permute(reshape(as_stored, {groups, units, lanes, elements / 4, 2, 2}), {0, 1, 2, 3, 5, 4}),
                         {groups, units, lanes, elements});
        return as_stored;
      }();
      // Lane 4 g + t's run, [groups, units, g, t, elements]: row g of its unit.
      auto centered = reshape(q, {groups, units, rows, 4, elements}) - zero;
      return reshape(scale ? centered * *scale : centered, {groups, units, lanes, elements});
    }
  }

 private:
  // Words [first + slice w, +w) of each run, w = count / slices.
  RegisterTensor words_of(const RegisterTensor& words, int first, int count, int slice, int slices) {
    if (count % slices != 0)
      throw Error(fmt::format("DequantizeUnits<{}>: {} words of a run cannot be cut into {} slices", dtype_name(type),
                              count, slices));
    const int w = count / slices;
    return words.slice({0, 0, 0, first + slice * w}, {words.shape()[0], words.shape()[1], lanes, w});
  }

  // Row `which` of the scales (0: the scales, 1: the zero points) as [groups, units, 8, 1, 1].
  RegisterTensor per_row(const RegisterTensor& scales, int which) {
    const int groups = scales.shape()[0], units = scales.shape()[1];
    return reshape(scales.slice({0, 0, which, 0}, {groups, units, 1, rows}), {groups, units, rows, 1, 1});
  }

  // Fields of 1, 2, 4 or 8 bits (`width`, at most the mantissa's), F = 32 / width to a word in the
  // interleaved order (weight_units.hpp), two at a time as Marlin dequantizes 4-bit ones: one and-or
  // (one lop3) puts the fields at bits s and 16 + s of the word shifted right by a multiple of
  // `span` (s < span) under the exponent whose last mantissa place is worth 1 at bit s, that of
  // 2^(m - s) for m mantissa bits (f16: 1024, 0x6400, at bit 0; 64, 0x5400, at bit 4; the shifts
  // are 0 and 8), which makes pairs of 2^(m - s) + v; one subtraction of that base (plus the zero
  // point and `excess`, where given) and one product by the scale (where given) finish each pair,
  // exactly for integer zero points. Signed fields (`flip`) are read as excess-2^(width-1), so v is the
  // field plus 2^(width-1): their top bits are flipped by the same instruction that masks them, since
  // ((w ^ top) & mask) | exponent is (w & mask) ^ ((top & mask) | exponent) (the exponent's bits lie
  // outside the mask's), one lop3 with two constants. The result is Act [groups, units, 32,
  // 32 w / width], in the run's order.
  RegisterTensor fields(const RegisterTensor& words, int width, bool flip, const RegisterTensor* zero, float excess,
                        const RegisterTensor* scale) {
    const int pairs = 16 / width, span = mantissa == 10 ? 8 : ((mantissa - width) / width + 1) * width;
    const uint32_t field = (1u << width) - 1, top_bits = 0xffff'ffffu / field << (width - 1);
    const int groups = words.shape()[0], units = words.shape()[1], per_lane = words.shape()[3];
    // The field at bit s of the shifted word is under 2^(m - s): what its pairs subtract.
    std::vector<RegisterTensor> bases;
    if (zero)
      for (int at = 0; at < span; at += width) bases.push_back(*zero + (float(1 << (mantissa - at)) + excess));
    // The word shifted right by span, 2 span, ... (kept as they are made: a copy would be a new tile).
    std::vector<RegisterTensor> shifted;
    shifted.reserve(size_t(16 / span));
    for (int shift = span; shift < 16; shift += span) shifted.push_back(words >> uint32_t(shift));
    // Pair p of the fields of each word (at bits width p and 16 + width p), dequantized.
    const auto pair = [&](int p) {
      const int at = width * p % span, shifts = width * p / span;
      const uint32_t mask = (field << at) * 0x10001u,
                     exponent = (uint32_t(mantissa - at + bias) << mantissa) * 0x10001u,
                     flipped = flip ? (top_bits >> (shifts * span)) & mask : 0u;
      const auto& w = shifts == 0 ? words : shifted[size_t(shifts - 1)];
      auto magic =
          reshape(((w & mask) ^ (flipped | exponent)).template bitcast<Act>(), {groups, units, rows, 4, 2 * per_lane});
      auto centered = zero ? magic - bases[size_t(at / width)] : magic - (float(1 << (mantissa - at)) + excess);
      return reshape(scale ? centered * *scale : centered, {groups, units, lanes, per_lane, 1, 2});
    };
    // Element 2 p + h of a word sits at field p + F / 2 h: the pairs in order p = 0, 1, ...
    const auto in_order = [&](const auto& self, int first, int count) -> RegisterTensor {
      if (count == 1) return pair(first);
      return concat(self(self, first, count / 2), self(self, first + count / 2, count / 2), 4);
    };
    return reshape(in_order(in_order, 0, pairs), {groups, units, lanes, per_lane * 32 / width});
  }

  // Integers of 3, 5, 6 and 7 bits, stored as planes (weight_units.hpp): each plane's fields by the
  // path above, unsigned, the first less the zero point and the excess, the others added 2^offset
  // times each (one fma a pair) in the first one's registers, which hold the same pairs of elements;
  // every step is exact, and the product by the scale rounds once.
  RegisterTensor planes(const RegisterTensor& words, const RegisterTensor& scales, int slice, int slices) {
    const auto zero = per_row(scales, 1);
    const float excess = is_signed(type) ? float(1 << (bits - 1)) : 0.0f;
    RegisterTensor sum;
    for (const WeightUnits::Plane& p : WeightUnits::planes(bits)) {
      const auto plane = words_of(words, p.offset, p.bits, slice, slices);
      if (p.offset == 0)
        sum = fields(plane, p.bits, false, &zero, excess, nullptr);
      else
        sum = fma(convert_layout(fields(plane, p.bits, false, nullptr, 0.0f, nullptr)), float(1 << p.offset), sum);
    }
    if (!scaled) return sum;
    const int groups = words.shape()[0], units = words.shape()[1], elements = sum.shape()[3];
    const auto of_rows = reshape(sum, {groups, units, rows, 4, elements / 2, 2}) *
                         reshape(per_row(scales, 0), {groups, units, rows, 1, 1, 1});
    return reshape(of_rows, {groups, units, lanes, elements});
  }
};

}  // namespace tessel::examples::quantized
