#include <gtest/gtest.h>

#include "measure/stats.h"
#include "measure/timing.h"
#include "support/error.h"

using namespace perfcast::measure;

TEST(Stats, QuartilesMatchNumpyDefault) {
  // numpy.percentile([1,2,3,4,10], [25,50,75]) == [2, 3, 4]
  Summary s = summarize({10, 2, 4, 1, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.iqr(), 2);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  // numpy.percentile([1,2,3,4], 25) == 1.75 (interpolated)
  EXPECT_DOUBLE_EQ(percentile({4, 3, 2, 1}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(percentile({4, 3, 2, 1}, 0.5), 2.5);
}

TEST(Stats, OneValue) {
  Summary s = summarize({0.5});
  EXPECT_DOUBLE_EQ(s.median, 0.5);
  EXPECT_DOUBLE_EQ(s.iqr(), 0);
}

TEST(Stats, EmptyIsAnError) { EXPECT_THROW(summarize({}), perfcast::UserError); }

TEST(LastJsonLine, TakesTheLastObjectLine) {
  auto j = last_json_line("hello\n{\"a\":1}\nnot json {\n{\"a\":2,\"time_s\":0.5}\ntrailing text\n");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["a"], 2);
  EXPECT_TRUE(last_json_line("no json here\n").is_null());
  EXPECT_TRUE(last_json_line("{broken\n").is_null());
}
