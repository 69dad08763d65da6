// TMA: loads and stores of shared tiles through tensor maps, and the stores' bulk groups, each
// issued by the first thread of the group that runs it.
#include "emitter.hpp"
#include "ptx.hpp"
#include "tessel/ir/tensor_map.hpp"

namespace tessel::codegen {

namespace {

// The box's coordinates as the tensor map counts dimensions: innermost first.
std::vector<std::string> box_coordinates(Emitter& e, const std::vector<ir::Expr>& offsets) {
  std::vector<std::string> coords;
  for (auto it = offsets.rbegin(); it != offsets.rend(); ++it) coords.push_back(fmt::format("int({})", e.expr(*it)));
  return coords;
}

// A TMA copy under its global view's cache hint.
std::string hinted(const Emitter& e, Ptx instruction, ir::CacheHint hint, PtxOperands operands) {
  PtxModifiers modifiers;
  add_cache_hint(hint, operands, modifiers);
  return ptx_asm(instruction, e.arch, operands, modifiers);
}

std::string tensor_map_address(Emitter& e, int tensor_map, const SourceLoc& loc) {
  TESSEL_CHECK(tensor_map >= 0 && size_t(tensor_map) < e.tensor_maps.size(),
               "TMA copy at {} reached code generation without a tensor map", loc.str());
  return fmt::format("reinterpret_cast<uint64_t>(&{})", e.tensor_maps[size_t(tensor_map)]);
}

}  // namespace

std::string shared_address(Emitter& e, const ir::SharedTensor& tile) {
  const int64_t base = e.shared_offsets.at(tile->allocation());
  const std::string start = tile->offset ? fmt::format("tessel_smem + {} + ({}) * {}", base, e.expr(tile->offset),
                                                       ir::tma_shared_element_bytes(tile->dtype))
                                         : fmt::format("tessel_smem + {}", base);
  return fmt::format("uint32_t(__cvta_generic_to_shared({}))", start);
}

void emit_TmaStore(Emitter& e, const ir::TmaStoreNode& n) {
  e.header(n, "tma.shared_to_global");
  const std::string map = tensor_map_address(e, n.tensor_map, n.loc);
  const std::vector<std::string> coords = box_coordinates(e, n.offsets);
  const std::string src = shared_address(e, n.src);
  in_issuing_thread(e, [&] {
    if (e.debug) emit_box_alignment_check(e, n, "tma.shared_to_global", n.dst->dtype, coords.front());
    e.line(hinted(e, Ptx::TmaStore, n.dst->cache_hint, {{map}, coords, {src}}));
  });
}

void emit_TmaLoad(Emitter& e, const ir::TmaLoadNode& n) {
  e.header(n, "tma.global_to_shared");
  const std::string map = tensor_map_address(e, n.tensor_map, n.loc);
  const std::vector<std::string> coords = box_coordinates(e, n.offsets);
  const std::string dst = shared_address(e, n.dst);
  const std::string bar = barrier_address(e, n.barrier);
  in_issuing_thread(e, [&] {
    if (e.debug) emit_box_alignment_check(e, n, "tma.global_to_shared", n.src->dtype, coords.front());
    const ir::CacheHint hint = n.src->cache_hint;
    if (n.cta_mask)
      e.line(hinted(e, Ptx::TmaLoadMulticast, hint,
                    {{dst}, {map}, coords, {bar}, {fmt::format("(unsigned short)({})", e.expr(n.cta_mask))}}));
    else if (n.barrier_rank)
      e.line(hinted(e, Ptx::TmaLoadPeerBarrier, hint,
                    {{dst}, {map}, coords, {bar}, {fmt::format("uint32_t({})", e.expr(n.barrier_rank))}}));
    else
      e.line(hinted(e, Ptx::TmaLoad, hint, {{dst}, {map}, coords, {bar}}));
  });
}

void emit_TmaSharedToCluster(Emitter& e, const ir::TmaSharedToClusterNode& n) {
  e.header(n, "tma.shared_to_cluster");
  const std::string src = shared_address(e, n.src), dst = shared_address(e, n.dst);
  const std::string bar = barrier_address(e, n.barrier);
  in_issuing_thread(e, [&] {
    e.line(ptx_asm(
        Ptx::BulkCopySharedToCluster, e.arch,
        {{dst}, {src}, {fmt::format("{}u", n.src->nbytes())}, {bar}, {fmt::format("uint32_t({})", e.expr(n.rank))}}));
  });
}

namespace {

// The generic address of the element of `view` at `offsets`, where a bulk copy's run starts.
std::string run_address(Emitter& e, const ir::GlobalTensor& view, const std::vector<ir::Expr>& offsets) {
  std::vector<std::string> terms;
  for (int d = 0; d < view->rank(); ++d)
    terms.push_back(fmt::format("int64_t({}) * ({})", e.expr(offsets[size_t(d)]), e.expr(view->strides[d])));
  return fmt::format("reinterpret_cast<uint64_t>({} + ({}))", e.expr(view->ptr), fmt::join(terms, " + "));
}

}  // namespace

void emit_TmaBulkLoad(Emitter& e, const ir::TmaBulkLoadNode& n) {
  e.header(n, "tma.bulk_global_to_shared");
  const std::string dst = shared_address(e, n.dst), bar = barrier_address(e, n.barrier);
  in_issuing_thread(e, [&] {
    e.open("");
    e.line(fmt::format("const uint64_t tessel_run = {};", run_address(e, n.src, n.offsets)));
    if (e.debug)
      emit_bulk_run_check(e, n, "tma.bulk_global_to_shared", n.src, n.offsets,
                          n.dst->nbytes() / dtype_bytes(n.dst->dtype), "tessel_run");
    e.line(hinted(e, Ptx::BulkCopyGlobalToShared, n.src->cache_hint,
                  {{dst}, {"tessel_run"}, {fmt::format("{}u", n.dst->nbytes())}, {bar}}));
    e.close();
  });
}

void emit_TmaBulkStore(Emitter& e, const ir::TmaBulkStoreNode& n) {
  e.header(n, "tma.bulk_shared_to_global");
  const std::string src = shared_address(e, n.src);
  in_issuing_thread(e, [&] {
    e.open("");
    e.line(fmt::format("const uint64_t tessel_run = {};", run_address(e, n.dst, n.offsets)));
    if (e.debug)
      emit_bulk_run_check(e, n, "tma.bulk_shared_to_global", n.dst, n.offsets,
                          n.src->nbytes() / dtype_bytes(n.src->dtype), "tessel_run");
    e.line(hinted(e, Ptx::BulkCopySharedToGlobal, n.dst->cache_hint,
                  {{"tessel_run"}, {src}, {fmt::format("{}u", n.src->nbytes())}}));
    e.close();
  });
}

void emit_TmaCommit(Emitter& e, const ir::TmaCommitNode& n) {
  in_issuing_thread(e, [&] { e.line(ptx_asm(Ptx::BulkCommitGroup, e.arch, {}) + e.comment(n.loc)); });
}

void emit_TmaWait(Emitter& e, const ir::TmaWaitNode& n) {
  in_issuing_thread(e, [&] {
    e.line(ptx_asm(n.read ? Ptx::BulkWaitGroupRead : Ptx::BulkWaitGroup, e.arch, {{std::to_string(n.pending)}}) +
           e.comment(n.loc));
  });
}

}  // namespace tessel::codegen
