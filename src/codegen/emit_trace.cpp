// The trace instructions: a timeline mark appends (global timer, block, warp, region, begin) from
// lane 0 of each warp to the launch's timeline buffer (ir/instructions/trace.hpp) when there is
// one; without one it costs a test of a kernel parameter.
#include <algorithm>

#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_TraceMark(Emitter& e, const ir::TraceMarkNode& n) {
  TESSEL_CHECK(n.buffer, "trace_region at {} reached code generation without its buffer", n.loc.str());
  const auto region = std::find(e.trace_regions.begin(), e.trace_regions.end(), n.name) - e.trace_regions.begin();
  e.header(n, fmt::format("trace_region \"{}\" {}", n.name, n.begin ? "begins" : "ends"));
  const std::string buffer = e.expr(n.buffer);
  e.open(fmt::format("if ({} != 0 && threadIdx.x % 32 == 0)", buffer));
  e.line("unsigned long long tessel_now;");
  e.line(ptx_asm(Ptx::GlobalTimer, e.arch, {{"tessel_now"}}));
  e.line(fmt::format("unsigned long long* tessel_timeline = (unsigned long long*)({});", buffer));
  e.line("const unsigned long long tessel_record = atomicAdd(tessel_timeline, 1ull);");
  e.open(fmt::format("if (tessel_record < {}ull)", ir::kTraceRecords));
  e.line("tessel_timeline[1 + 2 * tessel_record] = tessel_now;");
  e.line(fmt::format(
      "tessel_timeline[2 + 2 * tessel_record] = (unsigned long long)(blockIdx.x + gridDim.x * (blockIdx.y + "
      "gridDim.y * blockIdx.z)) << 32 | (unsigned long long)(threadIdx.x / 32) << 16 | {}ull << 1 | {}ull;",
      region, n.begin ? 1 : 0));
  e.close();
  e.close();
}

}  // namespace tessel::codegen
