// The Blackwell low-precision GEMMs' registrations: kind::f8f6f4 (e4m3 x e4m3, e5m2 x e4m3, e2m3 x
// e2m1 and e3m2 x e4m3), kind::i8 (i8 x i8, u8 x i8), kind::tf32, and the block-scaled kinds MXFP8,
// MXFP4 and NVFP4, each against a host reference that decodes every operand and scale bit for bit.
#include <bit>
#include <cmath>
#include <random>
#include <type_traits>

#include "block_scaled_tcgen05.hpp"
#include "examples.hpp"
#include "f8f6f4_tcgen05.hpp"

namespace tessel::examples {

namespace {

// The host element of a buffer of T: T itself, or the bytes of packed elements.
template <class T> using HostElement = std::conditional_t<is_packed(dtype_v<T>), uint8_t, T>;

// Random operands of `count` elements of T (fp8 values over [-4, 4], 8-bit integers over their
// type's range, or every bit pattern of a packed type, packed as one bit stream) and their values.
template <class T> struct Operand {
  std::vector<HostElement<T>> data;
  std::vector<float> values;
};

template <class T> Operand<T> random_operand(size_t count, uint64_t seed) {
  Operand<T> o;
  if constexpr (is_packed(dtype_v<T>)) {
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> fields(count);
    for (size_t i = 0; i < count; ++i) {
      fields[i] = uint32_t(rng() % (1u << dtype_bits(dtype_v<T>)));
      o.values.push_back(float_from_bits(dtype_v<T>, fields[i]));
    }
    o.data = pack_bits(dtype_v<T>, fields);
  } else if constexpr (std::is_integral_v<T>) {
    o.data = std::is_signed_v<T> ? random_vector<T>(count, seed, -128.9f, 127.9f)
                                 : random_vector<T>(count, seed, 0.0f, 255.9f);
    for (const T& x : o.data) o.values.push_back(float(x));
  } else if constexpr (std::is_same_v<T, tf32>) {
    // f32 words with every mantissa bit random, which the tensor cores read with the low 13 cleared.
    for (const float x : random_vector<float>(count, seed, -4.0f, 4.0f))
      o.data.push_back(tf32::from_bits(std::bit_cast<uint32_t>(x)));
    for (const T& x : o.data) o.values.push_back(float(x));
  } else {
    o.data = random_vector<T>(count, seed, -4.0f, 4.0f);
    for (const T& x : o.data) o.values.push_back(float(x));
  }
  return o;
}

// k must be a multiple of 32 for packed operands, so that every row starts on a 32-bit word.
template <class T> void check_packed_rows(const std::string& label, int k) {
  if (is_packed(dtype_v<T>) && k % 32 != 0)
    throw Error(fmt::format("{}: k = {} is not a multiple of 32; rows of packed {} operands start on 32-bit words",
                            label, k, dtype_name(dtype_v<T>)));
}

// 8-bit integers sum exactly into s32: every element equals the reference's sum (no test size makes
// one overflow).
RunResult check_exact_gemm(const std::vector<int32_t>& got, const std::vector<float>& a, const std::vector<float>& b,
                           int m, int n, int k, const std::string& label) {
  std::vector<int32_t> want(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int p = 0; p < k; ++p) sum += int64_t(a[size_t(i) * k + p]) * int64_t(b[size_t(j) * k + p]);
      want[size_t(i) * n + j] = int32_t(sum);
    }
  return cli::compare_exact(got, want, fmt::format("{} {}x{}x{}", label, m, n, k));
}

template <class A, class B> KernelEntry f8f6f4_example(std::string name, std::string description) {
  using S = blackwell::BlackwellF8F6F4Matmul<A, B>;
  using Out = typename S::Out;
  KernelEntry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.size_names = {"m", "n", "k"};
  e.default_sizes = {136, 200, 160};
  e.targets = {"sm_100a"};
  e.runner = [label = e.name](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int m = int(s[0]), n = int(s[1]), k = int(s[2]);
    check_packed_rows<A>(label, k);
    check_packed_rows<B>(label, k);
    const auto a = random_operand<A>(size_t(m) * k, 4);
    const auto b = random_operand<B>(size_t(n) * k, 5);
    Buffer<HostElement<A>> da(dev, a.data);
    Buffer<HostElement<B>> db(dev, b.data);
    Buffer<Out> dc(dev, poisoned<Out>(size_t(m) * n));
    Kernel<S> kernel(dev, opt);
    kernel(m, n, k, da, db, dc);
    dev.synchronize();
    RunResult r;
    if constexpr (S::integer)
      r = check_exact_gemm(dc.download(), a.values, b.values, m, n, k, label);
    else
      r = cli::check_gemm(
          dc.download(), m, n, k,
          [&](int i, int j, int p) { return double(a.values[size_t(i) * k + p]) * b.values[size_t(j) * k + p]; },
          cli::kLowPrecisionGemmTolerance, label);
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<S>(e, [](const std::vector<int64_t>& s) {
    HostElement<A>* pa = nullptr;
    HostElement<B>* pb = nullptr;
    Out* pc = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), pa, pb, pc);
  });
  return e;
}

