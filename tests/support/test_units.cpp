#include <gtest/gtest.h>

#include "support/error.h"
#include "support/units.h"

using namespace perfcast;
using units::Dimension;

TEST(Units, ParsesWhatPeopleWrite) {
  EXPECT_DOUBLE_EQ(units::parse("10 GB/s", Dimension::BytesPerSecond), 10e9);
  EXPECT_DOUBLE_EQ(units::parse("13000 MB/s", Dimension::BytesPerSecond), 13e9);
  EXPECT_DOUBLE_EQ(units::parse("60 us", Dimension::Seconds), 60e-6);
  EXPECT_DOUBLE_EQ(units::parse("60us", Dimension::Seconds), 60e-6);
  EXPECT_DOUBLE_EQ(units::parse("60 \u00b5s", Dimension::Seconds), 60e-6);
  EXPECT_DOUBLE_EQ(units::parse("1.5 ms", Dimension::Seconds), 1.5e-3);
  EXPECT_DOUBLE_EQ(units::parse("64 KiB", Dimension::Bytes), 65536);
  EXPECT_DOUBLE_EQ(units::parse("64 kB", Dimension::Bytes), 64000);
  EXPECT_DOUBLE_EQ(units::parse("2 GiB/s", Dimension::BytesPerSecond), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(units::parse("5.3 Gflop/s", Dimension::FlopsPerSecond), 5.3e9);
  EXPECT_DOUBLE_EQ(units::parse("5.3 GFLOPS", Dimension::FlopsPerSecond), 5.3e9);
  EXPECT_DOUBLE_EQ(units::parse("5.3 Gflops", Dimension::FlopsPerSecond), 5.3e9);
  EXPECT_DOUBLE_EQ(units::parse("2 GHz", Dimension::Hertz), 2e9);
  EXPECT_DOUBLE_EQ(units::parse("3 Mflop", Dimension::Flops), 3e6);
}

TEST(Units, BareNumbersOnlyWhenAllowed) {
  EXPECT_THROW(units::parse("42", Dimension::Seconds), UserError);
  EXPECT_DOUBLE_EQ(units::parse("42", Dimension::Seconds, true), 42);
}

TEST(Units, WrongDimensionNamesBoth) {
  try {
    units::parse("10 GB", Dimension::BytesPerSecond);
    FAIL() << "accepted a size where a bandwidth was expected";
  } catch (const UserError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("size in bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("bandwidth"), std::string::npos) << m;
  }
}

TEST(Units, RejectsNonsense) {
  EXPECT_THROW(units::parse("10 parsecs", Dimension::Seconds), UserError);
  EXPECT_THROW(units::parse("fast", Dimension::BytesPerSecond), UserError);
  EXPECT_THROW(units::parse("", Dimension::Bytes), UserError);
  EXPECT_THROW(units::parse("-3 s", Dimension::Seconds), UserError);
  EXPECT_THROW(units::parse("5 mB", Dimension::Bytes), UserError);  // milli-bytes make no sense
}

TEST(Units, FormatPicksReadablePrefix) {
  EXPECT_EQ(units::format(13e9, Dimension::BytesPerSecond), "13 GB/s");
  EXPECT_EQ(units::format(65536, Dimension::Bytes), "64 KiB");
  EXPECT_EQ(units::format(60e-6, Dimension::Seconds), "60 us");
  EXPECT_EQ(units::format(5.3e9, Dimension::FlopsPerSecond), "5.3 Gflop/s");
  EXPECT_EQ(units::format(0, Dimension::Seconds), "0 s");
}

TEST(Units, FormatThenParseRoundTrips) {
  for (double v : {1.0, 999.0, 1234.5, 6.02e8, 3.3e12}) {
    for (auto d : {Dimension::BytesPerSecond, Dimension::FlopsPerSecond, Dimension::Seconds}) {
      double back = units::parse(units::format(v, d, 12), d);
      EXPECT_NEAR(back, v, v * 1e-9) << units::format(v, d, 12);
    }
  }
}
