// What the per-instruction verifier rules (instructions/<family>.cpp) see of the verification in
// progress: the kernel, the target, the thread group the instruction runs in, and the scopes of
// the variables and tensors defined so far. Each rule is declared from nodes.def, so an
// instruction without one fails to link; so is each instruction's effects_of (effects.hpp).
#pragma once

#include <map>

#include "tessel/ir/effects.hpp"
#include "tessel/ir/ir.hpp"
#include "tessel/ir/visitor.hpp"

namespace tessel::ir {

class Verification {
 public:
  Verification(const KernelNode& k, Arch arch, Position& position) : kernel(k), arch(arch), position_(position) {}

  const KernelNode& kernel;
  const Arch arch;

  // The thread group the current statement runs in (the whole block at the top level).
  ThreadRange group() const { return position_.group(); }

  // A register tile the statement reads: defined in an enclosing scope, in this thread group.
  void use(const RegisterTensor& t, const StmtNode& s);
  void use(const Operand& o, const StmtNode& s);
  // A register tile the statement creates.
  void define(const RegisterTensor& t, const StmtNode& s);
  // A shared allocation the statement creates.
  void define(const SharedTensor& t);
  // A shared allocation the statement ends (free_shared): no later statement may name it.
  void free(const SharedTensor& t, const StmtNode& s);
  // Checks that the expressions of every tensor and operand of `s` are in scope.
  void check_operands(const StmtNode& s);

 private:
  void check_expr(const Expr& e, const StmtNode& s);
  void check_shared(const SharedTensor& t, const StmtNode& s);

  Position& position_;
  std::map<const SharedTensorNode*, const SourceLoc*> freed_;  // each freed allocation, and where
};

// Checks the barrier at which `n`, an exchange across the warps of its thread group through a
// scratch (a reduction, scan, print or layout conversion), meets: the block's for the whole block,
// a named one otherwise, or not allocated yet (instructions/reduce.cpp).
void check_group_barrier(const Verification& v, int barrier, const StmtNode& n);

// Checks that `b`, used by `s`, names a barrier of a barrier array, in range when its index is
// a trace-time constant (instructions/mbarrier.cpp).
void check_barrier(const MbarrierRef& b, const StmtNode& s);

// A K-major shared operand of a tensor-core instruction `n` (wgmma.mma, tcgen05.mma, tcgen05.copy)
// with rows of `row_bytes`: its swizzle, once chosen, is the one the instruction reads such rows
// with (instructions/wgmma.cpp).
void check_operand_swizzle(const SharedTensorNode& t, int row_bytes, const StmtNode& n);

// Clusters exist from sm_90a: a kernel with attrs.cluster for an older target is a user error
// (instructions/cluster.cpp).
void check_cluster_target(const KernelNode& k, Arch arch);
// Checks a block rank of the cluster that `s` names, when it is a trace-time constant.
void check_cluster_rank(const KernelNode& k, const Expr& rank, std::string_view what, const StmtNode& s);
// Checks a load or store of another block's shared tile (tile.remote(rank)): the kernel has
// clusters, the rank names one of its blocks, and the elements are not packed.
void check_remote_shared(const KernelNode& k, const Expr& rank, DType t, std::string_view what, const StmtNode& s);
// Checks a multicast mask of blocks of the cluster that `s` names, when it is a trace-time constant.
void check_cluster_mask(const KernelNode& k, const Expr& mask, std::string_view what, std::string_view receives,
                        const StmtNode& s);

// Checks that `n`, named `what` in messages, may write the global view `g`: not a read-only one,
// whose loads read through the non-coherent cache (instructions/memory.cpp).
void check_writable(const GlobalTensor& g, std::string_view what, const StmtNode& n);
// Checks that `g`, accessed by `n` through no path that L1 hints reach (`why` says which), has no
// L1 hint, which would be dropped without a word (instructions/memory.cpp).
void check_no_l1_hint(const GlobalTensor& g, std::string_view why, const StmtNode& n);

// clang-format off
#define TESSEL_INSTR(Name, family, min_target, executor, call) void verify_##Name(Verification& v, const Name##Node& n);
#include "tessel/ir/nodes.def"
// clang-format on

}  // namespace tessel::ir
