// Fences: between the generic and the async proxy, and of the memory consistency model.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_FenceProxyAsync(Emitter& e, const ir::FenceProxyAsyncNode& n) {
  const std::string_view space = ir::proxy_fence_space_name(n.space);
  e.line(ptx_asm(Ptx::FenceProxyAsync, e.arch, {}, {{"space", space.empty() ? "" : "." + std::string(space)}}) +
         e.comment(n.loc, "fence.proxy_async"));
}

void emit_MemoryFence(Emitter& e, const ir::MemoryFenceNode& n) {
  const std::string sem(ir::fence_semantics_name(n.sem));
  e.line(ptx_asm(Ptx::MemoryFence, e.arch, {}, {{"sem", sem}, {"scope", std::string(ir::memory_scope_name(n.scope))}}) +
         e.comment(n.loc, "fence." + sem));
}

}  // namespace tessel::codegen
