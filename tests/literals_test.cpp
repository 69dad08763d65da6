// A C++ literal takes the type of the tile or kernel value it meets; one that type cannot hold is
// refused at its line instead of changing its value, and one it holds computes as written.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "source_line.hpp"
#include "tessel/tessel.hpp"

namespace tessel::testing {
namespace {

// Mode 0 writes y = (x * 2.0f) & -1 + (x8 & 0xff) + h + (x > 0 ? 1 : 0), all of which the types
// hold; modes 1 to 9 each write one literal that its operand's type cannot hold.
struct LiteralsOfTiles : Script {
  int mode = 0;
  void operator()(Ptr<int32_t> x, Ptr<int8_t> x8, Ptr<f16> h, Ptr<int32_t> y) {
    attrs.blocks = 1;
    attrs.warps = 1;
    auto t = load_global(global_view(x, {64}), {0}, {64});
    auto t8 = load_global(global_view(x8, {64}), {0}, {64});
    auto th = load_global(global_view(h, {64}), {0}, {64});
    if (mode == 1) t = t * 1.5f;   // a fraction in an i32 tile
    if (mode == 2) t8 = t8 + 300;  // beyond an i8
    if (mode == 3) t = register_tensor<int32_t>({64}, 2.5f);
    if (mode == 4) th = th + 70000;  // beyond an f16's largest finite value
    if (mode == 5) {
      Int32 n = 256;
      store_global(global_view(y, {64}), t + Expr<int32_t>(n * 1.5f), {0});
      return;
    }
    if (mode == 6) t8 = where(t8 < 200, t8, t8 + 1);  // 200 is no i8, though its bits are
    if (mode == 7) t8 = load_global(global_view(x8, {60}), {0}, {64}, Layout{}, 300);
    if (mode == 8) th = (th.to<f8e4m3>() * 1000.0f).to<f16>();  // beyond an f8e4m3's largest finite value
    if (mode == 9) {
      Int32 n = 7;
      if_(n < 3000000000LL, [&] { store_global(global_view(y, {64}), t, {0}); });
      return;
    }
    store_global(global_view(y, {64}),
                 (t * 2.0f & -1) + (t8 & 0xff).to<int32_t>() + th.to<int32_t>() + where(t > 0, 1, 0), {0});
  }
};

template <int Mode> struct LiteralsOfTilesIn : LiteralsOfTiles {
  LiteralsOfTilesIn() { mode = Mode; }
};

// The message refusing `literal` at `statement`: on a tile of `type` it would become `becomes`.
std::string refusal(const std::string& statement, const std::string& literal, const std::string& type,
                    const std::string& becomes) {
  return source_at("tests/literals_test.cpp", statement) + ": the literal " + literal + " meets a tile of " + type +
         ", whose type a C++ literal takes, and would become " + becomes +
         "; convert the tile with .to<T>() first, or write a literal that fits " + type;
}

TEST(Literals, ALiteralATypeCannotHoldIsRefusedAtItsLine) {
  const Device dev = Device::simulator();
  Buffer<int32_t> x(dev, 64), y(dev, 64);
  Buffer<int8_t> x8(dev, 64);
  Buffer<f16> h(dev, 64);
  EXPECT_EQ(error_of<LiteralsOfTilesIn<1>>(x, x8, h, y), refusal("t = t * 1.5f;", "1.5", "i32", "1"));
  EXPECT_EQ(error_of<LiteralsOfTilesIn<2>>(x, x8, h, y), refusal("t8 = t8 + 300;", "300", "i8", "44"));
  // An initial value: there is no tile to convert yet.
  EXPECT_EQ(error_of<LiteralsOfTilesIn<3>>(x, x8, h, y),
            source_at("tests/literals_test.cpp", "register_tensor<int32_t>({64}, 2.5f)") +
                ": register_tensor<i32>: the initial value 2.5 would become 2 in a tile of i32; give a value that "
                "i32 holds, or create the tile with a type that holds 2.5");
  EXPECT_EQ(error_of<LiteralsOfTilesIn<4>>(x, x8, h, y), refusal("th = th + 70000;", "70000", "f16", "inf"));
  EXPECT_EQ(error_of<LiteralsOfTilesIn<5>>(x, x8, h, y),
            "kernel LiteralsOfTilesIn_5: the literal 1.5 meets a kernel value of i32, whose type a C++ literal "
            "takes, and would become 1; convert the kernel value with cast<T>() first, or write a literal that "
            "fits i32");
  EXPECT_EQ(error_of<LiteralsOfTilesIn<6>>(x, x8, h, y), refusal("t8 = where(t8 < 200", "200", "i8", "-56"));
  EXPECT_EQ(error_of<LiteralsOfTilesIn<7>>(x, x8, h, y),
            source_at("tests/literals_test.cpp", "Layout{}, 300)") +
                ": load_global: the fill 300 is no i8 and would become 44; give a fill that i8 holds");
  EXPECT_EQ(error_of<LiteralsOfTilesIn<8>>(x, x8, h, y), refusal("* 1000.0f", "1000", "f8e4m3", "448"));
  EXPECT_EQ(error_of<LiteralsOfTilesIn<9>>(x, x8, h, y),
            "kernel LiteralsOfTilesIn_9: the literal 3000000000 meets a kernel value of i32, whose type a C++ literal "
            "takes, and would become -1294967296; convert the kernel value with cast<T>() first, or write a literal "
            "that fits i32");
}

TEST(Literals, LiteralsTheTypesHoldComputeAsWritten) {
  const Device dev = Device::simulator();
  std::vector<int32_t> xs(64), want(64);
  std::vector<int8_t> x8s(64);
  std::vector<f16> hs(64);
  for (int i = 0; i < 64; ++i) {
    xs[size_t(i)] = 37 * i - 1000;
    x8s[size_t(i)] = int8_t(5 * i - 120);
    hs[size_t(i)] = f16(float(3 * i) - 50.0f);
    want[size_t(i)] = xs[size_t(i)] * 2 + x8s[size_t(i)] + (3 * i - 50) + (xs[size_t(i)] > 0 ? 1 : 0);
  }
  Buffer<int32_t> x(dev, xs), y(dev, std::vector<int32_t>(64, -7));
  Buffer<int8_t> x8(dev, x8s);
  Buffer<f16> h(dev, hs);
  Kernel<LiteralsOfTilesIn<0>> k(dev);
  k(x, x8, h, y);
  EXPECT_EQ(y.download(), want);
}

}  // namespace
}  // namespace tessel::testing
