// What a kernel author writes against: `Script` (a kernel: hyperparameter members and an
// operator() body), `Class` (a helper object whose members are kernel variables, such as a
// Pipeline), and the instruction set both share.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "tessel/lang/atomic.hpp"
#include "tessel/lang/clc.hpp"
#include "tessel/lang/cluster.hpp"
#include "tessel/lang/fence.hpp"
#include "tessel/lang/grid_dependency.hpp"
#include "tessel/lang/mbarrier.hpp"
#include "tessel/lang/tcgen05.hpp"
#include "tessel/lang/tensors.hpp"
#include "tessel/lang/tma.hpp"
#include "tessel/lang/warp.hpp"
#include "tessel/lang/warp_roles.hpp"
#include "tessel/lang/wgmma.hpp"

namespace tessel {

// Launch attributes set by the body: the grid (1 to 3 extents over the run-time parameters)
// and the number of warps per block.
struct Attrs {
  // The grid: `attrs.blocks = cdiv(n, 256)` or `attrs.blocks = {cdiv(m, 128), cdiv(n, 128)}`.
  // Errors about it name the line that set it.
  class Blocks {
   public:
    // What an assignment gives, with where it was written.
    struct Extents {
      template <class D>
      requires std::is_constructible_v<Dim, const D&> Extents(const D& d,
                                                              std::source_location l = std::source_location::current())
          : dims{Dim(d)}, loc(l) {}
      Extents(std::initializer_list<Dim> ds, std::source_location l = std::source_location::current())
          : dims(ds), loc(l) {}
      std::vector<Dim> dims;
      std::source_location loc;
    };
    Blocks& operator=(const Extents& e);
    const std::vector<ir::Expr>& dims() const { return dims_; }
    const SourceLoc& loc() const { return loc_; }

   private:
    std::vector<ir::Expr> dims_;
    SourceLoc loc_;
  };
  // Blocks per cluster, a trace-time shape (sm_90a+): `attrs.cluster = {2, 1, 1}`; extents left out
  // are 1. The grid must be a whole number of clusters.
  class Cluster {
   public:
    Cluster& operator=(std::initializer_list<int> extents) {
      extents_ = extents;
      return *this;
    }
    // The extents as written; the trace checks them when it ends.
    const std::vector<int>& extents() const { return extents_; }
    bool clustered() const;

   private:
    std::vector<int> extents_;
  };
  // A count set in the kernel body, such as `attrs.warps = 4`. Errors about it name the line
  // that set it.
  class Count {
   public:
    // What an assignment gives, with where it was written.
    struct Value {
      Value(int n, std::source_location l = std::source_location::current()) : n(n), loc(l) {}
      int n;
      std::source_location loc;
    };
    Count& operator=(const Value& v) {
      n_ = v.n;
      loc_ = SourceLoc::from(v.loc);
      return *this;
    }
    operator int() const { return n_; }
    // Where it was set; unknown until then.
    const SourceLoc& loc() const { return loc_; }

   private:
    int n_ = 0;
    SourceLoc loc_;
  };
  Blocks blocks;
  Cluster cluster;
  // Warps per block, 1 to 32.
  Count warps;
  // Blocks that must fit on a multiprocessor at once by their registers: the compiler limits each
  // thread's registers to a share of that many blocks' (__launch_bounds__'s minimum blocks), which
  // a kernel with many loads in flight and few threads may need to keep them in flight. Unset (0):
  // the compiler chooses.
  Count resident_blocks;
};

// The traced `for` loop: `for (Int32 k : range(0, n, step))`. The body is traced once.
// A C++ `break` inside it is detected and reported; `continue` cannot be detected, so do not
// use it in a traced loop: break_() and continue_() leave the kernel's loop and end its pass.
class Range {
 public:
  Range(Dim start, Dim stop, Dim step, int unroll, SourceLoc loc);
  Range(Range&&) = delete;
  ~Range();

  class Iterator {
   public:
    Var<int32_t> operator*() const;
    Iterator& operator++();
    bool operator!=(const Iterator& end) const;

   private:
    friend class Range;
    explicit Iterator(Range* r) : r_(r) {}
    Range* r_;
  };
  Iterator begin();
  Iterator end() { return Iterator(nullptr); }

