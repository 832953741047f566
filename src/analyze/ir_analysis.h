// Internal: the part of the analyser that includes LLVM (compiled -fno-rtti).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze/analyze.h"
#include "model/program_model.h"

namespace perfcast::analyze::detail {

struct IrInput {
  std::vector<std::filesystem::path> bitcode_files;  // unoptimised, one per source
  std::string opt_level = "2";
  std::map<std::string, double> branch_probabilities;
  nlohmann::json library_costs;  // {"ignore": [...], "functions": {...}}
  std::string program, source, origin;
  std::function<void(const std::string&)> progress;
  // In-core cycles per iteration of innermost loops from LLVM's MCA (mca.h).
  bool mca = true;
  std::string mcpu;  // scheduling model; empty: the host's
  std::string mcpu_why;  // AnalyzeOptions::mcpu_why
  HostInstructionCycles host_cycles;  // put into the scheduling model where given
  bool debug = false;  // say on `progress` why values are no parameters and what MCA priced
};

model::ProgramModel analyze_bitcode(const IrInput& input);

}  // namespace perfcast::analyze::detail
