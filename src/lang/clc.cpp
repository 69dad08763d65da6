// The cluster-launch-control instruction group: try_cancel and the queries of its response.
#include "tessel/lang/script.hpp"

namespace tessel {

void ClcInstructions::try_cancel(const SharedTensor& response, const Mbarrier& barrier, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);  // issued by a thread group's first thread: attrs.warps must be set
  b.emit(ir::make<ir::ClcTryCancelNode>(loc, response.ir(), barrier.ir()));
}

void ClcInstructions::try_cancel(const SharedTensor& response, const Mbarrier& barrier, const Multicast& multicast,
                                 loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);
  const std::vector<int>& cluster = b.attrs().cluster.extents();
  int blocks = 1;
  for (int extent : cluster) blocks *= extent;
  const int64_t every_block = (int64_t(1) << blocks) - 1;
  if (!multicast.cta_mask.is_constant() || multicast.cta_mask.value() != every_block)
    throw Error(loc, fmt::format("clc.try_cancel: a multicast response lands in every block of the cluster, so the "
                                 "mask must be {:#b} for the cluster of {} blocks (attrs.cluster, set before this "
                                 "call); got {}",
                                 every_block, blocks,
                                 multicast.cta_mask.is_constant() ? fmt::format("{:#b}", multicast.cta_mask.value())
                                                                  : std::string("a kernel value")));
  b.emit(ir::make<ir::ClcTryCancelNode>(loc, response.ir(), barrier.ir(), true));
}

ClcResponse ClcInstructions::query_response(const SharedTensor& response, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  const auto declare = [&](DType t, const char* name) {
    ir::Var v = ir::make_var(ir::Type{t}, name, loc);
    b.emit(ir::make<ir::DeclareNode>(loc, v, ir::const_int(0, t)));
    return v;
  };
  const ir::Var canceled = declare(DType::Bool, "canceled"), x = declare(DType::I32, "ctaid_x"),
                y = declare(DType::I32, "ctaid_y"), z = declare(DType::I32, "ctaid_z");
  b.emit(ir::make<ir::ClcQueryNode>(loc, canceled, x, y, z, response.ir()));
  return ClcResponse{Expr<bool>(canceled), Index3{Expr<int32_t>(x), Expr<int32_t>(y), Expr<int32_t>(z)}};
}

}  // namespace tessel
