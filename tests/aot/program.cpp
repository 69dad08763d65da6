// A program that uses tessel kernels exported ahead of time (tessel aot) through the CUDA driver
// API alone: it includes the generated header and links libcuda. Run on a GPU, it launches them on
// random inputs, compares with host references, and checks that a call the export does not cover
// is refused with the JIT's message; export_and_build.cmake exports the kernels it uses.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels.hpp"

namespace {

uint16_t to_half(float f) {  // round to nearest, ties to even; no subnormal outputs needed here
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = x >> 16 & 0x8000, exponent = x >> 23 & 0xff, mantissa = x & 0x7fffff;
  if (exponent < 113) return uint16_t(sign);
  const uint32_t half = (exponent - 112) << 10 | mantissa >> 13, rest = mantissa & 0x1fff;
  return uint16_t(sign | (half + (rest > 0x1000 || (rest == 0x1000 && (half & 1)))));
}

float from_half(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16, exponent = h >> 10 & 0x1f, mantissa = h & 0x3ff;
  const uint32_t x = exponent == 0 ? sign : sign | (exponent + 112) << 23 | mantissa << 13;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

template <class T> tessel_aot::Buffer upload(const std::vector<T>& host) {
  tessel_aot::Buffer b{0, int64_t(host.size())};
  tessel_aot::detail::check(cuMemAlloc(&b.data, host.size() * sizeof(T)), "cuMemAlloc");
  tessel_aot::detail::check(cuMemcpyHtoD(b.data, host.data(), host.size() * sizeof(T)), "cuMemcpyHtoD");
  return b;
}

template <class T> std::vector<T> download(const tessel_aot::Buffer& b) {
  std::vector<T> host(size_t(b.elements));
  tessel_aot::detail::check(cuMemcpyDtoH(host.data(), b.data, host.size() * sizeof(T)), "cuMemcpyDtoH");
  return host;
}

int failures = 0;

void expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += !ok;
}

// C = A Bᵀ with A [m, k], B [n, k] and C [m, n] in f16, as the matmul examples compute.
template <class Launcher> void check_matmul(Launcher& launch, int m, int n, int k, bool takes_k, const char* what) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> a(size_t(m) * k), b(size_t(n) * k), c(size_t(m) * n, to_half(-99.0f));
  for (auto& x : a) x = to_half(dist(rng));
  for (auto& x : b) x = to_half(dist(rng));
  const tessel_aot::Buffer da = upload(a), db = upload(b), dc = upload(c);
  if constexpr (requires { launch(CUstream{}, 0, 0, 0, da, db, dc); })
    launch(nullptr, m, n, k, da, db, dc);
  else
    launch(nullptr, m, n, da, db, dc);
  (void)takes_k;
  const std::vector<uint16_t> got = download<uint16_t>(dc);
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += double(from_half(a[size_t(i) * k + p])) * from_half(b[size_t(j) * k + p]);
      worst = std::fmax(worst, std::fabs(from_half(got[size_t(i) * n + j]) - want));
    }
  expect(worst < 2e-2, what);
  for (const tessel_aot::Buffer& x : {da, db, dc}) cuMemFree(x.data);
}

}  // namespace

int main() {
  CUdevice device;
  CUcontext context;
  tessel_aot::detail::check(cuInit(0), "cuInit");
  tessel_aot::detail::check(cuDeviceGet(&device, 0), "cuDeviceGet");
  tessel_aot::detail::check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  tessel_aot::detail::check(cuCtxSetCurrent(context), "cuCtxSetCurrent");

  tessel_aot::vector_add add;
  std::vector<float> x(4096), y(4096);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) * 0.5f, y[i] = 3.0f - float(i);
  const tessel_aot::Buffer dx = upload(x), dy = upload(y), dz = upload(std::vector<float>(4096, -1.0f));
  add(nullptr, 4096, dx, dy, dz);
  const std::vector<float> z = download<float>(dz);
  bool same = true;
  for (size_t i = 0; i < z.size(); ++i) same = same && z[i] == x[i] + y[i];
  expect(same, "vector_add matches the host");
  try {
    add(nullptr, 4100, dx, dy, dz);
    expect(false, "vector_add refuses a size the export was not compiled for");
  } catch (const tessel_aot::Error& e) {
    expect(std::strstr(e.what(), "parameter n: 4100 is not a multiple of 16") != nullptr, e.what());
  }
  try {
    add(nullptr, 8192, dx, dy, dz);
    expect(false, "vector_add refuses a view past its buffer");
  } catch (const tessel_aot::Error& e) {
    expect(std::strstr(e.what(),
                       "the global_view of parameter a spans elements 0 to 8191, but the argument for a "
                       "holds 4096") != nullptr,
           e.what());
  }

  tessel_aot::matmul_simt simt;
  check_matmul(simt, 256, 192, 128, false, "matmul_simt matches the host");
  int major = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  if (major == 9) {
    tessel_aot::hopper_v5 hopper;  // TMA tensor maps, fast_divmod, persistent over the multiprocessors
    check_matmul(hopper, 512, 384, 256, true, "hopper_v5 matches the host");
  }
  cuDevicePrimaryCtxRelease(device);
  return failures == 0 ? 0 : 1;
}
