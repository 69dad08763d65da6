#include "matmul_simt.hpp"

#include "matmul_example.hpp"

namespace tessel::examples {

KernelEntry matmul_simt_example() {
  return matmul_example<MatmulSimt>("matmul_simt",
                                    "C = A * B^T (f16 in, f32 accumulate, f16 out) with shared-memory tiling");
}

}  // namespace tessel::examples
