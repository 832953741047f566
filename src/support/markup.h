// Text placed inside HTML or SVG markup: the characters that would end a tag,
// an attribute or an entity are written as entities, so a label taken from a
// user's file never changes the page's structure.
#pragma once

#include <string>
#include <string_view>

namespace perfcast {

inline std::string xml_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace perfcast
