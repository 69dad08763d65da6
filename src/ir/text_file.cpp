#include "tessel/text_file.hpp"

#include <fmt/os.h>

namespace tessel {

std::string write_text_file(const std::string& path, std::string_view text) {
  try {
    fmt::output_file(path).print("{}", text);
    return "";
  } catch (const std::system_error& e) {
    return e.code().message();
  }
}

}  // namespace tessel
