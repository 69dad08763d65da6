// Launching a variant: the call's pointers checked, its run-time values, its requirements (Script::require) and the
// parameters derived from them, the grid computed from them, then the simulator or the GPU. Every call takes this path,
// so it allocates nothing for any ordinary kernel.
#include <array>
#include <span>

#include <fmt/ranges.h>

#include "gpu_timeline.hpp"
#include "scratch_buffers.hpp"
#include "tessel/ir/derived_params.hpp"
#include "tessel/ir/evaluate.hpp"
#include "tessel/ir/target_limits.hpp"
#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/runtime/launch.hpp"
#include "tessel/sim/simulator.hpp"
#include "variant.hpp"

namespace tessel::detail {

namespace {

// " (this launch has n = 6, k = 3)": the call parameters that `e` reads, with this launch's values;
// empty when it reads none.
std::string values_read(const ir::Expr& e, const ir::KernelNode& k, std::span<const ir::Scalar> values) {
  std::vector<std::string> read;
  for (size_t j : ir::call_params_read(*e, k)) {
    const ir::VarNode& p = *k.params[j];
    read.push_back(fmt::format(
        "{} = {}", p.name, is_float(p.type.dtype) ? fmt::format("{}", values[j].f) : fmt::format("{}", values[j].i)));
  }
  return read.empty() ? "" : fmt::format(" (this launch has {})", fmt::join(read, ", "));
}

// The grid extents, evaluated from the kernel's parameter values and the device's multiprocessor count.
std::array<unsigned, 3> grid_of(const ir::KernelNode& k, std::span<const ir::Scalar> values, int multiprocessors,
                                ir::Arch arch) {
  const std::array<int64_t, 3>& limit = ir::target_limits(arch).max_grid_blocks;
  std::array<unsigned, 3> grid = {1, 1, 1};
  for (size_t d = 0; d < k.blocks.size(); ++d) {
    const ir::Scalar g = ir::evaluate_at_launch(*k.blocks[d], k, values, multiprocessors);
    if (g.i < 0 || g.i > limit[d])
      throw Error(k.blocks_loc, fmt::format("kernel {}: grid extent {} is {}, outside the range the hardware accepts "
                                            "(0 to {}){}",
                                            k.name, d, g.i, limit[d], values_read(k.blocks[d], k, values)));
    grid[d] = unsigned(g.i);
  }
  return grid;
}

// Every require condition of the kernel holds for this launch; the error names the first that does
// not, where the user wrote it, with the parameters it reads.
void check_requirements(const ir::KernelNode& k, std::span<const ir::Scalar> values, int multiprocessors) {
  for (const ir::Requirement& r : k.requirements) {
    if (ir::evaluate_at_launch(*r.cond, k, values, multiprocessors).i) continue;
    throw Error(r.loc, fmt::format("kernel {}: {}{}", k.name, r.message, values_read(r.cond, k, values)));
  }
}

// A grid of clusters must be a whole number of them; the error names the line of attrs.blocks.
void check_cluster_fit(const ir::KernelNode& k, const runtime::LaunchShape& shape) {
  if (!k.clustered() || shape.whole_clusters()) return;
  const auto& [gx, gy, gz] = shape.grid;
  throw Error(k.blocks_loc, fmt::format("kernel {}: attrs.blocks gives a grid of {} x {} x {} blocks, which is not a "
                                        "whole number of its {} x {} x {} clusters (attrs.cluster)",
                                        k.name, gx, gy, gz, k.cluster[0], k.cluster[1], k.cluster[2]));
}

}  // namespace

void KernelCore::launch_variant(const Variant& v, std::span<const HostArg> args, void* stream) const {
  signature_.check_pointers(args);
  const ir::KernelNode& k = *v.kernel;
  // One value per kernel parameter, on the stack for as many parameters as the argument block.
  constexpr size_t kInline = runtime::ArgumentBlock::kInlineParams;
  std::array<ir::Scalar, kInline> inline_values;
  std::vector<ir::Scalar> heap_values;
  if (k.params.size() > kInline) heap_values.resize(k.params.size());
  const std::span<ir::Scalar> values =
      heap_values.empty() ? std::span(inline_values).first(k.params.size()) : std::span(heap_values);
  signature_.run_time_values(args, values.first(k.call_params()));
  check_requirements(k, values.first(k.call_params()), multiprocessors_);
  ir::compute_derived_params(k, multiprocessors_, values);
  scratch_->provide(k, values, multiprocessors_, stream);
  const bool records_timeline = timeline_->provide(k, values);
  runtime::LaunchShape shape;
  shape.grid = grid_of(k, values, multiprocessors_, arch_);
  shape.cluster = {unsigned(k.cluster[0]), unsigned(k.cluster[1]), unsigned(k.cluster[2])};
  shape.threads = unsigned(k.threads());
  shape.shared_bytes = unsigned(k.shared_bytes);
  shape.dependent = v.dependent_launch;
  check_cluster_fit(k, shape);
  v.report_absent_printers(name_, shape.grid);
  check_tensor_arguments(k, signature_, v.views, args, values, multiprocessors_, device_.is_gpu());
  if (!device_.is_gpu()) {
    const std::array<int, 3> grid = {int(shape.grid[0]), int(shape.grid[1]), int(shape.grid[2])};
    sim::run(k, sim::Launch{grid, std::vector<ir::Scalar>(values.begin(), values.end())}, options_.sim);
    return;
  }
  runtime::launch(*v.loaded, shape, values, stream);
  if (records_timeline) timeline_->write(k, stream);
}

void KernelCore::wait_for_call(const Variant& v, uint64_t call, void* stream) const {
  auto& d = runtime::CudaDriver::get();
  const CUresult r = d.streamSynchronize(static_cast<CUstream>(stream));
  if (r == CUDA_SUCCESS) return;
  throw Error(
      fmt::format("kernel {}{}, call {}, failed on the GPU: {}. Debug mode waits for every launch, so this call "
                  "caused it; a debug check that failed printed its report above. The GPU context cannot be "
                  "used again in this process",
                  name_, v.hyperparameters.empty() ? "" : " [" + v.hyperparameters + "]", call, d.describe(r)));
}

}  // namespace tessel::detail
