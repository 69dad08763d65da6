// The IR nodes of the fence instruction family (nodes.def): proxy fences.
#pragma once

#include "tessel/ir/core.hpp"

namespace tessel::ir {

// fence.proxy.async: orders this thread's generic-proxy accesses before its later async-proxy
// accesses (TMA, wgmma operands) of the state space, or of every space.
enum class ProxyFenceSpace : uint8_t { SharedCta, SharedCluster, Global, All };
std::string_view proxy_fence_space_name(ProxyFenceSpace s);  // "shared::cta", ...; "" for All
struct FenceProxyAsyncNode : StmtNode {
  FenceProxyAsyncNode(SourceLoc l, ProxyFenceSpace space)
      : StmtNode(NodeKind::FenceProxyAsync, std::move(l)), space(space) {}
  ProxyFenceSpace space;
  static constexpr auto operands() { return std::tuple<>{}; }
};

}  // namespace tessel::ir
