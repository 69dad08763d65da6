// The PTX table: every inline-assembly statement in generated code is rendered by `ptx_asm` from
// one row of this table (ptx.cpp), never written by hand.
//
// A row is keyed by `Ptx` and holds:
//  - its text, PTX with holes: `{name}` for an operand group, `{#name}` for the number of operands
//    in that group, and `{name}` for a modifier the emitter supplies (an mma shape, a type);
//    modifiers may also fill holes in constraints ("+{d_reg}");
//  - its operand groups, each a name, a constraint and a size, fixed or chosen per emission (a
//    wgmma accumulator is one group of up to 128 registers). A vector group renders as
//    `{%i, %i+1, ...}`, a scalar one as `%i`; outputs are numbered before inputs, as inline asm
//    requires, whatever their order in the text, and a group may appear more than once;
//  - the oldest target that has the instruction: rendering it for an older one is an internal
//    error, since the verifier rejects such kernels at the user's line;
//  - its effect on the compiler's freedom: pure (`asm`, may be merged or dropped), ordered
//    (`asm volatile`) or touching memory (`asm volatile` with a "memory" clobber);
//  - whether it is a wait loop: the instruction sets predicate `{ready}` and runs again until it
//    holds, inside a `{ .reg .pred ...; }` scope whose label `%=` makes unique per emission.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/dtype.hpp"
#include "tessel/ir/ir.hpp"
#include "tessel/layout/mma_atoms.hpp"

namespace tessel::codegen {

enum class Ptx : uint8_t {
  CvtRnF16F32,
  CvtF32F16,
  CvtRnaTf32F32,
  CvtRnBf16F32,
  CvtRnBf16x2F32,
  CvtRnSatfiniteF8x2F32,
  CvtRnF16x2F8x2,
  Ex2Approx,
  Lg2Approx,
  TanhApprox,
  SqrtApprox,
  SinApprox,
  CosApprox,
  FmaF16x2,
  Prmt,
  Lop3,
  FmaBf16x2,
  CpAsyncCg16,
  CpAsyncCa8,
  CpAsyncCa4,
  CpAsyncCg16Whole,
  CpAsyncCa8Whole,
  CpAsyncCa4Whole,
  CpAsyncCommitGroup,
  CpAsyncWaitGroup,
  CpAsyncWaitAll,
  Ldmatrix,
  Stmatrix,
  MmaSync,
  WgmmaFence,
  WgmmaMmaSS,
  WgmmaMmaSSOverwrite,
  WgmmaMmaSSKMajor,
  WgmmaMmaSSKMajorOverwrite,
  WgmmaMmaRS,
  WgmmaMmaRSOverwrite,
  WgmmaMmaRSKMajor,
  WgmmaMmaRSKMajorOverwrite,
  WgmmaCommitGroup,
  WgmmaWaitGroup,
  WgmmaFenceOperand,
  MbarrierInit,
  FenceMbarrierInit,
  MbarrierArrive,
  MbarrierArriveCount,
  MbarrierArriveExpectTx,
  MbarrierExpectTx,
  MbarrierTestWaitParityLoop,
  MbarrierTryWaitParityLoop,
  MbarrierTestWaitParity,
  MbarrierTryWaitParity,
  FenceProxyAsync,
  MemoryFence,
  GridDependencyWait,
  LaunchDependents,
  TmaStore,
  TmaLoad,
  TmaLoadPeerBarrier,
  BulkCopyGlobalToShared,
  BulkCopySharedToGlobal,
  BulkCopySharedToCluster,
  BulkCommitGroup,
  BulkWaitGroup,
  BulkWaitGroupRead,
  BarSync,
  AtomRmw,
  AtomCas,
  RedRmw,
  LdOrdered,
  StOrdered,
  SetmaxnregInc,
  SetmaxnregDec,
  Tcgen05Alloc,
  Tcgen05RelinquishAllocPermit,
  Tcgen05Dealloc,
  Tcgen05FenceBeforeThreadSync,
  Tcgen05FenceAfterThreadSync,
  Tcgen05Mma,
  Tcgen05MmaBlockScaled,
  Tcgen05Commit,
  Tcgen05CommitMulticast,
  Tcgen05Copy128x256b,
  Tcgen05Copy32x128bWarpx4,
  Tcgen05Load32x32b,
  Tcgen05Store32x32b,
  Tcgen05WaitLoad,
  Tcgen05WaitStore,
  // clusters
  ClusterArriveWait,
  ClusterArriveRelease,
  ClusterArriveRelaxed,
  ClusterWait,
  MapaGeneric,
  StAsync,
  StAsyncVector,
  MbarrierArriveRemote,
  MbarrierArriveExpectTxRemote,
  TmaLoadMulticast,
  // cluster launch control
  ClcTryCancel,
  ClcTryCancelMulticast,
  ClcQuery,
  // timelines
  GlobalTimer,
  // cache hints
  CreatePolicy,
  LdGlobalQualified,
  LdGlobalQualifiedVector,
  StGlobalQualified,
  StGlobalQualifiedVector,
};

// The compiler's freedom with a statement: Pure ones may be merged or dropped; Ordered ones stay,
// in order (`asm volatile`); Memory ones also keep memory accesses on their side ("memory").
enum class PtxEffect : uint8_t { Pure, Ordered, Memory };

struct PtxGroup {
  // The size of a group whose number of operands each emission chooses.
  static constexpr int kPerEmission = 0;

