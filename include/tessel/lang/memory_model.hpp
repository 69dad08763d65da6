// The orders and scopes of the PTX memory consistency model, which atomics and memory fences take.
#pragma once

namespace tessel {

// What an atomic orders: relaxed orders nothing; a release makes the thread's earlier accesses
// visible to whoever acquires what it wrote; acq_rel does both.
enum class MemoryOrder { relaxed, acquire, release, acq_rel };
// Among which threads an atomic is atomic and orders, or a fence orders: the block's, the
// cluster's, the GPU's (every block of the grid) or the system's. An atomic's default is gpu for
// global memory and cta for shared memory; a fence's is gpu.
enum class MemoryScope { cta, cluster, gpu, sys };

}  // namespace tessel
