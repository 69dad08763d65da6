// Fences between the generic and the async proxy.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_FenceProxyAsync(Emitter& e, const ir::FenceProxyAsyncNode& n) {
  const std::string_view space = ir::proxy_fence_space_name(n.space);
  e.line(ptx_asm(Ptx::FenceProxyAsync, e.arch, {}, {{"space", space.empty() ? "" : "." + std::string(space)}}) +
         e.comment(n.loc, "fence.proxy_async"));
}

}  // namespace tessel::codegen
