// Simulator semantics of the trace instructions: a timeline mark starts or ends its region on the
// warp's track of the simulator's timeline, when the run records one; the buffer the GPU would
// write is not touched.
#include "machine.hpp"
#include "timeline.hpp"

namespace tessel::sim {

void exec_TraceMark(Warp& w, const ir::TraceMarkNode& n, Mask) {
  if (Timeline* timeline = w.cta.scheduler.timeline) timeline->region(w, n.name, n.begin);
}

}  // namespace tessel::sim
