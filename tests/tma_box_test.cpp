// The shared-memory image of a TMA box against a host model of hw-semantics.md §3.2-3.3, for every
// swizzle and for boxes inside, partly outside and wholly outside the tensor; and the encoding
// rules of a tensor map, message by message.
#include <cstring>
#include <numeric>

#include <gtest/gtest.h>

#include "tessel/ir/tensor_map.hpp"
#include "tessel/runtime/tensor_maps.hpp"
#include "tessel/sim/simulator.hpp"
#include "tessel/sim/tma_box.hpp"

namespace tessel {
namespace {

// A row-major [rows, cols] f32 tensor of distinct values, registered as simulator global memory.
struct GlobalMatrix {
  GlobalMatrix(int rows, int cols, int pitch) : rows(rows), cols(cols), pitch(pitch), data(size_t(rows) * pitch) {
    std::iota(data.begin(), data.end(), 1.0f);
    sim::register_allocation(data.data(), data.size() * sizeof(float));
  }
  ~GlobalMatrix() { sim::unregister_allocation(data.data()); }
  ir::TensorMapValues map(std::array<uint32_t, 2> box, int swizzle_bytes) const {
    ir::TensorMapValues m;
    m.dtype = DType::F32;
    m.rank = 2;
    m.address = reinterpret_cast<uint64_t>(data.data());
    m.extents = {uint64_t(cols), uint64_t(rows)};
    m.strides = {4, int64_t(pitch) * 4};
    m.box = {box[0], box[1]};
    m.swizzle_bytes = swizzle_bytes;
    return m;
  }
  int rows, cols, pitch;
  std::vector<float> data;
};

// The host model: the element (r, x) of the box sits at byte r * pitch + x * 4 of a row-major
// image whose rows take a whole swizzle span when narrower; its 16-byte chunk inside the 128-byte
// line of the absolute address is exchanged for chunk ^ (line mod span/16).
int64_t model_byte(int64_t begin, int64_t r, int64_t x, int64_t row_bytes, int swizzle_bytes) {
  const int64_t pitch = swizzle_bytes > 0 && row_bytes < swizzle_bytes ? swizzle_bytes : row_bytes;
  const int64_t a = begin + r * pitch + x * 4;
  if (swizzle_bytes == 0) return a - begin;
  const int64_t chunk = (a / 16) % 8, line = a / 128;
  const int64_t moved = chunk ^ (line % (swizzle_bytes / 16));
  return a + (moved - chunk) * 16 - begin;
}

void check_image(const GlobalMatrix& g, std::array<uint32_t, 2> box, int swizzle_bytes, int64_t c0, int64_t c1,
                 int64_t begin) {
  const ir::TensorMapValues map = g.map(box, swizzle_bytes);
  const std::array<int64_t, 2> coords = {c0, c1};
  const sim::BoxImage image = sim::load_box_image(map, coords, begin, SourceLoc{});
  const int64_t row_bytes = int64_t(box[0]) * 4;
  const int64_t pitch = swizzle_bytes > 0 && row_bytes < swizzle_bytes ? swizzle_bytes : row_bytes;
  ASSERT_EQ(image.begin, begin);
  ASSERT_EQ(int64_t(image.bytes.size()), pitch * box[1]);
  std::vector<uint8_t> written(image.bytes.size(), 0);
  for (int64_t r = 0; r < box[1]; ++r)
    for (int64_t x = 0; x < box[0]; ++x) {
      const int64_t row = c1 + r, col = c0 + x;
      const bool inside = row >= 0 && row < g.rows && col >= 0 && col < g.cols;
      const float want = inside ? g.data[size_t(row * g.pitch + col)] : 0.0f;
      const int64_t at = model_byte(begin, r, x, row_bytes, swizzle_bytes);
      float got;
      std::memcpy(&got, &image.bytes[size_t(at)], 4);
      ASSERT_EQ(got, want) << "element (" << r << ", " << x << ") swizzle " << swizzle_bytes << " at (" << c1 << ", "
                           << c0 << ") from byte " << begin;
      std::memset(&written[size_t(at)], 1, 4);
    }
  EXPECT_EQ(image.written, written) << "the box writes exactly its elements; row padding keeps its old value";
  EXPECT_EQ(sim::box_element_mask(map, begin), written);
}

TEST(TmaBoxImage, MatchesTheHostModelForEverySwizzleInsideAndOutsideTheTensor) {
  const GlobalMatrix g(40, 44, 48);
  // (box columns, swizzle): rows as wide as the span, and rows narrower than it.
  const std::vector<std::pair<uint32_t, int>> shapes = {{8, 0},  {12, 0},   {8, 32},   {4, 32}, {16, 64},
                                                        {4, 64}, {32, 128}, {16, 128}, {8, 128}};
  const std::vector<std::pair<int64_t, int64_t>> corners = {
      {0, 0},   {4, 8},                              // inside
      {40, 36}, {-3, -5},                            // partly outside: right and bottom, negative coordinates
      {44, 0},  {0, 40},  {-40, -40}, {1000, 1000},  // wholly outside
  };
  for (const auto& [cols, swizzle] : shapes)
    for (const auto& [c0, c1] : corners)
      for (int64_t begin : {int64_t(0), int64_t(2048), int64_t(384)})  // the last one inside a swizzle repeat
        check_image(g, {cols, 8}, swizzle, c0, c1, begin);
}

TEST(TmaBoxImage, AStoreWritesTheElementsInsideTheTensorAndNothingElse) {
  const GlobalMatrix src(16, 32, 32);
  GlobalMatrix dst(20, 24, 24);
  std::fill(dst.data.begin(), dst.data.end(), -1.0f);
  const std::array<int64_t, 2> coords = {16, 12};  // a 32 x 8 box overhanging the 24 x 20 tensor
  const sim::BoxImage image = sim::load_box_image(src.map({32, 8}, 128), std::array<int64_t, 2>{0, 0}, 1024, {});
  std::vector<uint8_t> smem(1024 + image.bytes.size());
  std::copy(image.bytes.begin(), image.bytes.end(), smem.begin() + 1024);
  sim::store_box_image(dst.map({32, 8}, 128), coords, smem, 1024, {});
  for (int r = 0; r < dst.rows; ++r)
    for (int c = 0; c < dst.cols; ++c) {
      const bool in_box = r >= 12 && c >= 16;
      const float want = in_box ? src.data[size_t((r - 12) * 32 + (c - 16))] : -1.0f;
      ASSERT_EQ(dst.data[size_t(r * dst.pitch + c)], want) << r << ", " << c;
    }
}

TEST(TmaBoxImage, ReadingOutsideTheSimulatorsAllocationsIsReported) {
  GlobalMatrix g(8, 8, 8);
  ir::TensorMapValues map = g.map({8, 8}, 0);
  map.extents = {8, 1000};  // a map larger than its allocation
  EXPECT_THROW(sim::load_box_image(map, std::array<int64_t, 2>{0, 500}, 0, SourceLoc{"k.cpp", 3}), Error);
}

// ---- the encoding rules, checked before the driver sees them ----

ir::TensorMapValues valid_map() {
  ir::TensorMapValues m;
  m.dtype = DType::F16;
  m.rank = 2;
  m.address = 0x10000;
  m.extents = {64, 32};
  m.strides = {2, 128};
  m.box = {64, 16};
  m.swizzle_bytes = 128;
  return m;
}

std::string rule_broken(const ir::TensorMapValues& m) {
  try {
    ir::check_tensor_map(m, SourceLoc{"k.cpp", 7});
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TensorMapRules, EachRuleHasItsMessage) {
  EXPECT_EQ(rule_broken(valid_map()), "accepted");
  auto m = valid_map();
  m.rank = 6;
  EXPECT_EQ(rule_broken(m), "k.cpp:7: tma: a tensor map has 1 to 5 dimensions; this global view has 6");
  m = valid_map();
  m.address = 0x10008;
  EXPECT_EQ(rule_broken(m),
            "k.cpp:7: tma: the global view starts at address 0x10008, which is not 16-byte aligned; "
            "TMA needs a 16-byte aligned global address");
  m = valid_map();
  m.strides[0] = 4;
  EXPECT_EQ(rule_broken(m),
            "k.cpp:7: tma: the global view's last dimension has a stride of 2 elements; TMA needs it "
            "contiguous (stride 1)");
  m = valid_map();
  m.extents[1] = 0;
  EXPECT_EQ(rule_broken(m), "k.cpp:7: tma: dimension 0 of the global view has extent 0; TMA needs 1 to 2^32");
  m = valid_map();
  m.strides[1] = 120;
  EXPECT_EQ(rule_broken(m),
            "k.cpp:7: tma: dimension 0 of the global view has a stride of 120 bytes; TMA needs a "
            "positive multiple of 16 bytes");
  m = valid_map();
  m.strides[1] = int64_t(1) << 40;
  EXPECT_EQ(rule_broken(m),
            "k.cpp:7: tma: dimension 0 of the global view has a stride of 1099511627776 bytes; TMA "
            "needs less than 2^40");
  m = valid_map();
  m.box[1] = 257;
  EXPECT_EQ(rule_broken(m),
            "k.cpp:7: tma: the box has extent 257 in dimension 0; TMA boxes have 1 to 256 elements "
            "per dimension");
  m = valid_map();
  m.box[0] = 12;
  EXPECT_EQ(rule_broken(m),
            "k.cpp:7: tma: the box's rows are 24 bytes (12 elements of f16); TMA needs a multiple of "
            "16 bytes");
  m = valid_map();
  m.swizzle_bytes = 64;
  EXPECT_EQ(rule_broken(m),
            "k.cpp:7: tma: the box's rows are 128 bytes, wider than the 64-byte swizzle of the shared "
            "tile; TMA needs rows of at most 64 bytes: make the tile's last extent smaller or its "
            "swizzle wider");
}

// The launch path checks before it calls the driver, so a broken rule never comes back as a bare
// CUDA_ERROR_INVALID_VALUE (and needs no driver to be reported).
TEST(TensorMapRules, EncodingChecksTheRulesBeforeTheDriver) {
  auto m = valid_map();
  m.address = 0x10004;
  try {
    runtime::encode_tensor_map(m, SourceLoc{"k.cpp", 11});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.cpp:11: tma: the global view starts at address 0x10004, which is not 16-byte "
              "aligned; TMA needs a 16-byte aligned global address");
  }
}

// ---- the launch's cache of encoded maps ----

int encodings = 0;

// Stands in for the driver: the map's address in the first bytes.
runtime::EncodedTensorMap fake_encode(const ir::TensorMapValues& map, const SourceLoc&) {
  ++encodings;
  runtime::EncodedTensorMap out;
  std::memcpy(out.bytes.data(), &map.address, sizeof map.address);
  return out;
}

TEST(TensorMapCache, EncodesEachDistinctTensorOnceAndKeepsTheMostRecent) {
  auto n = ir::make_var(ir::Type{DType::I32}, "n");
  auto p = ir::make_var(ir::Type{DType::F32, true}, "p");
  auto view =
      ir::make<ir::GlobalTensorNode>(DType::F32, p, std::vector<ir::Expr>{n, ir::const_int(32)},
                                     std::vector<ir::Expr>{ir::const_int(32), ir::const_int(1)}, "g", SourceLoc{});
  ir::KernelNode k;
  k.params = {n, p};
  k.tensor_maps = {{view, {8, 32}, 0, SourceLoc{"k.cpp", 5}}};
  runtime::TensorMapEncoder encoder(k, fake_encode);
  const auto encode = [&](int64_t rows, int64_t address) {
    const std::vector<ir::Scalar> values = {{.i = rows}, {.i = address}};
    runtime::EncodedTensorMap out;
    encoder.encode(values, std::span(&out, 1));
    uint64_t got;
    std::memcpy(&got, out.bytes.data(), sizeof got);
    EXPECT_EQ(got, uint64_t(address));
  };
  encodings = 0;
  encode(64, 0x1000);
  encode(64, 0x1000);
  EXPECT_EQ(encodings, 1);
  encode(65, 0x1000);  // another shape
  encode(64, 0x2000);  // another tensor
  encode(64, 0x1000);
  EXPECT_EQ(encodings, 3);
  for (int64_t a = 0x3000; a < 0x7000; a += 0x1000) encode(64, a);  // four more push the first out
  EXPECT_EQ(encodings, 7);
  encode(64, 0x1000);
  EXPECT_EQ(encodings, 8);
  // A rule broken by the call is reported by the encoding at the map's line.
  try {
    encode(64, 0x1004);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("k.cpp:5: tma: the global view starts at address 0x1004", 0), 0u) << e.what();
  }
}

// Debug mode: a view whose last byte lies past the allocation its pointer is in is refused at the
// map's line before the launch.
TEST(TensorMapCache, DebugModeRefusesAViewPastItsAllocation) {
  auto n = ir::make_var(ir::Type{DType::I32}, "n");
  auto p = ir::make_var(ir::Type{DType::F32, true}, "p");
  auto view =
      ir::make<ir::GlobalTensorNode>(DType::F32, p, std::vector<ir::Expr>{n, ir::const_int(32)},
                                     std::vector<ir::Expr>{ir::const_int(32), ir::const_int(1)}, "g", SourceLoc{});
  ir::KernelNode k;
  k.params = {n, p};
  k.tensor_maps = {{view, {8, 32}, 0, SourceLoc{"k.cpp", 5}}};
  const runtime::TensorMapEncoder encoder(k, fake_encode);
  // 64 rows of 32 floats from 0x1000.
  const auto allocation_of = [](uint64_t) { return runtime::AllocationRange{0x1000, 0x1000 + 64 * 32 * 4}; };
  const auto check = [&](int64_t rows, int64_t address) -> std::string {
    try {
      encoder.check_allocations(std::vector<ir::Scalar>{{.i = rows}, {.i = address}}, allocation_of);
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(check(64, 0x1000), "accepted");
  EXPECT_EQ(check(63, 0x1000 + 128), "accepted");
  EXPECT_EQ(check(65, 0x1000),
            "k.cpp:5: debug mode: the global view that TMA accesses here spans 8320 bytes from its pointer, but the "
            "allocation the pointer lies in ends 8192 bytes after it; check the global_view's shape and strides "
            "against the buffer");
  EXPECT_EQ(check(64, 0x1000 + 128)
                .rfind("k.cpp:5: debug mode: the global view that TMA accesses here spans 8192 "
                       "bytes from its pointer, but the allocation the pointer lies in ends 8064",
                       0),
            0u);
}

TEST(TensorMapRules, SharedAddressesAreAlignedToTheSwizzleRepeat) {
  const auto broken = [](int64_t byte, int swizzle) -> std::string {
    try {
      ir::check_tma_shared_address(byte, swizzle, SourceLoc{"k.cpp", 9});
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(broken(1024, 128), "accepted");
  EXPECT_EQ(broken(384, 0), "accepted");
  EXPECT_EQ(broken(256, 32), "accepted");
  EXPECT_EQ(broken(200, 0),
            "k.cpp:9: tma: the shared tile starts at byte 200 of shared memory; TMA needs a 128-byte aligned shared "
            "address");
  EXPECT_EQ(broken(512, 128),
            "k.cpp:9: tma: the shared tile starts at byte 512 of shared memory, inside a repeat of its 128-byte "
            "swizzle; a swizzled tile must start on a 1024-byte boundary so that TMA writes the tile's pattern");
}

}  // namespace
}  // namespace tessel
