// The dataset file: what it reads, and a malformed file's error naming the
// file, the line and the column.
#include <gtest/gtest.h>

#include "learn/dataset.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_dataset(text, "runs.csv");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Dataset, ReadsFeaturesTimesRanksCommandsAndEpochs) {
  Dataset d = parse_dataset(
      "# runs of wave3d\n"
      "n,steps,time_s,ranks,command\n"
      "0,0.02,epoch,0,\n"
      "64,10,1.5,4,\"wave3d --n 64, twice\"\n"
      "\n"
      "128,10,9.25,8,wave3d\n",
      "runs.csv");
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"n", "steps", "ranks"}));
  ASSERT_EQ(d.rows(), 2u);
  EXPECT_EQ(d.features.at(1, 0), 128);
  EXPECT_EQ(d.features.at(0, 2), 4);
  EXPECT_EQ(d.time_s, (std::vector<double>{1.5, 9.25}));
  EXPECT_EQ(d.commands[0], "wave3d --n 64, twice");
  ASSERT_TRUE(d.epochs);
  EXPECT_EQ(*d.epochs, (std::vector<double>{0, 0.02, 0}));
}

TEST(Dataset, WithoutEpochsOrRanks) {
  Dataset d = parse_dataset("a,time_s\n1,2\n3,4\n", "x.csv");
  EXPECT_FALSE(d.epochs);
  EXPECT_EQ(d.feature_names, std::vector<std::string>{"a"});
  EXPECT_TRUE(d.commands.empty());
}

TEST(Dataset, MalformedFilesNameFileLineAndColumn) {
  EXPECT_EQ(error_of("n,time_s\n1,2\n,3\n"), "runs.csv:3: 'column 1 (n)': missing value");
  EXPECT_EQ(error_of("n,time_s\n1,2\n4,fast\n"), "runs.csv:3: 'column 2 (time_s)': 'fast' is not a number");
  EXPECT_EQ(error_of("n,time_s\n1,2\n4,5,6\n"), "runs.csv:3: ragged row: 3 fields where the header has 2");
  EXPECT_EQ(error_of("n,time_s\n1\n"), "runs.csv:2: ragged row: 1 fields where the header has 2");
  EXPECT_EQ(error_of("n,time_s\n# only a comment\n"), "runs.csv:1: no rows after the header");
  EXPECT_EQ(error_of(""), "runs.csv: no header and no rows");
  EXPECT_EQ(error_of("n,t\n1,2\n"), "runs.csv:1: the header has no time_s column");
  EXPECT_EQ(error_of("n,time_s\n1,0\n"), "runs.csv:2: 'column 2 (time_s)': time 0 is not positive");
  EXPECT_EQ(error_of("n,n,time_s\n1,1,1\n"), "runs.csv:1: 'column 2 (n)': a column named twice");
  EXPECT_EQ(error_of("n,time_s\n1.5,epoch\n1,2\n"),
            "runs.csv:2: 'column 1 (n)': epoch 1.5 is outside 0..1 (the fraction of the run)");
}

TEST(Dataset, MissingFileIsNamed) {
  try {
    read_dataset("/nonexistent/runs.csv");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/runs.csv: cannot open the file");
  }
}

TEST(Dataset, EpochSideFile) {
  auto e = parse_epochs("feature,epoch\nsteps,0.5\n", "e.csv", {"n", "steps"});
  EXPECT_EQ(e, (std::vector<double>{0, 0.5}));
  EXPECT_THROW(parse_epochs("feature,epoch\nsize,0.5\n", "e.csv", {"n", "steps"}), UserError);
  EXPECT_THROW(parse_epochs("name,when\n", "e.csv", {"n"}), UserError);
}

TEST(Dataset, FeaturesForPredictionPickColumnsByName) {
  Dataset d = parse_features("x,n,ranks\n9,64,4\n", "f.csv", {"n", "ranks"});
  EXPECT_EQ(d.features.at(0, 0), 64);
  EXPECT_EQ(d.features.at(0, 1), 4);
  EXPECT_TRUE(d.time_s.empty());
  EXPECT_THROW(parse_features("x,n\n9,64\n", "f.csv", {"n", "ranks"}), UserError);
}

TEST(Dataset, CsvRoundTrip) {
  Dataset d = parse_dataset("a,b,time_s\n0,0.3,epoch\n1,2,3\n4,5,6\n", "x.csv");
  Dataset back = parse_dataset(to_csv(d), "y.csv");
  EXPECT_EQ(back.features.values, d.features.values);
  EXPECT_EQ(back.time_s, d.time_s);
  EXPECT_EQ(back.epochs, d.epochs);
}

}  // namespace
}  // namespace perfcast::learn
