// mbarriers: every executing thread performs its own operation on the barrier word in shared
// memory, as PTX does; who executes is the thread group the user wrote.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

// The shared-window address of barrier `index` of `array` (8 bytes per barrier).
std::string barrier_address(Emitter& e, const ir::SharedTensor& array, const std::string& index) {
  return fmt::format("uint32_t(__cvta_generic_to_shared(tessel_smem + {} + 8 * ({})))",
                     e.shared_offsets.at(array->allocation()), index);
}

PtxModifiers ordering(ir::WaitSemantics sem, ir::WaitScope scope) {
  return {{"sem", std::string(ir::wait_semantics_name(sem))}, {"scope", std::string(ir::wait_scope_name(scope))}};
}

}  // namespace

std::string barrier_address(Emitter& e, const ir::MbarrierRef& b) {
  return barrier_address(e, b.array, e.expr(b.index));
}

void emit_MbarrierInit(Emitter& e, const ir::MbarrierInitNode& n) {
  e.header(n, fmt::format("mbarrier init of {} barriers", n.counts.size()));
  for (size_t i = 0; i < n.counts.size(); ++i)
    e.line(ptx_asm(Ptx::MbarrierInit, e.arch,
                   {{barrier_address(e, n.array, std::to_string(i))}, {std::to_string(n.counts[i])}}));
  // Before sm_90 nothing but threads of the block use a barrier, and the sync() that follows
  // publishes the init to them.
  if (e.arch >= ptx_min_target(Ptx::FenceMbarrierInit)) e.line(ptx_asm(Ptx::FenceMbarrierInit, e.arch, {}));
}

void emit_MbarrierArrive(Emitter& e, const ir::MbarrierArriveNode& n) {
  int64_t count = 0;
  if (ir::as_const_int(n.count, &count) && count == 1)
    e.line(ptx_asm(Ptx::MbarrierArrive, e.arch, {{barrier_address(e, n.barrier)}}) + e.comment(n.loc));
  else
    e.line(ptx_asm(Ptx::MbarrierArriveCount, e.arch, {{barrier_address(e, n.barrier)}, {e.expr(n.count)}}) +
           e.comment(n.loc));
}

void emit_MbarrierArriveExpectTx(Emitter& e, const ir::MbarrierArriveExpectTxNode& n) {
  e.line(ptx_asm(Ptx::MbarrierArriveExpectTx, e.arch, {{barrier_address(e, n.barrier)}, {e.expr(n.bytes)}}) +
         e.comment(n.loc));
}

// The same-offset barrier of block `rank` of the cluster: mapa maps the local address to it.
void emit_MbarrierRemoteArrive(Emitter& e, const ir::MbarrierRemoteArriveNode& n) {
  const std::string bar = barrier_address(e, n.barrier), rank = fmt::format("uint32_t({})", e.expr(n.rank));
  if (n.bytes)
    e.line(ptx_asm(Ptx::MbarrierArriveExpectTxRemote, e.arch, {{bar}, {rank}, {e.expr(n.bytes)}}) + e.comment(n.loc));
  else
    e.line(ptx_asm(Ptx::MbarrierArriveRemote, e.arch, {{bar}, {rank}, {e.expr(n.count)}}) + e.comment(n.loc));
}

void emit_MbarrierExpectTx(Emitter& e, const ir::MbarrierExpectTxNode& n) {
  e.line(ptx_asm(Ptx::MbarrierExpectTx, e.arch, {{barrier_address(e, n.barrier)}, {e.expr(n.bytes)}}) +
         e.comment(n.loc));
}

// try_wait where the target has it; before sm_90 test_wait, which the verifier allowed only for
// acquire at CTA scope, its fixed ordering. In debug mode the loop is C++ around one try, bounded.
void emit_MbarrierWait(Emitter& e, const ir::MbarrierWaitNode& n) {
  const std::string parity = fmt::format("uint32_t({})", e.expr(n.parity));
  const bool try_wait = e.arch >= ptx_min_target(Ptx::MbarrierTryWaitParityLoop);
  const PtxModifiers modifiers = try_wait ? ordering(n.sem, n.scope) : PtxModifiers{};
  if (e.debug) {
    const std::string once = ptx_asm(try_wait ? Ptx::MbarrierTryWaitParity : Ptx::MbarrierTestWaitParity, e.arch,
                                     {{"tessel_completed"}, {barrier_address(e, n.barrier)}, {parity}}, modifiers);
    return emit_bounded_wait(e, n, n.barrier, parity, once + e.comment(n.loc));
  }
  const PtxOperands operands = {{barrier_address(e, n.barrier)}, {parity}};
  e.line(ptx_asm(try_wait ? Ptx::MbarrierTryWaitParityLoop : Ptx::MbarrierTestWaitParityLoop, e.arch, operands,
                 modifiers) +
         e.comment(n.loc));
}

void emit_MbarrierTryWait(Emitter& e, const ir::MbarrierTryWaitNode& n) {
  const std::string parity = fmt::format("uint32_t({})", e.expr(n.parity));
  e.open("");
  // tessel_ names are the generated code's own: no kernel variable has one.
  e.line("uint32_t tessel_completed;");
  e.line(ptx_asm(Ptx::MbarrierTryWaitParity, e.arch, {{"tessel_completed"}, {barrier_address(e, n.barrier)}, {parity}},
                 ordering(n.sem, n.scope)) +
         e.comment(n.loc));
  e.line(fmt::format("{} = tessel_completed != 0;", e.expr(n.ready)));
  if (e.debug) emit_try_wait_watch(e, n, n.barrier, parity, "tessel_completed");
  e.close();
}

}  // namespace tessel::codegen
