// What a matmul block tile costs on a GPU: shared memory, registers, tensor memory, how many
// blocks fit on an SM and why no more, arithmetic intensity, and whether it fits at all. The
// formulas and the rules they follow are in docs/analysis.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/analysis/gpu_specs.hpp"

namespace tessel::analysis {

enum class Accumulator { Registers, TensorMemory };

// A block computes a block_m x block_n tile of C, stepping over K block_k at a time through a ring
// of `stages` shared-memory buffers, each holding a block_m x block_k tile of A and a
// block_k x block_n tile of B.
struct TileConfig {
  int block_m = 128, block_n = 128, block_k = 32;
  int stages = 2;
  int threads = 256;  // per block
  int in_bytes = 2;   // bytes of an A or B element
  int acc_bytes = 4;  // bytes of an accumulator element
  Accumulator accumulator = Accumulator::Registers;
  // Registers per thread besides the accumulator (addresses, indices, A and B fragments). A rough
  // constant: the tiling seed's calculator adds 32.
  int register_overhead = 32;
};

// How many blocks of the tile one resource of an SM admits.
struct BlockLimit {
  std::string resource;  // "shared memory", "registers", "warps", "block slots", "tensor memory"
  int blocks = 0;
};

struct TileAnalysis {
  TileConfig config;
  int64_t shared_per_stage = 0;      // (block_m * block_k + block_n * block_k) * in_bytes
  int64_t shared_bytes = 0;          // shared_per_stage * stages: what the block asks for
  int64_t shared_allocated = 0;      // what a resident block takes from the SM (reservation, granules)
  int64_t registers_per_thread = 0;  // estimate: the thread's share of the accumulator + overhead
  int64_t registers_per_block = 0;   // allocated per warp in units of 256
  int warps = 0;                     // per block
  int tmem_columns = 0;              // allocated per block; 0 with the accumulator in registers
  std::vector<BlockLimit> limits;
  int blocks_per_sm = 0;                // the least of the limits
  std::vector<std::string> limited_by;  // the resources that set it
  int active_warps = 0;                 // per SM
  double occupancy = 0;                 // active warps / the SM's maximum
  double intensity = 0;                 // FLOP per byte of A and B loaded, see tile_intensity
  // Why the tile cannot run as configured, each with by how much; empty when it can.
  std::vector<std::string> problems;

  bool feasible() const { return problems.empty(); }
  // The limit for `resource`; an internal error when there is none.
  int blocks_allowed_by(std::string_view resource) const;
};

// Throws tessel::Error for sizes that are not positive or absurdly large.
TileAnalysis analyze_tile(const TileConfig& config, const GpuSpec& gpu);

// How many blocks of `threads` threads, each thread using `registers` registers and the block
// `shared_bytes` of shared memory, each resource of an SM admits: shared memory, registers, warps
// and block slots, in that order; 0 where one block alone exceeds a per-block limit. These are
// the CUDA occupancy calculator's rules (cuda_occupancy.h) with the largest shared-memory carveout,
// as cudaOccupancyMaxActiveBlocksPerMultiprocessor applies them.
std::vector<BlockLimit> block_limits(const GpuSpec& gpu, int threads, int64_t registers, int64_t shared_bytes);

// FLOP per byte loaded for one block tile: 2 * block_m * block_n * K FLOP over
// (block_m + block_n) * K * in_bytes bytes; K cancels.
double tile_intensity(int block_m, int block_n, int in_bytes);

// Tensor-memory columns a block allocates for a block_m x block_n accumulator: block_n 32-bit
// columns per 128 rows, rounded up to a power of two of at least 32 (tcgen05.alloc's rule).
int tmem_columns_for(int block_m, int block_n, int acc_bytes, int lanes);

// Roofline: the intensity (FLOP/B) where a kernel stops being bound by memory: peak / bandwidth.
double ridge_point(double peak, double bandwidth);
// The roofline's bound at `intensity` FLOP/B: min(peak, bandwidth * intensity).
double attainable(double peak, double bandwidth, double intensity);

}  // namespace tessel::analysis
