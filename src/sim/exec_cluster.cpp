// Simulator semantics of clusters: the cluster barrier of cluster.sync(), which every thread of
// every block of the cluster reaches once per phase.
#include "machine.hpp"

namespace tessel::sim {

void exec_ClusterSync(Warp& w, const ir::ClusterSyncNode& n, Mask mask) {
  w.cta.arrive_at_cluster_barrier(w, mask, n.loc);
}

}  // namespace tessel::sim
