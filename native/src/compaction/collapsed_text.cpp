#include "ctxwin/compaction/collapsed_text.hpp"

namespace ctxwin {

std::string collapsed_text(std::string_view text, std::size_t max_code_points) {
  std::string out;
  std::size_t code_points = 0;
  bool space = false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if ((c & 0xC0) != 0x80) {  // a code point starts here (continuation bytes never cut)
      if (code_points + (space ? 1 : 0) >= max_code_points) return out + "...";
      if (space) {
        out.push_back(' ');
        ++code_points;
        space = false;
      }
      ++code_points;
    }
    out.push_back(ch);
  }
  return out;
}

}  // namespace ctxwin
