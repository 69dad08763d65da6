// Simulator semantics of fences. The simulator applies every generic-proxy write to shared memory
// at once and every asynchronous write when its agent completes it, so a proxy fence changes no
// state here; proxy-crossing checks, once they exist, will read it.
#include "machine.hpp"

namespace tessel::sim {

void exec_FenceProxyAsync(Warp&, const ir::FenceProxyAsyncNode&, Mask) {}

}  // namespace tessel::sim
