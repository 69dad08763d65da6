// The shared operands of the tensor-core instructions (wgmma.mma, tcgen05.mma, tcgen05.copy), as
// the user passes them: checked at the user's line against the layouts the tensor core reads
// (tessel/ir/mma_operand.hpp), and against the swizzle their rows need.
#include <fmt/ranges.h>

#include "tessel/layout/wgmma_descriptor.hpp"
#include "tile_tracing.hpp"

namespace tessel::detail {

namespace {

// The user's swizzle, if any, must be the one whose span is a row of `row_bytes`.
void check_swizzle(const ir::SharedTensor& t, std::string_view what, std::string_view name, int row_bytes,
                   const SourceLoc& loc) {
  const int want = wgmma_swizzle_bits(row_bytes);
  const int have = t->allocation()->swizzle_bits;
  if (have != ir::kSwizzleUndecided && have != want)
    throw Error(loc, fmt::format("{}: {} has rows of {} bytes, which {} reads only with the {}-byte swizzle, but its "
                                 "shared tile (created at {}) was given {}; create it without a Swizzle argument or "
                                 "with Swizzle::b{}",
                                 what, name, row_bytes, what, row_bytes, t->allocation()->loc.str(),
                                 have == 0 ? std::string("no swizzle") : fmt::format("the {}-byte swizzle", 16 << have),
                                 row_bytes));
}

// The K-major form of operand `name`, as a fix names it.
std::string k_major_form(int k_dim) {
  return k_dim == 1 ? "a shared tile [m, k] whose rows run along k"
                    : "the transpose of a shared tile [n, k] whose rows run along k (s_b.transpose())";
}

// An MN-major operand of 16-bit elements whose k-rows run along M or N and are one swizzle span.
void check_mn_major_operand(const ir::SharedTensor& t, std::string_view what, std::string_view name, int k_dim,
                            const SourceLoc& loc) {
  const int mn_dim = 1 - k_dim, mn = t->shape[size_t(mn_dim)], bytes = dtype_bytes(t->dtype);
  const char* mn_name = k_dim == 1 ? "m" : "n";
  const std::string form = k_dim == 1 ? "the transpose of a row-major shared tile [k, m] (s_a.transpose())"
                                      : "a row-major shared tile [k, n]";
  if (t->strides[size_t(k_dim)] != mn)
    throw Error(loc, fmt::format("{}: an MN-major {} must be {}; this view has shape [{}] and strides [{}]", what, name,
                                 form, fmt::join(t->shape, ", "), fmt::join(t->strides, ", ")));
  if (wgmma_swizzle_bits(mn * bytes) < 0) {
    const int span = 128 / bytes;
    const std::string fix =
        mn * bytes > 128 ? fmt::format(
                               "give it as its {}-wide blocks, a shared tile [{} / {}, k, {}] (docs/language.md, "
                               "\"MN-major operands\")",
                               span, mn_name, span, span)
                         : fmt::format("pass {} K-major, as {}", name, k_major_form(k_dim));
    throw Error(loc, fmt::format("{}: an MN-major {} [{}] has rows of {} bytes; they must be one swizzle span, 32, 64 "
                                 "or 128 bytes ({} = {}, {} or {}); {}",
                                 what, name, fmt::join(t->shape, ", "), mn * bytes, mn_name, 32 / bytes, 64 / bytes,
                                 128 / bytes, fix));
  }
  check_swizzle(t, what, name, mn * bytes, loc);
}

// An MN-major operand in span-wide blocks [mn / P, k, P], each block's k-rows one swizzle span.
// (A view of a tile by indexing keeps every block's k-rows contiguous.)
void check_operand_blocks(const ir::SharedTensor& t, std::string_view what, std::string_view name,
                          const SourceLoc& loc) {
  const int block = t->shape[2], bytes = dtype_bytes(t->dtype);
  if (wgmma_swizzle_bits(block * bytes) < 0)
    throw Error(loc, fmt::format("{}: {} given in blocks [{}] has blocks {} elements wide ({} bytes); a block is one "
                                 "swizzle span, 32, 64 or 128 bytes ({}, {} or {} elements)",
                                 what, name, fmt::join(t->shape, ", "), block, block * bytes, 32 / bytes, 64 / bytes,
                                 128 / bytes));
  check_swizzle(t, what, name, block * bytes, loc);
}

}  // namespace

void check_k_major_operand(const ir::SharedTensor& t, std::string_view what, std::string_view name, int k_dim,
                           const SourceLoc& loc) {
  const int row_dim = 1 - k_dim, k = t->shape[size_t(k_dim)], row_bytes = k * t->slot_bits() / 8;
  const bool k_major = t->strides[size_t(k_dim)] == 1 && t->strides[size_t(row_dim)] == k;
  if (!k_major)
    throw Error(loc, fmt::format("{}: {} must be K-major: pass {}; this view has shape [{}] and strides [{}]", what,
                                 name, k_major_form(k_dim), fmt::join(t->shape, ", "), fmt::join(t->strides, ", ")));
  check_swizzle(t, what, name, row_bytes, loc);
}

std::vector<int> mma_operand_shape(const ir::SharedTensor& t, int k_dim) {
  if (t->rank() != 3) return t->shape;
  const int mn = t->shape[0] * t->shape[2], k = t->shape[1];
  return k_dim == 1 ? std::vector<int>{mn, k} : std::vector<int>{k, mn};
}

void check_mma_operand(const ir::SharedTensor& t, std::string_view what, std::string_view name, int k_dim,
                       const SourceLoc& loc) {
  const bool half = t->dtype == DType::F16 || t->dtype == DType::BF16;
  if (t->rank() == 3) {
    if (!half)
      throw Error(loc, fmt::format("{}: {} given in blocks [{}] is MN-major, which the tensor core reads for f16 and "
                                   "bf16 only, not {}",
                                   what, name, fmt::join(t->shape, ", "), dtype_name(t->dtype)));
    return check_operand_blocks(t, what, name, loc);
  }
  if (half && t->shape[size_t(1 - k_dim)] > 1 && t->strides[size_t(1 - k_dim)] == 1)
    return check_mn_major_operand(t, what, name, k_dim, loc);
  check_k_major_operand(t, what, name, k_dim, loc);
}

}  // namespace tessel::detail
