#include "report/model_events.h"

#include <fmt/format.h>

#include "report/table.h"

namespace perfcast::report {

nlohmann::json model_events_json(const ModelEventsSummary& s) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : s.ranks)
    ranks.push_back({{"rank", r.rank},
                     {"events", r.events},
                     {"mpi_calls", r.mpi_calls},
                     {"compute_bursts", r.compute_bursts},
                     {"flops", r.flops},
                     {"bytes_moved", r.bytes_moved}});
  return {{"trace", s.trace}, {"np", s.ranks.size()}, {"ranks", ranks}};
}

std::string model_events_text(const ModelEventsSummary& s) {
  Table t({"rank", "events", "MPI calls", "compute bursts", "flops", "bytes moved"});
  auto row = [&](const RankEventsSummary& r) {
    t.add_row({std::to_string(r.rank), std::to_string(r.events), std::to_string(r.mpi_calls),
               std::to_string(r.compute_bursts), fmt::format("{:.4g}", r.flops), fmt::format("{:.4g}", r.bytes_moved)});
  };
  if (s.ranks.size() <= 16) {
    for (const auto& r : s.ranks) row(r);
  } else {
    row(s.ranks.front());
    row(s.ranks.back());
  }
  return fmt::format("{}: {} ranks -> {}\n", s.model_file, s.ranks.size(), s.trace) + t.render() +
         fmt::format("run it: perfcast simulate --machine M {}\n", s.trace);
}

}  // namespace perfcast::report
