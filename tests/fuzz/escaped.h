// Bytes as C++ source would write them inside quotes, so that a fuzz target's
// report shows its input exactly: printable ASCII as is, the rest (and both
// quote characters and the backslash) as \xNN.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace memrep::fuzz {

inline std::string Escaped(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace memrep::fuzz
