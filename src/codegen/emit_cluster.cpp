// Clusters: the cluster barrier, run by every thread of every block of the cluster, the addresses
// of other blocks' shared memory, and st.async into it.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_ClusterSync(Emitter& e, const ir::ClusterSyncNode& n) {
  e.line(ptx_asm(Ptx::ClusterArriveWait, e.arch, {}) + e.comment(n.loc, "cluster.sync"));
}

void emit_ClusterArrive(Emitter& e, const ir::ClusterArriveNode& n) {
  e.line(ptx_asm(n.relaxed ? Ptx::ClusterArriveRelaxed : Ptx::ClusterArriveRelease, e.arch, {}) +
         e.comment(n.loc, "cluster.arrive"));
}

void emit_ClusterWait(Emitter& e, const ir::ClusterWaitNode& n) {
  e.line(ptx_asm(Ptx::ClusterWait, e.arch, {}) + e.comment(n.loc, "cluster.wait"));
}

std::string remote_shared_memory(Emitter& e, const ir::Expr& rank) {
  e.line("uint64_t tessel_peer_address;");
  e.line(ptx_asm(Ptx::MapaGeneric, e.arch,
                 {{"tessel_peer_address"}, {"reinterpret_cast<uint64_t>(tessel_smem)"}, {e.expr(rank)}}));
  e.line("unsigned char* const tessel_peer_smem = reinterpret_cast<unsigned char*>(tessel_peer_address);");
  return "tessel_peer_smem";
}

// Each run of `vector` elements is one st.async of its words, issued by the first replica of its
// elements only: every st.async counts its bytes on the receiver's barrier.
void emit_StoreSharedAsync(Emitter& e, const ir::StoreSharedAsyncNode& n) {
  e.header(n, "store_shared_async");
  const int bytes = n.vector * dtype_bytes(n.dst->dtype), words = bytes / 4;
  TESSEL_CHECK(n.vector >= 1 && bytes % 4 == 0 && bytes <= 16, "store_shared_async at {} in runs of {} bytes",
               n.loc.str(), bytes);
  e.open("");
  e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  e.line(fmt::format("const uint32_t tessel_barrier = {};", barrier_address(e, n.barrier)));
  e.line(fmt::format("const uint32_t tessel_rank = uint32_t({});", e.expr(n.rank)));
  const std::vector<std::string> first = first_replica_conditions(n.src->layout, "t");
  if (!first.empty()) e.open(fmt::format("if ({})", fmt::join(first, " && ")));
  open_run_loop(e, n.src, n.offsets, "lv", n.vector);
  e.line(fmt::format("uint32_t tessel_words[{}];", words));
  e.line(fmt::format("memcpy(tessel_words, &{}[lv], {});", e.tile(n.src), bytes));
  const std::string dst =
      fmt::format("uint32_t(__cvta_generic_to_shared(&{}))", shared_element(e, n.dst, shared_index(n.dst)));
  std::vector<std::string> registers;
  for (int i = 0; i < words; ++i) registers.push_back(fmt::format("tessel_words[{}]", i));
  e.line(ptx_asm(words == 1 ? Ptx::StAsync : Ptx::StAsyncVector, e.arch,
                 {{dst}, registers, {"tessel_barrier"}, {"tessel_rank"}}));
  e.close();
  if (!first.empty()) e.close();
  e.close();
}

}  // namespace tessel::codegen
