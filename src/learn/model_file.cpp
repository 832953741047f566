#include "learn/model_file.h"

#include <fmt/format.h>

#include <fstream>

#include "support/error.h"

namespace perfcast::learn {

namespace {

using json = nlohmann::json;
constexpr const char* kFormat = "perfcast-learned-model";
constexpr int kVersion = 1;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(); }

json tree_json(const RegressionTree& t) {
  json feature = json::array(), threshold = json::array(), left = json::array(), right = json::array(),
       value = json::array(), samples = json::array();
  for (const auto& n : t.nodes()) {
    feature.push_back(n.feature);
    threshold.push_back(n.threshold);
    left.push_back(n.left);
    right.push_back(n.right);
    value.push_back(n.value);
    samples.push_back(n.samples);
  }
  return {{"feature", feature}, {"threshold", threshold}, {"left", left},
          {"right", right},     {"value", value},         {"samples", samples}};
}

json scaling_json(const Standardizer& s) { return {{"mean", s.mean}, {"scale", s.scale}}; }

json estimator_json(const Estimator& e) {
  if (const auto* f = std::get_if<Forest>(&e)) {
    json trees = json::array();
    for (const auto& t : f->trees()) trees.push_back(tree_json(t));
    return {{"kind", f->kind() == ForestKind::ExtraTrees ? "extra_trees" : "random_forest"}, {"trees", trees}};
  }
  if (const auto* l = std::get_if<LinearModel>(&e))
    return {{"kind", "linear"},
            {"x_scaling", scaling_json(l->x_scaling)},
            {"y_mean", l->y_mean},
            {"y_scale", l->y_scale},
            {"coefficients", l->coefficients}};
  if (const auto* s = std::get_if<SvrModel>(&e)) {
    json support = json::array();
    for (size_t r = 0; r < s->support.rows; ++r)
      support.push_back(std::vector<double>(s->support.row(r), s->support.row(r) + s->support.cols));
    return {{"kind", "svr"},       {"x_scaling", scaling_json(s->x_scaling)},
            {"y_mean", s->y_mean}, {"y_scale", s->y_scale},
            {"gamma", s->gamma},   {"support", support},
            {"dual", s->dual}};
  }
  const auto& x = std::get<ExtrapModel>(e);
  json terms = json::array();
  for (size_t k = 0; k < x.terms.size(); ++k)
    terms.push_back({{"p_exponent", x.terms[k].p_exponent},
                     {"p_log", x.terms[k].p_log},
                     {"n_exponent", x.terms[k].n_exponent},
                     {"n_log", x.terms[k].n_log},
                     {"coefficient", x.coefficients[k]}});
  return {{"kind", "extrap"},
          {"process_feature", x.process_feature},
          {"size_feature", x.size_feature},
          {"constant", x.constant},
          {"terms", terms},
          {"formula", x.formula()},
          {"cv_error", x.cv_error}};
}

// Reads with the field's path in every error.
struct Reader {
  std::string source;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw UserError(what, {source, std::nullopt, field}, "write model files with `perfcast learn -o`");
  }
  const json& at(const json& j, const std::string& key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) fail(path + key, "missing");
    return j.at(key);
  }
  template <class T>
  T get(const json& j, const std::string& key, const std::string& path) const {
    const json& v = at(j, key, path);
    try {
      return v.get<T>();
    } catch (const json::exception&) {
      fail(path + key, fmt::format("has the wrong type ({})", v.type_name()));
    }
  }
};

Standardizer scaling_from(const Reader& r, const json& j, const std::string& path) {
  return {r.get<std::vector<double>>(j, "mean", path), r.get<std::vector<double>>(j, "scale", path)};
}

