// The roofline SVG: well-formed, labelled, with every coordinate finite and on the canvas.
#include "tessel/analysis/roofline_chart.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <vector>

#include <gtest/gtest.h>

#include "tessel/error.hpp"

namespace tessel::analysis {
namespace {

RooflineChart a100_chart() {
  return {.title = "Roofline: A100",
          .bandwidth = 2e12,
          .roofs = {{"f16 tensor", 312e12}, {"f32 SIMT", 19.5e12}},
          .points = {{"tiled 128x128", 64, 94e12}, {"naive <K>", 0.5, 6e12}}};
}

// Tags open and close in order, attribute values are quoted, no stray '<' or '&'.
::testing::AssertionResult well_formed(const std::string& svg) {
  std::vector<std::string> open;
  size_t i = 0;
  while ((i = svg.find('<', i)) != std::string::npos) {
    const size_t end = svg.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unterminated tag at " << i;
    const std::string tag = svg.substr(i + 1, end - i - 1);
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0 || tag.find('<') != std::string::npos)
      return ::testing::AssertionFailure() << "bad tag <" << tag << ">";
    const std::string name = tag.substr(tag[0] == '/', tag.find_first_of(" />", 1) - (tag[0] == '/'));
    if (tag[0] == '/') {
      if (open.empty() || open.back() != name)
        return ::testing::AssertionFailure() << "</" << name << "> closes " << (open.empty() ? "nothing" : open.back());
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
    const size_t next = svg.find('<', end);
    const std::string content = svg.substr(end + 1, next == std::string::npos ? std::string::npos : next - end - 1);
    for (size_t amp = content.find('&'); amp != std::string::npos; amp = content.find('&', amp + 1))
      if (!std::regex_search(content.substr(amp), std::regex("^&(amp|lt|gt|quot|apos);")))
        return ::testing::AssertionFailure() << "unescaped & in " << content;
    i = end;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> is never closed";
  return ::testing::AssertionSuccess();
}

TEST(RooflineChart, IsAWellFormedSvgDocument) {
  const std::string svg = roofline_svg(a100_chart());
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_TRUE(well_formed(svg));
}

TEST(RooflineChart, HasTitleAxesLegendRidgeAndPoints) {
  const std::string svg = roofline_svg(a100_chart());
  for (const char* s :
       {">Roofline: A100</text>", ">Arithmetic intensity (FLOP/byte)</text>", ">Performance (FLOP/s)</text>",
        ">memory: 2 TB/s</text>", ">f16 tensor: 312 TFLOP/s, ridge 156 FLOP/B</text>", ">ridge 156 FLOP/B</text>",
        ">ridge 9.75 FLOP/B</text>", ">f32 SIMT: 19.5 TFLOP/s, ridge 9.75 FLOP/B</text>",
        ">tiled 128x128 (64 FLOP/B, 94 TFLOP/s)</text>", ">naive &lt;K&gt; (0.5 FLOP/B, 6 TFLOP/s)</text>",
        ">measured</text>", ">100 TFLOP/s</text>", ">1000</text>", ">0.1</text>"})
    EXPECT_NE(svg.find(s), std::string::npos) << s;
}

std::vector<double> attribute_values(const std::string& svg, const std::string& attribute) {
  std::vector<double> values;
  const std::regex re(" " + attribute + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    values.push_back(std::stod((*it)[1].str()));
  return values;
}

TEST(RooflineChart, CoordinatesAreFiniteAndOnTheCanvas) {
  const std::string svg = roofline_svg(a100_chart());
  for (const char* axis : {"x", "x1", "x2", "cx"})
    for (double v : attribute_values(svg, axis)) {
      EXPECT_TRUE(std::isfinite(v)) << axis;
      EXPECT_TRUE(v >= 0 && v <= 960) << axis << " = " << v;
    }
  for (const char* axis : {"y", "y1", "y2", "cy"})
    for (double v : attribute_values(svg, axis)) {
      EXPECT_TRUE(std::isfinite(v)) << axis;
      EXPECT_TRUE(v >= 0 && v <= 640) << axis << " = " << v;
    }
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

// A kernel exactly at the ridge point is drawn on the ridge point's ring.
TEST(RooflineChart, PointsSitWhereTheRoofsSayTheyShould) {
  RooflineChart c = a100_chart();
  c.points = {{"at the ridge", 156, 312e12}};
  const std::string svg = roofline_svg(c);
  const std::vector<double> cx = attribute_values(svg, "cx"), cy = attribute_values(svg, "cy");
  ASSERT_EQ(cx.size(), 4u);  // two ridge rings, the legend's dot, the point
  EXPECT_NEAR(cx[3], cx[0], 1e-6);
  EXPECT_NEAR(cy[3], cy[0], 1e-6);

  std::smatch memory;
  ASSERT_TRUE(std::regex_search(
      svg, memory, std::regex(R"re(<line x1="([^"]*)" y1="([^"]*)" x2="([^"]*)" y2="([^"]*)" stroke="#555")re")));
  // The memory roof rises to the highest ridge point and ends there.
  EXPECT_NEAR(std::stod(memory[3]), cx[0], 1e-6);
  EXPECT_NEAR(std::stod(memory[4]), cy[0], 1e-6);
}

TEST(RooflineChart, BadInputIsAUserError) {
  auto message = [](RooflineChart c) {
    try {
      roofline_svg(c);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  RooflineChart c = a100_chart();
  c.roofs.clear();
  EXPECT_EQ(message(c), "roofline chart: no compute roof to draw");
  c = a100_chart();
  c.bandwidth = 0;
  EXPECT_EQ(message(c), "roofline chart: the bandwidth must be positive, got 0");
  c = a100_chart();
  c.points.push_back({"broken", NAN, 1e12});
  EXPECT_EQ(message(c), "roofline chart: the intensity of 'broken' must be positive, got nan");
  c = a100_chart();
  c.roofs.push_back({"infinite", INFINITY});
  EXPECT_EQ(message(c), "roofline chart: the peak of 'infinite' must be positive, got inf");
}

}  // namespace
}  // namespace tessel::analysis
