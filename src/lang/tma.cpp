// TMA: loads and stores of shared tiles as boxes of global views, and the stores' bulk groups.
#include "tessel/lang/tma.hpp"

#include "tessel/lang/builder.hpp"

namespace tessel {

namespace {

// The dimensions of `view` that a tile of `tile_rank` covers: `dims`, or the view's last ones when
// empty (a tile of higher rank is the verifier's to report).
std::vector<int> tile_dimensions(std::vector<int> dims, int tile_rank, int view_rank) {
  if (!dims.empty()) return dims;
  for (int d = std::max(0, view_rank - tile_rank); d < view_rank; ++d) dims.push_back(d);
  return dims;
}

// A bulk copy names its run by an offset per dimension of the view.
void check_bulk_offsets(size_t n, int rank, std::string_view what, const SourceLoc& loc) {
  if (int(n) != rank)
    throw Error(loc, fmt::format("{}: {} offsets given for a view of rank {}; a bulk copy starts at one element of the "
                                 "view",
                                 what, n, rank));
}

std::vector<ir::Expr> offset_exprs(const std::vector<Dim>& offsets) {
  std::vector<ir::Expr> offs;
  for (const Dim& d : offsets) offs.push_back(d.ir());
  return offs;
}

}  // namespace

void TmaInstructions::shared_to_global(const SharedTensor& src, const GlobalTensor& dst, std::vector<Dim> offsets,
                                       std::vector<int> dims, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);  // issued by a thread group's first thread: attrs.warps must be set
  b.emit(ir::make<ir::TmaStoreNode>(loc, src.ir(), dst.ir(), offset_exprs(offsets),
                                    tile_dimensions(std::move(dims), src.ir()->rank(), dst.ir()->rank())));
}

void TmaInstructions::global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                                       const Mbarrier& barrier, std::vector<int> dims, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);
  b.emit(ir::make<ir::TmaLoadNode>(loc, src.ir(), dst.ir(), offset_exprs(offsets),
                                   tile_dimensions(std::move(dims), dst.ir()->rank(), src.ir()->rank()), barrier.ir()));
}

void TmaInstructions::global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                                       const Mbarrier& barrier, const Multicast& multicast, std::vector<int> dims,
                                       loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);
  b.emit(ir::make<ir::TmaLoadNode>(loc, src.ir(), dst.ir(), offset_exprs(offsets),
                                   tile_dimensions(std::move(dims), dst.ir()->rank(), src.ir()->rank()), barrier.ir(),
                                   -1, multicast.cta_mask.ir()));
}

void TmaInstructions::global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                                       const RemoteMbarrier& barrier, std::vector<int> dims, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);
  b.emit(ir::make<ir::TmaLoadNode>(loc, src.ir(), dst.ir(), offset_exprs(offsets),
                                   tile_dimensions(std::move(dims), dst.ir()->rank(), src.ir()->rank()), barrier.ir(),
                                   -1, nullptr, barrier.rank()));
}

void TmaInstructions::shared_to_cluster(const SharedTensor& src, const RemoteSharedTensor& dst, const Mbarrier& barrier,
                                        loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);
  b.emit(ir::make<ir::TmaSharedToClusterNode>(loc, src.ir(), dst.tile().ir(), dst.rank(), barrier.ir()));
}

void TmaInstructions::bulk_global_to_shared(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                                            const Mbarrier& barrier, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);
  check_bulk_offsets(offsets.size(), src.ir()->rank(), "tma.bulk_global_to_shared", loc);
  b.emit(ir::make<ir::TmaBulkLoadNode>(loc, src.ir(), dst.ir(), offset_exprs(offsets), barrier.ir()));
}

void TmaInstructions::bulk_shared_to_global(const SharedTensor& src, const GlobalTensor& dst, std::vector<Dim> offsets,
                                            loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);
  check_bulk_offsets(offsets.size(), dst.ir()->rank(), "tma.bulk_shared_to_global", loc);
  b.emit(ir::make<ir::TmaBulkStoreNode>(loc, src.ir(), dst.ir(), offset_exprs(offsets)));
}

void TmaInstructions::commit_group(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::TmaCommitNode>(loc));
}

void TmaInstructions::wait_group(int n, bool read, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  if (n < 0 || n > 7)
    throw Error(loc, fmt::format("tma.wait_group({}): the number of bulk groups left in flight must be in 0..7", n));
  b.emit(ir::make<ir::TmaWaitNode>(loc, n, read));
}

}  // namespace tessel
