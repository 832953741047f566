// Writes a program model given as JSON text to a temporary file, for tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "model/program_model.h"
#include "scratch.h"

namespace perfcast::testing {

inline std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto path = scratch() / name;
  std::ofstream(path) << text;
  return path;
}

// `functions` is the JSON of the "functions" object; `extra` more top-level members.
inline model::ProgramModel model_from(const std::string& functions, const std::string& extra = "",
                                      const std::string& name = "m.json") {
  std::string text = R"({"format": "perfcast-program-model", "version": 1, )" + extra +
                     (extra.empty() ? "" : ", ") + R"("functions": )" + functions + "}";
  return model::load_program_model(write_temp(name, text));
}

}  // namespace perfcast::testing
