#include "tessel/analysis/roofline_chart.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "tessel/analysis/tile_analysis.hpp"
#include "tessel/error.hpp"

namespace tessel::analysis {

namespace {

constexpr double kWidth = 960, kHeight = 640;
constexpr double kLeft = 130, kRight = 40, kTop = 60, kBottom = 80;
constexpr double kPlotRight = kWidth - kRight, kPlotBottom = kHeight - kBottom;
constexpr const char* kMemoryColor = "#555";
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

void check_value(const std::string& what, double v) {
  if (!(v > 0) || !std::isfinite(v)) throw Error(fmt::format("roofline chart: {} must be positive, got {:g}", what, v));
}

std::string escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&apos;"; break;
      default: r += c;
    }
  }
  return r;
}

// 33.4e12 -> "33.4 T"
std::string si(double v) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (i < 6 && std::abs(v) >= 1000) v /= 1000, ++i;
  return fmt::format("{:.4g} {}", v, prefixes[i]);
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attributes) {
  return fmt::format(R"(<line x1="{:.2f}" y1="{:.2f}" x2="{:.2f}" y2="{:.2f}" {}/>)"
                     "\n",
                     x1, y1, x2, y2, attributes);
}

// `content` is escaped here.
std::string text(double x, double y, const std::string& attributes, const std::string& content) {
  return fmt::format(R"(<text x="{:.2f}" y="{:.2f}" {}>{}</text>)"
                     "\n",
                     x, y, attributes, escape(content));
}

std::string dot(double x, double y, double r, const std::string& attributes) {
  return fmt::format(R"(<circle cx="{:.2f}" cy="{:.2f}" r="{}" {}/>)"
                     "\n",
                     x, y, r, attributes);
}

// Log-log axes over whole decades, [10^x0, 10^x1] x [10^y0, 10^y1], mapped to the plot area.
struct Axes {
  double x0, x1, y0, y1;
  double px(double x) const { return kLeft + (std::log10(x) - x0) / (x1 - x0) * (kPlotRight - kLeft); }
  double py(double y) const { return kPlotBottom - (std::log10(y) - y0) / (y1 - y0) * (kPlotBottom - kTop); }
  double x_min() const { return std::pow(10.0, x0); }
  double x_max() const { return std::pow(10.0, x1); }
};

// Room left of the lowest ridge point for the memory roof, right of the highest for the flat
// roofs, above the highest peak for the legend; every point inside.
Axes axes_for(const RooflineChart& c) {
  double x_lo = HUGE_VAL, x_hi = 0, y_hi = 0;
  for (const RooflineRoof& r : c.roofs) {
    const double ridge = ridge_point(r.peak, c.bandwidth);
    x_lo = std::min(x_lo, ridge / 10);
    x_hi = std::max(x_hi, ridge * 10);
    y_hi = std::max(y_hi, r.peak * 2);
  }
  for (const RooflinePoint& p : c.points) {
    x_lo = std::min(x_lo, p.intensity);
    x_hi = std::max(x_hi, p.intensity * 2);
    y_hi = std::max(y_hi, p.flops * 2);
  }
  const double x0 = std::floor(std::log10(x_lo));
  double y_lo = c.bandwidth * std::pow(10.0, x0);
  for (const RooflinePoint& p : c.points) y_lo = std::min(y_lo, p.flops);
  return {x0, std::ceil(std::log10(x_hi)), std::floor(std::log10(y_lo)), std::ceil(std::log10(y_hi))};
}

// Grid lines and labels at each decade, unlabelled ticks at 2..9 times it, axis titles.
std::string draw_axes(const Axes& a) {
  std::string out;
  for (int d = int(a.x0); d <= int(a.x1); ++d) {
    const double x = a.px(std::pow(10.0, d));
    out += line(x, kTop, x, kPlotBottom, R"(class="grid")");
    out += text(x, kPlotBottom + 20, R"(text-anchor="middle")", fmt::format("{:g}", std::pow(10.0, d)));
    for (int m = 2; d < int(a.x1) && m <= 9; ++m) {
      const double xm = a.px(m * std::pow(10.0, d));
      out += line(xm, kPlotBottom, xm, kPlotBottom + 4, R"(class="axis")");
    }
  }
  for (int d = int(a.y0); d <= int(a.y1); ++d) {
    const double y = a.py(std::pow(10.0, d));
    out += line(kLeft, y, kPlotRight, y, R"(class="grid")");
    out += text(kLeft - 8, y + 4, R"(text-anchor="end")", si(std::pow(10.0, d)) + "FLOP/s");
    for (int m = 2; d < int(a.y1) && m <= 9; ++m) {
      const double ym = a.py(m * std::pow(10.0, d));
      out += line(kLeft - 4, ym, kLeft, ym, R"(class="axis")");
    }
  }
  out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" class="frame"/>)"
                     "\n",
                     kLeft, kTop, kPlotRight - kLeft, kPlotBottom - kTop);
  out += text((kLeft + kPlotRight) / 2, kHeight - 25, R"(text-anchor="middle" class="label")",
              "Arithmetic intensity (FLOP/byte)");
  const double mid = (kTop + kPlotBottom) / 2;
  out +=
      text(25, mid, fmt::format(R"svg(text-anchor="middle" class="label" transform="rotate(-90 25 {:.2f})")svg", mid),
           "Performance (FLOP/s)");
  return out;
}

using LegendEntries = std::vector<std::pair<std::string, std::string>>;  // colour, text

