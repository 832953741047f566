// Renderings of one Calibration: the machine file (docs/machine-format.md)
// and JSON. Both come from the same figures, so they cannot disagree.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "machine/calibrate/calibrate.h"

namespace perfcast::calibrate {

// The machine file: toml++ output, then a comment block with the raw curves
// (bandwidth sweep, ping-pong) and the figures the format has no key for.
std::string machine_toml(const Calibration& cal);

// The MPI measurement alone, as the machine file's [network] table and its
// [[collective]] tables (what `calibrate --network-only` puts into a file).
std::string network_toml(const MpiResult& mpi);

// The noise measurement alone (calibration_json has it under "noise").
nlohmann::json noise_json(const NoiseResult& noise);

// Every figure, including the raw curves.
nlohmann::json calibration_json(const Calibration& cal);

// Writes to a temporary file next to `path` and renames it over `path` only
// once complete, so an interrupted or failed run never leaves a partial file.
// Throws UserError when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace perfcast::calibrate
