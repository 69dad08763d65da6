#include "tessel/tuning/gpu_timer.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "tessel/error.hpp"
#include "tessel/runtime/cuda_driver.hpp"

namespace tessel::tuning {

namespace {
runtime::CudaDriver& driver() { return runtime::CudaDriver::get(); }

// Reads `chunks` 16-byte chunks of `buffer`, each thread a strided share; a store that depends on
// every load (and never happens for any but one xor of the contents) keeps the loads alive. It is
// PTX, which the driver compiles for the device at hand.
constexpr const char* kFlushPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry tessel_l2_flush(.param .u64 buffer, .param .u64 chunks, .param .u64 sink)
{
  .reg .pred %done;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd0, [buffer];
  ld.param.u64 %rd1, [chunks];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %nctaid.x;
  mul.wide.u32 %rd2, %r1, %r2;
  cvt.u64.u32 %rd3, %r0;
  add.u64 %rd2, %rd2, %rd3;
  mul.wide.u32 %rd3, %r2, %r3;
  mov.b32 %r4, 0;
LOOP:
  setp.ge.u64 %done, %rd2, %rd1;
  @%done bra END;
  shl.b64 %rd4, %rd2, 4;
  add.u64 %rd4, %rd0, %rd4;
  ld.global.v4.b32 {%r5, %r6, %r7, %r0}, [%rd4];
  xor.b32 %r4, %r4, %r5;
  xor.b32 %r4, %r4, %r6;
  xor.b32 %r4, %r4, %r7;
  xor.b32 %r4, %r4, %r0;
  add.u64 %rd2, %rd2, %rd3;
  bra LOOP;
END:
  setp.ne.u32 %done, %r4, 0x7e55e1;
  @%done bra EXIT;
  ld.param.u64 %rd5, [sink];
  st.global.b32 [%rd5], %r4;
EXIT:
  ret;
}

// Spins until the low byte of the word at `gate` is `ticket`, or for `limit_ns` at most, in which
// case it sets the word at `late` to 1.
.visible .entry tessel_timer_gate(.param .u64 gate, .param .u32 ticket, .param .u64 limit_ns, .param .u64 late)
{
  .reg .pred %open;
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd0, [gate];
  ld.param.u32 %r0, [ticket];
  ld.param.u64 %rd1, [limit_ns];
  mov.u64 %rd2, %globaltimer;
WAIT:
  ld.volatile.global.u32 %r1, [%rd0];
  and.b32 %r1, %r1, 255;
  setp.eq.u32 %open, %r1, %r0;
  @%open bra OPEN;
  mov.u64 %rd3, %globaltimer;
  sub.u64 %rd3, %rd3, %rd2;
  setp.lt.u64 %open, %rd3, %rd1;
  @%open bra WAIT;
  ld.param.u64 %rd4, [late];
  mov.b32 %r1, 1;
  st.global.u32 [%rd4], %r1;
OPEN:
  ret;
}
)";
constexpr unsigned kFlushThreads = 256, kFlushBlocksPerMultiprocessor = 8;
constexpr unsigned long long kGateLimitNs = 1'000'000'000;
}  // namespace

