#include "learn/charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "support/markup.h"

namespace perfcast::learn {

namespace {

void sort_bars(std::vector<Bar>& bars) {
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.value > b.value; });
}

}  // namespace

std::string text_bar_chart(std::vector<Bar> bars, size_t width) {
  sort_bars(bars);
  size_t label_width = 0;
  double largest = 0;
  for (const auto& b : bars) {
    label_width = std::max(label_width, b.label.size());
    largest = std::max(largest, b.value);
  }
  std::string out;
  for (const auto& b : bars) {
    // Eighths of a character cell, so small differences still show.
    size_t eighths =
        largest > 0 ? static_cast<size_t>(std::lround(b.value / largest * static_cast<double>(width * 8))) : 0;
    std::string bar;
    for (size_t i = 0; i < eighths / 8; ++i) bar += "█";
    static const char* partial[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    bar += partial[eighths % 8];
    out += fmt::format("{:<{}}  {:6.2f} %  {}\n", b.label, label_width, 100 * b.value, bar);
  }
  return out;
}

std::string svg_bar_chart(std::vector<Bar> bars, const std::string& title) {
  sort_bars(bars);
  const int row_height = 22, top = 40, label_width = 220, bar_width = 400, right = 80;
  const int height = top + row_height * static_cast<int>(bars.size()) + 20;
  const int width = label_width + bar_width + right;
  double largest = 0;
  for (const auto& b : bars) largest = std::max(largest, b.value);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
      width, height, xml_escaped(title));
  for (size_t i = 0; i < bars.size(); ++i) {
    int y = top + row_height * static_cast<int>(i);
    double w = largest > 0 ? bars[i].value / largest * bar_width : 0;
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", label_width - 8, y + 15,
                       xml_escaped(bars[i].label));
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#4477aa\"/>\n", label_width,
                       y + 3, w, row_height - 6);
    out +=
        fmt::format("<text x=\"{:.1f}\" y=\"{}\">{:.2f} %</text>\n", label_width + w + 6, y + 15, 100 * bars[i].value);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace perfcast::learn
