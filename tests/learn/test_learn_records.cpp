// The record file the feature runtime appends to: framing and checksums,
// torn lines skipped with a warning, the union of features with absent ones 0,
// and a whole record's bad field named by file, line and field.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>

#include "learn/dataset.h"
#include "learn/feature_records.h"
#include "support/crc32.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

// A record line as the runtime frames it.
std::string framed(const std::string& record) {
  return fmt::format("{{\"record\":{},\"crc32\":\"{:08x}\"}}\n", record, perfcast_crc32(record.data(), record.size()));
}

std::string record(double time_s, int ranks, const std::string& features) {
  return fmt::format(R"({{"format":"perfcast-features","version":1,"time_s":{},"ranks":{},"command":"./app","features":{{{}}}}})",
                     time_s, ranks, features);
}

std::string error_of(const std::string& text) {
  try {
    parse_dataset(text, "runs.jsonl");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Records, UnionOfFeaturesWithAbsentOnesZeroAndTheLatestEpoch) {
  std::string text = framed(record(1.5, 4, R"("a.c:3:n":[64,0],"a.c:9:loop.headers":[6500,0.9])")) +
                     framed(record(3.25, 8, R"("a.c:3:n":[128,0.01],"a.c:12:branch.taken":[7,0.5])"));
  Dataset d = parse_dataset(text, "runs.jsonl");
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(d.feature_names,
            (std::vector<std::string>{"a.c:12:branch.taken", "a.c:3:n", "a.c:9:loop.headers", "ranks"}));
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.features.at(0, 0), 0);  // the branch was never recorded in the first run
  EXPECT_EQ(d.features.at(1, 0), 7);
  EXPECT_EQ(d.features.at(1, 1), 128);
  EXPECT_EQ(d.features.at(1, 2), 0);
  EXPECT_EQ(d.features.at(0, 3), 4);
  EXPECT_EQ(d.time_s, (std::vector<double>{1.5, 3.25}));
  ASSERT_TRUE(d.epochs);
  EXPECT_EQ(*d.epochs, (std::vector<double>{0.5, 0.01, 0.9, 0.0}));
  EXPECT_EQ(d.commands[0], "./app");
}

TEST(Records, TornAndAlteredLinesAreSkippedWithAWarningNamingTheLine) {
  std::string good = framed(record(2, 2, R"("x.c:1:n":[1,0])"));
  std::string altered = good;
  altered.replace(altered.find("[1,0]"), 5, "[2,0]");  // same length, checksum no longer holds
  std::string text = good + good.substr(0, good.size() / 2) + "\n" + altered + good;
  Dataset d = parse_dataset(text, "runs.jsonl");
  EXPECT_EQ(d.rows(), 2u);
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_NE(d.warnings[0].find("runs.jsonl:2: a torn or damaged record"), std::string::npos) << d.warnings[0];
  EXPECT_NE(d.warnings[1].find("runs.jsonl:3: a torn or damaged record (checksum"), std::string::npos) << d.warnings[1];
}

// The facts of the code the pass knew (a branch's side lines) are read beside
// the features and never become columns of the dataset.
TEST(Records, TheCodeObjectIsReadButIsNoFeature) {
  std::string with_code = record(1, 2, R"("a.c:12:branch.taken":[7,0.5])");
  with_code.insert(with_code.size() - 1, R"(,"code":{"a.c:12:branch.taken_line":13,"a.c:12:branch.not_taken_line":15})");
  RecordFile file = parse_feature_records(framed(with_code), "runs.jsonl");
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].code,
            (std::map<std::string, double>{{"a.c:12:branch.not_taken_line", 15}, {"a.c:12:branch.taken_line", 13}}));
  Dataset d = parse_dataset(framed(with_code), "runs.jsonl");
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"a.c:12:branch.taken", "ranks"}));
  std::string bad = record(1, 2, "");
  bad.insert(bad.size() - 1, R"(,"code":{"a.c:12:branch.taken_line":"x"})");
  EXPECT_EQ(error_of(framed(bad)), "runs.jsonl:1: 'record.code.a.c:12:branch.taken_line': expected a number");
}

// The measures for a probe run (an integer variable's assignments and their
// sum) are read beside the features and never become columns of the dataset.
TEST(Records, TheMeasuresAreReadButAreNoFeatures) {
  std::string with_measures = record(1, 2, R"("a.c:12:n":[64,0.5])");
  with_measures.insert(with_measures.size() - 1, R"(,"measures":{"a.c:12:n.assignments":3,"a.c:12:n.sum":160})");
  RecordFile file = parse_feature_records(framed(with_measures), "runs.jsonl");
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].measures,
            (std::map<std::string, double>{{"a.c:12:n.assignments", 3}, {"a.c:12:n.sum", 160}}));
  Dataset d = parse_dataset(framed(with_measures), "runs.jsonl");
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"a.c:12:n", "ranks"}));
  std::string bad = record(1, 2, "");
  bad.insert(bad.size() - 1, R"(,"measures":{"a.c:12:n.sum":"x"})");
  EXPECT_EQ(error_of(framed(bad)), "runs.jsonl:1: 'record.measures.a.c:12:n.sum': expected a number");
}

