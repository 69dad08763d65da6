// The language's memory orders and scopes as the IR names them.
#pragma once

#include "tessel/ir/instructions/atomic.hpp"
#include "tessel/lang/memory_model.hpp"

namespace tessel::detail {

inline ir::MemoryOrder ir_memory_order(MemoryOrder o) {
  switch (o) {
    case MemoryOrder::relaxed: return ir::MemoryOrder::Relaxed;
    case MemoryOrder::acquire: return ir::MemoryOrder::Acquire;
    case MemoryOrder::release: return ir::MemoryOrder::Release;
    case MemoryOrder::acq_rel: return ir::MemoryOrder::AcqRel;
  }
  return ir::MemoryOrder::Relaxed;
}

inline ir::MemoryScope ir_memory_scope(MemoryScope s) {
  switch (s) {
    case MemoryScope::cta: return ir::MemoryScope::Cta;
    case MemoryScope::cluster: return ir::MemoryScope::Cluster;
    case MemoryScope::gpu: return ir::MemoryScope::Gpu;
    case MemoryScope::sys: return ir::MemoryScope::Sys;
  }
  return ir::MemoryScope::Gpu;
}

}  // namespace tessel::detail
