// What the static checks of shared memory may conclude about two tiles from the trace alone.
#pragma once

#include "tessel/ir/ir.hpp"

namespace tessel::passes {

// Whether two shared tiles certainly overlap: the same view, or an allocation and a view of it.
// Two other views of one allocation may be disjoint (one stage each), which the trace cannot tell.
inline bool certainly_overlap(const ir::SharedTensorNode* a, const ir::SharedTensorNode* b) {
  return a == b || a == b->allocation() || b == a->allocation();
}

}  // namespace tessel::passes
