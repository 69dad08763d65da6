// Why a read found shared memory that was never written, in the user's terms: the simulator sees
// the effect (an unwritten byte), the kernel's code often shows the cause.
#pragma once

#include <string>
#include <string_view>

#include "memory_access.hpp"

namespace tessel::sim {

// What the kernel's code suggests about byte `byte` of the shared memory of `cta` (or of any
// block of its kernel: they are laid out alike), read by warp
// `reader_warp` (or an instruction it issued) before anything wrote it: the instructions of other
// warps that write the allocation holding it, which nothing ordered before the read (a missing
// sync() or mbarrier handoff), the stores of other blocks into it (a missing cluster.sync()), and
// TMA loads into it (a phase completed with fewer transaction
// bytes than the box). A reader of another block (`remote`) is never ordered by program order, and
// its handoff is a cluster.sync() or an mbarrier. Starts with "; "; empty when the code suggests
// nothing.
std::string unwritten_memory_cause(const Cta& cta, int64_t byte, int reader_warp, bool remote = false);

// Checks that the `bytes` at `a` of the shared memory of `owner` (w's own block, or another of its
// cluster), which thread `thread` of `w` reads (`access`, as "read" or "atomic add", `doing` it, as
// "loading"), were written: an error names the likely cause.
void check_shared_written(Warp& w, const Cta& owner, const SharedAddress& a, int bytes, int thread,
                          const SourceLoc& loc, std::string_view access, std::string_view doing);
// A plain read of the same by `lane` of `w`: an error names an asynchronous write still in flight
// there, or a byte never written and its likely cause.
void check_shared_read(Warp& w, const Cta& owner, const SharedAddress& a, int bytes, int lane, const SourceLoc& loc,
                       std::string_view doing);

}  // namespace tessel::sim
