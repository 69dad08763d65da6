// Simulator semantics of cp.async. A copy reads global memory when issued and writes shared
// memory when it completes: at the wait that covers its group, or, under a seeded interleaving,
// possibly earlier. Until then its bytes are marked, so any read or write of them is reported.
#include <cstring>

#include "machine.hpp"
#include "tessel/layout/shared_swizzle.hpp"

namespace tessel::sim {

void Warp::complete_copies(size_t groups_left) {
  while (committed_copies.size() > groups_left) {
    for (const AsyncCopy& c : committed_copies.front()) {
      std::memcpy(&cta.smem[size_t(c.byte)], c.data.data(), c.data.size());
      std::memset(&cta.written[size_t(c.byte)], 1, c.data.size());
      std::fill_n(cta.pending_copy.begin() + c.byte, c.data.size(), nullptr);
    }
    committed_copies.erase(committed_copies.begin());
  }
}

void exec_CopyAsync(Warp& w, const ir::CopyAsyncNode& n, Mask mask) {
  const int rank = n.dst->rank(), local = n.layout.local_size();
  const int bytes = dtype_bytes(n.dst->dtype);
  std::vector<Lanes> offsets, shape, strides;
  for (const ir::Expr& e : n.offsets) offsets.push_back(w.eval(e, mask));
  for (const ir::Expr& e : n.src->shape) shape.push_back(w.eval(e, mask));
  for (const ir::Expr& e : n.src->strides) strides.push_back(w.eval(e, mask));
  const Lanes ptr = w.eval(n.src->ptr, mask);
  const Lanes view = n.dst->offset ? w.eval(n.dst->offset, mask) : Lanes{};
  const int64_t base = w.cta.shared_offsets.at(n.dst->allocation());
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    const int t = w.thread_in_group(lane);
    if (t >= n.layout.num_threads()) continue;  // no share of this copy
    for (int l = 0; l < local; ++l) {
      const std::vector<int> c = n.layout.coords(t, l);
      int64_t index = 0, sindex = n.dst->offset ? view[lane].i : 0;
      bool inside = true;
      for (int d = 0; d < rank; ++d) {
        const int64_t g = c[d] + offsets[d][lane].i;
        inside &= g >= 0 && g < shape[d][lane].i;
        index += g * strides[d][lane].i;
        sindex += int64_t(c[d]) * n.dst->strides[d];
      }
      const int64_t elements = n.dst->allocation()->nbytes() / bytes;
      if (sindex < 0 || sindex >= elements)
        throw Error(n.loc, fmt::format("copy_async: the shared view reaches element {} of its {}-element allocation "
                                       "(thread {} of block {})",
                                       sindex, elements, w.thread(lane), w.cta.block_name()));
      Warp::AsyncCopy copy{base + swizzle_byte(sindex * bytes, n.dst->swizzle_bits), std::vector<uint8_t>(size_t(bytes), 0)};
      if (inside) {
        const uint64_t addr = uint64_t(ptr[lane].i) + uint64_t(index * bytes);
        check_global_access(addr, size_t(bytes), false, n.loc);
        std::memcpy(copy.data.data(), reinterpret_cast<const void*>(addr), size_t(bytes));
      }
      w.cta.check_no_pending_copy(copy.byte, bytes, true, n.loc, w.thread(lane));
      std::fill_n(w.cta.pending_copy.begin() + copy.byte, bytes, &n);
      w.open_copies.push_back(std::move(copy));
    }
  }
}

void exec_CopyAsyncCommit(Warp& w, const ir::CopyAsyncCommitNode&, Mask) {
  w.committed_copies.push_back(std::move(w.open_copies));
  w.open_copies.clear();
  if (w.cta.complete_early()) w.complete_copies(w.committed_copies.size() - 1);
}

void exec_CopyAsyncWait(Warp& w, const ir::CopyAsyncWaitNode& n, Mask) {
  if (n.all) {
    w.committed_copies.push_back(std::move(w.open_copies));
    w.open_copies.clear();
  }
  w.complete_copies(size_t(n.pending));
}

}  // namespace tessel::sim
