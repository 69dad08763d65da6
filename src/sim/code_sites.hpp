// An instruction of the kernel as the simulator's reports name it, with where it runs.
#pragma once

#include <string>

#include <fmt/format.h>

#include "tessel/ir/ir.hpp"

namespace tessel::sim {

// "store_shared at k.cpp:30 (threads 32..63)", "mbarrier.arrive at k.cpp:31 (thread 0)"; with
// `where`, "mbarrier.arrive at k.cpp:31 (thread 0, finished)".
inline std::string describe_site(const ir::StmtNode& s, const ir::ThreadRange& group, std::string_view where = {}) {
  return fmt::format("{} at {} ({}{}{})", ir::call_name(s.kind), s.loc.str(),
                     group.count == 1 ? fmt::format("thread {}", group.begin) : group.str(), where.empty() ? "" : ", ",
                     where);
}

}  // namespace tessel::sim
