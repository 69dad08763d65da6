// cp.async: copy_async and its group commit/wait instructions.
#include "tessel/lang/script.hpp"

namespace tessel {

void Instructions::copy_async(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  b.group(loc);  // copies are made by a thread group: attrs.warps must be set
  if (src.dtype() != dst.dtype())
    throw Error(loc, fmt::format("copy_async: from a global view of {} to a shared tensor of {}",
                                 dtype_name(src.dtype()), dtype_name(dst.dtype())));
  if (is_packed(src.dtype()))
    throw Error(
        loc,
        fmt::format(
            "copy_async: cp.async does not move packed {} elements; copy their bytes as u32 words "
            "(as_pointer<uint32_t>(x.address(), 16) of the view's pointer x, a shared tile of u32) and read the tile's "
            "words with bitcast<{}>()",
            dtype_name(src.dtype()), dtype_name(src.dtype())));
  if (src.ir()->rank() != dst.ir()->rank())
    throw Error(loc, fmt::format("copy_async: from a tensor of rank {} to a shared tensor of rank {}", src.ir()->rank(),
                                 dst.ir()->rank()));
  if (int(offsets.size()) != src.ir()->rank())
    throw Error(loc,
                fmt::format("copy_async: {} offsets given for a tensor of rank {}", offsets.size(), src.ir()->rank()));
  std::vector<ir::Expr> offs;
  for (const Dim& d : offsets) offs.push_back(d.ir());
  b.emit(ir::make<ir::CopyAsyncNode>(loc, src.ir(), dst.ir(), std::move(offs), Layout()));
}

void Instructions::copy_async_commit_group(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::CopyAsyncCommitNode>(loc));
}

void Instructions::copy_async_wait_group(int pending, loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder& b = Builder::current(loc);
  if (pending < 0 || pending > 7)
    throw Error(loc,
                fmt::format("copy_async_wait_group({}): the number of groups left in flight must be in 0..7", pending));
  b.emit(ir::make<ir::CopyAsyncWaitNode>(loc, pending, false));
}

void Instructions::copy_async_wait_all(loc_t l) {
  const SourceLoc loc = SourceLoc::from(l);
  Builder::current(loc).emit(ir::make<ir::CopyAsyncWaitNode>(loc, 0, true));
}

}  // namespace tessel
