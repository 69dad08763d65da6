// A roofline chart as a self-contained SVG document: log-log axes of arithmetic intensity
// (FLOP/B) against performance (FLOP/s), the memory roof, one compute roof per math type with
// its ridge point, and measured kernels as labelled points.
#pragma once

#include <string>
#include <vector>

namespace tessel::analysis {

struct RooflineRoof {
  std::string label;  // "f16 tensor"
  double peak = 0;    // FLOP/s
};

struct RooflinePoint {
  std::string label;     // "matmul_simt"
  double intensity = 0;  // FLOP/B
  double flops = 0;      // achieved FLOP/s
};

struct RooflineChart {
  std::string title;
  double bandwidth = 0;  // bytes/s
  std::vector<RooflineRoof> roofs;
  std::vector<RooflinePoint> points;
};

// The SVG text. Throws tessel::Error when there is no roof or a number is not positive and finite.
std::string roofline_svg(const RooflineChart& chart);

}  // namespace tessel::analysis
