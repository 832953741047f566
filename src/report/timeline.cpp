#include "report/timeline.h"

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::report {

ChromeTraceWriter::ChromeTraceWriter(const std::filesystem::path& file, int nranks) : path_(file) {
  output_ = std::make_unique<AtomicFile>(file);
  file_ = output_->file();
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
  for (int r = 0; r < nranks; ++r) {
    fmt::print(file_, "{}{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":{},\"args\":{{\"name\":\"rank {}\"}}}}",
               first_ ? "" : ",\n", r, r);
    first_ = false;
  }
}

ChromeTraceWriter::~ChromeTraceWriter() = default;

void ChromeTraceWriter::span(int rank, sim::SpanKind kind, events::Kind op, double start_s, double end_s) {
  const char* category = kind == sim::SpanKind::Compute ? "compute" : kind == sim::SpanKind::Wait ? "wait" : "comm";
  std::string name = kind == sim::SpanKind::Compute ? std::string("compute")
                                               : fmt::format("{} {}", events::kind_name(op), category);
  // Chrome traces count in microseconds.
  fmt::print(file_, "{}{{\"ph\":\"X\",\"pid\":0,\"tid\":{},\"cat\":\"{}\",\"name\":\"{}\",\"ts\":{:.6f},\"dur\":{:.6f}}}",
             first_ ? "" : ",\n", rank, category, name, start_s * 1e6, (end_s - start_s) * 1e6);
  first_ = false;
}

void ChromeTraceWriter::close() {
  if (!file_) return;
  std::fputs("\n]}\n", file_);
  file_ = nullptr;
  output_->commit();
}

}  // namespace perfcast::report
