// Verifier rules and effects (tessel/ir/effects.hpp) of the trace instructions: timeline marks.
#include <algorithm>

#include "tessel/ir/mutator.hpp"
#include "verification.hpp"

namespace tessel::ir {

std::vector<std::string> trace_region_names(const KernelNode& k) {
  std::vector<std::string> names;
  walk(k.body, [&](const StmtNode& s) {
    if (s.kind != NodeKind::TraceMark) return;
    const std::string& name = static_cast<const TraceMarkNode&>(s).name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  });
  return names;
}

void verify_TraceMark(Verification&, const TraceMarkNode& n) {
  TESSEL_CHECK(!n.name.empty(), "trace_region at {} without a name", n.loc.str());
  TESSEL_CHECK(!n.buffer || n.buffer->type.pointer, "trace_region at {} records into a non-pointer", n.loc.str());
}

// A mark writes the timeline's own buffer, which no other instruction reads.
Effects effects_of(const TraceMarkNode&) { return {}; }

}  // namespace tessel::ir
