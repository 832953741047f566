// Event streams by path, whatever their form: a trace directory (trace.h) or a
// text file (text.h). What the command line and engines open when a user names
// "the events".
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "events/source.h"
#include "events/trace.h"

namespace perfcast::events {

enum class EventsFormat { Trace, Text };
const char* format_name(EventsFormat format);  // "trace", "text"

// A directory is a trace, a file is text. Throws UserError when `path` is
// neither, or is a file inside a trace (naming the directory to pass instead).
EventsFormat detect_format(const std::filesystem::path& path);

std::unique_ptr<JobSource> open_events(const std::filesystem::path& path);

struct ConversionResult {
  EventsFormat from = EventsFormat::Text, to = EventsFormat::Trace;
  int ranks = 0;
  std::uint64_t events = 0;
};

// Text -> trace directory or trace directory -> text file, by what `in` is.
// `out` is written completely or not at all (an existing trace or file there is
// replaced only once the new one is whole).
ConversionResult convert_events(const std::filesystem::path& in, const std::filesystem::path& out,
                                const TraceMetadata& metadata = {});

}  // namespace perfcast::events
