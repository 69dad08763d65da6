// Debug mode: the checks generated kernels carry when EmitOptions::debug is set, and the header
// they call. A failed check prints one report (what failed, with the user's line) and traps, which
// aborts the grid and makes the launch fail; the runtime synchronizes every debug launch, so the
// failure is an error naming the kernel and the call.
#include "emitter.hpp"
#include "tessel/ir/mutator.hpp"
#include "tessel/ir/tensor_map.hpp"

namespace tessel::codegen {

namespace {

const char* const kDebugHeader = R"CUDA(#pragma once
// Checks of kernels generated in debug mode (docs/debugging.md).

// The allocation a pointer parameter lies in, [begin, end), as the driver reported it at launch;
// 0 and ~0 for a pointer the driver placed in no allocation, which is then not checked.
struct tessel_allocation {
  unsigned long long begin, end;
};

// An mbarrier wait that has not completed after this many nanoseconds of the GPU's global timer
// (four seconds, far beyond any wait of a working kernel) is reported as a hang. Wall time, not
// clock cycles: a GPU shared with other processes, or at a low clock, takes many more seconds to
// count as many cycles.
constexpr long long tessel_debug_wait_ns = 4000000000ll;

__device__ __forceinline__ long long tessel_debug_now_ns() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Set by the first thread of the launch whose check fails: it alone prints a report.
__device__ unsigned int tessel_debug_failed = 0u;

__device__ __forceinline__ bool tessel_debug_first_failure() { return atomicExch(&tessel_debug_failed, 1u) == 0u; }

// Ends the kernel after a failed check. The reporting thread traps, aborting the grid; any other
// thread that fails waits for that, so that a second trap cannot cut the report short.
__device__ __noinline__ void tessel_debug_stop(bool reported) {
  if (reported) __trap();
  for (;;) __nanosleep(1000000);
}

__device__ __noinline__ void tessel_debug_wait_timed_out(const char* where, const char* barrier, int index,
                                                         unsigned int parity, const char* allocated_at) {
  const bool first = tessel_debug_first_failure();
  if (first)
    printf("tessel debug: %s: mbarrier wait timed out: barrier %s[%d] (allocated at %s) did not complete its phase "
           "of parity %u within %lld seconds (block (%d, %d, %d), thread %d)\n",
           where, barrier, index, allocated_at, parity, tessel_debug_wait_ns / 1000000000ll, int(blockIdx.x), int(blockIdx.y),
           int(blockIdx.z), int(threadIdx.x));
  tessel_debug_stop(first);
}

// The failing streak of this thread's mbarrier.try_wait calls: when the first of them failed, or
// -1 while the last one succeeded.
__device__ __forceinline__ void tessel_debug_watch_try_wait(bool completed, long long& failing_since,
                                                            const char* where, const char* barrier, int index,
                                                            unsigned int parity, const char* allocated_at) {
  if (completed) {
    failing_since = -1;
    return;
  }
  const long long now = tessel_debug_now_ns();
  if (failing_since < 0) failing_since = now;
  else if (now - failing_since > tessel_debug_wait_ns)
    tessel_debug_wait_timed_out(where, barrier, index, parity, allocated_at);
}

__device__ __forceinline__ bool tessel_debug_inside(tessel_allocation a, const void* p, int bytes) {
  const unsigned long long at = reinterpret_cast<unsigned long long>(p);
  return at >= a.begin && at <= a.end && a.end - at >= (unsigned long long)bytes;
}

// An element index or a view's shape, for reports.
template <int R> struct tessel_index {
  long long v[R];
};

// A TMA box whose first element is not 16-byte aligned in global memory, which Hopper answers with
// an illegal instruction and no line.
__device__ __noinline__ void tessel_debug_misaligned_box(const char* where, const char* what, long long offset,
                                                         const char* type, int bytes) {
  const bool first = tessel_debug_first_failure();
  if (first)
    printf("tessel debug: %s: %s: the last offset (the innermost dimension) is %lld, %lld bytes from the start of "
           "a row of %s; TMA needs a box's first element 16-byte aligned in global memory, so that offset must be a "
           "multiple of %d (block (%d, %d, %d), thread %d)\n",
           where, what, offset, offset * bytes, type, 16 / bytes, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z),
           int(threadIdx.x));
  tessel_debug_stop(first);
}

// A TMA box of packed elements whose first element is not the first of a 16-element chunk.
__device__ __noinline__ void tessel_debug_misaligned_packed_box(const char* where, const char* what,
                                                                long long offset, const char* type) {
  const bool first = tessel_debug_first_failure();
  if (first)
    printf("tessel debug: %s: %s: the box starts at element %lld of the rows of packed %s "
           "elements; TMA moves them 16 to a chunk, so a box starts at a multiple of 16 (block (%d, %d, %d), "
           "thread %d)\n",
           where, what, offset, type, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), int(threadIdx.x));
  tessel_debug_stop(first);
}

