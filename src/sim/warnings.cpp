#include "warnings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tessel::sim {

void RunWarnings::load_never_waited_for(const SourceLoc& issued_at, const std::string& block) {
  Loads& l = loads_[issued_at.str()];
  if (l.count++ == 0) {
    l.at = issued_at;
    l.first_block = block;
  }
}

void RunWarnings::prior_grids_unchecked(const SourceLoc& wait, const std::string& kernel,
                                        std::vector<std::string> unrecorded) {
  std::sort(unrecorded.begin(), unrecorded.end());
  unrecorded.erase(std::unique(unrecorded.begin(), unrecorded.end()), unrecorded.end());
  unchecked_.push_back(
      {wait,
       fmt::format("kernel {} waits here for the kernels launched before it, and may run beside them until "
                   "then, but {} ran without race checking (sim::Options::check_races): what it does before this "
                   "wait is not checked against what {} did",
                   kernel, fmt::join(unrecorded, ", "), unrecorded.size() == 1 ? "that kernel" : "those kernels")});
}

void RunWarnings::report(const Options& options) const {
  const auto warn = [&](const Warning& w) {
    if (options.on_warning)
      options.on_warning(w);
    else
      fmt::print(stderr, "{}: warning: {}\n", w.at.str(), w.message);
  };
  for (const Warning& w : unchecked_) warn(w);
  for (const auto& [line, l] : loads_) {
    const bool one = l.count == 1;
    const Warning w{l.at,
                    fmt::format("tma.global_to_shared: {} issued here (the first by block {}) {} never waited "
                                "for: no wait saw {} mbarrier phase complete before the block ended, and on a GPU "
                                "a load may still write the block's shared memory after the block has exited",
                                one ? "a load" : fmt::format("{} loads", l.count), l.first_block, one ? "was" : "were",
                                one ? "its" : "their")};
    warn(w);
  }
}

}  // namespace tessel::sim
