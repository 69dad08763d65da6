// Layout rules of the trace instructions: timeline marks have no tiles.
#include "layout_rules.hpp"

namespace tessel::passes {

void layout_rule_TraceMark(LayoutRules&, const ir::TraceMarkNode&) {}

}  // namespace tessel::passes