// Each roof is min(peak, bandwidth * intensity). The memory slope is common to all of them: it is
// drawn once, up to the highest ridge point, and each compute roof runs flat from its own.
std::string draw_roofs(const RooflineChart& c, const Axes& a, LegendEntries& legend) {
  std::string out;
  double top_ridge = 0;
  for (const RooflineRoof& r : c.roofs) top_ridge = std::max(top_ridge, ridge_point(r.peak, c.bandwidth));
  out += line(a.px(a.x_min()), a.py(c.bandwidth * a.x_min()), a.px(top_ridge), a.py(c.bandwidth * top_ridge),
              fmt::format(R"(stroke="{}" stroke-width="2.5")", kMemoryColor));
  legend.emplace_back(kMemoryColor, fmt::format("memory: {}B/s", si(c.bandwidth)));
  for (size_t i = 0; i < c.roofs.size(); ++i) {
    const RooflineRoof& r = c.roofs[i];
    const std::string color = kColors[i % std::size(kColors)];
    const double ridge = ridge_point(r.peak, c.bandwidth);
    const double x = a.px(ridge), y = a.py(r.peak);
    out += line(x, y, a.px(a.x_max()), y, fmt::format(R"(stroke="{}" stroke-width="2.5")", color));
    // The ridge point: a ring, and a dashed drop line to the intensity axis labelled up from its foot.
    out += line(x, y, x, kPlotBottom, fmt::format(R"(stroke="{}" stroke-width="1.5" stroke-dasharray="5,4")", color));
    out += dot(x, y, 5, fmt::format(R"(fill="white" stroke="{}" stroke-width="2")", color));
    out += text(x - 5, kPlotBottom - 6,
                fmt::format(R"svg(fill="{}" class="halo" transform="rotate(-90 {:.2f} {:.2f})")svg", color, x - 5,
                            kPlotBottom - 6),
                fmt::format("ridge {:.4g} FLOP/B", ridge));
    legend.emplace_back(color, fmt::format("{}: {}FLOP/s, ridge {:.4g} FLOP/B", r.label, si(r.peak), ridge));
  }
  return out;
}

// In the top-left corner, which the rising memory roof leaves empty.
std::string draw_legend(const LegendEntries& entries, bool points) {
  size_t longest = 8;
  for (const auto& e : entries) longest = std::max(longest, e.second.size());
  const size_t rows = entries.size() + (points ? 1 : 0);
  std::string out = fmt::format(
      R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="white" fill-opacity="0.9" stroke="#bbb"/>)"
      "\n",
      kLeft + 8, kTop + 8, 60 + 7.5 * longest, 20.0 * rows + 10);
  double y = kTop + 30;
  for (const auto& [color, label] : entries) {
    out += line(kLeft + 16, y - 4, kLeft + 46, y - 4, fmt::format(R"(stroke="{}" stroke-width="3")", color));
    out += text(kLeft + 54, y, "", label);
    y += 20;
  }
  if (points) {
    out += dot(kLeft + 31, y - 4, 6, R"(fill="#111")");
    out += text(kLeft + 54, y, "", "measured");
  }
  return out;
}

std::string draw_points(const RooflineChart& c, const Axes& a) {
  std::string out;
  for (const RooflinePoint& p : c.points) {
    const double x = a.px(p.intensity), y = a.py(p.flops);
    out += dot(x, y, 6, R"(fill="#111")");
    // Labels go below their points, away from the roofs above, unless that leaves the plot; in
    // the right part of the plot they extend to the left.
    const bool leftwards = x > kLeft + 0.6 * (kPlotRight - kLeft);
    const double label_y = y + 22 < kPlotBottom - 4 ? y + 22 : y - 10;
    out += text(leftwards ? x - 10 : x + 10, label_y,
                fmt::format(R"(text-anchor="{}" class="halo")", leftwards ? "end" : "start"),
                fmt::format("{} ({:.4g} FLOP/B, {}FLOP/s)", p.label, p.intensity, si(p.flops)));
  }
  return out;
}

}  // namespace

std::string roofline_svg(const RooflineChart& c) {
  if (c.roofs.empty()) throw Error("roofline chart: no compute roof to draw");
  check_value("the bandwidth", c.bandwidth);
  for (const RooflineRoof& r : c.roofs) check_value(fmt::format("the peak of '{}'", r.label), r.peak);
  for (const RooflinePoint& p : c.points) {
    check_value(fmt::format("the intensity of '{}'", p.label), p.intensity);
    check_value(fmt::format("the performance of '{}'", p.label), p.flops);
  }
  const Axes a = axes_for(c);

  std::string out =
      fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}">)"
                  "\n",
                  kWidth, kHeight);
  out +=
      "<style>\n"
      "  text { font-family: sans-serif; font-size: 13px; fill: #222; }\n"
      "  .title { font-size: 18px; font-weight: bold; }\n"
      "  .label { font-size: 15px; }\n"
      "  .grid { stroke: #ddd; stroke-width: 1; }\n"
      "  .axis { stroke: #444; stroke-width: 1; }\n"
      "  .frame { fill: none; stroke: #444; stroke-width: 1; }\n"
      "  .halo { paint-order: stroke; stroke: white; stroke-width: 4px; stroke-linejoin: round; }\n"
      "</style>\n";
  out += fmt::format(R"(<rect width="{}" height="{}" fill="white"/>)"
                     "\n",
                     kWidth, kHeight);
  out += text(kWidth / 2, 32, R"(text-anchor="middle" class="title")", c.title);
  out += draw_axes(a);
  LegendEntries legend;
  out += draw_roofs(c, a, legend);
  out += draw_legend(legend, !c.points.empty());
  out += draw_points(c, a);  // last, so that their labels stay on top
  out += "</svg>\n";
  return out;
}

}  // namespace tessel::analysis
