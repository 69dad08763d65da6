// TMA: the store of a shared tile to a global view and its bulk-group commit and wait.
#include "tessel/lang/tma.hpp"

#include "tessel/lang/builder.hpp"

namespace tessel {

void TmaInstructions::shared_to_global(const SharedTensor& src, const GlobalTensor& dst, std::vector<Dim> offsets,
                                       std::vector<int> dims, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);  // issued by a thread group's first thread: attrs.warps must be set
  std::vector<int> tile_dims = std::move(dims);
  if (tile_dims.empty()) {
    // The tile's dimensions are the view's last ones; a tile of higher rank is the verifier's to report.
    for (int d = std::max(0, dst.ir()->rank() - src.ir()->rank()); d < dst.ir()->rank(); ++d) tile_dims.push_back(d);
  }
  std::vector<ir::Expr> offs;
  for (const Dim& d : offsets) offs.push_back(d.ir());
  b.emit(std::make_shared<ir::TmaStoreNode>(loc, src.ir(), dst.ir(), std::move(offs), std::move(tile_dims)));
}

void TmaInstructions::commit_group(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(std::make_shared<ir::TmaCommitNode>(loc));
}

void TmaInstructions::wait_group(int n, bool read, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  if (n < 0 || n > 7)
    throw Error(loc, fmt::format("tma.wait_group({}): the number of bulk groups left in flight must be in 0..7", n));
  b.emit(std::make_shared<ir::TmaWaitNode>(loc, n, read));
}

}  // namespace tessel
