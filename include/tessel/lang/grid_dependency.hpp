// The grid dependency instruction group (PTX ISA, griddepcontrol; sm_90a+): programmatic dependent
// launch. A kernel that calls `grid_dependency.wait()` is launched so that it may start while the
// kernel before it on its stream still runs; what it does before the wait (initializing barriers,
// loading weights that no earlier kernel writes) overlaps that kernel's end (docs/language.md,
// "Programmatic dependent launch").
#pragma once

#include <source_location>

namespace tessel {

class GridDependencyInstructions {
 public:
  using loc_t = std::source_location;

  // griddepcontrol.wait: the executing thread waits until the kernels this launch depends on have
  // ended and their memory is visible to it. Every access to memory that an earlier kernel writes,
  // or that it reads and this one writes, must come after a wait: in the thread that waited, or in
  // one ordered after it (a sync(), an mbarrier phase). Before any wait the kernel launches as any
  // other; without a prior kernel the wait returns at once.
  void wait(loc_t loc = loc_t::current());
  // griddepcontrol.launch_dependents: once every block has executed it (or ended), the next kernel
  // on the stream may start, up to its own wait. It orders no memory: the next kernel's wait still
  // waits for this whole kernel to end.
  void launch_dependents(loc_t loc = loc_t::current());
};

}  // namespace tessel
