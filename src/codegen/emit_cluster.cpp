// Clusters: the cluster barrier, run by every thread of every block of the cluster.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_ClusterSync(Emitter& e, const ir::ClusterSyncNode& n) {
  e.line(ptx_asm(Ptx::ClusterArriveWait, e.arch, {}) + e.comment(n.loc, "cluster.sync"));
}

}  // namespace tessel::codegen
