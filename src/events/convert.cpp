#include "events/convert.h"

#include <fmt/format.h>

#include "events/text.h"
#include "support/error.h"

namespace perfcast::events {

namespace fs = std::filesystem;

namespace {

// Where an error is: a whole file (no line or field).
SourceLocation in_file(std::string file) { return {std::move(file), std::nullopt, ""}; }

}  // namespace

const char* format_name(EventsFormat format) { return format == EventsFormat::Trace ? "trace" : "text"; }

EventsFormat detect_format(const fs::path& path) {
  std::error_code error;
  auto status = fs::status(path, error);
  if (!fs::exists(status)) throw UserError("no such file or directory", in_file(path.string()));
  if (fs::is_directory(status)) return EventsFormat::Trace;
  if (path.filename() == kManifestName || path.extension() == ".pcev")
    throw UserError("this file is part of a trace; name the trace directory instead", in_file(path.string()),
                    fmt::format("use {}", path.parent_path().empty() ? std::string(".") : path.parent_path().string()));
  return EventsFormat::Text;
}

std::unique_ptr<JobSource> open_events(const fs::path& path) {
  if (detect_format(path) == EventsFormat::Trace) return open_trace(path);
  return read_text_job(path);
}

ConversionResult convert_events(const fs::path& in, const fs::path& out, const TraceMetadata& metadata) {
  ConversionResult result;
  result.from = detect_format(in);
  if (result.from == EventsFormat::Text) {
    result.to = EventsFormat::Trace;
    auto job = read_text_job(in);
    TraceManifest manifest = write_trace(*job, out, metadata);
    result.ranks = manifest.ranks;
    for (const auto& stream : manifest.streams) result.events += stream.events;
  } else {
    result.to = EventsFormat::Text;
    std::error_code error;
    if (fs::is_directory(out, error))
      throw UserError("is a directory; converting a trace writes a text file", in_file(out.string()),
                      "name a file to write, e.g. events.txt");
    auto job = open_trace(in);
    write_text_file(*job, out);
    const auto& manifest = static_cast<TraceJobSource&>(*job).manifest();
    result.ranks = manifest.ranks;
    for (const auto& stream : manifest.streams) result.events += stream.events;
  }
  return result;
}

}  // namespace perfcast::events
