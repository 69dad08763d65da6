#include "tessel/error.hpp"

namespace tessel {

void internal_error(const char* cond, const char* file, int line, const std::string& what) {
  throw std::logic_error(fmt::format("tessel internal error at {}:{}: check `{}` failed: {}", file, line, cond, what));
}

}  // namespace tessel
