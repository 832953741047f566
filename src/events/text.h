// The text form of event streams, for tests and people: one event per line.
//
//   # perfcast events 1
//   rank 0
//   compute 1.5e-3                          a burst of known duration (seconds)
//   compute flops=2e6 bytes=1.6e7           a burst to be priced (bytes = memory traffic)
//   isend peer=1 tag=7 bytes=65536 req=1 dur=2.1e-6   dur: how long the call took
//   irecv peer=any tag=any bytes=65536 req=2
//   waitall req=1,2
//   allreduce bytes=8 bytes2=8
//   alltoallv counts=8,16,0 counts2=8,8,8
//   comm_split color=0 key=3 new=2
//   rank 1
//   ...
//
// A line is a kind name (event.h's kind_name) and key=value fields; a field at
// its default (Event{}) may be left out, and the writer leaves it out. Keys:
//   peer=N|any|null   root=N   source=N|any|null (sendrecv's source, held in root)
//   tag=N|any  tag2=N|any  bytes=N  bytes2=N  comm=N  site=N
//   req=N (the request a call creates) or req=A,B,.. on completions (the requests
//   completed); request=N and requests=A,B,.. say either explicitly
//   counts=A,B,..  counts2=A,B,..  color=N|undefined  key=N  new=N (new_comm)
//   seconds=X (also the bare number after "compute")  flops=X
//   bytes=X on compute is the burst's memory traffic; elsewhere bytes_moved=X
//   (and msg_bytes=N sets a compute event's message bytes, which no source fills).
//   dur=X on an MPI event: the seconds the call took when it ran (traced runs
//   record it); absent: not recorded. Engines never read it.
// Doubles are written in the shortest form that reads back to the same value,
// so write then read gives equal events. '#' starts a comment; blank lines are
// ignored. Every rank from 0 to the largest one named must appear, once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "events/memory_source.h"

namespace perfcast::events {

inline constexpr int kTextFormatVersion = 1;

// One line, without the newline.
std::string format_event(const Event& event);

// Parses one event line. Throws UserError saying what was expected (without a
// location: the job readers add the file and line).
Event parse_event(std::string_view line);

struct TextWriteOptions {
  int only_rank = -1;                                              // < 0: every rank
  std::uint64_t head = std::numeric_limits<std::uint64_t>::max();  // events per rank at most
};

// Writes the header line, then "rank R" and its events for each rank.
void write_text(JobSource& job, std::ostream& out, const TextWriteOptions& options = {});
// Writes a file through a temporary name, renamed once complete.
void write_text_file(JobSource& job, const std::filesystem::path& path);

// Reads a whole text job into memory. Errors name the file and the line.
std::unique_ptr<VectorJobSource> read_text_job(const std::filesystem::path& path);
// The same from a string; `name` stands for the file in error messages.
std::unique_ptr<VectorJobSource> parse_text_job(std::string_view text, const std::string& name = "<text>");

}  // namespace perfcast::events
