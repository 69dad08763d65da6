// Verifier rules and effects (tessel/ir/effects.hpp) of the atomics: what the target has, in the
// user's terms where the target is the user's choice.
#include "verification.hpp"

namespace tessel::ir {

namespace {

// The one memory an atomic acts on, its element type and rank, and the target's limits on it.
void check_atomic(Verification& v, const StmtNode& n, AtomicOp op, const GlobalTensor& global,
                  const SharedTensor& shared, size_t index_count, MemoryScope scope, DType type) {
  TESSEL_CHECK(bool(global) != bool(shared), "an atomic at {} acts on {} memories", n.loc.str(), global ? "two" : "no");
  const int rank = global ? global->rank() : shared->rank();
  const DType held = global ? global->dtype : shared->dtype;
  TESSEL_CHECK(int(index_count) == rank, "an atomic at {} with {} indices into rank {}", n.loc.str(), index_count,
               rank);
  TESSEL_CHECK(type == held, "an atomic at {} of {} on {} memory", n.loc.str(), dtype_name(type), dtype_name(held));
  const auto needs_sm90 = [&](std::string_view what) {
    if (v.arch < Arch::Sm90a)
      throw Error(n.loc, fmt::format("atomic {} needs sm_90a or newer; the kernel is compiled for {}", what,
                                     arch_name(v.arch)));
  };
  if (scope == MemoryScope::Cluster) needs_sm90("of cluster scope");
  if (op == AtomicOp::Add && type == DType::BF16) needs_sm90("add on bf16");
}

// An atomic on another block's shared tile: a tile of the cluster, and atomic with that block's own
// atomics, which a scope of one block would not include.
void check_remote_atomic(const Verification& v, const StmtNode& n, AtomicOp op, const Expr& rank, DType type,
                         MemoryScope scope, bool fetch, bool scatter) {
  if (!rank) return;
  const std::string what = atomic_call_name(op, fetch, scatter);
  check_remote_shared(v.kernel, rank, type, what, n);
  if (scope == MemoryScope::Cta)
    throw Error(n.loc, fmt::format("{}: an atomic on another block's shared memory at cta scope is atomic only with "
                                   "its own block's, not with the owner's; leave the scope out (cluster, for "
                                   "tile.remote(rank)) or give MemoryScope::cluster",
                                   what));
}

// A view's L2 hint reaches its atomics (.L2::cache_hint), but for atom.cas, which has none: a hint
// there would be dropped without a word. An atomic that writes needs a writable view.
void check_atomic_view(const StmtNode& n, const GlobalTensor& global, AtomicOp op, const std::string& what) {
  if (!global) return;
  if (global->cache_hint != CacheHint::Normal && op == AtomicOp::CompareExchange)
    throw Error(n.loc, fmt::format("{}: atom.cas takes no cache hint, and this view has {}; pass it the view without "
                                   "with_cache_hint",
                                   what, cache_hint_name(global->cache_hint)));
  check_no_l1_hint(global, what + ": atomics take no L1 hint", n);
  if (writes_memory(op)) check_writable(global, what, n);
}

}  // namespace

void verify_AtomicScalar(Verification& v, const AtomicScalarNode& n) {
  check_atomic(v, n, n.op, n.global, n.shared, n.index.size(), n.scope,
               n.value ? n.value->type.dtype : n.result->type.dtype);
  if (n.shared) check_remote_atomic(v, n, n.op, n.rank, n.shared->dtype, n.scope, bool(n.result), false);
  check_atomic_view(n, n.global, n.op, atomic_call_name(n.op, bool(n.result), false));
  TESSEL_CHECK(bool(n.value) == (n.op != AtomicOp::Load), "atomic {} at {} with{} a value", atomic_op_name(n.op),
               n.loc.str(), n.value ? "" : "out");
  TESSEL_CHECK(bool(n.compare) == (n.op == AtomicOp::CompareExchange), "atomic {} at {} with{} an expected value",
               atomic_op_name(n.op), n.loc.str(), n.compare ? "" : "out");
  TESSEL_CHECK(n.op != AtomicOp::Store || !n.result, "atomic store at {} with a result", n.loc.str());
  TESSEL_CHECK(!n.result || !n.value || n.result->type.dtype == n.value->type.dtype,
               "atomic {} at {}: result of {} for a value of {}", atomic_op_name(n.op), n.loc.str(),
               dtype_name(n.result->type.dtype), dtype_name(n.value->type.dtype));
}

void verify_AtomicTensor(Verification& v, const AtomicTensorNode& n) {
  TESSEL_CHECK(n.op != AtomicOp::Load && n.op != AtomicOp::Store, "a tile atomic {} at {}", atomic_op_name(n.op),
               n.loc.str());
  check_atomic(v, n, n.op, n.global, n.shared, n.offsets.size(), n.scope, n.value->dtype);
  if (n.shared) check_remote_atomic(v, n, n.op, n.rank, n.shared->dtype, n.scope, bool(n.out), bool(n.index));
  check_atomic_view(n, n.global, n.op, atomic_call_name(n.op, bool(n.out), bool(n.index)));
  TESSEL_CHECK(bool(n.compare) == (n.op == AtomicOp::CompareExchange), "tile atomic {} at {} with{} expected values",
               atomic_op_name(n.op), n.loc.str(), n.compare ? "" : "out");
  // Only the first replica of an element reaches memory: the others could not receive its old value.
  if (n.out && !n.value->layout.replica_spans().empty())
    throw Error(n.loc, fmt::format("atomic.{}{}{}: the values' layout {} holds each element in several threads, but "
                                   "only one of them may combine it and receive the old value; use the form that "
                                   "returns nothing, or give the values a layout without replicas",
                                   n.index ? "scatter_" : "",
                                   n.op == AtomicOp::Exchange || n.op == AtomicOp::CompareExchange ? "" : "fetch_",
                                   atomic_op_name(n.op), n.value->layout.str()));
  if (n.index) {
    const DType t = n.index->dtype;
    TESSEL_CHECK(n.offsets.size() == 1 && !is_float(t) && t != DType::Bool && !is_packed(t) &&
                     n.index->shape() == n.value->shape(),
                 "a scatter atomic at {} with {} offsets and indices of {}", n.loc.str(), n.offsets.size(),
                 dtype_name(t));
    v.use(n.index, n);
  }
  v.use(n.value, n);
  if (n.compare) v.use(n.compare, n);
  if (n.out) v.define(n.out, n);
}

// ---- effects ----

Effects effects_of(const AtomicScalarNode&) { return {}; }
Effects effects_of(const AtomicTensorNode&) { return {}; }

}  // namespace tessel::ir
