// A generated kernel as one translation unit: its headers inlined where it includes them.
#include <fmt/format.h>

#include "tessel/codegen/cuda.hpp"
#include "tessel/error.hpp"

namespace tessel::codegen {

namespace {

// A header's text without its `#pragma once`, which in a main file only draws a warning.
std::string inlined_text(const std::string& header) {
  static const std::string kPragmaOnce = "#pragma once\n";
  std::string text = header;
  if (const size_t at = text.find(kPragmaOnce); at != std::string::npos) text.erase(at, kPragmaOnce.size());
  return text;
}

}  // namespace

std::string CudaModule::standalone_source() const {
  std::string out = source;
  for (const auto& [name, contents] : headers) {
    const std::string include = fmt::format("#include \"{}\"\n", name);
    const size_t at = out.find(include);
    TESSEL_CHECK(at != std::string::npos, "kernel {} lists header {} but does not include it", kernel_name, name);
    out.replace(at, include.size(),
                fmt::format("// {}, inlined\n{}// end of {}\n", name, inlined_text(contents), name));
  }
  return out;
}

}  // namespace tessel::codegen
