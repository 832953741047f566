// A Chrome-trace / Perfetto JSON timeline of a simulation: one track per rank,
// spans for compute, wait and comm named after the MPI call.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>

#include "sim/engine.h"
#include "support/output_file.h"

namespace perfcast::report {

// Beyond this many ranks a timeline is refused unless forced: the file grows
// with ranks x events and viewers stop coping long before.
inline constexpr int kTimelineRankLimit = 4096;

// Streams spans to a file as the engine produces them (memory stays flat);
// the file appears whole at close(), and a run that fails first leaves
// whatever was there before.
class ChromeTraceWriter : public sim::TimelineSink {
 public:
  // Throws UserError when the file cannot be written.
  ChromeTraceWriter(const std::filesystem::path& file, int nranks);
  ~ChromeTraceWriter() override;
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  void span(int rank, sim::SpanKind kind, events::Kind op, double start_s, double end_s) override;
  void close();  // finishes the JSON; throws UserError when the disk refused

 private:
  std::filesystem::path path_;
  std::unique_ptr<AtomicFile> output_;
  std::FILE* file_ = nullptr;  // output_'s, until close()
  bool first_ = true;
};

}  // namespace perfcast::report
