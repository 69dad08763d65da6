// Verifier rules and effects (tessel/ir/effects.hpp) of mbarriers: the barrier names an element of
// a barrier array, and the counts that are known at trace time are in the ranges PTX allows (PTX
// ISA 9.7.13.15.1).
#include "verification.hpp"

namespace tessel::ir {

namespace {

// Arrival counts and transaction bytes are 20-bit fields of the barrier.
constexpr int64_t kMaxBarrierCount = (int64_t(1) << 20) - 1;

void check_tx_bytes(const Expr& bytes, std::string_view what, const StmtNode& s) {
  int64_t n = 0;
  if (!as_const_int(bytes, &n)) return;
  if (n < 0 || n > kMaxBarrierCount || n % 16 != 0)
    throw Error(s.loc, fmt::format("{}: {} transaction bytes; the count must be a multiple of 16 (every bulk copy "
                                   "moves whole 16-byte units) between 0 and {}",
                                   what, n, kMaxBarrierCount));
}

}  // namespace

void check_barrier(const MbarrierRef& b, const StmtNode& s) {
  const SharedTensorNode& array = *b.array->allocation();
  TESSEL_CHECK(array.dtype == DType::U64 && array.rank() == 1 && !b.array->root,
               "{} at {} names a barrier of something other than a barrier array", kind_name(s.kind), s.loc.str());
  TESSEL_CHECK(!b.index->type.pointer && !is_float(b.index->type.dtype) && b.index->type.dtype != DType::Bool,
               "{} at {} indexes a barrier array with a {}", kind_name(s.kind), s.loc.str(), b.index->type.str());
  int64_t index = 0;
  if (as_const_int(b.index, &index) && (index < 0 || index >= array.shape[0]))
    throw Error(s.loc, fmt::format("barrier index {} is out of range: the barrier array allocated at {} has {} "
                                   "barriers",
                                   index, array.loc.str(), array.shape[0]));
}

void verify_MbarrierInit(Verification&, const MbarrierInitNode& n) {
  TESSEL_CHECK(n.array->dtype == DType::U64 && n.array->rank() == 1 && n.array->shape[0] == int(n.counts.size()),
               "mbarrier_init at {} of {} counts for an array of another shape", n.loc.str(), n.counts.size());
  for (int count : n.counts)
    if (count < 1 || count > kMaxBarrierCount)
      throw Error(n.loc, fmt::format("mbarrier.alloc: a barrier expects {} arrivals per phase; the count must be "
                                     "between 1 and {}",
                                     count, kMaxBarrierCount));
}

void verify_MbarrierArrive(Verification& v, const MbarrierArriveNode& n) {
  check_barrier(n.barrier, n);
  int64_t count = 0;
  const bool known = as_const_int(n.count, &count);
  if (known && (count < 1 || count > kMaxBarrierCount))
    throw Error(n.loc, fmt::format("mbarrier.arrive: an arrival count of {}; it must be between 1 and {}", count,
                                   kMaxBarrierCount));
  if ((!known || count != 1) && v.arch < Arch::Sm90a)
    throw Error(n.loc, fmt::format("mbarrier.arrive with a count other than 1 needs sm_90a or newer; the kernel is "
                                   "compiled for {}",
                                   arch_name(v.arch)));
}

void verify_MbarrierArriveExpectTx(Verification&, const MbarrierArriveExpectTxNode& n) {
  check_barrier(n.barrier, n);
  check_tx_bytes(n.bytes, "mbarrier.arrive_and_expect_tx", n);
}

void verify_MbarrierRemoteArrive(Verification& v, const MbarrierRemoteArriveNode& n) {
  check_barrier(n.barrier, n);
  TESSEL_CHECK((n.count == nullptr) != (n.bytes == nullptr), "remote mbarrier arrival at {} with {}", n.loc.str(),
               n.bytes ? "a count and bytes" : "neither a count nor bytes");
  const std::string_view what = n.bytes ? "mbarrier.arrive_and_expect_tx" : "mbarrier.arrive";
  check_cluster_rank(v.kernel, n.rank, what, n);
  if (n.bytes) check_tx_bytes(n.bytes, what, n);
  int64_t count = 0;
  if (n.count && as_const_int(n.count, &count) && (count < 1 || count > kMaxBarrierCount))
    throw Error(n.loc, fmt::format("mbarrier.arrive: an arrival count of {}; it must be between 1 and {}", count,
                                   kMaxBarrierCount));
}

void verify_MbarrierExpectTx(Verification&, const MbarrierExpectTxNode& n) {
  check_barrier(n.barrier, n);
  check_tx_bytes(n.bytes, "mbarrier.expect_tx", n);
}

void verify_MbarrierWait(Verification& v, const MbarrierWaitNode& n) {
  check_barrier(n.barrier, n);
  // Before sm_90 a wait is a test_wait loop, which knows acquire at CTA scope only.
  if ((n.sem != WaitSemantics::Acquire || n.scope != WaitScope::Cta) && v.arch < Arch::Sm90a)
    throw Error(n.loc, fmt::format("mbarrier.wait with {} semantics at {} scope needs sm_90a or newer; the kernel is "
                                   "compiled for {}",
                                   wait_semantics_name(n.sem), wait_scope_name(n.scope), arch_name(v.arch)));
}

void verify_MbarrierTryWait(Verification&, const MbarrierTryWaitNode& n) {
  check_barrier(n.barrier, n);
  TESSEL_CHECK(n.ready->type == Type{DType::Bool}, "mbarrier_try_wait at {} writes a {} variable", n.loc.str(),
               n.ready->type.str());
}

// ---- effects ----

Effects effects_of(const MbarrierWaitNode&) { return {}; }
Effects effects_of(const MbarrierTryWaitNode&) { return {}; }

Effects effects_of(const MbarrierInitNode& n) {
  Effects e;
  e.barriers_initialized = n.array->allocation();
  e.barrier_counts = &n.counts;
  return e;
}

Effects effects_of(const MbarrierArriveNode& n) {
  Effects e;
  e.arrivals.push_back({&n.barrier, n.count});
  return e;
}

Effects effects_of(const MbarrierArriveExpectTxNode& n) {
  Effects e;
  e.arrivals.push_back({&n.barrier, const_int(1)});
  e.expected_bytes.push_back({&n.barrier, n.bytes});
  return e;
}

Effects effects_of(const MbarrierExpectTxNode& n) {
  Effects e;
  e.expected_bytes.push_back({&n.barrier, n.bytes});
  return e;
}

// The arrival and the bytes go to another block's barrier: none of them count on this block's.
Effects effects_of(const MbarrierRemoteArriveNode& n) {
  Effects e;
  e.arrivals.push_back({&n.barrier, nullptr});
  if (n.bytes) e.expected_bytes.push_back({&n.barrier, n.bytes, true});
  return e;
}

}  // namespace tessel::ir