// A bulk copy's run that leaves its row (dimension `dim` of the view, the last: `elements` from
// `offset` in a row of `extent`), or whose outer offset lies outside the view (`elements` 0).
__device__ __noinline__ void tessel_debug_bulk_run_outside(const char* where, const char* what, int dim,
                                                           long long offset, long long extent, long long elements) {
  const bool first = tessel_debug_first_failure();
  if (first) {
    if (elements > 0)
      printf("tessel debug: %s: %s: the run of %lld elements at element %lld of a row of %lld leaves the row; a bulk "
             "copy moves a run of one row (block (%d, %d, %d), thread %d)\n",
             where, what, elements, offset, extent, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z),
             int(threadIdx.x));
    else
      printf("tessel debug: %s: %s: offset %lld of dimension %d is outside the view's extent %lld (block (%d, %d, "
             "%d), thread %d)\n",
             where, what, offset, dim, extent, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), int(threadIdx.x));
  }
  tessel_debug_stop(first);
}

// A bulk copy's run that does not start 16-byte aligned in global memory.
__device__ __noinline__ void tessel_debug_misaligned_bulk_run(const char* where, const char* what, int past) {
  const bool first = tessel_debug_first_failure();
  if (first)
    printf("tessel debug: %s: %s: the run starts %d bytes past a 16-byte boundary of global memory; a bulk copy "
           "needs 16-byte aligned global addresses (block (%d, %d, %d), thread %d)\n",
           where, what, past, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), int(threadIdx.x));
  tessel_debug_stop(first);
}

// A pointer made from an address (as_pointer) that is not as aligned as its author promised.
__device__ __noinline__ void tessel_debug_misaligned_pointer(const char* where, const char* what, const char* made_at,
                                                             const void* p, int alignment) {
  const bool first = tessel_debug_first_failure();
  if (first)
    printf("tessel debug: %s: %s: the pointer made at %s is 0x%llx, which is not aligned to the %d bytes promised "
           "(block (%d, %d, %d), thread %d)\n",
           where, what, made_at, reinterpret_cast<unsigned long long>(p), alignment, int(blockIdx.x), int(blockIdx.y),
           int(blockIdx.z), int(threadIdx.x));
  tessel_debug_stop(first);
}

template <int R> __device__ __noinline__ void tessel_debug_outside(const char* where, const char* what,
                                                                   const char* pointer, tessel_index<R> element,
                                                                   tessel_index<R> shape, const void* p, int bytes,
                                                                   tessel_allocation a) {
  const bool first = tessel_debug_first_failure();
  if (first) {
    printf("tessel debug: %s: %s outside the allocation of %s: element (", where, what, pointer);
    for (int d = 0; d < R; ++d) printf(d ? ", %lld" : "%lld", element.v[d]);
    printf(") of the view of shape (");
    for (int d = 0; d < R; ++d) printf(d ? ", %lld" : "%lld", shape.v[d]);
    printf(") is %d bytes at byte %lld of a %llu-byte allocation (block (%d, %d, %d), thread %d)\n", bytes,
           (long long)(reinterpret_cast<unsigned long long>(p) - a.begin), a.end - a.begin, int(blockIdx.x),
           int(blockIdx.y), int(blockIdx.z), int(threadIdx.x));
  }
  tessel_debug_stop(first);
}
)CUDA";

