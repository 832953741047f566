// Feature importances drawn for people: a bar chart in text for the terminal
// and one in SVG for a report. Rendering only; the caller prints or writes.
#pragma once

#include <string>
#include <vector>

namespace perfcast::learn {

struct Bar {
  std::string label;
  double value = 0;  // 0..1
};

// One line per bar, largest first: the label, the value in percent and a bar
// of up to `width` characters.
std::string text_bar_chart(std::vector<Bar> bars, size_t width = 40);

// A standalone SVG document of horizontal bars, largest first, with a title.
std::string svg_bar_chart(std::vector<Bar> bars, const std::string& title);

}  // namespace perfcast::learn
