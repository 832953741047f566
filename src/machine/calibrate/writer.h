// Renderings of one Calibration beside its machine model (machine_model.h,
// which machine_io.h writes as the machine file): the file's comments and
// JSON. All come from the same figures, so they cannot disagree.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "machine/calibrate/calibrate.h"
#include "machine/machine_io.h"

namespace perfcast::calibrate {

// The machine file's comments: a header naming the writer, then the raw
// curves (bandwidth sweep, ping-pong) and the figures the format has no key for.
machine::MachineFileComments machine_file_comments(const Calibration& cal);

// The noise measurement alone (calibration_json has it under "noise").
nlohmann::json noise_json(const NoiseResult& noise);

// What the noise probe measured of its spell, a sentence for people:
// "states last 120 ms (autocorrelation time 1200 of the probe's quanta,
// median of 16 cores)", with a note
// where the probe's length bounded it on half the cores or more.
std::string spell_summary(const NoiseResult& noise);

// Every figure, including the raw curves.
nlohmann::json calibration_json(const Calibration& cal);

}  // namespace perfcast::calibrate