 private:
  void finish();
  Dim start_, stop_, step_;
  int unroll_;
  SourceLoc loc_;
  ir::Var var_;
  int uncaught_ = 0;
  enum class State { Fresh, InBody, BodyDone, Closed } state_ = State::Fresh;
  size_t depth_ = 0;
};

// if_(cond, [&] { ... }).else_([&] { ... }); the statement is emitted at the end of the
// full expression.
class IfBuilder {
 public:
  IfBuilder(ir::Expr cond, ir::Stmt then_case, SourceLoc loc)
      : cond_(std::move(cond)), then_(std::move(then_case)), loc_(std::move(loc)) {}
  IfBuilder(const IfBuilder&) = delete;
  ~IfBuilder();
  IfBuilder& else_(const std::function<void()>& body);

 private:
  ir::Expr cond_;
  ir::Stmt then_, else_case_;
  SourceLoc loc_;
  int uncaught_ = std::uncaught_exceptions();
};

enum class Swizzle { none, automatic, b32, b64, b128 };

// How a shared tile of packed elements lays out its rows: as one bit stream, or 16 elements to each
// 16-byte chunk followed by padding (fp4: 8 bytes and 8 of padding, fp6: 12 and 4), the layout in
// which tcgen05.mma kind::f8f6f4 and mxf8f6f4 read e2m3, e3m2 and e2m1 operands.
enum class Packing { dense, chunks16 };

// What a global_scratch holds when a launch starts: anything (the simulator fills it with NaN bytes),
// or zeros, which the launch must leave behind for the next one (the simulator checks).
enum class ScratchContents { undefined, zeroed };

// Which form of a math function runs on the GPU: the exact one (CUDA's libdevice, within a few
// ulp) or the fast hardware approximation (ex2.approx, tanh.approx, ...). docs/language.md, "Math
// functions", gives each one's measured error.
enum class Precision { exact, fast };

// The format of a print of kernel values, with the line it is written at.
struct PrintFormat {
  PrintFormat(const char* text, std::source_location l = std::source_location::current())
      : text(text), loc(SourceLoc::from(l)) {}
  std::string text;
  SourceLoc loc;
};

// Whether a scan's element k includes element k itself.
enum class ScanKind { inclusive, exclusive };

// What max_and_argmax and min_and_argmin give: each line's extreme and its first position (i32),
// both with extent 1 along the reduced dimension. `auto [best, token] = max_and_argmax(logits, 1);`
struct Extreme {
  RegisterTensor value;
  RegisterTensor position;
};

class Instructions {
 public:
  using loc_t = std::source_location;

  // ---- instruction groups ----
  AtomicInstructions atomic;
  WarpInstructions warp;
  WgmmaInstructions wgmma;
  Tcgen05Instructions tcgen05;
  MbarrierInstructions mbarrier;
  FenceInstructions fence;
  TmaInstructions tma;
  SetmaxnregInstructions setmaxnreg;
  ClusterInstructions cluster;
  ClcInstructions clc;
  GridDependencyInstructions grid_dependency;

  // ---- tensors ----
  template <class T> GlobalTensor global_view(const Ptr<T>& ptr, std::vector<Dim> shape, std::vector<Dim> strides = {},
                                              loc_t loc = loc_t::current()) {
    return make_global_view(dtype_v<T>, ptr.ir(), shape, strides, SourceLoc::from(loc));
  }
  // A global view of `shape` over a buffer the runtime allocates for this kernel and keeps across its
  // launches (a split-K reduction's partial tiles, tickets between blocks). The extents are computed
  // on the host, from the parameters and `multiprocessors`, as attrs.blocks is. Launches of one Kernel
  // object share it, so launches on different streams must not overlap.
  template <class T> GlobalTensor global_scratch(std::vector<Dim> shape,
                                                 ScratchContents contents = ScratchContents::undefined,
                                                 loc_t loc = loc_t::current()) {
    return make_global_scratch(dtype_v<T>, shape, contents, SourceLoc::from(loc));
  }
  // A shared tile; the choose_swizzles pass swizzles it when ldmatrix reads it and 8-row reads
  // would conflict.
  template <class T> SharedTensor shared_tensor(std::vector<Dim> shape, loc_t loc = loc_t::current()) {
    return make_shared_tensor(dtype_v<T>, shape, std::nullopt, SourceLoc::from(loc));
  }
  // A shared tile with the swizzle asked for: `none` opts out, `automatic` picks the smallest
  // pattern that makes 8-row (ldmatrix) accesses conflict-free for the tile's row size, the
  // others fix the pattern.
  template <class T> SharedTensor shared_tensor(std::vector<Dim> shape, Swizzle swizzle, loc_t loc = loc_t::current()) {
    return make_shared_tensor(dtype_v<T>, shape, swizzle, SourceLoc::from(loc));
  }
  // A shared tile of packed elements (f6e2m3, f6e3m2, f4e2m1) with the given Packing; rows of a
  // multiple of 16 elements.
  template <class T> SharedTensor shared_tensor(std::vector<Dim> shape, Packing packing, loc_t loc = loc_t::current()) {
    return make_shared_tensor(dtype_v<T>, shape, std::nullopt, SourceLoc::from(loc), packing);
  }
  // Ends the life of a shared tile, in the body that allocated it: shared tiles allocated after
  // this line may take its bytes. Every access of it must be ordered before their accesses.
  void free_shared(const SharedTensor& tile, loc_t loc = loc_t::current());
  // A register tile filled with `init` over the current thread group, distributed by `layout`
  // when given; otherwise infer_layouts chooses the layout from how the tile is used.
  template <class T> RegisterTensor register_tensor(std::vector<Dim> shape, const TileOperand& init,
                                                    const Layout& layout = {}, loc_t loc = loc_t::current()) {
    return make_register_tensor(dtype_v<T>, shape, init, layout, SourceLoc::from(loc));
  }

