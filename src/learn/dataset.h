// The dataset file of the learned models (docs/learn.md): a CSV with one row
// per run. The header names the features, then `time_s` (the run time, > 0),
// and optionally `ranks` (the process count, which becomes a feature named
// "ranks") and `command` (free text, kept for the reader). Blank lines and lines
// starting with '#' are skipped; a field may be quoted with double quotes.
//
// Each feature's epoch (the fraction of the run when its value was last
// updated, 0..1) comes either from a row right after the header whose `time_s`
// cell is the word `epoch`, or from a side file with the header `feature,epoch`.
//
// Every malformed input is a UserError naming the file, the line and the
// column: a missing value, a non-number, a ragged row, no rows.
//
// read_dataset and read_features also read the record file the feature
// runtime appends to (JSON Lines, feature_records.h), told by its first
// character.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "learn/matrix.h"

namespace perfcast::learn {

struct Dataset {
  std::string source;                         // the file, for messages
  std::vector<std::string> feature_names;     // columns of `features`
  Matrix features;                            // one row per run
  std::vector<double> time_s;                 // per row; empty for a features-only file
  std::vector<std::string> commands;          // per row when the file has `command`
  std::optional<std::vector<double>> epochs;  // per feature, from the epoch row or a side file
  std::vector<std::string> warnings;          // lines skipped while reading (torn records), for the driver

  size_t rows() const { return features.rows; }
  // The column of a feature, or nullopt.
  std::optional<size_t> column_of(const std::string& name) const;
  // The same dataset restricted to these rows.
  Dataset subset(const std::vector<size_t>& rows) const;
};

// A dataset with times (for learning). Throws UserError when malformed.
Dataset read_dataset(const std::string& path);
Dataset parse_dataset(const std::string& text, const std::string& source);

// Rows to predict: the features `wanted` must all be columns (in any order;
// others are ignored); `time_s`, when present, is read as the measured time.
Dataset read_features(const std::string& path, const std::vector<std::string>& wanted);
Dataset parse_features(const std::string& text, const std::string& source, const std::vector<std::string>& wanted);

// A side file of epochs (`feature,epoch` rows) for the features of `dataset`;
// a feature the file does not list gets epoch 0 (known from the start).
std::vector<double> read_epochs(const std::string& path, const std::vector<std::string>& feature_names);
std::vector<double> parse_epochs(const std::string& text, const std::string& source,
                                 const std::vector<std::string>& feature_names);

// The dataset as the CSV read_dataset reads (with its epoch row when it has epochs).
std::string to_csv(const Dataset& dataset);

}  // namespace perfcast::learn
