// The one process launcher: arguments without a shell, both streams apart,
// and environment variables set for the child alone.
#include <stdlib.h>

#include <gtest/gtest.h>

#include "support/error.h"
#include "support/process.h"

namespace perfcast {
namespace {

TEST(Process, ArgumentsReachTheProgramAsGiven) {
  ProcessResult r = run_process({"sh", "-c", "printf '%s|' \"$@\"; echo oops >&2; exit 3", "sh", "a b", "'c'"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.stdout_text, "a b|'c'|");
  EXPECT_EQ(r.stderr_text, "oops\n");
}

TEST(Process, EnvironmentOverridesReachTheChildAlone) {
  ::setenv("PERFCAST_TEST_INHERITED", "parent", 1);
  ::setenv("PERFCAST_TEST_KEPT", "kept", 1);
  ProcessResult r = run_process({"sh", "-c", "env | grep '^PERFCAST_TEST_' | sort"}, std::nullopt,
                                {{"PERFCAST_TEST_INHERITED", "child"}, {"PERFCAST_TEST_NEW", "x=y z"}});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  // Replaced, not given twice; the rest inherited.
  EXPECT_EQ(r.stdout_text, "PERFCAST_TEST_INHERITED=child\nPERFCAST_TEST_KEPT=kept\nPERFCAST_TEST_NEW=x=y z\n");
  EXPECT_STREQ(::getenv("PERFCAST_TEST_INHERITED"), "parent");
  EXPECT_EQ(::getenv("PERFCAST_TEST_NEW"), nullptr);
}

TEST(Process, AProgramThatDoesNotExistIsAnError) {
  EXPECT_THROW(run_process({"perfcast-no-such-program"}), UserError);
}

TEST(Process, ATimeoutStopsTheProgram) {
  ProcessResult r = run_process({"sleep", "30"}, std::chrono::duration<double>(0.2));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_s, 10);
}

}  // namespace
}  // namespace perfcast
