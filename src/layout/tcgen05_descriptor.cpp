#include "tessel/layout/tcgen05_descriptor.hpp"

#include <vector>

#include "tessel/error.hpp"
#include "tessel/layout/operand_addresses.hpp"

namespace tessel {

namespace {

// The descriptor's 3-bit swizzle code for tessel's swizzle bits.
uint64_t swizzle_code(int swizzle_bits) {
  switch (swizzle_bits) {
    case 0: return 0;
    case 1: return 6;
    case 2: return 4;
    case 3: return 2;
  }
  TESSEL_CHECK(false, "no tcgen05 swizzle mode for swizzle bits {}", swizzle_bits);
  return 0;
}

int swizzle_bits_of_code(uint64_t code) {
  switch (code) {
    case 0: return 0;
    case 2: return 3;
    case 4: return 2;
    case 6: return 1;
  }
  TESSEL_CHECK(false, "tcgen05 shared-memory descriptor with swizzle code {}", code);
  return 0;
}

uint64_t field14(uint32_t bytes) { return (uint64_t(bytes) >> 4) & 0x3FFF; }

struct TypeCode {
  DType type;
  uint32_t code;
};

// The operand types of a kind and their codes in the instruction descriptor.
std::vector<TypeCode> kind_types(Tcgen05Kind kind) {
  switch (kind) {
    case Tcgen05Kind::f16: return {{DType::F16, 0}, {DType::BF16, 1}};
    case Tcgen05Kind::tf32: return {{DType::TF32, 2}};
    case Tcgen05Kind::f8f6f4:
    case Tcgen05Kind::mxf8f6f4:
      return {{DType::F8E4M3, 0}, {DType::F8E5M2, 1}, {DType::F6E2M3, 3}, {DType::F6E3M2, 4}, {DType::F4E2M1, 5}};
    case Tcgen05Kind::mxf4:
    case Tcgen05Kind::mxf4nvf4: return {{DType::F4E2M1, 1}};
    case Tcgen05Kind::i8: return {{DType::U8, 0}, {DType::I8, 1}};
  }
  return {};
}

uint32_t type_code(Tcgen05Kind kind, DType t) {
  for (const TypeCode& c : kind_types(kind))
    if (c.type == t) return c.code;
  TESSEL_CHECK(false, "tcgen05 kind::{} operand of type {}", tcgen05_kind_name(kind), dtype_name(t));
  return 0;
}

DType type_of_code(Tcgen05Kind kind, uint32_t code) {
  for (const TypeCode& c : kind_types(kind))
    if (c.code == code) return c.type;
  TESSEL_CHECK(false, "tcgen05 kind::{} instruction descriptor with operand type code {}", tcgen05_kind_name(kind),
               code);
  return DType::F16;
}

}  // namespace

uint64_t Tcgen05SmemDescriptor::bits() const {
  return field14(start_address) | field14(leading_byte_offset) << 16 | field14(stride_byte_offset) << 32 |
         uint64_t(version & 7) << 46 | uint64_t(base_offset & 7) << 49 | swizzle_code(swizzle_bits) << 61;
}

Tcgen05SmemDescriptor Tcgen05SmemDescriptor::decode(uint64_t b) {
  Tcgen05SmemDescriptor d;
  d.start_address = uint32_t(b & 0x3FFF) << 4;
  d.leading_byte_offset = uint32_t(b >> 16 & 0x3FFF) << 4;
  d.stride_byte_offset = uint32_t(b >> 32 & 0x3FFF) << 4;
  d.version = int(b >> 46 & 7);
  d.base_offset = int(b >> 49 & 7);
  d.swizzle_bits = swizzle_bits_of_code(b >> 61);
  TESSEL_CHECK(d.version == 1, "tcgen05 shared-memory descriptor 0x{:x} has version {} (Blackwell needs 1)", b,
               d.version);
  return d;
}

Tcgen05SmemDescriptor tcgen05_k_major_descriptor(uint32_t start_address, int swizzle_bits) {
  TESSEL_CHECK(swizzle_bits >= 1 && swizzle_bits <= 3, "K-major tcgen05 operands are swizzled; bits {}", swizzle_bits);
  TESSEL_CHECK(start_address % 16 == 0, "tcgen05 operand start {} is not 16-byte aligned", start_address);
  const uint32_t span = 16u << swizzle_bits;
  return Tcgen05SmemDescriptor{start_address & 0x3FFFF, 16, 8 * span, 1, 0, swizzle_bits};
}

int64_t tcgen05_k_major_address(const Tcgen05SmemDescriptor& d, int row, int k, int elem_bytes) {
  return k_major_operand_address(d.start_address, d.stride_byte_offset, d.swizzle_bits, row, k, elem_bytes);
}

Tcgen05SmemDescriptor tcgen05_mn_major_descriptor(uint32_t start_address, int swizzle_bits, uint32_t block_bytes) {
  TESSEL_CHECK(swizzle_bits >= 1 && swizzle_bits <= 3, "MN-major tcgen05 operands are swizzled; bits {}", swizzle_bits);
  TESSEL_CHECK(start_address % 16 == 0, "tcgen05 operand start {} is not 16-byte aligned", start_address);
  TESSEL_CHECK(block_bytes % 16 == 0 && block_bytes < (1u << 18), "tcgen05 operand blocks {} bytes apart", block_bytes);
  const uint32_t span = 16u << swizzle_bits;
  return Tcgen05SmemDescriptor{start_address & 0x3FFFF, block_bytes ? block_bytes : 16, 8 * span, 1, 0, swizzle_bits};
}

int64_t tcgen05_mn_major_address(const Tcgen05SmemDescriptor& d, int row, int k, int elem_bytes) {
  return mn_major_operand_address(d.start_address, d.leading_byte_offset, d.stride_byte_offset, d.swizzle_bits, row, k,
                                  elem_bytes);
}

std::string_view tcgen05_kind_name(Tcgen05Kind k) {
  switch (k) {
    case Tcgen05Kind::f16: return "f16";
    case Tcgen05Kind::tf32: return "tf32";
    case Tcgen05Kind::f8f6f4: return "f8f6f4";
    case Tcgen05Kind::mxf8f6f4: return "mxf8f6f4";
    case Tcgen05Kind::mxf4: return "mxf4";
    case Tcgen05Kind::mxf4nvf4: return "mxf4nvf4";
    case Tcgen05Kind::i8: return "i8";
  }
  return "?";
}

std::optional<Tcgen05Kind> tcgen05_kind(Tcgen05Operand a, Tcgen05Operand b, Tcgen05ScaleFormat scales) {
  // kind::f8f6f4's operands: fp8, or fp6 and fp4 in chunks of 16.
  const auto f8f6f4 = [](Tcgen05Operand o) {
    if (is_fp8(o.type)) return true;
    return o.chunks16 && (o.type == DType::F6E2M3 || o.type == DType::F6E3M2 || o.type == DType::F4E2M1);
  };
  const auto fp4_pairs = [](Tcgen05Operand o) { return o.type == DType::F4E2M1 && !o.chunks16; };
  const bool half = (a.type == DType::F16 || a.type == DType::BF16) && b.type == a.type;
  switch (scales) {
    case Tcgen05ScaleFormat::none:
      if (half) return Tcgen05Kind::f16;
      if (a.type == DType::TF32 && b.type == DType::TF32) return Tcgen05Kind::tf32;
      if (is_byte_integer(a.type) && is_byte_integer(b.type)) return Tcgen05Kind::i8;
      if (f8f6f4(a) && f8f6f4(b)) return Tcgen05Kind::f8f6f4;
      break;
    case Tcgen05ScaleFormat::ue8m0:
      if (f8f6f4(a) && f8f6f4(b)) return Tcgen05Kind::mxf8f6f4;
      if (fp4_pairs(a) && fp4_pairs(b)) return Tcgen05Kind::mxf4;
      break;
    case Tcgen05ScaleFormat::ue4m3:
      if (fp4_pairs(a) && fp4_pairs(b)) return Tcgen05Kind::mxf4nvf4;
      break;
  }
  return std::nullopt;
}

bool tcgen05_kind_is_block_scaled(Tcgen05Kind k) {
  return k != Tcgen05Kind::f16 && k != Tcgen05Kind::tf32 && k != Tcgen05Kind::f8f6f4 && k != Tcgen05Kind::i8;
}

int tcgen05_instruction_k(Tcgen05Kind k) {
  switch (k) {
    case Tcgen05Kind::f16: return 16;
    case Tcgen05Kind::tf32: return 8;
    case Tcgen05Kind::f8f6f4:
    case Tcgen05Kind::mxf8f6f4:
    case Tcgen05Kind::i8: return 32;
    case Tcgen05Kind::mxf4:
    case Tcgen05Kind::mxf4nvf4: return 64;
  }
  return 0;
}

int tcgen05_scale_vector(Tcgen05Kind k) {
  switch (k) {
    case Tcgen05Kind::mxf8f6f4: return 1;
    case Tcgen05Kind::mxf4: return 2;
    case Tcgen05Kind::mxf4nvf4: return 4;
    default: return 0;
  }
}

int tcgen05_scale_block(Tcgen05Kind k) {
  return tcgen05_scale_vector(k) ? tcgen05_instruction_k(k) / tcgen05_scale_vector(k) : 0;
}

uint32_t Tcgen05InstrDescriptor::bits() const {
  const uint32_t common = type_code(kind, a_type) << 7 | type_code(kind, b_type) << 10 | uint32_t(a_mn_major) << 15 |
                          uint32_t(b_mn_major) << 16 | uint32_t(n >> 3) << 17 | uint32_t(m >> 4) << 24;
  const DType accumulator = kind == Tcgen05Kind::i8 ? DType::I32 : DType::F32;
  TESSEL_CHECK(d_type == accumulator, "tcgen05 kind::{} accumulator of type {}", tcgen05_kind_name(kind),
               dtype_name(d_type));
  TESSEL_CHECK(!saturate || kind == Tcgen05Kind::i8, "tcgen05 kind::{} descriptor with saturation",
               tcgen05_kind_name(kind));
  if (!tcgen05_kind_is_block_scaled(kind))
    return uint32_t(saturate) << 3 | (kind == Tcgen05Kind::i8 ? 2u : 1u) << 4 | common;
  TESSEL_CHECK(scale_format != Tcgen05ScaleFormat::none && a_scale_id >= 0 && a_scale_id < 4 && b_scale_id >= 0 &&
                   b_scale_id < 4,
               "tcgen05 kind::{} descriptor without a scale format or with scale IDs {}, {}", tcgen05_kind_name(kind),
               a_scale_id, b_scale_id);
  return uint32_t(b_scale_id) << 4 | common | uint32_t(scale_format == Tcgen05ScaleFormat::ue8m0) << 23 |
         uint32_t(a_scale_id) << 29;
}

Tcgen05InstrDescriptor Tcgen05InstrDescriptor::decode(uint32_t b, Tcgen05Kind kind) {
  const bool scaled = tcgen05_kind_is_block_scaled(kind);
  const uint32_t known = 3u << 4 | 0x3Fu << 7 | 3u << 15 | 0x3Fu << 17 | 0x1Fu << 24 |
                         (scaled ? (1u << 23 | 3u << 29) : 0u) | (kind == Tcgen05Kind::i8 ? 1u << 3 : 0u);
  TESSEL_CHECK((b & ~known) == 0, "tcgen05 instruction descriptor 0x{:x} sets bits tessel never sets", b);
  Tcgen05InstrDescriptor d;
  d.kind = kind;
  d.m = int(b >> 24 & 0x1F) << 4;
  d.n = int(b >> 17 & 0x3F) << 3;
  d.a_type = type_of_code(kind, b >> 7 & 7);
  d.b_type = type_of_code(kind, b >> 10 & 7);
  d.a_mn_major = (b >> 15 & 1) != 0;
  d.b_mn_major = (b >> 16 & 1) != 0;
  if (scaled) {
    d.b_scale_id = int(b >> 4 & 3);
    d.a_scale_id = int(b >> 29 & 3);
    d.scale_format = (b >> 23 & 1) ? Tcgen05ScaleFormat::ue8m0 : Tcgen05ScaleFormat::ue4m3;
  } else {
    const bool integer = kind == Tcgen05Kind::i8;
    TESSEL_CHECK((b >> 4 & 3) == (integer ? 2u : 1u),
                 "tcgen05 instruction descriptor 0x{:x} has a D type other than {}", b, integer ? "s32" : "f32");
    d.d_type = integer ? DType::I32 : DType::F32;
    d.saturate = (b >> 3 & 1) != 0;
  }
  return d;
}

Tcgen05SmemDescriptor tcgen05_interleaved_descriptor(uint32_t start_address) {
  TESSEL_CHECK(start_address % 16 == 0, "tcgen05 operand start {} is not 16-byte aligned", start_address);
  return Tcgen05SmemDescriptor{start_address & 0x3FFFF, 128, 128, 1, 0, 0};
}

int64_t tcgen05_interleaved_address(const Tcgen05SmemDescriptor& d, int row, int byte) {
  TESSEL_CHECK(d.swizzle_bits == 0 && byte < 16, "tcgen05 interleaved descriptor with swizzle {} (byte {})",
               d.swizzle_bits, byte);
  return int64_t(d.start_address) + int64_t(row / 8) * d.stride_byte_offset + (row % 8) * 16 + byte;
}

bool tcgen05_mma_shape_is_legal(int m, int n, int cta_group) {
  if (cta_group == 1 && m == 64) return n >= 8 && n <= 256 && n % 8 == 0;
  if ((cta_group == 1 && m == 128) || (cta_group == 2 && (m == 128 || m == 256)))
    return n >= 16 && n <= 256 && n % 16 == 0;
  return false;
}

}  // namespace tessel
