// The IR nodes of the mbarrier instruction family (nodes.def): mbarriers (PTX ISA 9.7.13.15).
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// An array of mbarriers is a shared allocation of u64 words, one per barrier. Every executing
// thread performs its own operation: 32 lanes arriving are 32 arrivals.

// Barrier i of `array` expects counts[i] arrivals per phase. On sm_90+ the inits are then made
// visible to the async proxy and the cluster (fence.mbarrier_init); a sync() must follow.
struct MbarrierInitNode : StmtNode {
  MbarrierInitNode(SourceLoc l, SharedTensor array, std::vector<int> counts)
      : StmtNode(NodeKind::MbarrierInit, std::move(l)), array(std::move(array)), counts(std::move(counts)) {}
  SharedTensor array;
  std::vector<int> counts;
  static constexpr auto operands() { return std::tuple{&MbarrierInitNode::array}; }
};
// `count` arrivals on the barrier's current phase (counts other than 1 need sm_90).
struct MbarrierArriveNode : StmtNode {
  MbarrierArriveNode(SourceLoc l, MbarrierRef b, Expr count)
      : StmtNode(NodeKind::MbarrierArrive, std::move(l)), barrier(std::move(b)), count(std::move(count)) {}
  MbarrierRef barrier;
  Expr count;
  static constexpr auto operands() { return std::tuple{&MbarrierArriveNode::barrier, &MbarrierArriveNode::count}; }
};
// Raises the phase's expected transaction bytes by `bytes`, then arrives once.
struct MbarrierArriveExpectTxNode : StmtNode {
  MbarrierArriveExpectTxNode(SourceLoc l, MbarrierRef b, Expr bytes)
      : StmtNode(NodeKind::MbarrierArriveExpectTx, std::move(l)), barrier(std::move(b)), bytes(std::move(bytes)) {}
  MbarrierRef barrier;
  Expr bytes;
  static constexpr auto operands() {
    return std::tuple{&MbarrierArriveExpectTxNode::barrier, &MbarrierArriveExpectTxNode::bytes};
  }
};
// Raises the phase's expected transaction bytes by `bytes`, without arriving.
struct MbarrierExpectTxNode : StmtNode {
  MbarrierExpectTxNode(SourceLoc l, MbarrierRef b, Expr bytes)
      : StmtNode(NodeKind::MbarrierExpectTx, std::move(l)), barrier(std::move(b)), bytes(std::move(bytes)) {}
  MbarrierRef barrier;
  Expr bytes;
  static constexpr auto operands() { return std::tuple{&MbarrierExpectTxNode::barrier, &MbarrierExpectTxNode::bytes}; }
};
// What a successful wait orders (acquire: the accesses that preceded the phase's arrivals and
// transactions are visible after it; relaxed: nothing), and among which threads (the block's or
// the cluster's). Anything but acquire at CTA scope needs sm_90.
enum class WaitSemantics : uint8_t { Acquire, Relaxed };
enum class WaitScope : uint8_t { Cta, Cluster };
std::string_view wait_semantics_name(WaitSemantics s);  // "acquire", "relaxed"
std::string_view wait_scope_name(WaitScope s);          // "cta", "cluster"
// Blocks until the phase of parity `parity` completed: (completed phases & 1) != parity.
struct MbarrierWaitNode : StmtNode {
  MbarrierWaitNode(SourceLoc l, MbarrierRef b, Expr parity, WaitSemantics sem = WaitSemantics::Acquire,
                   WaitScope scope = WaitScope::Cta)
      : StmtNode(NodeKind::MbarrierWait, std::move(l)),
        barrier(std::move(b)),
        parity(std::move(parity)),
        sem(sem),
        scope(scope) {}
  MbarrierRef barrier;
  Expr parity;
  WaitSemantics sem;
  WaitScope scope;
  static constexpr auto operands() { return std::tuple{&MbarrierWaitNode::barrier, &MbarrierWaitNode::parity}; }
};
// ready = whether the phase of parity `parity` completed, after waiting a bounded time at most
// (it may read false before the phase completes, so callers loop).
struct MbarrierTryWaitNode : StmtNode {
  MbarrierTryWaitNode(SourceLoc l, Var ready, MbarrierRef b, Expr parity, WaitSemantics sem = WaitSemantics::Acquire,
                      WaitScope scope = WaitScope::Cta)
      : StmtNode(NodeKind::MbarrierTryWait, std::move(l)),
        ready(std::move(ready)),
        barrier(std::move(b)),
        parity(std::move(parity)),
        sem(sem),
        scope(scope) {}
  Var ready;  // a declared bool variable
  MbarrierRef barrier;
  Expr parity;
  WaitSemantics sem;
  WaitScope scope;
  static constexpr auto operands() { return std::tuple{&MbarrierTryWaitNode::barrier, &MbarrierTryWaitNode::parity}; }
  static constexpr auto results() { return std::tuple{&MbarrierTryWaitNode::ready}; }
};

// An arrival on the barrier at the same shared offset as `barrier` in the block of rank `rank` of
// the cluster (mapa, then mbarrier.arrive.release.cluster.shared::cluster): `count` arrivals, or,
// with `bytes`, a raise of the phase's expected transaction bytes then one arrival.
struct MbarrierRemoteArriveNode : StmtNode {
  MbarrierRemoteArriveNode(SourceLoc l, MbarrierRef b, Expr rank, Expr count, Expr bytes)
      : StmtNode(NodeKind::MbarrierRemoteArrive, std::move(l)),
        barrier(std::move(b)),
        rank(std::move(rank)),
        count(std::move(count)),
        bytes(std::move(bytes)) {}
  MbarrierRef barrier;
  Expr rank;
  Expr count;  // null with bytes
  Expr bytes;  // null for plain arrivals
  static constexpr auto operands() {
    return std::tuple{&MbarrierRemoteArriveNode::barrier, &MbarrierRemoteArriveNode::rank,
                      optional(&MbarrierRemoteArriveNode::count), optional(&MbarrierRemoteArriveNode::bytes)};
  }
};

}  // namespace tessel::ir
