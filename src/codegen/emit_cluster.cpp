// Clusters: the cluster barrier, run by every thread of every block of the cluster, and the
// addresses of other blocks' shared memory.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_ClusterSync(Emitter& e, const ir::ClusterSyncNode& n) {
  e.line(ptx_asm(Ptx::ClusterArriveWait, e.arch, {}) + e.comment(n.loc, "cluster.sync"));
}

std::string remote_shared_memory(Emitter& e, const ir::Expr& rank) {
  e.line("uint64_t tessel_peer_address;");
  e.line(ptx_asm(Ptx::MapaGeneric, e.arch,
                 {{"tessel_peer_address"}, {"reinterpret_cast<uint64_t>(tessel_smem)"}, {e.expr(rank)}}));
  e.line("unsigned char* const tessel_peer_smem = reinterpret_cast<unsigned char*>(tessel_peer_address);");
  return "tessel_peer_smem";
}

}  // namespace tessel::codegen