// `s` as a C string literal.
std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The arguments that name a barrier in a report: the user's line, the array's name in the
// generated code, the index, the parity and where the array was allocated.
std::string barrier_report(Emitter& e, const ir::StmtNode& n, const ir::MbarrierRef& barrier,
                           const std::string& parity) {
  return fmt::format("{}, {}, int({}), {}, {}", c_string(n.loc.str()),
                     c_string(e.name(barrier.array.get(), barrier.array->name)), e.expr(barrier.index), parity,
                     c_string(barrier.array->loc.str()));
}

bool has_try_wait(const ir::KernelNode& k) {
  bool found = false;
  ir::walk(k.body, [&](const ir::StmtNode& s) { found = found || s.kind == ir::NodeKind::MbarrierTryWait; });
  return found;
}

constexpr const char* kTryWaitStreak = "tessel_try_wait_failing_since";

}  // namespace

const std::string& debug_header() {
  static const std::string text = kDebugHeader;
  return text;
}

void emit_debug_entry(Emitter& e, const ir::KernelNode& k) {
  if (has_try_wait(k))
    e.line(fmt::format("long long {} = -1;  // debug: mbarrier.try_wait failing since", kTryWaitStreak));
}

void emit_access_check(Emitter& e, const ir::StmtNode& n, const std::string& what, const ir::GlobalTensor& g,
                       const std::string& in_view, const std::string& address, const std::string& bytes,
                       const std::vector<std::string>& coords) {
  // A pointer made from an address has its promised alignment checked. It lies in the allocation of
  // the pointer parameter its address was computed from, if any; one read from memory lies in an
  // allocation the launch does not know.
  const ir::VarNode* pointer =
      g->ptr->kind == ir::NodeKind::Var ? static_cast<const ir::VarNode*>(g->ptr.get()) : nullptr;
  if (g->ptr->kind == ir::NodeKind::Cast) {
    const auto& made = static_cast<const ir::CastNode&>(*g->ptr);
    TESSEL_CHECK(made.alignment > 0, "the global view at {} is over a cast that makes no pointer", g->loc.str());
    e.line(
        fmt::format("if ({}reinterpret_cast<uint64_t>({}) % {} != 0) tessel_debug_misaligned_pointer({}, {}, {}, "
                    "{}, {});  // debug",
                    in_view.empty() ? "" : "(" + in_view + ") && ", e.expr(g->ptr), made.alignment,
                    c_string(n.loc.str()), c_string(what), c_string(made.loc.str()), e.expr(g->ptr), made.alignment));
    ir::walk_expr(*made.a, [&](const ir::ExprNode& x) {
      if (x.kind != ir::NodeKind::Var || !x.type.pointer) return;
      if (const auto* var = static_cast<const ir::VarNode*>(&x); e.allocations.contains(var)) pointer = var;
    });
    if (!pointer) return;
  }
  TESSEL_CHECK(pointer, "the global view at {} is not over a pointer parameter", g->loc.str());
  const auto allocation_of = e.allocations.find(pointer);
  TESSEL_CHECK(allocation_of != e.allocations.end(), "the global view at {} is over {}, not a pointer parameter",
               g->loc.str(), pointer->name);
  const std::string& allocation = allocation_of->second;
  const auto wide = [](const std::string& x) { return fmt::format("(long long)({})", x); };
  std::vector<std::string> element, shape;
  for (const std::string& c : coords) element.push_back(wide(c));
  for (const ir::Expr& extent : g->shape) shape.push_back(wide(e.expr(extent)));
  const std::string when = in_view.empty() ? "" : "(" + in_view + ") && ";
  e.line(fmt::format(
      "if ({}!tessel_debug_inside({}, {}, {})) tessel_debug_outside<{}>({}, {}, {}, {{{{{}}}}}, "
      "{{{{{}}}}}, {}, {}, {});  // debug",
      when, allocation, address, bytes, g->rank(), c_string(n.loc.str()), c_string(what), c_string(pointer->name),
      fmt::join(element, ", "), fmt::join(shape, ", "), address, bytes, allocation));
}

