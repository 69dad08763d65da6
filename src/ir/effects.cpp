#include "tessel/ir/effects.hpp"

namespace tessel::ir {

Effects effects(const StmtNode& s) {
  switch (s.kind) {
// clang-format off
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
    TESSEL_CHECK(false, "not a statement: {}", kind_name(s.kind));
    return {};
#define TESSEL_STMT(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
    return {};
#define TESSEL_INSTR(Name, family, min_target, executor, call) \
  case NodeKind::Name: return effects_of(static_cast<const Name##Node&>(s));
#include "tessel/ir/nodes.def"
    // clang-format on
  }
  return {};
}

}  // namespace tessel::ir
