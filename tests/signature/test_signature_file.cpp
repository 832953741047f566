// The signature file: written and read back unchanged, and every broken field
// reported with the file and the field's path.
#include <gtest/gtest.h>

#include <fstream>

#include "scratch.h"
#include "signature/signature.h"
#include "streams.h"
#include "support/error.h"

namespace perfcast::signature {
namespace {

using namespace testing;
using nlohmann::json;
using perfcast::testing::scratch;

Signature sample() {
  std::vector<std::vector<Event>> s(2);
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 4; ++i) {
      s[static_cast<std::size_t>(r)].push_back(compute(0.001 * (r + 1)));
      s[static_cast<std::size_t>(r)].push_back(irecv(1 - r, 2 * i + 1, 1024));
      s[static_cast<std::size_t>(r)].push_back([&] {
        Event e = p2p(Kind::Isend, 1 - r, 1024);
        e.request = 2 * i + 2;
        return e;
      }());
      s[static_cast<std::size_t>(r)].push_back(
          waitall({2 * static_cast<std::uint64_t>(i) + 1, 2 * static_cast<std::uint64_t>(i) + 2}));
    }
  Signature sig = build_signature(logical_clock(s), {Algorithm::Repeats, 0.9});
  sig.trace = "run.trace";
  sig.program = "sample";
  sig.traced_wall_s = 0.01;
  return sig;
}

TEST(SignatureFile, RoundTrip) {
  Signature s = sample();
  ASSERT_EQ(s.phases.size(), 1u);
  EXPECT_EQ(s.phases[0].weight, 4);
  auto path = scratch() / "round.sig";
  write_signature(s, path);
  Signature back = read_signature(path);
  EXPECT_EQ(to_json(back), to_json(s));
  EXPECT_EQ(back.phases[0].blocks, s.phases[0].blocks);
  EXPECT_EQ(back.traced_wall_s, s.traced_wall_s);
}

// Writes `j` and expects read_signature to fail naming the file and `field`.
void expect_error(const json& j, const std::string& field, const std::string& what) {
  auto path = scratch() / "broken.sig";
  {
    std::ofstream out(path);
    out << j.dump(1);
  }
  try {
    read_signature(path);
    FAIL() << "no error for " << field;
  } catch (const UserError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("'" + field + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
}

TEST(SignatureFile, ErrorsNameTheFileAndField) {
  json good = to_json(sample());
  auto with = [&](auto change) {
    json j = good;
    change(j);
    return j;
  };
  expect_error(with([](json& j) { j["format"] = "perfcast-trace"; }), "format", "perfcast-signature");
  expect_error(with([](json& j) { j["version"] = 9; }), "version", "version 9");
  expect_error(with([](json& j) { j.erase("ranks"); }), "ranks", "missing");
  expect_error(with([](json& j) { j.erase("calls_timed"); }), "calls_timed", "missing");
  expect_error(with([](json& j) { j["calls_timed"] = 1; }), "calls_timed", "true or false");
  expect_error(with([](json& j) { j["algorithm"] = "fold"; }), "algorithm", "'fold'");
  expect_error(with([](json& j) { j["coverage"] = 0; }), "coverage", "(0, 1]");
  expect_error(with([](json& j) { j["phases"][0]["weight"] = 0; }), "phases[0].weight", ">= 1");
  expect_error(with([](json& j) { j["phases"][0]["time_s"] = -1; }), "phases[0].time_s", ">= 0");
  expect_error(with([](json& j) { j["phases"][0]["ticks"] = 7; }), "phases[0].ticks", "blocks holds");
  expect_error(with([](json& j) { j["phases"][0]["representative"] = 4; }), "phases[0].representative",
               "occurrence 4 of a phase of weight 4");
  expect_error(with([](json& j) { j["phases"][0]["blocks"][0][0]["kind"] = "compute"; }), "phases[0].blocks[0][0].kind",
               "not an MPI event kind");
  expect_error(with([](json& j) { j["phases"][0]["blocks"][0][1]["rank"] = 5; }), "phases[0].blocks[0][1].rank",
               "2 ranks");
  expect_error(with([](json& j) { j["predicted_total_s"] = j["predicted_total_s"].get<double>() * 2; }),
               "predicted_total_s", "is not initialization_s");
}

// Version 1 was written before call durations: its times are the compute
// critical path, and it reads so (calls_timed false), never as timed.
TEST(SignatureFile, VersionOneReadsAsUntimed) {
  Signature s = sample();
  s.calls_timed = true;
  s.traced_wall_before_finalize_s = 0.008;
  json j = to_json(s);
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["calls_timed"], true);
  auto path = scratch() / "timed.sig";
  write_signature(s, path);
  Signature back = read_signature(path);
  EXPECT_TRUE(back.calls_timed);
  EXPECT_EQ(back.traced_wall_before_finalize_s, 0.008);

  j["version"] = 1;
  j.erase("calls_timed");
  j.erase("traced_wall_before_finalize_s");
  auto old_path = scratch() / "v1.sig";
  std::ofstream(old_path) << j.dump(1);
  Signature old = read_signature(old_path);
  EXPECT_FALSE(old.calls_timed);
  EXPECT_EQ(old.traced_total_s, s.traced_total_s);
  EXPECT_EQ(old.phases.size(), s.phases.size());
}

TEST(SignatureFile, NotJsonOrMissing) {
  auto path = scratch() / "text.sig";
  {
    std::ofstream out(path);
    out << "phases: 3\n";
  }
  EXPECT_THROW(read_signature(path), UserError);
  EXPECT_THROW(read_signature(scratch() / "absent.sig"), UserError);
}

}  // namespace
}  // namespace perfcast::signature
