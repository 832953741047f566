// The MPI vocabulary (support/mpi_ops.def) is the one list every consumer
// reads: program models, event streams, the predictor.
#include <gtest/gtest.h>

#include <string>

#include "events/event.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/model_events.h"
#include "model/predict.h"
#include "model_text.h"
#include "support/error.h"
#include "support/mpi_op.h"

namespace perfcast {
namespace {

TEST(MpiVocabulary, NamesParseBackAndStreamsKeepTheSameNames) {
  for (const auto& f : mpi::detail::kFacts) {
    ASSERT_TRUE(mpi::parse_op(f.name)) << f.name;
    EXPECT_EQ(*mpi::parse_op(f.name), f.op);
    EXPECT_EQ(mpi::op_of_function(f.function), f.op) << f.function;
    const events::Kind kind = events::kind_of(f.op);
    if (auto kept = events::op_of(kind); kept && *kept == f.op) {
      EXPECT_EQ(events::kind_name(kind), f.name);
      EXPECT_EQ(events::is_collective(kind), mpi::is_collective(f.op)) << f.name;
    }
  }
  EXPECT_FALSE(mpi::parse_op("MPI_Send"));
  EXPECT_FALSE(mpi::op_of_function("MPI_Comm_rank")) << "local calls are not operations";
  EXPECT_EQ(mpi::op_of_function("MPI_Sendrecv_replace"), mpi::Op::Sendrecv);
  EXPECT_EQ(mpi::op_of_function("MPI_Init_thread"), mpi::Op::Init);
  EXPECT_EQ(events::kind_of(mpi::Op::Rsend), events::Kind::Send);
  EXPECT_EQ(events::kind_of(mpi::Op::Iprobe), events::Kind::Marker);
  EXPECT_FALSE(events::op_of(events::Kind::Compute));
}

TEST(MpiVocabulary, FactsMatchTheStandard) {
  using mpi::Op;
  EXPECT_TRUE(mpi::facts(Op::Sendrecv).sends && mpi::facts(Op::Sendrecv).receives);
  EXPECT_FALSE(mpi::facts(Op::Isend).blocking);
  EXPECT_TRUE(mpi::facts(Op::Gatherv).rooted);
  EXPECT_EQ(mpi::facts(Op::Alltoallv).table, mpi::CollectiveOp::Alltoall);
  EXPECT_FALSE(mpi::facts(Op::Scan).table);
  EXPECT_TRUE(mpi::creates_communicator(Op::CartCreate));
  EXPECT_FALSE(mpi::creates_communicator(Op::CommFree));
  EXPECT_TRUE(mpi::is_collective(Op::CommFree));
}

// A model may name every operation of the vocabulary: each loads, becomes
// events and is priced.
TEST(MpiVocabulary, AModelNamingEveryOperationLoadsMakesEventsAndIsPriced) {
  std::string items;
  for (const auto& f : mpi::detail::kFacts) {
    std::string item = R"({"kind": "mpi", "op": ")" + std::string(f.name) + R"(", "bytes": 64)";
    if (f.sends || f.receives || f.name == "probe" || f.name == "iprobe") item += R"(, "peer": "1 - rank")";
    if (f.rooted) item += R"(, "root": 0)";
    items += (items.empty() ? "" : ", ") + item + "}";
  }
  auto m = testing::model_from(R"({"main": {"body": [)" + items + "]}}");
  auto streams = model::model_events(m, 2, {});
  EXPECT_EQ(streams[0].mpi_calls, mpi::kOpCount);
  auto polus = machine::load_machine_file(std::string(PERFCAST_SOURCE_DIR) + "/machines/polus.toml");
  auto p = model::predict(m, model::symbolic_costs(m), polus, 2, {});
  EXPECT_GT(p.refined_time_s, 0);
}

}  // namespace
}  // namespace perfcast
