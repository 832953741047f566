#include "report/table.h"

#include <algorithm>

namespace perfcast::report {

namespace {
// Display width: counts UTF-8 code points, not bytes, so "µs" lines up.
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}
}  // namespace

Table::Table(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  align_.resize(headers_.size(), Align::Right);
  if (!align_.empty() && align.empty()) align_[0] = Align::Left;
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void Table::add_separator() { rows_.emplace_back(); }

std::string Table::render() const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) width[c] = display_width(headers_[c]);
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string pad(width[c] - display_width(cells[c]), ' ');
      if (c) out += "  ";
      out += align_[c] == Align::Left ? cells[c] + (c + 1 == cells.size() ? "" : pad) : pad + cells[c];
    }
    return out + "\n";
  };
  size_t total = 0;
  for (size_t w : width) total += w;
  total += 2 * (width.empty() ? 0 : width.size() - 1);
  std::string rule(total, '-');

  std::string out = line(headers_) + rule + "\n";
  for (const auto& row : rows_) out += row.empty() ? rule + "\n" : line(row);
  return out;
}

}  // namespace perfcast::report
