// The keys a machine file may hold, shared by validation (unknown keys are
// errors) and by --set (an override must name a key the format knows).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast::machine::schema {

enum class Context {
  Root, Node, NodeGroupArray, NodeGroup, Memory, MemoryLevel, Math, MathPrecision,
  Network, MessageTimes, StreamOverlap, CoreSharing, Noise, InstructionCycles, Mapping, CollectiveArray, Collective, Value, ValueArray
};

// What `key` under a table (or array) of kind `parent` is; none if unknown.
// Arrays take decimal indices as keys.
std::optional<Context> child(Context parent, std::string_view key);

// The keys `parent` accepts, for error messages.
std::vector<std::string> keys_of(Context parent);

// The known key closest to `key` within edit distance 2, or empty.
std::string closest_key(Context parent, std::string_view key);

}  // namespace perfcast::machine::schema
