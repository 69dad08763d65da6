#include "bar_chart.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace tessel::bench {

namespace {

constexpr int kWidth = 960, kPanelHeight = 320, kLeft = 70, kRight = 20, kTop = 50, kBottom = 90;
constexpr const char* kColors[] = {"#3b6fb6", "#d9822b", "#5aa469", "#b5485d"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// A round axis maximum: 1, 2 or 5 times a power of ten, at least `v`.
double nice_ceiling(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

}  // namespace

std::string bar_chart_svg(const std::string& title, const std::string& y_label, const std::vector<BarPanel>& panels) {
  const int height = kTop + int(panels.size()) * (kPanelHeight + kBottom);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"24\" font-size=\"17\" text-anchor=\"middle\">{}</text>\n",
      kWidth, height, kWidth / 2, escape(title));
  for (size_t p = 0; p < panels.size(); ++p) {
    const BarPanel& panel = panels[p];
    const int top = kTop + int(p) * (kPanelHeight + kBottom);
    const int plot_w = kWidth - kLeft - kRight;
    double peak = 0;
    for (const auto& s : panel.values)
      for (double v : s) peak = std::max(peak, v);
    const double y_max = nice_ceiling(peak);
    auto y_of = [&](double v) { return top + kPanelHeight - v / y_max * kPanelHeight; };
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", kLeft, top - 8,
                       escape(panel.title));
    for (int t = 0; t <= 5; ++t) {
      const double v = y_max * t / 5;
      svg += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", kLeft,
                         kLeft + plot_w, y_of(v), y_of(v));
      svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", kLeft - 6, y_of(v) + 4, v);
    }
    svg += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                       top + kPanelHeight / 2, escape(y_label));
    const size_t n = panel.labels.size(), k = panel.series.size();
    const double cluster = double(plot_w) / double(std::max<size_t>(n, 1));
    const double bar = cluster * 0.8 / double(std::max<size_t>(k, 1));
    for (size_t i = 0; i < n; ++i) {
      const double x0 = kLeft + cluster * double(i) + cluster * 0.1;
      for (size_t s = 0; s < k; ++s) {
        const double v = panel.values[s][i];
        svg += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{} "
            "{}: {:.1f}</title></rect>\n",
            x0 + bar * double(s), y_of(v), bar * 0.95, top + kPanelHeight - y_of(v), kColors[s % 4],
            escape(panel.series[s]), escape(panel.labels[i]), v);
      }
      const double cx = x0 + cluster * 0.4;
      svg += fmt::format("<text transform=\"translate({:.1f},{}) rotate(35)\" font-size=\"11\">{}</text>\n", cx,
                         top + kPanelHeight + 14, escape(panel.labels[i]));
    }
    for (size_t s = 0; s < k; ++s)
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}"
          "</text>\n",
          kWidth - kRight - 200 + int(s) * 100, top - 20, kColors[s % 4], kWidth - kRight - 184 + int(s) * 100,
          top - 10, escape(panel.series[s]));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace tessel::bench
