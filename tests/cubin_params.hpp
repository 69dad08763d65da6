// The parameter table of a kernel in a cubin: where the compiler put each parameter and how
// large it is, so that tests can hold the launch's argument layout against the kernel's own.
//
// A cubin is an ELF file; section ".nv.info.<kernel>" is a list of attributes, each a format
// byte, an attribute byte and, for format 4, a 16-bit length and that many bytes. Attribute 0x17
// (EIATTR_KPARAM_INFO) describes one parameter: index (u32), ordinal (u16), offset (u16), then a
// u32 whose bits 18..31 are the size, as cuobjdump -elf prints them.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace tessel::testing {

struct CubinParam {
  uint32_t offset = 0, size = 0;
  bool operator==(const CubinParam&) const = default;
};

// The parameters of `kernel` by ordinal; empty when the cubin has no table for it.
inline std::vector<CubinParam> cubin_params(const std::vector<char>& cubin, std::string_view kernel) {
  auto read = [&](size_t at, auto value) {
    std::memcpy(&value, cubin.data() + at, sizeof value);
    return value;
  };
  const auto section_table = read(0x28, uint64_t{});
  const auto entry_size = read(0x3a, uint16_t{}), count = read(0x3c, uint16_t{}), names = read(0x3e, uint16_t{});
  auto section = [&](size_t i) {
    const size_t at = section_table + i * entry_size;
    return std::tuple{read(at, uint32_t{}), read(at + 0x18, uint64_t{}), read(at + 0x20, uint64_t{})};
  };
  const uint64_t names_at = std::get<1>(section(names));
  const std::string wanted = ".nv.info." + std::string(kernel);
  std::map<uint16_t, CubinParam> by_ordinal;
  for (size_t i = 0; i < count; ++i) {
    const auto [name, offset, size] = section(i);
    if (std::string_view(cubin.data() + names_at + name) != wanted) continue;
    for (size_t at = offset; at < offset + size;) {
      const uint8_t format = uint8_t(cubin[at]), attribute = uint8_t(cubin[at + 1]);
      if (format != 4) {  // formats 1, 2 and 3 carry 0, 1 and 2 bytes of value
        at += format == 1 ? 2 : format == 2 ? 3 : 4;
        continue;
      }
      const uint16_t length = read(at + 2, uint16_t{});
      if (attribute == 0x17)
        by_ordinal[read(at + 8, uint16_t{})] = {read(at + 10, uint16_t{}), read(at + 12, uint32_t{}) >> 18 & 0x3fff};
      at += 4 + length;
    }
  }
  std::vector<CubinParam> params;
  for (const auto& [ordinal, p] : by_ordinal) params.push_back(p);
  return params;
}

}  // namespace tessel::testing
