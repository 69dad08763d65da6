// The CPU simulator: runs the lowered IR of a kernel with GPU semantics (see docs/simulator.md).
// Blocks run in groups (a kernel's clusters; one block per group unless asked otherwise); within a
// group each warp is a fiber and the unit of scheduling, and asynchronous engines complete their
// work at times the scheduler chooses. A kernel that cancels launches (cluster launch control)
// runs from a launch queue, a few groups resident at a time. Problems a GPU would hide or hang on
// are reported as tessel::Error naming the user's line: deadlocks, out-of-bounds global accesses,
// reads of shared memory nothing wrote, accesses to shared memory an asynchronous copy may still
// be writing.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/ir.hpp"

namespace tessel::sim {

// When the asynchronous engines complete the operations they hold, and which of the writes the PTX
// model lets an atomic load read it reads (docs/simulator.md, "What an atomic load reads").
enum class CompletionOrder {
  Eager,   // as soon as issued, and the newest write: the most forgiving order
  Lazy,    // only when a waiting warp needs them, or when the blocks end, and the oldest write a load
           // may read: exposes missing waits and flags
  Seeded,  // at points drawn from Options::seed, besides when a waiting warp needs them; writes drawn
};

// A finding that does not make a run wrong but that the kernel's author should know of, at the
// author's line: loads that nothing waited for before their block ended.
struct Warning {
  SourceLoc at;
  std::string message;
};

struct Options {
  // Warp interleaving. 0: ready warps take turns in order; otherwise the interleaving is drawn
  // from this seed. Every seed gives one deterministic run.
  uint64_t seed = 0;
  // Unset: Lazy with seed 0, Seeded otherwise.
  std::optional<CompletionOrder> completion = std::nullopt;
  // Blocks scheduled together, with their warps and engines interleaved, in a kernel without
  // clusters (a kernel's clusters are its groups). The grid must divide into groups of this shape.
  std::array<int, 3> blocks_per_group = {1, 1, 1};
  // The simulated device's multiprocessor count, the value of a kernel's `multiprocessors`. Small,
  // so that a persistent kernel's blocks each loop over several tiles.
  int multiprocessors = 4;
  // Clusters (blocks, without clusters) resident at once in a kernel that uses cluster launch
  // control; the others wait in the launch queue, from which try_cancel takes them. Small, so that
  // persistent kernels cancel most of the grid.
  int resident_clusters = 2;
  // Groups of blocks resident at once in a kernel without cluster launch control, taken from the
  // launch queue in grid order as resident ones end, their warps interleaved: blocks that hand each
  // other data through global memory (a look-back scan, a semaphore) then run side by side. 1: group
  // after group.
  int resident_groups = 1;
  // Race detection: report two accesses of one byte of shared or global memory, one a write, that
  // nothing orders (a sync(), an mbarrier phase, the wait of an asynchronous operation).
  bool check_races = true;
  // Receives each warning of a run that ends without error, once per line. Unset: printed to
  // stderr as "file:line: warning: message".
  std::function<void(const Warning&)> on_warning = nullptr;
  // Where to write a Chrome/Perfetto trace of the run (docs/debugging.md, "A timeline"): each
  // warp's thread groups and waits, each block's mbarrier phases and its asynchronous agents' work,
  // over simulated time. Empty: the file TESSEL_TRACE names, if it is set.
  std::string trace_file;

  CompletionOrder completion_order() const {
    return completion.value_or(seed == 0 ? CompletionOrder::Lazy : CompletionOrder::Seeded);
  }
};

struct Launch {
  std::array<int, 3> grid = {1, 1, 1};
  std::vector<ir::Scalar> args;  // one per kernel parameter; pointers as integers
};

// What a simulated run reports (a deadlock, a race, a fault at the user's line): the kernel ran and
// failed, where an Error of any other kind says it could not run.
class RunReport : public Error {
 public:
  explicit RunReport(const Error& report) : Error(report) {}
};

// Runs the kernel; throws a RunReport where the run fails.
void run(const ir::KernelNode& k, const Launch& launch, const Options& options = {});

// The schedules `tessel check` runs a kernel under: eager completion, lazy completion, then
// `seeds` seeded interleavings and completions, the first of them again with four groups of
// blocks resident at once, all with race detection. A user's own test runs
// its kernel once per schedule: `Kernel<S>(Device::simulator(), KernelOptions{.sim = schedule})`.
std::vector<Options> adversarial_schedules(int seeds = 3);
// "eager", "lazy", "seed 2", "seed 1, 4 groups at once", "lazy, warps interleaved by seed 5"
std::string schedule_name(const Options& schedule);

// The host waited for every kernel it launched to end (a copy to or from simulated memory, a
// synchronize; unregistering an allocation, as freeing one does): a kernel launched next as a programmatic dependent
// (grid_dependency.wait()) overlaps none of them.
void host_synchronized();

// The global memory kernels may touch: allocations made through Device::simulator().
void register_allocation(const void* p, size_t bytes);
void unregister_allocation(const void* p);
// Whether bytes [p, p + bytes) lie in one registered allocation.
bool is_registered(const void* p, size_t bytes);

}  // namespace tessel::sim
