// cp.async: global -> shared copies that complete asynchronously, and their group bookkeeping.
//
// A copy moves a tile of the view at `offsets`. Whether the whole tile lies inside the view is
// decided once per copy, not per run: a whole tile copies every run unconditionally, and only a
// tile on the view's edge computes, per run, how much of it lies inside (the copy zero-fills the
// rest). Alignment is proven from the variant's specialization where it can be (Divisibility);
// otherwise it is tested once per tile, and unaligned runs are copied synchronously.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

Ptx copy_instruction(int run_bytes, bool whole) {
  switch (run_bytes) {
    case 16: return whole ? Ptx::CpAsyncCg16Whole : Ptx::CpAsyncCg16;
    case 8: return whole ? Ptx::CpAsyncCa8Whole : Ptx::CpAsyncCa8;
    default: return whole ? Ptx::CpAsyncCa4Whole : Ptx::CpAsyncCa4;
  }
}

}  // namespace

void emit_CopyAsync(Emitter& e, const ir::CopyAsyncNode& n) {
  e.header(n, "copy_async global -> shared");
  const int vec = n.vector;
  TESSEL_CHECK(vec >= 1, "copy_async at {} reached code generation without a vector width", n.loc.str());
  const ir::GlobalTensor& g = n.src;
  const int bytes = dtype_bytes(n.dst->dtype);
  const int run_bytes = vec * bytes;
  const bool asynchronous = run_bytes >= 4;  // cp.async moves 4, 8 or 16 bytes
  const int rank = n.dst->rank();
  const std::string T = c_type(n.dst->dtype);
  const int threads = n.in_turn ? e.group().count : n.layout.num_threads();
  e.open("");
  e.line(fmt::format("[[maybe_unused]] const int t = {};", e.thread_in_group()));
  if (threads < e.group().count) e.open(fmt::format("if (t < {})", threads));
  const std::vector<std::string> whole = declare_tile(e, g, n.offsets, n.dst->shape, "const " + T + "*");
  const std::vector<std::string> unproven =
      vec > 1 ? unproven_alignment(e, g, n.offsets, run_bytes, "tile") : std::vector<std::string>{};

  // Emits body(at) for each of the thread's runs, with the run's first shared element `s`, its
  // first global one `g`, and `at`, its coordinates in the view. Split by a layout, a run's
  // coordinates are the thread's part plus the run's own, a constant of the unrolled copy (every
  // mode of a layout is either a thread digit or a register digit): the thread's addresses are
  // computed once, and each run adds an immediate. Taken in turn, they come from the run's index.
  std::vector<std::string> sterms, gterms;
  if (!n.in_turn) {
    const std::vector<std::string> thread_coord = n.layout.coord_exprs("t", "0");
    for (int d = 0; d < rank; ++d) {
      e.line(fmt::format("const int c{} = {};", d, thread_coord[d]));
      sterms.push_back(fmt::format("c{} * {}", d, n.dst->strides[d]));
      gterms.push_back(fmt::format("int64_t(c{}) * {}", d, e.expr(g->strides[d])));
    }
    e.line(fmt::format("const {}* thread_g = tile + ({});", T, fmt::join(gterms, " + ")));
  }
  const auto for_each_run = [&](const auto& body) {
    if (n.in_turn) {
      int64_t runs = 1;
      for (int d = 0; d < rank; ++d) runs *= d == rank - 1 ? n.dst->shape[d] / vec : n.dst->shape[d];
      e.open(fmt::format("for (int r = t; r < {}; r += {})", runs, threads));
      std::vector<std::string> at, run_sterms, run_gterms;
      e.line("int rest = r;");
      for (int d = rank - 1; d >= 0; --d) {
        const int extent = d == rank - 1 ? n.dst->shape[d] / vec : n.dst->shape[d];
        const std::string scale = d == rank - 1 && vec > 1 ? fmt::format(" * {}", vec) : "";
        if (d == 0)
          e.line(fmt::format("const int c0 = rest{};", scale));
        else
          e.line(fmt::format("const int c{0} = rest % {1}{2}; rest /= {1};", d, extent, scale));
      }
      for (int d = 0; d < rank; ++d) {
        at.push_back(fmt::format("o{0} + c{0}", d));
        run_sterms.push_back(fmt::format("c{} * {}", d, n.dst->strides[d]));
        run_gterms.push_back(fmt::format("int64_t(c{}) * {}", d, e.expr(g->strides[d])));
      }
      e.line(fmt::format("{}* s = reinterpret_cast<{}*>(tessel_smem + {});", T, T,
                         shared_byte_offset(e, n.dst, fmt::format("{}", fmt::join(run_sterms, " + ")))));
      e.line(fmt::format("const {}* g = tile + ({});", T, fmt::join(run_gterms, " + ")));
      body(at);
      e.close();
      return;
    }
    for (int lv = 0; lv < n.layout.local_size(); lv += vec) {
      const std::vector<int> k = n.layout.coords(0, lv);
      int64_t shared_constant = 0;
      std::vector<std::string> at;
      for (int d = 0; d < rank; ++d) {
        shared_constant += int64_t(k[d]) * n.dst->strides[d];
        at.push_back(fmt::format("o{0} + c{0} + {1}", d, k[d]));
      }
      e.open("");
      e.line(fmt::format("{}* s = reinterpret_cast<{}*>(tessel_smem + {});", T, T,
                         shared_byte_offset(e, n.dst, fmt::format("{}", fmt::join(sterms, " + ")), shared_constant)));
      e.line(fmt::format("const {}* g = thread_g{};", T, run_offset(e, g, k)));
      body(at);
      e.close();
    }
  };

  // A tile wholly inside the view with every run aligned copies each run unconditionally; debug
  // mode checks every run against its allocation, on the edge path.
  if (asynchronous && !e.debug) {
    std::vector<std::string> fast = whole;
    fast.insert(fast.end(), unproven.begin(), unproven.end());
    e.open(fmt::format("if ({})", fmt::join(fast, " && ")));
    for_each_run([&](const std::vector<std::string>&) {
      e.line(ptx_asm(copy_instruction(run_bytes, true), e.arch, {{"uint32_t(__cvta_generic_to_shared(s))"}, {"g"}}));
    });
    e.close(" else {");
    ++e.indent;
  } else {
    e.open("");
  }
  for_each_run([&](const std::vector<std::string>& at) {
    std::vector<std::string> rows_inside;
    for (int d = 0; d + 1 < rank; ++d)
      rows_inside.push_back(fmt::format("{0} >= 0 && {0} < {1}", at[size_t(d)], e.expr(g->shape[d])));
    rows_inside.push_back(at.back() + " >= 0");
    // Elements of this run inside the view; the copy zero-fills the rest of the run.
    e.line(fmt::format("const int inside = ({}) ? min({}, max(0, {} - ({}))) : 0;", fmt::join(rows_inside, " && "), vec,
                       e.expr(g->shape[rank - 1]), at.back()));
    if (e.debug)
      emit_access_check(e, n, "copy_async reads", g, "inside > 0", "g", fmt::format("inside * {}", bytes), at);
    const auto zero_filling_copy = [&] {
      e.line(ptx_asm(copy_instruction(run_bytes, false), e.arch,
                     {{"uint32_t(__cvta_generic_to_shared(s))"},
                      {fmt::format("inside > 0 ? g : {}", e.expr(g->ptr))},
                      {fmt::format("inside * {}", bytes)}}));
    };
    const auto synchronous_copy = [&] {
      e.line("#pragma unroll");
      e.line(fmt::format("for (int j = 0; j < {}; ++j) s[j] = j < inside ? g[j] : {};", vec,
                         to_storage(n.dst->dtype, fmt::format("({})(0)", arith_type(n.dst->dtype)))));
    };
    if (!asynchronous) {
      synchronous_copy();
    } else if (unproven.empty()) {
      zero_filling_copy();
    } else {
      // Unaligned runs are copied synchronously, which is also a valid completion.
      e.open(fmt::format("if ((reinterpret_cast<uint64_t>(g) % {}) == 0)", run_bytes));
      zero_filling_copy();
      e.close(" else {");
      ++e.indent;
      synchronous_copy();
      e.close();
    }
  });
  e.close();
  if (threads < e.group().count) e.close();
  e.close();
}

void emit_CopyAsyncCommit(Emitter& e, const ir::CopyAsyncCommitNode& n) {
  e.line(ptx_asm(Ptx::CpAsyncCommitGroup, e.arch, {}) + e.comment(n.loc));
}

void emit_CopyAsyncWait(Emitter& e, const ir::CopyAsyncWaitNode& n) {
  e.line((n.all ? ptx_asm(Ptx::CpAsyncWaitAll, e.arch, {})
                : ptx_asm(Ptx::CpAsyncWaitGroup, e.arch, {{std::to_string(n.pending)}})) +
         e.comment(n.loc));
}

}  // namespace tessel::codegen
