#include "tessel/analysis/tile_analysis.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "tessel/error.hpp"

namespace tessel::analysis {

namespace {

// Allocation rules of compute capabilities 8.x to 10.x, as the CUDA occupancy calculator
// (cuda_occupancy.h) applies them: registers are given to warps in units of 256 from four
// sub-partitions of the register file, and shared memory to blocks in 128-byte granules.
constexpr int kWarpSize = 32;
constexpr int kRegisterUnit = 256;
constexpr int kSubPartitions = 4;
constexpr int64_t kSharedGranule = 128;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

void check_range(std::string_view what, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) throw Error(fmt::format("{} = {} is out of range ({}..{})", what, value, lo, hi));
}

void validate(const TileConfig& c) {
  check_range("block_m", c.block_m, 1, 1 << 16);
  check_range("block_n", c.block_n, 1, 1 << 16);
  check_range("block_k", c.block_k, 1, 1 << 16);
  check_range("stages", c.stages, 1, 64);
  check_range("threads", c.threads, 1, 1 << 16);
  check_range("input element bytes", c.in_bytes, 1, 16);
  check_range("accumulator element bytes", c.acc_bytes, 1, 16);
  check_range("register overhead", c.register_overhead, 0, 1 << 16);
}

std::string kib(int64_t bytes) { return fmt::format("{:g} KB", double(bytes) / 1024); }

}  // namespace

int TileAnalysis::blocks_allowed_by(std::string_view resource) const {
  for (const BlockLimit& l : limits)
    if (l.resource == resource) return l.blocks;
  TESSEL_CHECK(false, "no block limit for {}", resource);
}

double tile_intensity(int block_m, int block_n, int in_bytes) {
  if (block_m <= 0 || block_n <= 0 || in_bytes <= 0)
    throw Error(fmt::format("tile intensity needs positive sizes, got {}x{} with {}-byte elements", block_m, block_n,
                            in_bytes));
  return 2.0 * block_m * block_n / (double(block_m + block_n) * in_bytes);
}

int tmem_columns_for(int block_m, int block_n, int acc_bytes, int lanes) {
  TESSEL_CHECK(lanes > 0, "tensor memory with {} lanes", lanes);
  const int64_t cells = ceil_div(block_m, lanes) * ceil_div(int64_t(block_n) * acc_bytes, 4);
  return int(std::bit_ceil(uint64_t(std::max<int64_t>(cells, 32))));
}

double ridge_point(double peak, double bandwidth) {
  if (!(peak > 0) || !(bandwidth > 0) || !std::isfinite(peak) || !std::isfinite(bandwidth))
    throw Error(fmt::format("a roofline needs a positive peak and bandwidth, got {:g} and {:g}", peak, bandwidth));
  return peak / bandwidth;
}

double attainable(double peak, double bandwidth, double intensity) {
  ridge_point(peak, bandwidth);
  if (!(intensity > 0) || !std::isfinite(intensity))
    throw Error(fmt::format("arithmetic intensity must be positive, got {:g}", intensity));
  return std::min(peak, bandwidth * intensity);
}

std::vector<BlockLimit> block_limits(const GpuSpec& gpu, int threads, int64_t registers, int64_t shared_bytes) {
  TESSEL_CHECK(threads > 0 && registers >= 0 && shared_bytes >= 0, "block of {} threads, {} registers, {} bytes",
               threads, registers, shared_bytes);
  const int64_t warps = ceil_div(threads, kWarpSize);
  const int64_t shared_allocated = round_up(shared_bytes + gpu.shared_reserved_per_block, kSharedGranule);
  const int64_t registers_per_warp = round_up(registers * kWarpSize, kRegisterUnit);
  // The hardware checks a block's registers as if its warps were spread evenly over all
  // sub-partitions; warps then fit per sub-partition.
  const bool registers_fit = registers <= gpu.max_registers_per_thread &&
                             registers_per_warp * round_up(warps, kSubPartitions) <= gpu.registers_per_block;
  const int64_t warps_by_registers =
      registers_per_warp == 0 ? gpu.max_warps_per_sm
                              : kSubPartitions * (gpu.registers_per_sm / kSubPartitions / registers_per_warp);
  return {
      {"shared memory", shared_bytes > gpu.shared_per_block_optin ? 0 : int(gpu.shared_per_sm / shared_allocated)},
      {"registers", registers_fit ? int(warps_by_registers / warps) : 0},
      {"warps", threads > gpu.max_threads_per_block ? 0 : int(gpu.max_warps_per_sm / warps)},
      {"block slots", gpu.max_blocks_per_sm},
  };
}

