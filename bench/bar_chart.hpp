// A grouped bar chart as a standalone SVG: one panel per series group (e.g. per dtype), one
// cluster of bars per label, one bar per series — the shape of the seeds' tutorial plots.
#pragma once

#include <string>
#include <vector>

namespace tessel::bench {

struct BarPanel {
  std::string title;                        // "fp16"
  std::vector<std::string> labels;          // one per cluster: "4096x4096x4096"
  std::vector<std::string> series;          // one per bar in a cluster: "tessel", "cuBLAS"
  std::vector<std::vector<double>> values;  // values[series][label]
};

std::string bar_chart_svg(const std::string& title, const std::string& y_label, const std::vector<BarPanel>& panels);

}  // namespace tessel::bench
