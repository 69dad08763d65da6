// Verifier rules and effects (tessel/ir/effects.hpp) of clusters: the target has them, and block
// ranks known at trace time name a block of the cluster.
#include "verification.hpp"

namespace tessel::ir {

void check_cluster_target(const KernelNode& k, Arch arch) {
  if (k.clustered() && arch < Arch::Sm90a)
    throw Error(k.loc, fmt::format("kernel {} has clusters of {} x {} x {} blocks (attrs.cluster), which need sm_90a "
                                   "or newer; the kernel is compiled for {}",
                                   k.name, k.cluster[0], k.cluster[1], k.cluster[2], arch_name(arch)));
}

void check_cluster_rank(const KernelNode& k, const Expr& rank, std::string_view what, const StmtNode& s) {
  int64_t r = 0;
  if (as_const_int(rank, &r) && (r < 0 || r >= k.cluster_blocks()))
    throw Error(s.loc, fmt::format("{}: block rank {} is outside the cluster of {} blocks (attrs.cluster = {{{}}}); "
                                   "ranks run from 0 to {}",
                                   what, r, k.cluster_blocks(), fmt::join(k.cluster, ", "), k.cluster_blocks() - 1));
}

void check_remote_shared(const KernelNode& k, const Expr& rank, DType t, std::string_view what, const StmtNode& s) {
  if (!k.clustered())
    throw Error(s.loc, fmt::format("{}: tile.remote(rank) reaches the shared memory of another block of the cluster, "
                                   "and kernel {} has no clusters; give it some with attrs.cluster (sm_90a or newer)",
                                   what, k.name));
  check_cluster_rank(k, rank, what, s);
  if (is_packed(t))
    throw Error(s.loc, fmt::format("{}: another block's shared tile of packed {} elements, which move within their own "
                                   "block only; share them through a tile of u8 or wider elements",
                                   what, dtype_name(t)));
}

void check_cluster_mask(const KernelNode& k, const Expr& mask, std::string_view what, std::string_view receives,
                        const StmtNode& s) {
  int64_t m = 0;
  if (!as_const_int(mask, &m)) return;
  const int64_t cluster = (int64_t(1) << k.cluster_blocks()) - 1;
  if (m == 0 || (m & ~cluster) != 0)
    throw Error(s.loc, fmt::format("{}: the multicast mask {:#x} {} the cluster of {} blocks (attrs.cluster = {{{}}}); "
                                   "set bit r for each block rank r in 0..{} that {}",
                                   what, m, m == 0 ? "names no block of" : "names blocks outside", k.cluster_blocks(),
                                   fmt::join(k.cluster, ", "), k.cluster_blocks() - 1, receives));
}

void verify_ClusterSync(Verification&, const ClusterSyncNode&) {}
void verify_ClusterArrive(Verification&, const ClusterArriveNode&) {}
void verify_ClusterWait(Verification&, const ClusterWaitNode&) {}

// st.async writes 4, 8 or 16 bytes (a .b32 word, or .v2 or .v4 of them) and counts each on the
// receiver's barrier: a thread's runs of the tile must fill whole words.
void verify_StoreSharedAsync(Verification& v, const StoreSharedAsyncNode& n) {
  constexpr std::string_view what = "store_shared_async";
  TESSEL_CHECK(int(n.offsets.size()) == n.dst->rank(), "{} with {} offsets at {}", what, n.offsets.size(), n.loc.str());
  check_remote_shared(v.kernel, n.rank, n.dst->dtype, what, n);
  check_barrier(n.barrier, n);
  const int bytes = n.vector * dtype_bytes(n.dst->dtype);
  if (n.vector > 0 && bytes < 4)
    throw Error(n.loc, fmt::format("{}: st.async writes 4, 8 or 16 bytes at a time, and each thread holds runs of {} "
                                   "byte{} of this [{}] tile of {} that are contiguous and aligned in the destination; "
                                   "give the values a layout whose threads hold 4 contiguous bytes or more along the "
                                   "last dimension, at offsets and in rows aligned to them",
                                   what, bytes, bytes == 1 ? "" : "s", fmt::join(n.src->shape(), ", "),
                                   dtype_name(n.dst->dtype)));
  v.use(n.src, n);
}

// ---- effects ----

Effects effects_of(const ClusterSyncNode&) { return {}; }
Effects effects_of(const ClusterArriveNode&) { return {}; }
Effects effects_of(const ClusterWaitNode&) { return {}; }

Effects effects_of(const StoreSharedAsyncNode& n) {
  Effects e;
  int64_t elements = 1;
  for (const int extent : n.src->shape()) elements *= extent;
  e.completed_bytes.push_back({&n.barrier, elements * dtype_bytes(n.dst->dtype), true});
  return e;
}

}  // namespace tessel::ir