  std::string name;
  std::string constraint;  // "r", "=r", "+f", ...: "=" and "+" mark outputs
  int size = 1;
  bool vector = false;  // written in braces, `{%i, ...}`
  // An optional last argument of one operand: written `, %i` when an emission gives it, and not at
  // all when it gives none (a cache policy).
  bool optional = false;
};

struct PtxRow {
  std::string name;  // for internal errors: "cp.async.cg", "mma.sync", ...
  std::string text;
  ir::Arch min_target = ir::Arch::Sm80;
  std::vector<PtxGroup> groups;
  PtxEffect effect = PtxEffect::Memory;
  bool wait_loop = false;
};

// One emission's operands: for each group of the row, in order, its C++ expressions.
using PtxOperands = std::vector<std::vector<std::string>>;
// Values of a row's modifier holes, by name.
using PtxModifiers = std::map<std::string, std::string>;

// The row of `instruction`.
const PtxRow& ptx_row(Ptx instruction);
inline ir::Arch ptx_min_target(Ptx instruction) { return ptx_row(instruction).min_target; }

// The inline-asm statement running `instruction` on `target`.
std::string ptx_asm(Ptx instruction, ir::Arch target, const PtxOperands& operands, const PtxModifiers& modifiers = {});
// The same for any row: the one renderer, also used by tests with rows of their own.
std::string render_ptx(const PtxRow& row, ir::Arch target, const PtxOperands& operands, const PtxModifiers& modifiers);

// For the rows with an `{l2_hint}` hole and an optional `policy` argument (the TMA copies, and
// global loads and stores): the qualifier and the L2 cache policy of a view's cache hint, appended to `operands` and
// set in `modifiers`; neither for CacheHint::Normal.
void add_cache_hint(ir::CacheHint hint, PtxOperands& operands, PtxModifiers& modifiers);
// The device header's function that makes the L2 cache policy of `hint` (not Normal), and the
// expression of that policy in generated code (its call).
std::string cache_policy_function(ir::CacheHint hint);
std::string cache_policy(ir::CacheHint hint);

// The PTX spelling of an element type ("f16", "s8", ...).
std::string_view ptx_type(DType t);
// The modifiers of Ptx::MmaSync for `atom` with A of type `a` and B of type `b` accumulating in
// `accumulator`: the shape from the atom, the types from the operands, and .satfinite when
// `saturate` (s32 sums only).
PtxModifiers mma_sync_modifiers(const MmaAtom& atom, DType a, DType b, DType accumulator, bool saturate);
// The modifiers of Ptx::WgmmaMmaSS*/RS for m64`n` with A of type `a` and B of type `b`, saturating
// (s32 sums only) when `saturate`.
PtxModifiers wgmma_modifiers(int n, DType a, DType b, bool saturate);

}  // namespace tessel::codegen
