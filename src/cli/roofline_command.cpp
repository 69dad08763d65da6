// `tessel roofline`: an SVG roofline chart of a GPU with measured kernels on it (docs/analysis.md).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "commands.hpp"
#include "tessel/analysis/roofline_chart.hpp"
#include "tessel/analysis/tile_analysis.hpp"
#include "tessel/error.hpp"

namespace tessel::cli {

namespace {

using namespace analysis;

struct RooflineArgs {
  std::string gpu = "device", out = "roofline.svg", title;
  std::vector<std::string> points, dtypes;
};

// "label:intensity:flops"; the label may itself contain colons.
RooflinePoint parse_point(const std::string& text) {
  const size_t second = text.rfind(':');
  const size_t first = second == std::string::npos || second == 0 ? std::string::npos : text.rfind(':', second - 1);
  if (first == std::string::npos || first == 0)
    throw Error(fmt::format("--point '{}': expected label:intensity:flops, e.g. matmul:64:250e12", text));
  return {text.substr(0, first), parse_positive("--point intensity", text.substr(first + 1, second - first - 1)),
          parse_positive("--point FLOP/s", text.substr(second + 1))};
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (f) f << text;
  if (!f.flush()) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

int run(const RooflineArgs& args) {
  RooflineChart chart;
  for (const std::string& p : args.points) chart.points.push_back(parse_point(p));
  std::vector<MathType> types;
  for (const std::string& d : args.dtypes) types.push_back(parse_math_type(d));
  if (types.empty()) types = {MathType::F16, MathType::F32};
  const GpuSpec gpu = resolve_gpu(args.gpu);

  chart.bandwidth = gpu.hbm_bandwidth;
  chart.title =
      args.title.empty() ? fmt::format("Roofline: {} ({}), dense peak rates", gpu.full_name(), gpu.arch()) : args.title;
  for (MathType t : types)
    chart.roofs.push_back(
        {fmt::format("{} {}", math_type_name(t), t == MathType::F32 ? "SIMT" : "tensor"), peak_rate(gpu, t)});
  write_file(args.out, roofline_svg(chart));

  fmt::print("wrote {}: roofline of {}, memory {:.4g} TB/s\n", args.out, gpu.full_name(), gpu.hbm_bandwidth / 1e12);
  for (const std::string& n : gpu.notes) fmt::print("  note: {}\n", n);
  for (const RooflineRoof& r : chart.roofs)
    fmt::print("  {:<12} peak {:.4g} TFLOP/s, ridge point {:.4g} FLOP/B\n", r.label, r.peak / 1e12,
               ridge_point(r.peak, chart.bandwidth));
  for (const RooflinePoint& p : chart.points) {
    // Below every ridge point, all roofs are the memory roof; above one, each roof bounds it apart.
    std::vector<std::string> bounds;
    double highest = 0;
    for (const RooflineRoof& r : chart.roofs) {
      const double bound = attainable(r.peak, chart.bandwidth, p.intensity);
      highest = std::max(highest, bound);
      bounds.push_back(fmt::format("{} {:.4g} TFLOP/s ({:.1f}%)", r.label, bound / 1e12, 100 * p.flops / bound));
    }
    const bool memory_bound = std::all_of(chart.roofs.begin(), chart.roofs.end(), [&](const RooflineRoof& r) {
      return p.intensity < ridge_point(r.peak, chart.bandwidth);
    });
    fmt::print("  {}: {:.4g} FLOP/B, {:.4g} TFLOP/s; roofline bound there: {}\n", p.label, p.intensity, p.flops / 1e12,
               memory_bound ? fmt::format("memory {:.4g} TFLOP/s ({:.1f}%)", highest / 1e12, 100 * p.flops / highest)
                            : fmt::format("{}", fmt::join(bounds, ", ")));
    if (p.flops > highest)
      fmt::print("    above every roof: the intensity must count only the bytes moved to and from DRAM\n");
  }
  return 0;
}

}  // namespace

Command add_roofline_command(CLI::App& app) {
  auto args = std::make_shared<RooflineArgs>();
  CLI::App* sub = app.add_subcommand("roofline", "write an SVG roofline chart of a GPU with measured kernels on it");
  sub->add_option("--gpu", args->gpu, "a100, h100, h200, b200, or device: the GPU here (default)")->type_name("GPU");
  sub->add_option("--point", args->points,
                  "a measured kernel: its label, arithmetic intensity (FLOP per byte of DRAM traffic) and achieved "
                  "FLOP/s, e.g. matmul:64:250e12 (repeatable)")
      ->type_name("LABEL:FLOP/B:FLOP/s");
  sub->add_option("--dtype", args->dtypes, "a compute roof: f16, bf16, tf32, f8, i8, f32 (default f16 and f32)")
      ->type_name("TYPE");
  sub->add_option("--out", args->out, "the SVG file to write (default roofline.svg)")->type_name("FILE");
  sub->add_option("--title", args->title, "the chart's title")->type_name("TEXT");
  return {sub, [args] { return run(*args); }};
}

}  // namespace tessel::cli