Estimator estimator_from(const Reader& r, const json& j, size_t columns) {
  const std::string p = "estimator.";
  auto kind = r.get<std::string>(j, "kind", p);
  if (kind == "extra_trees" || kind == "random_forest") {
    std::vector<RegressionTree> trees;
    const json& list = r.at(j, "trees", p);
    if (!list.is_array()) r.fail(p + "trees", "is not an array");
    for (size_t t = 0; t < list.size(); ++t) {
      std::string tp = fmt::format("{}trees[{}].", p, t);
      auto feature = r.get<std::vector<int>>(list[t], "feature", tp);
      auto threshold = r.get<std::vector<double>>(list[t], "threshold", tp);
      auto left = r.get<std::vector<int>>(list[t], "left", tp);
      auto right = r.get<std::vector<int>>(list[t], "right", tp);
      auto value = r.get<std::vector<double>>(list[t], "value", tp);
      auto samples = r.get<std::vector<int>>(list[t], "samples", tp);
      size_t n = feature.size();
      if (n == 0 || threshold.size() != n || left.size() != n || right.size() != n || value.size() != n ||
          samples.size() != n)
        r.fail(tp + "feature", "the node arrays are empty or of different lengths");
      std::vector<TreeNode> nodes(n);
      for (size_t i = 0; i < n; ++i) {
        if (feature[i] >= static_cast<int>(columns) ||
            (feature[i] >= 0 && (left[i] <= static_cast<int>(i) || right[i] <= static_cast<int>(i) ||
                                 left[i] >= static_cast<int>(n) || right[i] >= static_cast<int>(n))))
          r.fail(fmt::format("{}feature[{}]", tp, i), "a node names a feature or child that does not exist");
        nodes[i] = {feature[i], threshold[i], left[i], right[i], value[i], samples[i]};
      }
      trees.emplace_back(std::move(nodes));
    }
    return Forest(kind == "extra_trees" ? ForestKind::ExtraTrees : ForestKind::RandomForest, std::move(trees), {});
  }
  if (kind == "linear") {
    LinearModel m;
    m.x_scaling = scaling_from(r, r.at(j, "x_scaling", p), p + "x_scaling.");
    m.y_mean = r.get<double>(j, "y_mean", p);
    m.y_scale = r.get<double>(j, "y_scale", p);
    m.coefficients = r.get<std::vector<double>>(j, "coefficients", p);
    if (m.coefficients.size() != columns || m.x_scaling.mean.size() != columns || m.x_scaling.scale.size() != columns)
      r.fail(p + "coefficients", fmt::format("needs one entry per kept column ({})", columns));
    return m;
  }
  if (kind == "svr") {
    SvrModel m;
    m.x_scaling = scaling_from(r, r.at(j, "x_scaling", p), p + "x_scaling.");
    m.y_mean = r.get<double>(j, "y_mean", p);
    m.y_scale = r.get<double>(j, "y_scale", p);
    m.gamma = r.get<double>(j, "gamma", p);
    m.dual = r.get<std::vector<double>>(j, "dual", p);
    auto support = r.get<std::vector<std::vector<double>>>(j, "support", p);
    if (support.size() != m.dual.size() || m.x_scaling.mean.size() != columns)
      r.fail(p + "support", "needs one row per dual coefficient and one column per kept column");
    m.support = Matrix(support.size(), columns);
    for (size_t i = 0; i < support.size(); ++i) {
      if (support[i].size() != columns) r.fail(fmt::format("{}support[{}]", p, i), "has the wrong length");
      std::copy(support[i].begin(), support[i].end(), m.support.row(i));
    }
    return m;
  }
  if (kind == "extrap") {
    ExtrapModel m;
    m.process_feature = r.get<std::string>(j, "process_feature", p);
    m.size_feature = r.get<std::string>(j, "size_feature", p);
    m.constant = r.get<double>(j, "constant", p);
    m.cv_error = r.get<double>(j, "cv_error", p);
    const json& terms = r.at(j, "terms", p);
    for (size_t k = 0; k < terms.size(); ++k) {
      std::string tp = fmt::format("{}terms[{}].", p, k);
      m.terms.push_back({r.get<double>(terms[k], "p_exponent", tp), r.get<int>(terms[k], "p_log", tp),
                         r.get<double>(terms[k], "n_exponent", tp), r.get<int>(terms[k], "n_log", tp)});
      m.coefficients.push_back(r.get<double>(terms[k], "coefficient", tp));
    }
    return m;
  }
  r.fail(p + "kind", fmt::format("unknown estimator '{}'", kind));
}

}  // namespace

json to_json(const ModelFile& file) {
  const LearnedModel& m = file.model;
  const LearnOptions& o = m.options;
  json kept = json::array();
  for (size_t i = 0; i < m.kept.size(); ++i)
    kept.push_back({{"column", m.kept[i]},
                    {"name", m.kept_names[i]},
                    {"importance", i < m.importances.size() ? json(m.importances[i]) : json()}});
  json monomials = json::array();
  for (const auto& mono : m.expansion.monomials) monomials.push_back(mono);
  json j = {{"format", kFormat},
            {"version", kVersion},
            {"method", method_name(o.method)},
            {"source", file.source},
            {"rows", file.rows},
            {"options",
             {{"expand", o.expand},
              {"time_filter", optional_number(o.time_filter)},
              {"input_filter", optional_number(o.input_filter)},
              {"importance_filter", optional_number(o.importance_filter)},
              {"trees", o.trees},
              {"seed", o.seed},
              {"interval", o.interval}}},
            {"inputs", m.inputs},
            {"time_filtered_out", m.time_filtered_out},
            {"input_epochs", m.input_epochs.empty() ? json() : json(m.input_epochs)},
            {"training_time_s", m.training_time_s},
            {"expansion", {{"degree", o.method == Method::Extrap ? 1u : o.expand}, {"monomials", monomials}}},
            {"kept", kept},
            {"estimator", estimator_json(m.estimator)}};
  if (file.cross_validation)
    j["cross_validation"] = {{"folds", file.cross_validation->folds},
                             {"mean_relative_error", file.cross_validation->mean_relative_error},
                             {"fold_errors", file.cross_validation->fold_errors}};
  else
    j["cross_validation"] = nullptr;
  return j;
}