GpuTimer::GpuTimer() {
  auto& d = driver();
  d.context();
  CUevent start = nullptr, stop = nullptr;
  d.check(d.eventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate", "the GPU timer");
  d.check(d.eventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate", "the GPU timer");
  start_ = start;
  stop_ = stop;
  // Reading twice the L2 size evicts whatever the previous run left there. A flush that wrote
  // would leave L2 full of dirty lines, whose write-back the timed run would pay for (about 8 us on
  // an H200: a fifth of a 40 us kernel).
  const auto info = d.device_info();
  scrub_bytes_ = size_t(std::max(info.l2_bytes, 1 << 20)) * 2;
  flush_blocks_ = unsigned(std::max(info.sm_count, 1)) * kFlushBlocksPerMultiprocessor;
  CUdeviceptr p = 0;
  d.check(d.memAlloc(&p, scrub_bytes_), "cuMemAlloc", "the L2 flush buffer");
  scrub_ = p;
  d.check(d.memsetD8Async(scrub_, 0, scrub_bytes_, nullptr), "cuMemsetD8Async", "the L2 flush buffer");
  CUmodule module = nullptr;
  d.check(d.moduleLoadData(&module, kFlushPtx), "cuModuleLoadData", "the L2 flush kernel");
  flush_module_ = module;
  CUfunction function = nullptr;
  d.check(d.moduleGetFunction(&function, module, "tessel_l2_flush"), "cuModuleGetFunction", "the L2 flush kernel");
  flush_function_ = function;
  d.check(d.moduleGetFunction(&function, module, "tessel_timer_gate"), "cuModuleGetFunction", "the timer's gate");
  gate_function_ = function;
  // Two words: the gate's ticket and whether a gate gave up waiting.
  d.check(d.memAlloc(&p, 8), "cuMemAlloc", "the timer's gate");
  gate_ = p;
  d.check(d.memsetD8Async(gate_, 0, 8, nullptr), "cuMemsetD8Async", "the timer's gate");
  CUstream opener = nullptr;
  d.check(d.streamCreate(&opener, CU_STREAM_NON_BLOCKING), "cuStreamCreate", "the timer's gate");
  opener_ = opener;
}

GpuTimer::~GpuTimer() {
  auto& d = driver();
  if (d.hung()) return;
  d.eventDestroy(static_cast<CUevent>(start_));
  d.eventDestroy(static_cast<CUevent>(stop_));
  d.memFree(scrub_);
  d.memFree(gate_);
  d.streamDestroy(static_cast<CUstream>(opener_));
  d.moduleUnload(static_cast<CUmodule>(flush_module_));
}

void GpuTimer::flush_l2() {
  auto& d = driver();
  unsigned long long buffer = scrub_, chunks = scrub_bytes_ / 16, sink = scrub_;
  void* arguments[] = {&buffer, &chunks, &sink};
  d.check(d.launchKernel(static_cast<CUfunction>(flush_function_), flush_blocks_, 1, 1, kFlushThreads, 1, 1, 0, nullptr,
                         arguments, nullptr),
          "cuLaunchKernel", "the L2 flush");
}

void GpuTimer::close_gate() {
  auto& d = driver();
  ticket_ = (ticket_ + 1) % 256;
  unsigned long long gate = gate_, limit_ns = kGateLimitNs, late = gate_ + 4;
  unsigned ticket = ticket_;
  void* arguments[] = {&gate, &ticket, &limit_ns, &late};
  d.check(d.launchKernel(static_cast<CUfunction>(gate_function_), 1, 1, 1, 1, 1, 1, 0, nullptr, arguments, nullptr),
          "cuLaunchKernel", "the timer's gate");
}

void GpuTimer::open_gate() {
  auto& d = driver();
  d.check(d.memsetD8Async(gate_, static_cast<unsigned char>(ticket_), 4, static_cast<CUstream>(opener_)),
          "cuMemsetD8Async", "the timer's gate");
}

void GpuTimer::wait(void* event, const char* what, double limit_s) {
  auto& d = driver();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  for (;;) {
    const CUresult result = d.eventQuery(static_cast<CUevent>(event));
    if (result != CUDA_ERROR_NOT_READY) return d.check(result, "cuEventQuery", what);
    if (std::chrono::steady_clock::now() > deadline) {
      d.mark_hung();
      throw runtime::CudaError(CUDA_ERROR_LAUNCH_TIMEOUT, fmt::format("{} did not finish within {} s", what, limit_s));
    }
    std::this_thread::yield();
  }
}

double GpuTimer::median_ms(const std::function<void(void*)>& work, const Options& options) {
  auto& d = driver();
  auto start = static_cast<CUevent>(start_), stop = static_cast<CUevent>(stop_);
  for (int i = 0; i < options.warmup; ++i) work(nullptr);
  d.check(d.eventRecord(stop, nullptr), "cuEventRecord", "timing");
  wait(stop, "the warm-up runs", options.limit_s);
  std::vector<float> times;
  double total = 0;
  while (int(times.size()) < options.max_runs && (int(times.size()) < options.min_runs || total < options.budget_ms)) {
    close_gate();
    flush_l2();
    d.check(d.eventRecord(start, nullptr), "cuEventRecord", "timing");
    work(nullptr);
    d.check(d.eventRecord(stop, nullptr), "cuEventRecord", "timing");
    open_gate();
    wait(stop, "a timed run", options.limit_s);
    float ms = 0;
    d.check(d.eventElapsedTime(&ms, start, stop), "cuEventElapsedTime", "timing");
    times.push_back(ms);
    total += ms;
  }
  unsigned late = 0;
  d.check(d.memcpyDtoH(&late, gate_ + 4, sizeof late), "cuMemcpyDtoH", "the timer's gate");
  if (late) {
    d.check(d.memsetD8Async(gate_ + 4, 0, 4, nullptr), "cuMemsetD8Async", "the timer's gate");
    throw Error(
        "GpuTimer: the timed work waited for the GPU before returning, so the gate that holds the GPU until the "
        "work is enqueued opened only after a second; time work that only enqueues");
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace tessel::tuning
