#include "gpu_timeline.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tessel/runtime/cuda_driver.hpp"
#include "tessel/text_file.hpp"

namespace tessel::detail {

namespace {

std::string requested_file() {
  const char* path = std::getenv("TESSEL_TRACE");
  return path ? path : "";
}

}  // namespace

GpuTimeline::~GpuTimeline() {
  if (!buffer_ || runtime::CudaDriver::get().hung()) return;
  runtime::CudaDriver::get().ctxSynchronize();  // a launch in flight may still write it
  device_.free(buffer_);
}

bool GpuTimeline::provide(const ir::KernelNode& k, std::span<ir::Scalar> values) {
  const size_t call = k.call_params();
  for (size_t i = 0; i < k.derived_params.size(); ++i) {
    if (k.derived_params[i].value != ir::DerivedValue::TraceBuffer) continue;
    values[call + i].i = 0;
    if (!device_.is_gpu() || requested_file().empty()) return false;
    if (!buffer_) buffer_ = device_.alloc(size_t(ir::kTraceBufferBytes));
    auto& d = runtime::CudaDriver::get();
    d.check(d.memsetD8(CUdeviceptr(buffer_), 0, 8), "cuMemsetD8", "the timeline's record count");
    values[call + i].i = int64_t(reinterpret_cast<uintptr_t>(buffer_));
    return true;
  }
  return false;
}

void GpuTimeline::write(const ir::KernelNode& k, void* stream) const {
  auto& d = runtime::CudaDriver::get();
  d.check(d.streamSynchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize",
          "a launch that records a timeline");
  uint64_t count = 0;
  d.check(d.memcpyDtoH(&count, CUdeviceptr(buffer_), 8), "cuMemcpyDtoH", "the timeline's record count");
  std::vector<uint64_t> records(2 * std::min<uint64_t>(count, uint64_t(ir::kTraceRecords)));
  if (!records.empty())
    d.check(d.memcpyDtoH(records.data(), CUdeviceptr(buffer_) + 8, records.size() * 8), "cuMemcpyDtoH",
            "the timeline's records");
  const std::vector<std::string> regions = ir::trace_region_names(k);
  uint64_t start = UINT64_MAX;
  for (size_t r = 0; r < records.size(); r += 2) start = std::min(start, records[r]);
  nlohmann::json events = nlohmann::json::array();
  std::map<std::pair<uint64_t, uint64_t>, bool> named;                             // (block, warp) tracks named so far
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, std::vector<uint64_t>> open;  // begins awaiting their end
  for (size_t r = 0; r < records.size(); r += 2) {
    const uint64_t time = records[r], word = records[r + 1];
    const uint64_t block = word >> 32, warp = word >> 16 & 0xffff, region = word >> 1 & 0x7fff;
    const int pid = int(block) + 1, tid = int(warp);
    if (!named.count({block, warp})) {
      named[{block, warp}] = true;
      events.push_back({{"ph", "M"},
                        {"pid", pid},
                        {"tid", 0},
                        {"name", "process_name"},
                        {"args", {{"name", fmt::format("block {}", block)}}}});
      events.push_back({{"ph", "M"},
                        {"pid", pid},
                        {"tid", tid},
                        {"name", "thread_name"},
                        {"args", {{"name", fmt::format("warp {}", warp)}}}});
    }
    std::vector<uint64_t>& begins = open[{block, warp, region}];
    if (word & 1) {
      begins.push_back(time);
    } else if (!begins.empty()) {
      events.push_back({{"ph", "X"},
                        {"pid", pid},
                        {"tid", tid},
                        {"name", region < regions.size() ? regions[region] : fmt::format("region {}", region)},
                        {"ts", double(begins.back() - start) / 1000},
                        {"dur", double(time - begins.back()) / 1000}});
      begins.pop_back();
    }
  }
  const nlohmann::json trace = {
      {"traceEvents", events},
      {"otherData",
       {{"kernel", k.name},
        {"time", "the GPU's global timer"},
        {"records", count},
        {"dropped", count > uint64_t(ir::kTraceRecords) ? count - uint64_t(ir::kTraceRecords) : 0}}}};
  const std::string path = requested_file();
  if (const std::string reason = write_text_file(path, trace.dump(1) + "\n"); !reason.empty())
    throw Error(fmt::format("TESSEL_TRACE: cannot write the timeline of kernel {} to {}: {}", k.name, path, reason));
}

}  // namespace tessel::detail
