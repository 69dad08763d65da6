// Cluster launch control: try_cancel issued by the group's first thread, and the queries of a
// response by every thread that runs them.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_ClcTryCancel(Emitter& e, const ir::ClcTryCancelNode& n) {
  e.header(n, "clc.try_cancel");
  const std::string response = shared_address(e, n.response), bar = barrier_address(e, n.barrier);
  in_issuing_thread(e, [&] {
    e.line(ptx_asm(n.multicast ? Ptx::ClcTryCancelMulticast : Ptx::ClcTryCancel, e.arch, {{response}, {bar}}));
  });
}

void emit_ClcQuery(Emitter& e, const ir::ClcQueryNode& n) {
  e.header(n, "clc.query_response");
  e.open("");
  e.line("uint32_t canceled, ctaid[4];");
  e.line(ptx_asm(Ptx::ClcQuery, e.arch,
                 {{"canceled"}, {"ctaid[0]", "ctaid[1]", "ctaid[2]", "ctaid[3]"}, {shared_address(e, n.response)}}));
  e.line(fmt::format("{} = canceled != 0;", e.expr(n.canceled)));
  e.line(fmt::format("{} = int(ctaid[0]);", e.expr(n.x)));
  e.line(fmt::format("{} = int(ctaid[1]);", e.expr(n.y)));
  e.line(fmt::format("{} = int(ctaid[2]);", e.expr(n.z)));
  e.close();
}

}  // namespace tessel::codegen
