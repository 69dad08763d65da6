// TMA: stores of shared tiles through tensor maps and their bulk groups, each issued by the first
// thread of the group that runs it.
#include "emitter.hpp"
#include "ptx.hpp"

namespace tessel::codegen {

namespace {

// Runs `body` in the group's first thread only.
template <class Body> void in_issuing_thread(Emitter& e, Body&& body) {
  if (e.group().count == 1) {
    body();
    return;
  }
  e.open(fmt::format("if ({} == 0)", e.thread_in_group()));
  body();
  e.close();
}

}  // namespace

void emit_TmaStore(Emitter& e, const ir::TmaStoreNode& n) {
  e.header(n, "tma.shared_to_global");
  TESSEL_CHECK(n.tensor_map >= 0 && size_t(n.tensor_map) < e.tensor_maps.size(),
               "tma store at {} reached code generation without a tensor map", n.loc.str());
  const int64_t base = e.shared_offsets.at(n.src->allocation());
  const std::string tile_start =
      n.src->offset ? fmt::format("tessel_smem + {} + ({}) * {}", base, e.expr(n.src->offset), dtype_bytes(n.src->dtype))
                    : fmt::format("tessel_smem + {}", base);
  // The tensor map counts dimensions from the innermost.
  std::vector<std::string> coords;
  for (auto it = n.offsets.rbegin(); it != n.offsets.rend(); ++it) coords.push_back(fmt::format("int({})", e.expr(*it)));
  in_issuing_thread(e, [&] {
    e.line(ptx_asm(Ptx::TmaStore, e.arch,
                   {{fmt::format("reinterpret_cast<uint64_t>(&{})", e.tensor_maps[size_t(n.tensor_map)])},
                    coords,
                    {fmt::format("uint32_t(__cvta_generic_to_shared({}))", tile_start)}}));
  });
}

void emit_TmaCommit(Emitter& e, const ir::TmaCommitNode& n) {
  in_issuing_thread(e, [&] { e.line(ptx_asm(Ptx::BulkCommitGroup, e.arch, {}) + fmt::format("  // ({})", n.loc.str())); });
}

void emit_TmaWait(Emitter& e, const ir::TmaWaitNode& n) {
  in_issuing_thread(e, [&] {
    e.line(ptx_asm(n.read ? Ptx::BulkWaitGroupRead : Ptx::BulkWaitGroup, e.arch, {{std::to_string(n.pending)}}) +
           fmt::format("  // ({})", n.loc.str()));
  });
}

}  // namespace tessel::codegen
