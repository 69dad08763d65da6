// The IR nodes of the fence instruction family (nodes.def): proxy fences and memory fences.
#pragma once

#include "tessel/ir/core.hpp"
#include "tessel/ir/instructions/atomic.hpp"

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

// fence.acq_rel / fence.sc at `scope` (PTX ISA, membar/fence; the memory consistency model's
// release and acquire patterns): a fence followed by a strong write releases what the thread did
// before the fence to whoever acquires that write; a strong read followed by a fence acquires what
// the read saw released. fence.sc fences are also totally ordered among themselves, each
// synchronizing with the ones before it.
enum class FenceSemantics : uint8_t { AcqRel, Sc };
std::string_view fence_semantics_name(FenceSemantics s);  // "acq_rel", "sc"
struct MemoryFenceNode : StmtNode {
  MemoryFenceNode(SourceLoc l, FenceSemantics sem, MemoryScope scope)
      : StmtNode(NodeKind::MemoryFence, std::move(l)), sem(sem), scope(scope) {}
  FenceSemantics sem;
  MemoryScope scope;
  static constexpr auto operands() { return std::tuple<>{}; }
};

}  // namespace tessel::ir
