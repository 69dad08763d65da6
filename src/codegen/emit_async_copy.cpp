// cp.async: global -> shared copies that complete asynchronously, and their group bookkeeping.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

void emit_CopyAsync(Emitter& e, const ir::CopyAsyncNode& n) {
  e.header(n, "copy_async global -> shared");
  const int vec = n.vector;
  TESSEL_CHECK(vec >= 1, "copy_async at {} reached code generation without a vector width", n.loc.str());
  const int bytes = dtype_bytes(n.dst->dtype);
  const int rank = n.dst->rank();
  const std::string T = c_type(n.dst->dtype);
  const int64_t base = e.shared_offsets.at(n.dst->allocation());
  e.open("");
  e.line(fmt::format("const int t = {};", e.thread_in_group()));
  if (n.layout.num_threads() < e.group().count) e.open(fmt::format("if (t < {})", n.layout.num_threads()));
  e.line("#pragma unroll");
  e.open(fmt::format("for (int lv = 0; lv < {}; lv += {})", n.layout.local_size(), vec));
  const auto c = n.layout.coord_exprs("t", "lv");
  std::vector<std::string> sterms, gterms, rows_inside;
  for (int d = 0; d < rank; ++d) {
    e.line(fmt::format("const int c{} = {};", d, c[d]));
    const std::string off = e.expr(n.offsets[d]);
    e.line(fmt::format("const int g{} = c{}{};", d, d, off == "0" ? "" : " + " + off));
    sterms.push_back(fmt::format("c{} * {}", d, n.dst->strides[d]));
    gterms.push_back(fmt::format("int64_t(g{}) * {}", d, e.expr(n.src->strides[d])));
    if (d < rank - 1) rows_inside.push_back(fmt::format("g{0} >= 0 && g{0} < {1}", d, e.expr(n.src->shape[d])));
  }
  // The run stays inside one 16-byte chunk, which a swizzle moves as a whole.
  const std::string element = fmt::format("{}{}", n.dst->offset ? e.expr(n.dst->offset) + " + " : "", fmt::join(sterms, " + "));
  if (n.dst->swizzle_bits == 0)
    e.line(fmt::format("{}* s = reinterpret_cast<{}*>(tessel_smem + {}) + {};", T, T, base, element));
  else
    e.line(fmt::format("{}* s = reinterpret_cast<{}*>(tessel_smem + {} + tessel_swizzle<{}>(({}) * {}));", T, T, base,
                       n.dst->swizzle_bits, element, bytes));
  e.line(fmt::format("const {}* g = {} + ({});", T, e.expr(n.src->ptr), fmt::join(gterms, " + ")));
  const std::string last = fmt::format("g{}", rank - 1), extent = e.expr(n.src->shape[rank - 1]);
  rows_inside.push_back(fmt::format("{} >= 0", last));
  // Elements of this run inside the view; the copy zero-fills the rest of the run.
  e.line(fmt::format("const int inside = ({}) ? min({}, max(0, {} - {})) : 0;", fmt::join(rows_inside, " && "), vec,
                     extent, last));
  if (e.debug) {
    std::vector<std::string> coords;
    for (int d = 0; d < rank; ++d) coords.push_back(fmt::format("g{}", d));
    emit_access_check(e, n, "copy_async reads", n.src, "inside > 0", "g", fmt::format("inside * {}", bytes), coords);
  }
  if (vec > 1) {
    e.open(fmt::format("if ((reinterpret_cast<uint64_t>(g) % {}) == 0)", vec * bytes));
    const Ptx copy = vec * bytes == 16 ? Ptx::CpAsyncCg16 : vec * bytes == 8 ? Ptx::CpAsyncCa8 : Ptx::CpAsyncCa4;
    e.line(ptx_asm(copy, e.arch,
                   {{"uint32_t(__cvta_generic_to_shared(s))"}, {fmt::format("inside > 0 ? g : {}", e.expr(n.src->ptr))},
                    {fmt::format("inside * {}", bytes)}}));
    e.close(" else {");
    ++e.indent;
  } else {
    e.open("");
  }
  // Unaligned or narrow runs: copied synchronously, which is also a valid completion.
  e.line("#pragma unroll");
  e.line(fmt::format("for (int j = 0; j < {}; ++j) s[j] = j < inside ? g[j] : {};", vec,
                     to_storage(n.dst->dtype, fmt::format("({})(0)", arith_type(n.dst->dtype)))));
  e.close();
  e.close();
  if (n.layout.num_threads() < e.group().count) e.close();
  e.close();
}

void emit_CopyAsyncCommit(Emitter& e, const ir::CopyAsyncCommitNode& n) {
  e.line(ptx_asm(Ptx::CpAsyncCommitGroup, e.arch, {}) + fmt::format("  // ({})", n.loc.str()));
}

void emit_CopyAsyncWait(Emitter& e, const ir::CopyAsyncWaitNode& n) {
  e.line((n.all ? ptx_asm(Ptx::CpAsyncWaitAll, e.arch, {})
                 : ptx_asm(Ptx::CpAsyncWaitGroup, e.arch, {{std::to_string(n.pending)}})) +
         fmt::format("  // ({})", n.loc.str()));
}

}  // namespace tessel::codegen
