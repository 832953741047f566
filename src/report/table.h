// Plain-text tables for people. Figures are computed once by the caller and
// given both to a Table and to a JSON document, so the two cannot disagree.
#pragma once

#include <string>
#include <vector>

namespace perfcast::report {

class Table {
 public:
  enum class Align { Left, Right };

  explicit Table(std::vector<std::string> headers, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);
  void add_separator();
  std::string render() const;  // aligned columns, header underlined, newline-terminated

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a separator
};

}  // namespace perfcast::report
