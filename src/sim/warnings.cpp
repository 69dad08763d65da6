#include "warnings.hpp"

#include <fmt/format.h>

namespace tessel::sim {

void RunWarnings::load_never_waited_for(const SourceLoc& issued_at, const std::string& block) {
  Loads& l = loads_[issued_at.str()];
  if (l.count++ == 0) {
    l.at = issued_at;
    l.first_block = block;
  }
}

void RunWarnings::report(const Options& options) const {
  for (const auto& [line, l] : loads_) {
    const bool one = l.count == 1;
    const Warning w{l.at,
                    fmt::format("tma.global_to_shared: {} issued here (the first by block {}) {} never waited "
                                "for: no wait saw {} mbarrier phase complete before the block ended, and on a GPU "
                                "a load may still write the block's shared memory after the block has exited",
                                one ? "a load" : fmt::format("{} loads", l.count), l.first_block, one ? "was" : "were",
                                one ? "its" : "their")};
    if (options.on_warning)
      options.on_warning(w);
    else
      fmt::print(stderr, "{}: warning: {}\n", w.at.str(), w.message);
  }
}

}  // namespace tessel::sim
