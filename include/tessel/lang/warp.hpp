// The warp instruction group: shuffles, which read a value of another lane of the warp, and votes
// (ballot, any, all), which combine a predicate of every lane (PTX shfl.sync and vote.sync;
// docs/language.md, "Warp shuffles and votes"). The whole warp executes each one together.
#pragma once

#include <source_location>

#include "tessel/lang/tensors.hpp"

namespace tessel {

class WarpInstructions {
 public:
  using loc_t = std::source_location;

  // A kernel value of lane `lane` (modulo 32); of the lane whose index is this lane's xor `mask`;
  // of the lane `delta` below or above this one. A lane whose source lies outside the warp keeps
  // its own value.
  template <class V>
  requires detail::is_kernel_scalar<V> Expr<detail::kernel_elem_t<V>> shuffle(const V& value, const Dim& lane,
                                                                              loc_t loc = loc_t::current()) {
    return scalar<V>(ir::ShuffleMode::Index, value, lane, loc);
  }
  template <class V>
  requires detail::is_kernel_scalar<V> Expr<detail::kernel_elem_t<V>> shuffle_xor(const V& value, const Dim& mask,
                                                                                  loc_t loc = loc_t::current()) {
    return scalar<V>(ir::ShuffleMode::Xor, value, mask, loc);
  }
  template <class V>
  requires detail::is_kernel_scalar<V> Expr<detail::kernel_elem_t<V>> shuffle_up(const V& value, const Dim& delta,
                                                                                 loc_t loc = loc_t::current()) {
    return scalar<V>(ir::ShuffleMode::Up, value, delta, loc);
  }
  template <class V>
  requires detail::is_kernel_scalar<V> Expr<detail::kernel_elem_t<V>> shuffle_down(const V& value, const Dim& delta,
                                                                                   loc_t loc = loc_t::current()) {
    return scalar<V>(ir::ShuffleMode::Down, value, delta, loc);
  }
  // The same for every register of a tile: each thread's register l receives register l of the
  // source lane's thread. The result has the tile's layout.
  RegisterTensor shuffle(const RegisterTensor& value, const Dim& lane, loc_t loc = loc_t::current());
  RegisterTensor shuffle_xor(const RegisterTensor& value, const Dim& mask, loc_t loc = loc_t::current());
  RegisterTensor shuffle_up(const RegisterTensor& value, const Dim& delta, loc_t loc = loc_t::current());
  RegisterTensor shuffle_down(const RegisterTensor& value, const Dim& delta, loc_t loc = loc_t::current());

  // The lanes whose predicate holds, as the bits of a u32 (bit i for lane i); whether any does;
  // whether all do. Every lane receives the same result.
  Expr<uint32_t> ballot(const Expr<bool>& predicate, loc_t loc = loc_t::current());
  Expr<bool> any(const Expr<bool>& predicate, loc_t loc = loc_t::current());
  Expr<bool> all(const Expr<bool>& predicate, loc_t loc = loc_t::current());

 private:
  template <class V>
  Expr<detail::kernel_elem_t<V>> scalar(ir::ShuffleMode mode, const V& value, const Dim& lane, loc_t loc) {
    using T = detail::kernel_elem_t<V>;
    return Expr<T>(scalar_shuffle(mode, detail::to_ir<T>(value), lane, SourceLoc::from(loc)));
  }
  ir::Expr scalar_shuffle(ir::ShuffleMode mode, ir::Expr value, const Dim& lane, const SourceLoc& loc);
  RegisterTensor tile_shuffle(ir::ShuffleMode mode, const RegisterTensor& value, const Dim& lane, const SourceLoc& loc);
  ir::Expr vote(ir::VoteMode mode, const Expr<bool>& predicate, const SourceLoc& loc);
};

}  // namespace tessel
