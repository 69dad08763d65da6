// The IR nodes of the clc instruction family (nodes.def): cluster launch control (PTX ISA 9.7.13.17-18, sm_100a).
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// The bytes of a try_cancel response in shared memory (16, naturally aligned).
inline constexpr int kClcResponseBytes = 16;

// clusterlaunchcontrol.try_cancel, issued by the first thread of the group that runs it: asks to
// cancel the launch of one cluster of the grid that has not started. The answer lands in
// `response` (a 16-byte shared tile) at a time of the hardware's choosing and completes its 16
// bytes on `barrier` (complete-tx).
struct ClcTryCancelNode : StmtNode {
  ClcTryCancelNode(SourceLoc l, SharedTensor response, MbarrierRef barrier, bool multicast = false)
      : StmtNode(NodeKind::ClcTryCancel, std::move(l)),
        response(std::move(response)),
        barrier(std::move(barrier)),
        multicast(multicast) {}
  SharedTensor response;
  MbarrierRef barrier;
  // The response lands at the same offset in every block of the cluster, each completing the bytes
  // on its barrier at `barrier`'s offset.
  bool multicast;
  static constexpr auto operands() { return std::tuple{&ClcTryCancelNode::response, &ClcTryCancelNode::barrier}; }
};
// Reads the response in `response`: whether a cluster was cancelled, and the index of its first
// block (undefined when none was), into the declared variables (bool, then i32 x, y, z).
struct ClcQueryNode : StmtNode {
  ClcQueryNode(SourceLoc l, Var canceled, Var x, Var y, Var z, SharedTensor response)
      : StmtNode(NodeKind::ClcQuery, std::move(l)),
        canceled(std::move(canceled)),
        x(std::move(x)),
        y(std::move(y)),
        z(std::move(z)),
        response(std::move(response)) {}
  Var canceled, x, y, z;
  SharedTensor response;
  static constexpr auto operands() { return std::tuple{&ClcQueryNode::response}; }
  static constexpr auto results() {
    return std::tuple{&ClcQueryNode::canceled, &ClcQueryNode::x, &ClcQueryNode::y, &ClcQueryNode::z};
  }
};

}  // namespace tessel::ir