TileAnalysis analyze_tile(const TileConfig& c, const GpuSpec& gpu) {
  validate(c);
  TileAnalysis a;
  a.config = c;
  a.shared_per_stage = (int64_t(c.block_m) * c.block_k + int64_t(c.block_n) * c.block_k) * c.in_bytes;
  a.shared_bytes = a.shared_per_stage * c.stages;
  a.shared_allocated = round_up(a.shared_bytes + gpu.shared_reserved_per_block, kSharedGranule);
  a.warps = int(ceil_div(c.threads, kWarpSize));
  a.intensity = tile_intensity(c.block_m, c.block_n, c.in_bytes);

  // The seed's estimate: each thread holds an equal share of the accumulator, plus a constant.
  const int64_t accumulator_registers =
      c.accumulator == Accumulator::Registers
          ? ceil_div(int64_t(c.block_m) * c.block_n * c.acc_bytes, 4 * int64_t(c.threads))
          : 0;
  const int64_t registers = accumulator_registers + c.register_overhead;
  a.registers_per_thread = registers;
  const int64_t registers_per_warp = round_up(registers * kWarpSize, kRegisterUnit);
  a.registers_per_block = registers_per_warp * a.warps;
  // What the hardware checks (see block_limits).
  const int64_t registers_checked = registers_per_warp * round_up(a.warps, kSubPartitions);

  auto& problems = a.problems;
  if (c.threads > gpu.max_threads_per_block)
    problems.push_back(fmt::format("{} threads per block; {} allows {}, {} too many", c.threads, gpu.name,
                                   gpu.max_threads_per_block, c.threads - gpu.max_threads_per_block));
  if (a.shared_bytes > gpu.shared_per_block_optin)
    problems.push_back(fmt::format("needs {} bytes of shared memory per block; {} allows {} ({}), {} bytes too many",
                                   a.shared_bytes, gpu.name, gpu.shared_per_block_optin,
                                   kib(gpu.shared_per_block_optin), a.shared_bytes - gpu.shared_per_block_optin));
  if (registers > gpu.max_registers_per_thread)
    problems.push_back(
        fmt::format("needs about {} registers per thread ({} accumulator + {} other); the limit is {}, "
                    "{} too many",
                    registers, accumulator_registers, c.register_overhead, gpu.max_registers_per_thread,
                    registers - gpu.max_registers_per_thread));
  else if (registers_checked > gpu.registers_per_block)
    problems.push_back(
        fmt::format("needs {} registers per block ({} per warp, {} warps counted in fours); the limit "
                    "is {}, {} too many",
                    registers_checked, registers_per_warp, round_up(a.warps, kSubPartitions), gpu.registers_per_block,
                    registers_checked - gpu.registers_per_block));

  a.limits = block_limits(gpu, c.threads, registers, a.shared_bytes);

  if (c.accumulator == Accumulator::TensorMemory) {
    if (!gpu.has_tmem()) {
      problems.push_back(
          fmt::format("{} ({}) has no tensor memory; keep the accumulator in registers", gpu.name, gpu.arch()));
      a.limits.push_back({"tensor memory", 0});
    } else {
      a.tmem_columns = tmem_columns_for(c.block_m, c.block_n, c.acc_bytes, gpu.tmem_lanes);
      if (a.tmem_columns > gpu.tmem_columns)
        problems.push_back(
            fmt::format("needs {} tensor-memory columns for a {}x{} accumulator; an SM has {}, {} too "
                        "many",
                        a.tmem_columns, c.block_m, c.block_n, gpu.tmem_columns, a.tmem_columns - gpu.tmem_columns));
      a.limits.push_back({"tensor memory", gpu.tmem_columns / a.tmem_columns});
    }
  }

  a.blocks_per_sm = std::min_element(a.limits.begin(), a.limits.end(), [](const BlockLimit& x, const BlockLimit& y) {
                      return x.blocks < y.blocks;
                    })->blocks;
  for (const BlockLimit& l : a.limits)
    if (l.blocks == a.blocks_per_sm) a.limited_by.push_back(l.resource);
  TESSEL_CHECK(!a.feasible() || a.blocks_per_sm > 0, "a feasible tile admits no block per SM ({})",
               fmt::join(a.limited_by, ", "));
  a.active_warps = a.blocks_per_sm * a.warps;
  a.occupancy = double(a.active_warps) / gpu.max_warps_per_sm;
  return a;
}

}  // namespace tessel::analysis