  // ---- data movement ----
  // The tile of `shape` at `offsets` of `src`; elements outside the view read as `fill`.
  RegisterTensor load_global(const GlobalTensor& src, std::vector<Dim> offsets, std::vector<Dim> shape,
                             const Layout& layout = {}, double fill = 0, loc_t loc = loc_t::current());
  // Writes `src` at `offsets`; elements outside the view are skipped.
  void store_global(const GlobalTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets,
                    loc_t loc = loc_t::current());
  // Gathers the tile of `shape` from `src`: the element at coordinates c reads offsets + c, but along
  // `dim` offsets[dim] + indices[c] (an integer tile of `shape`, or of extent 1 where it is the same
  // for every element of a dimension: [m, 1] indices gather m rows). Elements outside the view read
  // as `fill`, so an index of -1 leaves one out.
  RegisterTensor load_global_gather(const GlobalTensor& src, int dim, const RegisterTensor& indices,
                                    std::vector<Dim> offsets, std::vector<Dim> shape, const Layout& layout = {},
                                    double fill = 0, loc_t loc = loc_t::current());
  // Scatters `src` into `dst`, with coordinates as load_global_gather's; elements outside the view are
  // skipped. Elements sent to one place must hold the same value (which one lands is undefined).
  void store_global_scatter(const GlobalTensor& dst, int dim, const RegisterTensor& indices, const RegisterTensor& src,
                            std::vector<Dim> offsets, loc_t loc = loc_t::current());
  // The tile of `shape` at `offsets` of `src` (the whole tensor by default).
  RegisterTensor load_shared(const SharedTensor& src, std::vector<Dim> offsets = {}, std::vector<Dim> shape = {},
                             const Layout& layout = {}, loc_t loc = loc_t::current());
  void store_shared(const SharedTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets = {},
                    loc_t loc = loc_t::current());
  // load_global_gather and store_global_scatter of a shared tile: elements whose coordinate along
  // `dim` falls outside the tile read as `fill`, or are not written.
  RegisterTensor load_shared_gather(const SharedTensor& src, int dim, const RegisterTensor& indices,
                                    std::vector<Dim> offsets, std::vector<Dim> shape, const Layout& layout = {},
                                    double fill = 0, loc_t loc = loc_t::current());
  void store_shared_scatter(const SharedTensor& dst, int dim, const RegisterTensor& indices, const RegisterTensor& src,
                            std::vector<Dim> offsets, loc_t loc = loc_t::current());
  // The same with another block's tile (tile.remote(rank)): ld/st.shared::cluster, ordered with the
  // other block's accesses by cluster.sync() or by mbarriers waited on at cluster scope.
  RegisterTensor load_shared(const RemoteSharedTensor& src, std::vector<Dim> offsets = {}, std::vector<Dim> shape = {},
                             const Layout& layout = {}, loc_t loc = loc_t::current());
  void store_shared(const RemoteSharedTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets = {},
                    loc_t loc = loc_t::current());
  // st.async (sm_90a, clusters): starts writing `src` at `offsets` of `dst` (`tile.remote(rank)`,
  // another block's tile, or this block's by its own rank), completing the bytes on that block's
  // barrier at `barrier`'s offset. The receiver announces them (mbarrier.arrive_and_expect_tx or
  // expect_tx, the tile's bytes however many threads hold each element) and reads the tile after
  // waiting on that phase; until then the writes may land at any time.
  void store_shared_async(const RemoteSharedTensor& dst, const RegisterTensor& src, const Mbarrier& barrier,
                          std::vector<Dim> offsets = {}, loc_t loc = loc_t::current());

