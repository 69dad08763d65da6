// `tessel tiles`: what a matmul block tile costs on a GPU and whether it fits (docs/analysis.md).
#include <charconv>
#include <memory>

#include "commands.hpp"
#include "tessel/analysis/tile_analysis.hpp"
#include "tessel/error.hpp"

namespace tessel::cli {

namespace {

using namespace analysis;

struct TilesArgs {
  std::string gpu = "device", block, stages = "2", dtype = "f16", threads = "256", accumulator = "registers";
};

// "128x64x32" -> {128, 64, 32}; empty when a size is not a positive integer.
std::vector<int> parse_block(std::string_view text) {
  std::vector<int> sizes;
  for (;;) {
    const size_t x = text.find_first_of("xX");
    const std::string_view part = text.substr(0, x);
    int v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v <= 0) return {};
    sizes.push_back(v);
    if (x == std::string_view::npos) return sizes;
    text.remove_prefix(x + 1);
  }
}

TileConfig parse_config(const TilesArgs& args, MathType math) {
  TileConfig c;
  if (args.block.empty()) throw Error("--block is required: the tile as MxNxK, e.g. 128x128x32");
  const std::vector<int> sizes = parse_block(args.block);
  if (sizes.size() != 3)
    throw Error(fmt::format("--block '{}': expected MxNxK with positive sizes, e.g. 128x128x32", args.block));
  c.block_m = sizes[0];
  c.block_n = sizes[1];
  c.block_k = sizes[2];
  c.stages = parse_count("--stages", args.stages);
  c.threads = parse_count("--threads", args.threads);
  c.in_bytes = input_bytes(math);
  if (args.accumulator == "tmem")
    c.accumulator = Accumulator::TensorMemory;
  else if (args.accumulator != "registers")
    throw Error(fmt::format("--accumulator '{}': expected registers or tmem", args.accumulator));
  return c;
}

std::string bytes_text(int64_t b) { return fmt::format("{} B ({:g} KB)", b, double(b) / 1024); }

int run(const TilesArgs& args) {
  const MathType math = parse_math_type(args.dtype);
  const TileConfig c = parse_config(args, math);
  const GpuSpec gpu = resolve_gpu(args.gpu);
  const double peak = peak_rate(gpu, math);
  const TileAnalysis a = analyze_tile(c, gpu);
  const char* where = c.accumulator == Accumulator::TensorMemory ? "tensor memory" : "registers";

  fmt::print("{}x{}x{} tile, {} stages, {} in, 32-bit accumulator in {}, {} threads ({} warps)\n", c.block_m, c.block_n,
             c.block_k, c.stages, math_type_name(math), where, c.threads, a.warps);
  fmt::print("on {} ({}, {} SMs)\n", gpu.full_name(), gpu.arch(), gpu.sm_count);
  for (const std::string& n : gpu.notes) fmt::print("  note: {}\n", n);
  fmt::print("\n");
  const auto row = [](std::string_view what, const std::string& value) { fmt::print("  {:<22}{}\n", what, value); };
  row("shared per stage", fmt::format("{}  = ({}x{} + {}x{}) x {} B", bytes_text(a.shared_per_stage), c.block_m,
                                      c.block_k, c.block_k, c.block_n, c.in_bytes));
  row("shared per block", fmt::format("{}  = {} stages; the limit is {}", bytes_text(a.shared_bytes), c.stages,
                                      bytes_text(gpu.shared_per_block_optin)));
  row("registers per thread", c.accumulator == Accumulator::Registers
                                  ? fmt::format("~{}  = {}x{} / {} threads + {}", a.registers_per_thread, c.block_m,
                                                c.block_n, c.threads, c.register_overhead)
                                  : fmt::format("~{}  (accumulator in tensor memory)", a.registers_per_thread));
  if (c.accumulator == Accumulator::TensorMemory && gpu.has_tmem())
    row("tensor memory",
        fmt::format("{} of {} columns ({} lanes of 32 bits each)", a.tmem_columns, gpu.tmem_columns, gpu.tmem_lanes));
  std::vector<std::string> limits;
  for (const BlockLimit& l : a.limits) limits.push_back(fmt::format("{} {}", l.resource, l.blocks));
  row("blocks per SM", fmt::format("{}, limited by {}  (each allows: {})", a.blocks_per_sm,
                                   fmt::join(a.limited_by, " and "), fmt::join(limits, ", ")));
  row("occupancy", fmt::format("{:.1f}%  ({} of {} warps)", 100 * a.occupancy, a.active_warps, gpu.max_warps_per_sm));
  row("arithmetic intensity", fmt::format("{:.4g} FLOP/B  = 2x{}x{} / (({} + {}) x {} B)", a.intensity, c.block_m,
                                          c.block_n, c.block_m, c.block_n, c.in_bytes));
  const double ridge = ridge_point(peak, gpu.hbm_bandwidth);
  row(fmt::format("ridge point ({})", math_type_name(math)),
      fmt::format("{:.4g} FLOP/B  = {:.4g} TFLOP/s / {:.4g} TB/s", ridge, peak / 1e12, gpu.hbm_bandwidth / 1e12));
  const double bound = attainable(peak, gpu.hbm_bandwidth, a.intensity);
  row("roofline bound",
      fmt::format("{:.4g} TFLOP/s ({:.0f}% of peak) if every load came from HBM", bound / 1e12, 100 * bound / peak));
  fmt::print("\n");
  if (a.feasible()) {
    fmt::print("fits on {}\n", gpu.name);
    return 0;
  }
  fmt::print("does NOT fit on {}:\n", gpu.name);
  for (const std::string& p : a.problems) fmt::print("  - {}\n", p);
  return 1;
}

}  // namespace

Command add_tiles_command(CLI::App& app) {
  auto args = std::make_shared<TilesArgs>();
  CLI::App* sub = app.add_subcommand("tiles", "what a matmul block tile costs on a GPU, and whether it fits");
  sub->add_option("--gpu", args->gpu, "a100, h100, h200, b200, or device: the GPU here (default)")->type_name("GPU");
  sub->add_option("--block", args->block, "the tile, e.g. 128x128x32 (required)")->type_name("MxNxK");
  sub->add_option("--stages", args->stages, "shared-memory pipeline stages (default 2)")->type_name("N");
  sub->add_option("--dtype", args->dtype, "input type: f16, bf16, tf32, f8, i8 or f32 (default f16)")
      ->type_name("TYPE");
  sub->add_option("--threads", args->threads, "threads per block (default 256)")->type_name("N");
  sub->add_option("--accumulator", args->accumulator, "registers (default) or tmem")->type_name("WHERE");
  return {sub, [args] { return run(*args); }};
}

}  // namespace tessel::cli
