// How the user writes each instruction, for messages in the user's terms. A new instruction is a
// compile error here (-Werror=switch) until it has its spelling.
#include "tessel/ir/ir.hpp"

namespace tessel::ir {

std::string_view call_name(NodeKind k) {
  switch (k) {
#define TESSEL_EXPR(Name) case NodeKind::Name:
#define TESSEL_TENSOR(Name) case NodeKind::Name:
#define TESSEL_STMT(Name) case NodeKind::Name:
#include "tessel/ir/nodes.def"
      return kind_name(k);
    case NodeKind::Sync: return "sync()";
    case NodeKind::AllocShared: return "shared_tensor";
    case NodeKind::AllocRegister: return "register_tensor";
    case NodeKind::LoadGlobal: return "load_global";
    case NodeKind::StoreGlobal: return "store_global";
    case NodeKind::LoadShared: return "load_shared";
    case NodeKind::StoreShared: return "store_shared";
    case NodeKind::ElementwiseBinary: return "an elementwise operation";
    case NodeKind::ElementwiseUnary: return "an elementwise function";
    case NodeKind::Where: return "where";
    case NodeKind::Fma: return "fma";
    case NodeKind::Dot: return "dot";
    case NodeKind::CastTensor: return "to<T>()";
    case NodeKind::Reduce: return "a reduction";
    case NodeKind::CopyRegister: return "a register tile assignment";
    case NodeKind::SliceRegister: return "slice";
    case NodeKind::AnnotateLayout: return "annotate_layout";
    case NodeKind::PrintTensor: return "print";
    case NodeKind::CopyAsync: return "copy_async";
    case NodeKind::CopyAsyncCommit: return "copy_async_commit_group";
    case NodeKind::CopyAsyncWait: return "copy_async_wait_group";
    case NodeKind::WgmmaFence: return "wgmma.fence";
    case NodeKind::WgmmaMma: return "wgmma.mma";
    case NodeKind::WgmmaCommitGroup: return "wgmma.commit_group";
    case NodeKind::WgmmaWaitGroup: return "wgmma.wait_group";
    case NodeKind::MbarrierInit: return "mbarrier.alloc";
    case NodeKind::MbarrierArrive: return "mbarrier.arrive";
    case NodeKind::MbarrierArriveExpectTx: return "mbarrier.arrive_and_expect_tx";
    case NodeKind::MbarrierExpectTx: return "mbarrier.expect_tx";
    case NodeKind::MbarrierWait: return "mbarrier.wait";
    case NodeKind::MbarrierTryWait: return "mbarrier.try_wait";
    case NodeKind::FenceProxyAsync: return "fence.proxy_async";
    case NodeKind::TmaStore: return "tma.shared_to_global";
    case NodeKind::TmaLoad: return "tma.global_to_shared";
    case NodeKind::TmaCommit: return "tma.commit_group";
    case NodeKind::TmaWait: return "tma.wait_group";
    case NodeKind::SetMaxNReg: return "setmaxnreg";
    case NodeKind::FastDivmod: return "fast_divmod";
    case NodeKind::ClusterSync: return "cluster.sync()";
    case NodeKind::MbarrierRemoteArrive: return "an arrive on another block's barrier (remote)";
    case NodeKind::ClcTryCancel: return "clc.try_cancel";
    case NodeKind::ClcQuery: return "clc.query_response";
    case NodeKind::Tcgen05Alloc: return "tcgen05.alloc";
    case NodeKind::Tcgen05Dealloc: return "tcgen05.dealloc";
    case NodeKind::Tcgen05Mma: return "tcgen05.mma";
    case NodeKind::Tcgen05Commit: return "tcgen05.commit";
    case NodeKind::Tcgen05Copy: return "tcgen05.copy";
    case NodeKind::Tcgen05Load: return "tcgen05.load";
    case NodeKind::Tcgen05Store: return "tcgen05.store";
    case NodeKind::Tcgen05Wait: return "tcgen05.wait_load / wait_store";
  }
  return "?";
}

}  // namespace tessel::ir