// Random block scales of `rows` rows by `blocks` blocks of k (values from 1/8 to 4), the byte
// of each, and their tiled layout: for each 128 rows and 4 blocks, 32 rows of 4 words, byte v of
// word j of row l the scale of row 32 j + l for block 4 g + v.
struct BlockScaleTable {
  std::vector<uint8_t> bytes;  // [rows (padded to 128), blocks (padded to 4)]
  std::vector<uint32_t> tiled;
  int blocks = 0;
  double value(ScaleFormat format, int row, int block) const {
    const uint8_t byte = bytes[size_t(row) * blocks + block];
    return format == ScaleFormat::ue8m0 ? std::ldexp(1.0, int(byte) - 127) : float_from_bits(DType::F8E4M3, byte);
  }
};

BlockScaleTable block_scales(ScaleFormat format, int rows, int k, int scale_block, uint64_t seed) {
  BlockScaleTable t;
  const int row_tiles = (rows + 127) / 128, groups = (k + 4 * scale_block - 1) / (4 * scale_block);
  t.blocks = 4 * groups;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exponent(-3, 2);
  t.bytes.resize(size_t(row_tiles) * 128 * t.blocks);
  for (uint8_t& b : t.bytes) {
    const int e = exponent(rng);
    // ue8m0: 2^e; ue4m3: 2^e times 1, 1.25, 1.5 or 1.75 (e4m3 without its sign bit)
    b = format == ScaleFormat::ue8m0 ? uint8_t(127 + e) : uint8_t((e + 7) << 3 | int(rng() % 4) << 1);
  }
  t.tiled.assign(size_t(row_tiles) * groups * 32 * 4, 0);
  for (int tile = 0; tile < row_tiles; ++tile)
    for (int g = 0; g < groups; ++g)
      for (int l = 0; l < 32; ++l)
        for (int j = 0; j < 4; ++j)
          for (int v = 0; v < 4; ++v)
            t.tiled[((size_t(tile) * groups + g) * 32 + l) * 4 + j] |=
                uint32_t(t.bytes[(size_t(tile) * 128 + 32 * j + l) * t.blocks + 4 * g + v]) << (8 * v);
  return t;
}

