// Errors perfcast reports to its user.
//
// Libraries never print: they throw UserError, and the driver (src/cli/main.cpp)
// prints it once and exits 1. A UserError says where (file, line, field) and what
// was expected, and may carry a hint naming the flag or field to change.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace perfcast {

struct SourceLocation {
  std::string file;          // empty when the input is not a file
  std::optional<int> line;   // 1-based
  std::string field;         // dotted key, e.g. "network.bandwidth"
};

class UserError : public std::runtime_error {
 public:
  explicit UserError(std::string message, SourceLocation where = {}, std::string hint = {})
      : std::runtime_error(format(message, where)), where_(std::move(where)), hint_(std::move(hint)) {}

  const SourceLocation& where() const { return where_; }
  const std::string& hint() const { return hint_; }

 private:
  static std::string format(const std::string& message, const SourceLocation& where) {
    std::string prefix;
    if (!where.file.empty()) {
      prefix = where.file;
      if (where.line) prefix += ":" + std::to_string(*where.line);
      prefix += ": ";
    }
    if (!where.field.empty()) prefix += "'" + where.field + "': ";
    return prefix + message;
  }

  SourceLocation where_;
  std::string hint_;
};

}  // namespace perfcast