void emit_bulk_run_check(Emitter& e, const ir::StmtNode& n, const std::string& what, const ir::GlobalTensor& g,
                         const std::vector<ir::Expr>& offsets, int64_t elements, const std::string& address) {
  const int last = g->rank() - 1;
  std::vector<std::string> coords;
  for (int d = 0; d <= last; ++d) {
    const std::string offset = fmt::format("(long long)({})", e.expr(offsets[size_t(d)]));
    const std::string extent = fmt::format("(long long)({})", e.expr(g->shape[d]));
    const std::string outside = d == last ? fmt::format("{0} < 0 || {0} + {2} > {1}", offset, extent, elements)
                                          : fmt::format("{0} < 0 || {0} >= {1}", offset, extent);
    e.line(fmt::format("if ({}) tessel_debug_bulk_run_outside({}, {}, {}, {}, {}, {});  // debug", outside,
                       c_string(n.loc.str()), c_string(what), d, offset, extent, d == last ? elements : 0));
    coords.push_back(e.expr(offsets[size_t(d)]));
  }
  e.line(fmt::format("if ({} % 16 != 0) tessel_debug_misaligned_bulk_run({}, {}, int({} % 16));  // debug", address,
                     c_string(n.loc.str()), c_string(what), address));
  emit_access_check(e, n, what, g, "", fmt::format("reinterpret_cast<const void*>({})", address),
                    std::to_string(elements * dtype_bytes(g->dtype)), coords);
}

void emit_box_alignment_check(Emitter& e, const ir::StmtNode& n, const std::string& what, DType t,
                              const std::string& innermost) {
  if (is_packed(t)) {  // loads into 16-element chunks, whose boxes start at a multiple of 16 elements
    e.line(
        fmt::format("if ((long long)({}) % {} != 0) tessel_debug_misaligned_packed_box({}, {}, (long long)({}), {});  "
                    "// debug",
                    innermost, ir::kTmaPackedChunk, c_string(n.loc.str()), c_string(what), innermost,
                    c_string(std::string(dtype_name(t)))));
    return;
  }
  const int bytes = dtype_bytes(t);
  e.line(fmt::format(
      "if ((long long)({}) % {} != 0) tessel_debug_misaligned_box({}, {}, (long long)({}), {}, {});  // debug",
      innermost, 16 / bytes, c_string(n.loc.str()), c_string(what), innermost, c_string(std::string(dtype_name(t))),
      bytes));
}

void emit_bounded_wait(Emitter& e, const ir::StmtNode& n, const ir::MbarrierRef& barrier, const std::string& parity,
                       const std::string& try_once) {
  e.open("");
  e.line("const long long tessel_wait_start = tessel_debug_now_ns();  // debug: a wait that does not end is reported");
  e.open("for (;;)");
  e.line("uint32_t tessel_completed;");
  e.line(try_once);
  e.line("if (tessel_completed) break;");
  e.line(fmt::format(
      "if (tessel_debug_now_ns() - tessel_wait_start > tessel_debug_wait_ns) tessel_debug_wait_timed_out({});",
      barrier_report(e, n, barrier, parity)));
  e.close();
  e.close();
}

void emit_try_wait_watch(Emitter& e, const ir::StmtNode& n, const ir::MbarrierRef& barrier, const std::string& parity,
                         const std::string& completed) {
  e.line(fmt::format("tessel_debug_watch_try_wait({} != 0, {}, {});  // debug", completed, kTryWaitStreak,
                     barrier_report(e, n, barrier, parity)));
}

}  // namespace tessel::codegen
