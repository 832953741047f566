// Reading and writing machine files (docs/machine-format.md).
//
// Loading parses the TOML, applies --set overrides, then validates and resolves
// every default; each problem is a UserError naming the file, line, dotted key
// and what was expected.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "machine/machine.h"
#include "support/units.h"

namespace perfcast::machine {

Machine load_machine_file(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});

// `source_name` names the text in errors; a mapping file is looked up in `base_dir`.
Machine load_machine_string(std::string_view toml_text, const std::string& source_name,
                            const std::filesystem::path& base_dir = ".",
                            const std::vector<std::string>& overrides = {});

// Validates a parsed (and overridden) machine file and builds the model.
Machine machine_from_toml(const toml::table& root, const std::string& source_name,
                          const std::filesystem::path& base_dir);

// Applies "key=value" overrides: the key is dotted, numbers index arrays
// (node_group.1.cores); the value is a TOML value, or a string when it does not
// parse as one. A key the format does not know, or an array index out of range,
// is a UserError. Tables on the way are created when missing.
void apply_overrides(toml::table& root, const std::vector<std::string>& overrides);

// Comments a machine file carries around its figures (what produced them, the
// raw measurements behind them), as lines of text; each is written as a TOML
// comment ("# " and the line) and loading ignores them.
struct MachineFileComments {
  std::vector<std::string> header;   // before the first key
  std::vector<std::string> trailer;  // after the last table, set apart by a blank line
};

// The machine as a machine file; loading it gives an equal Machine. A mapping
// file is written relative to `base_dir` when given, else as an absolute path.
// The one writer of machine files: every default is written out.
std::string to_toml(const Machine& machine, const std::filesystem::path& base_dir = {},
                    const MachineFileComments& comments = {});
// Written whole or not at all (support/output_file.h), a mapping file
// relative to the file's folder. Throws UserError.
void write_machine_file(const Machine& machine, const std::filesystem::path& file,
                        const MachineFileComments& comments = {});

// A quantity spelled so that parsing it gives back exactly `value`
// ("64 KiB", "5300 Mflop/s"); used for writing machine files.
std::string exact_quantity(double value, units::Dimension dimension);

// `name_or_path` if it is a file; else a bundled machine of that name
// (machines/<name>.toml, or $PERFCAST_MACHINES/<name>.toml). Throws UserError
// listing the bundled machines when neither exists.
std::filesystem::path find_machine_file(const std::string& name_or_path);
std::vector<std::string> bundled_machine_names();

}  // namespace perfcast::machine
