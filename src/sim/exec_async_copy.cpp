// Simulator semantics of cp.async: the instructions hand their copies to the block's cp.async unit
// (async_copy_unit.cpp). A copy reads global memory when issued and writes shared memory when it
// completes; until then its bytes are in flight, and any other access to them is reported.
#include <cstring>
#include <limits>

#include "machine.hpp"
#include "tessel/layout/shared_swizzle.hpp"

namespace tessel::sim {

namespace {

// Calls copy(c) with the coordinates c in the tile of each element that thread `t` of a group of
// `threads` copies: by the copy's layout, or run by run in turn (ir::CopyAsyncNode::in_turn).
template <class Copy> void for_each_element_of_thread(const ir::CopyAsyncNode& n, int t, int threads, Copy copy) {
  if (!n.in_turn) {
    if (t < n.layout.num_threads())
      for (int l = 0; l < n.layout.local_size(); ++l) copy(n.layout.coords(t, l));
    return;
  }
  const int rank = n.dst->rank(), row_runs = n.dst->shape.back() / n.vector;
  int64_t runs = row_runs;
  for (int d = 0; d + 1 < rank; ++d) runs *= n.dst->shape[d];
  std::vector<int> c(static_cast<size_t>(rank));
  for (int64_t r = t; r < runs; r += threads) {
    int64_t rest = r / row_runs;
    for (int d = rank - 2; d >= 0; --d) c[d] = int(rest % n.dst->shape[d]), rest /= n.dst->shape[d];
    for (int j = 0; j < n.vector; ++j) {
      c[rank - 1] = int(r % row_runs) * n.vector + j;
      copy(c);
    }
  }
}

}  // namespace

void exec_CopyAsync(Warp& w, const ir::CopyAsyncNode& n, Mask mask) {
  const int rank = n.dst->rank();
  const int bytes = dtype_bytes(n.dst->dtype);
  std::vector<Lanes> offsets, shape, strides;
  for (const ir::Expr& e : n.offsets) offsets.push_back(w.eval(e, mask));
  for (const ir::Expr& e : n.src->shape) shape.push_back(w.eval(e, mask));
  for (const ir::Expr& e : n.src->strides) strides.push_back(w.eval(e, mask));
  const Lanes ptr = w.eval(n.src->ptr, mask);
  const Lanes view = n.dst->offset ? w.eval(n.dst->offset, mask) : Lanes{};
  const int64_t base = w.cta.shared_offsets.at(n.dst->allocation());
  const int threads = w.group().count;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    for_each_element_of_thread(n, w.thread_in_group(lane), threads, [&](const std::vector<int>& c) {
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
      std::array<uint8_t, 8> data{};  // zero fill outside the global view
      if (inside) {
        check_promised_alignment(w, *n.src, uint64_t(ptr[lane].i), lane);
        const uint64_t addr = uint64_t(ptr[lane].i) + uint64_t(index * bytes);
        check_global_access(addr, size_t(bytes), false, n.loc, parameter_of(w, *n.src));
        access_global(w, addr, size_t(bytes), false, n.loc, "copy_async");
        std::memcpy(data.data(), reinterpret_cast<const void*>(addr), size_t(bytes));
      }
      w.cta.async_copies.issue(w.thread(lane), base + swizzle_byte(sindex * bytes, n.dst->swizzle_bits), data.data(),
                               bytes, w.clock, n.loc);
    });
  }
  w.tick();
  w.cta.scheduler.issued(w.cta.async_copies);
}

void exec_CopyAsyncCommit(Warp& w, const ir::CopyAsyncCommitNode&, Mask mask) {
  for (int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1) w.cta.async_copies.commit(w.thread(lane));
  w.cta.scheduler.issued(w.cta.async_copies);
}

void exec_CopyAsyncWait(Warp& w, const ir::CopyAsyncWaitNode& n, Mask mask) {
  if (n.all)
    for (int lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1) w.cta.async_copies.commit(w.thread(lane));
  w.wait(n.loc, CopyGroupWait{mask, n.all ? 0 : n.pending});
  // The groups retired: all but the `pending` newest of each lane's.
  int retired = std::numeric_limits<int>::max();
  for (int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1)
      retired = std::min(retired, w.cta.async_copies.committed(w.thread(lane)) - (n.all ? 0 : n.pending));
  if (retired > 0 && retired != std::numeric_limits<int>::max()) w.clock.raise(w.copy_actor, Clock(retired));
}

}  // namespace tessel::sim
