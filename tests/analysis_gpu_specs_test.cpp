// The GPU table: lookup, the figures the seeds reason with, and merging a live device into it.
#include "tessel/analysis/gpu_specs.hpp"

#include <gtest/gtest.h>

#include "tessel/error.hpp"

namespace tessel::analysis {
namespace {

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(GpuSpecs, LookupIsCaseInsensitiveAndNamesTheKnownGpus) {
  EXPECT_EQ(gpu_spec("a100").name, "A100");
  EXPECT_EQ(gpu_spec("H100").name, "H100");
  EXPECT_EQ(gpu_spec("h200").full_name(), "H200 SXM 141GB");
  EXPECT_EQ(gpu_spec("B200").arch(), "sm_100");
  EXPECT_EQ(error_of([] { gpu_spec("v100"); }), "unknown GPU 'v100' (known: a100, h100, h200, b200)");
  EXPECT_EQ(error_of([] { gpu_spec(""); }), "unknown GPU '' (known: a100, h100, h200, b200)");
}

TEST(GpuSpecs, EveryEntryIsComplete) {
  for (const GpuSpec& g : known_gpus()) {
    SCOPED_TRACE(g.key);
    EXPECT_GE(g.cc_major, 8);
    EXPECT_GT(g.sm_count, 100);
    EXPECT_EQ(g.registers_per_sm, 65536);
    EXPECT_EQ(g.max_registers_per_thread, 255);
    EXPECT_EQ(g.max_warps_per_sm * 32, g.max_threads_per_sm);
    EXPECT_EQ(g.max_blocks_per_sm, 32);
    // The opt-in limit per block is what is left of the SM's shared memory after the reservation.
    EXPECT_EQ(g.shared_per_block_optin + g.shared_reserved_per_block, g.shared_per_sm);
    EXPECT_GT(g.l2_bytes, 0);
    EXPECT_GT(g.hbm_bandwidth, 1e12);
    EXPECT_GT(g.peak.tensor_f16, g.peak.simt_f32);
    EXPECT_EQ(g.peak.tensor_f16, g.peak.tensor_bf16);
    EXPECT_LT(g.peak.tensor_tf32, g.peak.tensor_f16);
    EXPECT_EQ(g.has_tmem(), g.cc_major >= 10);
    EXPECT_TRUE(g.notes.empty());
  }
  EXPECT_EQ(gpu_spec("b200").tmem_lanes, 128);
  EXPECT_EQ(gpu_spec("b200").tmem_columns, 512);
}

TEST(GpuSpecs, EachGpuIsBuiltForTheTargetOfItsComputeCapability) {
  EXPECT_EQ(gpu_spec("a100").target(), ir::Arch::Sm80);
  EXPECT_EQ(gpu_spec("h100").target(), ir::Arch::Sm90a);
  EXPECT_EQ(gpu_spec("h200").target(), ir::Arch::Sm90a);
  EXPECT_EQ(gpu_spec("b200").target(), ir::Arch::Sm100a);
}

TEST(GpuSpecs, ATargetsSpecHasItsLimitsAndItsName) {
  const GpuSpec sm90a = target_spec(ir::Arch::Sm90a);
  EXPECT_EQ(sm90a.name, "sm_90a");
  EXPECT_EQ(sm90a.target(), ir::Arch::Sm90a);
  EXPECT_EQ(sm90a.shared_per_block_optin, gpu_spec("h100").shared_per_block_optin);
  EXPECT_EQ(sm90a.registers_per_block, 65536);
  EXPECT_FALSE(sm90a.has_tmem());
  EXPECT_EQ(target_spec(ir::Arch::Sm80).shared_per_block_optin, 166912);
  EXPECT_EQ(target_spec(ir::Arch::Sm100a).target(), ir::Arch::Sm100a);
  EXPECT_EQ(target_spec(ir::Arch::Sm100a).tmem_columns, 512);
}

// Tiling seed: "Peak throughput: 312 TFLOPS (FP16 Tensor Core); HBM bandwidth: 2 TB/s",
// "~164 KB/SM"; its calculator shows 163 KB per block.
TEST(GpuSpecs, A100HasTheSeedsFigures) {
  const GpuSpec& a100 = gpu_spec("a100");
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_EQ(a100.hbm_bandwidth, 2.0e12);
  EXPECT_EQ(a100.peak.tensor_f16, 312e12);
  EXPECT_EQ(a100.shared_per_sm, 164 * 1024);
  EXPECT_EQ(a100.shared_per_block_optin, 166912);
  EXPECT_EQ(a100.l2_bytes, 40 * 1024 * 1024);
  EXPECT_EQ(a100.peak.tensor_f8, 0);
}

TEST(GpuSpecs, H200IsAnH100WithFasterMemory) {
  const GpuSpec &h100 = gpu_spec("h100"), &h200 = gpu_spec("h200");
  EXPECT_EQ(h100.hbm_bandwidth, 3.35e12);
  EXPECT_EQ(h200.hbm_bandwidth, 4.8e12);
  EXPECT_EQ(h200.sm_count, h100.sm_count);
  EXPECT_EQ(h100.l2_bytes, 50 * 1024 * 1024);
  EXPECT_EQ(h200.l2_bytes, 62914560);  // what an H200 reports
  EXPECT_EQ(h200.shared_per_block_optin, 227 * 1024);
  EXPECT_EQ(h200.peak.tensor_f16, h100.peak.tensor_f16);
  EXPECT_EQ(h200.peak.tensor_f8, h100.peak.tensor_f8);
}

TEST(GpuSpecs, PeakRatesByMathType) {
  const GpuSpec& h100 = gpu_spec("h100");
  EXPECT_EQ(peak_rate(h100, MathType::F16), 989.5e12);
  EXPECT_EQ(peak_rate(h100, MathType::F8), 1979e12);
  EXPECT_EQ(peak_rate(h100, MathType::F32), 67e12);
  EXPECT_EQ(error_of([] { peak_rate(gpu_spec("a100"), MathType::F8); }), "A100 (sm_80) has no f8 tensor cores");
}

TEST(GpuSpecs, MathTypes) {
  EXPECT_EQ(parse_math_type("BF16"), MathType::BF16);
  EXPECT_EQ(math_type_name(parse_math_type("tf32")), "tf32");
  EXPECT_EQ(input_bytes(MathType::F16), 2);
  EXPECT_EQ(input_bytes(MathType::TF32), 4);
  EXPECT_EQ(input_bytes(MathType::F8), 1);
  EXPECT_EQ(error_of([] { parse_math_type("f64"); }), "unknown dtype 'f64' (known: f16, bf16, tf32, f8, i8, f32)");
}

runtime::CudaDriver::DeviceInfo device(std::string name, int major, int minor, int sms, int optin) {
  runtime::CudaDriver::DeviceInfo info;
  info.name = std::move(name);
  info.cc_major = major;
  info.cc_minor = minor;
  info.sm_count = sms;
  info.max_shared_per_block_optin = optin;
  return info;
}

TEST(GpuSpecs, FromDeviceTakesTheDevicesPropertiesAndTheTablesRates) {
  const GpuSpec h200 = from_device(device("NVIDIA H200", 9, 0, 132, 232448));
  EXPECT_EQ(h200.key, "h200");
  EXPECT_EQ(h200.full_name(), "NVIDIA H200");
  EXPECT_EQ(h200.hbm_bandwidth, 4.8e12);
  ASSERT_EQ(h200.notes.size(), 1u);
  EXPECT_EQ(h200.notes[0],
            "SM count, compute capability and opt-in shared memory from the device; the rest from "
            "the table's H200 SXM 141GB");

  // A PCIe H100 has fewer SMs than the SXM part the table describes: the spec says so.
  const GpuSpec pcie = from_device(device("NVIDIA H100 PCIe", 9, 0, 114, 232448));
  EXPECT_EQ(pcie.key, "h100");
  EXPECT_EQ(pcie.sm_count, 114);
  ASSERT_EQ(pcie.notes.size(), 2u);
  EXPECT_EQ(pcie.notes[0],
            "the device is sm_90 with 114 SMs, the table's H100 SXM5 80GB sm_90 with 132: its "
            "bandwidth and peak rates are the table's and may not be this device's");

  EXPECT_EQ(from_device(device("NVIDIA A100-SXM4-40GB", 8, 0, 108, 166912)).key, "a100");
  EXPECT_EQ(from_device(device("NVIDIA B200", 10, 0, 148, 232448)).tmem_columns, 512);
  EXPECT_EQ(error_of([] { from_device(device("NVIDIA GeForce RTX 4090", 8, 9, 128, 101376)); }),
            "the GPU 'NVIDIA GeForce RTX 4090' (sm_89) is not in tessel's table (known: a100, h100, h200, b200); "
            "name one of those instead");
}

// With a GPU, the live device either is in the table or is refused with the reason.
TEST(GpuSpecs, LiveDevice) {
  auto& driver = runtime::CudaDriver::get();
  if (!driver.available()) GTEST_SKIP() << driver.unavailable_reason();
  const auto info = driver.device_info();
  try {
    const GpuSpec g = from_device(info);
    EXPECT_EQ(g.sm_count, info.sm_count);
    EXPECT_EQ(g.shared_per_block_optin, info.max_shared_per_block_optin);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not in tessel's table"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessel::analysis