template <class T, ScaleFormat Format> KernelEntry block_scaled_example(std::string name, std::string description) {
  using S = blackwell::BlackwellBlockScaledMatmul<T, Format>;
  KernelEntry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.size_names = {"m", "n", "k"};
  e.default_sizes = {136, 200, 384};
  e.targets = {"sm_100a"};
  e.runner = [label = e.name](const Device& dev, const std::vector<int64_t>& s, const KernelOptions& opt) {
    const int m = int(s[0]), n = int(s[1]), k = int(s[2]);
    check_packed_rows<T>(label, k);
    const auto a = random_operand<T>(size_t(m) * k, 4), b = random_operand<T>(size_t(n) * k, 5);
    const BlockScaleTable a_scales = block_scales(Format, m, k, S::scale_block, 6),
                          b_scales = block_scales(Format, n, k, S::scale_block, 7);
    Buffer<HostElement<T>> da(dev, a.data), db(dev, b.data);
    Buffer<uint32_t> dsa(dev, a_scales.tiled), dsb(dev, b_scales.tiled);
    Buffer<bf16> dc(dev, poisoned<bf16>(size_t(m) * n));
    Kernel<S> kernel(dev, opt);
    kernel(m, n, k, da, db, dsa, dsb, dc);
    dev.synchronize();
    const auto product = [&](int i, int j, int p) {
      const int block = p / S::scale_block;
      return double(a.values[size_t(i) * k + p]) * b.values[size_t(j) * k + p] * a_scales.value(Format, i, block) *
             b_scales.value(Format, j, block);
    };
    RunResult r = cli::check_gemm(dc.download(), m, n, k, product, cli::kLowPrecisionGemmTolerance, label);
    r.stats = kernel.stats();
    return r;
  };
  add_introspection<S>(e, [](const std::vector<int64_t>& s) {
    HostElement<T>* p = nullptr;
    uint32_t* scales = nullptr;
    bf16* pc = nullptr;
    return std::make_tuple(int(s[0]), int(s[1]), int(s[2]), p, p, scales, scales, pc);
  });
  return e;
}

}  // namespace

std::vector<KernelEntry> blackwell_low_precision_examples() {
  return {
      f8f6f4_example<f8e4m3, f8e4m3>("blackwell_fp8",
                                     "Blackwell fp8 GEMM: e4m3 x e4m3 on tcgen05.mma kind::f8f6f4 (the seeds' V0)"),
      f8f6f4_example<f8e5m2, f8e4m3>("blackwell_fp8_e5m2", "Blackwell fp8 GEMM with e5m2 A and e4m3 B (kind::f8f6f4)"),
      f8f6f4_example<f6e2m3, f4e2m1>("blackwell_fp6_fp4",
                                     "Blackwell GEMM of e2m3 A and e2m1 B in 16-element chunks (kind::f8f6f4)"),
      f8f6f4_example<f6e3m2, f8e4m3>("blackwell_fp6_fp8", "Blackwell GEMM of e3m2 A and e4m3 B (kind::f8f6f4)"),
      f8f6f4_example<int8_t, int8_t>(
          "blackwell_int8", "Blackwell int8 GEMM: i8 x i8 into exact s32 sums on tcgen05.mma kind::i8 (the seeds' V0)"),
      f8f6f4_example<uint8_t, int8_t>("blackwell_int8_u8", "Blackwell int8 GEMM with u8 A and i8 B (kind::i8)"),
      f8f6f4_example<tf32, tf32>("blackwell_tf32",
                                 "Blackwell tf32 GEMM: tf32 x tf32 into f32 on tcgen05.mma kind::tf32 (the seeds' V0)"),
      block_scaled_example<f8e4m3, ScaleFormat::ue8m0>(
          "blackwell_mxfp8", "Blackwell MXFP8 GEMM: e4m3 with ue8m0 scales per 32 of k (kind::mxf8f6f4)"),
      block_scaled_example<f4e2m1, ScaleFormat::ue8m0>(
          "blackwell_mxfp4", "Blackwell MXFP4 GEMM: e2m1 pairs with ue8m0 scales per 32 of k (kind::mxf4)"),
      block_scaled_example<f4e2m1, ScaleFormat::ue4m3>(
          "blackwell_nvfp4", "Blackwell NVFP4 GEMM: e2m1 pairs with ue4m3 scales per 16 of k (kind::mxf4nvf4)"),
  };
}

}  // namespace tessel::examples
