// The IR: the core (types, expressions, tensors, statements, kernels; tessel/ir/core.hpp) and the
// nodes of every instruction family (tessel/ir/instructions/<family>.hpp, as nodes.def lists
// them). Most code wants them all, through this header.
#pragma once

#include "tessel/ir/core.hpp"
#include "tessel/ir/instructions/async_copy.hpp"
#include "tessel/ir/instructions/atomic.hpp"
#include "tessel/ir/instructions/clc.hpp"
#include "tessel/ir/instructions/cluster.hpp"
#include "tessel/ir/instructions/fence.hpp"
#include "tessel/ir/instructions/grid_dependency.hpp"
#include "tessel/ir/instructions/mbarrier.hpp"
#include "tessel/ir/instructions/memory.hpp"
#include "tessel/ir/instructions/reduce.hpp"
#include "tessel/ir/instructions/tcgen05.hpp"
#include "tessel/ir/instructions/tensor_core.hpp"
#include "tessel/ir/instructions/tiles.hpp"
#include "tessel/ir/instructions/tma.hpp"
#include "tessel/ir/instructions/trace.hpp"
#include "tessel/ir/instructions/warp.hpp"
#include "tessel/ir/instructions/warp_roles.hpp"
#include "tessel/ir/instructions/wgmma.hpp"
