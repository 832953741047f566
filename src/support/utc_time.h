// The current time as the files perfcast writes record it.
#pragma once

#include <ctime>
#include <string>

namespace perfcast {

// "2026-11-26T12:25:22Z": ISO 8601, UTC, to the second.
inline std::string utc_now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace perfcast
