// The IR nodes of the trace instruction family (nodes.def): the marks of a timeline
// (docs/debugging.md, "A timeline").
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// The start (`begin`) or the end of region `name` of the user's timeline (trace_region). On the
// GPU, lane 0 of each warp that runs it appends a record to `buffer` (a TraceBuffer derived
// parameter that plan_trace_buffer adds): the global timer, the block, the warp and the mark, when
// the launch gives a buffer (TESSEL_TRACE), and nothing when it is null. The simulator's timeline
// records the region itself.
struct TraceMarkNode : StmtNode {
  TraceMarkNode(SourceLoc l, std::string name, bool begin)
      : StmtNode(NodeKind::TraceMark, std::move(l)), name(std::move(name)), begin(begin) {}
  std::string name;
  bool begin;
  Expr buffer;  // set by plan_trace_buffer
  static constexpr auto operands() { return std::tuple{optional(&TraceMarkNode::buffer)}; }
};

// The distinct names of the kernel's timeline regions, in program order: a mark's record holds
// the index of its name.
std::vector<std::string> trace_region_names(const KernelNode& k);

// A timeline buffer: a u64 count of the records appended, then this many records of two u64 each,
// the global timer in nanoseconds and (block << 32 | warp << 16 | region << 1 | begin); records
// past the end are dropped (the count still counts them).
inline constexpr int64_t kTraceRecords = int64_t(1) << 20;
inline constexpr int64_t kTraceBufferBytes = 8 + 16 * kTraceRecords;

}  // namespace tessel::ir
