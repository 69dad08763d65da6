// Why a read found shared memory that was never written, in the user's terms: the simulator sees
// the effect (an unwritten byte), the kernel's code often shows the cause.
#pragma once

#include <string>

namespace tessel::sim {

class Cta;

// What the kernel's code suggests about byte `byte` of `cta`'s shared memory, read by warp
// `reader_warp` (or an instruction it issued) before anything wrote it: the instructions of other
// warps that write the allocation holding it, which nothing ordered before the read (a missing
// sync() or mbarrier handoff), and TMA loads into it (a phase completed with fewer transaction
// bytes than the box). Starts with "; "; empty when the code suggests nothing.
std::string unwritten_memory_cause(const Cta& cta, int64_t byte, int reader_warp);

}  // namespace tessel::sim
