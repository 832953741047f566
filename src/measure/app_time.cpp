#include "measure/app_time.h"

#include <glob.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::measure {

struct AppTimePattern::Compiled {
  std::regex regex;
};

AppTimePattern::AppTimePattern(std::string regex) : text_(std::move(regex)) {
  compiled_ = std::make_unique<Compiled>();
  try {
    compiled_->regex = std::regex(text_, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw UserError(fmt::format("the time pattern '{}' is not a regular expression: {}", text_, e.what()), {},
                    "fix --time-pattern (ECMAScript syntax)");
  }
  if (compiled_->regex.mark_count() < 1)
    throw UserError(fmt::format("the time pattern '{}' has no capture group for the time", text_), {},
                    "put the number in parentheses in --time-pattern, e.g. 'Wall clock\\s+([0-9.eE+-]+)'");
}

AppTimePattern::~AppTimePattern() = default;
AppTimePattern::AppTimePattern(AppTimePattern&&) noexcept = default;
AppTimePattern& AppTimePattern::operator=(AppTimePattern&&) noexcept = default;

std::optional<double> AppTimePattern::find_seconds(const std::string& text, const std::string& where) const {
  std::smatch last;
  bool found = false;
  const auto no_more = std::sregex_iterator();
  for (auto it = std::sregex_iterator(text.begin(), text.end(), compiled_->regex); it != no_more; ++it) {
    last = *it;
    found = true;
  }
  if (!found) return std::nullopt;
  const std::string group = last[1].str();
  // Fortran writes exponents as "E+00" and sometimes "D+00"; both are seconds.
  std::string number = group;
  for (char& c : number)
    if (c == 'D' || c == 'd') c = 'e';
  errno = 0;
  char* end = nullptr;
  const double seconds = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  const bool whole = end != nullptr && *end == '\0';
  if (number.empty() || !whole || errno == ERANGE || !std::isfinite(seconds) || seconds < 0)
    throw UserError(fmt::format("{}: the time pattern '{}' matched '{}', whose first group '{}' is not a number "
                                "of seconds >= 0",
                                where, text_, last[0].str(), group),
                    {}, "make --time-pattern's first group capture only the number");
  return seconds;
}

std::optional<std::filesystem::path> newest_file_written_since(const std::string& pattern,
                                                               std::filesystem::file_time_type since) {
  glob_t matches{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &matches);
  std::optional<std::filesystem::path> newest;
  std::filesystem::file_time_type newest_time;
  if (rc == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) {
      std::filesystem::path p = matches.gl_pathv[i];
      std::error_code ec;
      if (!std::filesystem::is_regular_file(p, ec)) continue;
      auto written = std::filesystem::last_write_time(p, ec);
      if (ec || written < since) continue;
      if (!newest || written > newest_time) {
        newest = p;
        newest_time = written;
      }
    }
  }
  globfree(&matches);
  return newest;
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("cannot read '{}'", path.string()), {.file = path.string()});
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace perfcast::measure