// The targets of the calls through pointers, per site: read, never features;
// a count that is no number is named by its site and target.
TEST(Records, TheIndirectCallsAreReadButAreNoFeatures) {
  std::string with_calls = record(1, 2, R"("a.c:12:loop.headers":[7,0.5])");
  with_calls.insert(with_calls.size() - 1, R"(,"indirect_calls":{"a.c:30:9":{"jacobi":40,"kept":8},"a.c:31:5":{}})");
  RecordFile file = parse_feature_records(framed(with_calls), "runs.jsonl");
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].indirect_calls.at("a.c:30:9"), (std::map<std::string, double>{{"jacobi", 40}, {"kept", 8}}));
  EXPECT_TRUE(file.records[0].indirect_calls.at("a.c:31:5").empty());
  Dataset d = parse_dataset(framed(with_calls), "runs.jsonl");
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"a.c:12:loop.headers", "ranks"}));
  std::string bad = record(1, 2, "");
  bad.insert(bad.size() - 1, R"(,"indirect_calls":{"a.c:30:9":{"jacobi":"x"}})");
  EXPECT_EQ(error_of(framed(bad)), "runs.jsonl:1: 'record.indirect_calls.a.c:30:9.jacobi': expected a number of calls >= 0");
}

// Each rank's values where they differed (a probe run's): read, null as a
// rank that never assigned it, never features; an array of another length
// than the ranks, or a value that is no number, is named by its feature.
TEST(Records, EachRanksValuesAreReadButAreNoFeatures) {
  std::string with_ranks = record(1, 3, R"("a.c:12:n":[64,0.5])");
  with_ranks.insert(with_ranks.size() - 1, R"(,"per_rank":{"a.c:12:n":[64,32,null],"a.c:12:n.sum":[64,32,0]})");
  RecordFile file = parse_feature_records(framed(with_ranks) + framed(record(1, 3, "")), "runs.jsonl");
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_TRUE(file.records[0].per_rank_recorded);
  EXPECT_FALSE(file.records[1].per_rank_recorded);
  const std::vector<double>& n = file.records[0].per_rank.at("a.c:12:n");
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0], 64);
  EXPECT_EQ(n[1], 32);
  EXPECT_TRUE(std::isnan(n[2]));
  EXPECT_EQ(file.records[0].per_rank.at("a.c:12:n.sum"), (std::vector<double>{64, 32, 0}));
  EXPECT_EQ(parse_dataset(framed(with_ranks), "runs.jsonl").feature_names,
            (std::vector<std::string>{"a.c:12:n", "ranks"}));
  std::string short_one = record(1, 3, "");
  short_one.insert(short_one.size() - 1, R"(,"per_rank":{"a.c:12:n":[64,32]})");
  EXPECT_EQ(error_of(framed(short_one)), "runs.jsonl:1: 'record.per_rank.a.c:12:n': expected an array of 3 values, one per rank");
  std::string text = record(1, 2, "");
  text.insert(text.size() - 1, R"(,"per_rank":{"a.c:12:n":[64,"x"]})");
  EXPECT_EQ(error_of(framed(text)),
            "runs.jsonl:1: 'record.per_rank.a.c:12:n': expected a number, or null for a rank that never assigned it");
}

// The threads an OpenMP region of the run starts: read where the runtime
// wrote it (a program with OpenMP), 0 where it did not; never a feature.
TEST(Records, TheOpenMPThreadsAreReadButAreNoFeature) {
  std::string with_threads = record(1, 2, R"("a.c:12:n":[64,0.5])");
  with_threads.insert(with_threads.find(R"("command")"), R"("omp_threads":4,)");
  RecordFile file = parse_feature_records(framed(with_threads) + framed(record(1, 2, "")), "runs.jsonl");
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[0].omp_threads, 4);
  EXPECT_EQ(file.records[1].omp_threads, 0);
  EXPECT_EQ(parse_dataset(framed(with_threads), "runs.jsonl").feature_names,
            (std::vector<std::string>{"a.c:12:n", "ranks"}));
  std::string bad = record(1, 2, "");
  bad.insert(bad.find(R"("command")"), R"("omp_threads":1.5,)");
  EXPECT_EQ(error_of(framed(bad)), "runs.jsonl:1: 'record.omp_threads': 1.5 is not a thread count");
}

TEST(Records, AWholeRecordWithABadFieldIsAnErrorNamingIt) {
  EXPECT_EQ(error_of(framed(record(0, 2, ""))),
            "runs.jsonl:1: 'record.time_s': time 0 is not positive");
  EXPECT_EQ(error_of(framed(record(1, 2, R"("x.c:1:n":[1,1.5])"))),
            "runs.jsonl:1: 'record.features.x.c:1:n': epoch 1.5 is outside 0..1 (the fraction of the run)");
  EXPECT_EQ(error_of(framed(record(1, 2, R"("x.c:1:n":"big")"))),
            "runs.jsonl:1: 'record.features.x.c:1:n': a feature is [value, epoch]");
  EXPECT_EQ(error_of(framed(R"({"format":"perfcast-features","version":1,"ranks":2,"features":{}})")),
            "runs.jsonl:1: 'record.time_s': missing");
  // A file of torn lines only has no record to learn from.
  EXPECT_EQ(error_of("{\"record\":{\"format\""), "runs.jsonl: no whole record in the file");
}

}  // namespace
}  // namespace perfcast::learn
