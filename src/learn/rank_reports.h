// The reports of a run stopped early (docs/learn.md, "Stopping a run early"):
// each rank's feature runtime writes, once its model's features have settled,
// one file `rank-R.features.json` with its own features so far
//   {"format":"perfcast-features-report","version":1,"rank":0,"ranks":2,"pid":4711,
//    "time_s":0.31,"features":{"app.c:12:n":["value",64,0],"app.c:20:loop.headers":["count",9,0.02]}}
// (a feature is [kind, value, the seconds since MPI_Init when it last changed]).
// The ranks are then killed, so no MPI_Finalize reduces them; reducing the
// reports here gives the record MPI_Finalize would have written at that point:
// counts summed over the ranks, values the maximum over the ranks that
// assigned them, epochs and the run time the maximum.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "learn/feature_records.h"

namespace perfcast::learn {

struct RankReport {
  int rank = 0, ranks = 0;
  long pid = 0;
  double time_s = 0;  // MPI_Init to the report
  struct Feature {
    std::string name;
    bool count = false;  // summed over ranks; else a value (the maximum)
    double value = 0;
    double changed_s = 0;  // since MPI_Init
  };
  std::vector<Feature> features;
};

// The file rank `rank` writes its report to, inside the report directory.
std::string rank_report_file_name(int rank);

// One report; a UserError naming `source` and the field when malformed.
RankReport parse_rank_report(const std::string& text, const std::string& source);

// The reports of every rank of one job reduced to one record (line 0, `text`
// a record as the runtime writes one). A UserError when ranks are missing,
// repeated, or disagree on the job's size.
FeatureRecord reduce_rank_reports(const std::vector<RankReport>& reports, const std::string& command);

}  // namespace perfcast::learn
