// tessel: a tile-level GPU kernel language embedded in C++. Include this header to write and run
// kernels; see docs/ for the language, the architecture and the simulator.
#pragma once

#include "tessel/dtype.hpp"
#include "tessel/error.hpp"
#include "tessel/jit/kernel.hpp"
#include "tessel/lang/script.hpp"
#include "tessel/lang/space.hpp"
#include "tessel/layout/layout.hpp"
#include "tessel/layout/mma_atoms.hpp"
#include "tessel/layout/tcgen05_atoms.hpp"
#include "tessel/layout/wgmma_atoms.hpp"
#include "tessel/runtime/device.hpp"
#include "tessel/runtime/tensor.hpp"
#include "tessel/sim/simulator.hpp"
