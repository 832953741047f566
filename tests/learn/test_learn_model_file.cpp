// The model file: every method read back predicts exactly what it predicted
// before writing, and a damaged file is refused naming the field.
#include <gtest/gtest.h>

#include "learn/model_file.h"
#include "learn/synthetic.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

TEST(ModelFile, EveryMethodRoundTripsBitForBit) {
  Dataset d = testing::scaling_runs(80, 0.02, 41);
  for (Method method : all_methods()) {
    LearnOptions o{
        .method = method, .expand = method == Method::Extrap ? 1u : 2u, .importance_filter = 0.99, .trees = 8};
    ModelFile file{fit_learned_model(d, o), d.source, d.rows(), cross_validate(d, o, 3)};
    nlohmann::json j = nlohmann::json::parse(to_json(file).dump());
    ModelFile back = model_from_json(j, "m.json");
    EXPECT_EQ(back.model.inputs, file.model.inputs);
    EXPECT_EQ(back.model.kept_names, file.model.kept_names);
    EXPECT_EQ(back.cross_validation->mean_relative_error, file.cross_validation->mean_relative_error);
    std::vector<double> row(file.model.inputs.size());
    for (size_t r = 0; r < 10; ++r) {
      for (size_t c = 0; c < row.size(); ++c) row[c] = d.features.at(r, *d.column_of(file.model.inputs[c])) * 1.1;
      Interval a = file.model.predict(row.data()), b = back.model.predict(row.data());
      EXPECT_EQ(a.point, b.point) << method_name(method);
      EXPECT_EQ(a.low, b.low) << method_name(method);
      EXPECT_EQ(a.high, b.high) << method_name(method);
    }
  }
}

TEST(ModelFile, DamagedFileNamesTheField) {
  Dataset d = testing::scaling_runs(40, 0.02, 42);
  LearnOptions o{.trees = 2};
  nlohmann::json j = to_json({fit_learned_model(d, o), d.source, d.rows(), std::nullopt});
  auto field_of = [](const nlohmann::json& bad) {
    try {
      model_from_json(bad, "m.json");
    } catch (const UserError& e) {
      return e.where().field;
    }
    return std::string("no error");
  };
  nlohmann::json a = j;
  a["estimator"]["trees"][1].erase("threshold");
  EXPECT_EQ(field_of(a), "estimator.trees[1].threshold");
  nlohmann::json b = j;
  b["kept"][0]["column"] = "x";
  EXPECT_EQ(field_of(b), "kept[0].column");
  nlohmann::json c = j;
  c["format"] = "something else";
  EXPECT_EQ(field_of(c), "format");
}

}  // namespace
}  // namespace perfcast::learn