ModelFile model_from_json(const json& j, const std::string& source) {
  Reader r{source};
  if (!j.is_object() || r.get<std::string>(j, "format", "") != kFormat)
    r.fail("format", fmt::format("not a learned model (format \"{}\" expected)", kFormat));
  if (r.get<int>(j, "version", "") != kVersion) r.fail("version", fmt::format("version {} expected", kVersion));
  ModelFile f;
  f.source = r.get<std::string>(j, "source", "");
  f.rows = r.get<size_t>(j, "rows", "");
  LearnedModel& m = f.model;
  m.options.method = parse_method(r.get<std::string>(j, "method", ""));
  const json& o = r.at(j, "options", "");
  m.options.expand = r.get<unsigned>(o, "expand", "options.");
  if (!o.value("time_filter", json()).is_null()) m.options.time_filter = r.get<double>(o, "time_filter", "options.");
  if (!o.value("input_filter", json()).is_null())
    m.options.input_filter = r.get<double>(o, "input_filter", "options.");
  if (!o.value("importance_filter", json()).is_null())
    m.options.importance_filter = r.get<double>(o, "importance_filter", "options.");
  m.options.trees = r.get<size_t>(o, "trees", "options.");
  m.options.seed = r.get<uint64_t>(o, "seed", "options.");
  m.options.interval = r.get<double>(o, "interval", "options.");
  m.inputs = r.get<std::vector<std::string>>(j, "inputs", "");
  m.time_filtered_out = r.get<std::vector<std::string>>(j, "time_filtered_out", "");
  // Absent from models written before early stops existed: they cannot stop a run.
  if (!j.value("input_epochs", json()).is_null()) {
    m.input_epochs = r.get<std::vector<double>>(j, "input_epochs", "");
    if (m.input_epochs.size() != m.inputs.size()) r.fail("input_epochs", "needs one epoch per input");
    for (double e : m.input_epochs)
      if (!(e >= 0 && e <= 1)) r.fail("input_epochs", fmt::format("epoch {} is outside 0..1", e));
  }
  if (j.contains("training_time_s")) {
    m.training_time_s = r.get<double>(j, "training_time_s", "");
    if (!(m.training_time_s >= 0)) r.fail("training_time_s", "is negative");
  }
  const json& ex = r.at(j, "expansion", "");
  m.expansion.inputs = m.inputs.size();
  m.expansion.monomials = r.get<std::vector<Monomial>>(ex, "monomials", "expansion.");
  for (const auto& mono : m.expansion.monomials)
    for (uint32_t f : mono)
      if (f >= m.inputs.size()) r.fail("expansion.monomials", "names an input that does not exist");
  const json& kept = r.at(j, "kept", "");
  if (!kept.is_array() || kept.empty()) r.fail("kept", "is not a non-empty array");
  for (size_t i = 0; i < kept.size(); ++i) {
    std::string kp = fmt::format("kept[{}].", i);
    size_t column = r.get<size_t>(kept[i], "column", kp);
    if (column >= m.expansion.monomials.size()) r.fail(kp + "column", "is beyond the expansion's columns");
    m.kept.push_back(column);
    m.kept_names.push_back(r.get<std::string>(kept[i], "name", kp));
    if (!kept[i].value("importance", json()).is_null())
      m.importances.push_back(r.get<double>(kept[i], "importance", kp));
  }
  if (!m.importances.empty() && m.importances.size() != m.kept.size())
    r.fail("kept", "either every kept column has an importance or none has");
  m.estimator = estimator_from(r, r.at(j, "estimator", ""), m.kept.size());
  if (const json& cv = j.value("cross_validation", json()); !cv.is_null()) {
    CrossValidation c;
    c.folds = r.get<size_t>(cv, "folds", "cross_validation.");
    c.mean_relative_error = r.get<double>(cv, "mean_relative_error", "cross_validation.");
    c.fold_errors = r.get<std::vector<double>>(cv, "fold_errors", "cross_validation.");
    f.cross_validation = c;
  }
  return f;
}

void write_model_file(const ModelFile& file, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw UserError("cannot write the model file", {path, std::nullopt, ""}, "check the directory of -o");
  out << to_json(file).dump() << "\n";
  if (!out) throw UserError("writing the model file failed", {path, std::nullopt, ""});
}

ModelFile read_model_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot open the model file", {path, std::nullopt, ""});
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw UserError(fmt::format("not JSON: {}", e.what()), {path, std::nullopt, ""});
  }
  return model_from_json(j, path);
}

}  // namespace perfcast::learn
