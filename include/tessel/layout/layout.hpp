// Register-tile layouts: how the elements of a tile are distributed over the threads of a thread
// group and over the registers ("local" slots) of each thread.
//
// The model. Each logical dimension d of a tile is split into *modes*, ordered outer to inner,
// whose sizes multiply to the dimension's extent. Every mode is either *spatial* (its index is a
// digit of the thread index) or *local* (a digit of the register index). A layout also has
// *replication* factors: spatial digits that select no element, so several threads hold the same
// element. The thread index is the row-major number formed by the spatial digits (and
// replications) in their listed order; the local index likewise from the local digits.
//
// Worked example: `local(2, 1) * spatial(8, 4) * local(1, 2)` over a 16x8 tile.
//   dim 0 (16) = modes 2 (local) x 8 (spatial);  dim 1 (8) = modes 4 (spatial) x 2 (local)
//   threads: 8 x 4 = 32 (row-major over [dim0 mode 8, dim1 mode 4]); 4 registers per thread.
//   thread 5, register 3: spatial digits (1, 1), local digits (1, 1)
//   -> row = 1*8 + 1 = 9, column = 1*2 + 1 = 3.
// Composition A * B places a copy of B in every cell of A (A is outer): extents multiply per
// dimension, A's modes become the outer modes of each dimension, A's thread/register digits the
// more significant ones. Canonical form drops size-1 modes and merges neighbouring modes of one
// dimension that are also neighbours, in the same order, in the thread or register digit list;
// two layouts describe the same mapping exactly when their canonical forms are equal.
#pragma once

#include <string>
#include <vector>

namespace tessel {

class Layout {
 public:
  Layout() = default;

  // Each thread holds the whole `shape` in its registers (one thread).
  static Layout local(std::vector<int> shape);
  // One element per thread, threads row-major over `shape`.
  static Layout spatial(std::vector<int> shape);
  // One element per thread, threads column-major over `shape` (the last dimension varies slowest).
  static Layout column_spatial(std::vector<int> shape);
  // `count` threads that all hold the same (single) element, over a tile of the given rank.
  static Layout replicated(int rank, int count);
  // A reasonable default for `shape` over `threads` threads: each thread owns a contiguous vector
  // of up to 16 bytes along the last dimension, neighbouring threads own neighbouring vectors.
  static Layout distributed(const std::vector<int>& shape, int threads, int elem_bytes);
  // The same with runs of at most `run` consecutive elements (a power of two) per thread, halved
  // until they divide the last extent.
  static Layout distributed_runs(const std::vector<int>& shape, int threads, int run);

  // Composition: `*this` outer, `inner` within each of its cells.
  Layout operator*(const Layout& inner) const;
  // Division, the inverse of composition: the X with X * inner == *this. Throws tessel::Error when
  // `inner` is not an inner factor (its modes are not the innermost of each dimension, or its
  // thread and register digits are not the least significant ones, in order).
  Layout divide(const Layout& inner) const;
  // Result dimension i is dimension perm[i] of this layout.
  Layout permute(const std::vector<int>& perm) const;
  // Removes dimension `dim`, which must have extent 1.
  Layout squeeze(int dim) const;
  // Inserts a dimension of extent 1 before dimension `dim`.
  Layout unsqueeze(int dim) const;
  // The same (thread, register) -> element assignment over `shape`, with elements matched by their
  // row-major index: splits and merges of dimensions. Throws tessel::Error when the element counts
  // differ or a mode would have to be cut where its size does not divide (e.g. spatial({3}) *
  // local({2}) cannot become [2, 3]: its threads step by 2 elements, across rows of 3).
  Layout reshape(const std::vector<int>& shape) const;
  // The layout of the sub-tile of `shape` at `offsets`: each thread keeps the registers that hold
  // the sub-tile. Throws tessel::Error unless, in every dimension, the slice holds the innermost
  // modes whole and a range of at most one more, and every mode it cuts or leaves out is a
  // register digit (a slice that cut across threads would leave some holding nothing).
  Layout slice(const std::vector<int>& offsets, const std::vector<int>& shape) const;
  // For each register of `part`, the slice of this layout at `offsets`, the register of this
  // layout that holds the same element (the same for every thread).
  std::vector<int> slice_registers(const std::vector<int>& offsets, const Layout& part) const;

  const std::vector<int>& shape() const { return shape_; }
  int rank() const { return int(shape_.size()); }
  int num_threads() const;
  int local_size() const;
  int num_elements() const;

  // Logical coordinates of (thread, local slot).
  std::vector<int> coords(int thread, int local) const;
  // The local slot of `coords` and whether `thread` holds it (false when another thread does).
  bool holds(int thread, const std::vector<int>& coords, int* local) const;

  // The layout of a reduction over `dim`: extent 1 along `dim`; the threads that spanned it now
  // hold replicas of the result; the registers that spanned it are gone.
  Layout reduced(int dim) const;

  // Thread-index strides of the spatial modes of `dim` (each with its size): the lanes a
  // reduction over `dim` must combine.
  struct ThreadSpan {
    int stride;
    int size;
  };
  std::vector<ThreadSpan> thread_spans(int dim) const;
  // thread_spans(dim) split at warp boundaries: the spans within a warp (lanes a shuffle reaches)
  // and those across warps (strides of 32 threads and more). A span that crosses the boundary is
  // split in two; false when it cannot be (32 is not a multiple of its stride, or its size not of
  // the lanes it has in a warp), or when a span within a warp's width does not divide it, so that
  // some of its blocks of threads straddle two warps.
  struct WarpSplit {
    std::vector<ThreadSpan> lanes, warps;
  };
  bool split_at_warps(int dim, WarpSplit* split) const;
  // How a scan along `dim` walks this layout: each thread holds a run of `run` consecutive
  // positions of each row, and the runs follow each other along `lanes` (one span of lanes, size 1
  // when none) and then along the warps of `warps` (least significant first). False when the
  // layout does not place the dimension so.
  struct ScanOrder {
    int run = 1;
    ThreadSpan lanes{1, 1};
    std::vector<ThreadSpan> warps;
  };
  bool scan_order(int dim, ScanOrder* order) const;
  // Thread-index strides of the replication digits: a thread holds the first replica of its
  // elements when each of these digits of its index is 0.
  std::vector<ThreadSpan> replica_spans() const;

  // How many consecutive registers of each thread hold consecutive elements of the last dimension
  // (the innermost register digit, when it is the innermost mode of the last dimension); 1 if none.
  int contiguous_run() const;

  // C expressions for the logical coordinates, given expressions for the thread and local index.
  std::vector<std::string> coord_exprs(const std::string& thread, const std::string& local) const;

  std::string str() const;
  bool operator==(const Layout& o) const { return str() == o.str(); }

 private:
  struct Digit {
    int mode;
    int size;
  };  // mode < 0: a replication digit of `size`
  void canonicalize();
  int mode_stride_in_dim(int mode) const;
  // Splits mode `m` into an outer mode of size/inner and an inner mode of `inner`; returns the
  // index of the inner one. Digits of `m` become two adjacent digits.
  int split_mode(int m, int inner);

  std::vector<int> shape_;
  std::vector<int> mode_size_;  // per mode
  std::vector<int> mode_dim_;   // the logical dimension of each mode; modes of a dim are outer->inner
  std::vector<Digit> spatial_;  // thread digits, most significant first
  std::vector<Digit> local_;    // register digits, most significant first
};

}  // namespace tessel
