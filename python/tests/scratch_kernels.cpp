// A kernel with global scratch buffers (tests/last_block_column_sums.hpp) for the Python tests of
// launches on several streams and in CUDA graphs: `tessel.load(...).column_sums(rows, x, sums)`.
#include "../../tests/last_block_column_sums.hpp"
#include "tessel/cli/main.hpp"

TESSEL_KERNELS(kernels) {
  kernels.add<tessel::testing::LastBlockColumnSums<>>(
      {"column_sums", "the column sums of [rows, 64] floats in one launch", {"rows"}, {4096}},
      [](const tessel::cli::Sizes& s) {
        float* p = nullptr;
        return std::make_tuple(int(s[0]), p, p);
      });
}
