#include <charconv>
#include <cmath>

#include "commands.hpp"
#include "tessel/error.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::cli {

analysis::GpuSpec resolve_gpu(const std::string& name) {
  if (name != "device") return analysis::gpu_spec(name);
  auto& driver = runtime::CudaDriver::get();
  if (!driver.available()) {
    std::vector<std::string> keys;
    for (const auto& g : analysis::known_gpus()) keys.push_back(g.key);
    throw Error(fmt::format("--gpu device: no GPU here ({}); name one of {} instead", driver.unavailable_reason(),
                            fmt::join(keys, ", ")));
  }
  return analysis::from_device(driver.device_info());
}

int parse_count(std::string_view option, const std::string& text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0)
    throw Error(fmt::format("{} '{}': expected a positive integer", option, text));
  return value;
}

double parse_positive(std::string_view option, const std::string& text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value > 0) || !std::isfinite(value))
    throw Error(fmt::format("{} '{}': expected a positive number", option, text));
  return value;
}

}  // namespace tessel::cli