  // ---- asynchronous copies (cp.async, sm_80+) ----
  // Starts copying the tile of dst's shape at `offsets` of `src` into `dst`; elements outside the
  // view are zero-filled. The data may land at any time until a wait covers it.
  void copy_async(const GlobalTensor& src, const SharedTensor& dst, std::vector<Dim> offsets,
                  loc_t loc = loc_t::current());
  // Closes this thread's group of copies issued since the last commit.
  void copy_async_commit_group(loc_t loc = loc_t::current());
  // Waits until at most `pending` of this thread's committed groups are still in flight.
  void copy_async_wait_group(int pending, loc_t loc = loc_t::current());
  // Commits and waits for all of this thread's copies.
  void copy_async_wait_all(loc_t loc = loc_t::current());

  // ---- elementwise math ----
  RegisterTensor where(const TileOperand& cond, const TileOperand& a, const TileOperand& b);
  RegisterTensor exp(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  RegisterTensor exp2(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  RegisterTensor log(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  RegisterTensor log2(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  RegisterTensor sqrt(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  RegisterTensor tanh(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  // Of an angle in radians.
  RegisterTensor sin(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  RegisterTensor cos(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  // 1 / (1 + exp(-x)).
  RegisterTensor sigmoid(const RegisterTensor& x, Precision p = Precision::exact, loc_t loc = loc_t::current());
  RegisterTensor rsqrt(const RegisterTensor& x, loc_t loc = loc_t::current());
  RegisterTensor erf(const RegisterTensor& x, loc_t loc = loc_t::current());
  RegisterTensor abs(const RegisterTensor& x, loc_t loc = loc_t::current());
  // rsqrt, erf and abs have one form each: a Precision given to them is refused with a message.
  template <std::same_as<Precision> P> RegisterTensor rsqrt(const RegisterTensor& x, P, loc_t loc = loc_t::current()) {
    static_assert(detail::never<P>, TESSEL_ONE_FORM);
    return rsqrt(x, loc);
  }
  template <std::same_as<Precision> P> RegisterTensor erf(const RegisterTensor& x, P, loc_t loc = loc_t::current()) {
    static_assert(detail::never<P>, TESSEL_ONE_FORM);
    return erf(x, loc);
  }
  template <std::same_as<Precision> P> RegisterTensor abs(const RegisterTensor& x, P, loc_t loc = loc_t::current()) {
    static_assert(detail::never<P>, TESSEL_ONE_FORM);
    return abs(x, loc);
  }
  RegisterTensor maximum(const TileOperand& a, const TileOperand& b);
  // a * b + c, with a and b broadcast to the shape (and layout) of c.
  RegisterTensor fma(const TileOperand& a, const TileOperand& b, const RegisterTensor& c);
  RegisterTensor minimum(const TileOperand& a, const TileOperand& b);

  // ---- regroupings: no data moves, each thread keeps its registers (docs/language.md, "Reshapes") ----
  // The elements of `x` in row-major order, with `shape`.
  RegisterTensor reshape(const RegisterTensor& x, std::vector<int> shape, loc_t loc = loc_t::current());
  // Dimension i of the result is dimension perm[i] of `x`.
  RegisterTensor permute(const RegisterTensor& x, std::vector<int> perm, loc_t loc = loc_t::current());
  // `a` followed by `b` along `dim`; and `a` and `b` alternating along `dim` (a0, b0, a1, b1, ...).
  RegisterTensor concat(const RegisterTensor& a, const RegisterTensor& b, int dim, loc_t loc = loc_t::current());
  RegisterTensor interleave(const RegisterTensor& a, const RegisterTensor& b, int dim, loc_t loc = loc_t::current());

  // ---- tensor cores ----
  // a @ b + c with mma.sync: a [m, k], b [k, n] in f16/bf16, or fp8 (e4m3 or e5m2 each, sm_90a and
  // newer), with c [m, n] in f32; or in i8 or u8 with c in i32 (exact integer products and sums).
  // The operands take the layouts of
  // mma_layouts(m, n, k, warps_m, warps_n, a's type); infer_layouts chooses the warp split.
  RegisterTensor dot(const RegisterTensor& a, const RegisterTensor& b, const RegisterTensor& c,
                     loc_t loc = loc_t::current());
  // The same for 8-bit integer operands with the i32 sums clamped to the i32 range after each k32
  // step (mma.sync .satfinite), where the plain dot wraps.
  RegisterTensor dot(const RegisterTensor& a, const RegisterTensor& b, const RegisterTensor& c, Saturate,
                     loc_t loc = loc_t::current());

  // ---- reductions over one dimension (the result keeps it with extent 1) ----
  // sum of a bool, i8 or i16 tile gives an i32 tile, of a u8 or u16 tile a u32 tile; the others keep
  // the operand's type. max and min over a dimension of extent 1 are refused: max(t, 0) meant as the
  // elementwise maximum is maximum(t, 0.0f).
  RegisterTensor sum(const RegisterTensor& x, int dim, loc_t loc = loc_t::current());
  RegisterTensor max(const RegisterTensor& x, int dim, loc_t loc = loc_t::current());
  RegisterTensor min(const RegisterTensor& x, int dim, loc_t loc = loc_t::current());

  // The position along `dim` of the largest (argmax) or smallest (argmin) element, as an i32 tile
  // with extent 1 along `dim`; ties go to the first position, NaNs lose to every number (as max and
  // min take them), and a line of NaNs alone gives the extent. One reduction of (value, position)
  // pairs (docs/language.md, "Reductions"); max_and_argmax and min_and_argmin give the value too.
  RegisterTensor argmax(const RegisterTensor& x, int dim, loc_t loc = loc_t::current());
  RegisterTensor argmin(const RegisterTensor& x, int dim, loc_t loc = loc_t::current());
  Extreme max_and_argmax(const RegisterTensor& x, int dim, loc_t loc = loc_t::current());
  Extreme min_and_argmin(const RegisterTensor& x, int dim, loc_t loc = loc_t::current());

  // ---- scans along one dimension (the result has the operand's shape and layout, and cumsum the
  // type sum gives) ----
  // Inclusive: element k combines elements 0..k. Exclusive: elements 0..k-1, and the first is the
  // identity (0 for cumsum, the lowest value for cummax, the highest for cummin). The operand's
  // layout must give each thread a run of consecutive positions along `dim`, the runs following
  // the lanes and then the warps in order (docs/language.md, "Scans").
  RegisterTensor cumsum(const RegisterTensor& x, int dim, ScanKind kind = ScanKind::inclusive,
                        loc_t loc = loc_t::current());
  RegisterTensor cummax(const RegisterTensor& x, int dim, ScanKind kind = ScanKind::inclusive,
                        loc_t loc = loc_t::current());
  RegisterTensor cummin(const RegisterTensor& x, int dim, ScanKind kind = ScanKind::inclusive,
                        loc_t loc = loc_t::current());
  // A value where the reductions and scans take their dimension: C++ would convert a float to the
  // int, so that max(tile, 1e-12f) reduced along dimension 0 and clamped nothing.
  template <detail::NotADimension V> RegisterTensor sum(const RegisterTensor& x, const V&, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }
  template <detail::NotADimension V> RegisterTensor max(const RegisterTensor& x, const V&, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }
  template <detail::NotADimension V> RegisterTensor min(const RegisterTensor& x, const V&, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }
  template <detail::NotADimension V>
  RegisterTensor argmax(const RegisterTensor& x, const V&, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }
  template <detail::NotADimension V>
  RegisterTensor argmin(const RegisterTensor& x, const V&, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }
  template <detail::NotADimension V>
  Extreme max_and_argmax(const RegisterTensor& x, const V&, loc_t = loc_t::current()) {
    return {value_for_a_dimension<V>(x), {}};
  }
  template <detail::NotADimension V>
  Extreme min_and_argmin(const RegisterTensor& x, const V&, loc_t = loc_t::current()) {
    return {value_for_a_dimension<V>(x), {}};
  }
  template <detail::NotADimension V>
  RegisterTensor cumsum(const RegisterTensor& x, const V&, ScanKind = ScanKind::inclusive, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }
  template <detail::NotADimension V>
  RegisterTensor cummax(const RegisterTensor& x, const V&, ScanKind = ScanKind::inclusive, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }
  template <detail::NotADimension V>
  RegisterTensor cummin(const RegisterTensor& x, const V&, ScanKind = ScanKind::inclusive, loc_t = loc_t::current()) {
    return value_for_a_dimension<V>(x);
  }

  // ---- scalars ----
  // The smaller and the larger of two kernel values (tessel::min and tessel::max, which the
  // reductions above would otherwise hide inside a kernel body).
  template <class A, class B>
  requires KernelOperands<A, B> Expr<typename detail::result_elem<A, B>::type> min(const A& a, const B& b)
  const { return tessel::min(a, b); }
  template <class A, class B>
  requires KernelOperands<A, B> Expr<typename detail::result_elem<A, B>::type> max(const A& a, const B& b)
  const { return tessel::max(a, b); }

  // An i32 tile of `shape` whose every element is its own coordinate along `dim`: with a row offset,
  // `arange({64, 64}, 0) + row0` holds each element's row, from which masks are written as tile
  // expressions (docs/language.md, "Index tiles").
  RegisterTensor arange(std::vector<int> shape, int dim, const Layout& layout = {}, loc_t loc = loc_t::current());

  // Pins the layout of `x` (and of every tile that must share it) for layout inference.
  void annotate_layout(const RegisterTensor& x, const Layout& layout, loc_t loc = loc_t::current());
  // `x` in `layout` (docs/language.md, "Reshapes"): each element moves by warp shuffles from a
  // thread of the warp that holds it to the threads that hold it in `layout`. The group must be
  // whole warps, and the element must stay within its warp.
  RegisterTensor convert_layout(const RegisterTensor& x, const Layout& layout, loc_t loc = loc_t::current());
  // `x` in the layout its uses need, inferred as any tile's is (an elementwise partner's, say): for
  // combining tiles that hold the same elements in other registers or threads. The same moves.
  RegisterTensor convert_layout(const RegisterTensor& x, loc_t loc = loc_t::current());

  // Prints the tile with its type and layout, a row per line, from the first thread of the group
  // in block `block` (docs/language.md, "Printing"): the same text on the GPU and the simulator.
  // Every thread of the group takes part (the tile is gathered through shared memory).
  void print(const std::string& label, const RegisterTensor& x, std::array<int, 3> block = {0, 0, 0},
             loc_t loc = loc_t::current());
  // A shared tile with its strides and swizzle, read by the group's first thread straight from
  // shared memory: the writes must be visible to it (a sync() or an mbarrier wait after them).
  void print(const std::string& label, const SharedTensor& x, std::array<int, 3> block = {0, 0, 0},
             loc_t loc = loc_t::current());
  // A tensor-memory tile, loaded by the group (a warpgroup: each warp its 32 lanes, as
  // tcgen05.load) and printed as a register tile is.
  void print(const std::string& label, const TMemoryTensor& x, std::array<int, 3> block = {0, 0, 0},
             loc_t loc = loc_t::current());
  // Prints `format` with each {} replaced by the next of `values` (kernel values, or C++ literals
  // as their types: 4 an i32, 0.5 an f32), from the first thread of the group in block (0, 0, 0),
  // or in `block`.
  template <class... V>
  requires((detail::is_kernel_scalar<V> || detail::is_literal<V>)&&...) void print(const PrintFormat& format,
                                                                                   const V&... values) {
    print_values({0, 0, 0}, format, {printed(values)...});
  }
  template <class... V>
  requires((detail::is_kernel_scalar<V> || detail::is_literal<V>)&&...) void print(std::array<int, 3> block,
                                                                                   const PrintFormat& format,
                                                                                   const V&... values) {
    print_values(block, format, {printed(values)...});
  }
  template <class V> static ir::Expr printed(const V& value) {
    if constexpr (detail::is_kernel_scalar<V>)
      return detail::to_ir<detail::kernel_elem_t<V>>(value);
    else
      return detail::to_ir<std::conditional_t<std::is_floating_point_v<V>, float, V>>(value);
  }
  void print_values(std::array<int, 3> block, const PrintFormat& format, std::vector<ir::Expr> values);

  // ---- synchronization and control ----
  // Barrier over the threads of the current group: the block's (__syncthreads) at the top level,
  // and inside a thread group of whole warps a named barrier of that group's warps (bar.sync), so
  // a role synchronizes its own warps while the other roles run on. Every warp of the group must
  // reach it; a group that splits a warp cannot have one.
  void sync(loc_t loc = loc_t::current());
  // Threads [begin, begin + count) of the current group run `body`.
  void thread_group(int begin, int count, const std::function<void()>& body, loc_t loc = loc_t::current());
  void single_warp(const std::function<void()>& body, loc_t loc = loc_t::current());
  // Marks `body` as region `name` of the kernel's timeline (docs/debugging.md, "A timeline"): each
  // warp that runs it records when it starts and ends it, on the GPU (global timer) when the launch
  // records a timeline (TESSEL_TRACE), and on the simulator's timeline. Whole warps run it.
  void trace_region(const std::string& name, const std::function<void()>& body, loc_t loc = loc_t::current());
  void single_thread(const std::function<void()>& body, loc_t loc = loc_t::current());
  void warp_group(int index, const std::function<void()>& body, loc_t loc = loc_t::current());
  // The calling thread's index in the innermost thread group around the call (in the block at the
  // top level), and its lane in its warp: kernel values that differ between threads.
  Expr<int32_t> thread_index(loc_t loc = loc_t::current());
  Expr<int32_t> lane_index(loc_t loc = loc_t::current());
  Range range(Dim start, Dim stop, Dim step = 1, int unroll = 0, loc_t loc = loc_t::current()) {
    return Range(start, stop, step, unroll, SourceLoc::from(loc));
  }
  // Python's one-argument form: `range(n)` counts from 0 to n - 1.
  Range range(Dim stop, loc_t loc = loc_t::current()) { return Range(0, stop, 1, 0, SourceLoc::from(loc)); }
  // A condition on the parameters that every launch checks on the host before the kernel runs
  // (the simulator's and the GPU's, and the AOT launchers'): a launch where it is false throws an
  // Error naming this line, `message` and the parameters' values. For sizes a kernel assumes, such
  // as `require(k % 128 == 0, "k must be a multiple of 128")`.
  template <class C>
  requires(detail::is_kernel_scalar<C>) void require(const C& cond, std::string message, loc_t loc = loc_t::current()) {
    make_requirement(detail::to_ir<bool>(cond), std::move(message), SourceLoc::from(loc));
  }
  template <class C>
  requires(std::is_same_v<C, bool>) void require(const C&, std::string, loc_t = loc_t::current()) {
    static_assert(!std::is_same_v<C, bool>,
                  "require() checks a condition on the kernel's parameters at each launch; a condition on C++ "
                  "values (hyperparameters, int members) is known while tracing: check it in C++, as "
                  "if (!(cond)) throw tessel::Error(\"...\"), or with static_assert");
  }
  template <class C>
  requires(detail::is_kernel_scalar<C>) IfBuilder
      if_(const C& cond, const std::function<void()>& then_body, loc_t loc = loc_t::current()) {
    return make_if(detail::to_ir<bool>(cond), then_body, SourceLoc::from(loc));
  }
  // while_([&] { return x != 1; }, [&] { ... }): the condition is computed afresh before each pass
  // (a condition that emits statements opens each pass, and a failed test leaves the loop).
  template <class F>
  requires(detail::is_kernel_scalar<std::invoke_result_t<F&>>) void while_(F&& cond, const std::function<void()>& body,
                                                                           loc_t loc = loc_t::current()) {
    make_while([&] { return detail::to_ir<bool>(cond()); }, body, SourceLoc::from(loc));
  }
  // Leaves the innermost traced loop (range or while_) for the threads that run it; inside if_,
  // only for those that take the branch. A C++ `break` would leave the trace's loop instead.
  void break_(loc_t loc = loc_t::current()) { make_loop_exit(false, SourceLoc::from(loc)); }
  // Ends the current pass of the innermost traced loop for the threads that run it: they go on with
  // the next pass (its test, and a range's next index). A C++ `continue` would end the trace's pass.
  void continue_(loc_t loc = loc_t::current()) { make_loop_exit(true, SourceLoc::from(loc)); }
  // Ends the kernel for the threads that run it, as `return` in a CUDA kernel; inside if_, only for
  // those that take the branch. A C++ `return` would end the trace's function instead.
  void return_(loc_t loc = loc_t::current()) { make_return(SourceLoc::from(loc)); }

 private:
  GlobalTensor make_global_view(DType t, ir::Expr ptr, const std::vector<Dim>& shape, const std::vector<Dim>& strides,
                                SourceLoc loc);
  GlobalTensor make_global_scratch(DType t, const std::vector<Dim>& shape, ScratchContents contents, SourceLoc loc);
  // load_global and store_global, gathering or scattering along `dim` where `indices` is given.
  RegisterTensor load_global_of(const GlobalTensor& src, std::vector<Dim> offsets, std::vector<Dim> shape,
                                const Layout& layout, double fill, const ir::RegisterTensor& indices, int dim,
                                std::string_view what, SourceLoc loc);
  void store_global_of(const GlobalTensor& dst, const RegisterTensor& src, std::vector<Dim> offsets,
                       const ir::RegisterTensor& indices, int dim, std::string_view what, SourceLoc loc);
  // load_shared and store_shared of the block's own tile (`block_rank` null) or of another block's.
  // With `indices`, a gather or scatter along `dim`.
  RegisterTensor load_shared_of(const SharedTensor& src, const ir::Expr& block_rank, std::vector<Dim> offsets,
                                std::vector<Dim> shape, const Layout& layout, SourceLoc loc,
                                const ir::RegisterTensor& indices = nullptr, int dim = -1, double fill = 0);
  void store_shared_of(const SharedTensor& dst, const ir::Expr& block_rank, const RegisterTensor& src,
                       std::vector<Dim> offsets, SourceLoc loc, const ir::RegisterTensor& indices = nullptr,
                       int dim = -1);
  SharedTensor make_shared_tensor(DType t, const std::vector<Dim>& shape, std::optional<Swizzle> swizzle, SourceLoc loc,
                                  Packing packing = Packing::dense);
  RegisterTensor make_register_tensor(DType t, const std::vector<Dim>& shape, const TileOperand& init,
                                      const Layout& layout, SourceLoc loc);
  RegisterTensor unary_op(ir::UnaryOp op, const RegisterTensor& x, Precision p, SourceLoc loc);
  RegisterTensor reduce(ir::ReduceOp op, const RegisterTensor& x, int dim, SourceLoc loc);
  RegisterTensor scan(ir::ReduceOp op, const RegisterTensor& x, int dim, ScanKind kind, SourceLoc loc);
  Extreme extreme_with_position(ir::ReduceOp op, const RegisterTensor& x, int dim, SourceLoc loc);
  IfBuilder make_if(ir::Expr cond, const std::function<void()>& then_body, SourceLoc loc);
  void make_requirement(ir::Expr cond, std::string message, SourceLoc loc);
  void make_while(const std::function<ir::Expr()>& cond, const std::function<void()>& body, SourceLoc loc);
  void make_loop_exit(bool next_pass, SourceLoc loc);
  void make_return(SourceLoc loc);
  // What the reductions and scans given a value for their dimension compile to: an error.
  template <class V> static RegisterTensor value_for_a_dimension(const RegisterTensor& x) {
    static_assert(detail::never<V>, TESSEL_VALUE_FOR_A_DIMENSION);
    return x;
  }
};

// Base of every kernel. Data members are hyperparameters; operator() is the body.
struct Script : Instructions {
  Attrs attrs;
  Index3 blockIdx;
  Index3 gridDim;
  // The number of multiprocessors (SMs) of the device the kernel is launched on; on the simulator
  // sim::Options::multiprocessors. Sizes a persistent grid: attrs.blocks = min(tiles, multiprocessors).
  Expr<int32_t> multiprocessors;
  Script();
};

// Base of helper objects used inside kernel bodies (their members are kernel variables). A class
// that allocates barriers names itself and the user's line that constructed it, and passes
// member("...") to mbarrier.alloc: the simulator's reports then say which instance a barrier
// belongs to, when several instances share the class's lines.
struct Class : Instructions {
  Class() = default;
  // `type` names the class; `constructed_at` is the user's line, taken as a default argument of
  // the derived class's constructor: `Pipeline(int stages, loc_t at = loc_t::current())`.
  Class(std::string_view type, loc_t constructed_at);
  // The owner of one member's allocation: "empty_barriers of the Pipeline constructed at k.cpp:56".
  MemberOf member(std::string_view name) const;

 private:
  std::string type_;
  SourceLoc constructed_at_;
};

}  // namespace tessel
