// --set KEY=VALUE: edits the parsed machine file before validation, so an
// overridden value is checked exactly as one written in the file.
#include <cctype>

#include <fmt/format.h>

#include "machine/machine_io.h"
#include "machine/schema.h"
#include "support/error.h"

namespace perfcast::machine {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// The TOML value VALUE denotes; text that is not a TOML value is a string, so
// `--set network.topology=torus3d` needs no quotes.
toml::table parse_value(const std::string& value) {
  try {
    toml::table parsed = toml::parse("v = " + value);
    if (parsed.size() == 1 && parsed.get("v")) return parsed;
  } catch (const toml::parse_error&) {
  }
  toml::table parsed;
  parsed.insert("v", value);
  return parsed;
}

std::string joined(const std::vector<std::string>& parts, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) out += (i ? "." : "") + parts[i];
  return out;
}

}  // namespace

void apply_overrides(toml::table& root, const std::vector<std::string>& overrides) {
  for (const auto& text : overrides) {
    auto fail = [&](const std::string& message, std::string hint = {}) {
      throw UserError(fmt::format("--set {}: {}", text, message), {}, std::move(hint));
    };
    size_t eq = text.find('=');
    if (eq == std::string::npos) fail("expected KEY=VALUE, e.g. network.bandwidth=\"20 GB/s\"");
    std::string key = trim(std::string_view(text).substr(0, eq));
    std::vector<std::string> parts = split_key(key);
    for (const auto& p : parts)
      if (p.empty()) fail(fmt::format("'{}' is not a dotted key such as network.latency", key));
    toml::table parsed = parse_value(trim(std::string_view(text).substr(eq + 1)));
    const toml::node& value = *parsed.get("v");

    schema::Context context = schema::Context::Root;
    toml::node* current = &root;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      std::string so_far = joined(parts, i + 1);
      auto next = schema::child(context, part);
      if (!next) {
        std::string parent = i == 0 ? "the top level" : "'" + joined(parts, i) + "'";
        std::string suggestion = schema::closest_key(context, part);
        std::string message = fmt::format("unknown key '{}'", so_far);
        if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", i == 0 ? suggestion : joined(parts, i) + "." + suggestion);
        auto keys = schema::keys_of(context);
        std::string allowed;
        for (const auto& k : keys) allowed += (allowed.empty() ? "" : ", ") + k;
        fail(message, keys.empty() ? std::string("use a numeric index into the array, e.g. node_group.0.cores")
                                   : fmt::format("keys allowed in {}: {}", parent, allowed));
      }
      bool last = i + 1 == parts.size();
      if (toml::table* t = current->as_table()) {
        if (last) {
          t->insert_or_assign(part, value);
          break;
        }
        toml::node* n = t->get(part);
        if (!n) {
          if (*next == schema::Context::NodeGroupArray || *next == schema::Context::CollectiveArray ||
              *next == schema::Context::ValueArray)
            fail(fmt::format("'{}' is not in the file; --set can change its entries but not create them", so_far));
          n = &t->insert(part, toml::table{}).first->second;
        }
        current = n;
      } else if (toml::array* a = current->as_array()) {
        // An array where the schema goes on by name (an earlier --set put one there):
        // only a number can index it.
        bool numeric = !part.empty();
        for (char c : part) numeric = numeric && std::isdigit(static_cast<unsigned char>(c));
        if (!numeric)
          fail(fmt::format("'{}' is an array; '{}' is not an index into it (a number from 0)", joined(parts, i), part));
        size_t index = part.size() > 9 ? a->size() : std::stoul(part);
        if (index >= a->size())
          fail(fmt::format("'{}' has {} entries; index {} is out of range", joined(parts, i), a->size(), index));
        if (last) {
          a->replace(a->cbegin() + static_cast<std::ptrdiff_t>(index), value);
          break;
        }
        current = a->get(index);
      } else {
        fail(fmt::format("'{}' is a value, not a table", joined(parts, i)));
      }
      context = *next;
    }
  }
}

}  // namespace perfcast::machine
