// The dataset as the feature runtime writes it (docs/learn.md, "The record
// file"): JSON Lines, one record per run, each line
//   {"record":{...},"crc32":"8 hex digits"}
// where the checksum is CRC-32 of the record's exact text. A line that is not
// framed so, or whose checksum fails, is a torn or damaged record (a writer
// killed mid-write): it is skipped with a warning. A whole record with a bad
// field is an error naming the file, the line and the field.
//
// Runs may record different features (branches never reached, a build that
// changed): the dataset's features are the union, sorted by name, and a
// feature a record lacks is 0 there (a count that never happened, a variable
// never assigned). A feature's epoch is the latest over the records.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "learn/dataset.h"

namespace perfcast::learn {

struct FeatureValue {
  double value = 0;
  double epoch = 0;  // fraction of the run, 0..1
};

struct FeatureRecord {
  int line = 0;  // 1-based, in its file
  double time_s = 0;
  int ranks = 0;
  // The threads an OpenMP parallel region of the run starts (the runtime's
  // omp_get_max_threads, the largest of the ranks'); 0 for a program without OpenMP.
  int omp_threads = 0;
  std::string command;
  std::string label;  // the sweep point that made it, or empty
  std::map<std::string, FeatureValue> features;
  // Facts of the code the probes' pass knew, by name (`f.c:17:branch.taken_line`:
  // the source line the branch's taken side starts at); not features.
  std::map<std::string, double> code;
  // Measures for `perfcast probe`, summed over the ranks (`f.c:12:n.sum`: the
  // sum of the values assigned to n); not features.
  std::map<std::string, double> measures;
  // Calls through pointers: site (`f.c:27:9`) -> target function -> calls,
  // summed over the ranks; a site never executed has no targets.
  std::map<std::string, std::map<std::string, double>> indirect_calls;
  // Where the run was asked for them (`perfcast probe`): each rank's value of
  // the features and measures whose value differed between the ranks, by
  // name, one per rank (NaN: a value that rank never assigned). A name not
  // here held one value on every rank: its count over `ranks`, or its value.
  std::map<std::string, std::vector<double>> per_rank;
  bool per_rank_recorded = false;  // the record has `per_rank` (perhaps empty)
  std::string text;  // the record's JSON as written
};

struct RecordFile {
  std::vector<FeatureRecord> records;
  std::vector<std::string> warnings;  // skipped lines, "file:line: why"
};

// True when the text is a record file rather than a CSV (its first
// non-blank character opens a JSON object).
bool is_record_file(const std::string& text);

// The records of a file's text. `first_line` numbers the text's first line
// (a reader of the part appended since an earlier look). Throws UserError on a
// whole record with a missing or wrong field.
RecordFile parse_feature_records(const std::string& text, const std::string& source, int first_line = 1);

// The records as a dataset: features the union, absent ones 0, `ranks` a feature.
Dataset dataset_from_records(const RecordFile& file, const std::string& source);

}  // namespace perfcast::learn
